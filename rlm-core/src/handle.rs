//! The graph handle: what `context` is inside the REPL (SPEC §5.2).
//!
//! `rlm-core` knows nothing of the store. The host implements [`ContextHandle`];
//! the REPL exposes each of its [`HandleFunction`]s as a method of the Python
//! `context` object. Arguments and results are plain JSON-like values, so they map
//! onto Python dicts, lists, strings, numbers, booleans and `None`.

use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// One function the handle offers, as shown to the root model.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HandleFunction {
    /// Method name on `context` (e.g. `search`).
    pub name: String,
    /// Python-style signature (e.g. `search(query, k=10)`).
    pub signature: String,
    /// One-line description.
    pub doc: String,
    /// A JSON schema of its keyword arguments (`{"type": "object", …}`), from
    /// which the tool-call protocol offers it as a tool; `null` takes any.
    #[serde(default)]
    pub parameters: Value,
}

/// One piece of the corpus that `context.map` sends to a sub-model.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Segment {
    /// The chunk ids its text comes from (what a record of it cites).
    pub ids: Vec<String>,
    /// What it is, for the record (a document title).
    pub label: String,
    /// Its text.
    pub text: String,
}

/// What a handle call gives back: the value Python sees, and the chunk or
/// sentence ids the call showed (what the answer may cite from it).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct HandleReply {
    /// The result, as a JSON-like value.
    pub value: Value,
    /// Chunk or sentence ids the result showed, in order.
    pub shown: Vec<String>,
}

impl HandleReply {
    /// A reply that showed `shown`.
    pub fn showing(value: Value, shown: Vec<String>) -> Self {
        Self { value, shown }
    }
}

impl From<Value> for HandleReply {
    fn from(value: Value) -> Self {
        Self {
            value,
            shown: Vec::new(),
        }
    }
}

/// Corpus facts for the root model's metadata message (SPEC §5.3.1).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct CorpusMetadata {
    /// Documents in the corpus.
    pub documents: usize,
    /// Chunks in the corpus.
    pub chunks: usize,
    /// Entities in the graph.
    pub entities: usize,
    /// Relations in the graph.
    pub relations: usize,
    /// Characters of normalized text in the corpus.
    pub characters: u64,
    /// Entity counts per type guess, largest first.
    pub entity_types: Vec<(String, usize)>,
    /// A few document titles.
    pub sample_titles: Vec<String>,
}

/// An error a handle call returns; the REPL raises it as a Python exception.
#[derive(Debug, Clone, thiserror::Error, PartialEq, Eq)]
#[non_exhaustive]
pub enum HandleError {
    /// Wrong argument count, type or value (raised as `ValueError`/`TypeError`).
    #[error("{0}")]
    BadArgument(String),
    /// An id or name that does not exist (raised as `KeyError`).
    #[error("{0}")]
    NotFound(String),
    /// No such method on the handle (raised as `AttributeError`).
    #[error("context has no function {0:?}")]
    UnknownFunction(String),
    /// Anything else (raised as `RuntimeError`).
    #[error("{0}")]
    Failed(String),
}

/// What a small root is shown and begun with after a turn's output
/// ([`ContextHandle::next_step`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NextStep {
    /// The hint shown after the output; `None` says nothing.
    pub hint: Option<String>,
    /// The search the hint suggests (its query). A small root that repeats
    /// itself instead has its next turn begun with it, once per query.
    pub search: Option<String>,
    /// Whether the output shows a sentence that, by the handle's reading,
    /// answers the question (it says the relation the question asks of its
    /// answer with a value of the asked kind, or holds such a value and
    /// names what a read sentence links to the question). The next turn is
    /// then begun as its answer (`FINAL("`), once a run; the review still
    /// judges what it writes.
    pub answer_here: bool,
}

/// The corpus as the REPL sees it.
pub trait ContextHandle: Send + Sync {
    /// The functions offered as `context.<name>(...)`.
    fn functions(&self) -> Vec<HandleFunction>;

    /// Call function `name` with positional and keyword arguments.
    fn call(
        &self,
        name: &str,
        args: &[Value],
        kwargs: &Map<String, Value>,
    ) -> Result<HandleReply, HandleError>;

    /// A short worked run with these functions (question, code turns, cited
    /// `FINAL`), shown in the system prompt; `None` shows none.
    fn example(&self) -> Option<String> {
        None
    }

    /// Facts for the metadata message.
    fn metadata(&self) -> CorpusMetadata;

    /// The whole corpus as one string, for the `paper` profile where `context` is text.
    /// `None` when the corpus is too large to materialize.
    fn corpus_text(&self, max_chars: usize) -> Option<String>;

    /// A handle restricted to the given chunk or entity ids (for `rlm_query(q, scope=…)`).
    fn scoped(&self, ids: &[String]) -> Result<Arc<dyn ContextHandle>, HandleError>;

    /// The segments `context.map(instruction, over=…)` sends to sub-models:
    /// `over` is `"docs"` (one per document), `"chunks"`, a search query (its
    /// hits), or a list of chunk or document ids; each at most about
    /// `max_chars` characters (longer documents split at chunk bounds). A
    /// handle without segments has no `map`.
    fn segments(&self, over: &Value, max_chars: usize) -> Result<Vec<Segment>, HandleError> {
        let _ = (over, max_chars);
        Err(HandleError::UnknownFunction("map".into()))
    }

    /// Whether [`ContextHandle::segments`] is implemented (the REPL then offers
    /// `context.map` and `context.tally`).
    fn can_map(&self) -> bool {
        false
    }

    /// The handle for a session answering `question`, which it reads once
    /// for the methods below ([`ContextHandle::about_whole_collection`],
    /// [`ContextHandle::map_key`], [`ContextHandle::next_step`],
    /// [`ContextHandle::review`]); every session (the root's and each
    /// `rlm_query`'s) asks for it when it opens. `None` (the default): this
    /// handle, which reads no question.
    fn asking(&self, question: &str) -> Option<Arc<dyn ContextHandle>> {
        let _ = question;
        None
    }

    /// Whether the question asked ([`ContextHandle::asking`]) is about the
    /// whole collection (counts and frequencies over documents) rather than
    /// one fact: the `small` profile shows `map` only then, as small models
    /// otherwise reach for it first.
    fn about_whole_collection(&self) -> bool {
        false
    }

    /// What to read from every document for the question asked, a question
    /// about the whole collection, as a `map` instruction ("the category"),
    /// when the handle can tell from the question; the `small` profile's map
    /// step names it. `None` by default.
    fn map_key(&self) -> Option<String> {
        None
    }

    /// What a small root model should look at and be begun with after a
    /// turn's `output` for the question asked (e.g. the names the output
    /// shows that the question does not: the bridges a multi-hop question
    /// goes through); `read` holds the ids the run's calls have shown so far,
    /// this turn's among them, first seen first. Asked once per turn of the
    /// `small` profile; nothing by default.
    fn next_step(&self, output: &str, read: &[String]) -> NextStep {
        let _ = (output, read);
        NextStep::default()
    }

    /// Judge an answer to the question asked before the run accepts it:
    /// `Err` says, for the model, why it does not stand (it cites ids the
    /// run never read, none of its claims is carried by what it cites, a
    /// question about the whole collection answered from part of it). `read`
    /// are the ids the run's calls showed. The default accepts every answer.
    fn review(&self, answer: &str, read: &[String]) -> Result<(), String> {
        let _ = (answer, read);
        Ok(())
    }
}
