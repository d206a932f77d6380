//! `ask` as a library call: pick a strategy, run it, verify the answer.
//!
//! The strategies are peers behind one trait, [`AnswerStrategy`]: the
//! recursive language model ([`RlmStrategy`], `by_rlm.rs`) and the model-free
//! heuristic ([`Heuristic`], `by_heuristic.rs`, which an RLM run also falls
//! back to, and whose exploration `context.explore` calls). The CLI's
//! `rlmkg ask` and the library facade both go through [`ask`].

mod by_heuristic;
mod by_rlm;

use std::path::PathBuf;
use std::sync::Arc;

use std::future::Future;

use rlm_core::{FallbackReason, LanguageModel, Meter, RlmConfig, RlmError, Totals};
use rlmkg_citation::{CheckOptions, Report};
use rlmkg_ingest::Store;
use serde::Serialize;

use crate::answer_check::AnswerCheck;
use crate::spans::StoreSpans;
use rlmkg_heuristic::Question;
use rlmkg_heuristic::short::{AnswerType, ShortAnswer};

pub use by_heuristic::Heuristic;
pub use by_rlm::RlmStrategy;

/// Which strategy answers the question.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Strategy {
    /// The RLM when a root model is configured, else the heuristic strategy.
    #[default]
    Auto,
    /// The recursive language model (needs a root model).
    Rlm,
    /// The built-in heuristic strategy (SPEC §5.5).
    Heuristic,
}

impl crate::named::Named for Strategy {
    const ALL: &'static [Self] = &[Self::Auto, Self::Rlm, Self::Heuristic];
    const WHAT: &'static str = "strategy";

    fn name(self) -> &'static str {
        match self {
            Self::Auto => "auto",
            Self::Rlm => "rlm",
            Self::Heuristic => "heuristic",
        }
    }
}

crate::named_display_from_str!(Strategy);

/// What actually produced the answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Method {
    /// The recursive language model.
    Rlm,
    /// Heuristic evidence, composed into an answer by one sub-model call.
    HeuristicComposed,
    /// Heuristic evidence returned as an extractive answer (no model).
    Extractive,
}

/// The models available to a run.
#[derive(Clone, Default)]
pub struct Models {
    /// The root model (writes REPL code). `None`: no RLM run is possible.
    pub root: Option<Arc<dyn LanguageModel>>,
    /// The sub-model (`llm_query`, composing heuristic answers). Defaults to the root.
    pub sub: Option<Arc<dyn LanguageModel>>,
}

