//! The sandboxed Python REPL (SPEC §5.1), built on the `monty` interpreter.
//!
//! A [`Repl`] keeps one interpreter session alive across code blocks: variables,
//! functions and imports persist. Each [`Repl::run`] feeds one block and drives it
//! to completion, answering every suspension itself:
//!
//! - a call to a host function (anything [`ReplHost::has_function`] claims) is
//!   answered by [`ReplHost::call`], awaited on tokio, so host work such as model
//!   calls can run concurrently while the interpreter waits;
//! - a name the interpreter cannot resolve is offered to [`ReplHost::lookup`];
//! - every OS-level request (files, environment, clock, sleep, randomness from the OS)
//!   is refused with a `PermissionError` the model can read, and imports of modules the
//!   sandbox does not provide raise `ModuleNotFoundError`.
//!
//! Interpreter work runs on tokio's blocking pool. Per-block limits (wall time
//! excluding host calls, memory preflight, recursion depth, host calls per block, and
//! captured output) end the block with a readable error; the session stays usable.
//! Output is captured and cut to [`ReplLimits::max_output_chars`] keeping head and
//! tail, with a note of what was cut.

use std::time::{Duration, Instant};

use async_trait::async_trait;
use monty::{MontyRepl, ReplProgress, ReplStartError};
use monty_types::{
    CompileOptions, DateTimeSource, ExcType, ExtFunctionResult, MontyException, MontyObject,
    NameLookupResult, NamedValues, OsFunctionCall, OsPolicy, PrintWriter, RandomSeed, RandomStart,
    ResourceLimits, ResourceTracker, SleepMode,
};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::convert::{Budget, TooLarge, from_json, to_json_bounded};
use crate::memory::{self, Ledger};

/// Per-block limits of the REPL.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ReplLimits {
    /// Interpreter time per block, not counting time spent in host calls.
    pub max_block_time: Duration,
    /// Memory budget in bytes: what the session's interpreter holds, counted
    /// across blocks (see `memory.rs`); single allocations that would cross it
    /// (e.g. `"a" * 10**10`) raise `MemoryError` before they happen.
    pub max_memory: usize,
    /// Maximum Python call depth.
    pub max_recursion: usize,
    /// Host calls (functions, name lookups, refused OS calls) per block.
    pub max_host_calls: usize,
    /// Characters of output returned to the model; the middle is cut beyond this.
    pub max_output_chars: usize,
    /// Bytes of output the interpreter may produce per block before it is stopped.
    pub max_output_bytes: usize,
}

impl Default for ReplLimits {
    fn default() -> Self {
        Self {
            max_block_time: Duration::from_secs(10),
            max_memory: 512 * 1024 * 1024,
            max_recursion: 200,
            max_host_calls: 1000,
            max_output_chars: 20_000,
            max_output_bytes: 8 * 1024 * 1024,
        }
    }
}

/// An error a host function raises inside the sandbox.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostError {
    /// The Python exception type raised.
    pub kind: HostErrorKind,
    /// Its message.
    pub message: String,
}

impl HostError {
    /// A new error.
    pub fn new(kind: HostErrorKind, message: impl Into<String>) -> Self {
        Self {
            kind,
            message: message.into(),
        }
    }
}

/// The Python exception class a [`HostError`] is raised as.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HostErrorKind {
    /// `ValueError`.
    Value,
    /// `TypeError`.
    Type,
    /// `KeyError`.
    Key,
    /// `AttributeError`.
    Attribute,
    /// `RuntimeError`.
    Runtime,
    /// `PermissionError`.
    Permission,
}

impl HostErrorKind {
    fn exc_type(self) -> ExcType {
        match self {
            Self::Value => ExcType::ValueError,
            Self::Type => ExcType::TypeError,
            Self::Key => ExcType::KeyError,
            Self::Attribute => ExcType::AttributeError,
            Self::Runtime => ExcType::RuntimeError,
            Self::Permission => ExcType::PermissionError,
        }
    }
}

/// What the REPL asks of its host.
#[async_trait]
pub trait ReplHost: Send + Sync {
    /// Whether `name` is a host function (resolved when the code names it).
    fn has_function(&self, name: &str) -> bool;

    /// A value for a global name the interpreter does not know (e.g. `context` as text).
    fn lookup(&self, _name: &str) -> Option<Value> {
        None
    }

