//! End-to-end tests of `rlmkg eval --retrieval-only` on small HotpotQA / MuSiQue
//! fixtures, on the sample corpus, and (when present) on the shared dev data.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;

use rlmkg_tests::{fixture, repo_root, run, shared_data, stderr, stdout};
use serde_json::Value;

/// Run `rlmkg eval <args> --json` in `dir`, assert success, return the report.
fn eval_json(dir: &Path, args: &[&str]) -> Value {
    let mut full = vec!["eval"];
    full.extend_from_slice(args);
    full.push("--json");
    let out = run(dir, &full);
    assert_eq!(
        out.status.code(),
        Some(0),
        "eval {args:?} failed:\n{}",
        stderr(&out)
    );
    serde_json::from_str(&stdout(&out))
        .unwrap_or_else(|e| panic!("not JSON ({e}):\n{}", stdout(&out)))
}

/// The per-question records of a results file (unreadable lines skipped).
fn records(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

fn recall(v: &Value, method: &str, k: &str) -> f64 {
    v["summary"][method][k]
        .as_f64()
        .unwrap_or_else(|| panic!("no {method} {k} in {v}"))
}

#[test]
fn hotpotqa_fixture_reports_recall_for_bm25_and_graph() {
    let tmp = tempfile::tempdir().unwrap();
    let data = fixture("eval/hotpot_small.json");
    let out = tmp.path().join("out");
    let report = eval_json(
        tmp.path(),
        &[
            data.to_str().unwrap(),
            "--retrieval-only",
            "--out",
            out.to_str().unwrap(),
        ],
    );
    assert_eq!(report["format"], "hotpotqa");
    assert_eq!(
        report["documents"], 8,
        "8 distinct passages pooled from 12 contexts"
    );
    assert_eq!(report["summary"]["questions"], 3);
    assert_eq!(report["summary"]["graph_errors"], 0, "{report}");
    // 8 passages and stop words in every question: BM25's top 10 holds every passage.
    assert_eq!(recall(&report, "bm25", "r@10"), 1.0);
    for method in ["bm25", "graph"] {
        for k in ["r@2", "r@5", "r@10"] {
            let r = recall(&report, method, k);
            assert!((0.0..=1.0).contains(&r), "{method} {k} = {r}");
        }
    }
    let recs = records(&out.join("results-retrieval.jsonl"));
    let ids: Vec<&str> = recs.iter().map(|r| r["id"].as_str().unwrap()).collect();
    assert_eq!(ids, ["hq1", "hq2", "hq3"]);
    assert_eq!(
        recs[0]["gold"],
        serde_json::json!(["Grey Tide", "Orrin Vale"])
    );
    for r in &recs {
        let docs = r["bm25"]["docs"].as_array().unwrap();
        let matches = r["bm25"]["matches"].as_array().unwrap();
        assert_eq!(docs.len(), matches.len());
        // A ranked document matches a gold position exactly when its title is that gold title.
        for (d, m) in docs.iter().zip(matches) {
            let gold_pos: Vec<Value> = r["gold"]
                .as_array()
                .unwrap()
                .iter()
                .enumerate()
                .filter(|(_, g)| *g == d)
                .map(|(i, _)| Value::from(i))
                .collect();
            assert_eq!(m.as_array().unwrap(), &gold_pos, "{d} in {r}");
        }
    }
}

#[test]
fn musique_duplicate_titles_are_told_apart_by_text() {
    let tmp = tempfile::tempdir().unwrap();
    let data = fixture("eval/musique_small.jsonl");
    let report = eval_json(
        tmp.path(),
        &[data.to_str().unwrap(), "--retrieval-only", "--out", "o"],
    );
    assert_eq!(report["format"], "musique");
    assert_eq!(
        report["documents"], 7,
        "two different passages titled Kettleby both kept"
    );
    let recs = records(&tmp.path().join("o/results-retrieval.jsonl"));
    let first = &recs[0];
    assert_eq!(first["gold"], serde_json::json!(["Orrin Vale", "Kettleby"]));
    let docs = first["bm25"]["docs"].as_array().unwrap();
    let matches = first["bm25"]["matches"].as_array().unwrap();
    let kettleby: Vec<&Value> = docs
        .iter()
        .zip(matches)
        .filter(|(d, _)| *d == "Kettleby")
        .map(|(_, m)| m)
        .collect();
    assert_eq!(kettleby.len(), 2, "both Kettleby passages ranked: {first}");
    let gold_hits = kettleby
        .iter()
        .filter(|m| m.as_array().unwrap() == &[Value::from(1)])
        .count();
    let misses = kettleby
        .iter()
        .filter(|m| m.as_array().unwrap().is_empty())
        .count();
    assert_eq!(
        (gold_hits, misses),
        (1, 1),
        "exactly one Kettleby is the gold passage: {first}"
    );
}

#[test]
fn a_killed_eval_resumes_where_it_stopped() {
    let tmp = tempfile::tempdir().unwrap();
    let data = fixture("eval/hotpot_small.json");
    let data = data.to_str().unwrap();
    let first = eval_json(
        tmp.path(),
        &[data, "--retrieval-only", "--out", "o", "--limit", "1"],
    );
    assert_eq!(
        (first["new"].as_u64(), first["resumed"].as_u64()),
        (Some(1), Some(0))
    );
    assert_eq!(first["summary"]["questions"], 1);

    // Simulate a kill in the middle of writing the second record.
    let results = tmp.path().join("o/results-retrieval.jsonl");
    let mut text = std::fs::read_to_string(&results).unwrap();
    text.push_str("{\"id\": \"hq2\", \"question\": \"In wh");
    std::fs::write(&results, text).unwrap();

    let out = run(
        tmp.path(),
        &["eval", data, "--retrieval-only", "--out", "o", "--json"],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("1 unreadable line"),
        "{}",
        stderr(&out)
    );
    let second: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(
        (second["new"].as_u64(), second["resumed"].as_u64()),
        (Some(2), Some(1))
    );
    assert_eq!(second["summary"]["questions"], 3);
    let ids: Vec<String> = records(&results)
        .iter()
        .map(|r| r["id"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(
        ids,
        ["hq1", "hq2", "hq3"],
        "the cut line is skipped, the rest appended"
    );

    let third = eval_json(tmp.path(), &[data, "--retrieval-only", "--out", "o"]);
    assert_eq!(
        (third["new"].as_u64(), third["resumed"].as_u64()),
        (Some(0), Some(3))
    );
    assert_eq!(
        third["summary"], second["summary"],
        "a rerun reports the same figures"
    );

    let fresh = eval_json(
        tmp.path(),
        &[data, "--retrieval-only", "--out", "o", "--fresh"],
    );
    assert_eq!(
        (fresh["new"].as_u64(), fresh["resumed"].as_u64()),
        (Some(3), Some(0))
    );
}

#[test]
fn sample_corpus_questions_find_their_documents() {
    let tmp = tempfile::tempdir().unwrap();
    let root = repo_root();
    let questions = root.join("examples/questions.jsonl");
    let corpus = root.join("examples/corpus");
    let report = eval_json(
        tmp.path(),
        &[
            questions.to_str().unwrap(),
            "--corpus",
            corpus.to_str().unwrap(),
            "--retrieval-only",
            "--out",
            "o",
        ],
    );
    assert_eq!(report["format"], "jsonl");
    assert_eq!(report["summary"]["questions"], 11);
    // Every gold name resolves to a document: some ranking finds each one.
    let recs = records(&tmp.path().join("o/results-retrieval.jsonl"));
    for r in &recs {
        let n_gold = r["gold"].as_array().unwrap().len();
        let mut found = vec![false; n_gold];
        for method in ["bm25", "graph"] {
            for m in r[method]["matches"].as_array().unwrap() {
                for g in m.as_array().unwrap() {
                    found[g.as_u64().unwrap() as usize] = true;
                }
            }
        }
        assert!(
            found.iter().filter(|f| **f).count() * 2 >= n_gold,
            "half the gold documents of {} never ranked: {r}",
            r["id"]
        );
    }
    assert!(recall(&report, "bm25", "r@10") >= 0.5, "{report}");
}

#[test]
fn human_output_is_a_table() {
    let tmp = tempfile::tempdir().unwrap();
    let data = fixture("eval/hotpot_small.json");
    let out = run(
        tmp.path(),
        &[
            "eval",
            data.to_str().unwrap(),
            "--retrieval-only",
            "--out",
            "o",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().collect();
    assert!(
        lines[0].starts_with("recall (3 q)") && lines[0].ends_with("@10"),
        "{text}"
    );
    assert!(
        lines[1].starts_with("bm25 search") && lines[1].ends_with("1.000"),
        "{text}"
    );
    assert!(lines[2].starts_with("graph related"), "{text}");
    assert!(
        stderr(&out).contains("per-question results"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn bad_invocations_exit_2_with_a_clear_message() {
    let tmp = tempfile::tempdir().unwrap();
    let questions = repo_root().join("examples/questions.jsonl");
    let bad = tmp.path().join("bad.jsonl");
    std::fs::write(
        &bad,
        "{\"question\": \"q\", \"answer\": \"a\", \"gold_titles\": []}\n{oops\n",
    )
    .unwrap();
    let hotpot = fixture("eval/hotpot_small.json");
    let cases: [(Vec<&str>, &str); 4] = [
        (
            vec!["eval", questions.to_str().unwrap(), "--retrieval-only"],
            "--corpus",
        ),
        (
            vec!["eval", "missing.json", "--retrieval-only"],
            "missing.json",
        ),
        (
            vec![
                "eval",
                bad.to_str().unwrap(),
                "--retrieval-only",
                "--corpus",
                ".",
            ],
            "line 2",
        ),
        (vec!["eval", hotpot.to_str().unwrap()], "--retrieval-only"),
    ];
    for (args, needle) in cases {
        let out = run(tmp.path(), &args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        assert!(stderr(&out).contains(needle), "{args:?}: {}", stderr(&out));
    }
}

#[test]
fn shared_hotpotqa_retrieval_only_when_present() {
    let Some(data) = shared_data("hotpotqa_train.json") else {
        eprintln!("skipped: ../shared/data/hotpotqa_train.json is absent");
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let report = eval_json(
        tmp.path(),
        &[
            data.to_str().unwrap(),
            "--retrieval-only",
            "--limit",
            "20",
            "--out",
            "o",
        ],
    );
    assert_eq!(
        report["documents"], 994,
        "every pooled passage is one document"
    );
    assert_eq!(report["summary"]["questions"], 20);
    assert!(recall(&report, "bm25", "r@10") > 0.3, "{report}");
}
