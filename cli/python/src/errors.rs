//! The package's exceptions and the one mapping from the library's typed
//! errors onto them. Every exception carries the library's message.
//!
//! ```text
//! RlmkgError
//!  ├── StoreError             the store failed (StoreError of the library)
//!  │    ├── StoreNotFoundError   no store at the path
//!  │    ├── StoreLockedError     another writer holds the store
//!  │    └── NotFoundError        an id that names nothing in the store
//!  ├── ModelError             a model, a backend or the RLM run failed
//!  ├── VerificationError      the citation checker could not read its sources
//!  └── EvalError              an evaluation could not run
//! ```

use pyo3::PyErr;
use pyo3::create_exception;
use pyo3::exceptions::PyException;
use rlmkg::backends::BackendError;
use rlmkg::{AskError, StoreError as LibStoreError};
use rlmkg_eval::EvalError as LibEvalError;

create_exception!(
    rlmkg,
    RlmkgError,
    PyException,
    "The base of every rlmkg exception."
);
create_exception!(rlmkg, StoreError, RlmkgError, "The store failed.");
create_exception!(
    rlmkg,
    StoreNotFoundError,
    StoreError,
    "No rlmkg store at the path (create one with Store.create)."
);
create_exception!(
    rlmkg,
    StoreLockedError,
    StoreError,
    "Another writer holds the store's lock."
);
create_exception!(
    rlmkg,
    NotFoundError,
    StoreError,
    "An id that names nothing in the store."
);
create_exception!(
    rlmkg,
    ModelError,
    RlmkgError,
    "A model, a model backend or the RLM run failed (or none is configured)."
);
create_exception!(
    rlmkg,
    VerificationError,
    RlmkgError,
    "The citation checker could not read its sources."
);
create_exception!(
    rlmkg,
    EvalError,
    RlmkgError,
    "An evaluation could not run (the dataset, its corpus, the runtime)."
);

/// A store error as its exception.
pub(crate) fn store(e: LibStoreError) -> PyErr {
    let msg = e.to_string();
    match e {
        LibStoreError::NotFound(_) => StoreNotFoundError::new_err(msg),
        LibStoreError::Locked { .. } => StoreLockedError::new_err(msg),
        LibStoreError::UnknownId(_) => NotFoundError::new_err(msg),
        _ => StoreError::new_err(msg),
    }
}

/// An `ask` error as its exception.
pub(crate) fn ask(e: AskError) -> PyErr {
    match e {
        AskError::Store(s) => store(s),
        AskError::NoRootModel | AskError::Rlm(_) | AskError::Model(_) => {
            ModelError::new_err(e.to_string())
        }
        AskError::Verify(_) => VerificationError::new_err(e.to_string()),
        other => RlmkgError::new_err(other.to_string()),
    }
}

/// A backend that could not be built.
pub(crate) fn backend(e: BackendError) -> PyErr {
    ModelError::new_err(e.to_string())
}

/// The checker failing to read its sources.
pub(crate) fn verification(e: rlmkg_citation::SourceError) -> PyErr {
    VerificationError::new_err(format!("verification: {e}"))
}

/// An evaluation error as its exception (store failures as store errors).
pub(crate) fn eval(e: LibEvalError) -> PyErr {
    match e {
        LibEvalError::Store(s) => store(s),
        LibEvalError::StoreAt { .. } => StoreError::new_err(e.to_string()),
        other => EvalError::new_err(other.to_string()),
    }
}

/// Anything else the library reports in words.
pub(crate) fn other(msg: impl Into<String>) -> PyErr {
    RlmkgError::new_err(msg.into())
}
