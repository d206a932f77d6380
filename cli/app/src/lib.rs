//! rlmkg: answer questions over large document collections with a recursive
//! language model walking a knowledge graph, and verify every sentence of the
//! answer against the source text it cites.
//!
//! The library facade: open (or create) a [`Store`], [`Store::ingest`] files into it,
//! and [`ask`] questions, getting back a typed [`Answer`] with claims, citations and
//! verdicts. The `rlmkg` binary is a thin layer over the same calls.
//!
//! ```no_run
//! use std::sync::Arc;
//! use rlmkg::{AskOptions, Models, NoProgress, Store, IngestOptions};
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let dir = std::path::Path::new("/tmp/rlmkg-doc-store");
//! let mut store = Store::create_or_open(dir)?;
//! store.ingest(&["examples/corpus".into()], &IngestOptions::default(), &NoProgress)?;
//! drop(store); // release the writer lock
//!
//! let store = Arc::new(Store::open_read(dir)?);
//! let runtime = tokio::runtime::Runtime::new()?;
//! // No model configured: the heuristic strategy answers extractively.
//! let answer = runtime.block_on(rlmkg::ask(
//!     store,
//!     "In which city is the institute that organised the Skarvik Expedition located?",
//!     &Models::default(),
//!     &AskOptions::default(),
//!     &mut |note| eprintln!("{note}"),
//! ))?;
//! println!("{}", answer.text);
//! for claim in &answer.verification.claims {
//!     println!("{:?}: {}", claim.verdict, claim.text);
//! }
//! # Ok(())
//! # }
//! ```
// Only the binary prints (ARCHITECTURE.md): a library reports through return values and traits.
#![deny(clippy::print_stdout, clippy::print_stderr)]

mod answer_check;
mod ask;
pub mod backends;
pub mod encoder;
pub mod fact_reader;
mod handle;
pub mod named;
mod report;
pub mod review;
mod segments;
mod spans;
pub mod usage;

use std::path::Path;

pub use answer_check::{AnswerCheck, AnswerVerdict, ChainHop, check_answer, opening_answer};
pub use ask::{
    Answer, AnswerStrategy, AskError, AskEvent, AskOptions, Events, Heuristic, Method, Models,
    RlmStrategy, Run, Strategy, ask,
};
pub use encoder::{installed_embedder, store_embedder};
pub use handle::StoreHandle;
pub use report::IngestReport;
pub use rlm_core::{LanguageModel, RlmConfig};
pub use rlmkg_citation::{CheckOptions, ClaimReport, Report, Verdict};
pub use rlmkg_heuristic::short::{AnswerType, ShortAnswer};
pub use rlmkg_heuristic::{
    Evidence, Exploration, ExploreOptions, Question, explore, extractive_answer,
};
pub use rlmkg_ingest::{
    Embedder, IngestOptions, IngestSummary, NoProgress, Progress, SearchMode, Store, StoreError,
};
pub use spans::StoreSpans;

/// Open the store at `dir` for reading: the one way every command opens a
/// store to read. A missing directory is [`StoreError::NotFound`], like a
/// directory that holds no store. A store that keeps vectors gets the
/// installed encoder for its queries' vectors ([`installed_embedder`],
/// loaded on the first dense search), so its searches are hybrid.
pub fn open_store_read(dir: &Path) -> Result<Store, StoreError> {
    if !dir.exists() {
        return Err(StoreError::NotFound(dir.to_path_buf()));
    }
    let mut store = Store::open_read(dir)?;
    if store.manifest().settings.embedder.is_some() {
        store.set_embedder(installed_embedder());
    }
    Ok(store)
}
