//! What a reader of an rlmkg corpus gets back, and the small read trait that
//! code answering from a corpus sees it through.
//!
//! The types are the store's public read results (search hits, passages with
//! their sentences and exact spans, entities, neighbors, paths), serializable
//! for `--json` and the REPL. [`Corpus`] is the read-only face of a store that
//! the model-free strategy needs; the store implements it, and tests implement
//! it over fixtures.
//!
//! This crate knows nothing of tantivy, the graph's records, the disk layout or
//! any model.
// Only the binary prints (ARCHITECTURE.md): a library reports through return values and traits.
#![deny(clippy::print_stdout, clippy::print_stderr)]

use rlmkg_ids::{ChunkId, DocId};
use serde::{Deserialize, Serialize};

/// The read queries the model-free strategy asks of a corpus.
///
/// Every method is a pure read of one committed state; `k` and `max_hops` are
/// clamped by the implementation.
pub trait Corpus {
    /// What a failed read reports.
    type Error: std::error::Error + Send + Sync + 'static;

    /// BM25 hits for `query`, best first (at most `k`).
    fn search(&self, query: &str, k: usize) -> Result<Vec<SearchHit>, Self::Error>;
    /// A chunk (`c12`), sentence (`c12.s3`) or sentence range (`c12.s2-s4`).
    fn read(&self, id: &str) -> Result<Passage, Self::Error>;
    /// Entities whose names match `query`, best first (at most `k`).
    fn entities(&self, query: &str, k: usize) -> Result<Vec<EntityInfo>, Self::Error>;
    /// The entity with this id or name, if any.
    fn entity(&self, id_or_name: &str) -> Result<Option<EntityInfo>, Self::Error>;
    /// Connecting paths between two entities (ids or names) of at most `max_hops` steps.
    fn path(&self, a: &str, b: &str, max_hops: usize) -> Result<Vec<GraphPath>, Self::Error>;
    /// The entities mentioned in a chunk.
    fn entities_of_chunk(&self, chunk: ChunkId) -> Result<Vec<EntityInfo>, Self::Error>;
    /// The chunks that mention an entity (id or name).
    fn chunks_of_entity(&self, entity: &str) -> Result<Vec<ChunkId>, Self::Error>;
    /// The chunks of a document (`d3`), in order.
    fn chunk_ids_of_doc(&self, doc: &str) -> Result<Vec<ChunkId>, Self::Error>;
    /// Chunks ranked by personalized PageRank from the seed entities (ids or
    /// names) and, when given, the BM25 hits of `query` (at most `k`).
    fn related(
        &self,
        seeds: &[String],
        query: Option<&str>,
        k: usize,
    ) -> Result<Vec<RankedChunk>, Self::Error>;
}

/// A search hit.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct SearchHit {
    /// Chunk id.
    pub id: ChunkId,
    /// Document id.
    pub doc: DocId,
    /// Document title.
    pub title: String,
    /// Source path.
    pub path: String,
    /// BM25 score.
    pub score: f32,
    /// Chunk text.
    pub text: String,
}

/// A document reference.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct DocRef {
    /// Document id.
    pub id: String,
    /// Source path.
    pub path: String,
    /// Title.
    pub title: String,
    /// Format.
    pub format: String,
}

/// A sentence with its exact span.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct SentenceSpan {
    /// Sentence id, `c12.s3`.
    pub id: String,
    /// Text (exactly the document bytes `start..end`).
    pub text: String,
    /// Byte start in the document text.
    pub start: usize,
    /// Byte end.
    pub end: usize,
    /// 1-based first line.
    pub line_start: u32,
    /// 1-based last line.
    pub line_end: u32,
    /// PDF page.
    pub page: Option<u32>,
    /// Enclosing heading.
    pub heading: Option<String>,
}

/// A chunk or a sentence range read back.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct Passage {
    /// The id asked for (`c12`, `c12.s3`, `c12.s2-s4`).
    pub id: String,
    /// Chunk id.
    pub chunk: ChunkId,
    /// Its document.
    pub doc: DocRef,
    /// The text of the requested range.
    pub text: String,
    /// Byte start of the range in the document.
    pub start: usize,
    /// Byte end.
    pub end: usize,
    /// Requested sentences (all sentences of the chunk for a chunk id).
    pub sentences: Vec<SentenceSpan>,
}

/// A chunk ranked by graph relevance.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct RankedChunk {
    /// Chunk id.
    pub id: ChunkId,
    /// Document id.
    pub doc: DocId,
    /// Document title.
    pub title: String,
    /// Source path.
    pub path: String,
    /// Score (personalized PageRank mass).
    pub score: f64,
    /// Chunk text.
    pub text: String,
}

/// A document in the store.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct DocInfo {
    /// Document id.
    pub id: String,
    /// Source path.
    pub path: String,
    /// Title.
    pub title: String,
    /// Number of chunks.
    pub chunks: u64,
    /// Normalized text bytes.
    pub bytes: u64,
    /// Format.
    pub format: String,
    /// Record index within a JSONL / JSON corpus file.
    pub record: Option<u64>,
}

/// An entity with its aggregate facts.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct EntityInfo {
    /// Entity id (its canonical key).
    pub id: String,
    /// Display name (the most frequent declared name).
    pub name: String,
    /// Type guess.
    #[serde(rename = "type")]
    pub kind: String,
    /// Other names.
    pub aliases: Vec<String>,
    /// Number of mentions.
    pub mentions: u64,
}

/// A neighbor of an entity across one relation.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Neighbor {
    /// Entity id.
    pub id: String,
    /// Name.
    pub name: String,
    /// Type guess.
    #[serde(rename = "type")]
    pub kind: String,
    /// Relation label as read from the entity asked about: a fact's
    /// predicate ("born in"), its inverse when that entity is the object
    /// ("founded by"), `other: <verb phrase>` (`<-` before it when that
    /// entity is the object), or `co-occurs`.
    pub relation: String,
    /// Weight.
    pub weight: f64,
    /// Chunk ids of the evidence.
    pub evidence: Vec<ChunkId>,
}

/// A fact about an entity: subject, predicate, object and the sentence that
/// says it.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Fact {
    /// Subject entity id.
    pub subject: String,
    /// Subject name.
    pub subject_name: String,
    /// Predicate: a label of the vocabulary ("born in", "founded") or
    /// `other: <verb phrase>`, read from the subject.
    pub predicate: String,
    /// Object entity id.
    pub object: String,
    /// Object name (a date's text for date predicates).
    pub object_name: String,
    /// Object type guess.
    pub object_type: String,
    /// The evidence sentence's id (`c12.s3`), when one sentence of the
    /// evidence chunk names an end of the fact.
    pub sentence: Option<String>,
    /// Chunk ids of the evidence.
    pub evidence: Vec<ChunkId>,
}

/// One step of a path.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct PathStep {
    /// Entity id.
    pub from: String,
    /// Entity id.
    pub to: String,
    /// Relation label.
    pub relation: String,
    /// Evidence chunk ids.
    pub evidence: Vec<ChunkId>,
}

/// A path between two entities.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct GraphPath {
    /// Entity ids along the path, ends included.
    pub entities: Vec<String>,
    /// Their names.
    pub names: Vec<String>,
    /// The steps.
    pub steps: Vec<PathStep>,
}