    /// Run host function `name`.
    async fn call(
        &self,
        name: &str,
        args: Vec<Value>,
        kwargs: Map<String, Value>,
    ) -> Result<Value, HostError>;
}

/// A host with no functions (plain Python).
#[derive(Debug, Default, Clone, Copy)]
pub struct NoHost;

#[async_trait]
impl ReplHost for NoHost {
    fn has_function(&self, _name: &str) -> bool {
        false
    }
    async fn call(
        &self,
        name: &str,
        _: Vec<Value>,
        _: Map<String, Value>,
    ) -> Result<Value, HostError> {
        Err(HostError::new(
            HostErrorKind::Runtime,
            format!("no host function {name}"),
        ))
    }
}

/// Which limit ended a block.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LimitHit {
    /// The block ran out of interpreter time.
    Time,
    /// The block asked for more memory than allowed.
    Memory,
    /// The block recursed too deeply.
    Recursion,
    /// The block made too many host calls.
    HostCalls,
    /// The block printed more than allowed.
    Output,
}

/// The result of one block.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BlockResult {
    /// Captured output, cut to the configured size.
    pub output: String,
    /// Characters cut out of the middle of the output (0 when nothing was cut).
    pub cut_chars: usize,
    /// The Python error (traceback text) that ended the block, if any.
    pub error: Option<String>,
    /// The limit that ended the block, if one did.
    pub limit: Option<LimitHit>,
    /// Wall time of the block including host calls.
    pub elapsed: Duration,
    /// Number of host calls answered.
    pub host_calls: usize,
}

impl BlockResult {
    /// The text shown to the model: output, then the error if any.
    pub fn render(&self) -> String {
        let mut s = self.output.clone();
        if let Some(err) = &self.error {
            if !s.is_empty() && !s.ends_with('\n') {
                s.push('\n');
            }
            s.push_str(err);
        }
        if s.trim().is_empty() {
            s = "(no output)".to_string();
        }
        s
    }
}

/// A persistent, sandboxed Python session.
pub struct Repl {
    inner: Option<MontyRepl>,
    limits: ReplLimits,
    ledger: Ledger,
}

impl Drop for Repl {
    fn drop(&mut self) {
        self.free_session();
    }
}

impl std::fmt::Debug for Repl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Repl")
            .field("limits", &self.limits)
            .finish_non_exhaustive()
    }
}

type Step = Result<ReplProgress, Box<ReplStartError>>;

/// Sessions bigger than this are not snapshotted before a block (a lost
/// step then resets the REPL instead of restoring it).
const SNAPSHOT_MAX_BYTES: usize = 32 * 1024 * 1024;

/// Blocks stopped inside uninterruptible operations after which the REPL
/// refuses to run more in this process (each leaves a sleeping thread and,
/// for memory, what it allocated).
const MAX_ABANDONED: u64 = 4;

fn new_session(limits: &ReplLimits) -> MontyRepl {
    configure(
        MontyRepl::new(
            "repl.py",
            ResourceTracker::new(resource_limits(limits)),
            CompileOptions::default(),
        ),
        limits,
    )
}

fn resource_limits(limits: &ReplLimits) -> ResourceLimits {
    ResourceLimits::default()
        .max_feed_duration(limits.max_block_time)
        .max_memory(limits.max_memory)
        .max_recursion_depth(limits.max_recursion)
        .max_suspensions(limits.max_host_calls)
}

/// A session with this REPL's limits and OS policy (new or restored).
fn configure(repl: MontyRepl, limits: &ReplLimits) -> MontyRepl {
    let policy = OsPolicy {
        datetime: DateTimeSource::CallHost,
        sleep: SleepMode::CallHost,
        random_start: RandomStart::Seed(RandomSeed::Str("rlmkg".to_string())),
        ..OsPolicy::default()
    };
    let mut repl = repl.with_os_policy(policy);
    *repl.tracker_mut() = ResourceTracker::new(resource_limits(limits));
    repl
}

impl Repl {
    /// A fresh session with the given limits.
    pub fn new(limits: ReplLimits) -> Self {
        let inner = Some(new_session(&limits));
        Self {
            inner,
            limits,
            ledger: Ledger::default(),
        }
    }

