//! The root loop (SPEC §5.3): messages, code blocks, sub-calls, recursion,
//! budgets, guards, the call cache and trajectories.
//!
//! [`Rlm`] holds the configuration, the models and the corpus handle;
//! [`Rlm::start`] opens a [`Session`] for one question, whose [`Session::run`]
//! drives the conversation until an executed `FINAL`, `FINAL_VAR` or `answer` dict
//! is accepted, or a budget ends it. [`Session::repair`] gives the model one more
//! turn with a message (the `--strict` repair turn) and [`Session::finish`] writes
//! the trajectory's final line.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use async_trait::async_trait;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use tokio::sync::OnceCell;

use crate::cache::{CallCache, short_hash};
use crate::fanout::{self, Concurrency, Fanout};
use crate::handle::ContextHandle;
use crate::model::{
    ChatRequest, ChatResponse, FinishReason, LanguageModel, Message, ModelError, Sampling,
};
use crate::prompts::{self, Profile, PromptFacts};
use crate::repl::{HostError, HostErrorKind, Repl, ReplHost, ReplLimits, is_identifier};
use crate::retry::{RetryPolicy, chat_with_retry, chat_with_retry_limited};
use crate::trajectory::{
    SubCallRecord, TRACE_VERSION, Totals, TraceBlock, TraceError, TraceEvent, TraceFinal,
    TraceHeader, TraceIteration, TraceLine, TraceWriter,
};

/// Run budgets (SPEC §5.3.2). `None` means unlimited.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Budgets {
    /// Root turns before the last "best answer" turn.
    pub max_iterations: u32,
    /// Deepest `rlm_query` nesting; at this depth `rlm_query` is a plain sub-call.
    pub max_depth: u32,
    /// Sub-calls over the whole run (children included).
    pub max_sub_calls: Option<u64>,
    /// Prompt plus completion tokens over the whole run.
    pub max_total_tokens: Option<u64>,
    /// Wall time of the whole run (default [`DEFAULT_MAX_WALL_TIME`]), checked
    /// before every model call and code block and bounding each model call.
    pub max_wall_time: Option<Duration>,
    /// Cost over the whole run (needs prices).
    pub max_cost: Option<f64>,
}

impl Default for Budgets {
    fn default() -> Self {
        Self {
            max_iterations: 30,
            max_depth: 1,
            max_sub_calls: Some(1000),
            max_total_tokens: None,
            max_wall_time: Some(DEFAULT_MAX_WALL_TIME),
            max_cost: None,
        }
    }
}

/// The default bound on a run's wall time: 30 minutes.
pub const DEFAULT_MAX_WALL_TIME: Duration = Duration::from_secs(30 * 60);

/// Answer guards (SPEC §5.3.5).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Guards {
    /// Reject an answer given before the model has seen any REPL output.
    pub require_repl: bool,
    /// Reject answers longer than this many characters.
    pub max_answer_chars: usize,
    /// Reject answers with unsubstituted placeholders (`{var}`, `[least_common_x]`).
    pub reject_placeholders: bool,
}

impl Default for Guards {
    fn default() -> Self {
        Self {
            require_repl: true,
            max_answer_chars: 8000,
            reject_placeholders: true,
        }
    }
}

/// Price of a model in cost units per million tokens.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Price {
    /// Per million prompt tokens.
    pub prompt_per_million: f64,
    /// Per million completion tokens.
    pub completion_per_million: f64,
}

/// Configuration of a run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct RlmConfig {
    /// Prompt profile.
    pub profile: Profile,
    /// A system prompt replacing the profile's (`--system-prompt FILE`).
    pub system_prompt: Option<String>,
    /// Budgets.
    pub budgets: Budgets,
    /// Guards.
    pub guards: Guards,
    /// REPL limits.
    pub repl: ReplLimits,
    /// Directory of the call cache; `None` disables caching.
    pub cache_dir: Option<PathBuf>,
    /// Where to write the trajectory; `None` writes none.
    pub trace_path: Option<PathBuf>,
    /// Sampling of root calls.
    pub root_sampling: Sampling,
    /// Sampling of sub-calls.
    pub sub_sampling: Sampling,
    /// Concurrent sub-calls; `None` picks it from the server or the backend
    /// kind ([`crate::fanout`]), and 429s make it back off either way.
    pub concurrency: Option<usize>,
    /// Retry policy for transient errors.
    pub retry: RetryPolicy,
    /// Price of the root model.
    pub root_price: Option<Price>,
    /// Price of the sub model.
    pub sub_price: Option<Price>,
    /// Largest corpus (characters) materialized as `context` for the `paper` profile.
    pub max_context_chars: usize,
}

impl Default for RlmConfig {
    fn default() -> Self {
        Self {
            profile: Profile::Kg,
            system_prompt: None,
            budgets: Budgets::default(),
            guards: Guards::default(),
            repl: ReplLimits::default(),
            cache_dir: None,
            trace_path: None,
            root_sampling: Sampling::default(),
            sub_sampling: Sampling::default(),
            concurrency: None,
            retry: RetryPolicy::default(),
            root_price: None,
            sub_price: None,
            max_context_chars: 20_000_000,
        }
    }
}

/// How a run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Ending {
    /// Executed `FINAL(text)`.
    Final,
    /// Executed `FINAL_VAR(name)`.
    FinalVar,
    /// `answer["ready"] = True`.
    AnswerDict,
    /// The last turn after the budget, or a repair turn answered in prose.
    BestEffort,
    /// A budget (tokens, time, cost) stopped the run without an answer.
    Budget,
    /// The turns ran out and the last turn gave no answer.
    NoAnswer,
    /// The root model failed.
    ModelError,
}

/// Why a run's result must not be shown as the root model's answer, so the
/// caller answers another way (the heuristic strategy, SPEC §5.5).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[non_exhaustive]
pub enum FallbackReason {
    /// No code block ran in the whole run, so nothing the model said was looked up.
    NoCodeExecuted {
        /// Root turns the run took.
        turns: u32,
    },
    /// The root model failed for good (after retries) part-way through the run,
    /// and the run had no answer to show.
    RootModelFailed {
        /// Root turns the run took, the failing one included.
        turns: u32,
        /// The model error.
        error: String,
    },
}

impl std::fmt::Display for FallbackReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::NoCodeExecuted { turns } => write!(
                f,
                "the root model ran no code in {turns} turn(s), so its prose is not an answer"
            ),
            Self::RootModelFailed { turns, error } => write!(
                f,
                "the root model failed at turn {turns} ({error}) and the run had no answer yet"
            ),
        }
    }
}

