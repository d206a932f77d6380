//! The tantivy full-text index of an rlmkg store.
//!
//! One index holds two kinds of records: chunk records (searchable text plus the
//! byte span and line of the chunk in its document) and document records (title,
//! path, format and where the normalized text lives). Every record carries the id
//! of the ingested *file* it came from, so a file's records are replaced or deleted
//! with one term.
//!
//! This crate knows nothing of the graph or of the manifest; the store in
//! `rlmkg-ingest` keeps them in step.
// Only the binary prints (ARCHITECTURE.md): a library reports through return values and traits.
#![deny(clippy::print_stdout, clippy::print_stderr)]

mod analyzer;
mod index;
mod query;
mod records;

pub use index::{ChunkIndex, IndexError, SearchResult, bare_index_throughput};
pub use records::{ChunkRecord, DocRecord};
