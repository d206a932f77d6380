//! A language model as the store's [`FactReader`] (`ingest --extract llm`,
//! issue 43): each passage goes to the model with its sentences numbered
//! and the predicate vocabulary, and the model writes one fact a line,
//! `subject | relation | object | sentence`. The store checks every fact
//! against its sentence; this only asks and reads the reply.

use std::sync::Arc;

use futures::StreamExt;
use rlm_core::{ChatRequest, LanguageModel, Message, Sampling};
use rlmkg_ingest::{FactPassage, FactReader, FactReading, Predicate, ProposedFact};

/// The prompt's version: facts read under another are read again.
const PROMPT_VERSION: u32 = 1;

/// Tokens a reply may take at most.
const MAX_REPLY_TOKENS: u32 = 320;

/// The instructions' tokens, about (bytes / 4 of [`instructions`]'s text
/// with the vocabulary; checked by a test).
const INSTRUCTION_TOKENS: u64 = 260;

/// Most facts read from one reply (a reply that loops is cut).
const MAX_FACTS: usize = 40;

/// A language model reading facts.
pub struct ModelFactReader {
    model: Arc<dyn LanguageModel>,
    runtime: tokio::runtime::Runtime,
    concurrency: usize,
}

impl std::fmt::Debug for ModelFactReader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ModelFactReader")
            .field("model", &self.model.id())
            .field("concurrency", &self.concurrency)
            .finish()
    }
}

impl ModelFactReader {
    /// A reader asking `model`, `concurrency` passages at a time (0: as many
    /// as the server says it serves at once, else one: a request queued
    /// behind others on a one-slot server only waits, and may time out).
    pub fn new(model: Arc<dyn LanguageModel>, concurrency: usize) -> std::io::Result<Self> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()?;
        let concurrency = if concurrency == 0 {
            let slots = runtime.block_on(model.server_slots());
            slots.unwrap_or(1).max(1)
        } else {
            concurrency
        };
        Ok(Self {
            model,
            runtime,
            concurrency,
        })
    }
}

impl FactReader for ModelFactReader {
    fn identity(&self) -> String {
        format!("{} (facts prompt {PROMPT_VERSION})", self.model.id())
    }

    fn read(&self, passages: &[FactPassage<'_>]) -> Result<FactReading, String> {
        let system = instructions();
        let requests: Vec<ChatRequest> = passages
            .iter()
            .map(|p| ChatRequest {
                messages: vec![Message::system(system.clone()), Message::user(numbered(p))],
                sampling: Sampling {
                    temperature: Some(0.0),
                    max_tokens: Some(MAX_REPLY_TOKENS),
                    seed: Some(0),
                    ..Sampling::default()
                },
                ..Default::default()
            })
            .collect();
        let model = &self.model;
        let replies = self.runtime.block_on(
            futures::stream::iter(requests.iter().map(|r| model.chat(r)))
                .buffered(self.concurrency)
                .collect::<Vec<_>>(),
        );
        let mut reading = FactReading::default();
        for (reply, p) in replies.into_iter().zip(passages) {
            let reply = reply.map_err(|e| e.to_string())?;
            reading.prompt_tokens += reply.usage.prompt_tokens;
            reading.completion_tokens += reply.usage.completion_tokens;
            reading
                .facts
                .push(parse_facts(&reply.content, p.sentences.len()));
        }
        Ok(reading)
    }

    fn prompt_tokens(&self, text_bytes: u64) -> u64 {
        INSTRUCTION_TOKENS + text_bytes / 4 + 8
    }

    fn max_completion_tokens(&self) -> u64 {
        u64::from(MAX_REPLY_TOKENS)
    }
}

/// The system prompt: the reply's form, the vocabulary and one example.
fn instructions() -> String {
    let labels: Vec<&str> = Predicate::all().map(|p| p.label()).collect();
    format!(
        "You read facts from a passage. Write one fact a line as\n\
         subject | relation | object | sentence number\n\
         using names exactly as the passage writes them (for \"he\", \"she\" or \"it\" write \
         the name they stand for). The relation is one of: {}; or else a short verb phrase \
         of the sentence. Write only facts a sentence states, nothing else; write NONE if \
         there are none.\n\n\
         Example passage:\nTitle: Marsh Shipyard\n1. Marsh Shipyard is a shipyard in Wendsund.\n\
         2. It was founded in 1841 by Emil Ravness.\nFacts:\n\
         Marsh Shipyard | located in | Wendsund | 1\n\
         Emil Ravness | founded | Marsh Shipyard | 2\n\
         Marsh Shipyard | date of founding | 1841 | 2",
        labels.join(", ")
    )
}

/// The passage as the model reads it: its title, then its sentences
/// numbered from 1.
fn numbered(p: &FactPassage<'_>) -> String {
    let mut out = format!("Title: {}\n", p.title);
    for (i, s) in p.sentences.iter().enumerate() {
        out.push_str(&format!("{}. {}\n", i + 1, s.replace('\n', " ")));
    }
    out.push_str("Facts:");
    out
}

/// The facts of a reply: lines `subject | relation | object | n` with `n`
/// a sentence of the passage (1 to `sentences`); anything else is passed
/// over.
pub fn parse_facts(reply: &str, sentences: usize) -> Vec<ProposedFact> {
    reply
        .lines()
        .filter_map(|line| {
            let line = line.trim().trim_start_matches(['-', '*', ' ']);
            let mut parts = line.split('|').map(str::trim);
            let (subject, relation, object, n) =
                (parts.next()?, parts.next()?, parts.next()?, parts.next()?);
            if parts.next().is_some() {
                return None;
            }
            let digits: String = n.chars().filter(char::is_ascii_digit).collect();
            let sentence: usize = digits.parse().ok()?;
            ((1..=sentences).contains(&sentence)
                && [subject, relation, object].iter().all(|s| !s.is_empty()))
            .then(|| ProposedFact {
                subject: subject.to_owned(),
                relation: relation.to_owned(),
                object: object.to_owned(),
                sentence,
            })
        })
        .take(MAX_FACTS)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn facts_are_read_off_their_lines_and_the_rest_is_passed_over() {
        let reply = "Facts:\nMarsh Shipyard | located in | Wendsund | 1\n- Emil Ravness | founded | \
                     Marsh Shipyard | 2.\nnonsense | 3\nA | b | c | 9\n | born in | X | 1\n\
                     A | b | c | d | 1\nNONE";
        let facts = parse_facts(reply, 2);
        let got: Vec<(&str, &str, &str, usize)> = facts
            .iter()
            .map(|f| {
                (
                    f.subject.as_str(),
                    f.relation.as_str(),
                    f.object.as_str(),
                    f.sentence,
                )
            })
            .collect();
        assert_eq!(
            got,
            vec![
                ("Marsh Shipyard", "located in", "Wendsund", 1),
                ("Emil Ravness", "founded", "Marsh Shipyard", 2)
            ]
        );
    }

    #[test]
    fn the_instructions_cost_what_the_estimate_says() {
        let tokens = instructions().len() as u64 / 4;
        assert!(
            tokens.abs_diff(INSTRUCTION_TOKENS) * 5 <= INSTRUCTION_TOKENS,
            "the instructions are about {tokens} tokens, the estimate says {INSTRUCTION_TOKENS}"
        );
    }

    proptest::proptest! {
        #[test]
        fn any_reply_parses_to_facts_of_its_passage(reply in ".{0,400}", n in 0usize..6) {
            for f in parse_facts(&reply, n) {
                proptest::prop_assert!((1..=n).contains(&f.sentence));
            }
        }
    }
}