/// The result of a run (or a repair turn).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunOutcome {
    /// The accepted answer, if any (never set when `fallback` is).
    pub answer: Option<String>,
    /// Set when the caller should answer another way; the run gave no usable answer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fallback: Option<FallbackReason>,
    /// How the run ended.
    pub ending: Ending,
    /// Why it stopped, in words.
    pub stop_reason: String,
    /// Usage totals so far.
    pub usage: Totals,
    /// Chunk / sentence ids passed to `context.read` or returned by searches, first seen first.
    pub read_ids: Vec<String>,
    /// The trajectory file, if one is written.
    pub trajectory: Option<PathBuf>,
    /// Things that went wrong without stopping the run (e.g. the trajectory could
    /// not be written), for the caller to show.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
}

/// Errors of a run.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RlmError {
    /// The root model failed (after retries).
    #[error("root model failed: {0}")]
    Model(#[from] ModelError),
    /// The trajectory could not be written.
    #[error("trajectory: {0}")]
    Trace(#[from] TraceError),
}

/// Why a model call was not answered.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum CallError {
    /// The model failed.
    #[error(transparent)]
    Model(#[from] ModelError),
    /// A budget forbids the call.
    #[error("budget exhausted: {0}")]
    Budget(String),
}

/// What a model call cost and how it went.
#[derive(Debug, Clone)]
pub struct CallReport {
    /// The response or error.
    pub result: Result<ChatResponse, CallError>,
    /// Answered from the cache.
    pub cached: bool,
    /// Failed attempts that were retried.
    pub retries: Vec<crate::retry::RetryNote>,
    /// Wall time of the call.
    pub latency: Duration,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Role {
    Root,
    Sub,
}

struct Shared {
    cfg: RlmConfig,
    root: Arc<dyn LanguageModel>,
    sub: Arc<dyn LanguageModel>,
    cache: Option<CallCache>,
    fanout: OnceCell<(Fanout, Concurrency)>,
    totals: Mutex<Totals>,
    started: Instant,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl Shared {
    /// The sub-call limiter, chosen on first use (see [`crate::fanout`]).
    async fn fanout(&self) -> &(Fanout, Concurrency) {
        self.fanout
            .get_or_init(|| async {
                let c = fanout::choose(self.sub.as_ref(), self.cfg.concurrency).await;
                (Fanout::new(c.limit), c)
            })
            .await
    }

    /// Charge one sub-call (a sub-model call or a child run's turn) to the budget.
    fn take_sub_call(&self) -> Result<(), String> {
        let mut t = lock(&self.totals);
        if let Some(max) = self.cfg.budgets.max_sub_calls
            && t.sub_calls >= max
        {
            return Err(format!(
                "sub-call budget of {max} calls (child runs' turns included) is used up; answer with what you have"
            ));
        }
        t.sub_calls += 1;
        Ok(())
    }

    /// Wall time left, if the run has a wall-time budget.
    fn time_left(&self) -> Option<Duration> {
        self.cfg
            .budgets
            .max_wall_time
            .map(|max| max.saturating_sub(self.started.elapsed()))
    }

    fn exhausted(&self) -> Option<String> {
        let t = *lock(&self.totals);
        let b = &self.cfg.budgets;
        if let Some(max) = b.max_total_tokens
            && t.tokens() >= max
        {
            return Some(format!(
                "token budget of {max} used ({} tokens)",
                t.tokens()
            ));
        }
        if let Some(max) = b.max_cost
            && t.cost >= max
        {
            return Some(format!("cost budget of {max} used ({:.4})", t.cost));
        }
        if let Some(max) = b.max_wall_time
            && self.started.elapsed() >= max
        {
            return Some(format!(
                "wall-time budget of {:.1}s used",
                max.as_secs_f64()
            ));
        }
        None
    }

    fn totals(&self) -> Totals {
        let mut t = *lock(&self.totals);
        t.seconds = self.started.elapsed().as_secs_f64();
        t
    }

    async fn call(&self, role: Role, request: ChatRequest) -> CallReport {
        let started = Instant::now();
        let report = |result: Result<ChatResponse, CallError>,
                      cached: bool,
                      retries: Vec<crate::retry::RetryNote>| CallReport {
            result,
            cached,
            retries,
            latency: started.elapsed(),
        };
        if let Some(why) = self.exhausted() {
            return report(Err(CallError::Budget(why)), false, Vec::new());
        }
        let model = match role {
            Role::Root => &self.root,
            Role::Sub => &self.sub,
        };
        let key = CallCache::key(&model.id(), &request);
        if let Some(hit) = self.cache.as_ref().and_then(|c| c.get(&key)) {
            let mut t = lock(&self.totals);
            t.calls += 1;
            t.cached_calls += 1;
            drop(t);
            return report(Ok(hit), true, Vec::new());
        }
        let attempt = async {
            match role {
                Role::Sub => {
                    let (f, _) = self.fanout().await;
                    chat_with_retry_limited(model.as_ref(), &request, &self.cfg.retry, f).await
                }
                Role::Root => chat_with_retry(model.as_ref(), &request, &self.cfg.retry).await,
            }
        };
        // A model call may not outlive the run's wall-time budget.
        let (result, retries) = match self.time_left() {
            Some(left) => match tokio::time::timeout(left, attempt).await {
                Ok(r) => r,
                Err(_) => {
                    let why = self
                        .exhausted()
                        .unwrap_or_else(|| "wall-time budget used".into());
                    return report(Err(CallError::Budget(why)), false, Vec::new());
                }
            },
            None => attempt.await,
        };
        let mut t = lock(&self.totals);
        t.calls += 1 + retries.len() as u64;
        if let Ok(r) = &result {
            t.prompt_tokens += r.usage.prompt_tokens;
            t.completion_tokens += r.usage.completion_tokens;
            let price = match role {
                Role::Root => self.cfg.root_price,
                Role::Sub => self.cfg.sub_price,
            };
            if let Some(p) = price {
                t.cost += (r.usage.prompt_tokens as f64 * p.prompt_per_million
                    + r.usage.completion_tokens as f64 * p.completion_per_million)
                    / 1e6;
            }
        }
        drop(t);
        if let (Ok(r), Some(cache)) = (&result, &self.cache)
            && r.finish != FinishReason::Length
        {
            let _ = cache.put(&key, r);
        }
        report(result.map_err(CallError::Model), false, retries)
    }
}

/// The recursive language model: configuration, models and corpus.
pub struct Rlm {
    shared: Arc<Shared>,
    handle: Arc<dyn ContextHandle>,
}

impl std::fmt::Debug for Rlm {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Rlm")
            .field("root", &self.shared.root.id())
            .field("sub", &self.shared.sub.id())
            .finish_non_exhaustive()
    }
}

impl Rlm {
    /// A model over `handle` with root model `root` and sub-call model `sub`.
    pub fn new(
        cfg: RlmConfig,
        root: Arc<dyn LanguageModel>,
        sub: Arc<dyn LanguageModel>,
        handle: Arc<dyn ContextHandle>,
    ) -> Self {
        let cache = cfg.cache_dir.clone().map(CallCache::new);

        let shared = Arc::new(Shared {
            cfg,
            root,
            sub,
            cache,
            fanout: OnceCell::new(),
            totals: Mutex::new(Totals::default()),
            started: Instant::now(),
        });
        Self { shared, handle }
    }

    /// Usage so far, over every session of this model.
    pub fn totals(&self) -> Totals {
        self.shared.totals()
    }

    /// One sub-model completion with cache, budgets, retries and the concurrency
    /// limit (used by the heuristic strategy to compose an answer).
    pub async fn sub_complete(&self, messages: Vec<Message>) -> CallReport {
        let request = ChatRequest {
            messages,
            sampling: self.shared.cfg.sub_sampling.clone(),
        };
        self.shared.call(Role::Sub, request).await
    }

    /// Open a session for `question`: build the REPL and write the trajectory header.
    /// A trajectory that cannot be written (read-only store, full disk) is a
    /// warning in the outcome, never the end of the run.
    pub async fn start(&self, question: &str) -> Result<Session, RlmError> {
        let mut warnings = Vec::new();
        let trace = match &self.shared.cfg.trace_path {
            Some(p) => match TraceWriter::create(p) {
                Ok(w) => Some(w),
                Err(e) => {
                    warnings.push(format!("trajectory not written: {e}"));
                    None
                }
            },
            None => None,
        };
        let concurrency = self.shared.fanout().await.1;
        let session = Session::open(self.shared.clone(), self.handle.clone(), question, 0).await;
        let mut session = Session {
            trace,
            warnings,
            ..session
        };
        let header = TraceHeader {
            concurrency: Some(concurrency),
            ..session.header()
        };
        session.write_trace(&TraceLine::Header(header));
        Ok(session)
    }

    /// Start and run in one call.
    pub async fn run(&self, question: &str) -> Result<(Session, RunOutcome), RlmError> {
        let mut s = self.start(question).await?;
        let o = s.run().await?;
        Ok((s, o))
    }
}

#[derive(Debug, Default)]
struct HostState {
    final_answer: Option<(Ending, String)>,
    final_var: Option<String>,
    sub_calls: Vec<SubCallRecord>,
    read_ids: Vec<String>,
}

struct LoopHost {
    shared: Arc<Shared>,
    handle: Arc<dyn ContextHandle>,
    depth: u32,
    context_text: Option<String>,
    state: Mutex<HostState>,
}

const HOST_FUNCTIONS: &[&str] = &[
    "FINAL",
    "FINAL_VAR",
    "llm_query",
    "llm_query_batched",
    "rlm_query",
    "_context_call",
];

fn arg_str(args: &[Value], kwargs: &Map<String, Value>, i: usize, name: &str) -> Option<Value> {
    args.get(i).cloned().or_else(|| kwargs.get(name).cloned())
}

fn value_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

impl LoopHost {
    fn note_ids(&self, name: &str, args: &[Value], result: &Value) {
        let mut ids = Vec::new();
        if name == "read"
            && let Some(Value::String(id)) = args.first()
        {
            ids.push(id.clone());
        }
        if let Value::Array(items) = result {
            for it in items {
                if let Some(Value::String(id)) = it.get("id") {
                    ids.push(id.clone());
                }
            }
        }
        if !ids.is_empty() {
            let mut st = lock(&self.state);
            for id in ids {
                if !st.read_ids.contains(&id) {
                    st.read_ids.push(id);
                }
            }
        }
    }

    /// One sub-call; errors come back as a `HostError` the code can catch.
    async fn sub_query(&self, kind: &str, prompt: String) -> Result<String, HostError> {
        let shared = &self.shared;
        let model_id = shared.sub.id();
        let mut rec = SubCallRecord {
            kind: kind.to_string(),
            model: model_id,
            prompt_hash: short_hash(&prompt),
            prompt_chars: prompt.chars().count(),
            response_hash: String::new(),
            usage: Default::default(),
            latency_ms: 0,
            cached: false,
            retries: 0,
            error: None,
            child: Vec::new(),
        };
        let result = self.sub_query_inner(prompt, &mut rec).await;
        if let Err(e) = &result {
            rec.error = Some(e.message.clone());
        }
        lock(&self.state).sub_calls.push(rec);
        result
    }

    async fn sub_query_inner(
        &self,
        prompt: String,
        rec: &mut SubCallRecord,
    ) -> Result<String, HostError> {
        let shared = &self.shared;
        shared
            .take_sub_call()
            .map_err(|why| HostError::new(HostErrorKind::Runtime, why))?;
        if let Some(window) = shared.sub.context_window() {
            let tokens = shared.sub.count_tokens(&prompt) + 8;
            let reserve = shared
                .cfg
                .sub_sampling
                .max_tokens
                .map_or(512, |m| m as usize);
            if tokens + reserve > window {
                let fit = window.saturating_sub(reserve).saturating_mul(3);
                return Err(HostError::new(
                    HostErrorKind::Value,
                    format!(
                        "prompt not sent: it is about {tokens} tokens but the sub-model reads at most {window} \
                         (keeping {reserve} for its reply); send at most about {fit} characters per call, \
                         split the text and combine the answers in code"
                    ),
                ));
            }
        }
        let request = ChatRequest {
            messages: vec![Message::user(prompt)],
            sampling: shared.cfg.sub_sampling.clone(),
        };
        let report = shared.call(Role::Sub, request).await;
        rec.latency_ms = report.latency.as_millis() as u64;
        rec.cached = report.cached;
        rec.retries = report.retries.len() as u32;
        match report.result {
            Ok(r) => {
                rec.usage = r.usage;
                rec.response_hash = short_hash(&r.content);
                Ok(r.content)
            }
            Err(e) => {
                let retried = if report.retries.is_empty() {
                    String::new()
                } else {
                    let notes: Vec<String> =
                        report.retries.iter().map(|n| n.error.to_string()).collect();
                    format!(" (after {} retries: {})", notes.len(), notes.join("; "))
                };
                Err(HostError::new(
                    HostErrorKind::Runtime,
                    format!("sub-call failed: {e}{retried}"),
                ))
            }
        }
    }

    async fn rlm_query(
        &self,
        question: String,
        scope: Option<Vec<String>>,
    ) -> Result<String, HostError> {
        if self.depth + 1 > self.shared.cfg.budgets.max_depth {
            return self.sub_query("rlm_query_plain", question).await;
        }
        if let Some(why) = self.shared.exhausted() {
            return Err(HostError::new(
                HostErrorKind::Runtime,
                format!("rlm_query not started: {why}"),
            ));
        }
        let handle = match scope.filter(|s| !s.is_empty()) {
            Some(ids) => self
                .handle
                .scoped(&ids)
                .map_err(|e| HostError::new(HostErrorKind::Value, format!("bad scope: {e}")))?,
            None => self.handle.clone(),
        };
        let started = Instant::now();
        let shared = self.shared.clone();
        let depth = self.depth + 1;
        let q = question.clone();
        let child = Box::pin(async move {
            let mut s = Session::open(shared, handle, &q, depth).await;
            let o = s.run().await;
            (o, std::mem::take(&mut s.collected), s.host.state_read_ids())
        });
        let (outcome, iterations, child_ids) = child.await;
        let mut rec = SubCallRecord {
            kind: "rlm_query".to_string(),
            model: self.shared.root.id(),
            prompt_hash: short_hash(&question),
            prompt_chars: question.chars().count(),
            response_hash: String::new(),
            usage: Default::default(),
            latency_ms: started.elapsed().as_millis() as u64,
            cached: false,
            retries: 0,
            error: None,
            child: iterations,
        };
        let result = match outcome {
            Ok(RunOutcome {
                answer: Some(a), ..
            }) => {
                rec.response_hash = short_hash(&a);
                Ok(a)
            }
            Ok(o) => Err(HostError::new(
                HostErrorKind::Runtime,
                format!("the sub-run gave no answer ({})", o.stop_reason),
            )),
            Err(e) => Err(HostError::new(
                HostErrorKind::Runtime,
                format!("the sub-run failed: {e}"),
            )),
        };
        if let Err(e) = &result {
            rec.error = Some(e.message.clone());
        }
        let mut st = lock(&self.state);
        st.sub_calls.push(rec);
        for id in child_ids {
            if !st.read_ids.contains(&id) {
                st.read_ids.push(id);
            }
        }
        result
    }

    fn state_read_ids(&self) -> Vec<String> {
        lock(&self.state).read_ids.clone()
    }
}

#[async_trait]
impl ReplHost for LoopHost {
    fn has_function(&self, name: &str) -> bool {
        HOST_FUNCTIONS.contains(&name)
    }

    fn lookup(&self, name: &str) -> Option<Value> {
        match (name, &self.context_text) {
            ("context", Some(text)) => Some(Value::String(text.clone())),
            _ => None,
        }
    }

    async fn call(
        &self,
        name: &str,
        args: Vec<Value>,
        kwargs: Map<String, Value>,
    ) -> Result<Value, HostError> {
        match name {
            "FINAL" => {
                let text = arg_str(&args, &kwargs, 0, "answer")
                    .map(|v| value_text(&v))
                    .unwrap_or_default();
                lock(&self.state).final_answer = Some((Ending::Final, text));
                Ok(Value::Null)
            }
            "FINAL_VAR" => {
                let Some(v) = arg_str(&args, &kwargs, 0, "name") else {
                    return Err(HostError::new(
                        HostErrorKind::Type,
                        "FINAL_VAR takes the variable's name as a str",
                    ));
                };
                let mut st = lock(&self.state);
                match v {
                    Value::String(s) if is_identifier(s.trim()) => {
                        st.final_var = Some(s.trim().to_string())
                    }
                    // Passed the value itself: accept it as the answer.
                    other => st.final_answer = Some((Ending::FinalVar, value_text(&other))),
                }
                Ok(Value::Null)
            }
            "llm_query" => {
                let prompt = arg_str(&args, &kwargs, 0, "prompt")
                    .map(|v| value_text(&v))
                    .unwrap_or_default();
                self.sub_query("llm_query", prompt).await.map(Value::String)
            }
            "llm_query_batched" => {
                let Some(Value::Array(prompts)) = arg_str(&args, &kwargs, 0, "prompts") else {
                    return Err(HostError::new(
                        HostErrorKind::Type,
                        "llm_query_batched takes a list of str",
                    ));
                };
                let calls = prompts
                    .iter()
                    .map(|p| self.sub_query("llm_query_batched", value_text(p)));
                let results = futures::future::join_all(calls).await;
                Ok(Value::Array(
                    results
                        .into_iter()
                        .map(|r| {
                            Value::String(r.unwrap_or_else(|e| format!("Error: {}", e.message)))
                        })
                        .collect(),
                ))
            }
            "rlm_query" => {
                let question = arg_str(&args, &kwargs, 0, "question")
                    .map(|v| value_text(&v))
                    .unwrap_or_default();
                let scope = match arg_str(&args, &kwargs, 1, "scope") {
                    Some(Value::Array(ids)) => Some(ids.iter().map(value_text).collect()),
                    Some(Value::String(id)) => Some(vec![id]),
                    _ => None,
                };
                self.rlm_query(question, scope).await.map(Value::String)
            }
            "_context_call" => {
                let fname = args.first().map(value_text).unwrap_or_default();
                let fargs = match args.get(1) {
                    Some(Value::Array(a)) => a.clone(),
                    _ => Vec::new(),
                };
                let fkwargs = match args.get(2) {
                    Some(Value::Object(m)) => m.clone(),
                    _ => Map::new(),
                };
                let handle = self.handle.clone();
                let (f2, a2, k2) = (fname.clone(), fargs.clone(), fkwargs);
                let result = tokio::task::spawn_blocking(move || handle.call(&f2, &a2, &k2))
                    .await
                    .map_err(|e| {
                        HostError::new(HostErrorKind::Runtime, format!("context call failed: {e}"))
                    })?;
                match result {
                    Ok(v) => {
                        self.note_ids(&fname, &fargs, &v);
                        Ok(v)
                    }
                    Err(e) => {
                        use crate::handle::HandleError as H;
                        let kind = match &e {
                            H::BadArgument(_) => HostErrorKind::Value,
                            H::NotFound(_) => HostErrorKind::Key,
                            H::UnknownFunction(_) => HostErrorKind::Attribute,
                            _ => HostErrorKind::Runtime,
                        };
                        Err(HostError::new(kind, e.to_string()))
                    }
                }
            }
            other => Err(HostError::new(
                HostErrorKind::Runtime,
                format!("unknown host function {other}"),
            )),
        }
    }
}

/// The Python that defines the handle object, `answer`, and nothing else.
fn prelude(handle: &dyn ContextHandle, profile: Profile) -> String {
    let mut s = String::from("class _Handle:\n");
    let mut any = false;
    for f in handle.functions() {
        if !is_identifier(&f.name) {
            continue;
        }
        any = true;
        s.push_str(&format!(
            "    def {0}(self, *args, **kwargs):\n        return _context_call({0:?}, list(args), kwargs)\n",
            f.name
        ));
    }
    if !any {
        s.push_str("    pass\n");
    }
    let var = if profile == Profile::Paper {
        "kg"
    } else {
        "context"
    };
    s.push_str(&format!(
        "{var} = _Handle()\nanswer = {{\"content\": \"\", \"ready\": False}}\n"
    ));
    s
}

/// One fenced block of a reply.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Fence {
    /// The info string's first word, lower-cased (empty for a bare fence).
    label: String,
    /// The lines between the fences.
    code: String,
    /// Whether a closing fence was seen.
    closed: bool,
}

/// Every fenced block of `reply`, in order.
fn fences(reply: &str) -> Vec<Fence> {
    let mut out = Vec::new();
    let mut current: Option<(String, Vec<&str>)> = None;
    for line in reply.lines() {
        let t = line.trim();
        match current.as_mut() {
            None => {
                if let Some(info) = t.strip_prefix("```") {
                    let label = info
                        .trim()
                        .trim_start_matches('{')
                        .split(|c: char| c.is_whitespace() || c == '}' || c == ',')
                        .next()
                        .unwrap_or_default()
                        .to_lowercase();
                    current = Some((label, Vec::new()));
                }
            }
            Some((label, lines)) => {
                if t == "```" {
                    out.push(Fence {
                        label: std::mem::take(label),
                        code: lines.join("\n"),
                        closed: true,
                    });
                    current = None;
                } else {
                    lines.push(line);
                }
            }
        }
    }
    if let Some((label, lines)) = current {
        out.push(Fence {
            label,
            code: lines.join("\n"),
            closed: false,
        });
    }
    out
}

/// Labels of fences that run as code.
const CODE_LABELS: &[&str] = &["repl", "python", "py", "python3"];

/// Names whose call marks a bare fence as sandbox code.
const SANDBOX_CALLS: &[&str] = &[
    "context.",
    "kg.",
    "print(",
    "FINAL(",
    "FINAL_VAR(",
    "llm_query(",
    "llm_query_batched(",
    "rlm_query(",
    "answer[",
];

/// Whether a fence runs: a ```` ```repl ````/```` ```python ````/```` ```py ```` block,
/// or a bare ```` ``` ```` block whose text calls into the sandbox (the handle, `print`,
/// `FINAL`, the sub-model helpers, the `answer` dict). Bare fences holding prose,
/// sample output or a quoted answer stay text; fences with any other label never run.
fn runs(f: &Fence) -> bool {
    if CODE_LABELS.contains(&f.label.as_str()) {
        return true;
    }
    f.label.is_empty() && SANDBOX_CALLS.iter().any(|c| f.code.contains(c))
}

/// Extract the code of every block that runs (see the rule on [`runs`]): ```` ```repl ````,
/// ```` ```python ````/```` ```py ````, and bare fences whose text calls into the sandbox.
/// An unclosed last block counts unless `closed_only`.
pub fn extract_blocks(reply: &str, closed_only: bool) -> Vec<String> {
    fences(reply)
        .into_iter()
        .filter(|f| runs(f) && (f.closed || !closed_only))
        .map(|f| f.code)
        .filter(|b| !b.trim().is_empty())
        .collect()
}

/// The one correction sent when a reply ran no code: what it wrote, and what runs.
fn no_code_correction(reply: &str) -> String {
    let skipped: Vec<String> = fences(reply)
        .iter()
        .filter(|f| !runs(f))
        .map(|f| {
            if f.label.is_empty() {
                "a bare ``` block with no sandbox call".to_string()
            } else {
                format!("a ```{} block", f.label)
            }
        })
        .collect();
    let what = if skipped.is_empty() {
        "your reply had no code block".to_string()
    } else {
        format!("your reply had {}, which is not run", skipped.join(", "))
    };
    format!(
        "No code ran: {what}. Only code in a ```repl block runs (```python works too). \
         Write for example:\n```repl\nhits = context.search(\"your keywords\")\nprint(hits)\n```\n\
         and end the run by calling FINAL(\"answer [c12.s3]\") inside such a block; \
         text that merely mentions FINAL does nothing."
    )
}

/// Unsubstituted placeholders in an answer: `{name}` or `[snake_case_name]`.
pub fn find_placeholder(answer: &str) -> Option<String> {
    let bytes = answer.as_bytes();
    for (i, &b) in bytes.iter().enumerate() {
        let close = match b {
            b'{' => b'}',
            b'[' => b']',
            _ => continue,
        };
        let rest = &answer[i + 1..];
        let Some(end) = rest.bytes().position(|c| c == close) else {
            continue;
        };
        let inner = &rest[..end];
        let ident = !inner.is_empty()
            && inner
                .bytes()
                .all(|c| c == b'_' || c.is_ascii_alphanumeric())
            && inner
                .bytes()
                .next()
                .is_some_and(|c| c == b'_' || c.is_ascii_alphabetic());
        if !ident {
            continue;
        }
        if b == b'{' || inner.contains('_') {
            return Some(format!("{}{}{}", b as char, inner, close as char));
        }
    }
    None
}

/// One question's conversation with the root model.
pub struct Session {
    shared: Arc<Shared>,
    host: Arc<LoopHost>,
    repl: Repl,
    question: String,
    system: String,
    metadata: String,
    messages: Vec<Message>,
    depth: u32,
    iteration: u32,
    seen_output: bool,
    trace: Option<TraceWriter>,
    collected: Vec<TraceIteration>,
    last: Option<RunOutcome>,
    finished: bool,
    run_id: String,
    warnings: Vec<String>,
}

impl std::fmt::Debug for Session {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Session")
            .field("question", &self.question)
            .field("depth", &self.depth)
            .field("iteration", &self.iteration)
            .finish_non_exhaustive()
    }
}

