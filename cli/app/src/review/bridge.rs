//! Carry a question's year to an answer through sentences the run read.
//!
//! A root that walks two hops ("the university that Mara Ellison *left in
//! 2019*" → Halden University → "Halden University is … in Aldergate")
//! often answers from the last hop's sentence alone, which does not hold
//! the question's year; the review then turns the answer down as another
//! step's ([`super::Unfit::MissingYear`]). When the run itself read the
//! chain — a sentence that holds the year and a word of the question, and
//! either names the answer or shares a name with a read sentence that
//! names it — those sentences are written after the answer, word for word
//! with their ids, so the reader sees the whole chain and the checker
//! verifies each link. The answer itself is the model's, unchanged; the
//! chain is only what the run read. A year no read sentence links to the
//! answer stays missing, and the answer still does not stand.

use std::collections::{HashMap, HashSet};

use rlmkg_citation::Report;
use rlmkg_heuristic::Question;
use rlmkg_ids::ChunkId;
use rlmkg_ingest::Store;

use super::reads::{ReadSentence, Reads, word_key};

/// Most read sentences searched for a chain (the run's first reads).
pub const MAX_SENTENCES: usize = 160;

/// A sentence the run read, with the names of its chunk's entities that it
/// holds or, when it opens by referring back ("It was founded…", "The
/// institute moved…"), that the nearest earlier sentence of its chunk naming
/// any holds (as [`word_key`]s; dates are not names that link sentences).
pub(super) struct Named<'r> {
    /// The sentence.
    pub(super) read: &'r ReadSentence,
    /// The names it holds or refers back to.
    pub(super) names: Vec<String>,
    /// The sentence it refers back to (the nearest earlier one of its chunk
    /// that names any), when the run read it.
    pub(super) antecedent: Option<&'r ReadSentence>,
}

/// The names of a chunk's entities (not dates), as [`word_key`]s, and its
/// sentences with the names each holds, in order: what [`named_sentences`]
/// looks a sentence's names up in.
struct ChunkNames {
    names: Vec<String>,
    /// Each sentence's id, the names it holds, and whether it refers back.
    sentences: Vec<(String, Vec<String>, bool)>,
}

impl ChunkNames {
    fn read(store: &Store, chunk: ChunkId) -> Self {
        let names: Vec<String> = store
            .entities_of_chunk(chunk)
            .unwrap_or_default()
            .iter()
            .filter(|e| e.kind != "date")
            .flat_map(|e| std::iter::once(&e.name).chain(&e.aliases))
            .filter(|n| n.chars().count() > 2)
            .map(|n| word_key(n).0)
            .filter(|n| n.len() > 2)
            .collect();
        let sentences = store
            .read_passage(chunk.passage())
            .map(|p| p.sentences)
            .unwrap_or_default()
            .into_iter()
            .map(|s| {
                let held = held(&names, &word_key(&s.text).0);
                let back = refers_back(&s.text);
                (s.id, held, back)
            })
            .collect();
        Self { names, sentences }
    }

    /// The nearest sentence before `id` that holds a name and does not
    /// itself refer back ("It studies … the Arctic" names only part of what
    /// it is about): its id and names.
    fn before(&self, id: &str) -> Option<(&String, &Vec<String>)> {
        let at = self.sentences.iter().position(|(s, _, _)| s == id)?;
        self.sentences[..at]
            .iter()
            .rev()
            .find(|(_, names, back)| !names.is_empty() && !back)
            .map(|(id, names, _)| (id, names))
    }
}

/// The `names` that the word key `key` holds.
fn held(names: &[String], key: &str) -> Vec<String> {
    names
        .iter()
        .filter(|n| key.contains(n.as_str()))
        .cloned()
        .collect()
}

/// Whether a sentence opens by referring back to what was named before it:
/// a pronoun or "this" ("It was founded…"), or "the" and a lower-case noun
/// ("The institute moved…", not "The Salt Atlas is…").
fn refers_back(text: &str) -> bool {
    let mut words = text
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty());
    let first = words.next().unwrap_or_default().to_lowercase();
    rlmkg_text::refers_back(&first) || (first == "the" && referring_noun(text).is_some())
}

/// The noun a sentence opening "the" and a lower-case noun refers back
/// with ("medal" in "The medal is given each year by …"), lower-cased.
fn referring_noun(text: &str) -> Option<String> {
    let mut words = text
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty());
    let first = words.next()?;
    let noun = words.next()?;
    (first.eq_ignore_ascii_case("the") && noun.chars().next().is_some_and(char::is_lowercase))
        .then(|| noun.to_owned())
}

/// Of the `names` of the sentence referred back to, those a sentence
/// opening with `text` refers to: with "The medal …", the names holding the
/// word "medal" ("halvorsen medal", not the person it was awarded to) when
/// any does; otherwise, and with a pronoun, all of them.
fn referred<'n>(text: &str, names: &'n [String]) -> Vec<&'n String> {
    let fitting: Vec<&String> = match referring_noun(text) {
        Some(noun) => {
            let word = format!(" {noun} ");
            names.iter().filter(|n| n.contains(&word)).collect()
        }
        None => Vec::new(),
    };
    if fitting.is_empty() {
        names.iter().collect()
    } else {
        fitting
    }
}

