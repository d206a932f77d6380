#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! Type accuracy on the labelled sample (issue 43, item 3): the passages of
//! `tests/fixtures/types/labelled.jsonl` (drawn from the development corpora,
//! labelled by reading; its README says how) are ingested as one corpus, and
//! each labelled mention's entity type is compared with its gold type —
//! `not_entity` when no entity answers to the mention.
//!
//! `cargo test -p rlmkg-tests --test it types_sample -- --nocapture` prints
//! the confusion table, the errors and `type accuracy: … on … mentions` (the
//! figure BENCHMARKS quotes); and, for the held-out sample
//! (`heldout.jsonl`, labelled blind) and the second one (`unseen.jsonl`,
//! drawn and labelled after the rules it measures), their tables and
//! figures only.

use std::collections::{BTreeMap, BTreeSet};

use rlmkg_ingest::{IngestOptions, NoProgress, Store};
use rlmkg_tests::fixture;
use serde_json::{Value, json};

/// Accuracy measured last (0.914 on 256 mentions, 2026-12-07, branch
/// types3: closed lists and context; 0.887 at main 2f05d43 before it;
/// 0.879 at branch types 7f069f4; 0.742 on 2026-12-05, branch facts2;
/// 0.562 when the test was written at main 1e52415), less 3 points: a
/// regression of the type rules fails here; raise it when they improve.
const FLOOR: f64 = 0.88;

/// Held-out accuracy measured last, less 3 points (see [`FLOOR`]): 0.745
/// on 255 mentions at branch types3 (0.714 at main 2f05d43 before it, after
/// the merge of the first type rules; 0.659 before them, when the sample
/// was labelled; the development sample went 0.742 → 0.883 → 0.914 over the
/// same rounds).
const HELD_OUT_FLOOR: f64 = 0.71;

/// Accuracy on the second held-out sample at its first reading, less 3
/// points (see [`FLOOR`]): 0.773 on 260 mentions on 2026-12-08 at main `c18ecac`
/// (the type rules of branch types3), drawn and labelled after them.
const UNSEEN_FLOOR: f64 = 0.74;

/// The gold types, in the table's order.
const TYPES: [&str; 7] = [
    "person",
    "organization",
    "place",
    "work",
    "date",
    "other",
    "not_entity",
];

/// One labelled mention.
struct Case {
    title: String,
    text: String,
    mention: String,
    gold: String,
}

fn cases(file: &str) -> Vec<Case> {
    let path = fixture(file);
    let raw = std::fs::read_to_string(&path).expect("the labelled sample reads");
    raw.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let v: Value = serde_json::from_str(l).expect("a JSON line");
            let field = |k: &str| v[k].as_str().expect(k).to_string();
            let case = Case {
                title: field("title"),
                text: field("text"),
                mention: field("mention"),
                gold: field("type"),
            };
            assert!(TYPES.contains(&case.gold.as_str()), "gold {}", case.gold);
            assert!(
                case.text.contains(&case.mention),
                "{:?} is not in {:?}",
                case.mention,
                case.title
            );
            case
        })
        .collect()
}

/// The sentence of `text` holding `mention` (for the error list).
fn sentence_of<'a>(text: &'a str, mention: &str) -> &'a str {
    let at = text.find(mention).unwrap_or(0);
    let start = text[..at].rfind(". ").map_or(0, |p| p + 2);
    let end = text[at..].find(". ").map_or(text.len(), |p| at + p + 1);
    text[start..end].trim()
}

/// What [`measure`] found on one sample.
struct Measured {
    /// The confusion table, gold by predicted, with each gold type's accuracy.
    table: String,
    /// The mentions typed wrong, with their sentences.
    errors: Vec<String>,
    /// Right / mentions.
    accuracy: f64,
    /// Mentions.
    n: usize,
}

