//! Prompt profiles (SPEC §5.4): `kg` (default), `paper` and `dict`, plus a
//! user-supplied system prompt. All profiles accept all three endings
//! (`FINAL`, `FINAL_VAR`, the `answer` dict); they differ in what they teach.

use serde::{Deserialize, Serialize};

use crate::handle::{CorpusMetadata, HandleFunction};

/// A prompt profile.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Profile {
    /// The graph handle, citations by sentence id; for strong general models.
    #[default]
    Kg,
    /// The original RLM conventions: `context` is the corpus text, ~32K windows.
    Paper,
    /// Like `kg`, ending with the `answer` dict.
    Dict,
}

impl Profile {
    /// Lower-case name.
    pub fn name(self) -> &'static str {
        match self {
            Self::Kg => "kg",
            Self::Paper => "paper",
            Self::Dict => "dict",
        }
    }
}

impl std::str::FromStr for Profile {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.to_ascii_lowercase().as_str() {
            "kg" => Ok(Self::Kg),
            "paper" => Ok(Self::Paper),
            "dict" => Ok(Self::Dict),
            other => Err(format!(
                "unknown profile {other:?} (expected kg, paper or dict)"
            )),
        }
    }
}

/// Facts the prompts mention.
#[derive(Debug, Clone, Default)]
pub struct PromptFacts {
    /// Maximum root iterations.
    pub max_iterations: u32,
    /// Maximum recursion depth for `rlm_query`.
    pub max_depth: u32,
    /// The sub-model's window in tokens, if known.
    pub sub_window: Option<usize>,
    /// Maximum answer length in characters.
    pub max_answer_chars: usize,
    /// The handle's worked run ([`crate::ContextHandle::example`]), shown at the
    /// end of the `kg` and `dict` prompts.
    pub example: Option<String>,
}

const TOOLS_COMMON: &str = "\
Sub-model helpers, callable from code:
- llm_query(prompt) -> str: ask a language model one self-contained question about text you pass in.
- llm_query_batched(prompts) -> list[str]: the same for many prompts at once; they run concurrently, so prefer it over a loop of llm_query.
- rlm_query(question, scope=None) -> str: hand a sub-question to a fresh copy of this whole setup (its own REPL), optionally restricted to a list of chunk or entity ids.";

const ENDINGS: &str = "\
Finishing: from inside a ```repl block, call FINAL(text) with the answer text, or FINAL_VAR(\"name\") with the name of a variable holding it, or set answer[\"content\"] = text and answer[\"ready\"] = True. Only executed code ends the run; writing FINAL in prose does nothing. Do not answer before you have looked at REPL output.";

/// The system prompt for a profile.
pub fn system_prompt(profile: Profile, facts: &PromptFacts) -> String {
    let budget = format!(
        "You have at most {} turns. rlm_query may nest {} level(s) deep. Keep the final answer under {} characters.",
        facts.max_iterations, facts.max_depth, facts.max_answer_chars
    );
    let window = facts
        .sub_window
        .map(|w| format!(" The sub-model reads at most about {w} tokens per call (roughly {} characters); split longer text.", w * 3))
        .unwrap_or_default();
    match profile {
        Profile::Kg | Profile::Dict => {
            let example = facts
                .example
                .as_deref()
                .map(|e| format!("\n\n{e}"))
                .unwrap_or_default();
            let ending = if profile == Profile::Dict {
                "When done, set answer[\"content\"] to the cited answer and answer[\"ready\"] = True in a ```repl block (FINAL(text) and FINAL_VAR(\"name\") also work)."
            } else {
                "When done, call FINAL(text) in a ```repl block with the cited answer (FINAL_VAR(\"name\") and the answer dict also work)."
            };
            format!(
                "You answer questions about a document collection that you cannot see directly. You explore it by writing Python in ```repl code blocks; each block runs in a persistent sandbox (variables survive between blocks) and you see what it prints. The sandbox has no files, network or environment; `import re` and `import json` work.\n\n\
                 The collection is reachable through the object `context`, a handle onto a full-text index and a knowledge graph of entities and relations. Its methods return plain lists and dicts; they are listed in the next message. Search first, read the chunks that matter, follow entities and relations to connect facts across documents, and print only what you need: long output is cut.\n\n\
                 {TOOLS_COMMON}{window}\n\n\
                 Citations: every factual sentence of your answer ends with the ids of the text that supports it, in square brackets: [c12] for a chunk, [c12.s3] for one sentence, [c12.s2-s4] for a sentence range, several as [c12.s3, c40.s1]. Prefer sentence ids; reading a chunk shows them. Quote only text that appears verbatim. If the sources do not answer part of the question, say so rather than guess.\n\n\
                 Begin the answer with the short answer itself (the name, place, date, number or yes/no asked for), then the cited explanation.\n\n\
                 {budget}\n\n{ENDINGS}\n{ending}{example}"
            )
        }
        Profile::Paper => format!(
            "You are working inside a Python REPL environment on a task about a long text. The text is stored in the variable `context` (a str); it is far too long to read at once, so inspect it with code: look at its length and structure, slice it, search it with `re`, and pass pieces of it to sub-models. Write code in ```repl blocks; variables persist between blocks and you see what each block prints (long output is cut).\n\n\
             Your own context window is about 32K tokens, and each sub-model call has the same ~32K-token limit, so send roughly 10,000 to 15,000 characters of text per llm_query call and combine the results in code.\n\n\
             {TOOLS_COMMON}\n\
             The same collection is also available as a search and graph handle named `kg` (its methods are listed in the next message); its ids can be cited as [c12] or [c12.s3].\n\n\
             {budget}\n\n{ENDINGS}\n\
             End with FINAL(your answer) or FINAL_VAR(\"variable_name\") inside a ```repl block."
        ),
    }
}

