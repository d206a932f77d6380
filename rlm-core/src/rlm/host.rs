//! The functions the REPL calls back into the loop (`FINAL`, `FINAL_VAR`,
//! `llm_query`, `llm_query_batched`, `rlm_query` and the handle's functions),
//! and the Python prelude that defines the handle object.

use std::sync::{Arc, Mutex};
use std::time::Instant;

use async_trait::async_trait;
use serde_json::{Map, Value};

use super::map;
use super::session::Session;
use super::{Ending, RunOutcome, Shared};
use crate::cache::short_hash;
use crate::handle::{ContextHandle, HandleFunction};
use crate::model::{ChatRequest, Message};
use crate::prompts::Profile;
use crate::repl::{HostError, HostErrorKind, ReplHost, is_identifier};
use crate::trajectory::SubCallRecord;

pub(super) fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

#[derive(Debug, Default)]
pub(super) struct HostState {
    pub(super) final_answer: Option<(Ending, String)>,
    pub(super) final_var: Option<String>,
    pub(super) sub_calls: Vec<SubCallRecord>,
    pub(super) read_ids: Vec<String>,
    /// The rows of each `tally` the current turn made, for the next-step hint.
    pub(super) tallies: Vec<Value>,
    /// The run's last `map`: how many segments it sent, how many gave a
    /// record, and its instruction.
    pub(super) last_map: Option<map::Coverage>,
}

pub(super) struct LoopHost {
    pub(super) shared: Arc<Shared>,
    pub(super) handle: Arc<dyn ContextHandle>,
    pub(super) depth: u32,
    pub(super) context_text: Option<String>,
    /// The run's question, which `map` sends with every segment.
    pub(super) question: String,
    pub(super) state: Mutex<HostState>,
}

const HOST_FUNCTIONS: &[&str] = &[
    "FINAL",
    "FINAL_VAR",
    "llm_query",
    "llm_query_batched",
    "rlm_query",
    "_context_call",
    "_map",
    "_tally",
];

fn arg_str(args: &[Value], kwargs: &Map<String, Value>, i: usize, name: &str) -> Option<Value> {
    args.get(i).cloned().or_else(|| kwargs.get(name).cloned())
}

pub(super) fn value_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

