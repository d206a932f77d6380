//! The plain data one document contributes to the graph.

use rlmkg_ids::{ChunkId, DocId};
use serde::{Deserialize, Serialize};

/// A chunk's byte span in its document.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChunkSpan {
    /// Chunk id (`c<number>` in a record).
    pub id: ChunkId,
    /// Byte start in the document text.
    pub start: u64,
    /// Byte end (exclusive).
    pub end: u64,
}

/// An entity as one document sees it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EntityDecl {
    /// Canonical key (see [`crate::entity_key`]); also the entity id.
    pub key: String,
    /// Display name.
    pub name: String,
    /// Type guess: person, organization, place, date, work, other.
    pub kind: String,
    /// Other surface forms merged into this entity in this document.
    pub aliases: Vec<String>,
}

/// One mention of an entity.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MentionDecl {
    /// Entity key.
    pub entity: String,
    /// Chunk holding the mention.
    pub chunk: ChunkId,
    /// Byte start in the document text.
    pub start: u64,
    /// Byte end (exclusive).
    pub end: u64,
}

/// An evidence span of a relation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EvidenceSpan {
    /// Chunk holding the evidence.
    pub chunk: ChunkId,
    /// Byte start in the document text.
    pub start: u64,
    /// Byte end (exclusive).
    pub end: u64,
}

/// A labelled relation between two entities with its evidence: a fact
/// (`subject` did `label` to `object`: a predicate's label or an `other`
/// phrase, see [`crate::Predicate`]) or a co-occurrence (`co-occurs`, weak
/// evidence for ranking, never shown as a fact).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RelationDecl {
    /// Subject entity key.
    pub subject: String,
    /// Object entity key.
    pub object: String,
    /// Label: `co-occurs`, a predicate's label or `other: <verb phrase>`.
    pub label: String,
    /// Weight (number of supporting sentences).
    pub weight: f64,
    /// Evidence spans (at least one).
    pub evidence: Vec<EvidenceSpan>,
}

/// Everything one document contributes to the graph.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DocGraph {
    /// Document id (`d<number>` in a record).
    pub doc: DocId,
    /// Source path.
    pub path: String,
    /// Title.
    pub title: String,
    /// Format name.
    pub format: String,
    /// Chunks.
    pub chunks: Vec<ChunkSpan>,
    /// Entities.
    pub entities: Vec<EntityDecl>,
    /// Mentions.
    pub mentions: Vec<MentionDecl>,
    /// Relations.
    pub relations: Vec<RelationDecl>,
    /// The entity the document is about (named by its title), when it has one.
    #[serde(default)]
    pub about: Option<String>,
}
