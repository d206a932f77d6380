//! `ask` as a library call: pick a strategy, run it, verify the answer.
//!
//! The CLI's `rlmkg ask` and the library facade both go through [`ask`].

use std::path::PathBuf;
use std::sync::Arc;

use rlm_core::{LanguageModel, Rlm, RlmConfig, RlmError, Totals};
use rlmkg_citation::{CheckOptions, Report};
use rlmkg_ingest::Store;
use serde::Serialize;

use crate::handle::StoreHandle;
use crate::heuristic::{self, ExploreOptions};

/// Which strategy answers the question.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, clap::ValueEnum)]
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
}

/// A verified answer.
#[derive(Debug, Clone, Serialize)]
pub struct Answer {
    /// The question.
    pub question: String,
    /// The answer text with inline citations (`[c12.s3]`).
    pub text: String,
    /// What produced it.
    pub method: Method,
    /// The checker's report: claims, verdicts, footnotes, totals.
    pub verification: Report,
    /// Whether every factual claim is supported (and there is an answer).
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
}

/// Errors of [`ask`].
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum AskError {
    /// `--strategy rlm` without a root model.
    #[error("the rlm strategy needs a root model: pass --base-url and --model (or --model-path)")]
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

/// Answer `question` over `store`, then verify the answer's citations.
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
    let use_rlm = match (opts.strategy, &models.root) {
        (Strategy::Rlm, None) => return Err(AskError::NoRootModel),
        (Strategy::Rlm | Strategy::Auto, Some(_)) => true,
        (Strategy::Auto, None) => {
            note("no root model configured: using the heuristic strategy (SPEC §5.5)");
            false
        }
        (Strategy::Heuristic, _) => false,
    };
    let spans = crate::spans::StoreSpans::new(Arc::clone(&store));
    if use_rlm {
        let Some(root) = models.root.clone() else {
            return Err(AskError::NoRootModel);
        };
        let sub = models.sub.clone().unwrap_or_else(|| Arc::clone(&root));
        let handle = Arc::new(StoreHandle::new(Arc::clone(&store)));
        let rlm = Rlm::new(opts.rlm.clone(), root, sub, handle);
        let (mut session, mut outcome) = rlm.run(question).await?;
        for w in &outcome.warnings {
            note(w);
        }
        let mut text = outcome.answer.clone().unwrap_or_default();
        let mut report = rlmkg_citation::check(&text, &spans, &opts.check)?;
        let mut repaired = false;
        if opts.strict && !report.all_supported() {
            note("--strict: asking the root model to repair the failing claims");
            outcome = session.repair(&repair_message(&report)).await?;
            if let Some(new) = outcome.answer.clone() {
                text = new;
                report = rlmkg_citation::check(&text, &spans, &opts.check)?;
            }
            repaired = true;
        }
        let verified = !text.trim().is_empty() && report.all_supported();
        let verification = serde_json::to_value(&report).unwrap_or_default();
        session.finish(verification)?;
        return Ok(Answer {
            question: question.to_owned(),
            text,
            method: Method::Rlm,
            verified,
            verification: report,
            repaired,
            stop_reason: outcome.stop_reason,
            usage: outcome.usage,
            read_ids: outcome.read_ids,
            trajectory: outcome.trajectory,
        });
    }

    let explore_store = Arc::clone(&store);
    let q = question.to_owned();
    let found = tokio::task::spawn_blocking(move || {
        heuristic::explore(&explore_store, &q, &ExploreOptions::default())
    })
    .await
    .map_err(|e| AskError::Runtime(e.to_string()))??;
    let read_ids: Vec<String> = found.evidence.iter().map(|e| e.id.clone()).collect();
    let mut usage = Totals::default();
    // A composed answer, kept only when some claim of it verifies: small models
    // often drop the citations, and an answer nothing can verify is worth less than
    // the evidence itself.
    let mut composed = None;
    if let Some(sub) = models.sub.as_ref().filter(|_| !found.evidence.is_empty()) {
        match heuristic::compose(sub.as_ref(), &found).await {
            Ok((text, u)) => {
                usage.calls += 1;
                usage.prompt_tokens += u.prompt_tokens;
                usage.completion_tokens += u.completion_tokens;
                let (text, attached) =
                    heuristic::cite_uncited(&text, &found.evidence, &spans, &opts.check)?;
                if attached > 0 {
                    note(&format!(
                        "the sub-model left {attached} claim(s) uncited; cited them with the evidence sentences that support them"
                    ));
                }
                let report = rlmkg_citation::check(&text, &spans, &opts.check)?;
                let supported = report
                    .claims
                    .iter()
                    .any(|c| c.verdict == rlmkg_citation::Verdict::Supported);
                if supported {
                    composed = Some((text, report));
                } else {
                    note(&format!(
                        "the sub-model's answer has no supported claim ({}); showing the extractive answer",
                        text.replace('\n', " ")
                    ));
                }
            }
            Err(e) => note(&format!(
                "the sub-model failed ({e}): falling back to the extractive answer"
            )),
        }
    }
    let (text, method, report) = match composed {
        Some((text, report)) => (text, Method::HeuristicComposed, report),
        None => {
            let text = heuristic::extractive_answer(&found);
            if text.is_empty() {
                note("the corpus has no evidence for this question");
            }
            let report = rlmkg_citation::check(&text, &spans, &opts.check)?;
            (text, Method::Extractive, report)
        }
    };
    let verified = !text.trim().is_empty() && report.all_supported();
    Ok(Answer {
        question: question.to_owned(),
        text,
        method,
        verified,
        verification: report,
        repaired: false,
        stop_reason: match method {
            Method::Extractive => "extractive answer from heuristic evidence".to_owned(),
            _ => "heuristic evidence composed by the sub-model".to_owned(),
        },
        usage,
        read_ids,
        trajectory: None,
    })
}

/// The `--strict` repair message: the failing claims and why.
fn repair_message(report: &Report) -> String {
    let mut msg = String::from(
        "The citation checker rejected these claims of your answer. Fix them: cite the sentence \
that carries each claim, weaken or remove what the sources do not say, then end with FINAL(...) \
again.\n",
    );
    for c in &report.claims {
        if matches!(
            c.verdict,
            rlmkg_citation::Verdict::Supported | rlmkg_citation::Verdict::Exempt
        ) {
            continue;
        }
        let why: Vec<String> = c.reasons.iter().map(|r| r.to_string()).collect();
        msg.push_str(&format!(
            "- [{}] \"{}\": {}\n",
            c.verdict.as_str(),
            c.text,
            why.join("; ")
        ));
    }
    msg
}
