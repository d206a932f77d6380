//! The graph handle over a [`Store`]: what `context` is in the REPL (SPEC §5.2).
//!
//! Every function takes plain JSON-like arguments and returns plain values, so
//! ordinary Python works on the results. Bad arguments come back as
//! [`HandleError::BadArgument`] (a Python `ValueError`), unknown ids as
//! [`HandleError::NotFound`] (a `KeyError`).

use std::collections::HashSet;
use std::sync::Arc;
use std::time::Duration;

use rlm_core::{ContextHandle, CorpusMetadata, HandleError, HandleFunction};
use rlmkg_ingest::{Store, StoreError};
use serde::Serialize;
use serde_json::{Map, Value, json};

use crate::heuristic;

/// Time limit of one `context.sparql` query.
const SPARQL_TIMEOUT: Duration = Duration::from_secs(10);

/// Largest `k` any handle function honours: a larger one from Python
/// (`context.search(q, 10**9)`) is clamped to this before it reaches the store,
/// where `k` sizes allocations.
pub const MAX_K: usize = 1000;

/// The functions of the handle: name, signature, one-line doc.
const FUNCTIONS: &[(&str, &str, &str)] = &[
    (
        "search",
        "search(query, k=10)",
        "BM25 search over chunks -> list of {id, doc, title, score, text}",
    ),
    (
        "read",
        "read(id)",
        "text of a chunk 'c12', sentence 'c12.s3' or range 'c12.s2-s4', each sentence prefixed by its [id]",
    ),
    (
        "entities",
        "entities(query, k=10)",
        "entities matching a name -> list of {id, name, type, aliases, mentions}",
    ),
    (
        "neighbors",
        "neighbors(entity, k=20, relation=None)",
        "adjacent entities -> list of {id, name, type, relation, weight, evidence: [chunk ids]}",
    ),
    (
        "path",
        "path(a, b, max_hops=3)",
        "connecting paths between two entities, each step with its relation and evidence chunk ids",
    ),
    (
        "related",
        "related(query_or_entities, k=10)",
        "chunks ranked by personalized PageRank seeded from the entities of a question or a list of entity ids",
    ),
    (
        "sparql",
        "sparql(query)",
        "read-only SPARQL over the graph -> list of rows (dicts)",
    ),
    (
        "docs",
        "docs()",
        "documents -> list of {id, path, title, chunks, bytes, format}",
    ),
    ("stats", "stats()", "corpus statistics"),
    ("size", "size()", "characters of text in the corpus"),
    (
        "doc_text",
        "doc_text(doc, start=0, end=None)",
        "raw normalized text of a document between byte offsets",
    ),
    (
        "explore",
        "explore(question)",
        "the built-in heuristic search: question entities, evidence sentences with ids, an extractive draft answer",
    ),
];

/// `context` over a store, optionally restricted to a scope of chunk ids.
pub struct StoreHandle {
    store: Arc<Store>,
    /// Chunk ids the handle may show; `None` means the whole corpus.
    scope: Option<Arc<HashSet<String>>>,
}

impl StoreHandle {
    /// A handle on the whole store.
    pub fn new(store: Arc<Store>) -> Self {
        Self { store, scope: None }
    }

    fn in_scope(&self, chunk: &str) -> bool {
        self.scope.as_ref().is_none_or(|s| s.contains(chunk))
    }

