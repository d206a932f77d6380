//! Errors of the graph crate.

use std::path::{Path, PathBuf};
use std::time::Duration;

/// Errors of the graph store.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum GraphError {
    /// Storage error from oxigraph's in-memory store.
    #[error("RDF store: {0}")]
    Storage(#[from] oxigraph::store::StorageError),
    /// A SPARQL syntax error.
    #[error("SPARQL syntax: {0}")]
    Syntax(String),
    /// A SPARQL evaluation error.
    #[error("SPARQL evaluation: {0}")]
    Evaluation(String),
    /// The query ran past its time limit.
    #[error("SPARQL query timed out after {0:?}")]
    Timeout(Duration),
    /// An update was sent to the read-only query endpoint.
    #[error("SPARQL updates are not allowed: the query interface is read-only")]
    UpdateRejected,
    /// A graph file could not be read, parsed or written.
    #[error("graph file {path}: {message}")]
    File {
        /// The file.
        path: PathBuf,
        /// What went wrong.
        message: String,
    },
    /// The record of a document the caller reads as committed is gone: a
    /// writer committed a newer state meanwhile and removed it.
    #[error("the record of document {0} is gone (a writer committed meanwhile)")]
    RecordGone(String),
    /// A bad IRI built from data.
    #[error("bad IRI: {0}")]
    Iri(String),
    /// A remote SPARQL endpoint failed: down, refused the credentials,
    /// answered with an error or with results that do not parse.
    #[error("{0}")]
    Remote(String),
    /// Serialization error.
    #[error("export: {0}")]
    Io(#[from] std::io::Error),
}

/// A [`GraphError::File`] for `path`.
pub(crate) fn file_err(path: &Path, e: &dyn std::fmt::Display) -> GraphError {
    GraphError::File {
        path: path.to_path_buf(),
        message: e.to_string(),
    }
}