/// The metadata message: corpus facts, functions and the question (SPEC §5.3.1).
pub fn metadata_message(
    profile: Profile,
    meta: &CorpusMetadata,
    functions: &[HandleFunction],
    question: &str,
    context_chars: Option<usize>,
) -> String {
    let mut s = String::new();
    s.push_str(&format!(
        "Corpus: {} documents, {} chunks, {} entities, {} relations, {} characters.\n",
        meta.documents, meta.chunks, meta.entities, meta.relations, meta.characters
    ));
    if !meta.entity_types.is_empty() {
        let types: Vec<String> = meta
            .entity_types
            .iter()
            .map(|(t, n)| format!("{t} {n}"))
            .collect();
        s.push_str(&format!("Entity types: {}.\n", types.join(", ")));
    }
    if !meta.sample_titles.is_empty() {
        s.push_str(&format!(
            "Some document titles: {}.\n",
            meta.sample_titles.join("; ")
        ));
    }
    let handle_name = match profile {
        Profile::Paper => {
            match context_chars {
                Some(n) => s.push_str(&format!("`context` is a str of {n} characters.\n")),
                None => s.push_str(
                    "`context` is too large to hold as one string here; use the `kg` handle.\n",
                ),
            }
            "kg"
        }
        _ => "context",
    };
    if !functions.is_empty() {
        s.push_str(&format!("Methods of `{handle_name}`:\n"));
        for f in functions {
            s.push_str(&format!("- {handle_name}.{} — {}\n", f.signature, f.doc));
        }
    }
    s.push_str(&format!("\nQuestion: {question}\n"));
    s
}

/// The user message of the last turn when the iteration budget runs out.
pub const LAST_TURN: &str = "The turn budget is used up. Give your best final answer now: one ```repl block that calls FINAL(...) with the answer (cite what you read), or state plainly what is missing.";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn profiles_mention_their_endings() {
        let f = PromptFacts {
            max_iterations: 30,
            max_depth: 1,
            sub_window: Some(8192),
            max_answer_chars: 4000,
            example: None,
        };
        for p in [Profile::Kg, Profile::Paper, Profile::Dict] {
            let s = system_prompt(p, &f);
            assert!(s.contains("FINAL("), "{p:?}");
            assert!(s.contains("answer[\"ready\"]"), "{p:?}");
            assert!(s.contains("```repl"), "{p:?}");
        }
        assert!(system_prompt(Profile::Paper, &f).contains("32K"));
        assert!(system_prompt(Profile::Kg, &f).contains("[c12.s3]"));
        let with = PromptFacts {
            example: Some("Example of a whole run: ...".into()),
            ..f.clone()
        };
        assert!(system_prompt(Profile::Kg, &with).ends_with("Example of a whole run: ..."));
        assert!(!system_prompt(Profile::Paper, &with).contains("Example of a whole run"));
    }
}
