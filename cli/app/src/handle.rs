//! The graph handle over a [`Store`]: what `context` is in the REPL (SPEC §5.2).
//!
//! Every function takes plain JSON-like arguments and returns plain values, so
//! ordinary Python works on the results. Bad arguments come back as
//! [`HandleError::BadArgument`] (a Python `ValueError`), unknown ids as
//! [`HandleError::NotFound`] (a `KeyError`).

use std::collections::HashSet;
use std::sync::Arc;
use std::time::Duration;

use rlm_core::{
    ContextHandle, CorpusMetadata, HandleError, HandleFunction, HandleReply, NextStep, Segment,
};
use rlmkg_citation::CheckOptions;
use rlmkg_ids::ChunkId;
use rlmkg_ingest::{Store, StoreError};
use serde::Serialize;
use serde_json::{Map, Value, json};

use rlmkg_heuristic::{self as heuristic, ExploreOptions, MAX_NEXT_CHUNKS, Question};

/// Time limit of one `context.sparql` query.
const SPARQL_TIMEOUT: Duration = Duration::from_secs(10);

/// Most facts a next-step hint shows (the facts of the passages an output
/// shows).
const MAX_SHOWN_FACTS: usize = 12;

/// Largest `k` any handle function honours: a larger one from Python
/// (`context.search(q, 10**9)`) is clamped to this before it reaches the store,
/// where `k` sizes allocations.
pub const MAX_K: usize = 1000;

/// A parameter's default: required, `None`, or an integer.
#[derive(Debug, Clone, Copy)]
enum ParamDefault {
    Required,
    None,
    Int(usize),
}

/// One parameter of a handle function.
#[derive(Debug, Clone, Copy)]
struct Param {
    name: &'static str,
    default: ParamDefault,
    /// Its JSON schema type (`string` or `integer`), for the tool protocol.
    kind: &'static str,
}

/// A required string parameter.
const fn req(name: &'static str) -> Param {
    Param {
        name,
        default: ParamDefault::Required,
        kind: "string",
    }
}

/// An integer parameter with a default.
const fn int(name: &'static str, default: usize) -> Param {
    Param {
        name,
        default: ParamDefault::Int(default),
        kind: "integer",
    }
}

/// An optional parameter of JSON type `kind`, `None` when not given.
const fn none(name: &'static str, kind: &'static str) -> Param {
    Param {
        name,
        default: ParamDefault::None,
        kind,
    }
}

