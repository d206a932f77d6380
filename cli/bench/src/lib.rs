//! The benchmark suite (SPEC §10): one module per area, each returning rows
//! for one table. The binary's `rlmkg bench` picks the areas and prints the
//! rows; performance targets live here, never in timed tests.
//!
//! A tool crate: every failure is reported to the person running the
//! benchmark as text, so areas return `anyhow` errors rather than a typed one.
// Only the binary prints (ARCHITECTURE.md): a library reports through return values and traits.
#![deny(clippy::print_stdout, clippy::print_stderr)]

mod batched;
mod embed;
mod graph;
mod ingest;
mod ingest_embed;
mod model;
mod repl;
pub mod scale;
mod serve;
mod servers;

use std::path::PathBuf;

use rlmkg::named::Named;
use serde::Serialize;

/// A benchmark area.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
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
    /// Sentence encoder chunks/s.
    Embed,
    /// `rlmkg serve` latencies under load while an ingest commits.
    Serve,
    /// Sub-calls over one and two model servers (one failing, one killed).
    Servers,
    /// Ingest, memory, cold lookups and SPARQL at 1×, 4×, 10× the corpus
    /// (issue 31); its own options and table ([`scale`]), not in the default set.
    Scale,
}

impl Named for Area {
    const ALL: &'static [Self] = &[
        Self::Ingest,
        Self::Graph,
        Self::Repl,
        Self::Batched,
        Self::Model,
        Self::Embed,
        Self::Serve,
        Self::Servers,
        Self::Scale,
    ];
    const WHAT: &'static str = "benchmark area";

    fn name(self) -> &'static str {
        match self {
            Self::Ingest => "ingest",
            Self::Graph => "graph",
            Self::Repl => "repl",
            Self::Batched => "batched",
            Self::Model => "model",
            Self::Embed => "embed",
            Self::Serve => "serve",
            Self::Servers => "servers",
            Self::Scale => "scale",
        }
    }
}

rlmkg::named_display_from_str!(Area);

/// Where and how big.
#[derive(Debug, Clone)]
pub struct BenchOptions {
    /// Where benchmark corpora and scratch stores go.
    pub work_dir: PathBuf,
    /// Smaller inputs, for a quick look.
    pub quick: bool,
    /// The `rlmkg` binary that `ingest` runs as a user would (a new process per run).
    pub rlmkg_bin: PathBuf,
    /// `ingest`: also ingest a small slice with and without vectors
    /// (the installed encoder; [`ingest_embed`]).
    pub embed: bool,
}

impl BenchOptions {
    /// The fixed latency of each simulated model call, in ms: 200, or 50 for
    /// a quick look (the batched and servers areas).
    fn latency_ms(&self) -> u64 {
        if self.quick { 50 } else { 200 }
    }
}

/// The runtime the areas that drive async code measure on: two workers, as
/// on the 2-core machines the targets were set for.
fn runtime() -> std::io::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
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

impl BenchRow {
    /// A row with no target.
    fn plain(area: &str, name: &str, value: f64, unit: &str, note: &str) -> Self {
        Self {
            area: area.into(),
            name: name.into(),
            value,
            unit: unit.into(),
            target: None,
            note: note.into(),
        }
    }
}

/// Run one area; `note` receives remarks (a comparison skipped, and why).
/// [`Area::Scale`] has options and rows of its own: run it with [`scale::run`].
pub fn run(
    area: Area,
    opts: &BenchOptions,
    note: &mut dyn FnMut(&str),
) -> anyhow::Result<Vec<BenchRow>> {
    std::fs::create_dir_all(&opts.work_dir)?;
    match area {
        Area::Ingest => {
            let mut rows = ingest::run(opts)?;
            if opts.embed {
                // The rows without vectors stand even when the slice cannot run.
                match ingest_embed::run(opts) {
                    Ok(more) => rows.extend(more),
                    Err(e) => note(&format!("--embed: {e:#}")),
                }
            }
            Ok(rows)
        }
        Area::Graph => graph::run(opts),
        Area::Repl => repl::run(opts),
        Area::Batched => batched::run(opts),
        Area::Model => model::run(opts, note),
        Area::Embed => embed::run(opts),
        Area::Serve => serve::run(opts),
        Area::Servers => servers::run(opts),
        Area::Scale => anyhow::bail!("`bench scale` runs through rlmkg_bench::scale::run"),
    }
}
