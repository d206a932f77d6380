//! The answer check on fixed facts: one table of cases, one helper.

use rlmkg_heuristic::Question;

use super::judge::judge;
use super::{AnswerVerdict, CitedFact, Node};

/// A fact written as (subject, label, object, sentence); an entity's kind
/// is read from its name (a year is a date; `@` marks a place).
type F = (&'static str, &'static str, &'static str, &'static str);

fn run(question: &str, short: &str, facts: &[F]) -> (AnswerVerdict, String, usize) {
    let mut nodes: Vec<Node> = Vec::new();
    let mut node = |name: &str| -> usize {
        let (name, kind) = match name.strip_prefix('@') {
            Some(n) => (n, "place"),
            None if rlmkg_text::is_year(name) => (name, "date"),
            None => (name, "person"),
        };
        if let Some(i) = nodes.iter().position(|n| n.names[0] == name) {
            return i;
        }
        nodes.push(Node {
            id: name.to_lowercase(),
            names: vec![name.to_string()],
            kind: kind.to_string(),
            inside: if name == "Kettlesdal" {
                vec!["Vesland".to_owned()]
            } else {
                Vec::new()
            },
        });
        nodes.len() - 1
    };
    let cited: Vec<CitedFact> = facts
        .iter()
        .map(|&(s, label, o, sentence)| {
            // "c1.s1: the text" gives the sentence's text; else it is the
            // fact in words.
            let (id, text) = match sentence.split_once(": ") {
                Some((id, text)) => (id.to_string(), text.to_lowercase()),
                None => (
                    sentence.to_string(),
                    format!("{s} {label} {o}").to_lowercase(),
                ),
            };
            CitedFact {
                subject: node(s),
                label: label.to_string(),
                object: node(o),
                sentence: id,
                text,
            }
        })
        .collect();
    let check = judge(&Question::read(question), short, &nodes, &cited);
    (check.verdict, check.reason, check.chain.len())
}

const FOUNDER: &str = "In which town was the founder of Marsh Shipyard born?";