/// A function body: the handle and the call's arguments (read by parameter
/// name) give the value and the chunk or sentence ids it showed.
type Body = fn(&StoreHandle, &Args<'_>) -> Result<HandleReply, HandleError>;

/// One function of the handle. This table is the one description of the handle:
/// the signatures shown to the model, argument parsing (positions, keywords,
/// defaults) and dispatch all come from it.
struct Function {
    name: &'static str,
    params: &'static [Param],
    doc: &'static str,
    body: Body,
}

impl Function {
    /// The Python-style signature, e.g. `search(query, k=10)`.
    fn signature(&self) -> String {
        let params: Vec<String> = self
            .params
            .iter()
            .map(|p| match p.default {
                ParamDefault::Required => p.name.to_owned(),
                ParamDefault::None => format!("{}=None", p.name),
                ParamDefault::Int(n) => format!("{}={n}", p.name),
            })
            .collect();
        format!("{}({})", self.name, params.join(", "))
    }

    /// The JSON schema of its keyword arguments (the tool protocol's `parameters`).
    fn schema(&self) -> Value {
        let mut properties = Map::new();
        let mut required = Vec::new();
        for p in self.params {
            let mut prop = json!({ "type": p.kind });
            match p.default {
                ParamDefault::Required => required.push(Value::from(p.name)),
                ParamDefault::Int(n) => {
                    prop["default"] = Value::from(n);
                }
                ParamDefault::None => {}
            }
            properties.insert(p.name.to_owned(), prop);
        }
        json!({ "type": "object", "properties": properties, "required": required })
    }
}

/// The functions of the handle.
const FUNCTIONS: &[Function] = &[
    Function {
        name: "search",
        params: &[req("query"), int("k", 10)],
        doc: "search over chunks (BM25; fused with dense vectors when the store has them) -> list of {id, doc, title, score, text}; each sentence of text starts with its [id]",
        body: |h, a| {
            let k = a.k()?;
            let hits: Vec<HitView> = h
                .store
                .search(a.str("query")?, h.fetch_k(k))
                .map_err(store_err)?
                .into_iter()
                .filter(|hit| h.in_scope(hit.id))
                .take(k)
                .map(|hit| h.hit_view(hit))
                .collect();
            h.first_in_scope(hits, k, |hit| hit.chunk)
        },
    },
    Function {
        name: "read",
        params: &[req("id")],
        doc: "text of a chunk 'c12', sentence 'c12.s3' or range 'c12.s2-s4', each sentence prefixed by its [id]",
        body: |h, a| {
            let raw = a.str("id")?;
            // Read tolerantly (`C12.S3`, `c12.3`), as citations are.
            let parsed = rlmkg_citation::parse_id(raw).ok();
            let inside = match parsed {
                Some(c) => h.in_scope(c.chunk),
                None => h.scope.is_none(),
            };
            if !inside {
                return Err(HandleError::NotFound(format!(
                    "{raw} is outside this scope"
                )));
            }
            if parsed.is_none()
                && let Some(why) = h.document_id_read(raw)
            {
                return Err(HandleError::BadArgument(why));
            }
            // The citation parser reads the id; text that is no id goes to the
            // store as given, which says why it is not one.
            let passage = match parsed {
                Some(id) => h.store.read_passage(id),
                None => h.store.read(raw),
            }
            .map_err(store_err)?;
            Ok(HandleReply::showing(
                Value::String(heuristic::mark_sentences(&passage)),
                vec![passage.id.clone()],
            ))
        },
    },
    Function {
        name: "entities",
        params: &[req("query"), int("k", 10)],
        doc: "entities matching a name -> list of {id, name, type, aliases, mentions}",
        body: |h, a| {
            let got = h
                .store
                .entities(a.str("query")?, a.k()?)
                .map_err(store_err)?;
            Ok(to_value(&got)?.into())
        },
    },
    Function {
        name: "neighbors",
        params: &[req("entity"), int("k", 20), none("relation", "string")],
        doc: "adjacent entities -> list of {id, name, type, relation, weight, evidence: [chunk ids]}",
        body: |h, a| {
            let got = h
                .store
                .neighbors(a.str("entity")?, a.k()?, a.opt_str("relation")?)
                .map_err(store_err)?;
            Ok(to_value(&got)?.into())
        },
    },
    Function {
        name: "facts",
        params: &[req("entity"), int("k", 20)],
        doc: "what the documents state of an entity -> list of {subject_name, predicate, object_name, sentence (the id to cite), evidence: [chunk ids]}",
        body: |h, a| {
            let got = h.store.facts(a.str("entity")?, a.k()?).map_err(store_err)?;
            Ok(to_value(&got)?.into())
        },
    },
    Function {
        name: "path",
        params: &[req("from_"), req("to"), int("max_hops", 3)],
        doc: "connecting paths between two entities (facts first, never through a date), each step with its relation and evidence chunk ids",
        body: |h, a| {
            let hops = a.usize("max_hops")?;
            if hops == 0 || hops > 6 {
                return Err(HandleError::BadArgument(
                    "max_hops must be between 1 and 6".into(),
                ));
            }
            let got = h
                .store
                .path(a.str("from_")?, a.str("to")?, hops)
                .map_err(store_err)?;
            Ok(to_value(&got)?.into())
        },
    },
    Function {
        name: "related",
        params: &[req("query_or_entities"), int("k", 10)],
        doc: "chunks ranked by personalized PageRank seeded from the entities of a question or a list of entity ids",
        body: |h, a| {
            let k = a.k()?;
            let bad = || {
                HandleError::BadArgument(
                    "related() takes a question string or a list of entity ids".into(),
                )
            };
            let got = match a.get("query_or_entities") {
                Some(Value::String(q)) => h.store.related(&[], Some(q), h.fetch_k(k)),
                Some(Value::Array(items)) => {
                    let seeds = items
                        .iter()
                        .map(|v| v.as_str().map(str::to_owned))
                        .collect::<Option<Vec<_>>>()
                        .ok_or_else(bad)?;
                    h.store.related(&seeds, None, h.fetch_k(k))
                }
                _ => return Err(bad()),
            }
            .map_err(store_err)?;
            h.first_in_scope(got, k, |c| c.id)
        },
    },
    Function {
        name: "sparql",
        params: &[req("query")],
        doc: "read-only SPARQL over the graph -> list of rows (dicts)",
        body: |h, a| {
            let rows = h
                .store
                .sparql(a.str("query")?, SPARQL_TIMEOUT)
                .map_err(store_err)?;
            Ok(to_value(&rows)?.into())
        },
    },
    Function {
        name: "docs",
        params: &[],
        doc: "documents -> list of {id, path, title, chunks, bytes, format}",
        body: |h, _| Ok(to_value(&h.store.docs().map_err(store_err)?)?.into()),
    },
    Function {
        name: "stats",
        params: &[],
        doc: "corpus statistics",
        body: |h, _| Ok(to_value(&h.store.stats().map_err(store_err)?)?.into()),
    },
    Function {
        name: "size",
        params: &[],
        doc: "characters of text in the corpus",
        body: |h, _| Ok(json!(h.store.stats().map_err(store_err)?.chars).into()),
    },
    Function {
        name: "doc_text",
        params: &[req("doc"), int("start", 0), none("end", "integer")],
        doc: "raw normalized text of a document between byte offsets",
        body: |h, a| {
            let start = a.usize("start")?;
            let end = a.opt_usize("end")?.unwrap_or(usize::MAX);
            if end < start {
                return Err(HandleError::BadArgument(
                    "doc_text: end is before start".into(),
                ));
            }
            let text = h
                .store
                .doc_text(a.str("doc")?, start, end)
                .map_err(store_err)?;
            Ok(Value::String(text).into())
        },
    },
    Function {
        name: "explore",
        params: &[req("question")],
        doc: "the built-in heuristic search: question entities, evidence sentences with ids, an extractive draft answer",
        body: |h, a| {
            // The model's own question, read here.
            let question = Question::read(a.str("question")?);
            let found = heuristic::explore(h.store.as_ref(), &question, &ExploreOptions::default())
                .map_err(|e| HandleError::Failed(format!("{e:#}")))?;
            let found =
                found.restricted(|chunk| chunk.parse().is_ok_and(|c: ChunkId| h.in_scope(c)));
            let shown = found.evidence.iter().map(|e| e.id.clone()).collect();
            Ok(HandleReply::showing(found.to_python(), shown))
        },
    },
];

/// The question's content words the output does not contain: what the
/// question still asks after this hop.
fn unanswered_words(question: &Question, output: &str) -> Vec<String> {
    let lower = output.to_lowercase();
    question
        .content_words()
        .iter()
        .filter(|w| !lower.contains(w.as_str()))
        .cloned()
        .collect()
}

/// A short worked run with these functions: search, read, cite, finish.
/// (A test checks that every `context.` call in it is in [`FUNCTIONS`].)
const EXAMPLE: &str = "\
Example of a whole run (question: \"Who designed the bridge that crosses the Oran River?\"):
Turn 1, you write:
```repl
hits = context.search(\"bridge Oran River\")
print(hits[:3])
```
Turn 2, after seeing that chunk c7 mentions the bridge, you write:
```repl
print(context.read(\"c7\"))
print(context.search(\"Pellan Bridge designed\")[:3])
```
Turn 3, after reading c7.s2 \"The Pellan Bridge crosses the Oran River.\" and c31.s1 \"The Pellan Bridge was designed by Ines Varga in 1962.\", you write:
```repl
FINAL(\"Ines Varga [c31.s1]. The Pellan Bridge crosses the Oran River [c7.s2] and was designed by Ines Varga in 1962 [c31.s1].\")
```
(The names and ids above are only an illustration; use what your own searches return.)";

/// A search hit as `context.search` shows it: the chunk's sentences marked
/// with their ids (so a hit can be cited without reading it again), the score
/// rounded, no file path.
#[derive(Debug, Serialize)]
struct HitView {
    id: String,
    doc: String,
    title: String,
    score: f64,
    text: String,
    #[serde(skip)]
    chunk: ChunkId,
}

/// `context` over a store, optionally restricted to a scope of chunk ids.
pub struct StoreHandle {
    store: Arc<Store>,
    /// Chunk ids the handle may show; `None` means the whole corpus.
    scope: Option<Arc<HashSet<ChunkId>>>,
    /// Checker settings of the answer review; `None` accepts every answer.
    review: Option<Arc<CheckOptions>>,
    /// The question asked, read once ([`StoreHandle::with_question`],
    /// [`ContextHandle::asking`]); `None` on a handle no question was asked of.
    question: Option<Arc<Question>>,
}

/// Most chunk ids an error about reading a document's id names.
const MAX_NAMED_CHUNKS: usize = 8;

impl StoreHandle {
    /// A handle on the whole store.
    pub fn new(store: Arc<Store>) -> Self {
        Self {
            store,
            scope: None,
            review: None,
            question: None,
        }
    }

    /// The handle of a run asking `question`, read once by the caller: its
    /// hints and review read that, not the question's text again.
    pub fn with_question(mut self, question: Arc<Question>) -> Self {
        self.question = Some(question);
        self
    }

    /// The handle that reviews answers before the run accepts them (see
    /// [`crate::review`]), checking citations with `check`.
    pub fn reviewing(mut self, check: CheckOptions) -> Self {
        self.review = Some(Arc::new(check));
        self
    }

    fn in_scope(&self, chunk: ChunkId) -> bool {
        self.scope.as_ref().is_none_or(|s| s.contains(&chunk))
    }

    /// The first `k` of `items` whose chunk (`id`) is in scope, as the reply
    /// that shows those chunks.
    fn first_in_scope<T: Serialize>(
        &self,
        items: Vec<T>,
        k: usize,
        id: impl Fn(&T) -> ChunkId,
    ) -> Result<HandleReply, HandleError> {
        let kept: Vec<T> = items
            .into_iter()
            .filter(|item| self.in_scope(id(item)))
            .take(k)
            .collect();
        let shown = kept.iter().map(|item| id(item).to_string()).collect();
        Ok(HandleReply::showing(to_value(&kept)?, shown))
    }

    /// Why `raw`, a document's id (`d12`, or `d12.s3` as a model writes it
    /// after a hit's `doc`), cannot be read, naming the chunks of that
    /// document in scope that can; `None` when `raw` names no document.
    fn document_id_read(&self, raw: &str) -> Option<String> {
        let doc = raw.trim().split('.').next().unwrap_or_default();
        let digits = doc.strip_prefix(['d', 'D'])?;
        if digits.is_empty() || !digits.chars().all(|c| c.is_ascii_digit()) {
            return None;
        }
        let chunks: Vec<String> = self
            .store
            .chunk_ids_of_doc(&doc.to_lowercase())
            .ok()?
            .into_iter()
            .filter(|c| self.in_scope(*c))
            .take(MAX_NAMED_CHUNKS)
            .map(|c| c.to_string())
            .collect();
        let first = chunks.first()?;
        Some(format!(
            "{raw} is a document id (a hit's \"doc\"), not a passage id; read its chunks \
             by their ids ({}), e.g. context.read(\"{first}\"), or a sentence of one, \
             e.g. \"{first}.s2\"",
            chunks.join(", ")
        ))
    }

    /// The facts the graph holds from the chunks `output` shows, one a line
    /// (subject — predicate — object [sentence id]), at most
    /// [`MAX_SHOWN_FACTS`]; `None` when there are none.
    fn facts_shown(&self, output: &str) -> Option<String> {
        let shown: Vec<rlmkg_ids::PassageId> = heuristic::chunk_ids_in(output)
            .iter()
            .take(MAX_NEXT_CHUNKS)
            .map(|&chunk| rlmkg_ids::PassageId {
                chunk,
                sentences: None,
            })
            .collect();
        let facts = self.store.facts_in(&shown).ok()?;
        let lines: Vec<String> = facts
            .iter()
            .take(MAX_SHOWN_FACTS)
            .map(|f| {
                format!(
                    "  {} — {} — {} [{}]",
                    f.subject_name,
                    f.predicate,
                    f.object_name,
                    f.sentence.as_deref().unwrap_or("?")
                )
            })
            .collect();
        (!lines.is_empty()).then(|| {
            format!(
                "Facts the graph holds from the passages above (subject — predicate — object [sentence]):\n{}",
                lines.join("\n")
            )
        })
    }

    /// How `context.search` shows `hit`.
    fn hit_view(&self, hit: rlmkg_ingest::SearchHit) -> HitView {
        let text = match self.store.read(&hit.id.to_string()) {
            Ok(p) if !p.sentences.is_empty() => heuristic::mark_sentences(&p),
            _ => hit.text,
        };
        HitView {
            id: hit.id.to_string(),
            doc: hit.doc.to_string(),
            title: hit.title,
            score: (f64::from(hit.score) * 100.0).round() / 100.0,
            text,
            chunk: hit.id,
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
            .map(|f| HandleFunction {
                name: f.name.to_owned(),
                signature: f.signature(),
                doc: f.doc.to_owned(),
                parameters: f.schema(),
            })
            .collect()
    }

    fn call(
        &self,
        name: &str,
        args: &[Value],
        kwargs: &Map<String, Value>,
    ) -> Result<HandleReply, HandleError> {
        let f = FUNCTIONS
            .iter()
            .find(|f| f.name == name)
            .ok_or_else(|| HandleError::UnknownFunction(name.to_owned()))?;
        (f.body)(self, &Args::bind(f, args, kwargs)?)
    }

    fn example(&self) -> Option<String> {
        Some(EXAMPLE.to_owned())
    }

    fn asking(&self, question: &str) -> Option<Arc<dyn ContextHandle>> {
        if self.question.as_ref().is_some_and(|q| q.text() == question) {
            return None; // read once already, by the run's caller
        }
        Some(Arc::new(StoreHandle {
            store: Arc::clone(&self.store),
            scope: self.scope.clone(),
            review: self.review.clone(),
            question: Some(Arc::new(Question::read(question))),
        }))
    }

    fn next_step(&self, output: &str, _read: &[String]) -> NextStep {
        let Some(question) = self.question.as_deref() else {
            return NextStep::default();
        };
        // What the handle knows, never a choice made for the model (issue
        // 44): the facts the graph holds from the passages shown, the
        // question's words the output lacks, the names it shows that the
        // question does not. No answer sentence is picked, no FINAL written,
        // no search chosen.
        let mut parts: Vec<String> = Vec::new();
        if let Some(facts) = self.facts_shown(output) {
            parts.push(facts);
        }
        let lacking = unanswered_words(question, output);
        if !lacking.is_empty() {
            parts.push(format!(
                "Words of the question this output does not contain: {}.",
                lacking.join(", ")
            ));
        }
        let names = heuristic::unasked_names(self.store.as_ref(), question, output);
        if !names.is_empty() {
            parts.push(format!(
                "Names this output shows that the question does not: {}.",
                names.join("; ")
            ));
        }
        NextStep {
            hint: (!parts.is_empty()).then(|| parts.join("\n")),
            search: None,
            answer_here: false,
        }
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

    fn can_map(&self) -> bool {
        true
    }

    fn about_whole_collection(&self) -> bool {
        self.question.as_ref().is_some_and(|q| q.whole_collection())
    }

    fn map_key(&self) -> Option<String> {
        crate::review::map_key(&self.store, self.question.as_deref()?)
    }

    fn segments(&self, over: &Value, max_chars: usize) -> Result<Vec<Segment>, HandleError> {
        crate::segments::segments(&self.store, over, max_chars, &|c| self.in_scope(c))
    }

    fn review(&self, answer: &str, read: &[String]) -> Result<(), String> {
        match (&self.review, &self.question) {
            (Some(check), Some(question)) => {
                crate::review::review(&self.store, check, question, answer, read)
            }
            _ => Ok(()),
        }
    }

    fn scoped(&self, ids: &[String]) -> Result<Arc<dyn ContextHandle>, HandleError> {
        let mut chunks = HashSet::new();
        for id in ids {
            if let Ok(c) = rlmkg_citation::parse_id(id) {
                chunks.insert(c.chunk);
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
            review: self.review.clone(),
            question: self.question.clone(),
        }))
    }
}

/// A call's arguments bound to the function's parameters: positional by
/// position, keywords by name, with readable errors for extra or unknown ones.
struct Args<'a> {
    function: &'static Function,
    values: Vec<Option<&'a Value>>,
}

impl<'a> Args<'a> {
    fn bind(
        function: &'static Function,
        args: &'a [Value],
        kwargs: &'a Map<String, Value>,
    ) -> Result<Self, HandleError> {
        let params = function.params;
        if args.len() > params.len() {
            return Err(HandleError::BadArgument(format!(
                "{}() takes {} argument(s) but {} were given",
                function.name,
                params.len(),
                args.len()
            )));
        }
        let mut values: Vec<Option<&'a Value>> = params.iter().map(|_| None).collect();
        for (slot, v) in values.iter_mut().zip(args) {
            *slot = Some(v);
        }
        for (name, v) in kwargs {
            let Some(i) = params.iter().position(|p| p.name == name) else {
                return Err(HandleError::BadArgument(format!(
                    "{}() got an unexpected keyword argument {name:?} (it takes {})",
                    function.name,
                    function.signature()
                )));
            };
            if let Some(slot) = values.get_mut(i) {
                *slot = Some(v);
            }
        }
        Ok(Self { function, values })
    }

    fn param(&self, name: &str) -> Option<(usize, &'static Param)> {
        self.function
            .params
            .iter()
            .enumerate()
            .find(|(_, p)| p.name == name)
    }

    /// The value given for `name`; `None` when absent or Python `None`.
    fn get(&self, name: &str) -> Option<&'a Value> {
        let (i, _) = self.param(name)?;
        self.values
            .get(i)
            .copied()
            .flatten()
            .filter(|v| !v.is_null())
    }

    fn str(&self, name: &str) -> Result<&'a str, HandleError> {
        match self.get(name) {
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

    fn opt_str(&self, name: &str) -> Result<Option<&'a str>, HandleError> {
        match self.get(name) {
            None => Ok(None),
            Some(_) => self.str(name).map(Some),
        }
    }

    /// The `k` argument, clamped to [`MAX_K`].
    fn k(&self) -> Result<usize, HandleError> {
        Ok(self.usize("k")?.min(MAX_K))
    }

    /// An integer argument, or its default from the table.
    fn usize(&self, name: &str) -> Result<usize, HandleError> {
        match (
            self.opt_usize(name)?,
            self.param(name).map(|(_, p)| p.default),
        ) {
            (Some(n), _) => Ok(n),
            (None, Some(ParamDefault::Int(n))) => Ok(n),
            _ => Err(HandleError::BadArgument(format!(
                "missing argument {name:?}"
            ))),
        }
    }

    fn opt_usize(&self, name: &str) -> Result<Option<usize>, HandleError> {
        match self.get(name) {
            None => Ok(None),
            Some(v) => v
                .as_u64()
                .and_then(|n| usize::try_from(n).ok())
                .map(Some)
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

#[cfg(test)]
mod tests {
    use super::*;

    fn function(name: &str) -> Option<&'static Function> {
        FUNCTIONS.iter().find(|f| f.name == name)
    }

    #[test]
    fn signatures_come_from_the_parameters() {
        let sig = |n: &str| function(n).map(Function::signature);
        assert_eq!(sig("search").as_deref(), Some("search(query, k=10)"));
        assert_eq!(
            sig("neighbors").as_deref(),
            Some("neighbors(entity, k=20, relation=None)")
        );
        assert_eq!(sig("docs").as_deref(), Some("docs()"));
    }

    #[test]
    fn arguments_bind_by_position_or_keyword_with_table_defaults() -> Result<(), HandleError> {
        let Some(f) = function("neighbors") else {
            return Err(HandleError::NotFound("neighbors".into()));
        };
        let args = [json!("e1")];
        let mut kw = Map::new();
        let a = Args::bind(f, &args, &kw)?;
        assert_eq!(
            (a.str("entity")?, a.k()?, a.opt_str("relation")?),
            ("e1", 20, None)
        );
        kw.insert("k".into(), json!(5_000));
        kw.insert("relation".into(), json!("founded"));
        let a = Args::bind(f, &args, &kw)?;
        assert_eq!((a.k()?, a.opt_str("relation")?), (MAX_K, Some("founded")));
        kw.insert("depth".into(), json!(2));
        let err = Args::bind(f, &args, &kw).err().map(|e| e.to_string());
        assert!(
            err.as_deref()
                .is_some_and(|e| e.contains("unexpected keyword argument \"depth\"")),
            "{err:?}"
        );
        let many = [json!("e1"), json!(1), json!("r"), json!(4)];
        assert!(Args::bind(f, &many, &Map::new()).is_err());
        Ok(())
    }

    #[test]
    fn the_example_calls_only_functions_of_the_table() {
        let mut rest = EXAMPLE;
        let mut seen = 0;
        while let Some(i) = rest.find("context.") {
            rest = rest.get(i + "context.".len()..).unwrap_or_default();
            let name: String = rest
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            assert!(function(&name).is_some(), "example calls context.{name}");
            seen += 1;
        }
        assert!(seen >= 2);
    }

    #[test]
    fn what_a_question_still_asks_is_its_words_the_output_lacks() {
        let q = Question::read("Which institute did the author of The Salt Atlas join in 2019?");
        let out = "[c22.s3] The Salt Atlas is a book by Dr. Mara Ellison.";
        assert_eq!(
            unanswered_words(&q, out),
            ["institute", "author", "join", "2019"]
        );
    }
}
