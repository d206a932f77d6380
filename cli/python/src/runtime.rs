//! The async runtime the library's `ask` runs on: one per process, made on
//! first use. Each call drives its own run from the calling thread (with the
//! GIL released), so calls from several Python threads run at once.

use std::sync::OnceLock;

use pyo3::PyResult;
use tokio::runtime::Runtime;

use crate::errors;

static RUNTIME: OnceLock<Result<Runtime, String>> = OnceLock::new();

/// The process's runtime.
pub(crate) fn get() -> PyResult<&'static Runtime> {
    RUNTIME
        .get_or_init(|| {
            tokio::runtime::Builder::new_multi_thread()
                .enable_all()
                .thread_name("rlmkg-runtime")
                .build()
                .map_err(|e| format!("starting the async runtime: {e}"))
        })
        .as_ref()
        .map_err(|e| errors::other(e.clone()))
}
