//! `rlmkg generate`: write a generated evaluation set (documents and questions
//! with their ground truth) to a directory, for `rlmkg eval --corpus`.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::Context;
use clap::{Args, ValueEnum};

use crate::cli::GlobalArgs;

/// The sets `rlmkg generate` makes.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum SetKind {
    /// Short incident reports (category, place) and questions counted over all
    /// of them ("which … most often", "in how many reports …").
    Incidents,
    /// A fictional encyclopaedia (people, organisations, places, works, dates;
    /// one article a file) and multi-hop questions of five kinds with their
    /// gold answers and gold chains (docs/world.md).
    World,
}

/// Arguments of `rlmkg generate`.
#[derive(Debug, Args)]
pub struct GenerateArgs {
    /// Which set.
    pub kind: SetKind,
    /// The directory to write: `reports/` (incidents) or `articles/` and
    /// `facts.jsonl` (world), and `questions.jsonl` (must be empty or absent).
    pub dir: PathBuf,
    /// How many documents (incidents; a world has its own size).
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
    if let SetKind::World = args.kind {
        return world(&args, global);
    }
    let reports = rlmkg_eval::incidents::reports(args.reports, args.seed);
    let questions = rlmkg_eval::incidents::questions(&reports);
    let docs = args.dir.join("reports");
    let qpath = args.dir.join("questions.jsonl");
    let lines = jsonl(&questions)?;
    let files = reports
        .iter()
        .map(|r| (docs.join(&r.file), r.text.as_bytes()));
    write_files(files.chain([(qpath.clone(), lines.as_bytes())]))?;
    let json = serde_json::json!({
        "reports": reports.len(),
        "questions": questions.len(),
        "corpus": docs,
        "dataset": qpath,
    });
    let what = format!(
        "{} reports to {} and {} questions to {}",
        reports.len(),
        docs.display(),
        questions.len(),
        qpath.display()
    );
    say_written(global, &json, &what, &qpath, &docs)?;
    Ok(0)
}

/// Write the world of `--seed`: `articles/`, `questions.jsonl`, `facts.jsonl`.
fn world(args: &GenerateArgs, global: &GlobalArgs) -> anyhow::Result<u8> {
    use rlmkg_eval::world;
    let w = world::generate(args.seed)
        .with_context(|| format!("generating the world of seed {}", args.seed))?;
    let docs = args.dir.join(world::ARTICLES_DIR);
    let (qpath, fpath) = (
        args.dir.join("questions.jsonl"),
        args.dir.join("facts.jsonl"),
    );
    let (questions, facts) = (jsonl(&w.questions)?, jsonl(&w.facts)?);
    let files = w
        .articles
        .iter()
        .map(|a| (args.dir.join(&a.file), a.text.as_bytes()));
    let lists = [
        (qpath.clone(), questions.as_bytes()),
        (fpath.clone(), facts.as_bytes()),
    ];
    write_files(files.chain(lists))?;
    let counts: Vec<(&str, usize)> = world::Kind::ALL
        .iter()
        .map(|k| {
            (
                k.name(),
                w.questions.iter().filter(|q| q.kind == *k).count(),
            )
        })
        .collect();
    let kinds: serde_json::Map<String, serde_json::Value> = counts
        .iter()
        .map(|(k, n)| ((*k).to_owned(), (*n).into()))
        .collect();
    let json = serde_json::json!({
        "articles": w.articles.len(),
        "questions": w.questions.len(),
        "kinds": kinds,
        "facts": w.facts.len(),
        "corpus": docs,
        "dataset": qpath,
        "fact_list": fpath,
    });
    let per_kind: Vec<String> = counts.iter().map(|(k, n)| format!("{n} {k}")).collect();
    let what = format!(
        "{} articles to {}, {} questions ({}) to {} and {} facts to {}",
        w.articles.len(),
        docs.display(),
        w.questions.len(),
        per_kind.join(", "),
        qpath.display(),
        w.facts.len(),
        fpath.display()
    );
    say_written(global, &json, &what, &qpath, &docs)?;
    Ok(0)
}

/// Says what was written: `json` with `--json`, else "wrote `what`" and
/// the command that evaluates the set.
fn say_written(
    global: &GlobalArgs,
    json: &serde_json::Value,
    what: &str,
    dataset: &Path,
    corpus: &Path,
) -> anyhow::Result<()> {
    let mut stdout = crate::out::stdout();
    if global.json {
        writeln!(stdout, "{json}")?;
    } else if !global.quiet {
        let (dataset, corpus) = (dataset.display(), corpus.display());
        writeln!(
            stdout,
            "wrote {what}\nrun: rlmkg --store STORE eval {dataset} --corpus {corpus}"
        )?;
    }
    Ok(())
}

/// Writes each file (its path, its bytes), creating the folders it needs.
fn write_files<'a>(files: impl IntoIterator<Item = (PathBuf, &'a [u8])>) -> anyhow::Result<()> {
    for (path, bytes) in files {
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)
                .with_context(|| format!("creating {}", parent.display()))?;
        }
        std::fs::write(&path, bytes).with_context(|| format!("writing {}", path.display()))?;
    }
    Ok(())
}

/// `items` as JSON lines.
fn jsonl<T: serde::Serialize>(items: &[T]) -> serde_json::Result<String> {
    let mut out = String::new();
    for item in items {
        out.push_str(&serde_json::to_string(item)?);
        out.push('\n');
    }
    Ok(out)
}
