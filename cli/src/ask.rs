//! `ask` as a library call: pick a strategy, run it, verify the answer.
//!
//! The CLI's `rlmkg ask` and the library facade both go through [`ask`].

use std::path::PathBuf;
use std::sync::Arc;

use rlm_core::{
    FallbackReason, LanguageModel, Meter, ModelClient, Rlm, RlmConfig, RlmError, Totals,
};
use rlmkg_citation::{CheckOptions, Report};
use rlmkg_ingest::Store;
use serde::Serialize;

use crate::handle::StoreHandle;
use crate::heuristic::short::{AnswerType, ShortAnswer};
use crate::heuristic::{self, ExploreOptions};

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

crate::named::named_display_from_str!(Strategy);

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
    /// The short answer the text opens with (SPEC §7.3), when there is one.
    pub short_answer: Option<ShortAnswer>,
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
    /// Whether there is an answer and every factual claim of it is supported
    /// (never true for a "not found" answer).
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
        if let Some(reason) = outcome.fallback.clone() {
            note(&format!(
                "{reason}: answering with the heuristic strategy (evidence composed by the model) instead"
            ));
            let composer = Some(rlm.sub_client());
            let mut answer =
                heuristic_answer(&store, question, composer, opts, &spans, note).await?;
            let verification = serde_json::json!({
                "fallback": reason,
                "answered_by": answer.method,
                "report": answer.verification,
            });
            session.finish(verification)?;
            answer.stop_reason = format!("{}; {}", outcome.stop_reason, answer.stop_reason);
            // The fallback composed through the run's own sub client: one account.
            answer.usage = rlm.totals();
            answer.trajectory = outcome.trajectory;
            answer.fallback = Some(reason);
            return Ok(answer);
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
        let answer_type = heuristic::short::answer_type(question);
        let short_answer = rlm_short_answer(&report, &answer_type);
        return Ok(Answer {
            question: question.to_owned(),
            not_found: text.trim().is_empty(),
            short_answer,
            answer_type,
            text,
            method: Method::Rlm,
            verified,
            verification: report,
            repaired,
            stop_reason: outcome.stop_reason,
            usage: outcome.usage,
            read_ids: outcome.read_ids,
            trajectory: outcome.trajectory,
            fallback: None,
        });
    }
    let composer = models.sub.as_ref().or(models.root.as_ref()).map(|m| {
        let meter = Meter::new(opts.rlm.budgets.clone());
        opts.rlm.client(Arc::clone(m), opts.rlm.sub_price, meter)
    });
    heuristic_answer(&store, question, composer.as_ref(), opts, &spans, note).await
}

/// The short answer of an RLM answer: its first claim, when it is short (the
/// prompt asks for the short answer first).
fn rlm_short_answer(report: &Report, kind: &AnswerType) -> Option<ShortAnswer> {
    let first = report
        .claims
        .iter()
        .find(|c| c.verdict != rlmkg_citation::Verdict::Exempt)?;
    let text = first.text.trim().trim_end_matches(['.', '!']).trim();
    (!text.is_empty() && text.split_whitespace().count() <= 8).then(|| ShortAnswer {
        text: text.to_owned(),
        kind: kind.clone(),
        citation: first
            .citations
            .iter()
            .find_map(|c| c.id.clone())
            .unwrap_or_default(),
    })
}

/// The heuristic strategy (SPEC §5.5): evidence, the short answer by answer type,
/// then a composed answer (checked claim by claim, with evidence repair) or an
/// extractive one; "not found" when no evidence carries an answer of the asked type.
async fn heuristic_answer(
    store: &Arc<Store>,
    question: &str,
    composer: Option<&ModelClient>,
    opts: &AskOptions,
    spans: &crate::spans::StoreSpans,
    note: &mut (dyn FnMut(&str) + Send),
) -> Result<Answer, AskError> {
    let explore_store = Arc::clone(store);
    let q = question.to_owned();
    let (found, answer_type, picked, absent) = tokio::task::spawn_blocking(move || {
        let found = heuristic::explore(&explore_store, &q, &ExploreOptions::default())?;
        // A question about something the corpus never names: whatever candidate
        // of the asked type the evidence holds answers another question.
        let absent = heuristic::unmatched_names(&explore_store, &q);
        let (kind, picked) = if absent.is_empty() {
            heuristic::short_answer(&explore_store, &found)
        } else {
            (heuristic::short::answer_type(&q), None)
        };
        Ok::<_, rlmkg_ingest::StoreError>((found, kind, picked, absent))
    })
    .await
    .map_err(|e| AskError::Runtime(e.to_string()))??;
    let read_ids: Vec<String> = found.evidence.iter().map(|e| e.id.clone()).collect();
    let mut composed = None;
    if let Some(client) = composer.filter(|_| !found.evidence.is_empty()) {
        match heuristic::compose(client, &found).await {
            Ok(reply) => {
                composed = compose_checked(
                    &reply,
                    &found,
                    picked.as_ref(),
                    &answer_type,
                    spans,
                    opts,
                    note,
                )?;
            }
            Err(e) => note(&format!(
                "the sub-model failed ({e}): falling back to the extractive answer"
            )),
        }
    }
    let (text, method, report, short_answer) = match composed {
        Some((text, report, short)) => (text, Method::HeuristicComposed, report, short),
        None => {
            let text = match &picked {
                Some(short) => heuristic::answer_with_short(short, &found),
                None => heuristic::extractive_answer(&found),
            };
            if found.evidence.is_empty() {
                note("the corpus has no evidence for this question");
            }
            let report = rlmkg_citation::check(&text, spans, &opts.check)?;
            (text, Method::Extractive, report, picked)
        }
    };
    let not_found = short_answer.is_none();
    if not_found {
        if absent.is_empty() {
            note(&format!(
                "not found: no evidence sentence names {} for this question; showing the closest evidence",
                answer_type.describe()
            ));
        } else {
            note(&format!(
                "not found: the sources never mention {}; showing the closest evidence",
                absent.join(", ")
            ));
        }
    }
    let verified = !not_found && !text.trim().is_empty() && report.all_supported();
    Ok(Answer {
        question: question.to_owned(),
        short_answer,
        answer_type,
        not_found,
        text,
        method,
        verified,
        verification: report,
        repaired: false,
        stop_reason: match method {
            Method::Extractive => "extractive answer from heuristic evidence".to_owned(),
            _ => "heuristic evidence composed by the sub-model".to_owned(),
        },
        usage: composer.map(|c| c.meter().totals()).unwrap_or_default(),
        read_ids,
        trajectory: None,
        fallback: None,
    })
}

