//! End-to-end tests of `rlmkg eval` on small HotpotQA / MuSiQue fixtures, on the
//! sample corpus, and (when present) on the shared dev data: retrieval-only runs,
//! and answer runs with the heuristic strategy and with a scripted root model
//! served over real HTTP on 127.0.0.1.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;
use std::process::Output;

use rlm_core::testkit::{ChatServer, Reply};
use rlmkg_tests::{
    Found, find_sentence, fixture, repl, repo_root, run, shared_data, stderr, stdout, turn,
    without_models,
};
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
        (
            vec![
                "eval",
                hotpot.to_str().unwrap(),
                "--retrieval-only",
                "--strategy",
                "heuristic",
            ],
            "--strategy",
        ),
    ];
    for (args, needle) in cases {
        let out = run(tmp.path(), &args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        assert!(stderr(&out).contains(needle), "{args:?}: {}", stderr(&out));
    }
    // The rlm strategy without a root model is a backend error, before any work.
    let out = without_models(tmp.path())
        .args(["eval", hotpot.to_str().unwrap(), "--strategy", "rlm"])
        .args(["--out", "o"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    assert!(stderr(&out).contains("--base-url"), "{}", stderr(&out));
    assert!(!tmp.path().join("o/store").exists(), "nothing ingested");
}

/// `rlmkg eval <args> --json` without models; the raw output.
fn eval_run<S: AsRef<std::ffi::OsStr>>(dir: &Path, args: &[S]) -> Output {
    without_models(dir)
        .arg("eval")
        .args(args)
        .arg("--json")
        .output()
        .unwrap()
}

/// The report of a successful [`eval_run`].
fn report_of(out: &Output) -> Value {
    assert_eq!(out.status.code(), Some(0), "eval failed:\n{}", stderr(out));
    serde_json::from_str(&stdout(out))
        .unwrap_or_else(|e| panic!("not JSON ({e}):\n{}", stdout(out)))
}

fn mean(values: impl Iterator<Item = f64>) -> f64 {
    let v: Vec<f64> = values.collect();
    v.iter().sum::<f64>() / v.len() as f64
}

#[test]
fn heuristic_answer_run_scores_every_question() {
    let tmp = tempfile::tempdir().unwrap();
    let data = fixture("eval/hotpot_small.json");
    let data = data.to_str().unwrap();
    let out = eval_run(tmp.path(), &[data, "--strategy", "heuristic", "--out", "o"]);
    let report = report_of(&out);
    assert!(
        !stderr(&out).contains("no root model"),
        "an explicit heuristic strategy needs no note: {}",
        stderr(&out)
    );
    assert_eq!(report["mode"], "run");
    assert_eq!(report["run"]["effective"], "heuristic", "{report}");
    let summary = &report["summary"];
    assert_eq!(summary["questions"], 3);
    assert_eq!(summary["calls"], 0, "no model, no calls: {summary}");
    assert_eq!(summary["run_errors"], 0, "{summary}");
    let recs = records(&tmp.path().join("o/results-run.jsonl"));
    assert_eq!(recs.len(), 3);
    for r in &recs {
        let run = &r["run"];
        assert!(run.is_object(), "every record has its run: {r}");
        assert_eq!(run["run"]["method"], "extractive", "{r}");
        assert_eq!(run["run"]["extractive"], true, "{r}");
        let answer = run["run"]["answer"].as_str().unwrap();
        assert!(!answer.is_empty(), "{r}");
        assert!(
            !answer.contains("[c"),
            "citation markers stripped: {answer}"
        );
        assert!(
            !run["run"]["cited_sentences"].as_array().unwrap().is_empty(),
            "the extractive answer cites its evidence: {r}"
        );
        for k in ["em", "f1", "citation_precision", "citation_recall"] {
            let v = run[k].as_f64().unwrap_or_else(|| panic!("no {k} in {r}"));
            assert!((0.0..=1.0).contains(&v), "{k} = {v}");
        }
    }
    // The summary is the mean of the records.
    for k in ["em", "f1", "citation_precision", "citation_recall"] {
        let want = mean(recs.iter().map(|r| r["run"][k].as_f64().unwrap()));
        let got = summary[k].as_f64().unwrap();
        assert!((got - want).abs() < 1e-9, "{k}: {got} vs {want}");
    }

    // auto without a model falls back to the heuristic, says so once, and resumes the
    // heuristic answers (same effective run).
    let out = eval_run(tmp.path(), &[data, "--out", "o"]);
    let again = report_of(&out);
    assert_eq!(stderr(&out).matches("no root model configured").count(), 1);
    assert_eq!(
        (again["new"].as_u64(), again["resumed"].as_u64()),
        (Some(0), Some(3))
    );
    assert_eq!(again["summary"], report["summary"]);
}

/// The kinds of question a generated world has, in report order.
const WORLD_KINDS: [&str; 5] = ["two-hop", "three-hop", "comparison", "count", "date"];

/// The columns of a row of `summary.by_kind`.
const KIND_COLUMNS: [&str; 9] = [
    "questions",
    "right",
    "wrong_stood",
    "verified",
    "verified_wrong",
    "fell_back",
    "fell_back_right",
    "not_found",
    "failed",
];

#[test]
fn a_generated_world_is_ingested_and_evaluated_per_kind() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let out = run(dir, &["--json", "generate", "world", "w", "--seed", "2"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let made: Value = serde_json::from_str(&stdout(&out)).unwrap();
    let articles = made["articles"].as_u64().unwrap();
    assert!(made["questions"].as_u64().unwrap() >= 60, "{made}");
    for kind in WORLD_KINDS {
        assert!(
            made["kinds"][kind].as_u64().unwrap() >= 10,
            "{kind}: {made}"
        );
    }
    // One document per article, titled by its heading.
    let out = without_models(dir)
        .args(["--store", "s", "--json", "ingest", "w/articles"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let out = without_models(dir)
        .args(["--store", "s", "--json", "stats"])
        .output()
        .unwrap();
    let stats: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(stats["stats"]["docs"].as_u64(), Some(articles), "{stats}");

    let report = report_of(&eval_run(
        dir,
        &[
            "w/questions.jsonl",
            "--corpus",
            "w/articles",
            "--strategy",
            "heuristic",
            "--out",
            "o",
        ],
    ));
    assert_eq!(report["run"]["label"], "heuristic", "{report}");
    let summary = &report["summary"];
    let rows = summary["by_kind"].as_array().unwrap();
    let names: Vec<&str> = rows.iter().map(|r| r["kind"].as_str().unwrap()).collect();
    assert_eq!(names, [&WORLD_KINDS[..], &["all"]].concat(), "{summary}");
    let recs = records(&dir.join("o/results-run.jsonl"));
    for row in rows {
        for col in KIND_COLUMNS {
            assert!(row[col].is_u64(), "{col} in {row}");
        }
        let kind = row["kind"].as_str().unwrap();
        let of_kind: Vec<&Value> = recs
            .iter()
            .filter(|r| kind == "all" || r["kind"] == kind)
            .collect();
        assert_eq!(
            row["questions"].as_u64(),
            Some(of_kind.len() as u64),
            "{row}"
        );
        let right = of_kind.iter().filter(|r| r["run"]["em"] == 1.0).count();
        assert_eq!(row["right"].as_u64(), Some(right as u64), "{row}");
        let verified_wrong = of_kind
            .iter()
            .filter(|r| r["run"]["run"]["verified"] == true && r["run"]["em"] != 1.0)
            .count();
        assert_eq!(
            row["verified_wrong"].as_u64(),
            Some(verified_wrong as u64),
            "{row}"
        );
        assert_eq!(row["fell_back"], 0, "no model, no RLM to fall back: {row}");
    }
    // The gold chain's sentences are the gold sentences: citations are scored.
    assert!(summary["citation_precision"].is_f64(), "{summary}");
    let methods = summary["by_method"].as_array().unwrap();
    assert_eq!(methods.len(), 1, "{summary}");
    assert!(methods[0]["verified_wrong"].is_u64(), "{summary}");

    // The human table (resumed: nothing runs again), its figures redacted:
    // the shape, not the quality.
    let out = without_models(dir)
        .args(["eval", "w/questions.jsonl", "--corpus", "w/articles"])
        .args(["--strategy", "heuristic", "--out", "o"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    let table = text
        .get(text.find("by kind").expect("a per-kind table")..)
        .unwrap();
    // Figures (and the padding before them, which follows their width) as N.
    let figures = regex::Regex::new(r"[ (]+\d+\)?").unwrap();
    insta::assert_snapshot!("eval_world_by_kind", figures.replace_all(table, " N"));
}

const PAINTER_Q: &str = "painter of Grey Tide";
/// Prompt tokens the scripted server reports for every call.
const PROMPT_TOKENS: u64 = 5000;

/// Code that finds, at run time, the sentence saying where the painter was
/// born as `sid` and the one saying who painted Grey Tide as `pid`.
fn find_birth() -> String {
    [
        find_sentence(
            "sid",
            "Orrin Vale born town",
            5,
            &["born in the fishing town of Kettleby"],
            Found::Id,
        ),
        find_sentence(
            "pid",
            "Grey Tide painted",
            5,
            &["painted by Orrin Vale"],
            Found::Id,
        ),
    ]
    .join("\n")
}

/// A root model that answers the painter question in two turns (find the
/// sentences, then FINAL citing both hops) and gives up on every other
/// question.
fn scripted_root() -> ChatServer {
    ChatServer::start(|req: &Value, _| {
        let text = if req.to_string().contains(PAINTER_Q) {
            match turn(req) {
                0 => repl(&find_birth()),
                _ => repl(
                    r#"FINAL(f"Kettleby [{sid}]. Grey Tide was painted by Orrin Vale [{pid}].")"#,
                ),
            }
        } else {
            repl(r#"FINAL("I cannot tell")"#)
        };
        Reply::TextWithPromptTokens(text, PROMPT_TOKENS)
    })
    .unwrap()
}

fn requests_for(server: &ChatServer, needle: &str) -> usize {
    server
        .requests()
        .iter()
        .filter(|r| r.to_string().contains(needle))
        .count()
}

#[test]
fn scripted_model_run_counts_calls_and_resumes_without_calling_again() {
    let tmp = tempfile::tempdir().unwrap();
    let data = fixture("eval/hotpot_small.json");
    let data = data.to_str().unwrap();
    let server = scripted_root();
    let base = server.base_url();
    let model_args = [
        "--base-url",
        base.as_str(),
        "--model",
        "scripted",
        "--no-cache",
    ];
    let args = |extra: &[&'static str]| -> Vec<String> {
        let mut v: Vec<String> = vec![data.into(), "--out".into(), "o".into()];
        v.extend(model_args.iter().map(|s| s.to_string()));
        v.extend(extra.iter().map(|s| s.to_string()));
        v
    };

    // First two questions, with the rlm strategy.
    let a = args(&["--strategy", "rlm", "--limit", "2"]);
    let first = report_of(&eval_run(tmp.path(), &a));
    assert_eq!(first["run"]["effective"], "rlm");
    assert_eq!(first["run"]["root_model"], "openai:scripted");
    let recs = records(&tmp.path().join("o/results-run.jsonl"));
    let hq1 = &recs[0]["run"];
    assert_eq!(recs[0]["id"], "hq1");
    assert_eq!(hq1["run"]["method"], "rlm", "{hq1}");
    assert_eq!(hq1["run"]["short_answer"], "Kettleby", "{hq1}");
    assert_eq!(hq1["em"], 1.0, "{hq1}");
    assert_eq!(hq1["f1"], 1.0, "{hq1}");
    // Both hops cited: a chain of facts from the question's name to the
    // answer, verified (issue 44).
    assert_eq!(hq1["run"]["verified"], true, "{hq1}");
    assert!(
        hq1["run"]["answer_check"]
            .as_str()
            .is_some_and(|c| c.starts_with("answers")),
        "{hq1}"
    );
    assert_eq!(
        hq1["run"]["cited_sentences"],
        serde_json::json!([
            "Vale was born in the fishing town of Kettleby in 1962.",
            "It was painted by Orrin Vale and hangs in the Lantern Gallery."
        ])
    );
    // The cited sentences are the two gold sentences.
    assert_eq!(hq1["citation_precision"], 1.0, "{hq1}");
    assert_eq!(hq1["citation_recall"], 1.0, "{hq1}");
    // Calls and tokens are the server's: two turns of PROMPT_TOKENS each.
    let painter_calls = requests_for(&server, PAINTER_Q);
    assert_eq!(painter_calls, 2, "find, then FINAL");
    assert_eq!(hq1["run"]["calls"], 2, "{hq1}");
    assert_eq!(hq1["run"]["input_tokens"], 2 * PROMPT_TOKENS, "{hq1}");
    assert!(hq1["run"]["output_tokens"].as_u64().unwrap() > 0, "{hq1}");
    // The root cannot tell: the run falls back, and the summary counts what
    // the fallback answered.
    let hq2 = &recs[1]["run"];
    assert_ne!(hq2["run"]["method"], "rlm", "{hq2}");
    let hq2_em = hq2["em"].as_f64().unwrap();
    // The run's answers per kind (HotpotQA's `type`): a question the model gave
    // up on is handed to the heuristic, and counted as fallen back.
    assert_eq!(first["run"]["label"], "rlm");
    let fell_back = recs
        .iter()
        .filter(|r| r["run"]["run"]["fallback"].is_string())
        .count();
    assert_eq!(hq1["run"]["fallback"], Value::Null, "{hq1}");
    assert!(hq2["run"]["fallback"].is_string(), "{hq2}");
    let all = first["summary"]["by_kind"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["kind"] == "all")
        .unwrap();
    assert_eq!(all["fell_back"].as_u64(), Some(fell_back as u64), "{all}");
    assert_eq!(all["right"].as_f64(), Some(1.0 + hq2_em), "{all}");
    let gallery_calls = requests_for(&server, "gallery that holds Grey Tide");
    assert!(gallery_calls >= 1);
    assert_eq!(hq2["run"]["calls"], gallery_calls, "{hq2}");
    let summary = &first["summary"];
    assert_eq!(
        summary["em"].as_f64(),
        Some((1.0 + hq2_em) / 2.0),
        "{summary}"
    );
    assert_eq!(summary["calls"], server.requests().len());
    let tokens: u64 = recs
        .iter()
        .map(|r| {
            r["run"]["run"]["input_tokens"].as_u64().unwrap()
                + r["run"]["run"]["output_tokens"].as_u64().unwrap()
        })
        .sum();
    assert_eq!(summary["tokens"], tokens);
    // The trajectory of each question is kept under its id.
    let trace = std::fs::read_to_string(tmp.path().join("o/traces/hq1.jsonl")).unwrap();
    let last: Value = serde_json::from_str(trace.lines().last().unwrap()).unwrap();
    assert_eq!(last["type"], "final", "{last}");

    // Resume: only the third question runs.
    let before = server.requests().len();
    let a = args(&["--strategy", "rlm"]);
    let second = report_of(&eval_run(tmp.path(), &a));
    assert_eq!(
        (second["new"].as_u64(), second["resumed"].as_u64()),
        (Some(1), Some(2))
    );
    let hq3_calls = requests_for(&server, "engineer of the Kettleby lighthouse");
    assert!(hq3_calls >= 1);
    assert_eq!(
        server.requests().len(),
        before + hq3_calls,
        "calls for hq3 only"
    );
    assert_eq!(requests_for(&server, PAINTER_Q), painter_calls);
    assert_eq!(
        requests_for(&server, "gallery that holds Grey Tide"),
        gallery_calls
    );

    // A finished run: nothing new, no call.
    let before = server.requests().len();
    let third = report_of(&eval_run(tmp.path(), &a));
    assert_eq!(
        (third["new"].as_u64(), third["resumed"].as_u64()),
        (Some(0), Some(3))
    );
    assert_eq!(server.requests().len(), before);
    assert_eq!(third["summary"], second["summary"]);

    // Another strategy or model would mix answers: refused, nothing called.
    for extra in [
        &["--strategy", "heuristic"][..],
        &["--strategy", "rlm", "--temperature", "0.9"][..],
    ] {
        let a = args(extra);
        let out = eval_run(tmp.path(), &a);
        assert_eq!(out.status.code(), Some(2), "{extra:?}: {}", stderr(&out));
        assert!(stderr(&out).contains("--fresh"), "{}", stderr(&out));
        assert_eq!(server.requests().len(), before);
    }
    // --fresh starts over with the new strategy.
    let a = args(&["--strategy", "heuristic", "--fresh"]);
    let fresh = report_of(&eval_run(tmp.path(), &a));
    assert_eq!(
        (fresh["new"].as_u64(), fresh["resumed"].as_u64()),
        (Some(3), Some(0))
    );
    assert_eq!(fresh["run"]["effective"], "heuristic");
    assert_eq!(
        fresh["run"]["label"], "composed",
        "the heuristic's evidence composed by the model"
    );
    assert!(!tmp.path().join("o/traces/hq1.jsonl").exists());
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
