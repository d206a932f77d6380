//! `rlmkg eval` on a WiCE file: the citation checker's agreement with human
//! labels, lexical only and with the model judge served by a scripted
//! OpenAI-compatible server over real HTTP on 127.0.0.1 (judge calls cached).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;

use rlm_core::testkit::{ChatServer, Reply, last_user};
use rlmkg_tests::{fixture, stderr, stdout, without_models};
use serde_json::Value;

const WICE: &str = "citation/wice_small.jsonl";
/// The one claim of the fixture the lexical checker leaves `partial` (gold: supported).
const PARTIAL_CLAIM: &str = "admitted without charge on Sundays";

/// Run `rlmkg eval <args> --json` in `dir` with no installed model; return the
/// exit code and the parsed report (Null when stdout is not JSON).
fn eval(dir: &Path, args: &[&str]) -> (Option<i32>, Value, String) {
    let mut full = vec!["eval"];
    full.extend_from_slice(args);
    full.push("--json");
    let out = without_models(dir).args(&full).output().unwrap();
    let report = serde_json::from_str(&stdout(&out)).unwrap_or(Value::Null);
    (out.status.code(), report, stderr(&out))
}

fn confusion(v: &Value) -> Vec<Vec<u64>> {
    v["confusion"]
        .as_array()
        .unwrap()
        .iter()
        .map(|row| {
            row.as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_u64().unwrap())
                .collect()
        })
        .collect()
}

#[test]
fn wice_file_is_scored_by_the_checker_with_per_claim_results() {
    let tmp = tempfile::tempdir().unwrap();
    let data = fixture(WICE);
    let (code, report, err) = eval(
        tmp.path(),
        &[data.to_str().unwrap(), "--out", "o", "--limit", "5"],
    );
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(report["format"], "wice");
    let lexical = &report["lexical"];
    assert_eq!(lexical["claims"], 5);
    // Rows gold, columns checker: the Sunday paraphrase is the one miss.
    assert_eq!(
        confusion(lexical),
        [[2, 1, 0], [0, 1, 0], [0, 0, 1]],
        "{report}"
    );
    assert!(report.get("judged").is_none(), "no judge was asked for");
    let lines: Vec<Value> = std::fs::read_to_string(tmp.path().join("o/results-wice.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 5);
    assert_eq!(lines[1]["gold"], "partially_supported");
    // The coordinated claim is checked clause by clause.
    assert_eq!(lines[1]["clauses"].as_array().unwrap().len(), 2);
    assert_eq!(lines[1]["clauses"][0]["verdict"], "supported");

    let (code, report, _) = eval(tmp.path(), &[data.to_str().unwrap(), "--limit", "2"]);
    assert_eq!(code, Some(0));
    assert_eq!(report["lexical"]["claims"], 2, "--limit caps the claims");
}

#[test]
fn judge_reviews_only_partial_clauses_and_is_cached() {
    let tmp = tempfile::tempdir().unwrap();
    let data = fixture(WICE);
    let server = ChatServer::start(|req: &Value, _| {
        let reply = if last_user(req).contains(PARTIAL_CLAIM) {
            "Yes."
        } else {
            "NO"
        };
        Reply::Text(reply.into())
    })
    .unwrap();
    let base = server.base_url();
    let args = [
        data.to_str().unwrap(),
        "--out",
        "o",
        "--judge",
        "--base-url",
        base.as_str(),
        "--model",
        "scripted",
    ];
    let (code, report, err) = eval(tmp.path(), &args);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(
        server.requests().len(),
        1,
        "only the partial clause is judged"
    );
    let asked = last_user(&server.requests()[0]);
    assert!(asked.contains("Admission to the museum is free"), "{asked}");
    assert!(asked.contains("Answer YES or NO"), "{asked}");
    assert_eq!(report["judge"]["requests"], 1);
    assert_eq!(report["judge"]["cached"], 0);
    assert_eq!(
        confusion(&report["judged"]),
        [[3, 0, 0], [0, 1, 0], [0, 0, 1]],
        "{report}"
    );
    assert_eq!(report["judged"]["macro_f1"], 1.0);
    // The lexical figure is reported next to the judged one, unchanged.
    assert_eq!(confusion(&report["lexical"])[0], [2, 1, 0]);

    // A rerun answers from the call cache under OUT/store.
    let (code, report, err) = eval(tmp.path(), &args);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(server.requests().len(), 1, "no new call");
    assert_eq!(report["judge"]["cached"], 1);
    assert_eq!(report["judged"]["macro_f1"], 1.0);
}

#[test]
fn judge_without_a_model_or_on_a_qa_set_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let data = fixture(WICE);
    let (code, _, err) = eval(tmp.path(), &[data.to_str().unwrap(), "--judge"]);
    assert_eq!(code, Some(3), "no model is a backend failure: {err}");
    assert!(err.contains("--judge needs a model"), "{err}");

    let hotpot = fixture("eval/hotpot_small.json");
    let (code, _, err) = eval(
        tmp.path(),
        &[hotpot.to_str().unwrap(), "--retrieval-only", "--judge"],
    );
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("WiCE"), "{err}");
}
