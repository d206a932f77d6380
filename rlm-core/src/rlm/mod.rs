//! The root loop (SPEC §5.3): messages, code blocks, sub-calls, recursion,
//! budgets, guards and trajectories.
//!
//! [`Rlm`] holds the configuration, the model clients and the corpus handle;
//! [`Rlm::start`] opens a [`Session`] for one question, whose [`Session::run`]
//! drives the conversation until an executed `FINAL`, `FINAL_VAR` or `answer` dict
//! is accepted, or a budget ends it. [`Session::repair`] gives the model one more
//! turn with a message (the `--strict` repair turn) and [`Session::finish`] writes
//! the trajectory's final line.
//!
//! - `config`: what a run is configured with (budgets, guards, prices).
//! - `outcome`: how a run ends and its errors.
//! - `host`: the functions the REPL calls back (`FINAL`, `llm_query`, `rlm_query`,
//!   the handle's functions) and the prelude that defines them in Python.
//! - `fences`: which fenced blocks of a reply run, and answer placeholders.
//! - `map`: `context.map` / `context.tally` (segments to sub-models, records).
//! - `protocol`: how the root acts (code, forced code, tool calls).
//! - `session`: one question's conversation.

mod config;
mod fences;
mod host;
mod map;
mod outcome;
mod protocol;
mod session;
mod window;

use std::sync::Arc;

pub use config::{Budgets, DEFAULT_MAX_WALL_TIME, Guards, Price, RlmConfig};
pub use fences::{extract_blocks, find_placeholder};
pub use outcome::{Ending, FallbackReason, RlmError, RunOutcome};
pub use protocol::Protocol;
pub use session::Session;

use crate::client::{Meter, ModelClient};
use crate::handle::ContextHandle;
use crate::model::LanguageModel;
use crate::trajectory::{Totals, TraceHeader, TraceLine, TraceWriter};

/// What every session and sub-run of one [`Rlm`] shares: the configuration,
/// the two model clients and the meter they both charge.
struct Shared {
    cfg: RlmConfig,
    root: ModelClient,
    sub: ModelClient,
    meter: Arc<Meter>,
    observer: Option<Observer>,
}

/// Sees every trajectory line of the top-level session as it happens (header,
/// each root turn with its code, output and sub-calls, the final line),
/// whether or not a trajectory file is written: what a server streams.
pub type Observer = Arc<dyn Fn(&TraceLine) + Send + Sync>;

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
        let meter = Meter::new(cfg.budgets.clone());
        let root = cfg.client(root, cfg.root_price, meter.clone());
        let sub = cfg
            .client(sub, cfg.sub_price, meter.clone())
            .limited(cfg.concurrency);
        let shared = Arc::new(Shared {
            cfg,
            root,
            sub,
            meter,
            observer: None,
        });
        Self { shared, handle }
    }

    /// This model with `observer` seeing every line of the top-level session's
    /// trajectory as it happens (set before [`Rlm::start`]).
    pub fn with_observer(mut self, observer: Observer) -> Self {
        if let Some(shared) = Arc::get_mut(&mut self.shared) {
            shared.observer = Some(observer);
        }
        self
    }

    /// Usage so far, over every session of this model.
    pub fn totals(&self) -> Totals {
        self.shared.meter.totals()
    }

    /// The sub-model's client: its calls share this run's cache, budgets and
    /// usage (the heuristic strategy composes through it when a run falls back).
    pub fn sub_client(&self) -> &ModelClient {
        &self.shared.sub
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
        let concurrency = self.shared.sub.concurrency().await;
        let session = Session::open(self.shared.clone(), self.handle.clone(), question, 0).await;
        let mut session = Session {
            trace,
            warnings,
            ..session
        };
        let header = TraceHeader {
            concurrency,
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