/// Ingest the passages of the sample `file` as one corpus and type each
/// labelled mention.
fn measure(file: &str) -> Measured {
    let cases = cases(file);
    assert!(cases.len() >= 200, "{} mentions", cases.len());
    let tmp = tempfile::tempdir().unwrap();
    let mut seen = BTreeSet::new();
    let passages: Vec<Value> = cases
        .iter()
        .filter(|c| seen.insert((c.title.as_str(), c.text.as_str())))
        .map(|c| json!({"title": c.title, "text": c.text}))
        .collect();
    let corpus = tmp.path().join("sample.json");
    std::fs::write(&corpus, serde_json::to_string(&passages).unwrap()).unwrap();
    let dir = tmp.path().join("store");
    let mut store = Store::create_or_open(&dir).unwrap();
    store
        .ingest(&[corpus], &IngestOptions::default(), &NoProgress)
        .unwrap();

    let mut confusion: BTreeMap<(&str, String), usize> = BTreeMap::new();
    let mut errors = Vec::new();
    for c in &cases {
        let predicted = store
            .entity(&c.mention)
            .unwrap()
            .map_or_else(|| "not_entity".to_string(), |e| e.kind);
        if predicted != c.gold {
            errors.push(format!(
                "{:?} gold {} predicted {} | {}",
                c.mention,
                c.gold,
                predicted,
                sentence_of(&c.text, &c.mention)
            ));
        }
        *confusion.entry((c.gold.as_str(), predicted)).or_default() += 1;
    }
    let mut columns: Vec<String> = TYPES.iter().map(|t| t.to_string()).collect();
    for (_, p) in confusion.keys() {
        if !columns.contains(p) {
            columns.push(p.clone());
        }
    }
    let short = |t: &str| t.chars().take(6).collect::<String>();
    let mut table = format!("{:<13}", "gold \\ pred");
    for p in &columns {
        table += &format!("{:>7}", short(p));
    }
    table += "    n  accuracy\n";
    for g in TYPES {
        let row: Vec<usize> = columns
            .iter()
            .map(|p| confusion.get(&(g, p.clone())).copied().unwrap_or(0))
            .collect();
        let n: usize = row.iter().sum();
        let right = confusion.get(&(g, g.to_string())).copied().unwrap_or(0);
        table += &format!("{g:<13}");
        for x in &row {
            table += &format!("{x:>7}");
        }
        table += &format!("{n:>5}  {:.2}\n", right as f64 / n.max(1) as f64);
    }
    let n = cases.len();
    let accuracy = (n - errors.len()) as f64 / n as f64;
    Measured {
        table,
        errors,
        accuracy,
        n,
    }
}

#[test]
fn type_accuracy_on_the_labelled_sample() {
    let Measured {
        table,
        errors,
        accuracy,
        n,
    } = measure("types/labelled.jsonl");
    eprintln!("{table}");
    eprintln!("errors ({}):", errors.len());
    for e in &errors {
        eprintln!("  {e}");
    }
    eprintln!("type accuracy: {accuracy:.3} on {n} mentions");
    assert!(
        accuracy >= FLOOR,
        "type accuracy {accuracy:.3} fell under {FLOOR} on {n} mentions"
    );
}

/// Measure a held-out sample, print only its table and figure (never its
/// errors, so the rules are not developed against it) and hold it to `floor`.
fn held_out(file: &str, floor: f64) {
    let m = measure(file);
    eprintln!("{}", m.table);
    eprintln!(
        "held-out type accuracy ({file}): {:.3} on {} mentions ({} wrong)",
        m.accuracy,
        m.n,
        m.errors.len()
    );
    assert!(
        m.accuracy >= floor,
        "held-out type accuracy {:.3} fell under {floor} on {} mentions of {file}",
        m.accuracy,
        m.n
    );
}

/// The held-out sample (`heldout.jsonl`, labelled blind; its README says
/// how).
#[test]
fn type_accuracy_on_the_held_out_sample() {
    held_out("types/heldout.jsonl", HELD_OUT_FLOOR);
}

/// The second held-out sample (`unseen.jsonl`, drawn and labelled blind
/// after the type rules of 2026-12-07; its README says how).
#[test]
fn type_accuracy_on_the_second_held_out_sample() {
    held_out("types/unseen.jsonl", UNSEEN_FLOOR);
}