    fn dispatch(&self, name: &str, a: &Args<'_>) -> Result<Value, HandleError> {
        let s = &self.store;
        match name {
            "search" => {
                let query = a.str(0, "query")?;
                let k = a.k(1, 10)?;
                let hits = s.search(query, self.fetch_k(k)).map_err(store_err)?;
                let hits: Vec<_> = hits
                    .into_iter()
                    .filter(|h| self.in_scope(&h.id))
                    .take(k)
                    .collect();
                to_value(&hits)
            }
            "read" => {
                let id = a.str(0, "id")?;
                let chunk = id.split('.').next().unwrap_or(id);
                if !self.in_scope(chunk) {
                    return Err(HandleError::NotFound(format!("{id} is outside this scope")));
                }
                let passage = s.read(id).map_err(store_err)?;
                Ok(Value::String(heuristic::mark_sentences(&passage)))
            }
            "entities" => {
                let query = a.str(0, "query")?;
                let k = a.k(1, 10)?;
                to_value(&s.entities(query, k).map_err(store_err)?)
            }
            "neighbors" => {
                let entity = a.str(0, "entity")?;
                let k = a.k(1, 20)?;
                let relation = a.opt_str(2, "relation")?;
                to_value(&s.neighbors(entity, k, relation).map_err(store_err)?)
            }
            "path" => {
                let from = a.str(0, "a")?;
                let to = a.str(1, "b")?;
                let hops = a.usize_or(2, "max_hops", 3)?;
                if hops == 0 || hops > 6 {
                    return Err(HandleError::BadArgument(
                        "max_hops must be between 1 and 6".into(),
                    ));
                }
                to_value(&s.path(from, to, hops).map_err(store_err)?)
            }
            "related" => {
                let k = a.k(1, 10)?;
                let got = match a.get(0, "query_or_entities") {
                    Some(Value::String(q)) => s.related(&[], Some(q), self.fetch_k(k)),
                    Some(Value::Array(items)) => {
                        let seeds = items
                            .iter()
                            .map(|v| v.as_str().map(str::to_owned))
                            .collect::<Option<Vec<_>>>()
                            .ok_or_else(|| {
                                HandleError::BadArgument(
                                    "related() takes a question string or a list of entity ids"
                                        .into(),
                                )
                            })?;
                        s.related(&seeds, None, self.fetch_k(k))
                    }
                    _ => {
                        return Err(HandleError::BadArgument(
                            "related() takes a question string or a list of entity ids".into(),
                        ));
                    }
                }
                .map_err(store_err)?;
                let got: Vec<_> = got
                    .into_iter()
                    .filter(|c| self.in_scope(&c.id))
                    .take(k)
                    .collect();
                to_value(&got)
            }
            "sparql" => {
                let query = a.str(0, "query")?;
                to_value(&s.sparql(query, SPARQL_TIMEOUT).map_err(store_err)?)
            }
            "docs" => to_value(&s.docs().map_err(store_err)?),
            "stats" => to_value(&s.stats().map_err(store_err)?),
            "size" => Ok(json!(s.stats().map_err(store_err)?.chars)),
            "doc_text" => {
                let doc = a.str(0, "doc")?;
                let start = a.usize_or(1, "start", 0)?;
                let end = a.usize_or(2, "end", usize::MAX)?;
                if end < start {
                    return Err(HandleError::BadArgument(
                        "doc_text: end is before start".into(),
                    ));
                }
                Ok(Value::String(
                    s.doc_text(doc, start, end).map_err(store_err)?,
                ))
            }
            "explore" => {
                let question = a.str(0, "question")?;
                let found = heuristic::explore(s, question, &heuristic::ExploreOptions::default())
                    .map_err(|e| HandleError::Failed(format!("{e:#}")))?;
                let found = found.restricted(|chunk| self.in_scope(chunk));
                to_value(&found.to_python())
            }
            other => Err(HandleError::UnknownFunction(other.to_owned())),
        }
    }

    /// Ask the store for more than `k` when a scope will filter results (at most
    /// ten times [`MAX_K`]).
    fn fetch_k(&self, k: usize) -> usize {
        if self.scope.is_some() {
            k.saturating_mul(10).clamp(100, MAX_K * 10)
        } else {
            k.min(MAX_K)
        }
    }
}

impl ContextHandle for StoreHandle {
    fn functions(&self) -> Vec<HandleFunction> {
        FUNCTIONS
            .iter()
            .map(|(name, signature, doc)| HandleFunction {
                name: (*name).to_owned(),
                signature: (*signature).to_owned(),
                doc: (*doc).to_owned(),
            })
            .collect()
    }

    fn call(
        &self,
        name: &str,
        args: &[Value],
        kwargs: &Map<String, Value>,
    ) -> Result<Value, HandleError> {
        self.dispatch(name, &Args { args, kwargs })
    }

    fn metadata(&self) -> CorpusMetadata {
        let Ok(stats) = self.store.stats() else {
            return CorpusMetadata::default();
        };
        let sample_titles = self
            .store
            .docs()
            .map(|d| d.into_iter().take(12).map(|d| d.title).collect())
            .unwrap_or_default();
        let mut entity_types: Vec<(String, usize)> = stats
            .entity_types
            .iter()
            .map(|(k, v)| (k.clone(), usize::try_from(*v).unwrap_or(usize::MAX)))
            .collect();
        entity_types.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        let n = |v: u64| usize::try_from(v).unwrap_or(usize::MAX);
        CorpusMetadata {
            documents: n(stats.docs),
            chunks: n(stats.chunks),
            entities: n(stats.entities),
            relations: n(stats.relations),
            characters: stats.chars,
            entity_types,
            sample_titles,
        }
    }

