//! The rlmkg store and its ingest pipeline.
//!
//! A [`Store`] is a directory holding a manifest (format version, per-file content
//! hashes, settings), a tantivy index of chunks (`rlmkg-index`), one graph
//! record per document (entities, mentions, relations with their evidence
//! spans) with a snapshot of the petgraph view built from them (`rlmkg-graph`),
//! the normalized document texts, and a lock file for the single writer. The
//! RDF is derived from the records in memory when a command needs it.
//!
//! The store (`store/`: layout, manifest, lock, commit protocol, reads,
//! invariants) and the ingest pipeline (`run.rs`, `pipeline.rs`, `formats.rs`,
//! `text.rs`, `extract.rs`: walking, formats, chunking, extraction, batching)
//! meet at the store's writer API (`store/write.rs`). A batch commits new
//! files first and the manifest last, and replaced files go after it; a
//! writer that opens the store removes whatever an interrupted command left
//! unlisted.
// Only the binary prints (ARCHITECTURE.md): a library reports through return values and traits.
#![deny(clippy::print_stdout, clippy::print_stderr)]

mod asked;
mod bounds;
mod error;
mod extract;
mod facts;
mod formats;
mod manifest;
mod model_facts;
mod nations;
mod nice;
mod pipeline;
mod run;
mod store;
mod text;
mod tokens;
mod types;

pub use asked::predicate_words;
pub use error::StoreError;
pub use formats::DocMeta;
pub use manifest::{APPROX_IDENTITY, FORMAT_VERSION, FileEntry, Manifest, Settings};
pub use model_facts::{
    CachedFactReader, FactPassage, FactReader, FactReading, ModelFactEstimate, ModelFactStats,
    ProposedFact,
};
pub use pipeline::{DEFAULT_BATCH_BYTES, DEFAULT_MAX_FILE_BYTES, IngestOptions};
/// The fact vocabulary (issue 43), for readers of relation labels.
pub use rlmkg_graph::{CO_OCCURS, LabelKind, Predicate, is_fact, label_kind};
pub use store::{
    ANN_EF_SEARCH, ANN_MIN_VECTORS, BM25_WEIGHT, DENSE_WEIGHT, Embedder, FUSION_DEPTH, MAX_HOPS,
    MAX_K, NAME_MATCH_MIN, RRF_K, SearchMode, Store, fuse,
};
pub use text::{SegmentMode, normalize, sentences};
pub use tokens::{APPROX_SPEC, TokenCounter, TokenizerError, hf_hub_cache};
pub use types::*;

/// Bare tantivy indexing of texts (the ingest benchmark's baseline).
pub use rlmkg_index::bare_index_throughput;