    /// After a step was lost ([`StepLost`]): the session from `snapshot` (as
    /// it was before the block) or a fresh one; the error to report and the
    /// limit it hit.
    fn recover(&mut self, lost: StepLost, snapshot: Option<Vec<u8>>) -> (String, Option<LimitHit>) {
        let state = if snapshot.is_some_and(|b| self.restore(&b)) {
            "the REPL is back as it was before this block"
        } else {
            self.reset();
            "the REPL was reset and its variables are gone"
        };
        match lost {
            StepLost::Failed(msg) => (format!("InternalError: {msg}; {state}"), None),
            StepLost::Memory => (
                format!(
                    "MemoryError: one operation kept allocating past the memory limit ({} MB) \
                     where it could not be stopped (printing or converting a value that \
                     shares parts many times?); {state}",
                    self.limits.max_memory / (1024 * 1024)
                ),
                Some(LimitHit::Memory),
            ),
            StepLost::Time(t) => (
                format!(
                    "TimeoutError: one operation ran past {:.0} s where it could not be \
                     stopped (a regular expression that backtracks on a long text?); {state}",
                    t.as_secs_f64()
                ),
                Some(LimitHit::Time),
            ),
        }
    }

    /// Load the session from a snapshot taken by [`monty::dump`]; false (and
    /// nothing changed) when it does not load.
    fn restore(&mut self, bytes: &[u8]) -> bool {
        let mut ledger = Ledger::default();
        let loaded = ledger.metered(|| monty::Dump::load(bytes));
        match loaded {
            Ok(monty::Dump {
                state: monty::Session::Idle(repl),
                ..
            }) => {
                self.free_session();
                self.inner = Some(configure(*repl, &self.limits));
                self.ledger = ledger;
                true
            }
            Ok(other) => {
                ledger.metered(|| drop(other));
                false
            }
            Err(_) => false,
        }
    }

    /// Free the session. Under the step turn, so another session's step does
    /// not count this session's memory coming back as its own.
    fn free_session(&mut self) {
        if let Some(old) = self.inner.take() {
            self.ledger.metered(|| drop(old));
        }
    }

    /// A fresh interpreter: everything the old one held is gone.
    fn reset(&mut self) {
        self.free_session();
        self.inner = Some(new_session(&self.limits));
        self.ledger = Ledger::default();
    }

    /// The limits in force.
    pub fn limits(&self) -> &ReplLimits {
        &self.limits
    }

