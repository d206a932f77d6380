//! The answer checked as an answer (issue 44), through the real binary on a
//! generated world (seed 1, a development seed): `verify --question` finds
//! the chain company → founder → birthplace (`answers`), names the brother
//! whose birthplace an answer gives instead (`about_another`), and says when
//! no chain of cited facts reaches the answer (`not_shown`). No model.
// Test helpers fail loudly (clippy.toml).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;

use rlmkg_tests::{run, stderr, stdout};
use serde_json::Value;

const QUESTION: &str = "In which town was the founder of Marshstead Shipbuilding Company born?";

/// The chunk id of the document titled `title` (each article is one chunk).
fn chunk_of(dir: &Path, title: &str) -> String {
    let out = run(dir, &["--store", "s", "--json", "search", title]);
    assert!(out.status.success(), "{}", stderr(&out));
    let hits: Value = serde_json::from_str(&stdout(&out)).unwrap();
    let hits = hits["hits"].as_array().or(hits.as_array()).unwrap().clone();
    hits.iter()
        .find(|h| h["title"] == title)
        .unwrap_or_else(|| panic!("no hit titled {title}: {hits:?}"))["id"]
        .as_str()
        .unwrap()
        .to_owned()
}

#[test]
fn verify_question_gives_each_verdict_on_a_generated_world() {
    let dir = tempfile::tempdir().unwrap();
    let out = run(dir.path(), &["generate", "world", "w", "--seed", "1"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let out = run(dir.path(), &["--store", "s", "ingest", "w/articles"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let founder = chunk_of(dir.path(), "Emil Ravness");
    let company = chunk_of(dir.path(), "Marshstead Shipbuilding Company");
    let founded = format!(
        "Marshstead Shipbuilding Company was founded in 1919 by the shipwright Emil Ravness [{company}.s3]."
    );
    // (answer, verdict, what the reason or the chain names)
    let cases = [
        (
            format!(
                "Wendsund [{founder}.s2]. {founded} Emil Ravness was born in Wendsund [{founder}.s2]."
            ),
            "answers",
            "born in",
        ),
        (
            format!(
                "Wendesund [{founder}.s4]. {founded} His younger brother Halvard Ravness was born in Wendesund [{founder}.s4]."
            ),
            "about_another",
            "Halvard Ravness",
        ),
        (
            format!("Hawby [{founder}.s5]. {founded} He died in Hawby in 1953 [{founder}.s5]."),
            "not_shown",
            "Hawby",
        ),
        (
            format!("Wendsund [{founder}.s2]. Emil Ravness was born in Wendsund [{founder}.s2]."),
            "not_shown",
            "a name the question gives",
        ),
    ];
    for (answer, verdict, names) in cases {
        std::fs::write(dir.path().join("a.txt"), &answer).unwrap();
        let out = run(
            dir.path(),
            &[
                "--store",
                "s",
                "--json",
                "verify",
                "a.txt",
                "--question",
                QUESTION,
            ],
        );
        assert!(out.status.success(), "{}", stderr(&out));
        let got: Value = serde_json::from_str(&stdout(&out)).unwrap();
        let check = &got["answer_check"];
        assert_eq!(check["verdict"], verdict, "{answer}\n{check:#}");
        assert!(check.to_string().contains(names), "{answer}\n{check:#}");
        // Every claim is supported in each case: the claims alone do not
        // tell a right answer from a wrong one.
        assert!(
            got["report"]["claims"]
                .as_array()
                .unwrap()
                .iter()
                .all(|c| c["verdict"] == "supported"),
            "{got:#}"
        );
        // --strict fails unless the answer answers.
        let out = run(
            dir.path(),
            &[
                "--store",
                "s",
                "verify",
                "a.txt",
                "--strict",
                "--question",
                QUESTION,
            ],
        );
        assert_eq!(
            out.status.success(),
            verdict == "answers",
            "{}",
            stdout(&out)
        );
        assert!(
            stdout(&out).starts_with("Answer check: "),
            "{}",
            stdout(&out)
        );
    }
}