#[test]
fn verdicts() {
    use AnswerVerdict::{AboutAnother, Answers, NotShown};
    let cases: &[(&str, &str, &[F], AnswerVerdict)] = &[
        // The chain holds: company → founder → birthplace.
        (
            FOUNDER,
            "Wendsund",
            &[
                ("Emil Ravness", "founded", "Marsh Shipyard", "c1.s1"),
                ("Emil Ravness", "born in", "@Wendsund", "c2.s1"),
            ],
            Answers,
        ),
        // The first winner asked, the second's birthplace cited: no chain
        // says "first".
        (
            "In which town was the first winner of the Halwick Medal born?",
            "Kettlesholm",
            &[
                (
                    "Liv Sundgen",
                    "won",
                    "Halwick Medal",
                    "c1.s3: The second winner, Liv Sundgen, received it in 1884.",
                ),
                ("Liv Sundgen", "born in", "@Kettlesholm", "c2.s1"),
            ],
            NotShown,
        ),
        // … the first winner's, said "first": the chain holds.
        (
            "In which town was the first winner of the Halwick Medal born?",
            "Brindsund",
            &[
                (
                    "Sigurd Sundgen",
                    "won",
                    "Halwick Medal",
                    "c1.s2: It was first awarded in 1853 to Sigurd Sundgen.",
                ),
                ("Sigurd Sundgen", "born in", "@Brindsund", "c3.s1"),
            ],
            Answers,
        ),
        // Another book of the same publisher is no step: a chain does not
        // go back along the predicate it came by.
        (
            "In which year was the book written by Brita Ravsen published?",
            "1907",
            &[
                ("Brita Ravsen", "author of", "The Last Meridian", "c1.s1"),
                (
                    "The Last Meridian",
                    "published by",
                    "Bramble Press",
                    "c1.s2",
                ),
                ("The Last Compass", "published by", "Bramble Press", "c2.s1"),
                ("The Last Compass", "other: published in", "1907", "c2.s1"),
            ],
            AboutAnother,
        ),
        // A question that says no relation takes one fact of any
        // predicate from its name …
        (
            "In which city is the Marsh Shipyard?",
            "Wendsund",
            &[("Marsh Shipyard", "located in", "@Wendsund", "c1.s1")],
            Answers,
        ),
        // … and no longer chain: the founder's birthplace is not where the
        // shipyard is.
        (
            "In which city is the Marsh Shipyard?",
            "Wendsund",
            &[
                ("Emil Ravness", "founded", "Marsh Shipyard", "c1.s1"),
                ("Emil Ravness", "born in", "@Wendsund", "c2.s1"),
            ],
            NotShown,
        ),
        // The cousin's birthplace: the founder is reached, the answer's
        // fact is about someone else.
        (
            FOUNDER,
            "Vikhavn",
            &[
                ("Emil Ravness", "founded", "Marsh Shipyard", "c1.s1"),
                ("Emil Ravness", "relative of", "Per Haugen", "c1.s2"),
                ("Per Haugen", "born in", "@Vikhavn", "c1.s3"),
            ],
            AboutAnother,
        ),
        // The founder's place of death is no birthplace.
        (
            FOUNDER,
            "Hawby",
            &[
                ("Emil Ravness", "founded", "Marsh Shipyard", "c1.s1"),
                ("Emil Ravness", "died in", "@Hawby", "c2.s2"),
            ],
            NotShown,
        ),
        // A birthplace with no cited link to the company: not shown (the
        // walk reached no one, so nothing says it is someone else's).
        (
            FOUNDER,
            "Wendsund",
            &[("Emil Ravness", "born in", "@Wendsund", "c2.s1")],
            NotShown,
        ),
        // Skipping the founder: a place the company is in does not answer.
        (
            FOUNDER,
            "Marsh",
            &[
                ("Marsh Shipyard", "located in", "@Marsh", "c1.s1"),
                ("Emil Ravness", "founded", "Marsh Shipyard", "c1.s2"),
            ],
            NotShown,
        ),
        // A year through a directed institute.
        (
            "In which year was the institute that Gunnar Ravland directed founded?",
            "1973",
            &[
                ("Gunnar Ravland", "led", "Lungen Institute", "c3.s1"),
                ("Lungen Institute", "date of founding", "1973", "c4.s1"),
            ],
            Answers,
        ),
        // Three hops through other: and inverse labels.
        (
            "Who founded the publisher of the book written by Aksel Varud?",
            "Mathias Kelholm",
            &[
                ("Aksel Varud", "author of", "The Winter Bell", "c5.s1"),
                (
                    "The Winter Bell",
                    "published by",
                    "Greywater Books",
                    "c5.s2",
                ),
                ("Mathias Kelholm", "founded", "Greywater Books", "c6.s1"),
            ],
            Answers,
        ),
        // Comparisons: the earlier by the cited dates, and the wrong one.
        (
            "Which ship was launched first, the Little Cormorant or the Golden Curlew?",
            "Little Cormorant",
            &[
                ("Little Cormorant", "other: launched in", "1935", "c7.s1"),
                ("Golden Curlew", "other: launched in", "1951", "c8.s1"),
            ],
            Answers,
        ),
        (
            "Which ship was launched first, the Little Cormorant or the Golden Curlew?",
            "Golden Curlew",
            &[
                ("Little Cormorant", "other: launched in", "1935", "c7.s1"),
                ("Golden Curlew", "other: launched in", "1951", "c8.s1"),
            ],
            NotShown,
        ),
        // A comparison with one date missing.
        (
            "Who was born first, Jorund Eldley or Ragna Brinvik?",
            "Jorund Eldley",
            &[("Jorund Eldley", "date of birth", "1840", "c9.s1")],
            NotShown,
        ),
        // Counts by a year and by an entity.
        (
            "How many of Lantern Publishing, Marsh Shipyard and Ostberg Shipyard were founded before 1920?",
            "2",
            &[
                ("Lantern Publishing", "date of founding", "1961", "c1.s1"),
                ("Marsh Shipyard", "date of founding", "1919", "c2.s1"),
                ("Ostberg Shipyard", "date of founding", "1841", "c3.s1"),
            ],
            Answers,
        ),
        (
            "How many of Lantern Publishing, Marsh Shipyard and Ostberg Shipyard were founded before 1920?",
            "3",
            &[
                ("Lantern Publishing", "date of founding", "1961", "c1.s1"),
                ("Marsh Shipyard", "date of founding", "1919", "c2.s1"),
                ("Ostberg Shipyard", "date of founding", "1841", "c3.s1"),
            ],
            NotShown,
        ),
        (
            "How many of the books The Iron Glacier, The Drowned Archive and The Paper Garden were published by Foxglove Books?",
            "two",
            &[
                (
                    "The Iron Glacier",
                    "published by",
                    "Foxglove Books",
                    "c1.s1",
                ),
                (
                    "The Drowned Archive",
                    "published by",
                    "Greywater Books",
                    "c2.s1",
                ),
                (
                    "The Paper Garden",
                    "published by",
                    "Foxglove Books",
                    "c3.s1",
                ),
            ],
            Answers,
        ),
        // A count with an item no cited fact speaks of.
        (
            "How many of the books The Iron Glacier, The Drowned Archive and The Paper Garden were published by Foxglove Books?",
            "2",
            &[
                (
                    "The Iron Glacier",
                    "published by",
                    "Foxglove Books",
                    "c1.s1",
                ),
                (
                    "The Paper Garden",
                    "published by",
                    "Foxglove Books",
                    "c3.s1",
                ),
            ],
            NotShown,
        ),
        // A name inside a longer name the question gives is not a start.
        (
            "Who founded Marsh Shipyard?",
            "Emil Ravness",
            &[
                ("Emil Ravness", "other: founded in", "@Marsh", "c1.s1"),
                ("Emil Ravness", "founded", "Marsh Shipyard", "c1.s1"),
            ],
            Answers,
        ),
        (
            "Who founded Marsh Shipyard?",
            "Emil Ravness",
            &[("Emil Ravness", "other: founded in", "@Marsh", "c1.s1")],
            NotShown,
        ),
        // A town inside another place is no country.
        (
            "In which country is the publisher of The Hollow Orchard based?",
            "Kettlesdal",
            &[
                (
                    "The Hollow Orchard",
                    "published by",
                    "Greywater Books",
                    "c1.s1",
                ),
                ("Greywater Books", "located in", "@Kettlesdal", "c2.s1"),
            ],
            NotShown,
        ),
        (
            "In which country is the publisher of The Hollow Orchard based?",
            "Vesland",
            &[
                (
                    "The Hollow Orchard",
                    "published by",
                    "Greywater Books",
                    "c1.s1",
                ),
                ("Greywater Books", "located in", "@Vesland", "c2.s1"),
            ],
            Answers,
        ),
        // Yes/no answers are not chains.
        (
            "Was Emil Ravness born in Wendsund?",
            "yes",
            &[("Emil Ravness", "born in", "@Wendsund", "c2.s1")],
            NotShown,
        ),
    ];
    for (question, short, facts, want) in cases {
        let (got, reason, _) = run(question, short, facts);
        assert_eq!(got, *want, "{question} → {short}: {reason}");
    }
}

#[test]
fn a_chain_is_shown_hop_by_hop() {
    let (verdict, _, hops) = run(
        FOUNDER,
        "Wendsund",
        &[
            ("Emil Ravness", "founded", "Marsh Shipyard", "c1.s1"),
            ("Emil Ravness", "born in", "@Wendsund", "c2.s1"),
        ],
    );
    assert_eq!((verdict, hops), (AnswerVerdict::Answers, 2));
}
