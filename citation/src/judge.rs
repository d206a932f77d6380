//! The optional model judge for claims the lexical checker leaves `partial`
//! (SPEC §7.2, `--judge`). The crate stays model-free: a [`Judge`] is anything that
//! answers a [`JudgeRequest`]; the prompt ([`JudgeRequest::prompt`]) and the reply
//! parser ([`parse_reply`]) live here. The CLI adapts `rlm_core::LanguageModel`
//! and caches calls like every other model call; the judge says whether an answer
//! came from a cache so the report can show it.

use serde::{Deserialize, Serialize};

use crate::check::{JudgeNote, Reason, ReasonKind, Report, Verdict};

/// What the judge decides.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum JudgeVerdict {
    /// The evidence carries the whole claim.
    Supported,
    /// The evidence carries part of the claim.
    Partial,
    /// The evidence does not carry the claim.
    Unsupported,
}

/// One question to the judge.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct JudgeRequest {
    /// Index of the claim in the report.
    pub claim_index: usize,
    /// The claim.
    pub claim: String,
    /// The cited sentences.
    pub evidence: Vec<String>,
}

impl JudgeRequest {
    /// The system and user prompt for a chat model: one yes/no question, whether
    /// the evidence states everything the claim says. Small local models answer a
    /// binary question far better than a three-way label: asked for one of
    /// SUPPORTED / PARTIAL / UNSUPPORTED on WiCE dev, Qwen2.5-Coder-0.5B said
    /// PARTIAL to all 207 clauses and the 1.5B UNSUPPORTED to 29 of 30.
    pub fn prompt(&self) -> (String, String) {
        let system = "You are a careful fact checker. You compare a claim with evidence sentences \
                      and answer with one word, YES or NO."
            .to_string();
        let mut user = String::from("Evidence:\n");
        for e in &self.evidence {
            user.push_str(&format!("- {}\n", e.trim()));
        }
        user.push_str(&format!(
            "\nClaim: {}\n\nDoes the evidence state everything the claim says? Answer YES or NO.",
            self.claim.trim()
        ));
        (system, user)
    }
}

/// Parse a judge reply. YES (the evidence states the whole claim) is
/// `Supported` and NO is `Partial`: the judge only sees claims the lexical check
/// left `partial`, and a NO keeps them so. A reply naming a label (SUPPORTED /
/// PARTIAL / UNSUPPORTED, case-insensitive; the first one it contains) is read
/// as that label. `None` if the reply is neither.
pub fn parse_reply(reply: &str) -> Option<JudgeVerdict> {
    let upper = reply.to_uppercase();
    let find = |w: &str| upper.find(w);
    let candidates = [
        (
            find("UNSUPPORTED").or_else(|| find("NOT SUPPORTED")),
            JudgeVerdict::Unsupported,
        ),
        (find("PARTIAL"), JudgeVerdict::Partial),
        // "SUPPORTED" inside "UNSUPPORTED" is not a match.
        (
            upper.match_indices("SUPPORTED").map(|(i, _)| i).find(|i| {
                !upper[..*i].ends_with("UN")
                    && !upper[..*i].ends_with("NOT ")
                    && !upper[..*i].ends_with("PARTIALLY ")
            }),
            JudgeVerdict::Supported,
        ),
    ];
    if let Some((_, v)) = candidates
        .into_iter()
        .filter_map(|(pos, v)| pos.map(|p| (p, v)))
        .min_by_key(|(p, _)| *p)
    {
        return Some(v);
    }
    // The first word, for a YES / NO answer ("Yes.", "no, the evidence …").
    let first: String = upper
        .trim_start()
        .chars()
        .take_while(|c| c.is_ascii_alphabetic())
        .collect();
    match first.as_str() {
        "YES" => Some(JudgeVerdict::Supported),
        "NO" => Some(JudgeVerdict::Partial),
        _ => None,
    }
}

/// A failure of the judge (the model call, or an unreadable reply).
#[derive(Debug, thiserror::Error)]
#[error("judge failed: {message}")]
pub struct JudgeError {
    /// What went wrong.
    pub message: String,
}

impl JudgeError {
    /// A judge error with a message.
    pub fn new(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
        }
    }
}

/// A judge's answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct JudgeAnswer {
    /// The decision.
    pub verdict: JudgeVerdict,
    /// Whether it came from a cache rather than a fresh call.
    pub cached: bool,
}

/// Anything that can judge a claim against evidence.
pub trait Judge {
    /// A stable identifier (backend and model), shown in the report.
    fn id(&self) -> String;
    /// Decide one request.
    fn judge(&self, request: &JudgeRequest) -> Result<JudgeAnswer, JudgeError>;
}

