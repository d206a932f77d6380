//! The answer checked as an answer (issue 44): the question and the short
//! answer make one claim, proven by a chain of facts read from the
//! sentences the answer cites — from a name the question gives, each hop a
//! fact whose subject is the previous hop's entity, to the short answer.
//!
//! The claim checker judges each sentence against its citation; this judges
//! whether the cited sentences answer *this* question: a sentence that gives
//! the asked value for someone else (the founder's cousin's birthplace) is
//! [`AnswerVerdict::AboutAnother`], an answer no chain of cited facts reaches
//! is [`AnswerVerdict::NotShown`]. It needs no model: the facts are the
//! graph's (`Store::facts_in`), the words that say a predicate are the
//! extraction's lexicon ([`rlmkg_ingest::predicate_words`]).

use std::collections::{HashMap, HashSet};

use rlmkg_citation::{Report, Verdict};
use rlmkg_heuristic::Question;
use rlmkg_ids::PassageId;
use rlmkg_ingest::Store;
use serde::Serialize;

mod judge;
#[cfg(test)]
mod tests;

/// What the answer check found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum AnswerVerdict {
    /// A chain of cited facts leads from the question to the short answer.
    Answers,
    /// A cited fact gives the short answer for a different subject than the
    /// one the question asks about.
    AboutAnother,
    /// No chain of cited facts leads from the question to the short answer.
    NotShown,
}

impl AnswerVerdict {
    /// Its name, as in the JSON output.
    pub fn name(self) -> &'static str {
        match self {
            Self::Answers => "answers",
            Self::AboutAnother => "about_another",
            Self::NotShown => "not_shown",
        }
    }
}

/// One fact of a chain, read along the chain (the label as read from the
/// hop's first entity: "founded by" from the company's side).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ChainHop {
    /// The entity the hop starts from.
    pub from: String,
    /// The predicate as read from `from`.
    pub relation: String,
    /// The entity it reaches.
    pub to: String,
    /// The cited sentence that states it.
    pub sentence: String,
}

/// The verdict with its chain and the reason in words.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct AnswerCheck {
    /// The verdict.
    pub verdict: AnswerVerdict,
    /// The facts that prove the answer (`answers`), or the fact about
    /// another subject (`about_another`); empty for `not_shown`.
    pub chain: Vec<ChainHop>,
    /// Why, in one sentence.
    pub reason: String,
}

impl AnswerCheck {
    /// A `not_shown` check with `reason`.
    pub(crate) fn not_shown(reason: impl Into<String>) -> Self {
        Self {
            verdict: AnswerVerdict::NotShown,
            chain: Vec::new(),
            reason: reason.into(),
        }
    }

    /// Whether the answer answers the question.
    pub fn answers(&self) -> bool {
        self.verdict == AnswerVerdict::Answers
    }

    /// The check in one line, for a reader: the chain hop by hop
    /// ("A —founded by→ B [c5.s1]; B —born in→ C [c2.s1]"), or why the
    /// answer is not shown to answer the question.
    pub fn describe(&self) -> String {
        let chain = self
            .chain
            .iter()
            .map(|h| format!("{} —{}→ {} [{}]", h.from, h.relation, h.to, h.sentence))
            .collect::<Vec<_>>()
            .join("; ");
        match self.verdict {
            AnswerVerdict::Answers => format!("Answer check: answers the question: {chain}."),
            AnswerVerdict::AboutAnother => format!(
                "Answer check: NOT VERIFIED, about another: {} ({chain}).",
                self.reason
            ),
            AnswerVerdict::NotShown => {
                format!("Answer check: NOT VERIFIED, not shown: {}.", self.reason)
            }
        }
    }
}

/// An entity of the cited facts: its id, names (name first, then aliases)
/// and kind.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Node {
    pub id: String,
    pub names: Vec<String>,
    pub kind: String,
    /// The places the graph says it lies in (any sentence, cited or not):
    /// a place inside another is no country.
    pub inside: Vec<String>,
}

/// A fact read from a cited sentence, its ends resolved to nodes (indexes
/// into the check's node list).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct CitedFact {
    pub subject: usize,
    pub label: String,
    pub object: usize,
    pub sentence: String,
    /// The sentence's text, lower case (what an ordinal of the question
    /// must be read in; empty when the question gives no ordinal).
    pub text: String,
}

/// The short answer an answer opens with: its first factual claim, without
/// its citations and closing stop, when that is at most
/// [`crate::review::SHORT_ANSWER_WORDS`] words ("Wendsund [c5.s2]." gives
/// "Wendsund"); what `verify --question` checks.
pub fn opening_answer(report: &Report) -> Option<String> {
    let first = report
        .claims
        .iter()
        .find(|c| c.verdict != Verdict::Exempt)?;
    let text = first
        .text
        .trim()
        .trim_end_matches(['.', '!', ';', ','])
        .trim();
    let words = text.split_whitespace().count();
    (words > 0 && words <= crate::review::SHORT_ANSWER_WORDS).then(|| text.to_owned())
}

