//! Answer runs: the `ask` engine behind [`QuestionRunner`], and the description
//! of a run's strategy and models that a resumed evaluation must match.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use rlmkg_ingest::Store;
use serde::{Deserialize, Serialize};

use crate::score::{QuestionRun, QuestionRunner};
use rlmkg::{Answer, AskOptions, Method, Models};

/// Runs each question through [`rlmkg::ask`] on one shared store and one
/// tokio runtime, writing RLM trajectories to `<traces>/<question id>.jsonl`.
pub struct AskRunner {
    store: Arc<Store>,
    models: Models,
    opts: AskOptions,
    traces: Option<PathBuf>,
    runtime: tokio::runtime::Runtime,
}

impl AskRunner {
    /// A runner over `store` with these models and options; `traces` is the
    /// directory for trajectories (none written when `None`).
    pub fn new(
        store: Arc<Store>,
        models: Models,
        opts: AskOptions,
        traces: Option<PathBuf>,
    ) -> crate::Result<Self> {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .build()
            .map_err(crate::EvalError::Runtime)?;
        Ok(Self {
            store,
            models,
            opts,
            traces,
            runtime,
        })
    }
}

impl QuestionRunner for AskRunner {
    fn run(&self, id: &str, question: &str) -> crate::Result<QuestionRun> {
        let started = Instant::now();
        let mut opts = self.opts.clone();
        opts.rlm.trace_path = self
            .traces
            .as_ref()
            .map(|dir| dir.join(format!("{}.jsonl", file_stem(id))));
        let mut notes: Vec<String> = Vec::new();
        let mut note = |msg: &str| notes.push(msg.to_owned());
        let result = self.runtime.block_on(rlmkg::ask(
            Arc::clone(&self.store),
            question,
            &self.models,
            &opts,
            &mut note,
        ));
        let seconds = started.elapsed().as_secs_f64();
        Ok(match result {
            Ok(answer) => QuestionRun {
                seconds,
                notes,
                ..question_run(&answer)
            },
            Err(e) => QuestionRun {
                error: Some(e.to_string()),
                seconds,
                notes,
                ..QuestionRun::default()
            },
        })
    }
}

/// The scored view of an answer: text without citation markers, what was read,
/// the cited sentences (the quoted sentence of each distinct citation) and usage.
pub fn question_run(answer: &Answer) -> QuestionRun {
    let mut cited: Vec<String> = Vec::new();
    for f in &answer.verification.footnotes {
        if !f.quote.trim().is_empty() && !cited.contains(&f.quote) {
            cited.push(f.quote.clone());
        }
    }
    let method = match answer.method {
        Method::Rlm => "rlm",
        Method::HeuristicComposed => "heuristic_composed",
        Method::Extractive => "extractive",
    };
    QuestionRun {
        answer: strip_citations(&answer.text),
        short_answer: answer.short_answer.as_ref().map(|s| s.text.clone()),
        not_found: answer.not_found,
        support_rate: answer.verification.totals.support_rate,
        extractive: answer.method == Method::Extractive,
        method: Some(method.to_owned()),
        verified: Some(answer.verified),
        answer_check: Some(format!(
            "{}: {}",
            answer.answer_check.verdict.name(),
            answer.answer_check.reason
        )),
        fallback: answer.fallback.as_ref().map(ToString::to_string),
        read_ids: answer.read_ids.clone(),
        cited_sentences: cited,
        calls: answer.usage.calls,
        handle_calls: answer.usage.handle_calls,
        sub_calls: answer.usage.sub_calls,
        turns: answer.usage.iterations,
        input_tokens: answer.usage.prompt_tokens,
        output_tokens: answer.usage.completion_tokens,
        seconds: answer.usage.seconds,
        error: None,
        notes: Vec::new(),
    }
}

/// A question id as a file name: characters other than ASCII letters, digits,
/// `-`, `_` and `.` become `_` (and a leading dot too).
pub fn file_stem(id: &str) -> String {
    let mut s: String = id
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.') {
                c
            } else {
                '_'
            }
        })
        .collect();
    if s.is_empty() || s.starts_with('.') {
        s.insert(0, '_');
    }
    s
}

/// The length in bytes of a citation group starting at `rest` (`[c12.s3]`,
/// `[[c1, c2]]`, `【c4】`), if `rest` starts with one. A bracket followed by `(`
/// is a markdown link, not a citation.
fn citation_len(rest: &str) -> Option<usize> {
    let (open, close) = if rest.starts_with('[') {
        ('[', ']')
    } else if rest.starts_with('【') {
        ('【', '】')
    } else {
        return None;
    };
    let mut body = &rest[open.len_utf8()..];
    let double = open == '[' && body.starts_with('[');
    if double {
        body = &body[1..];
    }
    let trimmed = body.trim_start();
    let mut chars = trimmed.chars();
    if !matches!(chars.next(), Some('c' | 'C')) || !chars.next().is_some_and(|c| c.is_ascii_digit())
    {
        return None;
    }
    let end = body.find([close, open, '\n'])?;
    if !body[end..].starts_with(close) || end > 200 {
        return None;
    }
    let mut len = rest.len() - body.len() + end + close.len_utf8();
    if double && rest[len..].starts_with(']') {
        len += 1;
    }
    if rest[len..].starts_with('(') {
        return None;
    }
    Some(len)
}