impl Report {
    /// Judge requests for every claim left `partial`.
    pub fn judge_requests(&self) -> Vec<JudgeRequest> {
        self.claims
            .iter()
            .filter(|c| c.verdict == Verdict::Partial)
            .map(|c| JudgeRequest {
                claim_index: c.index,
                claim: c.text.clone(),
                evidence: if c.context.is_empty() {
                    c.evidence.iter().map(|e| e.text.clone()).collect()
                } else {
                    c.context.clone()
                },
            })
            .collect()
    }

    /// Apply the judge's verdict to a claim (and recompute totals).
    pub fn apply_judgement(
        &mut self,
        claim_index: usize,
        verdict: JudgeVerdict,
        judge: &str,
        cached: bool,
    ) {
        let Some(c) = self.claims.get_mut(claim_index) else {
            return;
        };
        let lexical = c.verdict;
        c.verdict = match verdict {
            JudgeVerdict::Supported => Verdict::Supported,
            JudgeVerdict::Partial => Verdict::Partial,
            JudgeVerdict::Unsupported => Verdict::Unsupported,
        };
        c.reasons.push(Reason {
            kind: ReasonKind::Judge,
            detail: format!("judge {judge}: {}", c.verdict.as_str()),
        });
        c.judge = Some(JudgeNote {
            lexical,
            judge: judge.to_string(),
            cached,
        });
        if c.verdict == Verdict::Supported {
            // With a single citation it is precise by definition; otherwise keep the lexical view.
            if c.citations.len() == 1 {
                c.citations[0].precise = true;
            }
        }
        self.recompute_totals();
    }

    /// Ask `judge` about every `partial` claim. Returns how many claims were judged.
    pub fn judge_partials(&mut self, judge: &dyn Judge) -> Result<usize, JudgeError> {
        let id = judge.id();
        let requests = self.judge_requests();
        for req in &requests {
            let answer = judge.judge(req)?;
            self.apply_judgement(req.claim_index, answer.verdict, &id, answer.cached);
        }
        Ok(requests.len())
    }
}

#[cfg(test)]
mod tests {
    use std::cell::Cell;

    use super::*;
    use crate::{CheckOptions, MemorySource, check};

    #[test]
    fn parses_replies() {
        assert_eq!(parse_reply("SUPPORTED"), Some(JudgeVerdict::Supported));
        assert_eq!(
            parse_reply("Verdict: unsupported."),
            Some(JudgeVerdict::Unsupported)
        );
        assert_eq!(
            parse_reply("It is partially supported"),
            Some(JudgeVerdict::Partial)
        );
        assert_eq!(
            parse_reply("not supported"),
            Some(JudgeVerdict::Unsupported)
        );
        assert_eq!(parse_reply("YES"), Some(JudgeVerdict::Supported));
        assert_eq!(parse_reply("Yes."), Some(JudgeVerdict::Supported));
        assert_eq!(
            parse_reply("No, it does not say when."),
            Some(JudgeVerdict::Partial)
        );
        assert_eq!(parse_reply("Nobody knows"), None);
        // "No" keeps the claim partial, whatever follows.
        assert_eq!(parse_reply("no idea"), Some(JudgeVerdict::Partial));
        assert_eq!(parse_reply("maybe"), None);
    }

    struct Always(Cell<usize>);
    impl Judge for Always {
        fn id(&self) -> String {
            "test:always-supported".into()
        }
        fn judge(&self, _: &JudgeRequest) -> Result<JudgeAnswer, JudgeError> {
            self.0.set(self.0.get() + 1);
            Ok(JudgeAnswer {
                verdict: JudgeVerdict::Supported,
                cached: false,
            })
        }
    }

    #[test]
    fn judges_only_partials() {
        let mut src = MemorySource::new();
        src.insert(
            1,
            "a.md",
            vec!["The bridge opened in 1932 after six years of work.".into()],
        );
        let answer = "The bridge opened in 1932 to great public celebration [c1]. The bridge opened in 1933 [c1].";
        let mut report = check(answer, &src, &CheckOptions::default()).unwrap();
        assert_eq!(report.claims[0].verdict, Verdict::Partial);
        assert_eq!(report.claims[1].verdict, Verdict::Overreach);
        let judge = Always(Cell::new(0));
        assert_eq!(report.judge_partials(&judge).unwrap(), 1);
        assert_eq!(judge.0.get(), 1);
        assert_eq!(report.claims[0].verdict, Verdict::Supported);
        assert_eq!(
            report.claims[0].judge.as_ref().unwrap().lexical,
            Verdict::Partial
        );
        assert_eq!(report.claims[1].verdict, Verdict::Overreach);
        assert_eq!(report.totals.citation_recall, Some(0.5));
    }
}
