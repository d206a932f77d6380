//! The heuristic strategy (SPEC §5.5) as an [`AnswerStrategy`]: evidence, the
//! short answer by answer type, then a composed answer (checked claim by claim,
//! with evidence repair) or an extractive one; "not found" when no evidence
//! carries an answer of the asked type.

use std::sync::Arc;

use rlm_core::{CallError, ChatRequest, Message, ModelClient, Sampling};
use rlmkg_citation::Report;
use rlmkg_ingest::{Store, StoreError};

use super::{Answer, AnswerStrategy, AskError, AskOptions, Method, Run};
use rlmkg_heuristic::short::{AnswerType, ShortAnswer};
use rlmkg_heuristic::{self as heuristic, Exploration, ExploreOptions, Question};

/// The heuristic strategy, composing its evidence through `composer` when
/// there is one (else answering extractively).
pub struct Heuristic<'c> {
    composer: Option<&'c ModelClient>,
    explore: ExploreOptions,
}

impl<'c> Heuristic<'c> {
    /// The strategy, with an optional composing model client.
    pub fn new(composer: Option<&'c ModelClient>) -> Self {
        Self {
            composer,
            explore: ExploreOptions::default(),
        }
    }

    /// The strategy's evidence for `question` (what `context.explore` shows).
    pub fn explore(&self, store: &Store, question: &Question) -> Result<Exploration, StoreError> {
        heuristic::explore(store, question, &self.explore)
    }
}

impl AnswerStrategy for Heuristic<'_> {
    async fn answer(&self, run: &mut Run<'_>, question: &Question) -> Result<Answer, AskError> {
        let (opts, spans, note) = (run.opts, &run.spans, &mut *run.note);
        let composer = self.composer;
        let store = Arc::clone(&run.store);
        let explore = self.explore.clone();
        let q = question.clone();
        let (found, answer_type, picked, absent) = tokio::task::spawn_blocking(move || {
            let found = heuristic::explore(store.as_ref(), &q, &explore)?;
            // A question about something the corpus never names: whatever candidate
            // of the asked type the evidence holds answers another question.
            let absent = heuristic::unmatched_names(store.as_ref(), &q);
            let (kind, picked) = if absent.is_empty() {
                heuristic::short_answer(store.as_ref(), &q, &found)
            } else {
                (q.answer_type().clone(), None)
            };
            let mut found = found;
            if let Some(short) = &picked {
                cite_chain(store.as_ref(), &q, &short.text, &mut found)?;
            }
            Ok::<_, StoreError>((found, kind, picked, absent))
        })
        .await
        .map_err(|e| AskError::Runtime(e.to_string()))??;
        let read_ids: Vec<String> = found.evidence.iter().map(|e| e.id.clone()).collect();
        let mut composed = None;
        if let Some(client) = composer.filter(|_| !found.evidence.is_empty()) {
            match compose(client, &found).await {
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
        opts.events.send(&super::AskEvent::Draft(&text));
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
        let answer_check = run.check_answer(question, short_answer.as_ref(), &report)?;
        let verified = !not_found
            && !text.trim().is_empty()
            && report.all_supported()
            && answer_check.answers();
        Ok(Answer {
            question: question.text().to_owned(),
            answer_check,
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
}

/// The sentences of the chain of facts the store holds from the question's
/// names to `short` (the answer check's own walk, `find_chain`), put first
/// in the evidence when the evidence lacks them: an answer read off the
/// evidence then cites each step, and the check sees the chain. Nothing is
/// added when the store holds no such chain.
fn cite_chain(
    store: &Store,
    question: &Question,
    short: &str,
    found: &mut Exploration,
) -> Result<(), StoreError> {
    let Some(chain) = crate::answer_check::find_chain(store, question, short)? else {
        return Ok(());
    };
    let mut add = Vec::new();
    for hop in &chain {
        if found.evidence.iter().any(|e| e.id == hop.sentence)
            || add
                .iter()
                .any(|e: &heuristic::Evidence| e.id == hop.sentence)
        {
            continue;
        }
        let passage = store.read(&hop.sentence)?;
        let Some(sentence) = passage.sentences.iter().find(|s| s.id == hop.sentence) else {
            continue;
        };
        add.push(heuristic::Evidence {
            id: sentence.id.clone(),
            chunk: passage.chunk.to_string(),
            title: passage.doc.title.clone(),
            path: passage.doc.path.clone(),
            text: sentence.text.trim().to_owned(),
            score: 0.0,
            about: None,
        });
    }
    found.evidence.splice(0..0, add);
    Ok(())
}

/// Check a composed reply claim by claim: cite what the evidence supports (evidence
/// repair), take its short answer when the checker supports it (else the extractive
/// pick, cited), and keep the answer when anything of it verifies; failing claims
/// stay, marked by their verdicts. `None`: nothing verified, use the extractive answer.
fn compose_checked(
    reply: &str,
    found: &Exploration,
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

/// Ask the sub-model once (through its client: cache, retries, budgets,
/// usage) to compose a cited answer from the evidence.
async fn compose(client: &ModelClient, x: &Exploration) -> Result<String, CallError> {
    let mut evidence = String::new();
    for e in &x.evidence {
        evidence.push_str(&format!("[{}] ({}) {}\n", e.id, e.title, e.text));
    }
    let system = "You answer questions using only the numbered evidence sentences you are given. \
Reply in exactly this form:\n\
Short answer: <only the name, place, date, number, or yes/no the question asks for> [id]\n\
Explanation: <one to three short sentences, each ending with the ids of the evidence sentences that support it>\n\
Write the ids in square brackets exactly as given, e.g. [c12.s3]. Do not add facts that the evidence does not state. \
If the evidence does not answer the question, write: Short answer: not found";
    let user = format!("Evidence:\n{evidence}\nQuestion: {}\n", x.question);
    let request = ChatRequest {
        messages: vec![Message::system(system), Message::user(user)],
        sampling: Sampling {
            temperature: Some(0.0),
            max_tokens: Some(200),
            seed: Some(0),
            ..Sampling::default()
        },
        ..Default::default()
    };
    let reply = client.chat(&request).await.result?;
    Ok(reply.content.trim().to_owned())
}
