//! The operations the MCP tools and the HTTP routes share, over the library
//! crate: each takes typed arguments (what a client sends, read strictly)
//! and returns a serde type (what it gets back). The MCP and HTTP layers
//! only translate.
//!
//! Reads are blocking (the store reads files); the async entry points run
//! them on tokio's blocking pool. Runs (`ask`, `ingest`) go through the
//! [`Gate`].

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use rlmkg::{
    Answer, AskError, AskOptions, Events, IngestOptions, Models, NoProgress, Report, RlmConfig,
    Store, StoreError, StoreSpans, Strategy,
};
use rlmkg_citation::CheckOptions;
use rlmkg_ingest::{
    EntityInfo, Fact, GraphPath, IngestSummary, Neighbor, Passage, RankedChunk, SearchHit,
    StoreStats, TokenCounter,
};
use serde::{Deserialize, Serialize};

use crate::gate::{Busy, Gate, Ticket};
use crate::store::SharedStore;

/// The most results one call returns (search hits, neighbors, chunks).
pub const MAX_K: usize = 100;
/// The most chunk ids an entity result lists (`chunk_count` gives them all).
pub const MAX_ENTITY_CHUNKS: usize = 200;
/// The longest path asked for, in relation steps.
pub const MAX_HOPS: usize = 6;
/// The longest question, in characters.
pub const MAX_QUESTION_CHARS: usize = 4_000;

/// How the server answers: its models and the ceilings of a run.
#[derive(Clone)]
pub struct OpsConfig {
    /// The store directory.
    pub store: PathBuf,
    /// The models runs may use.
    pub models: Models,
    /// The default strategy (a request may ask for another).
    pub strategy: Strategy,
    /// The run configuration; its budgets are the most a request may ask for.
    pub rlm: RlmConfig,
    /// The citation checker's settings.
    pub check: CheckOptions,
    /// Runs at once.
    pub max_runs: usize,
    /// Runs waiting for a slot before the server answers 503.
    pub run_queue: usize,
    /// Whether `ingest` is allowed (off by default: the server is read-only).
    pub allow_ingest: bool,
}

/// Why an operation failed, classified for the caller (an HTTP status, an
/// MCP error).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum OpsError {
    /// The request is malformed or asks for something impossible.
    #[error("{0}")]
    BadRequest(String),
    /// An id or name that names nothing in the store.
    #[error("{0}")]
    NotFound(String),
    /// The operation is turned off on this server.
    #[error("{0}")]
    Forbidden(String),
    /// Every run slot is taken and the queue is full.
    #[error(transparent)]
    Busy(#[from] Busy),
    /// The store is held by a writer (ingest).
    #[error("{0}")]
    Conflict(String),
    /// A model or backend failed.
    #[error("{0}")]
    Backend(String),
    /// Anything else: the store failed.
    #[error("{0}")]
    Internal(String),
}

impl From<StoreError> for OpsError {
    fn from(e: StoreError) -> Self {
        match e {
            StoreError::UnknownId(what) => Self::NotFound(format!("not found: {what}")),
            StoreError::Invalid(_) => Self::BadRequest(e.to_string()),
            StoreError::Locked { .. } => Self::Conflict(e.to_string()),
            other => Self::Internal(other.to_string()),
        }
    }
}

impl From<AskError> for OpsError {
    fn from(e: AskError) -> Self {
        match e {
            AskError::NoRootModel => Self::BadRequest(format!(
                "{e}: this server was started without a root model; ask with strategy \"heuristic\" or \"auto\""
            )),
            AskError::Store(s) => s.into(),
            AskError::Model(_) | AskError::Rlm(_) => Self::Backend(e.to_string()),
            other => Self::Internal(other.to_string()),
        }
    }
}

/// Arguments of `search`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SearchArgs {
    /// The query (BM25 over chunk titles and texts).
    pub query: String,
    /// Number of hits (default 10, at most [`MAX_K`]).
    #[serde(default)]
    pub k: Option<usize>,
}

/// The result of `search`.
#[derive(Debug, Clone, Serialize)]
pub struct SearchResult {
    /// The query.
    pub query: String,
    /// The hits, best first.
    pub hits: Vec<SearchHit>,
}

/// Arguments of `read`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReadArgs {
    /// A chunk `c12`, a sentence `c12.s3` or a sentence range `c12.s2-s4`.
    pub id: String,
}

