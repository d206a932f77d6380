//! One question's conversation with the root model: turns, code blocks,
//! guards, the last "best answer" turn, the repair turn and the trajectory.

use std::sync::{Arc, Mutex};

use serde_json::Value;

use super::fences::{extract_blocks, find_placeholder, first_block_end, no_code_correction};
use super::host::{HostState, LoopHost, lock, loop_functions, prelude, value_text};
use super::map;
use super::protocol::{self, Protocol};
use super::window;
use super::{Ending, FallbackReason, RlmError, RunOutcome, Shared};
use crate::cache::short_hash;
use crate::client::CallError;
use crate::handle::ContextHandle;
use crate::handle::HandleFunction;
use crate::model::{
    ChatRequest, ChatResponse, FinishReason, Message, ModelError, ToolChoice, ToolSpec,
};
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
    /// How the root model's actions reach the loop.
    pub(super) protocol: Protocol,
    /// The prompt profile the run uses.
    pub(super) profile: Profile,
    /// The handle's functions (what `context` offers).
    pub(super) functions: Vec<HandleFunction>,
    /// The tools offered under the tool-call protocol.
    pub(super) tools: Vec<ToolSpec>,
    /// The replies so far, normalized ([`protocol::reply_key`]): one seen
    /// before is a repeat (a model going round in a cycle as much as one
    /// saying the same thing twice).
    pub(super) seen_keys: Vec<String>,
    /// Replies in a row that repeated the one before.
    pub(super) repeats: u32,
    /// Whether the last repeated reply began with a read: the next is begun
    /// as a search, otherwise as a read (the step it did not take).
    pub(super) repeated_read: bool,
    /// Answers the handle's review rejected.
    pub(super) reviews: u32,
    /// The next turn is begun as the answer: the last output showed a
    /// sentence that answers the question ([`NextStep::answer_here`](crate::NextStep::answer_here)).
    pub(super) answer_next: bool,
    /// Whether a turn was begun so already (once a run).
    pub(super) answer_offered: bool,
    /// The search the last output's hint suggested
    /// ([`NextStep::search`](crate::NextStep::search)).
    pub(super) suggested: Option<String>,
    /// The suggested search the turn after a repeat is begun with.
    pub(super) pending_search: Option<String>,
    /// The suggested searches a turn was begun with (each once a run).
    pub(super) begun_searches: Vec<String>,
    /// The question is about the whole collection and `map` is offered: a
    /// small root is led through map and tally instead of searches.
    pub(super) mapping: bool,
    /// What the map recipe names to read from every document
    /// ([`ContextHandle::map_key`]), when the handle could tell.
    pub(super) map_key: Option<String>,
}

/// Replies in a row that repeat the one before after which the run ends.
const MAX_REPEATS: u32 = 3;
/// The temperature a root with none configured is taken to be sampled at
/// (llama.cpp's server samples at 0.8, the embedded model at 0.7).
const UNSET_TEMPERATURE: f32 = 0.7;
/// How much warmer each repeat in a row makes the next turn.
const REPEAT_WARMING: f32 = 0.2;
/// The warmest a turn after repeats is sampled.
const MAX_REPEAT_TEMPERATURE: f32 = 1.2;
/// Answers the handle's review may reject before one is let through.
const MAX_REVIEWS: u32 = 2;
/// Tokens of the root's window kept free beyond the reply (chat template
/// framing, the reply's forced start, counting error).
const WINDOW_MARGIN: usize = 96;

/// What one reply asks the loop to run.
struct Action {
    /// The tool call it answers, under the tool-call protocol.
    call_id: Option<String>,
    /// The code, or why the call could not be made into code.
    code: Result<String, String>,
}

/// A trajectory event.
fn event(kind: &str, message: impl Into<String>) -> TraceEvent {
    TraceEvent {
        kind: kind.into(),
        message: message.into(),
    }
}

/// What the model is told after its reply repeated the one before: a
/// different message each time.
fn repeat_correction(repeats: u32, had_code: bool) -> String {
    let what = if had_code {
        "It was not run again: it would print what it printed before."
    } else {
        "It still has no code, so nothing ran."
    };
    let next = match repeats {
        1 => {
            "Do something different now: search with other words from the question, read a chunk you have not read yet, or, if a sentence you read answers the question, call FINAL with it and its id."
        }
        _ => {
            "This is the last warning: one more identical reply ends the run. Write new code that uses what the earlier output showed."
        }
    };
    format!("Your reply repeats one of your earlier replies word for word. {what} {next}")
}

