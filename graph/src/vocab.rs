//! The small RDF vocabulary of rlmkg and the IRIs of its nodes.
//!
//! Every fact of a document lives in the named graph `urn:rlmkg:doc:<d>`:
//!
//! - the document `urn:rlmkg:doc:<d>`: `a rk:Document`, `rk:path`, `rk:title`,
//!   `rk:format`, and `rk:about` the entity its title names;
//! - each chunk `urn:rlmkg:chunk:<c>`: `a rk:Chunk`, `rk:inDocument`, `rk:start`,
//!   `rk:end` (byte offsets in the document text);
//! - each entity `urn:rlmkg:entity:<key>` it names: `a rk:Entity`, `rk:name`,
//!   `rk:entityType`, `rk:alias`;
//! - mentions: `<chunk> rk:mentions <entity>`, once per chunk and entity (the
//!   exact span of every mention is in the document's record, which the
//!   in-memory view is built from);
//! - each relation `urn:rlmkg:relation:<d>:<n>`: `rk:subject`, `rk:object`,
//!   `rk:label` (`co-occurs` or a predicate's label), `rk:weight` (supporting
//!   sentences), `rk:evidence` (one or more);
//! - each fact (a relation whose label is not `co-occurs`) also as a plain
//!   triple `<subject> rk:<predicate> <object>`, the predicate's local name
//!   from [`crate::Predicate::rdf_name`] (`rk:bornIn`, `rk:founded`, …) or
//!   `rk:other` for a verb phrase outside the vocabulary (its phrase is the
//!   relation node's `rk:label`); the relation node is the fact reified, with
//!   its evidence;
//! - SPARQL's default graph is the union of the named graphs;
//! - each evidence span `urn:rlmkg:evidence:<d>:<start>-<end>` (one node per
//!   sentence, shared by the relations it supports): `rk:inChunk`, `rk:start`,
//!   `rk:end`.
//!
//! The shape is kept lean (facts a query can derive, such as the class of a
//! relation or of an evidence node, are not stored), so building the RDF in
//! memory from the records stays quick; `rdf::shape` is where it is decided.
//! Predicates and classes live under [`NS`].

/// Namespace of predicates and classes.
pub const NS: &str = "https://rlmkg.invalid/ns#";
/// IRI prefix of documents (and their named graphs).
pub const DOC: &str = "urn:rlmkg:doc:";
/// IRI prefix of chunks.
pub const CHUNK: &str = "urn:rlmkg:chunk:";
/// IRI prefix of entities.
pub const ENTITY: &str = "urn:rlmkg:entity:";
/// IRI prefix of relations.
pub const RELATION: &str = "urn:rlmkg:relation:";
/// IRI prefix of evidence spans.
pub const EVIDENCE: &str = "urn:rlmkg:evidence:";
/// rdf:type.
pub const RDF_TYPE: &str = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type";

/// Local names of predicates and classes (prefix with [`NS`]).
pub mod term {
    /// Class of documents.
    pub const DOCUMENT: &str = "Document";
    /// Class of chunks.
    pub const CHUNK: &str = "Chunk";
    /// Class of entities.
    pub const ENTITY: &str = "Entity";
    /// Document path.
    pub const PATH: &str = "path";
    /// Document title.
    pub const TITLE: &str = "title";
    /// Document format.
    pub const FORMAT: &str = "format";
    /// Chunk → document.
    pub const IN_DOCUMENT: &str = "inDocument";
    /// Byte start.
    pub const START: &str = "start";
    /// Byte end.
    pub const END: &str = "end";
    /// Entity name.
    pub const NAME: &str = "name";
    /// Entity alias.
    pub const ALIAS: &str = "alias";
    /// Entity type guess.
    pub const ENTITY_TYPE: &str = "entityType";
    /// Evidence span → chunk.
    pub const IN_CHUNK: &str = "inChunk";
    /// Chunk → an entity it mentions.
    pub const MENTIONS: &str = "mentions";
    /// Relation subject.
    pub const SUBJECT: &str = "subject";
    /// Relation object.
    pub const OBJECT: &str = "object";
    /// Relation label.
    pub const LABEL: &str = "label";
    /// Relation weight.
    pub const WEIGHT: &str = "weight";
    /// Relation → evidence span.
    pub const EVIDENCE: &str = "evidence";
    /// Document → the entity its title names.
    pub const ABOUT: &str = "about";
}

/// Full IRI of a vocabulary term.
pub fn ns(local: &str) -> String {
    format!("{NS}{local}")
}
