//! Whether the answer's step is the step the question asks after.
//!
//! "Who founded the *publisher* of The Salt Atlas?" asks for a founder, and
//! the review already holds an answer to a sentence that says "founded"
//! ([`super::Unfit::OtherRelation`]). But "The institute was founded in 1998
//! by Ivar Lindqvist" says "founded" too: it answers the founder of another
//! organization. The question's next relation ("publisher") names what was
//! founded, so the sentence that says it ("It was published in 2016 by
//! Northlight Press") and the answer's sentence must share a name (the
//! publisher's). When the run read a sentence that says the next relation
//! and none of those shares a name with a sentence the answer cites for its
//! own relation, the answer is another chain's ([`Link::Unlinked`]); when
//! one does and the answer does not cite it, it is written after the answer
//! with its id, as the year bridge writes its chain ([`super::bridge`]).
//! A run that read no sentence saying the next relation is not judged: the
//! next step may be said without the word ("a book … *by* Dr. Mara
//! Ellison" for "author").

use std::collections::HashSet;

use rlmkg_citation::{Report, Verdict};
use rlmkg_ingest::Store;

use super::bridge::{Named, named_sentences};
use super::reads::{ReadSentence, Reads};

/// What the link between the answer's relation and the question's next one
/// is.
pub(super) enum Link<'r> {
    /// Not judged: the question names no two relations of the listed forms,
    /// the answer cites no sentence for its relation, or the run read no
    /// sentence saying the next one.
    NotJudged,
    /// A sentence saying the next relation shares a name with one the answer
    /// cites for its own; the sentences to write after the answer (none when
    /// it cites one already).
    Linked(Vec<&'r ReadSentence>),
    /// The run read sentences saying the next relation, and none shares a
    /// name with a sentence the answer cites for its own.
    Unlinked {
        /// The question's answer relation ("founded").
        relation: String,
        /// The question's next relation ("publisher").
        next: String,
    },
}

/// The relation of `question` after its answer relation: the first of its
/// relation words, in order, that is a listed relation form and not a form of
/// the answer relation; with the answer relation.
fn relations(question: &str) -> Option<(String, String)> {
    let answer = rlmkg_heuristic::answer_relation(question)?;
    let next = rlmkg_heuristic::relation_words(question)
        .into_iter()
        .find(|w| {
            rlmkg_heuristic::is_relation_form(w) && !rlmkg_heuristic::expresses_relation(&answer, w)
        })?;
    Some((answer, next))
}

/// Judge the link of `report`'s answer to `question`'s next relation over
/// the sentences the run read.
pub(super) fn link<'r>(
    store: &Store,
    question: &str,
    report: &Report,
    reads: &'r Reads,
) -> Link<'r> {
    let Some((relation, next)) = relations(question) else {
        return Link::NotJudged;
    };
    let cited: HashSet<&str> = report
        .claims
        .iter()
        .filter(|c| c.verdict == Verdict::Supported)
        .flat_map(|c| &c.evidence)
        .map(|e| e.id.as_str())
        .collect();
    let sentences = named_sentences(store, reads);
    let answering: Vec<&Named> = sentences
        .iter()
        .filter(|s| {
            cited.contains(s.read.id.as_str())
                && rlmkg_heuristic::expresses_relation(&relation, &s.read.text)
        })
        .collect();
    let saying_next: Vec<&Named> = sentences
        .iter()
        .filter(|s| rlmkg_heuristic::expresses_relation(&next, &s.read.text))
        .collect();
    if answering.is_empty() || saying_next.is_empty() {
        return Link::NotJudged;
    }
    let links = |n: &Named| {
        answering
            .iter()
            .any(|a| a.read.id == n.read.id || a.names.iter().any(|x| n.names.contains(x)))
    };
    let linking: Vec<&Named> = saying_next.into_iter().filter(|n| links(n)).collect();
    if linking.is_empty() {
        return Link::Unlinked { relation, next };
    }
    if linking.iter().any(|n| cited.contains(n.read.id.as_str())) {
        return Link::Linked(Vec::new());
    }
    // The linking sentence that says most of the question's words, counting
    // the names it refers back to ("It was published … by Northlight Press"
    // in a review of The Salt Atlas, before "Northlight Press is an
    // independent publisher"); the first read of those.
    let asked: HashSet<String> = crate::handle::content_words(question)
        .iter()
        .map(|w| rlmkg_text::match_key(w))
        .collect();
    // Its own words and the names it refers back to ("It" for The Salt Atlas).
    let says = |n: &Named| {
        std::iter::once(&n.read.key)
            .chain(&n.names)
            .flat_map(|k| k.split(' '))
            .filter(|w| !w.is_empty() && asked.contains(&rlmkg_text::match_key(w)))
            .collect::<HashSet<_>>()
            .len()
    };
    let Some((_, best)) = linking
        .iter()
        .enumerate()
        .max_by_key(|(i, n)| (says(n), std::cmp::Reverse(*i)))
    else {
        return Link::NotJudged;
    };
    // A sentence that refers back ("It was organised by … and led by Dr.
    // Tomas Reyes") is written after the one it refers to, when the run read
    // it and the answer does not cite it.
    let antecedent = best
        .antecedent
        .filter(|a| !cited.contains(a.id.as_str()) && a.id != best.read.id);
    Link::Linked(antecedent.into_iter().chain([best.read]).collect())
}
