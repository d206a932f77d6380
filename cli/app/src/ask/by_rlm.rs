//! The recursive language model as an [`AnswerStrategy`]: the root model
//! explores the store through the REPL handle and writes the answer; the
//! answer is checked, repaired once under `--strict`, and handed to the
//! heuristic when the run ends without a usable answer.

use std::sync::Arc;

use rlm_core::{FallbackReason, LanguageModel, Rlm, RunOutcome, Session};
use rlmkg_citation::Report;

use super::{Answer, AnswerStrategy, AskError, Heuristic, Method, Run};
use crate::handle::StoreHandle;
use rlmkg_heuristic::Question;

/// The RLM strategy: a root model writing REPL code, a sub-model for its calls.
pub struct RlmStrategy {
    root: Arc<dyn LanguageModel>,
    sub: Arc<dyn LanguageModel>,
}

impl RlmStrategy {
    /// The strategy with these root and sub models.
    pub fn new(root: Arc<dyn LanguageModel>, sub: Arc<dyn LanguageModel>) -> Self {
        Self { root, sub }
    }
}

impl AnswerStrategy for RlmStrategy {
    async fn answer(&self, run: &mut Run<'_>, question: &Question) -> Result<Answer, AskError> {
        let opts = run.opts;
        let handle = Arc::new(
            StoreHandle::new(Arc::clone(&run.store))
                .reviewing(opts.check.clone())
                .with_question(Arc::new(question.clone())),
        );
        let mut rlm = Rlm::new(
            opts.rlm.clone(),
            Arc::clone(&self.root),
            Arc::clone(&self.sub),
            handle,
        );
        if let Some(observer) = opts.events.observer() {
            rlm = rlm.with_observer(observer);
        }
        let (mut session, mut outcome) = rlm.run(question.text()).await?;
        for w in &outcome.warnings {
            (run.note)(w);
        }
        if let Some(reason) = outcome.fallback.clone() {
            return fall_back(&rlm, session, outcome, reason, run, question).await;
        }
        let text = outcome.answer.clone().unwrap_or_default();
        opts.events.send(&super::AskEvent::Draft(&text));
        let mended = crate::review::mend(
            &run.store,
            &run.spans,
            &opts.check,
            question,
            &text,
            &outcome.read_ids,
        )?;
        if mended.verbatim > 0 {
            (run.note)(&format!(
                "citation repair: {} uncited claim(s) copied word for word from a sentence the run read cited to it",
                mended.verbatim
            ));
        }
        if mended.recited > 0 {
            (run.note)(&format!(
                "citation repair: {} claim(s) whose citation did not carry them cited from sentences the run read",
                mended.recited
            ));
        }
        if let Some(counted) = &mended.counted {
            (run.note)(counted);
        }
        if !mended.bridged.is_empty() {
            (run.note)(&format!(
                "citation repair: the question's year carried to the answer by {} sentence(s) the run read ({})",
                mended.bridged.len(),
                mended.bridged.join(", ")
            ));
        }
        if !mended.linked.is_empty() {
            (run.note)(&format!(
                "citation repair: the answer linked to the question's next step by {} sentence(s) the run read ({})",
                mended.linked.len(),
                mended.linked.join(", ")
            ));
        }
        if mended.short_cited {
            (run.note)(
                "citation repair: the short answer cited from the answer's own sentence that says it",
            );
        }
        let appended = mended.appended();
        let (mut text, mut report) = (mended.text, mended.report);
        let mut repaired = false;
        if opts.strict && !report.all_supported() {
            (run.note)("--strict: asking the root model to repair the failing claims");
            outcome = session.repair(&repair_message(&report)).await?;
            if let Some(new) = outcome.answer.clone() {
                text = new;
                report = rlmkg_citation::check(&text, &run.spans, &opts.check)?;
            }
            repaired = true;
        }
        let short_answer = match crate::review::standing(
            &run.store,
            question,
            &report,
            &outcome.read_ids,
            &appended,
        ) {
            Ok(short) => short,
            Err(unfit) => {
                let reason = FallbackReason::UnsupportedAnswer {
                    why: unfit.to_string(),
                };
                return fall_back(&rlm, session, outcome, reason, run, question).await;
            }
        };
        // `verified` needs the answer check's `answers` (issue 44), and an
        // RLM answer stands only verified: one its cited facts do not show
        // answering the question (or give for another subject, the founder's
        // cousin's birthplace) hands the question to the heuristic, saying
        // why. "Not found" (no text) stands: it claims nothing.
        let answer_check = run.check_answer(question, short_answer.as_ref(), &report)?;
        let not_found = text.trim().is_empty();
        let verified = !not_found && report.all_supported() && answer_check.answers();
        if !not_found && !verified {
            let why = if answer_check.answers() {
                let supported = report
                    .totals
                    .verdicts
                    .get(&rlmkg_citation::Verdict::Supported)
                    .copied()
                    .unwrap_or(0);
                format!(
                    "the citation check: {supported} of {} factual claims supported",
                    report.totals.factual
                )
            } else {
                format!(
                    "the answer check ({}): {}",
                    answer_check.verdict.name(),
                    answer_check.reason
                )
            };
            let reason = FallbackReason::UnsupportedAnswer {
                why: format!("the RLM's answer was not verified, {why}"),
            };
            return fall_back(&rlm, session, outcome, reason, run, question).await;
        }
        let verification = serde_json::to_value(&report).unwrap_or_default();
        session.finish(verification)?;
        Ok(Answer {
            question: question.text().to_owned(),
            answer_check,
            not_found,
            short_answer,
            answer_type: question.answer_type().clone(),
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
        })
    }
}

/// Hand the question to the heuristic strategy (composing through the run's
/// sub client) when the run ended without an answer that stands, saying why.
async fn fall_back(
    rlm: &Rlm,
    mut session: Session,
    outcome: RunOutcome,
    reason: FallbackReason,
    run: &mut Run<'_>,
    question: &Question,
) -> Result<Answer, AskError> {
    (run.note)(&format!(
        "{reason}: answering with the heuristic strategy (evidence composed by the model) instead"
    ));
    let mut answer = Heuristic::new(Some(rlm.sub_client()))
        .answer(run, question)
        .await?;
    let verification = serde_json::json!({
        "fallback": reason,
        "answered_by": answer.method,
        "report": answer.verification,
    });
    session.finish(verification)?;
    answer.stop_reason = format!("{}; {}", outcome.stop_reason, answer.stop_reason);
    // The fallback composed through the run's own sub client: one account.
    answer.usage = rlm.totals();
    answer.usage.iterations = outcome.usage.iterations;
    answer.trajectory = outcome.trajectory;
    answer.fallback = Some(reason);
    Ok(answer)
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
