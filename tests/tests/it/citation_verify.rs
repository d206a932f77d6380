//! `rlmkg verify FILE --store DIR` end to end (issue 4): a store ingested from
//! `examples/corpus/`, an answer citing its real chunk ids, and the real binary.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;

use rlmkg_ingest::Store;
use rlmkg_tests::{run, sample_store, stderr, stdout};

/// The id of the chunk of the store containing `needle`, found by search.
fn chunk_id(store_dir: &Path, query: &str, needle: &str) -> String {
    let store = Store::open_read(store_dir).unwrap();
    let hits = store.search(query, 10).unwrap();
    match hits.iter().find(|h| h.text.contains(needle)) {
        Some(hit) => hit.id.to_string(),
        None => panic!("no chunk with {needle:?} in the sample store"),
    }
}

/// A sample store and the id of its chunk that says Northlight Press was
/// founded in 1987 by Catherine Moray (what the answers below cite).
fn store_and_founded_chunk() -> (tempfile::TempDir, std::path::PathBuf, String) {
    let (tmp, store) = sample_store();
    let founded = chunk_id(
        &store,
        "Northlight Press founded Catherine Moray",
        "founded in 1987 by Catherine Moray",
    );
    (tmp, store, founded)
}

/// Write `answer`, run `rlmkg verify` on it with `extra` flags, return (exit code, stdout, stderr).
fn verify(dir: &Path, store: &Path, answer: &str, extra: &[&str]) -> (i32, String, String) {
    let file = dir.join("answer.md");
    std::fs::write(&file, answer).unwrap();
    let mut args = vec![
        "verify",
        file.to_str().unwrap(),
        "--store",
        store.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    let out = run(dir, &args);
    (out.status.code().unwrap_or(-1), stdout(&out), stderr(&out))
}

#[test]
fn verify_on_the_sample_corpus() {
    let (tmp, store, founded) = store_and_founded_chunk();
    let answer = format!(
        "Here is what the sources say.\n\n\
         Northlight Press was founded in 1987 by Catherine Moray [{founded}]. \
         Northlight Press was founded in 1978 by Catherine Moray [{founded}]. \
         Catherine Moray founded Northlight Press [c999999]. \
         The press publishes cookbooks.\n"
    );

    let (code, out, err) = verify(tmp.path(), &store, &answer, &["--json"]);
    assert_eq!(code, 0, "stderr: {err}");
    let json: serde_json::Value = serde_json::from_str(&out).unwrap();
    let verdicts: Vec<&str> = json["claims"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["verdict"].as_str().unwrap())
        .collect();
    assert_eq!(
        verdicts,
        ["exempt", "supported", "overreach", "broken", "uncited"]
    );
    let note = &json["footnotes"][0];
    assert!(
        note["path"]
            .as_str()
            .unwrap()
            .ends_with("northlight_press.md"),
        "{note}"
    );
    assert!(
        note["quote"]
            .as_str()
            .unwrap()
            .contains("founded in 1987 by Catherine Moray")
    );
    assert!(note["line_start"].as_u64().unwrap() >= 1);

    let (code, text, _) = verify(tmp.path(), &store, &answer, &[]);
    assert_eq!(code, 0);
    assert!(text.contains("northlight_press.md:"), "{text}");
    assert!(
        text.contains("⟨✓⟩") && text.contains("⟨✗ overreach⟩") && text.contains("⟨! broken⟩"),
        "{text}"
    );
    assert!(
        text.contains("number 1978") || text.contains("date 1978"),
        "{text}"
    );

    let (code, _, _) = verify(tmp.path(), &store, &answer, &["--strict"]);
    assert_eq!(code, 1, "--strict fails an answer with unsupported claims");
    let good = format!("Northlight Press was founded in 1987 by Catherine Moray [{founded}].\n");
    let (code, _, err) = verify(tmp.path(), &store, &good, &["--strict"]);
    assert_eq!(code, 0, "{err}");
}

#[test]
fn verify_reports_input_errors() {
    let tmp = tempfile::tempdir().unwrap();
    let missing_store = tmp.path().join("nope");
    let (code, _, err) = verify(tmp.path(), &missing_store, "A claim [c1].", &[]);
    assert_eq!(code, 2, "{err}");
    let out = run(tmp.path(), &["verify", "does-not-exist.md", "--store", "x"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("does-not-exist.md"));
}

#[test]
fn judge_without_a_model_is_a_backend_error() {
    let (tmp, store, founded) = store_and_founded_chunk();
    // A partial claim, so the judge is needed; no model is configured in the test environment.
    let answer = format!(
        "Northlight Press was founded in 1987 by Catherine Moray in a small rented flat near the old harbour of Leith [{founded}].\n"
    );
    let (code, _, err) = verify(
        tmp.path(),
        &store,
        &answer,
        &["--judge", "--model-path", "/nonexistent/model.gguf"],
    );
    assert_eq!(code, 3, "{err}");
}