/// The result of `read`: the passage and its text with each sentence
/// prefixed by its id.
#[derive(Debug, Clone, Serialize)]
pub struct ReadResult {
    /// The passage (id, chunk, doc, text, byte span, sentences).
    #[serde(flatten)]
    pub passage: Passage,
    /// The text with each sentence prefixed by `[c12.s3]`, the way answers cite it.
    pub marked: String,
}

/// Arguments of `entity`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EntityArgs {
    /// Entity id, name or alias.
    pub name: String,
    /// Number of neighbors (default 15, at most [`MAX_K`]).
    #[serde(default)]
    pub k: Option<usize>,
    /// Only neighbors across this relation label.
    #[serde(default)]
    pub relation: Option<String>,
}

/// The result of `entity`.
#[derive(Debug, Clone, Serialize)]
pub struct EntityResult {
    /// The entity.
    pub entity: EntityInfo,
    /// Its neighbors, strongest first.
    pub neighbors: Vec<Neighbor>,
    /// Chunk ids mentioning it, in id order (the first [`MAX_ENTITY_CHUNKS`]).
    pub chunks: Vec<String>,
    /// How many chunks mention it.
    pub chunk_count: usize,
}

/// Arguments of `neighbors`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NeighborsArgs {
    /// Entity id, name or alias.
    pub entity: String,
    /// Number of neighbors (default 20, at most [`MAX_K`]).
    #[serde(default)]
    pub k: Option<usize>,
    /// Only neighbors across this relation label.
    #[serde(default)]
    pub relation: Option<String>,
}

/// The result of `neighbors`.
#[derive(Debug, Clone, Serialize)]
pub struct NeighborsResult {
    /// The entity's id.
    pub entity: String,
    /// Its neighbors.
    pub neighbors: Vec<Neighbor>,
}

/// Arguments of `facts`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FactsArgs {
    /// Entity id, name or alias.
    pub entity: String,
    /// Number of facts (default 20, at most [`MAX_K`]).
    #[serde(default)]
    pub k: Option<usize>,
}

/// The result of `facts`.
#[derive(Debug, Clone, Serialize)]
pub struct FactsResult {
    /// The entity's id.
    pub entity: String,
    /// What the documents state of it, grouped by predicate.
    pub facts: Vec<Fact>,
}

/// Arguments of `path`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PathArgs {
    /// The entity the paths start from (id, name or alias).
    pub from: String,
    /// The entity the paths lead to (id, name or alias).
    pub to: String,
    /// Longest path in relation steps (default 3, 1 to [`MAX_HOPS`]).
    #[serde(default)]
    pub max_hops: Option<usize>,
}

/// The result of `path`.
#[derive(Debug, Clone, Serialize)]
pub struct PathResult {
    /// The paths found, shortest first.
    pub paths: Vec<GraphPath>,
}

/// Arguments of `related`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RelatedArgs {
    /// A question or text whose entities and BM25 hits seed the ranking.
    #[serde(default)]
    pub query: Option<String>,
    /// Entity ids or names to seed the ranking with.
    #[serde(default)]
    pub entities: Option<Vec<String>>,
    /// Number of chunks (default 10, at most [`MAX_K`]).
    #[serde(default)]
    pub k: Option<usize>,
}

/// The result of `related`.
#[derive(Debug, Clone, Serialize)]
pub struct RelatedResult {
    /// Chunks ranked by personalized PageRank.
    pub chunks: Vec<RankedChunk>,
}

/// Arguments of `ask`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AskArgs {
    /// The question.
    pub question: String,
    /// `auto`, `rlm` or `heuristic` (default: the server's).
    #[serde(default)]
    pub strategy: Option<String>,
    /// One repair turn for failing claims (RLM runs).
    #[serde(default)]
    pub strict: Option<bool>,
    /// Root turns (at most the server's budget).
    #[serde(default)]
    pub max_iterations: Option<u32>,
    /// Wall time of the run in seconds (at most the server's budget).
    #[serde(default)]
    pub max_seconds: Option<f64>,
    /// Sub-calls (at most the server's budget).
    #[serde(default)]
    pub max_sub_calls: Option<u64>,
}

/// Arguments of `verify`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VerifyArgs {
    /// Answer text citing sentences inline (`[c12.s3]`).
    #[serde(alias = "text")]
    pub answer: String,
}

/// Arguments of `ingest`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IngestArgs {
    /// Files and folders on the server's machine.
    pub paths: Vec<String>,
}

/// An `ask` whose arguments were checked, ready to run.
#[derive(Debug)]
pub struct PreparedAsk {
    question: String,
    opts: AskOptions,
}

