//! The entity graph of an rlmkg store.
//!
//! The graph lives in oxigraph as RDF (persistent, RocksDB-backed), one named graph
//! per document so a document's facts are dropped atomically. The vocabulary is in
//! [`vocab`]. A read-only in-memory [`GraphView`] built from the RDF with petgraph
//! serves traversal and ranking: neighbors, k-hop sets, shortest and bridging
//! paths, and personalized PageRank from seed entities to rank chunks.
//!
//! This crate knows nothing of tantivy or of the manifest.

mod model;
mod store;
mod view;
pub mod vocab;

pub use model::{ChunkSpan, DocGraph, EntityDecl, EvidenceSpan, MentionDecl, RelationDecl};
pub use oxigraph::model::Quad;
pub use store::{ExportFormat, GraphError, GraphStore, SpanCheck, SpanReport, SparqlOutput};
pub use view::{EntityInfo, GraphPath, GraphView, MentionEdge, Neighbor, PathStep, entity_key};
