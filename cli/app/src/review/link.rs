//! Whether the answer's step is the step the question asks after.
//!
//! "Who founded the *publisher* of The Salt Atlas?" asks for a founder, and
//! the review already holds an answer to a sentence that says "founded"
//! ([`super::Unfit::OtherRelation`]). But "The institute was founded in 1998
//! by Ivar Lindqvist" says "founded" too: it answers the founder of another
//! organization. The question's next relation ("publisher") names what was
//! founded, so the sentence that says it ("It was published in 2016 by
//! Northlight Press") and the answer's sentence must share a name (the
//! publisher's). Likewise "In which city is the institute that *organised*
//! the Skarvik Expedition located?" is not answered by a sentence placing
//! another institute in its city: the sentence holding the answer must share
//! a name with a sentence saying "organised".
//!
//! A question about the whole collection ("… most often") is not judged: it
//! is answered by counting ([`super::count_cited`]), not by a chain.
//!
//! Which relations may link: when the question names its answer relation
//! ("Who founded the publisher of …", "… the founder of X born?"), the next
//! relation is the agent noun it asks of ("publisher", "founder"), the
//! first other relation word of the question; otherwise the answer is
//! described by a clause whose verb may come anywhere ("the institute that
//! the author of X *joined*"), and any other relation word of the question
//! may link, except those the answer's own sentence says ("located").
//! Relation words are verbs and agent nouns
//! ([`rlmkg_heuristic::is_relation_verb`]), not nouns of things ("vessel").
//!
//! When the run read a sentence saying such a relation and none of those
//! shares a name with a sentence the answer cites for its own relation (or,
//! with no answer relation, a cited sentence holding the short answer), the
//! answer is another chain's ([`Link::Unlinked`]); when one does and the
//! answer does not cite it, it is written after the answer with its id, as
//! the year bridge writes its chain ([`super::bridge`]). A run that read no
//! sentence saying one is not judged: the step may be said without the word
//! ("a book … *by* Dr. Mara Ellison" for "author").

use std::collections::HashSet;

use rlmkg_citation::{Report, Verdict};
use rlmkg_heuristic::Question;
use rlmkg_ingest::Store;

use super::bridge::{Named, named_sentences};
use super::reads::{ReadSentence, Reads, word_key};

/// Fewest of the question's words (its relation words and names among them,
/// counting the names a sentence refers back to) a linking sentence says for
/// it to be written after the answer.
const MIN_WRITTEN_WORDS: usize = 2;

/// What the link between the answer and the question's other relations is.
pub(super) enum Link<'r> {
    /// Not judged: the question names no other relation of the listed forms,
    /// the answer cites no sentence for its relation (or holding its short
    /// answer), or the run read no sentence saying another relation.
    NotJudged,
    /// A sentence saying another relation shares a name with one the answer
    /// cites; the sentences to write after the answer (none when it cites
    /// one already).
    Linked(Vec<&'r ReadSentence>),
    /// The run read sentences saying another relation, and none shares a
    /// name with a sentence the answer cites.
    Unlinked {
        /// What the answer's sentence says: the answer relation ("founded"),
        /// or the short answer when the question names no answer relation.
        answering: String,
        /// The relations that could link it ("publisher"; "organised").
        next: Vec<String>,
    },
}

/// The relations of `question` that may link its answer (see the module
/// docs), and its answer relation if it names one.
fn relations(question: &Question) -> (Option<String>, Vec<String>) {
    let answer = question.answer_relation();
    let mut others = question
        .relations()
        .iter()
        .filter(|w| rlmkg_heuristic::is_relation_verb(w))
        .filter(|w| answer.is_none_or(|a| !rlmkg_heuristic::expresses_relation(a, w)))
        .cloned();
    let next = match answer {
        Some(_) => others.next().into_iter().collect(),
        None => others.collect(),
    };
    (answer.map(str::to_owned), next)
}

/// Whether two names (as [`word_key`]s) name one thing: the same words, or
/// one holding the other's words in a run, so that a name extracted with
/// words after it ("Mara Ellison for The Salt Atlas") still meets the name
/// ("Mara Ellison").
fn same_name(a: &str, b: &str) -> bool {
    a.contains(b) || b.contains(a)
}

