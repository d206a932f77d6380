//! The answer check on fixed facts: one table of cases, one helper.

use rlmkg_heuristic::Question;

use super::judge::judge;
use super::{AnswerVerdict, CitedFact, Node};

/// A fact written as (subject, label, object, sentence); an entity's kind
/// is read from its name (a year is a date; `@` marks a place).
type F<'a> = (&'a str, &'a str, &'a str, &'a str);

fn run(question: &str, short: &str, facts: &[F<'_>]) -> (AnswerVerdict, String, usize) {
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

/// The verdict cases, one a block (see the file's head for the form).
const CASES: &str = include_str!("cases.txt");

#[test]
fn verdicts() {
    let mut seen = 0;
    for block in CASES.split("\n\n") {
        let lines: Vec<&str> = block.lines().filter(|l| !l.starts_with('#')).collect();
        if lines.is_empty() {
            continue;
        }
        let field = |prefix: &str| {
            lines
                .iter()
                .find_map(|l| l.strip_prefix(prefix))
                .unwrap_or_else(|| panic!("a case without `{prefix}`: {block}"))
        };
        let (question, short, want) = (field("? "), field("= "), field("-> "));
        let facts: Vec<F> = lines
            .iter()
            .filter(|l| l.contains(" | "))
            .map(|l| {
                let parts: Vec<&str> = l.splitn(4, " | ").collect();
                assert_eq!(parts.len(), 4, "a fact of four parts: {l}");
                (parts[0], parts[1], parts[2], parts[3])
            })
            .collect();
        let (got, reason, _) = run(question, short, &facts);
        assert_eq!(got.name(), want, "{question} → {short}: {reason}");
        seen += 1;
    }
    assert_eq!(seen, 26, "every case in cases.txt is read");
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
