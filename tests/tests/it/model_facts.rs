//! `ingest --extract llm` (issue 43) through the real binary and a real
//! HTTP model server that answers with scripted facts: a fact whose
//! sentence holds it joins the graph, one it does not is dropped and
//! counted, an unchanged file costs no call, a passage read before comes
//! from the cache, and a store read by a model says so when the model
//! configured later is another.
// Test helpers fail loudly (clippy.toml).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use rlm_core::testkit::{ChatServer, Reply};
use rlmkg_tests::{run, stderr, stdout};
use serde_json::Value;

const ARTICLE: &str = "# The Grey Heron\n\nThe Grey Heron was a schooner built in 1898. \
                       She sailed from Wendsund under Captain Ola Brenne.\n";

/// The model's facts: one the third sentence (after the heading) holds, one it does not (no
/// Bergen in the passage).
const FACTS: &str = "The Grey Heron | sailed from | Wendsund | 3\n\
                     The Grey Heron | sailed from | Bergen | 3\n";

fn ingest(dir: &std::path::Path, server: &ChatServer, extra: &[&str]) -> (bool, Value, String) {
    let base = server.base_url();
    let mut args = vec![
        "--store",
        "st",
        "--json",
        "ingest",
        "docs",
        "--base-url",
        base.as_str(),
        "--model",
        "scripted",
    ];
    args.extend_from_slice(extra);
    let out = run(dir, &args);
    let json = serde_json::from_str(&stdout(&out)).unwrap_or(Value::Null);
    (out.status.success(), json, stderr(&out))
}

#[test]
fn a_model_adds_the_facts_its_sentences_hold_and_reads_a_passage_once() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    std::fs::create_dir(dir.join("docs")).unwrap();
    std::fs::write(dir.join("docs/heron.md"), ARTICLE).unwrap();
    let server = ChatServer::start(|_, _| Reply::Text(FACTS.into())).unwrap();

    let (ok, json, err) = ingest(dir, &server, &["--extract", "llm"]);
    assert!(ok, "{err}");
    assert!(err.contains("facts will be read by"), "no estimate: {err}");
    let m = &json["model_facts"];
    assert_eq!(m["passages"], 1, "{json:#}");
    assert_eq!(m["proposed"], 2, "{json:#}");
    assert_eq!(m["added"], 1, "{json:#}");
    assert_eq!(
        m["dropped"]["an end the sentence does not name"], 1,
        "{json:#}"
    );
    assert_eq!(server.requests().len(), 1);
    let prompt = server.requests()[0].to_string();
    assert!(prompt.contains("3. She sailed from Wendsund"), "{prompt}");

    let out = run(dir, &["--store", "st", "entity", "The Grey Heron"]);
    let shown = stdout(&out);
    assert!(
        shown.contains("other: sailed from") && shown.contains("Wendsund"),
        "{shown}"
    );
    assert!(!shown.contains("Bergen"), "{shown}");

    // Unchanged: no call.
    let (ok, _, err) = ingest(dir, &server, &[]);
    assert!(ok, "{err}");
    assert_eq!(server.requests().len(), 1);

    // A file added by an ingest with no model at hand (a server's, the
    // Python package's, or no model configured): its passage goes unread,
    // the model's facts stay, and the next ingest with the model reads it.
    std::fs::write(
        dir.join("docs/tern.md"),
        "# Tern\n\nTern sailed from Hawby.\n",
    )
    .unwrap();
    let out = rlmkg_tests::rlmkg(dir)
        .env("RLMKG_MODEL_DIR", dir.join("no-models"))
        .args(["--store", "st", "--json", "ingest", "docs"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let json: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(json["model_facts"]["unread"], 1, "{json:#}");
    let shown = stdout(&run(dir, &["--store", "st", "entity", "The Grey Heron"]));
    assert!(shown.contains("sailed from"), "{shown}");
    assert_eq!(server.requests().len(), 1);
    let (ok, json, err) = ingest(dir, &server, &[]);
    assert!(ok, "{err}");
    assert_eq!(json["model_facts"]["passages"], 1, "{json:#}");
    assert_eq!(json["model_facts"]["unread"], 0, "{json:#}");
    assert_eq!(server.requests().len(), 2);

    // Another model configured later: said, nothing re-read silently.
    let other = ChatServer::start(|_, _| Reply::Text("NONE".into())).unwrap();
    let out = run(
        dir,
        &[
            "--store",
            "st",
            "ingest",
            "docs",
            "--base-url",
            other.base_url().as_str(),
            "--model",
            "another",
        ],
    );
    assert!(!out.status.success());
    assert!(stderr(&out).contains("--extract rules"), "{}", stderr(&out));
    assert!(other.requests().is_empty());

    // `--extract rules` drops the model's facts.
    let out = run(
        dir,
        &["--store", "st", "ingest", "docs", "--extract", "rules"],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let shown = stdout(&run(dir, &["--store", "st", "entity", "The Grey Heron"]));
    assert!(!shown.contains("sailed from"), "{shown}");

    // Read by the model again: every file is prepared again, and the
    // passage read before comes from the cache.
    let (ok, json, err) = ingest(dir, &server, &["--extract", "llm"]);
    assert!(ok, "{err}");
    assert_eq!(json["model_facts"]["cached"], 2, "{json:#}");
    assert_eq!(json["model_facts"]["added"], 1, "{json:#}");
    assert_eq!(
        server.requests().len(),
        2,
        "a passage read before was read again"
    );
}

#[test]
fn extract_llm_with_no_model_says_what_to_give() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    std::fs::create_dir(dir.join("docs")).unwrap();
    std::fs::write(dir.join("docs/heron.md"), ARTICLE).unwrap();
    let out = rlmkg_tests::rlmkg(dir)
        .env("RLMKG_MODEL_DIR", dir.join("no-models"))
        .args(["--store", "st", "ingest", "docs", "--extract", "llm"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("--extract llm needs a model"),
        "{}",
        stderr(&out)
    );
}