/// The operations over one store.
pub struct Ops {
    store: SharedStore,
    config: OpsConfig,
    gate: Gate,
}

impl std::fmt::Debug for Ops {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Ops")
            .field("store", &self.store)
            .field("strategy", &self.config.strategy)
            .field("gate", &self.gate)
            .finish()
    }
}

/// `k` with its default, within 1..=[`MAX_K`].
fn k_of(k: Option<usize>, default: usize) -> usize {
    k.unwrap_or(default).clamp(1, MAX_K)
}

/// A required text argument, not blank.
fn required<'a>(what: &str, text: &'a str) -> Result<&'a str, OpsError> {
    let t = text.trim();
    if t.is_empty() {
        return Err(OpsError::BadRequest(format!("{what} is empty")));
    }
    Ok(t)
}

impl Ops {
    /// Operations over the store `config.store` (which must exist).
    pub fn open(config: OpsConfig) -> Result<Ops, OpsError> {
        let store = SharedStore::open(&config.store).map_err(|e| match e {
            StoreError::NotFound(dir) => OpsError::NotFound(format!(
                "no store at {}: run `rlmkg ingest PATH…` first, or pass --store DIR",
                dir.display()
            )),
            other => other.into(),
        })?;
        let gate = Gate::new(config.max_runs, config.run_queue);
        Ok(Ops {
            store,
            config,
            gate,
        })
    }

    /// Whether `ingest` is allowed.
    pub fn allows_ingest(&self) -> bool {
        self.config.allow_ingest
    }

    /// The run gate.
    pub fn gate(&self) -> &Gate {
        &self.gate
    }

    /// The reader of the store's last commit.
    pub fn store(&self) -> Result<Arc<Store>, OpsError> {
        Ok(self.store.get()?)
    }

    /// BM25 search over chunks.
    pub fn search(&self, args: &SearchArgs) -> Result<SearchResult, OpsError> {
        let query = required("the query", &args.query)?;
        let k = k_of(args.k, 10);
        let hits = self.store.with(|s| s.search(query, k))?;
        Ok(SearchResult {
            query: query.to_string(),
            hits,
        })
    }

    /// A chunk, sentence or sentence range, read tolerantly (`C12.S3`,
    /// `[c12.s3]`), as citations are.
    pub fn read(&self, args: &ReadArgs) -> Result<ReadResult, OpsError> {
        let raw = required("the id", &args.id)?;
        let parsed = rlmkg_citation::parse_id(raw).ok();
        let passage = self.store.with(|s| match parsed {
            Some(id) => s.read_passage(id),
            // The store says why the text is not an id.
            None => s.read(raw),
        })?;
        let marked = rlmkg_heuristic::mark_sentences(&passage);
        Ok(ReadResult { passage, marked })
    }

    /// An entity, its neighbors and the chunks that mention it.
    pub fn entity(&self, args: &EntityArgs) -> Result<EntityResult, OpsError> {
        let name = required("the entity name", &args.name)?;
        let k = k_of(args.k, 15);
        let relation = args.relation.as_deref();
        let found = self.store.with(|s| {
            let Some(e) = s.entity(name)? else {
                return Ok(Err(s.entities(name, 5)?));
            };
            let neighbors = s.neighbors(&e.id, k, relation)?;
            let chunks = s.chunks_of_entity(&e.id)?;
            Ok(Ok((e, neighbors, chunks)))
        })?;
        match found {
            Ok((entity, neighbors, chunks)) => Ok(EntityResult {
                entity,
                neighbors,
                chunk_count: chunks.len(),
                chunks: chunks
                    .iter()
                    .take(MAX_ENTITY_CHUNKS)
                    .map(ToString::to_string)
                    .collect(),
            }),
            Err(similar) => Err(not_an_entity(name, &similar)),
        }
    }

    /// The neighbors of an entity.
    pub fn neighbors(&self, args: &NeighborsArgs) -> Result<NeighborsResult, OpsError> {
        let name = required("the entity", &args.entity)?;
        let k = k_of(args.k, 20);
        let relation = args.relation.as_deref();
        let found = self.store.with(|s| {
            let Some(e) = s.entity(name)? else {
                return Ok(Err(s.entities(name, 5)?));
            };
            let n = s.neighbors(&e.id, k, relation)?;
            Ok(Ok((e.id, n)))
        })?;
        match found {
            Ok((entity, neighbors)) => Ok(NeighborsResult { entity, neighbors }),
            Err(similar) => Err(not_an_entity(name, &similar)),
        }
    }

