//! Load: `rlmkg bench serve --quick` runs 50 concurrent searches and 8
//! concurrent heuristic asks against one server while ingests commit into
//! its store; it fails on any answer but 200 or 503, on a chunk id that
//! does not read back and on a document count that goes down.

use rlmkg_tests::{repo_root, rlmkg, stderr, stdout};
use serde_json::Value;

#[test]
fn searches_and_asks_under_load_while_an_ingest_commits_see_no_errors() {
    let work = tempfile::tempdir().unwrap();
    let out = rlmkg(&repo_root())
        .env("RLMKG_MODEL_DIR", work.path().join("no-models"))
        .args(["--json", "bench", "serve", "--quick", "--work-dir"])
        .arg(work.path())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        !stderr(&out).contains("bench serve:"),
        "the load run failed: {}",
        stderr(&out)
    );
    let rows: Vec<Value> = serde_json::from_str(&stdout(&out)).unwrap();
    let names: Vec<&str> = rows.iter().map(|r| r["name"].as_str().unwrap()).collect();
    for want in [
        "search alone p50",
        "search during ingest p99",
        "heuristic ask during ingest p50",
    ] {
        assert!(names.contains(&want), "{names:?}");
    }
    for r in &rows {
        let v = r["value"].as_f64().unwrap();
        assert!(v > 0.0 && v < 60_000.0, "{r}");
    }
}
