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
    NameLookupResult, NamedValues, ObjectRef, OsFunctionCall, OsPolicy, PrintWriter, RandomSeed,
    RandomStart, ResourceLimits, ResourceTracker, SleepMode,
};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// Per-block limits of the REPL.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ReplLimits {
    /// Interpreter time per block, not counting time spent in host calls.
    pub max_block_time: Duration,
    /// Memory budget in bytes; single allocations larger than this (e.g.
    /// `"a" * 10**10`) raise `MemoryError` before they happen.
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
}

impl std::fmt::Debug for Repl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Repl")
            .field("limits", &self.limits)
            .finish_non_exhaustive()
    }
}

type Step = Result<ReplProgress, Box<ReplStartError>>;

fn new_session(limits: &ReplLimits) -> MontyRepl {
    let resource = ResourceLimits::default()
        .max_feed_duration(limits.max_block_time)
        .max_memory(limits.max_memory)
        .max_recursion_depth(limits.max_recursion)
        .max_suspensions(limits.max_host_calls);
    let policy = OsPolicy {
        datetime: DateTimeSource::CallHost,
        sleep: SleepMode::CallHost,
        random_start: RandomStart::Seed(RandomSeed::Str("rlmkg".to_string())),
        ..OsPolicy::default()
    };
    MontyRepl::new(
        "repl.py",
        ResourceTracker::new(resource),
        CompileOptions::default(),
    )
    .with_os_policy(policy)
}

impl Repl {
    /// A fresh session with the given limits.
    pub fn new(limits: ReplLimits) -> Self {
        let inner = Some(new_session(&limits));
        Self { inner, limits }
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
            None => new_session(&self.limits),
        };
        let cap = self.limits.max_output_bytes;
        let code = code.to_string();
        let mut out = String::new();
        let mut step = blocking(out, move |buf| {
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
                Err(msg) => {
                    // The interpreter thread failed: start over with a fresh session.
                    self.inner = Some(new_session(&self.limits));
                    error = Some(format!("InternalError: {msg}; the REPL was reset"));
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
                    error = Some(render_exception(&exc));
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
                    step = blocking(out, move |buf| abort(progress, exc, buf, cap)).await;
                    continue;
                }
            }
            match progress {
                ReplProgress::Complete { repl, .. } => {
                    self.inner = Some(repl);
                    break;
                }
                ReplProgress::FunctionCall(call) => {
                    let name = call.function_name.clone();
                    let args: Vec<Value> = call.args.args().map(to_json).collect();
                    let kwargs: Map<String, Value> = call
                        .args
                        .kwargs()
                        .map(|(k, v)| {
                            (
                                k.as_str().map_or_else(|| k.py_repr(), str::to_string),
                                to_json(v),
                            )
                        })
                        .collect();
                    let result = if host.has_function(&name) {
                        match host.call(&name, args, kwargs).await {
                            Ok(v) => ExtFunctionResult::Return(from_json(&v)),
                            Err(e) => ExtFunctionResult::Error(MontyException::new(
                                e.kind.exc_type(),
                                Some(e.message),
                            )),
                        }
                    } else {
                        ExtFunctionResult::NotFound(name)
                    };
                    step = blocking(out, move |buf| {
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
                    step = blocking(out, move |buf| {
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
                    step = blocking(out, move |buf| {
                        call.resume(result, PrintWriter::CollectString(buf, Some(cap)))
                    })
                    .await;
                }
                ReplProgress::ResolveFutures(_) => {
                    let exc = MontyException::new(
                        ExcType::RuntimeError,
                        Some("async code is not supported in this REPL".to_string()),
                    );
                    step = blocking(out, move |buf| abort(progress, exc, buf, cap)).await;
                }
            }
        }
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
    /// (`None` if it raised). Host calls are not answered (they fail).
    pub async fn eval(&mut self, expr: &str) -> Option<Value> {
        let repl = self
            .inner
            .take()
            .unwrap_or_else(|| new_session(&self.limits));
        let expr = expr.to_string();
        let joined = tokio::task::spawn_blocking(move || {
            let mut repl = repl;
            let mut sink = String::new();
            let r = repl.feed_run(
                &expr,
                NamedValues::new(),
                PrintWriter::CollectString(&mut sink, Some(1 << 20)),
            );
            (repl, r)
        })
        .await;
        match joined {
            Ok((repl, r)) => {
                self.inner = Some(repl);
                r.ok().map(|v| to_json(v.as_ref()))
            }
            Err(_) => {
                self.inner = Some(new_session(&self.limits));
                None
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

/// Run one interpreter step on the blocking pool, carrying the output buffer along.
async fn blocking<F>(buf: String, f: F) -> Result<(Step, String), String>
where
    F: FnOnce(&mut String) -> Step + Send + 'static,
{
    let joined = tokio::task::spawn_blocking(move || {
        let mut buf = buf;
        let step = f(&mut buf);
        (step, buf)
    })
    .await;
    joined.map_err(|e| format!("interpreter task failed: {e}"))
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

fn render_exception(exc: &MontyException) -> String {
    let mut s = exc.to_string();
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

/// Convert a Python value to JSON: numbers, strings, booleans, `None`, lists,
/// tuples and sets as arrays, dicts as objects; anything else as its `repr`.
pub fn to_json(o: ObjectRef<'_>) -> Value {
    match o.type_name() {
        "NoneType" => Value::Null,
        "bool" => o.as_bool().map_or(Value::Null, Value::Bool),
        "int" => match o.as_int() {
            Some(i) => Value::from(i),
            None => Value::String(o.py_repr()),
        },
        "float" => o
            .as_float()
            .and_then(serde_json::Number::from_f64)
            .map_or_else(|| Value::String(o.py_repr()), Value::Number),
        "str" => Value::String(o.as_str().unwrap_or_default().to_string()),
        _ => {
            if let Some(items) = o.items() {
                Value::Array(items.into_iter().map(to_json).collect())
            } else if o.type_name() == "dict" {
                let mut m = Map::new();
                for (k, v) in o.pairs().unwrap_or_default() {
                    let key = k.as_str().map_or_else(|| k.py_repr(), str::to_string);
                    m.insert(key, to_json(v));
                }
                Value::Object(m)
            } else {
                Value::String(o.py_repr())
            }
        }
    }
}

/// Convert JSON to a Python value (objects become dicts with keys in order).
pub fn from_json(v: &Value) -> MontyObject {
    match v {
        Value::Null => MontyObject::none(),
        Value::Bool(b) => MontyObject::bool(*b),
        Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                MontyObject::int(i)
            } else {
                MontyObject::float(n.as_f64().unwrap_or(f64::NAN))
            }
        }
        Value::String(s) => MontyObject::string(s.clone()),
        Value::Array(items) => MontyObject::list(items.iter().map(from_json)),
        Value::Object(m) => MontyObject::dict(
            m.iter()
                .map(|(k, v)| (MontyObject::string(k.clone()), from_json(v))),
        ),
    }
}

/// The names a Python identifier may take (used to vet `FINAL_VAR` arguments).
pub(crate) fn is_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    matches!(chars.next(), Some(c) if c == '_' || c.is_alphabetic())
        && chars.all(|c| c == '_' || c.is_alphanumeric())
}