    /// The facts of an entity (subject, predicate, object, the sentence to
    /// cite).
    pub fn facts(&self, args: &FactsArgs) -> Result<FactsResult, OpsError> {
        let name = required("the entity", &args.entity)?;
        let k = k_of(args.k, 20);
        let found = self.store.with(|s| {
            let Some(e) = s.entity(name)? else {
                return Ok(Err(s.entities(name, 5)?));
            };
            let f = s.facts(&e.id, k)?;
            Ok(Ok((e.id, f)))
        })?;
        match found {
            Ok((entity, facts)) => Ok(FactsResult { entity, facts }),
            Err(similar) => Err(not_an_entity(name, &similar)),
        }
    }

    /// Connecting paths between two entities.
    pub fn path(&self, args: &PathArgs) -> Result<PathResult, OpsError> {
        let from = required("the entity `from`", &args.from)?;
        let to = required("the entity `to`", &args.to)?;
        let hops = args.max_hops.unwrap_or(3);
        if !(1..=MAX_HOPS).contains(&hops) {
            return Err(OpsError::BadRequest(format!(
                "max_hops must be between 1 and {MAX_HOPS}"
            )));
        }
        let found = self.store.with(|s| {
            for n in [from, to] {
                if s.entity(n)?.is_none() {
                    return Ok(Err((n, s.entities(n, 5)?)));
                }
            }
            Ok(Ok(s.path(from, to, hops)?))
        })?;
        match found {
            Ok(paths) => Ok(PathResult { paths }),
            Err((name, similar)) => Err(not_an_entity(name, &similar)),
        }
    }

    /// Chunks ranked by personalized PageRank from a query's entities and
    /// hits, or from given entities.
    pub fn related(&self, args: &RelatedArgs) -> Result<RelatedResult, OpsError> {
        let query = args
            .query
            .as_deref()
            .map(str::trim)
            .filter(|q| !q.is_empty());
        let seeds: Vec<String> = args
            .entities
            .iter()
            .flatten()
            .map(|e| e.trim().to_string())
            .filter(|e| !e.is_empty())
            .take(MAX_K)
            .collect();
        if query.is_none() && seeds.is_empty() {
            return Err(OpsError::BadRequest(
                "give a query, or entities to start from".into(),
            ));
        }
        let k = k_of(args.k, 10);
        let chunks = self.store.with(|s| s.related(&seeds, query, k))?;
        Ok(RelatedResult { chunks })
    }

    /// Check the citations of an answer against the store.
    pub fn verify(&self, args: &VerifyArgs) -> Result<Report, OpsError> {
        required("the answer", &args.answer)?;
        let store = self.store()?;
        rlmkg_citation::check(&args.answer, &StoreSpans::new(store), &self.config.check)
            .map_err(|e| OpsError::Internal(format!("verification: {e}")))
    }

    /// Counts of the store.
    pub fn stats(&self) -> Result<StoreStats, OpsError> {
        Ok(self.store.with(Store::stats)?)
    }

    /// The options of one `ask`: the server's, narrowed by the request.
    fn ask_options(&self, args: &AskArgs, events: Events) -> Result<AskOptions, OpsError> {
        let strategy = match args.strategy.as_deref().map(str::trim) {
            None | Some("") => self.config.strategy,
            Some(s) => s.parse::<Strategy>().map_err(OpsError::BadRequest)?,
        };
        let mut rlm = self.config.rlm.clone();
        // Runs of a server write no trajectory files: their events stream.
        rlm.trace_path = None;
        let budgets = &mut rlm.budgets;
        if let Some(n) = args.max_iterations {
            if n == 0 {
                return Err(OpsError::BadRequest(
                    "max_iterations must be at least 1".into(),
                ));
            }
            budgets.max_iterations = budgets.max_iterations.min(n);
        }
        if let Some(n) = args.max_sub_calls {
            budgets.max_sub_calls = Some(budgets.max_sub_calls.map_or(n, |m| m.min(n)));
        }
        if let Some(secs) = args.max_seconds {
            if !(secs.is_finite() && secs > 0.0) {
                return Err(OpsError::BadRequest(
                    "max_seconds must be a positive number".into(),
                ));
            }
            let asked = Duration::try_from_secs_f64(secs).unwrap_or(Duration::MAX);
            budgets.max_wall_time = Some(budgets.max_wall_time.map_or(asked, |m| m.min(asked)));
        }
        Ok(AskOptions {
            strategy,
            rlm,
            strict: args.strict.unwrap_or(false),
            check: self.config.check.clone(),
            events,
        })
    }

