//! The small RDF vocabulary of rlmkg and the IRIs of its nodes.
//!
//! Nodes: `urn:rlmkg:doc:d1` (also the named graph of the document's facts),
//! `urn:rlmkg:chunk:c1`, `urn:rlmkg:entity:<key>`, `urn:rlmkg:mention:<doc>:<n>`,
//! `urn:rlmkg:relation:<doc>:<n>`, `urn:rlmkg:evidence:<doc>:<start>-<end>` (one
//! node per evidence span, shared by the relations it supports).
//! Predicates and classes live under [`NS`].

/// Namespace of predicates and classes.
pub const NS: &str = "https://rlmkg.invalid/ns#";
/// IRI prefix of documents (and their named graphs).
pub const DOC: &str = "urn:rlmkg:doc:";
/// IRI prefix of chunks.
pub const CHUNK: &str = "urn:rlmkg:chunk:";
/// IRI prefix of entities.
pub const ENTITY: &str = "urn:rlmkg:entity:";
/// IRI prefix of mentions.
pub const MENTION: &str = "urn:rlmkg:mention:";
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
    /// Class of mentions.
    pub const MENTION: &str = "Mention";
    /// Class of relations.
    pub const RELATION: &str = "Relation";
    /// Class of evidence spans.
    pub const EVIDENCE_SPAN: &str = "EvidenceSpan";
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
    /// Mention → entity.
    pub const MENTION_OF: &str = "mentionOf";
    /// Mention or evidence → chunk.
    pub const IN_CHUNK: &str = "inChunk";
    /// Chunk → entity shortcut.
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
