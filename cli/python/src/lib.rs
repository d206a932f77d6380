//! The `rlmkg` Python package: the library crate `rlmkg` as a Python module
//! (PyO3, built into an abi3 wheel by maturin). A thin layer: every method
//! calls the library and hands its result back, converted through serde
//! (`pythonize`) so field names have one source, the Rust types. The results
//! callers read most — [`Answer`](answer::Answer), the checker's
//! [`Verification`](answer::Verification) and its [`Claim`](answer::Claim)s,
//! [`SearchHit`](results::SearchHit), [`Entity`](results::Entity) with its
//! [`Neighbor`](results::Neighbor)s — are small classes with typed
//! attributes and `to_dict()`; the rest are dicts and lists. Nothing here prints; errors are exceptions carrying the
//! library's message ([`errors`]).
//!
//! The GIL is released while the library works (ingest, ask, eval, reads);
//! progress and event callbacks take it back to call Python.
// Only the binary prints (ARCHITECTURE.md).
#![deny(clippy::print_stdout, clippy::print_stderr)]

mod answer;
mod convert;
mod errors;
mod eval;
mod models;
mod progress;
mod results;
mod runtime;
mod store;

use std::sync::Arc;

use pyo3::prelude::*;

use crate::store::Store;

/// rlmkg: answer questions over document collections with a recursive
/// language model walking a knowledge graph, every claim checked against the
/// source text it cites.
#[pymodule(name = "rlmkg")]
mod rlmkg_module {
    #[pymodule_export]
    use super::answer::{Answer, Claim, Verification};
    #[pymodule_export]
    use super::errors::{
        EvalError, ModelError, NotFoundError, RlmkgError, StoreError, StoreLockedError,
        StoreNotFoundError, VerificationError,
    };
    #[pymodule_export]
    use super::models::ModelConfig;
    #[pymodule_export]
    use super::results::{Entity, Neighbor, SearchHit};
    #[pymodule_export]
    use super::store::Store;
    #[pymodule_export]
    use super::verify;

    use pyo3::prelude::*;

    /// Add the package version.
    #[pymodule_init]
    fn init(m: &Bound<'_, PyModule>) -> PyResult<()> {
        m.add("__version__", env!("CARGO_PKG_VERSION"))
    }
}

/// Check the citations of `text` (an answer citing sentences inline,
/// `[c12.s3]`) against `store`: the checker's report (claims with
/// verdicts, reasons and citations; footnotes; totals).
#[pyfunction]
fn verify(py: Python<'_>, text: &str, store: &Store) -> PyResult<answer::Verification> {
    let reader = store.reader()?;
    let report = py.detach(|| {
        rlmkg_citation::check(
            text,
            &rlmkg::StoreSpans::new(Arc::clone(&reader)),
            &rlmkg::CheckOptions::default(),
        )
    });
    let report = report.map_err(errors::verification)?;
    answer::Verification::of(py, &report)
}