/// What the model is told when its reply under the tool-call protocol made no call.
fn tools_correction() -> String {
    "No tool was called: your reply had no tool call, so nothing ran. Reply with a tool call \
     (search, read, …), and end the run by calling final_answer with the cited answer."
        .to_owned()
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
        // The handle that reads this session's question, once.
        let handle = handle.asking(question).unwrap_or(handle);
        let cfg = &shared.cfg;
        let profile = cfg
            .profile
            .unwrap_or_else(|| Profile::for_model_size(shared.root.model().size_billions()));
        let context_text = if profile == Profile::Paper {
            handle.corpus_text(cfg.max_context_chars)
        } else {
            None
        };
        let protocol = cfg.protocol.resolve(profile, cfg.system_prompt.is_some());
        let whole_collection = handle.about_whole_collection();
        let with_map = handle.can_map() && (profile != Profile::Small || whole_collection);
        let map_key = (with_map && whole_collection)
            .then(|| handle.map_key())
            .flatten();
        let facts = PromptFacts {
            whole_collection: with_map && whole_collection,
            map_key: map_key.clone(),
            max_iterations: cfg.budgets.max_iterations,
            max_depth: cfg.budgets.max_depth,
            sub_window: shared.sub.model().context_window(),
            max_answer_chars: cfg.guards.max_answer_chars,
            example: handle.example(),
        };
        let system = cfg
            .system_prompt
            .clone()
            .unwrap_or_else(|| prompts::system_prompt(profile, protocol, &facts));
        let mut functions = loop_functions(handle.as_ref(), with_map);
        // A small model is shown the few functions of its recipe (the others
        // still work when called).
        if profile == Profile::Small {
            let core: Vec<HandleFunction> = functions
                .iter()
                .filter(|f| prompts::SMALL_FUNCTIONS.contains(&f.name.as_str()))
                .cloned()
                .collect();
            if !core.is_empty() {
                functions = core;
            }
        }
        let metadata = prompts::metadata_message(
            profile,
            &handle.metadata(),
            &functions,
            question,
            context_text.as_ref().map(|t| t.chars().count()),
        );
        let prelude_code = prelude(handle.as_ref(), profile);
        let host = Arc::new(LoopHost {
            shared: shared.clone(),
            handle,
            depth,
            context_text,
            question: question.to_owned(),
            state: Mutex::new(HostState::default()),
        });
        // One output may fill at most a quarter of the root's window (about
        // four characters a token), and a small model's at most a few hits.
        let mut limits = cfg.repl.clone();
        if let Some(window) = shared.root.model().context_window() {
            limits.max_output_chars = limits.max_output_chars.min(window.max(1024));
        }
        if profile == Profile::Small {
            limits.max_output_chars = limits.max_output_chars.min(prompts::SMALL_MAX_OUTPUT_CHARS);
        }
        let mut repl = Repl::new(limits);
        let _ = repl.run(&prelude_code, host.as_ref()).await;
        let mut tools = if protocol == Protocol::Tools {
            protocol::tool_specs(&functions)
        } else {
            Vec::new()
        };
        // The small recipe has no sub-model steps: a small root offered
        // `llm_query` asks it the question instead of searching.
        if profile == Profile::Small {
            tools.retain(|t| !prompts::SMALL_HIDDEN_TOOLS.contains(&t.name.as_str()));
        }
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
            protocol,
            profile,
            functions,
            tools,
            seen_keys: Vec::new(),
            repeats: 0,
            reviews: 0,
            answer_next: false,
            answer_offered: false,
            suggested: None,
            pending_search: None,
            begun_searches: Vec::new(),
            repeated_read: false,
            mapping: with_map && whole_collection,
            map_key,
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
                self.profile.name().into()
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

    /// Begin the next turn of a code run as its answer (`FINAL("`), once a
    /// run: the last output showed what answers the question.
    fn offer_answer(&mut self) {
        if self.protocol == Protocol::Code && !self.answer_offered {
            self.answer_next = true;
            self.answer_offered = true;
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
                let o = self.stopped_by_budget(why).await;
                self.last = Some(o.clone());
                return Ok(o);
            }
            if self.iteration >= max {
                self.messages.push(Message::user(prompts::LAST_TURN));
                let o = match self.turn(TurnKind::Last).await? {
                    TurnEnd::Done(o) => *o,
                    TurnEnd::Continue => {
                        let mut o = self.outcome(
                            None,
                            Ending::NoAnswer,
                            format!("no accepted answer after {max} turns and the last turn"),
                        );
                        // No answer stands: the caller answers another way,
                        // as when no code ran.
                        if o.fallback.is_none() {
                            let why = FallbackReason::NoAnswer {
                                turns: self.iteration,
                                rejected: self.reviews,
                            };
                            o.stop_reason = format!("{}; {why}", o.stop_reason);
                            o.fallback = Some(why);
                        }
                        o
                    }
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

    /// The request of the next root turn under the run's protocol. After a
    /// repeated reply the sampling is warmer and reseeded, and a free-form run
    /// gets its reply started as code: what the model sees changes. Old
    /// outputs are shortened to fit the root's context window; the count of
    /// shortened messages comes with the request.
    fn request(&self, kind: TurnKind) -> (ChatRequest, usize) {
        let mut sampling = self.shared.cfg.root_sampling.clone();
        if self.repeats > 0 {
            // Warmer than the temperature the model was sampled at: the
            // configured one, else the backends' usual default (an unset
            // temperature read as 0 made the turn after a repeat colder).
            let base = sampling.temperature.unwrap_or(UNSET_TEMPERATURE);
            let bump = REPEAT_WARMING * self.repeats as f32;
            sampling.temperature = Some((base + bump).min(MAX_REPEAT_TEMPERATURE));
            sampling.seed = Some(
                sampling
                    .seed
                    .unwrap_or(0)
                    .wrapping_add(u64::from(self.repeats)),
            );
        }
        let mut request = ChatRequest {
            messages: self.messages.clone(),
            sampling,
            ..Default::default()
        };
        let can_search = self.functions.iter().any(|f| f.name == "search");
        if self.protocol == Protocol::Code {
            // Lines where a model starts writing the output it imagines.
            request
                .sampling
                .stop
                .extend(protocol::IMAGINED_OUTPUT.iter().map(|s| (*s).to_owned()));
        }
        if self.profile == Profile::Small {
            // A small model's turn is a few lines of code; a long one is it
            // writing on past them.
            let cap = prompts::SMALL_MAX_TOKENS;
            request.sampling.max_tokens =
                Some(request.sampling.max_tokens.map_or(cap, |m| m.min(cap)));
        }
        match self.protocol {
            // The last turn of a code run is begun as its answer, and so is
            // the turn after an output that shows the answer's sentence.
            Protocol::Code if kind == TurnKind::Last || self.answer_next => {
                request.start = Some(protocol::final_start());
            }
            // A small model's first turn on a question about the whole
            // collection is begun as the map that reads every document.
            Protocol::Code
                if self.mapping
                    && self.profile == Profile::Small
                    && self.iteration <= 1
                    && self.repeats == 0 =>
            {
                request.start = Some(protocol::map_start());
            }
            // A small model's first turn is begun as a search: every lookup
            // starts there. A model stuck repeating itself is begun on the
            // step its repeated reply did not take: a read after a repeated
            // search (the step after it), a search after a repeated read.
            Protocol::Code
                if can_search
                    && (self.repeats > 0
                        || (self.profile == Profile::Small && self.iteration <= 1)) =>
            {
                let can_read = self.functions.iter().any(|f| f.name == "read");
                // The search the hint suggested comes first, once: the model
                // repeated itself instead of making it.
                let suggested = self.pending_search.as_deref().filter(|_| self.repeats > 0);
                request.start = Some(if let Some(query) = suggested {
                    protocol::suggested_search_start(query)
                } else if self.repeats > 0 && !self.repeated_read && can_read {
                    protocol::read_start()
                } else {
                    protocol::search_start()
                });
            }
            Protocol::Code => request.start = Some(protocol::code_start()),
            Protocol::Tools => {
                request.tools = self.tools.clone();
                request.tool_choice = ToolChoice::Required;
            }
            Protocol::Free | Protocol::Auto => {
                if self.repeats >= 2 {
                    request.start = Some(protocol::code_start());
                }
            }
        }
        // The conversation kept inside the root's window: old outputs shortened.
        let model = self.shared.root.model();
        let mut shortened = 0;
        if let Some(window) = model.context_window() {
            let reply = request.sampling.max_tokens.map_or(1024, |m| m as usize);
            let tools = if request.tools.is_empty() {
                0
            } else {
                model.count_tokens(&serde_json::to_string(&request.tools).unwrap_or_default())
            };
            let budget = window.saturating_sub(reply + tools + WINDOW_MARGIN);
            shortened = window::fit(&mut request.messages, budget, &|t| model.count_tokens(t));
        }
        (request, shortened)
    }

    /// What the reply asks the loop to run, and the message it leaves in the
    /// conversation: under `code` the first block only (text after it is cut,
    /// so an imagined output never enters the conversation); under `free`
    /// every block; under `tools` each call as the Python that makes it (and
    /// any code block written instead of a call).
    fn actions(&self, resp: &ChatResponse, truncated: bool) -> (Message, Vec<Action>, Vec<String>) {
        let mut notes = Vec::new();
        match self.protocol {
            Protocol::Tools if !resp.tool_calls.is_empty() => {
                let actions = resp
                    .tool_calls
                    .iter()
                    .map(|c| Action {
                        call_id: Some(c.id.clone()),
                        code: protocol::call_code(c, &self.functions),
                    })
                    .collect();
                (
                    Message::assistant_calls(resp.content.clone(), resp.tool_calls.clone()),
                    actions,
                    notes,
                )
            }
            Protocol::Code => {
                let blocks = extract_blocks(&resp.content, truncated);
                let Some(first) = blocks.into_iter().next() else {
                    // A begun block cut at the token limit: its whole lines
                    // run (the last, cut one does not).
                    if truncated
                        && resp.started
                        && let Some(code) = protocol::whole_lines(&resp.content)
                    {
                        notes.push(
                            "the reply was cut at the token limit; its last line was dropped"
                                .to_owned(),
                        );
                        return (
                            Message::assistant(resp.content.clone()),
                            vec![Action {
                                call_id: None,
                                code: Ok(code),
                            }],
                            notes,
                        );
                    }
                    return (Message::assistant(resp.content.clone()), Vec::new(), notes);
                };
                let kept = first_block_end(&resp.content)
                    .map_or(resp.content.as_str(), |end| &resp.content[..end]);
                if kept.len() < resp.content.trim_end().len() {
                    notes.push("text after the first code block was cut".to_owned());
                }
                (
                    Message::assistant(kept.to_owned()),
                    vec![Action {
                        call_id: None,
                        code: Ok(first),
                    }],
                    notes,
                )
            }
            _ => {
                let actions = extract_blocks(&resp.content, truncated)
                    .into_iter()
                    .map(|code| Action {
                        call_id: None,
                        code: Ok(code),
                    })
                    .collect();
                (Message::assistant(resp.content.clone()), actions, notes)
            }
        }
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
            server: None,
            events: Vec::new(),
            feedback: String::new(),
        };
        // A child run's turns count against the sub-call budget, so an
        // `rlm_query` fan-out or chain cannot multiply the run's model calls.
        if self.depth > 0
            && let Err(why) = self.shared.meter.take_sub_call()
        {
            it.events.push(event("budget", why.clone()));
            self.record(it)?;
            return Ok(done(self.outcome(None, Ending::Budget, why)));
        }
        let (request, shortened) = self.request(kind);
        if std::mem::take(&mut self.answer_next) {
            it.events.push(event(
                "answer_start",
                "the last output showed a sentence that answers the question: the reply is begun as FINAL(".to_owned(),
            ));
        }
        if shortened > 0 {
            it.events.push(event(
                "shortened",
                format!("{shortened} earlier message(s) shortened to fit the root model's context window"),
            ));
        }
        let report = self.shared.root.chat(&request).await;
        it.latency_ms = report.latency.as_millis() as u64;
        it.cached = report.cached;
        for n in &report.retries {
            it.events.push(event(
                "retry",
                format!("{} (waited {:.2}s)", n.error, n.waited.as_secs_f64()),
            ));
        }
        let resp = match report.result {
            Ok(r) => r,
            Err(CallError::Budget(why)) => {
                it.events.push(event("budget", why.clone()));
                self.record(it)?;
                return Ok(done(self.stopped_by_budget(why).await));
            }
            Err(CallError::Model(e)) => {
                it.events.push(event("model_error", e.to_string()));
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
        for c in &resp.tool_calls {
            it.reply
                .push_str(&format!("\n[tool call {}: {}]", c.name, c.arguments));
        }
        it.reasoning = resp.reasoning.clone();
        it.usage = resp.usage;
        it.server = resp.server.clone();
        let truncated = resp.finish == FinishReason::Length;
        if truncated {
            it.events.push(event(
                "truncated_reply",
                "the reply hit the token limit; its unclosed code block was not run",
            ));
        }
        if request.start.is_some() && !resp.started {
            it.events.push(event(
                "not_started",
                "the backend could not start the reply as code; read as free text",
            ));
        }
        let (message, actions, notes) = self.actions(&resp, truncated);
        for n in notes {
            it.events.push(event("cut", n));
        }
        self.messages.push(message);

        // A verbatim repeat of the last reply is not run again; what the model
        // sees next changes instead, and enough of them end the run.
        let key = protocol::reply_key(&resp.content, &resp.tool_calls);
        // The last turn runs whatever it is given: there is no turn after it.
        let repeated = kind == TurnKind::Normal && self.seen_keys.contains(&key);
        if !repeated {
            self.seen_keys.push(key);
            self.pending_search = None;
        }
        if repeated {
            self.repeats += 1;
            // The search the last output's hint suggested begins the next
            // turn, unless a turn was begun with it already.
            self.pending_search = self
                .suggested
                .clone()
                .filter(|q| !self.begun_searches.contains(q));
            if let Some(q) = &self.pending_search {
                self.begun_searches.push(q.clone());
            }
            self.repeated_read = protocol::reads_first(&resp.content)
                || resp.tool_calls.first().is_some_and(|c| c.name == "read");
            it.events.push(event(
                "repeat",
                format!(
                    "the reply repeats an earlier one ({} in a row)",
                    self.repeats
                ),
            ));
            if self.repeats >= MAX_REPEATS {
                let why = FallbackReason::Repeating {
                    turns: self.iteration,
                    repeats: self.repeats,
                };
                self.record(it)?;
                let mut o = self.outcome(None, Ending::NoAnswer, why.to_string());
                if o.fallback.is_none() {
                    o.fallback = Some(why);
                }
                return Ok(done(o));
            }
            let fb = repeat_correction(self.repeats, !actions.is_empty());
            it.feedback = fb.clone();
            let outputs = actions
                .iter()
                .map(|_| "Not run: it repeats your previous call.".to_owned())
                .collect();
            self.record(it)?;
            self.send_feedback(kind, &actions, outputs, fb);
            return Ok(TurnEnd::Continue);
        }
        self.repeats = 0;

        let mut outputs: Vec<String> = Vec::new();
        let mut extra: Vec<String> = Vec::new();
        let mut accepted: Option<(Ending, String)> = None;
        let seen_before = self.seen_output;
        let labelled = actions.len() > 1 && self.protocol != Protocol::Tools;
        for (i, action) in actions.iter().enumerate() {
            // The wall-time (and other) budgets hold between blocks too.
            if let Some(why) = self.shared.meter.exhausted() {
                it.events.push(event(
                    "budget",
                    format!("{why}; {} block(s) not run", actions.len() - i),
                ));
                it.sub_calls = std::mem::take(&mut lock(&self.host.state).sub_calls);
                if !it.blocks.is_empty() {
                    self.seen_output = true;
                }
                self.record(it)?;
                return Ok(done(self.stopped_by_budget(why).await));
            }
            let code = match &action.code {
                Ok(code) => code,
                Err(msg) => {
                    it.events.push(event("bad_call", msg.clone()));
                    outputs.push(format!("Error: {msg}"));
                    continue;
                }
            };
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
            let mut out = if labelled {
                format!("REPL output (block {}):\n{rendered}", i + 1)
            } else if self.protocol == Protocol::Tools {
                rendered
            } else {
                format!("REPL output:\n{rendered}")
            };
            match self.candidate().await {
                Err(msg) => {
                    it.events.push(event("guard", msg.clone()));
                    out.push_str(&format!("\n\n{msg}"));
                }
                Ok(None) => {}
                Ok(Some((ending, text))) => {
                    let require = self.shared.cfg.guards.require_repl && kind == TurnKind::Normal;
                    let verdict = match self.check_guards(&text, require && !seen_before) {
                        Ok(()) if kind == TurnKind::Normal => self.review(&text).await,
                        other => other,
                    };
                    match verdict {
                        Ok(()) => {
                            outputs.push(out);
                            accepted = Some((ending, text));
                            break;
                        }
                        Err(msg) => {
                            it.events.push(event("guard", msg.clone()));
                            out.push_str(&format!("\n\nAnswer rejected: {msg}"));
                            self.reset_answer_dict().await;
                        }
                    }
                }
            }
            outputs.push(out);
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
        if actions.is_empty() {
            it.events
                .push(event("no_code", "the reply had no block that runs"));
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
                    Err(msg) => it.events.push(event("guard", msg)),
                }
            }
            extra.push(match self.protocol {
                Protocol::Tools => tools_correction(),
                _ => no_code_correction(&resp.content, self.functions.first()),
            });
        }
        if truncated {
            extra.push(
                "Your reply was cut off at the token limit; write shorter replies.".to_string(),
            );
        }
        // A small model is told the next step after every output, as the
        // recipe of its prompt would have it.
        let tallies = std::mem::take(&mut lock(&self.host.state).tallies);
        if self.profile == Profile::Small && kind == TurnKind::Normal && !it.blocks.is_empty() {
            // After a tally, the call that answers from its rows; before it,
            // on a question about the whole collection, the map recipe;
            // otherwise the multi-hop recipe's next step.
            let partial = self.partial_map().filter(|_| !tallies.is_empty());
            let counted: Vec<String> = tallies
                .iter()
                .filter_map(|t| map::tally_hint(t, &self.question))
                .collect();
            if let Some(why) = partial {
                // A tally of a map most documents gave nothing for is no
                // count of the collection: map again, not FINAL.
                extra.push(why);
            } else if counted.is_empty() && self.mapping {
                extra.push(prompts::small_map_step(self.map_key.as_deref()));
            } else if counted.is_empty() {
                let shown: String = it.blocks.iter().map(|b| b.output.as_str()).collect();
                let read = self.host.state_read_ids();
                let step = self.host.handle.next_step(&shown, &read);
                extra.extend(step.hint);
                self.suggested = step.search;
                if step.answer_here {
                    self.offer_answer();
                }
                extra.push(prompts::SMALL_NEXT_STEP.to_owned());
            } else {
                extra.extend(counted);
                // The rows answer a counting question: the next turn is
                // begun as its FINAL, as after an answering sentence.
                self.offer_answer();
            }
        }
        let remaining = self
            .shared
            .cfg
            .budgets
            .max_iterations
            .saturating_sub(self.iteration);
        if kind == TurnKind::Normal && remaining > 0 && remaining <= 2 {
            extra.push(format!("{remaining} turn(s) left."));
        }
        let fb = outputs
            .iter()
            .chain(extra.iter())
            .cloned()
            .collect::<Vec<_>>()
            .join("\n\n");
        it.feedback = fb.clone();
        self.record(it)?;
        self.send_feedback(kind, &actions, outputs, extra.join("\n\n"));
        Ok(TurnEnd::Continue)
    }

    /// Put the turn's results into the conversation: one user message under
    /// `code` and `free`; a tool message per call under `tools` (the notes
    /// after the last one, or as a user message when there were no calls).
    fn send_feedback(
        &mut self,
        kind: TurnKind,
        actions: &[Action],
        outputs: Vec<String>,
        notes: String,
    ) {
        if kind != TurnKind::Normal {
            return;
        }
        let calls: Vec<&str> = actions
            .iter()
            .filter_map(|a| a.call_id.as_deref())
            .collect();
        if calls.is_empty() {
            let text = outputs
                .into_iter()
                .chain((!notes.is_empty()).then_some(notes))
                .collect::<Vec<_>>()
                .join("\n\n");
            self.messages.push(Message::user(text));
            return;
        }
        let n = calls.len();
        for (i, (id, mut out)) in calls.into_iter().zip(outputs).enumerate() {
            if i + 1 == n && !notes.is_empty() {
                out.push_str("\n\n");
                out.push_str(&notes);
            }
            self.messages.push(Message::tool(id, out));
        }
    }

    /// Why the run's last `map` cannot answer its question about the whole
    /// collection ([`map::Coverage::partial`]); `None` when the question is
    /// about one fact, no map ran, or the map covered enough.
    fn partial_map(&self) -> Option<String> {
        if !self.mapping {
            return None;
        }
        lock(&self.host.state).last_map.as_ref()?.partial()
    }

    /// The handle's review of an answer ([`ContextHandle::review`]); after
    /// [`MAX_REVIEWS`] rejections the answer is let through, for the caller's
    /// own verification to judge.
    async fn review(&mut self, text: &str) -> Result<(), String> {
        if self.reviews >= MAX_REVIEWS {
            return Ok(());
        }
        if let Some(why) = self.partial_map() {
            self.reviews += 1;
            return Err(why);
        }
        let handle = self.host.handle.clone();
        let answer = text.to_owned();
        let read = self.host.state_read_ids();
        let verdict = tokio::task::spawn_blocking(move || handle.review(&answer, &read))
            .await
            .unwrap_or(Ok(()));
        if verdict.is_err() {
            self.reviews += 1;
        }
        verdict
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
