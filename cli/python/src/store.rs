//! `rlmkg.Store`: a store directory, read through the library's reader of
//! its last commit. `ingest` opens the single writer for the call and
//! reopens the reader after it; runs already going keep the reader they
//! started with.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString, PyTuple};
use rlmkg::{IngestOptions, IngestReport, Store as LibStore};
use rlmkg_ingest::TokenCounter;

use crate::answer::Answer;
use crate::convert::to_py;
use crate::errors;
use crate::eval::EvalArgs;
use crate::models::{ModelConfig, RunArgs};
use crate::progress::{self, Callback, PyProgress};
use crate::results::{Entity, Neighbor, SearchHit, all};
use crate::runtime;

/// One path, or several.
#[derive(FromPyObject)]
pub(crate) enum Paths {
    /// A file or folder.
    One(PathBuf),
    /// Files and folders.
    Many(Vec<PathBuf>),
}

impl Paths {
    /// The paths as a list.
    pub(crate) fn into_vec(self) -> Vec<PathBuf> {
        match self {
            Paths::One(p) => vec![p],
            Paths::Many(v) => v,
        }
    }
}

/// A store: documents, their chunks, the full-text index and the entity
/// graph, in one directory.
#[pyclass(frozen, module = "rlmkg")]
pub struct Store {
    dir: PathBuf,
    reader: Mutex<Arc<LibStore>>,
}

impl Store {
    /// A reader of the store at `dir`.
    fn open(py: Python<'_>, dir: PathBuf) -> PyResult<Self> {
        let reader = py
            .detach(|| rlmkg::open_store_read(&dir))
            .map_err(errors::store)?;
        Ok(Self {
            dir,
            reader: Mutex::new(Arc::new(reader)),
        })
    }

    /// The reader of the last commit this object saw.
    pub(crate) fn reader(&self) -> PyResult<Arc<LibStore>> {
        self.reader
            .lock()
            .map(|r| Arc::clone(&r))
            .map_err(|_| errors::other("the store's reader was poisoned by a panic"))
    }

    /// Read the last commit again (after a write).
    pub(crate) fn reopen(&self, py: Python<'_>) -> PyResult<()> {
        let fresh = py
            .detach(|| rlmkg::open_store_read(&self.dir))
            .map_err(errors::store)?;
        let mut r = self
            .reader
            .lock()
            .map_err(|_| errors::other("the store's reader was poisoned by a panic"))?;
        *r = Arc::new(fresh);
        Ok(())
    }

    /// Run a read on the current reader with the GIL released.
    fn reading<T: Send>(
        &self,
        py: Python<'_>,
        f: impl FnOnce(&LibStore) -> Result<T, rlmkg::StoreError> + Send,
    ) -> PyResult<T> {
        let reader = self.reader()?;
        py.detach(|| f(&reader)).map_err(errors::store)
    }

    /// [`Store::reading`], its result converted to dicts and lists.
    fn read_with<T: serde::Serialize + Send>(
        &self,
        py: Python<'_>,
        f: impl FnOnce(&LibStore) -> Result<T, rlmkg::StoreError> + Send,
    ) -> PyResult<Py<PyAny>> {
        let value = self.reading(py, f)?;
        to_py(py, &value)
    }
}

#[pymethods]
impl Store {
    /// Open the store at `path` for reading; `StoreNotFoundError` when there
    /// is none.
    #[new]
    fn new(py: Python<'_>, path: PathBuf) -> PyResult<Self> {
        Self::open(py, path)
    }

    /// Create a store at `path` (or open the one there).
    #[staticmethod]
    fn create(py: Python<'_>, path: PathBuf) -> PyResult<Self> {
        py.detach(|| LibStore::create_or_open(&path).map(drop))
            .map_err(errors::store)?;
        Self::open(py, path)
    }

    /// The store's directory.
    #[getter]
    fn directory(&self) -> String {
        self.dir.to_string_lossy().into_owned()
    }