    /// Run one block of Python to completion, answering host calls through `host`.
    pub async fn run(&mut self, code: &str, host: &dyn ReplHost) -> BlockResult {
        let started = Instant::now();
        let repl = match self.inner.take() {
            Some(r) => r,
            None => {
                self.ledger = Ledger::default();
                new_session(&self.limits)
            }
        };
        let off = if !memory::counting() {
            Some(
                "it does not count memory (a process that said it would not run the REPL \
                 stopped counting), so the memory limit could not hold"
                    .to_string(),
            )
        } else if memory::abandoned() >= MAX_ABANDONED {
            Some(format!(
                "{MAX_ABANDONED} blocks were stopped inside operations that could not be \
                 interrupted"
            ))
        } else {
            None
        };
        if let Some(why) = off {
            self.inner = Some(repl);
            return BlockResult {
                output: String::new(),
                cut_chars: 0,
                error: Some(format!(
                    "RuntimeError: the REPL is off in this process: {why}"
                )),
                limit: None,
                elapsed: started.elapsed(),
                host_calls: 0,
            };
        }
        // The session before the block, to go back to if a step is lost.
        let mut snapshot = (self.ledger.held() <= SNAPSHOT_MAX_BYTES)
            .then(|| monty::dump("repl.py", None, &[], monty::SessionRef::Idle(&repl)).ok())
            .flatten();
        let cap = self.limits.max_output_bytes;
        let code = code.to_string();
        let mut out = String::new();
        let mut step = blocking(&mut self.ledger, &self.limits, out, move |buf| {
            repl.feed_start(
                &code,
                NamedValues::new(),
                PrintWriter::CollectString(buf, Some(cap)),
            )
        })
        .await;
        let mut host_calls = 0usize;
        let mut error = None;
        let mut limit = None;
        loop {
            let (progress, buf) = match step {
                Ok(v) => v,
                Err(lost) => {
                    // The step is gone with its session: carry on from the
                    // session as it was before the block.
                    let (message, hit) = self.recover(lost, snapshot.take());
                    error = Some(message);
                    limit = hit;
                    out = String::new();
                    break;
                }
            };
            out = buf;
            let progress = match progress {
                Ok(p) => p,
                Err(e) => {
                    let ReplStartError { repl, error: exc } = *e;
                    self.inner = Some(repl);
                    limit = classify_limit(&exc);
                    error = Some(render_exception(&exc, self.limits.max_output_chars));
                    // The exception was built by the interpreter: its bytes go back.
                    self.ledger.metered(|| drop(exc));
                    break;
                }
            };
            if !matches!(progress, ReplProgress::Complete { .. }) {
                host_calls += 1;
                if host_calls > self.limits.max_host_calls {
                    let exc = MontyException::new(
                        ExcType::RuntimeError,
                        Some(format!(
                            "too many host calls in one block (limit {}); use llm_query_batched \
                             or fewer calls per block",
                            self.limits.max_host_calls
                        )),
                    );
                    limit = Some(LimitHit::HostCalls);
                    step = blocking(&mut self.ledger, &self.limits, out, move |buf| {
                        abort(progress, exc, buf, cap)
                    })
                    .await;
                    continue;
                }
            }
            match progress {
                ReplProgress::Complete { repl, value } => {
                    self.inner = Some(repl);
                    // A block that ends in an expression shows its value, as
                    // Python's REPL does: small models write
                    // `context.search(…)` without `print`.
                    if value != MontyObject::none() {
                        let shown = value.py_repr();
                        let room = cap.saturating_sub(out.len());
                        if room > 1 {
                            if !out.is_empty() && !out.ends_with('\n') {
                                out.push('\n');
                            }
                            let mut end = shown.len().min(room - 1);
                            while !shown.is_char_boundary(end) {
                                end -= 1;
                            }
                            out.push_str(&shown[..end]);
                            out.push('\n');
                        }
                    }
                    self.ledger.metered(|| drop(value));
                    break;
                }
                ReplProgress::FunctionCall(call) => {
                    let name = call.function_name.clone();
                    let result = if host.has_function(&name) {
                        match call_arguments(&call.args) {
                            Err(e) => ExtFunctionResult::Error(MontyException::new(
                                ExcType::ValueError,
                                Some(format!("{name}(): {e}")),
                            )),
                            Ok((args, kwargs)) => match host.call(&name, args, kwargs).await {
                                Ok(v) => ExtFunctionResult::Return(from_json(&v)),
                                Err(e) => ExtFunctionResult::Error(MontyException::new(
                                    e.kind.exc_type(),
                                    Some(e.message),
                                )),
                            },
                        }
                    } else {
                        ExtFunctionResult::NotFound(name)
                    };
                    step = blocking(&mut self.ledger, &self.limits, out, move |buf| {
                        call.resume(result, PrintWriter::CollectString(buf, Some(cap)))
                    })
                    .await;
                }
                ReplProgress::NameLookup(lookup) => {
                    let result = if lookup.object_id().is_some() {
                        NameLookupResult::Undefined
                    } else if host.has_function(&lookup.name) {
                        NameLookupResult::Value(MontyObject::function(lookup.name.clone(), None))
                    } else if let Some(v) = host.lookup(&lookup.name) {
                        NameLookupResult::Value(from_json(&v))
                    } else {
                        NameLookupResult::Undefined
                    };
                    step = blocking(&mut self.ledger, &self.limits, out, move |buf| {
                        lookup.resume(result, PrintWriter::CollectString(buf, Some(cap)))
                    })
                    .await;
                }
                ReplProgress::OsCall(call) => {
                    let result = match &call.function_call {
                        OsFunctionCall::Import(module) => {
                            ExtFunctionResult::Error(MontyException::new(
                                ExcType::ModuleNotFoundError,
                                Some(format!(
                                    "No module named '{module}' (this sandbox provides only its built-in \
                                 modules such as re, json, math, collections)"
                                )),
                            ))
                        }
                        other => ExtFunctionResult::Error(MontyException::new(
                            ExcType::PermissionError,
                            Some(format!(
                                "{} is not available in this sandbox: no files, environment, network, \
                                 processes or clock",
                                other.name()
                            )),
                        )),
                    };
                    step = blocking(&mut self.ledger, &self.limits, out, move |buf| {
                        call.resume(result, PrintWriter::CollectString(buf, Some(cap)))
                    })
                    .await;
                }
                ReplProgress::ResolveFutures(_) => {
                    let exc = MontyException::new(
                        ExcType::RuntimeError,
                        Some("async code is not supported in this REPL".to_string()),
                    );
                    step = blocking(&mut self.ledger, &self.limits, out, move |buf| {
                        abort(progress, exc, buf, cap)
                    })
                    .await;
                }
            }
        }
        // The output buffer leaves the session here and is freed by the host.
        self.ledger.release(out.capacity());
        if limit.is_none() && out.len() >= cap {
            limit = Some(LimitHit::Output);
        }
        let (output, cut_chars) = truncate_middle(&out, self.limits.max_output_chars);
        BlockResult {
            output,
            cut_chars,
            error,
            limit,
            elapsed: started.elapsed(),
            host_calls,
        }
    }

