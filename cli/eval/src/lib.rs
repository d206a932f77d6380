//! Evaluation on multi-hop QA datasets (SPEC §9): dataset converters, answer and
//! retrieval metrics, per-question scoring, and answer runs through the `ask`
//! engine. The `rlmkg eval` command drives it (and scores WiCE files itself).
// Only the binary prints (ARCHITECTURE.md): a library reports through return values and traits.
#![deny(clippy::print_stdout, clippy::print_stderr)]

pub mod dataset;
pub mod gold;
pub mod graph_check;
pub mod incidents;
pub mod metrics;
mod rng;
pub mod runner;
pub mod score;
pub mod seeds;
pub mod store;
pub mod world;

use std::path::PathBuf;

use rlmkg_ingest::StoreError;

/// Errors of an evaluation's retrieval, scoring and runs.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum EvalError {
    /// A store query failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The evaluation store could not be opened or brought up to date.
    #[error("cannot {what} {}: {source}", path.display())]
    StoreAt {
        /// What was being done ("open the store", "ingest the corpus into").
        what: &'static str,
        /// The store directory.
        path: PathBuf,
        /// Why.
        #[source]
        source: StoreError,
    },
    /// The async runtime for answer runs could not start.
    #[error("starting the async runtime: {0}")]
    Runtime(#[source] std::io::Error),
    /// A retrieval or run of another implementation failed, in words.
    #[error("{0}")]
    Failed(String),
}

/// The result of evaluation calls.
pub type Result<T, E = EvalError> = std::result::Result<T, E>;
