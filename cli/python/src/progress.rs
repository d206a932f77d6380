//! Python callbacks behind the library's reporting seams: ingest's
//! [`Progress`] trait and ask's [`Events`]. The library calls them on its own
//! threads with the GIL released; each call takes the GIL, hands the callback
//! one dict (`{"event": …, …}`), and lets it go. A callback that raises is not
//! called again, and its exception is raised once the library call returns.

use std::path::Path;
use std::sync::{Arc, Mutex};

use pyo3::prelude::*;
use pyo3::types::PyDict;
use rlmkg::{AskEvent, Events, Progress};

use crate::convert;

/// A Python callable and the first exception it raised.
pub(crate) struct Callback {
    f: Py<PyAny>,
    failed: Mutex<Option<PyErr>>,
}

impl Callback {
    /// Calls of `f`.
    pub(crate) fn new(f: Py<PyAny>) -> Arc<Self> {
        Arc::new(Self {
            f,
            failed: Mutex::new(None),
        })
    }

    /// Call the callback with `{"event": event, …fields}`, unless it failed before.
    pub(crate) fn send(
        &self,
        event: &str,
        fields: impl FnOnce(&Bound<'_, PyDict>) -> PyResult<()>,
    ) {
        // The lock is never held while Python runs.
        if self.failed.lock().map_or(true, |f| f.is_some()) {
            return;
        }
        let result = Python::attach(|py| {
            let d = PyDict::new(py);
            d.set_item("event", event)?;
            fields(&d)?;
            self.f.call1(py, (d,)).map(drop)
        });
        if let (Err(e), Ok(mut failed)) = (result, self.failed.lock()) {
            failed.get_or_insert(e);
        }
    }

    /// The exception the callback raised, if it did (taken: raised once).
    pub(crate) fn raised(&self) -> PyResult<()> {
        match self.failed.lock().ok().and_then(|mut f| f.take()) {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }
}

/// Ingest progress for a Python callback: `start` (`total_files`),
/// `file_done` (`path`, `bytes`), `warning` (`message`), `finish`.
pub(crate) struct PyProgress(pub(crate) Arc<Callback>);

impl Progress for PyProgress {
    fn start(&self, total_files: u64) {
        self.0
            .send("start", |d| d.set_item("total_files", total_files));
    }

    fn file_done(&self, path: &Path, bytes: u64) {
        self.0.send("file_done", |d| {
            d.set_item("path", path.to_string_lossy())?;
            d.set_item("bytes", bytes)
        });
    }

    fn warn(&self, msg: &str) {
        self.0.send("warning", |d| d.set_item("message", msg));
    }

    fn finish(&self) {
        self.0.send("finish", |_| Ok(()));
    }
}

/// An `ask`'s events for a Python callback: `run` (`line`: a trajectory line
/// as a dict), `note` (`message`), `draft` (`text`, the answer before
/// verification).
pub(crate) fn events(callback: &Arc<Callback>) -> Events {
    let cb = Arc::clone(callback);
    Events::to(move |e| match e {
        AskEvent::Run(line) => cb.send("run", |d| {
            let py = d.py();
            d.set_item("line", convert::to_py(py, line)?)
        }),
        AskEvent::Note(m) => cb.send("note", |d| d.set_item("message", *m)),
        AskEvent::Draft(t) => cb.send("draft", |d| d.set_item("text", *t)),
        _ => {}
    })
}