/// Check a composed reply claim by claim: cite what the evidence supports (evidence
/// repair), take its short answer when the checker supports it (else the extractive
/// pick, cited), and keep the answer when anything of it verifies; failing claims
/// stay, marked by their verdicts. `None`: nothing verified, use the extractive answer.
fn compose_checked(
    reply: &str,
    found: &heuristic::Exploration,
    picked: Option<&ShortAnswer>,
    kind: &AnswerType,
    spans: &crate::spans::StoreSpans,
    opts: &AskOptions,
    note: &mut (dyn FnMut(&str) + Send),
) -> Result<Option<(String, Report, Option<ShortAnswer>)>, AskError> {
    use rlmkg_citation::Verdict;
    let parsed = heuristic::parse_composed(reply);
    let (explanation, repair) =
        heuristic::cite_from_evidence(&parsed.explanation, &found.evidence, spans, &opts.check)?;
    if repair.cited + repair.repaired > 0 {
        note(&format!(
            "evidence repair: cited {} uncited and completed {} partly cited claim(s) from the evidence",
            repair.cited, repair.repaired
        ));
    }
    // The model's short answer, checked like any claim; a bare yes/no carries no
    // words to check, so it stands on the sentence it cites (checked in the opening).
    let yes_no = parsed.short.as_deref().and_then(|raw| {
        let lower = raw.trim().to_ascii_lowercase();
        let word = ["yes", "no"].into_iter().find(|w| {
            lower.starts_with(w) && !lower[w.len()..].starts_with(|c: char| c.is_alphanumeric())
        })?;
        let cited = rlmkg_citation::check(&format!("{raw}."), spans, &opts.check)
            .ok()
            .and_then(|r| {
                r.claims
                    .iter()
                    .flat_map(|c| c.citations.iter())
                    .find(|c| c.resolved)
                    .and_then(|c| c.id.clone())
            })
            .or_else(|| picked.map(|p| p.citation.clone()))?;
        Some(ShortAnswer {
            text: word.to_owned(),
            kind: kind.clone(),
            citation: cited,
        })
    });
    let model_short = match parsed.short.as_deref() {
        _ if *kind == AnswerType::YesNo => yes_no,
        Some(raw) => {
            let (line, _) =
                heuristic::cite_from_evidence(raw, &found.evidence, spans, &opts.check)?;
            let r = rlmkg_citation::check(&line, spans, &opts.check)?;
            match r.claims.as_slice() {
                [one] if one.verdict == Verdict::Supported => Some(ShortAnswer {
                    text: one.text.trim().trim_end_matches(['.', '!']).to_owned(),
                    kind: kind.clone(),
                    citation: one
                        .citations
                        .iter()
                        .find_map(|c| c.id.clone())
                        .unwrap_or_default(),
                }),
                _ => {
                    note(&format!(
                        "the sub-model's short answer ({raw}) does not verify; using the one read off the evidence"
                    ));
                    None
                }
            }
        }
        None => None,
    };
    // A yes/no or a choice between named options is a judgement the checker
    // cannot verify (both options, or the sentence behind a "yes", are cited
    // either way); the extractive pick compares each item's own sentence, so it
    // stands when it has one.
    let judged = matches!(kind, AnswerType::YesNo | AnswerType::Choice(_));
    let short = match (judged, picked) {
        (true, Some(p)) => {
            if model_short.as_ref().is_some_and(|m| m.text != p.text) {
                note(&format!(
                    "the sub-model's short answer differs from the comparison of the evidence ({}); using the comparison",
                    p.text
                ));
            }
            Some(p.clone())
        }
        _ => model_short.or_else(|| picked.cloned()),
    };
    let opening = short.as_ref().map(|s| {
        if s.kind == AnswerType::YesNo {
            heuristic::answer_with_short(s, found)
                .split("\n\n")
                .next()
                .unwrap_or_default()
                .to_owned()
        } else {
            format!("{} [{}].", s.text.trim_end_matches('.'), s.citation)
        }
    });
    let text = match (&opening, explanation.trim().is_empty()) {
        (Some(o), false) => format!("{o}\n\n{}", explanation.trim()),
        (Some(o), true) => o.clone(),
        (None, _) => explanation.trim().to_owned(),
    };
    let report = rlmkg_citation::check(&text, spans, &opts.check)?;
    let any_supported = report
        .claims
        .iter()
        .any(|c| c.verdict == Verdict::Supported);
    if !any_supported {
        note(&format!(
            "the sub-model's answer has no supported claim ({}); showing the extractive answer",
            reply.replace('\n', " ")
        ));
        return Ok(None);
    }
    Ok(Some((text, report, short)))
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
