//! Prompt profiles (SPEC §5.4): `kg` (default), `paper` and `dict`, plus a
//! user-supplied system prompt. All profiles accept all three endings
//! (`FINAL`, `FINAL_VAR`, the `answer` dict); they differ in what they teach.

use serde::{Deserialize, Serialize};

use crate::handle::{CorpusMetadata, HandleFunction};
use crate::rlm::Protocol;

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
    /// A short prompt of plain steps for small models (a few billion
    /// parameters or fewer), which follow a recipe better than a description.
    Small,
}

impl Profile {
    /// Lower-case name.
    pub fn name(self) -> &'static str {
        match self {
            Self::Kg => "kg",
            Self::Paper => "paper",
            Self::Dict => "dict",
            Self::Small => "small",
        }
    }

    /// The profile for a root model of about `billions` parameters, when the
    /// user names none: `small` under 10 B, else `kg`.
    pub fn for_model_size(billions: Option<f64>) -> Self {
        match billions {
            Some(b) if b < SMALL_MODEL_BILLIONS => Self::Small,
            _ => Self::Kg,
        }
    }
}

/// Root models below this many billion parameters get the `small` profile by default.
pub const SMALL_MODEL_BILLIONS: f64 = 10.0;

impl std::str::FromStr for Profile {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.to_ascii_lowercase().as_str() {
            "kg" => Ok(Self::Kg),
            "paper" => Ok(Self::Paper),
            "dict" => Ok(Self::Dict),
            "small" => Ok(Self::Small),
            other => Err(format!(
                "unknown profile {other:?} (expected kg, paper, dict or small)"
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
    /// The question asks about the whole collection and `map` is offered
    /// (the `small` profile then shows its step).
    pub whole_collection: bool,
    /// What to read from every document for that question, when the handle
    /// can tell ([`crate::ContextHandle::map_key`]: "the category"): the
    /// `small` profile's map step then names it instead of a placeholder.
    pub map_key: Option<String>,
    /// The handle's worked run ([`crate::ContextHandle::example`]), shown at the
    /// end of the `kg` and `dict` prompts, and of the `small` one for a
    /// question about one fact.
    pub example: Option<String>,
}

const TOOLS_COMMON: &str = "\
Sub-model helpers, callable from code:
- llm_query(prompt) -> str: ask a language model one self-contained question about text you pass in.
- llm_query_batched(prompts) -> list[str]: the same for many prompts at once; they run concurrently, so prefer it over a loop of llm_query.
- rlm_query(question, scope=None) -> str: hand a sub-question to a fresh copy of this whole setup (its own REPL), optionally restricted to a list of chunk or entity ids.";

const ENDINGS: &str = "\
Finishing: from inside a ```repl block, call FINAL(text) with the answer text, or FINAL_VAR(\"name\") with the name of a variable holding it, or set answer[\"content\"] = text and answer[\"ready\"] = True. Only executed code ends the run; writing FINAL in prose does nothing. Do not answer before you have looked at REPL output.";

/// How the model works, by protocol: what it writes and what it sees back.
fn working(protocol: Protocol) -> &'static str {
    match protocol {
        Protocol::Code => {
            "You explore it by writing Python: every reply of yours is Python code and nothing else. It runs in a persistent sandbox (variables survive between replies) and you see what it prints; then you write the next code."
        }
        Protocol::Tools => {
            "You explore it by calling the tools you are given; each call's result comes back to you. The `python` tool runs code in a persistent sandbox (variables survive between calls) where `context` and the helpers below are defined."
        }
        Protocol::Free | Protocol::Auto => {
            "You explore it by writing Python in ```repl code blocks; each block runs in a persistent sandbox (variables survive between blocks) and you see what it prints."
        }
    }
}

/// How a run ends, by protocol.
fn ending(protocol: Protocol, profile: Profile) -> String {
    if protocol == Protocol::Tools {
        return "Finishing: call final_answer with the answer text. Do not answer before you have seen tool results.".to_owned();
    }
    let how = if profile == Profile::Dict {
        "When done, set answer[\"content\"] to the cited answer and answer[\"ready\"] = True in a ```repl block (FINAL(text) and FINAL_VAR(\"name\") also work)."
    } else {
        "When done, call FINAL(text) in a ```repl block with the cited answer (FINAL_VAR(\"name\") and the answer dict also work)."
    };
    format!("{ENDINGS}\n{how}")
}

/// The system prompt for a profile under a protocol.
pub fn system_prompt(profile: Profile, protocol: Protocol, facts: &PromptFacts) -> String {
    let budget = format!(
        "You have at most {} turns. rlm_query may nest {} level(s) deep. Keep the final answer under {} characters.",
        facts.max_iterations, facts.max_depth, facts.max_answer_chars
    );
    let window = facts
        .sub_window
        .map(|w| format!(" The sub-model reads at most about {w} tokens per call (roughly {} characters); split longer text.", w * 3))
        .unwrap_or_default();
    let working = working(protocol);
    match profile {
        Profile::Small => {
            let prompt = small_prompt(protocol, facts);
            // The worked run shows the steps as real calls (its ids are ones
            // the run never reads, so copying it cannot pass the review).
            match facts.example.as_deref() {
                Some(e) if protocol != Protocol::Tools && !facts.whole_collection => {
                    format!("{prompt}\n\n{e}")
                }
                _ => prompt,
            }
        }
        Profile::Kg | Profile::Dict => {
            let example = facts
                .example
                .as_deref()
                .filter(|_| protocol != Protocol::Tools)
                .map(|e| format!("\n\n{e}"))
                .unwrap_or_default();
            let ending = ending(protocol, profile);
            format!(
                "You answer questions about a document collection that you cannot see directly. {working} The sandbox has no files, network or environment; `import re` and `import json` work.\n\n\
                 The collection is reachable through the object `context`, a handle onto a full-text index and a knowledge graph of entities and relations. Its methods return plain lists and dicts; they are listed in the next message. Search first, read the chunks that matter, follow entities and relations to connect facts across documents, and print only what you need: long output is cut.\n\n\
                 {TOOLS_COMMON}{window}\n\n\
                 Citations: every factual sentence of your answer ends with the ids of the text that supports it, in square brackets: [c12] for a chunk, [c12.s3] for one sentence, [c12.s2-s4] for a sentence range, several as [c12.s3, c40.s1]. Prefer sentence ids; reading a chunk shows them. Cite only ids you have read. Quote only text that appears verbatim. If the sources do not answer part of the question, say so rather than guess.\n\n\
                 Begin the answer with the short answer itself (the name, place, date, number or yes/no asked for), then the cited explanation.\n\n\
                 {budget}\n\n{ending}{example}"
            )
        }
        Profile::Paper => {
            let ending = ending(protocol, profile);
            format!(
                "You are working inside a Python REPL environment on a task about a long text. The text is stored in the variable `context` (a str); it is far too long to read at once, so inspect it with code: look at its length and structure, slice it, search it with `re`, and pass pieces of it to sub-models. {working} Long output is cut.\n\n\
             Your own context window is about 32K tokens, and each sub-model call has the same ~32K-token limit, so send roughly 10,000 to 15,000 characters of text per llm_query call and combine the results in code.\n\n\
             {TOOLS_COMMON}\n\
             The same collection is also available as a search and graph handle named `kg` (its methods are listed in the next message); its ids can be cited as [c12] or [c12.s3].\n\n\
             {budget}\n\n{ending}\n\
             End with FINAL(your answer) or FINAL_VAR(\"variable_name\") inside a ```repl block."
            )
        }
    }
}

/// The functions the `small` profile lists (when the handle has them): the
/// steps of its recipe.
pub const SMALL_FUNCTIONS: &[&str] = &["search", "read", "neighbors", "path", "map", "tally"];

/// Loop tools the `small` profile does not offer under the tool protocol.
pub const SMALL_HIDDEN_TOOLS: &[&str] = &["llm_query", "rlm_query"];

/// Most characters of one REPL output under the `small` profile (about three
/// search hits): more only crowds a small window and a small model's attention.
pub const SMALL_MAX_OUTPUT_CHARS: usize = 4000;

/// Most tokens of a root reply under the `small` profile.
pub const SMALL_MAX_TOKENS: u32 = 320;

/// What the `small` profile tells the model after each output.
pub const SMALL_NEXT_STEP: &str = "Next: if the facts and sentences above lead from the question to its answer, end now with FINAL(\"<the answer>. <each sentence of the chain> [<its id>]\"), citing the sentence of every step. If it names the person, place or organisation the question goes through (an author, a founder, an institute), search for that name: hits = context.search(\"<that name> <what the question asks of it>\") then print(hits[:3]).";

/// What a small root is told after each output of a question about the whole
/// collection until it has a tally: the map recipe's next lines (the
/// multi-hop recipe's searches cannot count), with the thing to read when
/// the handle named it ([`PromptFacts::map_key`]).
pub fn small_map_step(key: Option<&str>) -> String {
    format!(
        "Next: this question is about the whole collection, so count in code: {}. Write words, not code, inside the quotes: the map counts. The tally shows the FINAL call that answers from its rows.",
        map_and_tally(key.unwrap_or(MAP_PLACEHOLDER))
    )
}

/// The code that reads `instruction` from every document and prints the
/// tally's first rows, as every hint and correction that asks for a map
/// writes it.
pub fn map_and_tally(instruction: &str) -> String {
    format!(
        "records = context.map(\"{instruction}\", over=\"docs\") then print(context.tally(records)[:5])"
    )
}

/// The map instruction the recipe shows when the handle names none.
const MAP_PLACEHOLDER: &str = "<the one thing to read from each document, in one to three words: the thing the question counts, like the author, the year or the city>";

/// The `small` profile: the task, then the steps of a multi-hop lookup as
/// calls to copy, with placeholders (`<the answer>`) that the answer guard
/// rejects if copied as they are.
fn small_prompt(protocol: Protocol, facts: &PromptFacts) -> String {
    let max_turns = facts.max_iterations;
    let key = facts.map_key.as_deref();
    let steps = if protocol == Protocol::Tools {
        "1. search with words from the question; each hit has an id, a title and text.\n\
         2. read the best hit's id; each sentence of it starts with its own id, like [c4.s2].\n\
         3. If the question goes through a name you have just found (the author of a book, the city of an institute), search for that name and read again.\n\
         4. final_answer(\"<the answer>. <the sentence that says it> [<its id>]\")"
    } else {
        "1. hits = context.search(\"<words from the question>\") then print(hits[:3]) shows the best hits, each with an id, a title and text.\n\
         2. print(context.read(\"<a hit's id>\")) shows that chunk; each sentence starts with its own id, like [c4.s2].\n\
         3. If the question goes through a name you have just found (the author of a book, the city of an institute), search for that name and read again.\n\
         4. FINAL(\"<the answer>. <the sentence that says it> [<its id>]\") ends the run."
    };
    let mapped;
    let steps = if facts.whole_collection {
        let first = match (protocol, key) {
            (Protocol::Tools, Some(k)) => format!("map with the instruction \"{k}\"; it reads every document."),
            (Protocol::Tools, None) => "map with the one thing to read from each document, in one to three words (like the author, the year or the city); it reads every document.".to_owned(),
            (_, Some(k)) => format!("records = context.map(\"{k}\", over=\"docs\") reads {k} of every document."),
            (_, None) => "records = context.map(\"<the one thing to read from each document, in one to three words, like the author, the year or the city>\", over=\"docs\") reads every document; write words, not code, inside the quotes.".to_owned(),
        };
        let (second, third) = if protocol == Protocol::Tools {
            (
                "tally the records it returned by value; the first row is the most frequent, each row has a count and the chunks it came from.",
                "final_answer(\"<the answer>, found in <count> documents [<a chunk id of that row>]\")",
            )
        } else {
            (
                "print(context.tally(records)[:5]) shows the most frequent values first, each with its count and the chunks it came from.",
                "FINAL(\"<the answer>, found in <count> documents [<a chunk id of that row>]\") ends the run.",
            )
        };
        mapped = format!(
            "This question is about the whole collection, so no single passage answers it. The steps:\n1. {first}\n2. {second}\n3. {third}"
        );
        mapped.as_str()
    } else {
        steps
    };
    let how = match protocol {
        Protocol::Tools => "You look things up by calling tools; each result comes back to you.",
        Protocol::Code => {
            "You look things up by writing Python. Every reply of yours is Python code and nothing else; it runs, and you see what it prints. Variables persist."
        }
        Protocol::Free | Protocol::Auto => {
            "You look things up by writing Python in a ```repl code block; it runs, and you see what it prints. Variables persist."
        }
    };
    format!(
        "You answer a question about a collection of documents that you cannot see. {how}\n\n\
         The collection is the object `context`; its methods are listed in the next message. The usual steps:\n{steps}\n\n\
         Cite only ids you have read, and only for what their sentences say. Replace every <...> with real text. If what you read does not answer the question, search with other words. You have at most {max_turns} turns."
    )
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
    // A small model copies what its prompt holds: sample titles become its
    // answers ("Halvorsen Medal 2018 [d5]"), so the small profile leaves
    // them out; it finds documents by searching.
    if !meta.sample_titles.is_empty() && profile != Profile::Small {
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
            whole_collection: false,
            map_key: None,
        };
        for p in [Profile::Kg, Profile::Paper, Profile::Dict] {
            let s = system_prompt(p, Protocol::Free, &f);
            assert!(s.contains("FINAL("), "{p:?}");
            assert!(s.contains("answer[\"ready\"]"), "{p:?}");
            assert!(s.contains("```repl"), "{p:?}");
        }
        assert!(system_prompt(Profile::Paper, Protocol::Free, &f).contains("32K"));
        assert!(system_prompt(Profile::Kg, Protocol::Code, &f).contains("[c12.s3]"));
        assert!(system_prompt(Profile::Kg, Protocol::Tools, &f).contains("final_answer"));
        assert!(system_prompt(Profile::Small, Protocol::Code, &f).contains("FINAL("));
        assert!(system_prompt(Profile::Small, Protocol::Tools, &f).contains("final_answer("));
        let with = PromptFacts {
            example: Some("Example of a whole run: ...".into()),
            ..f.clone()
        };
        assert!(
            system_prompt(Profile::Kg, Protocol::Code, &with)
                .ends_with("Example of a whole run: ...")
        );
        assert!(
            !system_prompt(Profile::Paper, Protocol::Free, &with)
                .contains("Example of a whole run")
        );
        // The small profile shows the map steps only for a question about the
        // whole collection.
        assert!(!system_prompt(Profile::Small, Protocol::Code, &f).contains("context.map"));
        let agg = PromptFacts {
            whole_collection: true,
            ..f.clone()
        };
        assert!(system_prompt(Profile::Small, Protocol::Code, &agg).contains("context.map(\"<"));
        // With the thing to read named, the recipe names it, not a placeholder.
        let keyed = PromptFacts {
            map_key: Some("the town".into()),
            ..agg.clone()
        };
        let small = system_prompt(Profile::Small, Protocol::Code, &keyed);
        assert!(small.contains("context.map(\"the town\""), "{small}");
        assert!(!small.contains("context.map(\"<"), "{small}");
        assert!(small_map_step(Some("the town")).contains("context.map(\"the town\""));
    }
}
