//! One question's conversation with the root model: turns, code blocks,
//! guards, the last "best answer" turn, the repair turn and the trajectory.

use std::sync::{Arc, Mutex};

use serde_json::Value;

use super::fences::{extract_blocks, find_placeholder, no_code_correction};
use super::host::{HostState, LoopHost, lock, prelude, value_text};
use super::{Ending, FallbackReason, RlmError, RunOutcome, Shared};
use crate::cache::short_hash;
use crate::client::CallError;
use crate::handle::ContextHandle;
use crate::model::{ChatRequest, FinishReason, Message, ModelError};
use crate::prompts::{self, Profile, PromptFacts};
use crate::repl::Repl;
use crate::trajectory::{
    TRACE_VERSION, Totals, TraceBlock, TraceEvent, TraceFinal, TraceHeader, TraceIteration,
    TraceLine, TraceWriter,
};

/// One question's conversation with the root model.
pub struct Session {
    pub(super) shared: Arc<Shared>,
    pub(super) host: Arc<LoopHost>,
    pub(super) repl: Repl,
    pub(super) question: String,
    pub(super) system: String,
    pub(super) metadata: String,
    pub(super) messages: Vec<Message>,
    pub(super) depth: u32,
    pub(super) iteration: u32,
    pub(super) seen_output: bool,
    pub(super) trace: Option<TraceWriter>,
    pub(super) collected: Vec<TraceIteration>,
    pub(super) last: Option<RunOutcome>,
    pub(super) finished: bool,
    pub(super) run_id: String,
    pub(super) warnings: Vec<String>,
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
    pub(super) async fn open(
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
            sub_window: shared.sub.model().context_window(),
            max_answer_chars: cfg.guards.max_answer_chars,
            example: handle.example(),
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

    pub(super) fn header(&self) -> TraceHeader {
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
        self.shared.meter.totals()
    }

    fn outcome(
        &self,
        answer: Option<String>,
        mut ending: Ending,
        stop_reason: impl Into<String>,
    ) -> RunOutcome {
        let mut usage = self.shared.meter.totals();
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
        if self.trace.is_some() || (self.depth == 0 && self.shared.observer.is_some()) {
            self.write_trace(&TraceLine::Iteration(it));
        } else {
            self.collected.push(it);
        }
        Ok(())
    }

    /// Write one trajectory line; a failure becomes a warning and stops the
    /// trajectory, never the run.
    pub(super) fn write_trace(&mut self, line: &TraceLine) {
        if self.depth == 0
            && let Some(observe) = &self.shared.observer
        {
            observe(line);
        }
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
            if let Some(why) = self.shared.meter.exhausted() {
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
            && let Err(why) = self.shared.meter.take_sub_call()
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
        let report = self.shared.root.chat(&request).await;
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
            if let Some(why) = self.shared.meter.exhausted() {
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
            feedback.push(no_code_correction(
                &resp.content,
                self.host.handle.functions().first(),
            ));
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