/// The names a sentence's relation word is about: for each word of `n` that
/// expresses one of `relations`, the first name after it that `question`
/// does not name ("organised by *the Kestrel Institute*", "after leaving
/// *Halden University*"), or, when none follows, the nearest before it
/// ("KICS, which organised the Skarvik Expedition"; a name the sentence
/// refers back to stands before its first word). "Mara Ellison joined KICS
/// in 2019 after leaving Halden University" links "left" to Halden
/// University, not to KICS.
fn governed<'n>(n: &'n Named, relations: &[String], question: &Question) -> Vec<&'n String> {
    let asked = question.key();
    let key = n.read.key.as_str();
    // Each name's span in the sentence (`None`: referred back to).
    let spans: Vec<(&String, Option<(usize, usize)>)> = n
        .names
        .iter()
        .map(|x| (x, key.find(x.as_str()).map(|at| (at, at + x.len()))))
        .collect();
    let mut out: Vec<&String> = Vec::new();
    let mut at = 0;
    for word in key.split(' ') {
        let here = at;
        at += word.len() + 1;
        if word.is_empty()
            || !relations
                .iter()
                .any(|r| rlmkg_heuristic::expresses_relation(r, word))
        {
            continue;
        }
        let after = spans
            .iter()
            .filter_map(|(x, span)| span.map(|sp| (*x, sp)))
            .filter(|(x, (from, _))| *from > here && !asked.contains(x.as_str()))
            .min_by_key(|(_, (from, _))| *from);
        let chosen = match after {
            Some((_, (from, to))) => Some((from, to)),
            None => spans
                .iter()
                .filter_map(|(_, span)| *span)
                .filter(|(from, _)| *from < here)
                .max_by_key(|(from, _)| *from),
        };
        // The chosen name and those overlapping it ("the Kestrel Institute
        // …" and "Kestrel Institute …"); with none held before the word,
        // the names referred back to.
        for (x, span) in &spans {
            let take = match (chosen, span) {
                (Some((from, to)), Some((a, b))) => *a < to && from < *b,
                (None, None) => true,
                _ => false,
            };
            if take && !out.contains(x) {
                out.push(x);
            }
        }
    }
    out
}

/// Judge the link of `report`'s answer to `question`'s other relations over
/// the sentences the run read.
pub(super) fn link<'r>(
    store: &Store,
    question: &Question,
    report: &Report,
    reads: &'r Reads,
) -> Link<'r> {
    // A question about the whole collection is answered by counting, not
    // by a chain of sentences.
    if question.whole_collection() {
        return Link::NotJudged;
    }
    let (relation, next) = relations(question);
    if next.is_empty() {
        return Link::NotJudged;
    }
    // What the answer's sentence must hold: its relation, or its answer.
    let by_relation = relation.is_some();
    let answering = match relation {
        Some(r) => r,
        None => match super::short_answer(store, question, report, &[]) {
            Some(short) => short.text,
            None => return Link::NotJudged,
        },
    };
    let answer_key = word_key(&answering).0;
    let holds_answer =
        |s: &ReadSentence| !answer_key.trim().is_empty() && s.key.contains(answer_key.as_str());
    let cited: HashSet<&str> = report
        .claims
        .iter()
        .filter(|c| c.verdict == Verdict::Supported)
        .flat_map(|c| &c.evidence)
        .map(|e| e.id.as_str())
        .collect();
    let sentences = named_sentences(store, reads);
    let answers: Vec<&Named> = sentences
        .iter()
        .filter(|s| cited.contains(s.read.id.as_str()))
        .filter(|s| {
            if by_relation {
                rlmkg_heuristic::expresses_relation(&answering, &s.read.text)
            } else {
                holds_answer(s.read)
            }
        })
        .collect();
    // With no answer relation, a relation the answer's own sentence says is
    // not a next step ("located" in "Halden University is located in …").
    let next: Vec<String> = next
        .into_iter()
        .filter(|r| {
            by_relation
                || !answers
                    .iter()
                    .any(|a| rlmkg_heuristic::expresses_relation(r, &a.read.text))
        })
        .collect();
    let saying_next: Vec<&Named> = sentences
        .iter()
        .filter(|s| {
            next.iter()
                .any(|r| rlmkg_heuristic::expresses_relation(r, &s.read.text))
        })
        .collect();
    if answers.is_empty() || saying_next.is_empty() {
        return Link::NotJudged;
    }
    let links = |n: &Named| {
        let about = governed(n, &next, question);
        answers.iter().any(|a| {
            a.read.id == n.read.id
                || a.names
                    .iter()
                    .any(|x| *x != answer_key && about.iter().any(|g| same_name(g, x)))
        })
    };
    let linking: Vec<&Named> = saying_next.into_iter().filter(|n| links(n)).collect();
    if linking.is_empty() {
        return Link::Unlinked { answering, next };
    }
    if linking.iter().any(|n| cited.contains(n.read.id.as_str())) {
        return Link::Linked(Vec::new());
    }
    // The linking sentence that says most of the question's words, counting
    // the names it refers back to ("It was published … by Northlight Press"
    // in a review of The Salt Atlas, before "Northlight Press is an
    // independent publisher"); the first read of those.
    let asked: HashSet<&str> = question.content_keys().iter().map(String::as_str).collect();
    let says = |n: &Named| {
        std::iter::once(&n.read.key)
            .chain(&n.names)
            .flat_map(|k| k.split(' '))
            .filter(|w| !w.is_empty() && asked.contains(rlmkg_text::match_key(w).as_str()))
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
    // Written out only when it says more of the question than the relation
    // word alone: "Research at KICS is organised in six groups" shares a
    // name and the word "organised", but not the question's sense of it.
    if says(best) < MIN_WRITTEN_WORDS {
        return Link::Linked(Vec::new());
    }
    // A sentence that refers back ("It was organised by … and led by Dr.
    // Tomas Reyes") is written after the one it refers to, when the run read
    // it and the answer does not cite it.
    let antecedent = best
        .antecedent
        .filter(|a| !cited.contains(a.id.as_str()) && a.id != best.read.id);
    Link::Linked(antecedent.into_iter().chain([best.read]).collect())
}