    /// Evaluate an expression in the session and return its value as JSON
    /// (`None` if it raised or is too large to convert). Host calls are not
    /// answered (they fail).
    pub async fn eval(&mut self, expr: &str) -> Option<Value> {
        self.eval_checked(expr).await.ok()
    }

    /// [`Repl::eval`] saying why there is no value: the exception, or that the value
    /// is over the conversion budget (shared sub-objects count once per reference).
    pub async fn eval_checked(&mut self, expr: &str) -> Result<Value, String> {
        let repl = match self.inner.take() {
            Some(r) => r,
            None => {
                self.ledger = Ledger::default();
                new_session(&self.limits)
            }
        };
        let expr = expr.to_string();
        let max_chars = self.limits.max_output_chars;
        let joined = blocking(&mut self.ledger, &self.limits, String::new(), move |sink| {
            let mut repl = repl;
            let r = repl.feed_run(
                &expr,
                NamedValues::new(),
                PrintWriter::CollectString(sink, Some(1 << 20)),
            );
            let r = match r {
                Ok(v) => to_json_bounded(v.as_ref(), Budget::HOST_CALL)
                    .map_err(|e: TooLarge| e.to_string()),
                Err(e) => Err(render_exception(&e, max_chars)),
            };
            (repl, r)
        })
        .await;
        match joined {
            Ok(((repl, r), sink)) => {
                self.ledger.release(sink.capacity());
                self.inner = Some(repl);
                r
            }
            Err(lost) => {
                let (message, _) = self.recover(lost, None);
                Err(message)
            }
        }
    }

    /// Evaluate an expression and return `str(value)` as Python would print it.
    pub async fn eval_str(&mut self, expr: &str) -> Option<String> {
        match self.eval(&format!("str({expr})")).await? {
            Value::String(s) => Some(s),
            other => Some(other.to_string()),
        }
    }
}

fn abort(progress: ReplProgress, exc: MontyException, buf: &mut String, cap: usize) -> Step {
    let print = PrintWriter::CollectString(buf, Some(cap));
    match progress {
        ReplProgress::FunctionCall(c) => c.abort(exc, print),
        ReplProgress::OsCall(c) => c.abort(exc, print),
        ReplProgress::NameLookup(c) => c.abort(exc, print),
        ReplProgress::ResolveFutures(c) => c.abort(exc, print),
        done @ ReplProgress::Complete { .. } => Ok(done),
    }
}

/// The arguments of a host call as JSON, within [`Budget::HOST_CALL`] for all of them.
fn call_arguments(
    args: &monty_types::CallArgs,
) -> Result<(Vec<Value>, Map<String, Value>), TooLarge> {
    // What one argument took comes off what the next may use.
    let mut budget = Budget::HOST_CALL;
    let mut out = Vec::new();
    for a in args.args() {
        let v = to_json_bounded(a, budget)?;
        budget.bytes = budget.bytes.saturating_sub(json_bytes(&v));
        out.push(v);
    }
    let mut kw = Map::new();
    for (k, v) in args.kwargs() {
        let key = k.as_str().map_or_else(|| k.py_repr(), str::to_string);
        let v = to_json_bounded(v, budget)?;
        budget.bytes = budget.bytes.saturating_sub(json_bytes(&v));
        kw.insert(key, v);
    }
    Ok((out, kw))
}

/// Bytes of text in a JSON value (strings and keys).
fn json_bytes(v: &Value) -> usize {
    match v {
        Value::String(s) => s.len(),
        Value::Array(items) => items.iter().map(json_bytes).sum(),
        Value::Object(m) => m.iter().map(|(k, v)| k.len() + json_bytes(v)).sum(),
        _ => 0,
    }
}

