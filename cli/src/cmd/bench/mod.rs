//! `rlmkg bench`: the benchmark suite (SPEC §10). One submodule per area, each
//! returning rows for one table; `rlmkg bench` with no area runs them all.

mod batched;
mod graph;
mod ingest;
mod model;
mod repl;

use clap::{Args, ValueEnum};
use serde::Serialize;
use std::io::Write;

use crate::cli::GlobalArgs;

/// Which benchmarks to run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Area {
    /// Ingest MB/s vs bare tantivy, peak RSS.
    Ingest,
    /// Graph-op latencies on a large store.
    Graph,
    /// REPL overhead per block.
    Repl,
    /// Batched sub-call wall time vs ideal.
    Batched,
    /// Embedded model tokens/s.
    Model,
}

/// Arguments of `rlmkg bench`.
#[derive(Debug, Args)]
pub struct BenchArgs {
    /// Areas to run (default: all).
    #[arg(value_enum)]
    pub areas: Vec<Area>,
    /// Where benchmark corpora and scratch stores go.
    #[arg(long, default_value = "bench-data")]
    pub work_dir: std::path::PathBuf,
    /// Smaller inputs, for a quick look.
    #[arg(long)]
    pub quick: bool,
}

/// One measured figure.
#[derive(Debug, Clone, Serialize)]
pub struct BenchRow {
    /// Area (`ingest`, `graph`, …).
    pub area: String,
    /// What was measured.
    pub name: String,
    /// The figure.
    pub value: f64,
    /// Its unit.
    pub unit: String,
    /// The target from SPEC §10, if any, in words.
    pub target: Option<String>,
    /// Free-form detail (corpus, settings).
    pub note: String,
}

/// Run `rlmkg bench`.
pub fn run(args: BenchArgs, global: &GlobalArgs) -> anyhow::Result<u8> {
    let mut stdout = crate::out::stdout();
    let areas = if args.areas.is_empty() {
        vec![
            Area::Ingest,
            Area::Graph,
            Area::Repl,
            Area::Batched,
            Area::Model,
        ]
    } else {
        args.areas.clone()
    };
    std::fs::create_dir_all(&args.work_dir)?;
    let mut rows = Vec::new();
    for area in areas {
        let got = match area {
            Area::Ingest => ingest::run(&args),
            Area::Graph => graph::run(&args),
            Area::Repl => repl::run(&args),
            Area::Batched => batched::run(&args),
            Area::Model => model::run(&args),
        };
        match got {
            Ok(r) => rows.extend(r),
            Err(e) => eprintln!("bench {area:?}: {e:#}"),
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