enum TurnEnd {
    Continue,
    Done(Box<RunOutcome>),
}

fn done(o: RunOutcome) -> TurnEnd {
    TurnEnd::Done(Box::new(o))
}

impl Session {
    async fn open(
        shared: Arc<Shared>,
        handle: Arc<dyn ContextHandle>,
        question: &str,
        depth: u32,
    ) -> Self {
        let cfg = &shared.cfg;
        let profile = cfg.profile;
        let context_text = if profile == Profile::Paper {
            handle.corpus_text(cfg.max_context_chars)
        } else {
            None
        };
        let facts = PromptFacts {
            max_iterations: cfg.budgets.max_iterations,
            max_depth: cfg.budgets.max_depth,
            sub_window: shared.sub.context_window(),
            max_answer_chars: cfg.guards.max_answer_chars,
        };
        let system = cfg
            .system_prompt
            .clone()
            .unwrap_or_else(|| prompts::system_prompt(profile, &facts));
        let metadata = prompts::metadata_message(
            profile,
            &handle.metadata(),
            &handle.functions(),
            question,
            context_text.as_ref().map(|t| t.chars().count()),
        );
        let prelude_code = prelude(handle.as_ref(), profile);
        let host = Arc::new(LoopHost {
            shared: shared.clone(),
            handle,
            depth,
            context_text,
            state: Mutex::new(HostState::default()),
        });
        let mut repl = Repl::new(cfg.repl.clone());
        let _ = repl.run(&prelude_code, host.as_ref()).await;
        let started_ns = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or_default();
        let run_id = short_hash(&format!("{question}\u{0}{started_ns}\u{0}{depth}"));
        let messages = vec![
            Message::system(system.clone()),
            Message::user(metadata.clone()),
        ];
        Self {
            shared,
            host,
            repl,
            question: question.to_string(),
            system,
            metadata,
            messages,
            depth,
            iteration: 0,
            seen_output: false,
            trace: None,
            collected: Vec::new(),
            last: None,
            finished: false,
            run_id,
            warnings: Vec::new(),
        }
    }

