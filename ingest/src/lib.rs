//! The rlmkg store and its ingest pipeline.
//!
//! A [`Store`] is a directory holding a manifest (format version, per-file content
//! hashes, settings), a tantivy index of chunks (`rlmkg-index`), an oxigraph RDF
//! store of documents, chunks, entities, mentions and relations with one named
//! graph per document (`rlmkg-graph`), the normalized document texts, and a lock
//! file for the single writer.
//!
//! Ingest reads txt, md, html, pdf, jsonl and json corpora, cuts sentence-aware
//! chunks with exact byte spans, extracts entities and relations by rules, and
//! commits in batches: graph and index first, the manifest last. A writer that
//! opens the store removes whatever an interrupted command left unlisted.

mod error;
mod extract;
mod formats;
mod manifest;
mod pipeline;
mod store;
mod text;
mod tokens;
mod types;

pub use error::StoreError;
pub use formats::DocMeta;
pub use manifest::{FORMAT_VERSION, FileEntry, Manifest, Settings};
pub use pipeline::IngestOptions;
pub use store::Store;
pub use text::{SegmentMode, normalize, sentences};
pub use tokens::{APPROX_IDENTITY, APPROX_SPEC, TokenCounter, TokenizerError, hf_hub_cache};
pub use types::*;

/// Bare tantivy indexing of texts (the ingest benchmark's baseline).
pub use rlmkg_index::bare_index_throughput;
