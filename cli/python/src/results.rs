//! The store's reads as Python sees them: [`SearchHit`], [`Entity`] with its
//! [`Neighbor`]s, each with its values as attributes and `to_dict()` for the
//! serde form (the fields of `rlmkg --json`).

use pyo3::prelude::*;
use pyo3::types::PyList;
use rlmkg_ingest::{EntityInfo, Neighbor as LibNeighbor, SearchHit as LibHit};

use crate::convert::to_py;

/// `to_dict()` (the dict the object was made from: the fields of `--json`)
/// and `__repr__` (`Name(field=…, …)` of the fields named) of a result class
/// that keeps its dict in `data`.
macro_rules! result_methods {
    ($class:ident, [$($field:literal),*]) => {
        #[pymethods]
        impl $class {
            /// The result as a dict (the fields of `--json`).
            fn to_dict(&self, py: Python<'_>) -> Py<PyAny> {
                self.data.clone_ref(py)
            }

            fn __repr__(slf: &Bound<'_, Self>) -> PyResult<String> {
                shown(slf.as_any(), stringify!($class), &[$($field),*])
            }
        }
    };
}

/// `Name(field=…, …)`: the named attributes of `obj` as Python writes them.
fn shown(obj: &Bound<'_, PyAny>, name: &str, fields: &[&str]) -> PyResult<String> {
    let parts = fields
        .iter()
        .map(|f| Ok(format!("{f}={}", obj.getattr(*f)?.repr()?)))
        .collect::<PyResult<Vec<_>>>()?;
    Ok(format!("{name}({})", parts.join(", ")))
}

result_methods!(SearchHit, ["id", "title", "score"]);
result_methods!(Neighbor, ["name", "relation"]);
result_methods!(Entity, ["id", "name", "type"]);

/// One BM25 hit: a chunk and its document.
#[pyclass(frozen, module = "rlmkg")]
pub struct SearchHit {
    /// The chunk's id (`c12`).
    #[pyo3(get)]
    id: String,
    /// The document's id (`d3`).
    #[pyo3(get)]
    doc: String,
    /// The document's title.
    #[pyo3(get)]
    title: String,
    /// The source file's path.
    #[pyo3(get)]
    path: String,
    /// The BM25 score.
    #[pyo3(get)]
    score: f32,
    /// The chunk's text.
    #[pyo3(get)]
    text: String,
    /// The hit as a dict (`to_dict`).
    data: Py<PyAny>,
}

/// The Python views of `items`, each made by `of`.
pub(crate) fn all<T, U>(
    py: Python<'_>,
    items: &[T],
    of: impl Fn(Python<'_>, &T) -> PyResult<U>,
) -> PyResult<Vec<U>> {
    items.iter().map(|x| of(py, x)).collect()
}

impl SearchHit {
    /// The Python view of a library hit.
    pub(crate) fn of(py: Python<'_>, h: &LibHit) -> PyResult<Self> {
        Ok(Self {
            id: h.id.to_string(),
            doc: h.doc.to_string(),
            title: h.title.clone(),
            path: h.path.clone(),
            score: h.score,
            text: h.text.clone(),
            data: to_py(py, h)?,
        })
    }
}

/// A neighbor of an entity across one relation.
#[pyclass(frozen, module = "rlmkg")]
pub struct Neighbor {
    /// The neighbor's entity id.
    #[pyo3(get)]
    id: String,
    /// The neighbor's display name.
    #[pyo3(get)]
    name: String,
    /// The neighbor's type guess.
    #[pyo3(get, name = "type")]
    kind: String,
    /// The relation's label (`co-occurs` or a verb phrase); `<-` before it
    /// when the neighbor is the subject.
    #[pyo3(get)]
    relation: String,
    /// The relation's weight.
    #[pyo3(get)]
    weight: f64,
    /// The chunk ids of the evidence.
    #[pyo3(get)]
    evidence: Vec<String>,
    /// The neighbor as a dict (`to_dict`).
    data: Py<PyAny>,
}

impl Neighbor {
    /// The Python view of a library neighbor.
    pub(crate) fn of(py: Python<'_>, n: &LibNeighbor) -> PyResult<Self> {
        Ok(Self {
            id: n.id.clone(),
            name: n.name.clone(),
            kind: n.kind.clone(),
            relation: n.relation.clone(),
            weight: n.weight,
            evidence: n.evidence.iter().map(ToString::to_string).collect(),
            data: to_py(py, n)?,
        })
    }
}

/// An entity of the graph with its neighbors, strongest first.
#[pyclass(frozen, module = "rlmkg")]
pub struct Entity {
    /// The entity's id (its canonical key).
    #[pyo3(get)]
    id: String,
    /// Its display name (the most frequent declared name).
    #[pyo3(get)]
    name: String,
    /// Its other names.
    #[pyo3(get)]
    aliases: Vec<String>,
    /// Its type guess (`person`, `place`, `organization`, …).
    #[pyo3(get, name = "type")]
    kind: String,
    /// How often it is mentioned.
    #[pyo3(get)]
    mentions: u64,
    /// Its neighbors, strongest first.
    #[pyo3(get)]
    neighbors: Py<PyList>,
    /// The entity as a dict (`to_dict`).
    data: Py<PyAny>,
}

/// The serde form of an entity with its neighbors: the fields of `rlmkg
/// --json entity`.
#[derive(serde::Serialize)]
struct EntityDict<'a> {
    #[serde(flatten)]
    entity: &'a EntityInfo,
    neighbors: &'a [LibNeighbor],
}

impl Entity {
    /// The Python view of an entity and its neighbors.
    pub(crate) fn of(py: Python<'_>, e: &EntityInfo, neighbors: &[LibNeighbor]) -> PyResult<Self> {
        let list = all(py, neighbors, |py, n| Py::new(py, Neighbor::of(py, n)?))?;
        Ok(Self {
            id: e.id.clone(),
            name: e.name.clone(),
            kind: e.kind.clone(),
            aliases: e.aliases.clone(),
            mentions: e.mentions,
            neighbors: PyList::new(py, list)?.unbind(),
            data: to_py(
                py,
                &EntityDict {
                    entity: e,
                    neighbors,
                },
            )?,
        })
    }
}
