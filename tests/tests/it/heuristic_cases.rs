//! Question → short answer cases for the no-model heuristic (issue 32): every
//! case in `tests/fixtures/heuristic/cases.jsonl` (the sample questions and
//! cases of our own over `examples/corpus`, a development set; the file's
//! header says how it was made) runs through the real binary,
//! `ask --json --strategy heuristic`, on one store ingested once. A case
//! marked `known_wrong` must still answer what it recorded, so that a fix, or
//! a new wrong answer, is noticed.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;

use rlmkg_tests::{ask_heuristic, fixture, sample_store, stderr, stdout};
use serde_json::Value;

/// One case of the file.
struct Case {
    id: String,
    question: String,
    /// The right short answer and its other spellings; `None`: not in the corpus.
    answers: Option<Vec<String>>,
    /// What the heuristic answers today when that is wrong (`Some(None)`: "not found").
    known_wrong: Option<Option<String>>,
}

/// The cases of `tests/fixtures/heuristic/cases.jsonl`.
fn cases() -> Vec<Case> {
    let text = std::fs::read_to_string(fixture("heuristic/cases.jsonl")).unwrap();
    text.lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|line| {
            let v: Value = serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}"));
            let text = |v: &Value| v.as_str().map(str::to_owned);
            let answers = text(&v["answer"]).map(|a| {
                let aliases = v["aliases"].as_array().into_iter().flatten();
                std::iter::once(a).chain(aliases.filter_map(text)).collect()
            });
            let known_wrong = (v["known_wrong"] == true).then(|| text(&v["got"]));
            Case {
                id: text(&v["id"]).expect("a case's id"),
                question: text(&v["question"]).expect("a case's question"),
                answers,
                known_wrong,
            }
        })
        .collect()
}

/// Lower-cased, without `.` and `,` (how the sample questions are scored).
fn norm(s: &str) -> String {
    s.to_lowercase().replace(['.', ','], "")
}

/// Ask `case` on `store`; `Ok` when the answer is what the case says, else
/// what went wrong.
fn run_case(dir: &Path, store: &Path, case: &Case) -> Result<(), String> {
    let out = ask_heuristic(dir, store, &["--json"], &case.question)
        .output()
        .unwrap();
    if !out.status.success() {
        return Err(format!("{}: ask failed: {}", case.id, stderr(&out)));
    }
    let answer: Value = serde_json::from_str(&stdout(&out)).unwrap();
    let short = answer["short_answer"]["text"].as_str().map(str::to_owned);
    // "Not found" is said, and nothing is verified.
    if short.is_none() && (answer["not_found"] != true || answer["verified"] != false) {
        return Err(format!(
            "{}: no short answer yet not a plain not found: {answer:#}",
            case.id
        ));
    }
    let right = match (&case.answers, &short) {
        (Some(golds), Some(s)) => golds.iter().any(|g| norm(g) == norm(s)),
        (None, None) => true,
        _ => false,
    };
    match &case.known_wrong {
        None if right => Ok(()),
        None => Err(format!(
            "{} {:?}: answered {short:?}, want {:?}",
            case.id, case.question, case.answers
        )),
        Some(_) if right => Err(format!(
            "{} {:?}: marked known_wrong but now answered right ({short:?}): drop known_wrong",
            case.id, case.question
        )),
        Some(got) if *got == short => Ok(()),
        Some(got) => Err(format!(
            "{} {:?}: known_wrong answer changed from {got:?} to {short:?} (want {:?}): \
             record it",
            case.id, case.question, case.answers
        )),
    }
}

#[test]
fn heuristic_short_answers_are_those_of_the_case_file() {
    let all = cases();
    assert!(all.len() >= 33, "the case file lost cases: {}", all.len());
    let (dir, store) = sample_store();
    let failures: Vec<String> = all
        .iter()
        .filter_map(|c| run_case(dir.path(), &store, c).err())
        .collect();
    assert!(
        failures.is_empty(),
        "{} of {} cases failed:\n{}",
        failures.len(),
        all.len(),
        failures.join("\n")
    );
}
