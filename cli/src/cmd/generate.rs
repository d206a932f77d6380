//! `rlmkg generate`: write a generated evaluation set (documents and questions
//! with their ground truth) to a directory, for `rlmkg eval --corpus`.

use std::io::Write;
use std::path::PathBuf;

use anyhow::Context;
use clap::{Args, ValueEnum};

use crate::cli::GlobalArgs;

/// The sets `rlmkg generate` makes.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum SetKind {
    /// Short incident reports (category, place) and questions counted over all
    /// of them ("which … most often", "in how many reports …").
    Incidents,
}

/// Arguments of `rlmkg generate`.
#[derive(Debug, Args)]
pub struct GenerateArgs {
    /// Which set.
    pub kind: SetKind,
    /// The directory to write: `reports/` and `questions.jsonl` (must be empty
    /// or absent).
    pub dir: PathBuf,
    /// How many documents.
    #[arg(long, default_value_t = 40)]
    pub reports: usize,
    /// The generator's seed (the same seed gives the same set).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

/// Run `rlmkg generate`.
pub fn run(args: GenerateArgs, global: &GlobalArgs) -> anyhow::Result<u8> {
    if args.reports == 0 || args.reports > 100_000 {
        anyhow::bail!("--reports must be between 1 and 100000");
    }
    if args.dir.exists()
        && std::fs::read_dir(&args.dir)
            .with_context(|| format!("reading {}", args.dir.display()))?
            .next()
            .is_some()
    {
        anyhow::bail!(
            "{} is not empty; give a new or empty directory",
            args.dir.display()
        );
    }
    let SetKind::Incidents = args.kind;
    let reports = rlmkg_eval::incidents::reports(args.reports, args.seed);
    let questions = rlmkg_eval::incidents::questions(&reports);
    let docs = args.dir.join("reports");
    std::fs::create_dir_all(&docs).with_context(|| format!("creating {}", docs.display()))?;
    for r in &reports {
        let path = docs.join(&r.file);
        std::fs::write(&path, &r.text).with_context(|| format!("writing {}", path.display()))?;
    }
    let qpath = args.dir.join("questions.jsonl");
    let mut lines = String::new();
    for q in &questions {
        lines.push_str(&serde_json::to_string(q)?);
        lines.push('\n');
    }
    std::fs::write(&qpath, lines).with_context(|| format!("writing {}", qpath.display()))?;
    let mut stdout = crate::out::stdout();
    if global.json {
        writeln!(
            stdout,
            "{}",
            serde_json::json!({
                "reports": reports.len(),
                "questions": questions.len(),
                "corpus": docs,
                "dataset": qpath,
            })
        )?;
    } else if !global.quiet {
        writeln!(
            stdout,
            "wrote {} reports to {} and {} questions to {}\nrun: rlmkg --store STORE eval {} --corpus {}",
            reports.len(),
            docs.display(),
            questions.len(),
            qpath.display(),
            qpath.display(),
            docs.display()
        )?;
    }
    Ok(0)
}