/// Check `short` as the answer to `question`, from the facts stated in the
/// sentences that the supported claims of `report` cite (`verified: true`
/// requires [`AnswerVerdict::Answers`]).
pub fn check_answer(
    store: &Store,
    question: &Question,
    short: Option<&str>,
    report: &Report,
) -> Result<AnswerCheck, rlmkg_ingest::StoreError> {
    let listed = judge::name_items(question).count() >= 2;
    if question.whole_collection() && !listed {
        // A count over the documents is no chain: the review's count check
        // (`review/count.rs`, `count_cited`) decides it by the documents the
        // answer cites.
        return Ok(AnswerCheck {
            verdict: AnswerVerdict::Answers,
            chain: Vec::new(),
            reason: "a question about the whole collection: checked by counting the documents \
                     the answer cites"
                .to_owned(),
        });
    }
    let Some(short) = short.map(str::trim).filter(|s| !s.is_empty()) else {
        return Ok(AnswerCheck::not_shown("the answer gives no short answer"));
    };
    let mut ids: Vec<PassageId> = Vec::new();
    for claim in report
        .claims
        .iter()
        .filter(|c| c.verdict == Verdict::Supported)
    {
        for c in &claim.citations {
            if let Some(id) = c.id.as_deref().and_then(|id| id.parse::<PassageId>().ok())
                && !ids.contains(&id)
            {
                ids.push(id);
            }
        }
    }
    if ids.is_empty() {
        return Ok(AnswerCheck::not_shown(
            "no supported claim of the answer cites a source",
        ));
    }
    let facts = store.facts_in(&ids)?;
    judge_facts(store, question, short, facts)
}

/// The judge over `facts`, their ends resolved to the store's entities.
fn judge_facts(
    store: &Store,
    question: &Question,
    short: &str,
    facts: Vec<rlmkg_corpus::Fact>,
) -> Result<AnswerCheck, rlmkg_ingest::StoreError> {
    let located_in = rlmkg_ingest::Predicate::LocatedIn.label();
    let mut nodes: Vec<Node> = Vec::new();
    let mut index: HashMap<String, usize> = HashMap::new();
    let mut node_of =
        |id: &str, name: &str, kind: &str| -> Result<usize, rlmkg_ingest::StoreError> {
            if let Some(&i) = index.get(id) {
                return Ok(i);
            }
            let mut names = vec![name.to_string()];
            if let Some(e) = store.entity(id)? {
                names.extend(e.aliases.into_iter().filter(|a| a != name));
            }
            let inside = if kind == "place" {
                store
                    .facts(id, rlmkg_ingest::MAX_K)?
                    .into_iter()
                    .filter(|f| {
                        f.subject == id && f.predicate == located_in && f.object_type == "place"
                    })
                    .map(|f| f.object_name)
                    .collect()
            } else {
                Vec::new()
            };
            nodes.push(Node {
                id: id.to_string(),
                names,
                kind: kind.to_string(),
                inside,
            });
            index.insert(id.to_string(), nodes.len() - 1);
            Ok(nodes.len() - 1)
        };
    let mut cited = Vec::new();
    // The sentences' texts serve only the question's ordinals: read them
    // only then.
    let with_text = !judge::ordinals(question).is_empty();
    let mut texts: HashMap<String, String> = HashMap::new();
    for f in facts {
        let sentence = f.sentence.unwrap_or_default();
        if with_text && !texts.contains_key(&sentence) && !sentence.is_empty() {
            let text = store
                .read(&sentence)?
                .sentences
                .iter()
                .find(|s| s.id == sentence)
                .map(|s| s.text.to_lowercase())
                .unwrap_or_default();
            texts.insert(sentence.clone(), text);
        }
        let subject_kind = store
            .entity(&f.subject)?
            .map(|e| e.kind)
            .unwrap_or_default();
        let subject = node_of(&f.subject, &f.subject_name, &subject_kind)?;
        let object = node_of(&f.object, &f.object_name, &f.object_type)?;
        cited.push(CitedFact {
            subject,
            label: f.predicate,
            object,
            text: texts.get(&sentence).cloned().unwrap_or_default(),
            sentence,
        });
    }
    Ok(judge::judge(question, short, &nodes, &cited))
}

/// Most chunks read around one entity when [`find_chain`] looks for a chain.
const CHAIN_CHUNKS: usize = 16;

/// Most entities one hop of [`find_chain`]'s search goes on from.
const CHAIN_FRONTIER: usize = 32;

/// The chain of facts the answer check would accept from a name `question`
/// gives to `short`, looked for in the store (the facts of the chunks
/// around the question's names, then around what those facts reach, up to
/// the check's hop limit): the hops with the sentences to cite, or `None`.
/// The check itself still judges only what an answer cites.
pub fn find_chain(
    store: &Store,
    question: &Question,
    short: &str,
) -> Result<Option<Vec<ChainHop>>, rlmkg_ingest::StoreError> {
    let mut frontier: Vec<String> = Vec::new();
    for name in judge::name_items(question) {
        if let Some(e) = store.entity(name)?
            && !frontier.contains(&e.id)
        {
            frontier.push(e.id);
        }
    }
    let mut seen_entities: HashSet<String> = frontier.iter().cloned().collect();
    let mut seen_chunks = HashSet::new();
    let mut facts = Vec::new();
    for _ in 0..judge::MAX_CHAIN_HOPS {
        let mut passages: Vec<PassageId> = Vec::new();
        for e in &frontier {
            for chunk in store.chunks_of_entity(e)?.into_iter().take(CHAIN_CHUNKS) {
                if seen_chunks.insert(chunk) {
                    passages.push(PassageId {
                        chunk,
                        sentences: None,
                    });
                }
            }
        }
        if passages.is_empty() {
            break;
        }
        let found = store.facts_in(&passages)?;
        let mut next = Vec::new();
        for f in &found {
            let touches = frontier.contains(&f.subject) || frontier.contains(&f.object);
            for (end, date) in [(&f.subject, false), (&f.object, f.object_type == "date")] {
                if touches
                    && !date
                    && next.len() < CHAIN_FRONTIER
                    && seen_entities.insert(end.clone())
                {
                    next.push(end.clone());
                }
            }
        }
        facts.extend(found);
        frontier = next;
    }
    if facts.is_empty() {
        return Ok(None);
    }
    let check = judge_facts(store, question, short, facts)?;
    Ok(check.answers().then_some(check.chain))
}
