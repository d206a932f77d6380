//! Library values to Python: through serde (`pythonize`), so a result's field
//! names are the Rust type's, as in `--json` output and the HTTP API.
//! Structs become dicts, lists lists, unit enum variants their names.

use pyo3::prelude::*;
use pyo3::types::PyString;
use serde::Serialize;

/// `value` as a Python object (dicts, lists, strings, numbers, `None`).
pub(crate) fn to_py<T: Serialize + ?Sized>(py: Python<'_>, value: &T) -> PyResult<Py<PyAny>> {
    Ok(pythonize::pythonize(py, value)?.unbind())
}

/// A string as Python writes it (`'Tromsø'`), for `__repr__`.
pub(crate) fn repr(py: Python<'_>, s: &str) -> PyResult<String> {
    Ok(PyString::new(py, s).repr()?.to_string())
}