/// The answer text with inline citation markers removed (and the space before
/// them), whitespace squashed.
pub fn strip_citations(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < text.len() {
        let rest = &text[i..];
        if let Some(len) = citation_len(rest) {
            while out.ends_with([' ', '\t']) {
                out.pop();
            }
            i += len;
            continue;
        }
        let Some(c) = rest.chars().next() else { break };
        out.push(c);
        i += c.len_utf8();
    }
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// What an answer run used: compared on resume so that one results file never
/// mixes strategies or models.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunConfig {
    /// The strategy asked for (`auto`, `rlm`, `heuristic`).
    pub strategy: String,
    /// The strategy that actually runs (`rlm` or `heuristic`).
    pub effective: String,
    /// The root model (HTTP model name or embedded model), if any.
    pub root_model: Option<String>,
    /// The sub-model, if any.
    pub sub_model: Option<String>,
    /// Settings that change answers (sampling, profile, budgets), as resolved.
    pub settings: BTreeMap<String, String>,
}

/// Settings keys that change what a run answers.
const ANSWER_KEYS: &[&str] = &[
    "temperature",
    "top_p",
    "top_k",
    "max_tokens",
    "seed",
    "context_window",
    "sub_context_window",
    "ctx",
    "profile",
    "system_prompt",
    "max_iterations",
    "max_depth",
    "max_sub_calls",
    "max_total_tokens",
    "max_seconds",
    "max_cost",
];

impl RunConfig {
    /// Describe a run. HTTP models are named by model name (not URL, so a server
    /// that moved to another port still matches), embedded ones by their id.
    pub fn describe(
        strategy: &str,
        effective: &str,
        models: &Models,
        settings: &dyn Fn(&str) -> Option<String>,
    ) -> Self {
        let name = |m: &Option<Arc<dyn rlm_core::LanguageModel>>, key: &str| {
            m.as_ref().map(|m| {
                let id = m.id();
                if id.starts_with("openai:") {
                    settings(key)
                        .or_else(|| settings("model"))
                        .map_or(id.clone(), |n| format!("openai:{n}"))
                } else {
                    id
                }
            })
        };
        let root_model = name(&models.root, "model");
        let sub_model = name(&models.sub, "sub_model");
        let settings = ANSWER_KEYS
            .iter()
            .filter_map(|k| settings(k).map(|v| ((*k).to_owned(), v)))
            .collect();
        Self {
            strategy: strategy.to_owned(),
            effective: effective.to_owned(),
            root_model,
            sub_model,
            settings,
        }
    }

    /// Whether answers of `other` and of this run can share a results file: same
    /// effective strategy, models and answer settings (`auto` that resolves to the
    /// heuristic matches `heuristic`).
    pub fn same_run(&self, other: &Self) -> bool {
        self.effective == other.effective
            && self.root_model == other.root_model
            && self.sub_model == other.sub_model
            && self.settings == other.settings
    }

    /// What the run is called in reports: `rlm`; `composed` (the heuristic's
    /// evidence composed by a model, the plain-RAG baseline); `heuristic`
    /// (no model).
    pub fn label(&self) -> &'static str {
        if self.effective == "rlm" {
            "rlm"
        } else if self.root_model.is_some() || self.sub_model.is_some() {
            "composed"
        } else {
            "heuristic"
        }
    }

    /// One line for messages.
    pub fn summary(&self) -> String {
        let mut s = format!(
            "strategy {} ({}), root {}, sub {}",
            self.strategy,
            self.effective,
            self.root_model.as_deref().unwrap_or("none"),
            self.sub_model.as_deref().unwrap_or("none")
        );
        for (k, v) in &self.settings {
            s.push_str(&format!(", {k}={v}"));
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn citations_are_stripped() {
        let cases = [
            ("Kettleby [c3.s2]", "Kettleby"),
            ("Kettleby [c3.s2].", "Kettleby."),
            ("A [c1.s1, c2.s4] and B [c9][c10.s1-s3].", "A and B."),
            ("Tromsø [[c12.s3]]", "Tromsø"),
            ("Oslo 【c4.s1】", "Oslo"),
            ("see [the docs](http://x) [c2]", "see [the docs](http://x)"),
            ("[note] stays, [c] stays", "[note] stays, [c] stays"),
            ("unclosed [c1.s2", "unclosed [c1.s2"),
            ("", ""),
        ];
        for (input, want) in cases {
            assert_eq!(strip_citations(input), want, "{input:?}");
        }
    }

    #[test]
    fn ids_become_file_names() {
        assert_eq!(
            file_stem("5a8b57f25542995d1e6f1371"),
            "5a8b57f25542995d1e6f1371"
        );
        assert_eq!(file_stem("2hop__13548_13529"), "2hop__13548_13529");
        assert_eq!(file_stem("../x/y z"), "_.._x_y_z");
        assert_eq!(file_stem(""), "_");
    }
}