    /// Check the arguments of an `ask` and settle its options; `events`
    /// receives the run's events as they happen.
    pub fn prepare_ask(&self, args: &AskArgs, events: Events) -> Result<PreparedAsk, OpsError> {
        let question = required("the question", &args.question)?.to_string();
        if question.chars().count() > MAX_QUESTION_CHARS {
            return Err(OpsError::BadRequest(format!(
                "the question is longer than {MAX_QUESTION_CHARS} characters"
            )));
        }
        let opts = self.ask_options(args, events)?;
        Ok(PreparedAsk { question, opts })
    }

    /// Run a prepared `ask` in the run slot `ticket` holds.
    pub async fn run_ask(
        self: &Arc<Self>,
        ask: PreparedAsk,
        ticket: Ticket,
    ) -> Result<Answer, OpsError> {
        let ops = Arc::clone(self);
        let runtime = tokio::runtime::Handle::current();
        // The run reads the store synchronously between its model calls: it
        // gets a blocking thread of its own, and the gate bounds how many.
        blocking(move || {
            let _ticket = ticket;
            let store = ops.store()?;
            let mut note = |_: &str| {};
            let answer = runtime.block_on(rlmkg::ask(
                store,
                &ask.question,
                &ops.config.models,
                &ask.opts,
                &mut note,
            ))?;
            Ok(answer)
        })
        .await
    }

    /// Answer a question with citations, verified: [`Ops::prepare_ask`],
    /// then wait for a run slot (or fail at once with [`OpsError::Busy`]
    /// when the queue is full), then [`Ops::run_ask`].
    pub async fn ask(self: &Arc<Self>, args: AskArgs, events: Events) -> Result<Answer, OpsError> {
        let ask = self.prepare_ask(&args, events)?;
        let ticket = self.gate.enter().await?;
        self.run_ask(ask, ticket).await
    }

    /// Ingest files and folders into the store (only with `allow_ingest`):
    /// additive (files that vanished from a folder are not removed), with
    /// the store's recorded chunking settings.
    pub async fn ingest(self: &Arc<Self>, args: IngestArgs) -> Result<IngestSummary, OpsError> {
        if !self.config.allow_ingest {
            return Err(OpsError::Forbidden(
                "ingest is turned off on this server (start it with --allow-ingest)".into(),
            ));
        }
        if args.paths.is_empty() {
            return Err(OpsError::BadRequest("give at least one path".into()));
        }
        let paths: Vec<PathBuf> = args.paths.iter().map(PathBuf::from).collect();
        for p in &paths {
            if !p.exists() {
                return Err(OpsError::NotFound(format!(
                    "no such file or folder: {}",
                    p.display()
                )));
            }
        }
        let ticket = self.gate.enter().await?;
        let dir = self.store.dir().to_path_buf();
        blocking(move || {
            let _ticket = ticket;
            let mut store = Store::create_or_open(&dir)?;
            let recorded = store.manifest().settings.clone();
            let tokens = TokenCounter::for_settings(&recorded)
                .map_err(|e| OpsError::Internal(format!("the store's tokenizer: {e}")))?;
            let opts = IngestOptions {
                prune: false,
                target_tokens: recorded.target_tokens,
                overlap_sentences: recorded.overlap_sentences,
                tokens,
                embedder: rlmkg::store_embedder(&recorded),
                fact_reader: rlmkg_ingest::CachedFactReader::of(&recorded),
                ..IngestOptions::default()
            };
            Ok(store.ingest(&paths, &opts, &NoProgress)?)
        })
        .await
    }
}

/// Run blocking work on tokio's blocking pool.
pub async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> Result<T, OpsError> + Send + 'static,
) -> Result<T, OpsError> {
    tokio::task::spawn_blocking(f)
        .await
        .map_err(|e| OpsError::Internal(format!("the operation failed: {e}")))?
}

/// "No entity named …", with the closest names when there are some.
fn not_an_entity(name: &str, similar: &[EntityInfo]) -> OpsError {
    let list = similar
        .iter()
        .map(|e| format!("{} ({})", e.name, e.id))
        .collect::<Vec<_>>()
        .join(", ");
    OpsError::NotFound(if list.is_empty() {
        format!("no entity named {name:?}")
    } else {
        format!("no entity named {name:?}; similar: {list}")
    })
}