    fn header(&self) -> TraceHeader {
        let cfg = &self.shared.cfg;
        TraceHeader {
            version: TRACE_VERSION,
            run_id: self.run_id.clone(),
            started_at: std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_secs())
                .unwrap_or_default(),
            question: self.question.clone(),
            profile: if cfg.system_prompt.is_some() {
                "custom".into()
            } else {
                cfg.profile.name().into()
            },
            root_model: self.shared.root.id(),
            sub_model: self.shared.sub.id(),
            budgets: serde_json::to_value(&cfg.budgets).unwrap_or_default(),
            system_prompt: self.system.clone(),
            metadata_message: self.metadata.clone(),
            concurrency: None,
        }
    }

    /// The conversation so far (system, metadata, turns).
    pub fn messages(&self) -> &[Message] {
        &self.messages
    }

    /// Usage totals so far (shared with sub-runs).
    pub fn totals(&self) -> Totals {
        self.shared.totals()
    }

    fn outcome(
        &self,
        answer: Option<String>,
        mut ending: Ending,
        stop_reason: impl Into<String>,
    ) -> RunOutcome {
        let mut usage = self.shared.totals();
        usage.iterations = self.iteration;
        let mut stop_reason = stop_reason.into();
        let mut answer = answer;
        // The ARCHITECTURE invariant: only executed code ends a run with an answer.
        let fallback = if self.seen_output || ending == Ending::ModelError {
            None
        } else {
            answer = None;
            if ending == Ending::BestEffort {
                ending = Ending::NoAnswer;
            }
            let why = FallbackReason::NoCodeExecuted {
                turns: self.iteration,
            };
            stop_reason = format!("{stop_reason}; {why}");
            Some(why)
        };
        RunOutcome {
            answer,
            fallback,
            ending,
            stop_reason,
            usage,
            read_ids: self.host.state_read_ids(),
            trajectory: self.trace.as_ref().map(|t| t.path().to_path_buf()),
            warnings: self.warnings.clone(),
        }
    }

    fn record(&mut self, it: TraceIteration) -> Result<(), RlmError> {
        if self.trace.is_some() {
            self.write_trace(&TraceLine::Iteration(it));
        } else {
            self.collected.push(it);
        }
        Ok(())
    }

    /// Write one trajectory line; a failure becomes a warning and stops the
    /// trajectory, never the run.
    fn write_trace(&mut self, line: &TraceLine) {
        if let Some(w) = self.trace.as_mut()
            && let Err(e) = w.write(line)
        {
            self.warnings.push(format!(
                "trajectory {} not written further: {e}",
                w.path().display()
            ));
            self.trace = None;
        }
    }

    /// Warnings so far (e.g. the trajectory could not be written).
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }

    /// Run until an answer is accepted or a budget ends the run.
    pub async fn run(&mut self) -> Result<RunOutcome, RlmError> {
        let max = self.shared.cfg.budgets.max_iterations;
        loop {
            if let Some(why) = self.shared.exhausted() {
                let o = self.outcome(None, Ending::Budget, why);
                self.last = Some(o.clone());
                return Ok(o);
            }
            if self.iteration >= max {
                self.messages.push(Message::user(prompts::LAST_TURN));
                let o = match self.turn(TurnKind::Last).await? {
                    TurnEnd::Done(o) => *o,
                    TurnEnd::Continue => self.outcome(
                        None,
                        Ending::NoAnswer,
                        format!("no accepted answer after {max} turns and the last turn"),
                    ),
                };
                self.last = Some(o.clone());
                return Ok(o);
            }
            if let TurnEnd::Done(o) = self.turn(TurnKind::Normal).await? {
                let o = *o;
                self.last = Some(o.clone());
                return Ok(o);
            }
        }
    }

    /// One more turn with `message` as the user's words (the `--strict` repair turn).
    /// A reply without code is taken as the revised answer.
    pub async fn repair(&mut self, message: &str) -> Result<RunOutcome, RlmError> {
        self.messages.push(Message::user(message));
        let o = match self.turn(TurnKind::Repair).await? {
            TurnEnd::Done(o) => *o,
            TurnEnd::Continue => {
                let prev = self.last.as_ref().and_then(|o| o.answer.clone());
                self.outcome(
                    prev,
                    Ending::BestEffort,
                    "the repair turn gave no new answer; keeping the previous one",
                )
            }
        };
        self.last = Some(o.clone());
        Ok(o)
    }

    /// Write the trajectory's final line with the caller's verification.
    pub fn finish(&mut self, verification: Value) -> Result<(), RlmError> {
        if self.finished {
            return Ok(());
        }
        self.finished = true;
        let o = match self.last.clone() {
            Some(o) => o,
            None => self.outcome(None, Ending::ModelError, "the run did not complete"),
        };
        self.write_trace(&TraceLine::Final(TraceFinal {
            answer: o.answer,
            ending: o.ending,
            stop_reason: o.stop_reason,
            verification,
            totals: o.usage,
            read_ids: o.read_ids,
        }));
        Ok(())
    }

    async fn turn(&mut self, kind: TurnKind) -> Result<TurnEnd, RlmError> {
        self.iteration += 1;
        let mut it = TraceIteration {
            iteration: self.iteration,
            depth: self.depth,
            reply: String::new(),
            reasoning: None,
            blocks: Vec::new(),
            sub_calls: Vec::new(),
            usage: Default::default(),
            latency_ms: 0,
            cached: false,
            events: Vec::new(),
            feedback: String::new(),
        };
        // A child run's turns count against the sub-call budget, so an
        // `rlm_query` fan-out or chain cannot multiply the run's model calls.
        if self.depth > 0
            && let Err(why) = self.shared.take_sub_call()
        {
            it.events.push(TraceEvent {
                kind: "budget".into(),
                message: why.clone(),
            });
            self.record(it)?;
            return Ok(done(self.outcome(None, Ending::Budget, why)));
        }
        let request = ChatRequest {
            messages: self.messages.clone(),
            sampling: self.shared.cfg.root_sampling.clone(),
        };
        let report = self.shared.call(Role::Root, request).await;
        it.latency_ms = report.latency.as_millis() as u64;
        it.cached = report.cached;
        for n in &report.retries {
            it.events.push(TraceEvent {
                kind: "retry".into(),
                message: format!("{} (waited {:.2}s)", n.error, n.waited.as_secs_f64()),
            });
        }
        let resp = match report.result {
            Ok(r) => r,
            Err(CallError::Budget(why)) => {
                it.events.push(TraceEvent {
                    kind: "budget".into(),
                    message: why.clone(),
                });
                self.record(it)?;
                return Ok(done(self.stopped_by_budget(why).await));
            }
            Err(CallError::Model(e)) => {
                it.events.push(TraceEvent {
                    kind: "model_error".into(),
                    message: e.to_string(),
                });
                self.record(it)?;
                if self.depth > 0 || self.iteration <= 1 {
                    // Nothing done yet (or a child run): the caller reports it.
                    let o = self.outcome(None, Ending::ModelError, e.to_string());
                    self.last = Some(o);
                    return Err(RlmError::Model(e));
                }
                return Ok(done(self.root_failed(&e).await));
            }
        };
        it.reply = resp.content.clone();
        it.reasoning = resp.reasoning.clone();
        it.usage = resp.usage;
        let truncated = resp.finish == FinishReason::Length;
        if truncated {
            it.events.push(TraceEvent {
                kind: "truncated_reply".into(),
                message: "the reply hit the token limit; its unclosed code block was not run"
                    .into(),
            });
        }
        self.messages.push(Message::assistant(resp.content.clone()));

        let blocks = extract_blocks(&resp.content, truncated);
        let mut feedback = Vec::new();
        let mut accepted: Option<(Ending, String)> = None;
        let seen_before = self.seen_output;
        for (i, code) in blocks.iter().enumerate() {
            // The wall-time (and other) budgets hold between blocks too.
            if let Some(why) = self.shared.exhausted() {
                it.events.push(TraceEvent {
                    kind: "budget".into(),
                    message: format!("{why}; {} block(s) not run", blocks.len() - i),
                });
                it.sub_calls = std::mem::take(&mut lock(&self.host.state).sub_calls);
                if !it.blocks.is_empty() {
                    self.seen_output = true;
                }
                self.record(it)?;
                return Ok(done(self.stopped_by_budget(why).await));
            }
            {
                let mut st = lock(&self.host.state);
                st.final_answer = None;
                st.final_var = None;
            }
            let res = self.repl.run(code, self.host.as_ref()).await;
            let rendered = res.render();
            it.blocks.push(TraceBlock {
                code: code.clone(),
                output: res.output.clone(),
                cut_chars: res.cut_chars,
                error: res.error.clone(),
                limit: res.limit,
                elapsed_ms: res.elapsed.as_millis() as u64,
            });
            let label = if blocks.len() > 1 {
                format!(" (block {})", i + 1)
            } else {
                String::new()
            };
            feedback.push(format!("REPL output{label}:\n{rendered}"));
            let candidate = self.candidate().await;
            match candidate {
                Err(msg) => {
                    it.events.push(TraceEvent {
                        kind: "guard".into(),
                        message: msg.clone(),
                    });
                    feedback.push(msg);
                }
                Ok(None) => {}
                Ok(Some((ending, text))) => {
                    let require = self.shared.cfg.guards.require_repl && kind == TurnKind::Normal;
                    match self.check_guards(&text, require && !seen_before) {
                        Ok(()) => {
                            accepted = Some((ending, text));
                            break;
                        }
                        Err(msg) => {
                            it.events.push(TraceEvent {
                                kind: "guard".into(),
                                message: msg.clone(),
                            });
                            feedback.push(format!("Answer rejected: {msg}"));
                            self.reset_answer_dict().await;
                        }
                    }
                }
            }
        }
        if !it.blocks.is_empty() {
            self.seen_output = true;
        }
        it.sub_calls = std::mem::take(&mut lock(&self.host.state).sub_calls);

        if let Some((ending, text)) = accepted {
            self.record(it)?;
            let why = match ending {
                Ending::Final => "FINAL called",
                Ending::FinalVar => "FINAL_VAR called",
                Ending::AnswerDict => "answer[\"ready\"] set",
                _ => "answer accepted",
            };
            return Ok(done(self.outcome(Some(text), ending, why)));
        }
        if blocks.is_empty() {
            it.events.push(TraceEvent {
                kind: "no_code".into(),
                message: "the reply had no block that runs".into(),
            });
            let prose = resp.content.trim().to_string();
            if kind != TurnKind::Normal && !prose.is_empty() {
                match self.check_guards(&prose, false) {
                    Ok(()) => {
                        self.record(it)?;
                        let why = if kind == TurnKind::Last {
                            "turn budget used; answer taken from the last turn's prose"
                        } else {
                            "repair turn answered in prose"
                        };
                        return Ok(done(self.outcome(Some(prose), Ending::BestEffort, why)));
                    }
                    Err(msg) => it.events.push(TraceEvent {
                        kind: "guard".into(),
                        message: msg,
                    }),
                }
            }
            feedback.push(no_code_correction(&resp.content));
        }
        if truncated {
            feedback.push(
                "Your reply was cut off at the token limit; write shorter replies.".to_string(),
            );
        }
        let remaining = self
            .shared
            .cfg
            .budgets
            .max_iterations
            .saturating_sub(self.iteration);
        if kind == TurnKind::Normal && remaining > 0 && remaining <= 2 {
            feedback.push(format!("{remaining} turn(s) left."));
        }
        let fb = feedback.join("\n\n");
        it.feedback = fb.clone();
        self.record(it)?;
        if kind == TurnKind::Normal {
            self.messages.push(Message::user(fb));
        }
        Ok(TurnEnd::Continue)
    }

    /// The best answer the run has so far without an accepted one: the `answer`
    /// dict's content when it is filled in and passes the guards.
    async fn best_so_far(&mut self) -> Option<String> {
        let v = self
            .repl
            .eval("str(answer.get('content') or '') if isinstance(answer, dict) else ''")
            .await?;
        let text = value_text(&v);
        (!text.trim().is_empty() && self.check_guards(&text, false).is_ok()).then_some(text)
    }

    /// The outcome when a budget stops the run: the best answer so far, if any.
    async fn stopped_by_budget(&mut self, why: String) -> RunOutcome {
        match self.best_so_far().await {
            Some(best) => self.outcome(
                Some(best),
                Ending::Budget,
                format!("{why}; returning the best answer so far (answer[\"content\"])"),
            ),
            None => self.outcome(None, Ending::Budget, why),
        }
    }

    /// The outcome when the root model fails for good after some turns: the best
    /// answer so far, or a fallback reason so the caller answers another way.
    async fn root_failed(&mut self, e: &ModelError) -> RunOutcome {
        let turns = self.iteration;
        match self.best_so_far().await {
            Some(best) => self.outcome(
                Some(best),
                Ending::ModelError,
                format!(
                    "the root model failed at turn {turns} ({e}); returning the best answer so far (answer[\"content\"])"
                ),
            ),
            None => {
                let why = FallbackReason::RootModelFailed {
                    turns,
                    error: e.to_string(),
                };
                let mut o = self.outcome(None, Ending::ModelError, why.to_string());
                if o.fallback.is_none() {
                    o.fallback = Some(why);
                }
                o
            }
        }
    }

    /// The answer the last block produced, if any: Err(message) when it was malformed.
    async fn candidate(&mut self) -> Result<Option<(Ending, String)>, String> {
        let (fin, var) = {
            let mut st = lock(&self.host.state);
            (st.final_answer.take(), st.final_var.take())
        };
        if let Some(f) = fin {
            return Ok(Some(f));
        }
        if let Some(name) = var {
            return match self.repl.eval_str(&name).await {
                Some(text) => Ok(Some((Ending::FinalVar, text))),
                None => Err(format!(
                    "FINAL_VAR({name:?}): no variable named {name} exists; assign it first"
                )),
            };
        }
        let ready = self.repl.eval("answer").await;
        if let Some(Value::Object(m)) = ready
            && m.get("ready").is_some_and(|r| r == &Value::Bool(true))
        {
            let text = m.get("content").map(value_text).unwrap_or_default();
            return Ok(Some((Ending::AnswerDict, text)));
        }
        Ok(None)
    }

    async fn reset_answer_dict(&mut self) {
        let _ = self
            .repl
            .eval("answer.update({'ready': False}) if isinstance(answer, dict) else None")
            .await;
    }

    fn check_guards(&self, text: &str, require_repl: bool) -> Result<(), String> {
        let g = &self.shared.cfg.guards;
        if require_repl {
            return Err(
                "an answer is only accepted after you have seen REPL output; explore first"
                    .to_string(),
            );
        }
        if text.trim().is_empty() {
            return Err("the answer is empty".to_string());
        }
        let n = text.chars().count();
        if n > g.max_answer_chars {
            return Err(format!(
                "the answer is {n} characters, over the limit of {}; give the answer, not the material",
                g.max_answer_chars
            ));
        }
        if g.reject_placeholders
            && let Some(p) = find_placeholder(text)
        {
            return Err(format!(
                "the answer contains the unsubstituted placeholder {p}; put the real value in"
            ));
        }
        Ok(())
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum TurnKind {
    Normal,
    Last,
    Repair,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_in_order_and_only_code() {
        let reply = "Let me look.\n```repl\nx = 1\nprint(x)\n```\nThen FINAL(x) maybe.\n```python\nprint(2)\n```\n```text\nnot code\n```\n";
        assert_eq!(
            extract_blocks(reply, false),
            vec!["x = 1\nprint(x)".to_string(), "print(2)".to_string()]
        );
        assert_eq!(
            extract_blocks("```repl\nprint(1)", false),
            vec!["print(1)".to_string()]
        );
        assert!(extract_blocks("```repl\nprint(1)", true).is_empty());
        assert!(extract_blocks("FINAL(42)", false).is_empty());
    }

    #[test]
    fn bare_fences_run_only_when_they_call_the_sandbox() {
        let reply = "Plan:\n```\nhits = context.search('publisher')\nprint(hits)\n```\n```\nThe answer is Warsaw.\n```\n```py\nFINAL('x')\n```\n```json\n{\"print(\": 1}\n```\n";
        assert_eq!(
            extract_blocks(reply, false),
            vec![
                "hits = context.search('publisher')\nprint(hits)".to_string(),
                "FINAL('x')".to_string()
            ]
        );
        assert_eq!(
            extract_blocks("```Python title=\"a\"\nprint(1)\n```", false),
            vec!["print(1)".to_string()]
        );
    }

    #[test]
    fn the_correction_names_the_fences_that_did_not_run() {
        let msg = no_code_correction("```text\nWarsaw\n```\n```\nWarsaw [c1.s1]\n```");
        assert!(msg.contains("a ```text block"), "{msg}");
        assert!(msg.contains("bare ``` block"), "{msg}");
        assert!(msg.contains("```repl"), "{msg}");
        assert!(no_code_correction("just prose").contains("no code block"));
    }

    #[test]
    fn placeholders() {
        assert_eq!(
            find_placeholder("Label: [least_common_status]"),
            Some("[least_common_status]".into())
        );
        assert_eq!(find_placeholder("It is {answer}."), Some("{answer}".into()));
        assert_eq!(find_placeholder("Paris is the capital [c12.s3]."), None);
        assert_eq!(find_placeholder("See [c12] and [c4.s1-s2]."), None);
        assert_eq!(find_placeholder("A set {1, 2}"), None);
    }
}