/// The first [`MAX_SENTENCES`] sentences of `reads`, each with the names it
/// holds or refers back to (each chunk's entities and sentences looked up once).
pub(super) fn named_sentences<'r>(store: &Store, reads: &'r Reads) -> Vec<Named<'r>> {
    let mut chunks: HashMap<ChunkId, ChunkNames> = HashMap::new();
    let read = &reads.sentences()[..reads.sentences().len().min(MAX_SENTENCES)];
    let by_id: HashMap<&str, &ReadSentence> = read.iter().map(|s| (s.id.as_str(), s)).collect();
    read.iter()
        .map(|read| {
            let chunk = chunks
                .entry(read.chunk)
                .or_insert_with(|| ChunkNames::read(store, read.chunk));
            let mut names = held(&chunk.names, &read.key);
            let mut antecedent = None;
            if refers_back(&read.text)
                && let Some((id, before)) = chunk.before(&read.id)
            {
                for n in referred(&read.text, before) {
                    if !names.contains(n) {
                        names.push(n.clone());
                    }
                }
                antecedent = by_id.get(id.as_str()).copied();
            }
            Named {
                read,
                names,
                antecedent,
            }
        })
        .collect()
}

/// The answer with the chain that carries `question`'s years to its short
/// answer appended (`sentence [id]` each), and the chain's ids; `None` when
/// the answer already cites a year of the question, does not stand on its
/// own claims, or no chain of read sentences links a year to it.
pub(super) fn bridge_year(
    store: &Store,
    question: &Question,
    answer: &str,
    report: &Report,
    reads: &Reads,
) -> Option<(String, Vec<String>)> {
    let years = question.years();
    if years.is_empty()
        || super::cites_any(report, years)
        || super::not_carried(report, question).is_some()
    {
        return None;
    }
    let short = super::short_answer(store, question, report, &[])?;
    let (answer_key, words) = word_key(&short.text);
    if words == 0 {
        return None;
    }
    let asked: HashSet<&String> = question
        .content_words()
        .iter()
        .zip(question.content_keys())
        .filter(|(w, _)| !years.contains(w))
        .map(|(_, key)| key)
        .collect();
    let sentences = named_sentences(store, reads);
    let says_asked = |s: &ReadSentence| {
        s.key
            .split(' ')
            .filter(|w| !w.is_empty())
            .any(|w| asked.contains(&rlmkg_text::match_key(w)))
    };
    let chain = sentences
        .iter()
        .filter(|y| super::holds_any_year(&y.read.text, years) && says_asked(y.read))
        .find_map(|y| {
            if y.read.key.contains(answer_key.as_str()) {
                return Some(vec![y.read]);
            }
            sentences
                .iter()
                .map(|m| m.read)
                .find(|m| {
                    m.id != y.read.id
                        && m.key.contains(answer_key.as_str())
                        && y.names
                            .iter()
                            .any(|n| *n != answer_key && m.key.contains(n.as_str()))
                })
                .map(|m| vec![y.read, m])
        })?;
    let cited: HashSet<&str> = report
        .claims
        .iter()
        .flat_map(|c| &c.citations)
        .filter_map(|c| c.id.as_deref())
        .collect();
    let added: Vec<&ReadSentence> = chain
        .into_iter()
        .filter(|s| !cited.contains(s.id.as_str()))
        .collect();
    if added.is_empty() {
        return None;
    }
    let mut text = answer.trim_end().to_owned();
    for s in &added {
        text.push(' ');
        text.push_str(&cited_sentence(&s.text, &s.id));
    }
    Some((text, added.iter().map(|s| s.id.clone()).collect()))
}

/// `sentence` with `[id]` written before its closing punctuation (a full
/// stop added when it has none).
pub(super) fn cited_sentence(sentence: &str, id: &str) -> String {
    let t = sentence.split_whitespace().collect::<Vec<_>>().join(" ");
    let body = t.trim_end_matches(['.', '!', '?']);
    let end = &t[body.len()..];
    let end = if end.is_empty() { "." } else { end };
    format!("{body} [{id}]{end}")
}

#[cfg(test)]
mod tests {
    use super::{cited_sentence, referred, refers_back};
    use crate::review::reads::word_key;

    #[test]
    fn the_noun_a_sentence_refers_back_with_picks_the_names_it_means() {
        let names: Vec<String> = ["Halvorsen Medal", "Mara Ellison"]
            .iter()
            .map(|n| word_key(n).0)
            .collect();
        let picked = |text: &str| -> Vec<String> {
            referred(text, &names)
                .into_iter()
                .map(|n| n.trim().to_owned())
                .collect()
        };
        assert_eq!(picked("The medal is given each year."), ["halvorsen medal"]);
        assert_eq!(
            picked("She joined in 2019."),
            ["halvorsen medal", "mara ellison"]
        );
        assert_eq!(
            picked("The jury praised it."),
            ["halvorsen medal", "mara ellison"]
        );
    }

    #[test]
    fn sentences_that_refer_back_are_told() {
        for (text, back) in [
            ("It was founded in 1987 by Catherine Moray.", true),
            ("The institute was founded in 1998.", true),
            ("This press prints maps.", true),
            ("The Salt Atlas is a book.", false),
            ("Northlight Press is a publisher.", false),
            ("", false),
        ] {
            assert_eq!(refers_back(text), back, "{text}");
        }
    }

    #[test]
    fn the_id_goes_before_the_closing_punctuation() {
        assert_eq!(
            cited_sentence("Halden University is in  Aldergate.", "c16.s2"),
            "Halden University is in Aldergate [c16.s2]."
        );
        assert_eq!(cited_sentence("No stop", "c1.s1"), "No stop [c1.s1].");
    }
}