    fn corpus_text(&self, max_chars: usize) -> Option<String> {
        let stats = self.store.stats().ok()?;
        if usize::try_from(stats.chars).ok()? > max_chars {
            return None;
        }
        let mut out = String::new();
        for doc in self.store.docs().ok()? {
            let text = self.store.doc_text(&doc.id, 0, usize::MAX).ok()?;
            out.push_str(&format!(
                "=== {} ({}) ===\n{}\n\n",
                doc.title, doc.path, text
            ));
        }
        Some(out)
    }

    fn scoped(&self, ids: &[String]) -> Result<Arc<dyn ContextHandle>, HandleError> {
        let mut chunks = HashSet::new();
        for id in ids {
            let head = id.split('.').next().unwrap_or(id);
            if head.starts_with('c') && head[1..].chars().all(|c| c.is_ascii_digit()) {
                chunks.insert(head.to_owned());
                continue;
            }
            // An entity: the chunks that mention it are in scope.
            if self.store.entity(id).map_err(store_err)?.is_none() {
                return Err(HandleError::NotFound(format!("no chunk or entity {id:?}")));
            }
            chunks.extend(self.store.chunks_of_entity(id).map_err(store_err)?);
        }
        if let Some(parent) = &self.scope {
            chunks.retain(|c| parent.contains(c));
        }
        Ok(Arc::new(StoreHandle {
            store: Arc::clone(&self.store),
            scope: Some(Arc::new(chunks)),
        }))
    }
}

/// Positional-or-keyword argument access with readable errors.
struct Args<'a> {
    args: &'a [Value],
    kwargs: &'a Map<String, Value>,
}

impl<'a> Args<'a> {
    fn get(&self, idx: usize, name: &str) -> Option<&'a Value> {
        self.kwargs
            .get(name)
            .or_else(|| self.args.get(idx))
            .filter(|v| !v.is_null())
    }

    fn str(&self, idx: usize, name: &str) -> Result<&'a str, HandleError> {
        match self.get(idx, name) {
            Some(Value::String(s)) => Ok(s),
            Some(other) => Err(HandleError::BadArgument(format!(
                "{name} must be a string, got {}",
                type_name(other)
            ))),
            None => Err(HandleError::BadArgument(format!(
                "missing argument {name:?}"
            ))),
        }
    }

    fn opt_str(&self, idx: usize, name: &str) -> Result<Option<&'a str>, HandleError> {
        match self.get(idx, name) {
            None => Ok(None),
            Some(_) => self.str(idx, name).map(Some),
        }
    }

    /// The `k` argument (position `idx` or keyword `k`), clamped to [`MAX_K`].
    fn k(&self, idx: usize, default: usize) -> Result<usize, HandleError> {
        Ok(self.usize_or(idx, "k", default)?.min(MAX_K))
    }

    fn usize_or(&self, idx: usize, name: &str, default: usize) -> Result<usize, HandleError> {
        match self.get(idx, name) {
            None => Ok(default),
            Some(v) => v
                .as_u64()
                .and_then(|n| usize::try_from(n).ok())
                .ok_or_else(|| {
                    HandleError::BadArgument(format!(
                        "{name} must be a non-negative integer, got {v}"
                    ))
                }),
        }
    }
}

fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "None",
        Value::Bool(_) => "bool",
        Value::Number(n) if n.is_f64() => "float",
        Value::Number(_) => "int",
        Value::String(_) => "str",
        Value::Array(_) => "list",
        Value::Object(_) => "dict",
    }
}

fn to_value<T: Serialize>(v: &T) -> Result<Value, HandleError> {
    serde_json::to_value(v).map_err(|e| HandleError::Failed(e.to_string()))
}

fn store_err(e: StoreError) -> HandleError {
    match e {
        StoreError::UnknownId(m) => HandleError::NotFound(m),
        StoreError::Invalid(m) => HandleError::BadArgument(m),
        other => HandleError::Failed(other.to_string()),
    }
}