#[cfg(test)]
mod tests {
    use super::super::bridge::Named;
    use super::super::reads::{ReadSentence, word_key};
    use super::{governed, relations};
    use rlmkg_heuristic::Question;

    /// The names `governed` finds for `relation` in `text`, which holds
    /// `names` (and refers back to `back`).
    fn about(
        text: &str,
        names: &[&str],
        back: &[&str],
        relation: &str,
        question: &str,
    ) -> Vec<String> {
        let read = ReadSentence {
            id: "c1.s1".into(),
            chunk: "c1".parse().unwrap(),
            text: text.into(),
            key: word_key(text).0,
        };
        let n = Named {
            read: &read,
            names: names.iter().chain(back).map(|x| word_key(x).0).collect(),
            antecedent: None,
        };
        governed(&n, &[relation.to_owned()], &Question::read(question))
            .into_iter()
            .map(|x| x.trim().to_owned())
            .collect()
    }

    #[test]
    fn a_relation_word_is_about_the_name_after_it_else_the_one_before() {
        let q = "In which city is the university that Mara Ellison left in 2019?";
        let joined = "Dr. Mara Ellison joined the Kestrel Institute in September 2019 after leaving Halden University.";
        let names = ["Mara Ellison", "Kestrel Institute", "Halden University"];
        assert_eq!(about(joined, &names, &[], "left", q), ["halden university"]);
        assert_eq!(
            about(joined, &names, &[], "joined", q),
            ["kestrel institute"]
        );
        let q = "In which city is the institute that organised the Skarvik Expedition located?";
        let names = [
            "Kestrel Institute",
            "the Kestrel Institute",
            "Skarvik Expedition",
        ];
        assert_eq!(
            about(
                "It was organised by the Kestrel Institute.",
                &names[..2],
                &[],
                "organised",
                q
            ),
            ["kestrel institute", "the kestrel institute"]
        );
        assert_eq!(
            about(
                "The Kestrel Institute organised the Skarvik Expedition.",
                &names,
                &[],
                "organised",
                q
            ),
            ["kestrel institute", "the kestrel institute"]
        );
        // Nothing held before or after: what the sentence refers back to.
        assert_eq!(
            about(
                "It was organised in 2021.",
                &[],
                &["Kestrel Institute"],
                "organised",
                q
            ),
            ["kestrel institute"]
        );
    }

    #[test]
    fn the_relations_that_may_link_follow_the_questions_shape() {
        let owned = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        for (question, answer, next) in [
            (
                "Who founded the publisher of The Salt Atlas?",
                Some("founded"),
                owned(&["publisher"]),
            ),
            (
                "In what year was the founder of the institute that organised the Skarvik Expedition born?",
                Some("born"),
                owned(&["founder"]),
            ),
            (
                "In which city is the institute that the author of The Salt Atlas joined in 2019?",
                None,
                owned(&["author", "joined"]),
            ),
            (
                "In which city was the research vessel used on the Skarvik Expedition built?",
                Some("built"),
                Vec::new(),
            ),
        ] {
            assert_eq!(
                relations(&Question::read(question)),
                (answer.map(str::to_owned), next),
                "{question}"
            );
        }
    }
}