/// Something that happened during an `ask`, as it happens (what a server streams).
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub enum AskEvent<'a> {
    /// A line of the RLM run's trajectory: its header, each root turn (reply,
    /// code, output, sub-calls, tokens, time), its final line.
    Run(&'a rlm_core::TraceLine),
    /// A remark for the user (a fallback, a repair turn).
    Note(&'a str),
    /// The answer text before verification.
    Draft(&'a str),
}

/// Where [`AskEvent`]s go; the default sends them nowhere.
#[derive(Clone, Default)]
pub struct Events(Option<EventFn>);

/// A receiver of [`AskEvent`]s.
type EventFn = Arc<dyn Fn(&AskEvent<'_>) + Send + Sync>;

impl Events {
    /// Events delivered to `f`, on whatever thread the run is on.
    pub fn to(f: impl Fn(&AskEvent<'_>) + Send + Sync + 'static) -> Self {
        Self(Some(Arc::new(f)))
    }

    /// Deliver `event`.
    pub fn send(&self, event: &AskEvent<'_>) {
        if let Some(f) = &self.0 {
            f(event);
        }
    }

    /// The run observer that turns trajectory lines into [`AskEvent::Run`].
    pub(crate) fn observer(&self) -> Option<rlm_core::Observer> {
        let f = self.0.clone()?;
        Some(Arc::new(move |line: &rlm_core::TraceLine| {
            f(&AskEvent::Run(line))
        }))
    }
}

impl std::fmt::Debug for Events {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.0.is_some() {
            "Events(on)"
        } else {
            "Events(off)"
        })
    }
}

/// Settings of one `ask`.
#[derive(Debug, Clone, Default)]
pub struct AskOptions {
    /// Strategy.
    pub strategy: Strategy,
    /// RLM configuration (profile, budgets, cache, trajectory path…).
    pub rlm: RlmConfig,
    /// Give the root model one repair turn listing failing claims (SPEC §7.3).
    pub strict: bool,
    /// Citation checker settings.
    pub check: CheckOptions,
    /// Where the run's events go as they happen.
    pub events: Events,
}

/// A verified answer.
#[derive(Debug, Clone, Serialize)]
pub struct Answer {
    /// The question.
    pub question: String,
    /// The short answer the text opens with (SPEC §7.3), when there is one.
    pub short_answer: Option<ShortAnswer>,
    /// The answer checked as an answer to the question: the chain of cited
    /// facts from the question to the short answer, or why there is none.
    pub answer_check: AnswerCheck,
    /// What the question asks for (person, place, date, number, yes/no, …).
    pub answer_type: AnswerType,
    /// The sources carry no answer of the asked type: the text is the closest evidence.
    pub not_found: bool,
    /// The answer text with inline citations (`[c12.s3]`).
    pub text: String,
    /// What produced it.
    pub method: Method,
    /// The checker's report: claims, verdicts, footnotes, totals.
    pub verification: Report,
    /// Whether there is an answer, every factual claim of it is supported,
    /// and the answer check finds that it answers the question
    /// ([`crate::AnswerVerdict::Answers`]; never true for a "not found" answer).
    pub verified: bool,
    /// Whether a `--strict` repair turn was used.
    pub repaired: bool,
    /// Why the run stopped, in words.
    pub stop_reason: String,
    /// Model usage.
    pub usage: Totals,
    /// Chunk and sentence ids the run read.
    pub read_ids: Vec<String>,
    /// The trajectory file, when one was written.
    pub trajectory: Option<PathBuf>,
    /// Why the root model's run was set aside for the heuristic strategy, if it was.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fallback: Option<FallbackReason>,
}

/// Errors of [`ask`].
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum AskError {
    /// `--strategy rlm` without a root model.
    #[error("the rlm strategy needs a root model, and none is configured")]
    NoRootModel,
    /// The store failed.
    #[error("store: {0}")]
    Store(#[from] rlmkg_ingest::StoreError),
    /// The RLM run failed.
    #[error(transparent)]
    Rlm(#[from] RlmError),
    /// A model call failed.
    #[error(transparent)]
    Model(#[from] rlm_core::ModelError),
    /// The checker could not read its sources.
    #[error("verification: {0}")]
    Verify(#[from] rlmkg_citation::SourceError),
    /// The runtime failed.
    #[error("{0}")]
    Runtime(String),
}

/// A way to answer a question over a store, verified against its sources.
/// The RLM and the heuristic are its two implementations, and peers: [`ask`]
/// picks one, and an RLM run whose model gave no usable answer hands the
/// question to the heuristic through this same trait.
pub trait AnswerStrategy {
    /// Answer `question` (read once, by [`ask`]) in `run`, with the
    /// answer's claims checked.
    fn answer(
        &self,
        run: &mut Run<'_>,
        question: &Question,
    ) -> impl Future<Output = Result<Answer, AskError>> + Send;
}

/// What one `ask` gives a strategy: the store, its citation sources, the
/// options, and where remarks go.
pub struct Run<'a> {
    /// The store asked.
    pub store: Arc<Store>,
    /// The store as the citation checker's source of cited text.
    pub spans: StoreSpans,
    /// The options of this `ask`.
    pub opts: &'a AskOptions,
    /// Human-readable remarks (strategy fallbacks, repairs) for the caller to show.
    pub note: &'a mut (dyn FnMut(&str) + Send),
}

impl Run<'_> {
    /// The answer check of `short` with `report`'s citations (a store
    /// error is the answer's error: the check reads what the report cites).
    pub(crate) fn check_answer(
        &self,
        question: &Question,
        short: Option<&ShortAnswer>,
        report: &Report,
    ) -> Result<AnswerCheck, AskError> {
        Ok(crate::answer_check::check_answer(
            &self.store,
            question,
            short.map(|s| s.text.as_str()),
            report,
        )?)
    }
}

impl<'a> Run<'a> {
    /// A run over `store` with `opts`, sending remarks to `note`.
    pub fn new(
        store: Arc<Store>,
        opts: &'a AskOptions,
        note: &'a mut (dyn FnMut(&str) + Send),
    ) -> Self {
        Self {
            spans: StoreSpans::new(Arc::clone(&store)),
            store,
            opts,
            note,
        }
    }
}

/// Answer `question` over `store`, then verify the answer's citations. The
/// question is read here, once ([`Question::read`]); everything that answers
/// it reads that.
///
/// `note` receives human-readable remarks (strategy fallbacks, repair turns) for
/// the caller to show; the library prints nothing.
pub async fn ask(
    store: Arc<Store>,
    question: &str,
    models: &Models,
    opts: &AskOptions,
    note: &mut (dyn FnMut(&str) + Send),
) -> Result<Answer, AskError> {
    let events = opts.events.clone();
    let mut note = |m: &str| {
        note(m);
        events.send(&AskEvent::Note(m));
    };
    let note: &mut (dyn FnMut(&str) + Send) = &mut note;
    let root = match (opts.strategy, &models.root) {
        (Strategy::Rlm, None) => return Err(AskError::NoRootModel),
        (Strategy::Rlm | Strategy::Auto, Some(root)) => Some(Arc::clone(root)),
        (Strategy::Auto, None) => {
            note("no root model configured: using the heuristic strategy (SPEC §5.5)");
            None
        }
        (Strategy::Heuristic, _) => None,
    };
    let question = &Question::read(question);
    let mut run = Run::new(store, opts, note);
    if let Some(root) = root {
        let sub = models.sub.clone().unwrap_or_else(|| Arc::clone(&root));
        return RlmStrategy::new(root, sub).answer(&mut run, question).await;
    }
    let composer = models.sub.as_ref().or(models.root.as_ref()).map(|m| {
        let meter = Meter::new(opts.rlm.budgets.clone());
        opts.rlm.client(Arc::clone(m), opts.rlm.sub_price, meter)
    });
    Heuristic::new(composer.as_ref())
        .answer(&mut run, question)
        .await
}
