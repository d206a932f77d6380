//! The entity graph of an rlmkg store.
//!
//! The truth is one record per document ([`DocGraph`]: its chunks, entities,
//! mentions with exact spans, relations with evidence), kept in record files
//! by [`GraphStore`]. Everything else is derived from the records:
//! - [`GraphView`], the in-memory petgraph view that serves traversal and
//!   ranking (neighbors, k-hop sets, shortest and bridging paths,
//!   personalized PageRank), saved as a snapshot at each final commit so a
//!   reader opens a big store without reading every record, with its
//!   [`EntityCards`] beside it, so a cold entity lookup reads a few blocks
//!   and not the whole snapshot;
//! - [`RdfGraph`], the RDF in oxigraph's in-memory store, one named graph per
//!   document in the vocabulary of [`vocab`], built when a command first needs
//!   SPARQL, an export or the invariant checks.
//!
//! This crate knows nothing of tantivy or of the manifest.
// Only the binary prints (ARCHITECTURE.md): a library reports through return values and traits.
#![deny(clippy::print_stdout, clippy::print_stderr)]

mod error;
mod model;
mod predicate;
mod rdf;
mod records;
mod store;
mod view;
pub mod vocab;

pub use error::GraphError;
pub use model::{ChunkSpan, DocGraph, EntityDecl, EvidenceSpan, MentionDecl, RelationDecl};
pub use oxigraph::model::Quad;
pub use predicate::{
    CO_OCCURS, LabelKind, OTHER_PREFIX, OTHER_RDF, Predicate, is_fact, label_from, label_kind,
    stored_label, wants_side,
};
pub use rdf::{
    ExportFormat, RdfGraph, SpanCheck, SpanReport, SparqlOutput, SparqlRemote, check_read_only,
    quad_count, quads_of,
};
pub use records::{pack_of_stem, pack_stem};
pub use store::GraphStore;
pub use view::{
    EntityCards, EntityInfo, GraphPath, GraphView, MentionEdge, Neighbor, PathStep, ViewBuilder,
    ViewSummary, entity_key,
};