    /// Ingest files and folders (folders recursively, honouring
    /// `.gitignore`); returns the ingest report (what `rlmkg --json ingest`
    /// prints). Chunking settings not given keep the store's.
    #[pyo3(signature = (
        paths, exclude=None, *, prune=true, chunk_tokens=None, overlap=None, tokenizer=None,
        text_field=None, title_field=None, threads=0, max_file_size=None, progress=None
    ))]
    #[allow(clippy::too_many_arguments)] // Python keyword arguments, one per option
    fn ingest(
        &self,
        py: Python<'_>,
        paths: Paths,
        exclude: Option<Vec<String>>,
        prune: bool,
        chunk_tokens: Option<usize>,
        overlap: Option<usize>,
        tokenizer: Option<String>,
        text_field: Option<String>,
        title_field: Option<String>,
        threads: usize,
        max_file_size: Option<u64>,
        progress: Option<Py<PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        let paths = paths.into_vec();
        let callback = progress.map(Callback::new);
        let reporter = callback.as_ref().map(|c| PyProgress(Arc::clone(c)));
        let dir = self.dir.clone();
        let summary = py.detach(|| -> PyResult<_> {
            // A bad tokenizer fails before the store is touched.
            let explicit = tokenizer
                .as_deref()
                .map(TokenCounter::resolve)
                .transpose()
                .map_err(|e| PyValueError::new_err(e.to_string()))?;
            let mut writer = LibStore::create_or_open(&dir).map_err(errors::store)?;
            let recorded = writer.manifest().settings.clone();
            let tokens = match explicit {
                Some(t) => t,
                None => TokenCounter::for_settings(&recorded)
                    .map_err(|e| errors::other(format!("the store's tokenizer: {e}")))?,
            };
            let d = IngestOptions::default();
            let opts = IngestOptions {
                exclude: exclude.unwrap_or_default(),
                prune,
                target_tokens: chunk_tokens.unwrap_or(recorded.target_tokens),
                overlap_sentences: overlap.unwrap_or(recorded.overlap_sentences),
                text_field: text_field.unwrap_or(d.text_field),
                title_field: title_field.unwrap_or(d.title_field),
                threads,
                tokens,
                max_file_bytes: max_file_size.unwrap_or(d.max_file_bytes),
                embedder: rlmkg::store_embedder(&recorded),
                fact_reader: rlmkg_ingest::CachedFactReader::of(&recorded),
                ..d
            };
            let quiet = rlmkg::NoProgress;
            let reporter: &dyn rlmkg::Progress = match &reporter {
                Some(r) => r,
                None => &quiet,
            };
            writer
                .ingest(&paths, &opts, reporter)
                .map_err(errors::store)
        });
        // The ingest's own error comes first; the reader is reopened either way.
        let reopened = self.reopen(py);
        let summary = summary?;
        reopened?;
        if let Some(c) = &callback {
            c.raised()?;
        }
        to_py(
            py,
            &IngestReport {
                summary,
                peak_rss_mb: rlmkg::usage::peak_rss_mb(),
            },
        )
    }

    /// BM25 search over chunks: the best `k` hits, best first. Any text is
    /// a query; syntax that reaches beyond titles and texts is read as words.
    #[pyo3(signature = (query, k=10))]
    fn search(&self, py: Python<'_>, query: &str, k: usize) -> PyResult<Vec<SearchHit>> {
        let hits = self.reading(py, |s| s.search(query, k))?;
        all(py, &hits, SearchHit::of)
    }

    /// A chunk (`c12`), a sentence (`c12.s3`) or a sentence range
    /// (`c12.s2-s4`): its text, document and sentences with their spans.
    fn read(&self, py: Python<'_>, id: &str) -> PyResult<Py<PyAny>> {
        self.read_with(py, |s| s.read(id))
    }

    /// An entity by id, name or alias, with its `k` strongest neighbors
    /// (across one relation label only, when given), or `None`.
    #[pyo3(signature = (name, k=20, relation=None))]
    fn entity(
        &self,
        py: Python<'_>,
        name: &str,
        k: usize,
        relation: Option<&str>,
    ) -> PyResult<Option<Entity>> {
        let found = self.reading(py, |s| {
            let Some(e) = s.entity(name)? else {
                return Ok(None);
            };
            let neighbors = s.neighbors(&e.id, k, relation)?;
            Ok(Some((e, neighbors)))
        })?;
        found
            .map(|(e, neighbors)| Entity::of(py, &e, &neighbors))
            .transpose()
    }

    /// Entities whose names match `query`, best first.
    #[pyo3(signature = (query, k=10))]
    fn entities(&self, py: Python<'_>, query: &str, k: usize) -> PyResult<Py<PyAny>> {
        self.read_with(py, |s| s.entities(query, k))
    }

    /// The neighbors of an entity, strongest first, optionally across one
    /// relation label only.
    #[pyo3(signature = (entity, k=20, relation=None))]
    fn neighbors(
        &self,
        py: Python<'_>,
        entity: &str,
        k: usize,
        relation: Option<&str>,
    ) -> PyResult<Vec<Neighbor>> {
        let neighbors = self.reading(py, |s| s.neighbors(entity, k, relation))?;
        all(py, &neighbors, Neighbor::of)
    }

    /// What the documents state of an entity: facts (subject, predicate,
    /// object, the sentence id to cite), grouped by predicate.
    #[pyo3(signature = (entity, k=20))]
    fn facts(&self, py: Python<'_>, entity: &str, k: usize) -> PyResult<Py<PyAny>> {
        self.read_with(py, |s| s.facts(entity, k))
    }

    /// Shortest connecting paths from the entity `from_` to the entity `to`
    /// (ids, names or aliases; `from_` as Python spells a keyword's name), at
    /// most `max_hops` relation steps long.
    #[pyo3(signature = (from_, to, max_hops=3))]
    fn path(&self, py: Python<'_>, from_: &str, to: &str, max_hops: usize) -> PyResult<Py<PyAny>> {
        self.read_with(py, |s| s.path(from_, to, max_hops))
    }

    /// Chunks ranked by personalized PageRank from the entities and BM25
    /// hits of `query`, and from `entities` (ids or names) when given.
    #[pyo3(signature = (query=None, k=10, *, entities=None))]
    fn related(
        &self,
        py: Python<'_>,
        query: Option<&str>,
        k: usize,
        entities: Option<Vec<String>>,
    ) -> PyResult<Py<PyAny>> {
        let seeds = entities.unwrap_or_default();
        self.read_with(py, |s| s.related(&seeds, query, k))
    }

    /// A read-only SPARQL query over the graph (the vocabulary's prefix is
    /// `rk: <https://rlmkg.invalid/ns#>`): a dict with `kind` (`select`:
    /// `vars`, `rows`; `ask`: `value`; `graph`: `triples`).
    #[pyo3(signature = (query, timeout=30.0))]
    fn sparql(&self, py: Python<'_>, query: &str, timeout: f64) -> PyResult<Py<PyAny>> {
        let timeout = Duration::try_from_secs_f64(timeout)
            .map_err(|_| PyValueError::new_err("timeout must be a positive number"))?;
        self.read_with(py, |s| s.sparql(query, timeout))
    }

    /// Counts of the store (files, documents, chunks, entities, relations, …).
    fn stats(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        self.read_with(py, LibStore::stats)
    }

    /// Answer `question` with citations, every claim verified against the
    /// sources. Without a model the heuristic strategy answers; with
    /// `model=ModelConfig(...)` (or `model_path` and `embedded_root`) the
    /// recursive language model does.
    #[pyo3(signature = (
        question, *, strategy="auto", model=None, sub_model=None, model_path=None,
        embedded_root=false, strict=false, max_iterations=None, max_seconds=None,
        max_sub_calls=None, max_total_tokens=None, max_depth=None, max_cost=None,
        temperature=None, max_tokens=None, seed=None, timeout=None, profile=None,
        protocol=None, cache_dir=None, trajectory_path=None, on_event=None
    ))]
    #[allow(clippy::too_many_arguments)] // Python keyword arguments, one per option
    fn ask(
        &self,
        py: Python<'_>,
        question: &str,
        strategy: &str,
        model: Option<ModelConfig>,
        sub_model: Option<ModelConfig>,
        model_path: Option<PathBuf>,
        embedded_root: bool,
        strict: bool,
        max_iterations: Option<u32>,
        max_seconds: Option<f64>,
        max_sub_calls: Option<u64>,
        max_total_tokens: Option<u64>,
        max_depth: Option<u32>,
        max_cost: Option<f64>,
        temperature: Option<f32>,
        max_tokens: Option<u32>,
        seed: Option<u64>,
        timeout: Option<f64>,
        profile: Option<String>,
        protocol: Option<String>,
        cache_dir: Option<PathBuf>,
        trajectory_path: Option<PathBuf>,
        on_event: Option<Py<PyAny>>,
    ) -> PyResult<Answer> {
        if question.trim().is_empty() {
            return Err(PyValueError::new_err("the question is empty"));
        }
        let setup = RunArgs {
            strategy: strategy.to_owned(),
            model,
            sub_model,
            model_path,
            embedded_root,
            strict,
            max_iterations,
            max_seconds,
            max_sub_calls,
            max_total_tokens,
            max_depth,
            max_cost,
            temperature,
            max_tokens,
            seed,
            timeout,
            profile,
            protocol,
            cache_dir,
            trajectory_path,
        }
        .setup()?;
        let callback = on_event.map(Callback::new);
        let mut opts = setup.opts;
        if let Some(c) = &callback {
            opts.events = progress::events(c);
        }
        let reader = self.reader()?;
        let mut notes: Vec<String> = Vec::new();
        let answer = py.detach(|| -> PyResult<_> {
            let backends = setup.backends.build().map_err(errors::backend)?;
            let mut note = |m: &str| notes.push(m.to_owned());
            runtime::get()?
                .block_on(rlmkg::ask(
                    reader,
                    question,
                    &backends.models,
                    &opts,
                    &mut note,
                ))
                .map_err(errors::ask)
        })?;
        if let Some(c) = &callback {
            c.raised()?;
        }
        Answer::of(py, &answer, notes)
    }

    /// `ask` for asyncio callers: the same arguments, run on the event loop's
    /// default executor (a thread; the GIL is released while it runs), so
    /// several questions are answered at once.
    #[pyo3(signature = (*args, **kwargs))]
    fn ask_async<'py>(
        slf: &Bound<'py, Self>,
        args: &Bound<'py, PyTuple>,
        kwargs: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let py = slf.py();
        let mut call = vec![slf.getattr("ask")?];
        call.extend(args.iter());
        let bound = py
            .import("functools")?
            .getattr("partial")?
            .call(PyTuple::new(py, call)?, kwargs)?;
        let event_loop = py.import("asyncio")?.call_method0("get_running_loop")?;
        event_loop.call_method1("run_in_executor", (py.None(), bound))
    }

    /// Score the questions of a dataset (HotpotQA, MuSiQue or plain JSONL
    /// with `gold_titles`) against this store: BM25 and graph recall, and,
    /// unless `retrieval_only`, answers by `ask` (same model arguments).
    /// Returns the summary (what `rlmkg --json eval` reports as `summary`).
    #[pyo3(signature = (
        dataset, *, format=None, corpus=None, passages_file=None, limit=None,
        retrieval_only=false, strategy="auto", model=None, sub_model=None, model_path=None,
        embedded_root=false, max_iterations=None, max_seconds=None, max_sub_calls=None,
        max_total_tokens=None, temperature=None, max_tokens=None, seed=None, timeout=None,
        cache_dir=None, trajectories_dir=None, progress=None
    ))]
    #[allow(clippy::too_many_arguments)] // Python keyword arguments, one per option
    fn eval(
        &self,
        py: Python<'_>,
        dataset: PathBuf,
        format: Option<String>,
        corpus: Option<Paths>,
        passages_file: Option<PathBuf>,
        limit: Option<usize>,
        retrieval_only: bool,
        strategy: &str,
        model: Option<ModelConfig>,
        sub_model: Option<ModelConfig>,
        model_path: Option<PathBuf>,
        embedded_root: bool,
        max_iterations: Option<u32>,
        max_seconds: Option<f64>,
        max_sub_calls: Option<u64>,
        max_total_tokens: Option<u64>,
        temperature: Option<f32>,
        max_tokens: Option<u32>,
        seed: Option<u64>,
        timeout: Option<f64>,
        cache_dir: Option<PathBuf>,
        trajectories_dir: Option<PathBuf>,
        progress: Option<Py<PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        let run = RunArgs {
            strategy: strategy.to_owned(),
            model,
            sub_model,
            model_path,
            embedded_root,
            max_iterations,
            max_seconds,
            max_sub_calls,
            max_total_tokens,
            temperature,
            max_tokens,
            seed,
            timeout,
            cache_dir,
            ..RunArgs::default()
        }
        .setup()?;
        let args = EvalArgs {
            dataset,
            format,
            corpus: corpus.map(Paths::into_vec).unwrap_or_default(),
            passages_file,
            limit,
            run: (!retrieval_only).then_some(run),
            trajectories_dir,
            progress: progress.map(Callback::new),
        };
        let summary = crate::eval::run(py, self.reader()?, &self.dir, args);
        // The corpus may have changed the store: the reader is reopened either way.
        let reopened = self.reopen(py);
        let summary = summary?;
        reopened?;
        Ok(summary)
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let dir = PyString::new(py, &self.dir.to_string_lossy()).repr()?;
        Ok(format!("Store({dir})"))
    }
}
