//! `rlmkg bench`: the benchmark suite (SPEC §10, `rlmkg-bench`); with no area
//! it runs them all, and prints one table (or `--json` rows).

use std::io::Write;

use clap::Args;
use rlmkg::named::Named;
use rlmkg_bench::{Area, BenchOptions};

use crate::cli::GlobalArgs;

/// Arguments of `rlmkg bench`.
#[derive(Debug, Args)]
pub struct BenchArgs {
    /// Areas to run (ingest, graph, repl, batched, model, serve, servers; default: all).
    pub areas: Vec<Area>,
    /// Where benchmark corpora and scratch stores go.
    #[arg(long, default_value = "bench-data")]
    pub work_dir: std::path::PathBuf,
    /// Smaller inputs, for a quick look.
    #[arg(long)]
    pub quick: bool,
}

/// Run `rlmkg bench`.
pub fn run(args: BenchArgs, global: &GlobalArgs) -> anyhow::Result<u8> {
    let mut stdout = crate::out::stdout();
    let areas = if args.areas.is_empty() {
        Area::ALL.to_vec()
    } else {
        args.areas.clone()
    };
    let opts = BenchOptions {
        work_dir: args.work_dir,
        quick: args.quick,
        rlmkg_bin: std::env::current_exe()?,
    };
    let mut rows = Vec::new();
    for area in areas {
        match rlmkg_bench::run(area, &opts, &mut |n| eprintln!("bench {area}: {n}")) {
            Ok(r) => rows.extend(r),
            Err(e) => eprintln!("bench {area}: {}", crate::out::error_chain(e.as_ref())),
        }
    }
    if global.json {
        writeln!(stdout, "{}", serde_json::to_string_pretty(&rows)?)?;
    } else {
        writeln!(
            stdout,
            "{:<8} {:<44} {:>14} {:<8} {:<22} note",
            "area", "measure", "value", "unit", "target"
        )?;
        for r in &rows {
            writeln!(
                stdout,
                "{:<8} {:<44} {:>14.3} {:<8} {:<22} {}",
                r.area,
                r.name,
                r.value,
                r.unit,
                r.target.as_deref().unwrap_or("-"),
                r.note
            )?;
        }
    }
    Ok(0)
}