impl LoopHost {
    /// Remember the ids a handle call showed, first seen first.
    fn note_ids(&self, ids: Vec<String>) {
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
            server: None,
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
            .meter
            .take_sub_call()
            .map_err(|why| HostError::new(HostErrorKind::Runtime, why))?;
        if let Some(window) = shared.sub.model().context_window() {
            let tokens = shared.sub.model().count_tokens(&prompt) + 8;
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
            ..Default::default()
        };
        let report = shared.sub.chat(&request).await;
        rec.latency_ms = report.latency.as_millis() as u64;
        rec.cached = report.cached;
        rec.retries = report.retries.len() as u32;
        match report.result {
            Ok(r) => {
                rec.usage = r.usage;
                rec.response_hash = short_hash(&r.content);
                rec.server = r.server;
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
        if let Some(why) = self.shared.meter.exhausted() {
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
            server: None,
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

    /// `context.map`: segments from the handle, one sub-call each, all at once;
    /// the replies parsed into records that carry their chunk ids.
    async fn map(
        &self,
        instruction: String,
        over: Value,
        format: map::Format,
        max_chars: usize,
    ) -> Result<Value, HostError> {
        if instruction.trim().is_empty() {
            return Err(HostError::new(
                HostErrorKind::Value,
                "map: the instruction is empty",
            ));
        }
        // A small root marks its word as the recipe marks a placeholder
        // ("<town>"): a word or three in brackets is that word; the recipe's
        // own placeholder, longer, is refused.
        let t = instruction.trim();
        let t = match t.strip_prefix('<').and_then(|i| i.strip_suffix('>')) {
            Some(inner) if (1..=3).contains(&inner.split_whitespace().count()) => inner.trim(),
            _ => t,
        };
        let instruction = t.to_owned();
        if t.starts_with('<') && t.ends_with('>') {
            return Err(HostError::new(
                HostErrorKind::Value,
                "map: the instruction is the recipe's placeholder <…>; write instead the one \
                 thing to read from each document, in one to three words",
            ));
        }
        if map::is_code(t) {
            return Err(HostError::new(
                HostErrorKind::Value,
                format!(
                    "map: the instruction {t:?} is code; write in words the one thing to read \
                     from each document, in one to three words (like \"the city\" or \"the \
                     category\"): the tally then counts each value"
                ),
            ));
        }
        let handle = self.handle.clone();
        let max_chars = max_chars.clamp(200, 50_000);
        // Only a map over every document or chunk is expected to find a
        // value in each (one over a search's hits or listed ids is not).
        let whole = matches!(over.as_str().map(str::trim), Some("docs" | "chunks"));
        let segments = tokio::task::spawn_blocking(move || handle.segments(&over, max_chars))
            .await
            .map_err(|e| HostError::new(HostErrorKind::Runtime, format!("map failed: {e}")))?
            .map_err(|e| HostError::new(HostErrorKind::Value, format!("map: {e}")))?;
        if segments.len() > map::MAX_SEGMENTS {
            return Err(HostError::new(
                HostErrorKind::Value,
                format!(
                    "map: {} segments is more than {}; map over a search (over=\"search: words\") or a list of ids",
                    segments.len(),
                    map::MAX_SEGMENTS
                ),
            ));
        }
        let format = format.for_instruction(&instruction);
        let calls = segments.iter().map(|seg| {
            let prompt = map::segment_prompt(&self.question, &instruction, format, seg);
            self.sub_query("map", prompt)
        });
        let replies = futures::future::join_all(calls).await;
        let mut parsed = map::Parsed::default();
        let mut failed = 0usize;
        let mut gave = 0usize;
        for (seg, reply) in segments.iter().zip(replies) {
            let before = parsed.records.len();
            match reply {
                Ok(text) => map::parse_reply(&text, format, seg, &mut parsed),
                Err(_) => failed += 1,
            }
            gave += usize::from(parsed.records.len() > before);
        }
        lock(&self.state).last_map = whole.then(|| map::Coverage {
            segments: segments.len(),
            gave,
            instruction: instruction.clone(),
        });
        self.note_ids(segments.iter().flat_map(|s| s.ids.clone()).collect());
        Ok(serde_json::json!({
            "records": parsed.records,
            "segments": segments.len(),
            "unparsed": parsed.unparsed,
            "failed": failed,
        }))
    }

    pub(super) fn state_read_ids(&self) -> Vec<String> {
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
                // `FINAL("text", "[c4.s1]")`, as small models write it: the
                // positional parts joined, an id after the text it cites, any
                // other part as a sentence of its own (`FINAL("Bergen [c2]",
                // "6")` is not the claim "Bergen 6").
                let text = if args.len() > 1 {
                    join_final_parts(args.iter().map(value_text))
                } else {
                    arg_str(&args, &kwargs, 0, "answer")
                        .map(|v| value_text(&v))
                        .unwrap_or_default()
                };
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
                self.shared.meter.count_handle_call();
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
                let result =
                    tokio::task::spawn_blocking(move || handle.call(&fname, &fargs, &fkwargs))
                        .await
                        .map_err(|e| {
                            HostError::new(
                                HostErrorKind::Runtime,
                                format!("context call failed: {e}"),
                            )
                        })?;
                match result {
                    Ok(reply) => {
                        self.note_ids(reply.shown);
                        Ok(reply.value)
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
            "_map" => {
                self.shared.meter.count_handle_call();
                let instruction = arg_str(&args, &kwargs, 0, "instruction")
                    .map(|v| value_text(&v))
                    .unwrap_or_default();
                let over = arg_str(&args, &kwargs, 1, "over").unwrap_or(Value::from("docs"));
                let format = arg_str(&args, &kwargs, 2, "format")
                    .map(|v| value_text(&v))
                    .unwrap_or_default();
                let format = map::Format::parse(&format)
                    .map_err(|m| HostError::new(HostErrorKind::Value, m))?;
                let max_chars = arg_str(&args, &kwargs, 3, "max_chars")
                    .and_then(|v| v.as_u64())
                    .map_or(map::DEFAULT_SEGMENT_CHARS, |n| {
                        usize::try_from(n).unwrap_or(usize::MAX)
                    });
                self.map(instruction, over, format, max_chars).await
            }
            "_tally" => {
                let Some(Value::Array(records)) = arg_str(&args, &kwargs, 0, "records") else {
                    return Err(HostError::new(
                        HostErrorKind::Type,
                        "tally takes the list of records that map returned",
                    ));
                };
                let field = arg_str(&args, &kwargs, 1, "field")
                    .map(|v| value_text(&v))
                    .unwrap_or_else(|| "value".into());
                let rows = map::tally(&records, &field);
                lock(&self.state).tallies.push(rows.clone());
                Ok(rows)
            }
            other => Err(HostError::new(
                HostErrorKind::Runtime,
                format!("unknown host function {other}"),
            )),
        }
    }
}

/// The positional parts of a `FINAL` call as one answer: an id (bare or
/// bracketed) written after the text it cites, any other part a sentence of
/// its own.
fn join_final_parts(parts: impl Iterator<Item = String>) -> String {
    let mut text = String::new();
    for part in parts {
        let part = part.trim();
        if part.is_empty() {
            continue;
        }
        let id = bracket_bare_id(part);
        let cites = id.starts_with('[') && id.ends_with(']');
        if !text.is_empty() && !cites && !text.ends_with(['.', '!', '?']) {
            text.push('.');
        }
        if !text.is_empty() {
            text.push(' ');
        }
        text.push_str(&id);
    }
    text
}

/// A part of a `FINAL(…)` that is a bare citation id (`c20.s3`) as the
/// citation it stands for (`[c20.s3]`); any other text as it is.
fn bracket_bare_id(part: &str) -> String {
    let t = part.trim();
    if super::protocol::is_bare_id(t) {
        format!("[{t}]")
    } else {
        part.to_owned()
    }
}

/// What `context` offers the root: the handle's functions, and `map` and
/// `tally` when the handle can make segments and `with_map` lists them.
pub(super) fn loop_functions(handle: &dyn ContextHandle, with_map: bool) -> Vec<HandleFunction> {
    let mut functions = handle.functions();
    if with_map && map::offered(handle) {
        functions.extend(map::functions());
    }
    functions
}

/// The Python that defines the handle object, `answer`, and nothing else.
pub(super) fn prelude(handle: &dyn ContextHandle, profile: Profile) -> String {
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
    if map::offered(handle) {
        any = true;
        s.push_str(map::PRELUDE_METHODS);
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

#[cfg(test)]
mod tests {
    use super::{bracket_bare_id, join_final_parts};

    #[test]
    fn final_parts_join_ids_after_their_text_and_other_parts_as_sentences() {
        let join = |parts: &[&str]| join_final_parts(parts.iter().map(|p| (*p).to_owned()));
        assert_eq!(
            join(&["Tromsø is the city.", "c4.s1"]),
            "Tromsø is the city. [c4.s1]"
        );
        assert_eq!(join(&["Bergen [c2] [c5]", "6"]), "Bergen [c2] [c5]. 6");
        assert_eq!(
            join(&["Bergen", "[c2]", "", "Most reports."]),
            "Bergen [c2]. Most reports."
        );
    }

    #[test]
    fn bare_ids_become_citations() {
        assert_eq!(bracket_bare_id("c20.s3"), "[c20.s3]");
        assert_eq!(bracket_bare_id(" c4.s2-s4 "), "[c4.s2-s4]");
        assert_eq!(bracket_bare_id("c12"), "[c12]");
        assert_eq!(bracket_bare_id("cats"), "cats");
        assert_eq!(bracket_bare_id("Tromsø"), "Tromsø");
    }
}
