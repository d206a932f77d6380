//! The store's error type.

use std::path::PathBuf;

/// Errors of the store and the ingest pipeline.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StoreError {
    /// The store was written by another, incompatible format version.
    #[error(
        "the store at {dir} has format version {found}, but this rlmkg reads version {expected}; \
         re-create it (delete the directory and ingest again) or use a matching rlmkg"
    )]
    FormatVersion {
        /// Store directory.
        dir: PathBuf,
        /// Version on disk.
        found: u32,
        /// Version this build reads.
        expected: u32,
    },
    /// Another process holds the writer lock.
    #[error("the store at {dir} is locked by another writer ({holder}); wait for it to finish")]
    Locked {
        /// Store directory.
        dir: PathBuf,
        /// Who holds it (pid and command, as recorded in the lock file).
        holder: String,
    },
    /// No store at this path.
    #[error("no rlmkg store at {}", .0.display())]
    NotFound(PathBuf),
    /// The manifest cannot be parsed.
    #[error("the store manifest {path} is unreadable: {message}")]
    Manifest {
        /// Manifest path.
        path: PathBuf,
        /// What went wrong.
        message: String,
    },
    /// A write method was called on a read-only store.
    #[error("the store is open read-only")]
    ReadOnly,
    /// A writer committed while this reader was reading: what the reader's
    /// manifest lists is no longer all there.
    #[error(
        "the store at {0} changed while it was being read (a writer committed); run the command again"
    )]
    Changed(PathBuf),
    /// Something the manifest names is gone though no writer has committed
    /// since it was read: the store was damaged from outside (a folder
    /// deleted, a file removed), which no rerun mends.
    #[error(
        "the store at {dir} is damaged: {what}; ingest the same paths again \
         (`rlmkg ingest PATH…`), which drops the damaged files from the store and adds them anew"
    )]
    Damaged {
        /// Store directory.
        dir: PathBuf,
        /// What is missing, relative to the store (`texts/ is missing`).
        what: String,
    },
    /// An id that does not name anything in the store.
    #[error("not found: {0}")]
    UnknownId(String),
    /// A malformed id or argument.
    #[error("invalid argument: {0}")]
    Invalid(String),
    /// Index error.
    #[error(transparent)]
    Index(#[from] rlmkg_index::IndexError),
    /// Graph error.
    #[error(transparent)]
    Graph(#[from] rlmkg_graph::GraphError),
    /// I/O error with the path involved.
    #[error("{path}: {source}")]
    Io {
        /// Path.
        path: PathBuf,
        /// Cause.
        source: std::io::Error,
    },
}

impl StoreError {
    pub(crate) fn io(path: impl Into<PathBuf>) -> impl FnOnce(std::io::Error) -> StoreError {
        let path = path.into();
        move |source| StoreError::Io { path, source }
    }
}