/// Why an interpreter step gave no result.
#[derive(Debug)]
enum StepLost {
    /// The interpreter task failed.
    Failed(String),
    /// Stopped at the memory ceiling inside one native operation.
    Memory,
    /// Ran past the watchdog time inside one native operation.
    Time(Duration),
}

/// How long one step may run before the REPL gives it up: monty raises its
/// own `TimeoutError` at `max_block_time` wherever it can check, so only a
/// native operation with no checkpoint gets this far.
fn watchdog(max_block_time: Duration) -> Duration {
    max_block_time
        .saturating_add(max_block_time / 2)
        .saturating_add(Duration::from_secs(1))
}

/// Run one interpreter step on the blocking pool, metered against the session's
/// memory ledger, carrying the output buffer along. A step stopped at its
/// memory ceiling, or running longer than [`watchdog`] of `max_block_time`,
/// is given up: its session is lost ([`StepLost`]).
async fn blocking<T, F>(
    ledger: &mut Ledger,
    limits: &ReplLimits,
    buf: String,
    f: F,
) -> Result<(T, String), StepLost>
where
    T: Send + 'static,
    F: FnOnce(&mut String) -> T + Send + 'static,
{
    let mut l = *ledger;
    let id = memory::new_step();
    let max_memory = limits.max_memory;
    let patience = watchdog(limits.max_block_time);
    // On a step thread (`steps.rs`), not tokio's blocking pool.
    let (done, mut task) = tokio::sync::oneshot::channel();
    crate::steps::spawn(move || {
        let mut buf = buf;
        let step = l.metered_within(id, Some(max_memory), Some(patience), || f(&mut buf));
        let _ = done.send((step, buf, l));
    })
    .map_err(|e| StepLost::Failed(format!("could not start the interpreter thread: {e}")))?;
    loop {
        tokio::select! {
            joined = &mut task => {
                let (step, buf, l) = joined
                    .map_err(|_| StepLost::Failed("the interpreter thread failed".to_string()))?;
                *ledger = l;
                return Ok((step, buf));
            }
            () = tokio::time::sleep(Duration::from_millis(20)) => {
                match memory::state(id) {
                    memory::StepState::Stopped => return Err(StepLost::Memory),
                    memory::StepState::Expired => return Err(StepLost::Time(patience)),
                    memory::StepState::Live => {}
                }
            }
        }
    }
}

fn classify_limit(exc: &MontyException) -> Option<LimitHit> {
    let msg = exc.message().unwrap_or_default();
    match exc.exc_type() {
        ExcType::RecursionError => Some(LimitHit::Recursion),
        ExcType::MemoryError => Some(LimitHit::Memory),
        ExcType::TimeoutError => Some(LimitHit::Time),
        _ if msg.contains("time limit exceeded") => Some(LimitHit::Time),
        _ => None,
    }
}

/// The traceback text of `exc`, cut like output to `max_chars` (a model can raise
/// an exception carrying megabytes, and the error is sent back every turn).
fn render_exception(exc: &MontyException, max_chars: usize) -> String {
    let (mut s, _) = truncate_middle(&exc.to_string(), max_chars);
    match classify_limit(exc) {
        Some(LimitHit::Time) => s.push_str(
            "\n(the block ran out of time; variables assigned before this point are kept)",
        ),
        Some(LimitHit::Memory) => {
            s.push_str("\n(the block hit the memory limit; work on smaller pieces)")
        }
        _ => {}
    }
    s
}

/// Keep the head and tail of `text` within `max` characters, announcing the cut.
/// Returns the text and the number of characters removed.
pub fn truncate_middle(text: &str, max: usize) -> (String, usize) {
    let total = text.chars().count();
    if total <= max {
        return (text.to_string(), 0);
    }
    let head_n = max * 2 / 3;
    let tail_n = max - head_n;
    let cut = total - head_n - tail_n;
    let head: String = text.chars().take(head_n).collect();
    let tail: String = text.chars().skip(total - tail_n).collect();
    (
        format!(
            "{head}\n... [output truncated: {cut} of {total} characters cut; print less, or slice] ...\n{tail}"
        ),
        cut,
    )
}

/// The names a Python identifier may take (used to vet `FINAL_VAR` arguments).
pub(crate) fn is_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    matches!(chars.next(), Some(c) if c == '_' || c.is_alphabetic())
        && chars.all(|c| c == '_' || c.is_alphanumeric())
}
