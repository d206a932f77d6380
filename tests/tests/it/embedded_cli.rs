//! `rlmkg model pull|list` against a temporary model cache (`RLMKG_MODEL_DIR`).
//! No network: installs come from local files.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;
use std::process::Output;

use rlmkg_tests::{rlmkg, stderr, stdout};

fn model_cmd(cwd: &Path, cache: &Path, args: &[&str]) -> Output {
    rlmkg(cwd)
        .env("RLMKG_MODEL_DIR", cache)
        .args(args)
        .output()
        .unwrap()
}

#[test]
fn list_on_an_empty_cache_is_empty() {
    let tmp = tempfile::tempdir().unwrap();
    let cache = tmp.path().join("models");
    let out = model_cmd(tmp.path(), &cache, &["model", "list", "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        serde_json::from_str::<serde_json::Value>(&stdout(&out)).unwrap(),
        serde_json::json!([])
    );
}

#[test]
fn pull_from_a_file_that_is_not_gguf_is_a_usage_error() {
    let tmp = tempfile::tempdir().unwrap();
    let bogus = tmp.path().join("bogus.gguf");
    std::fs::write(&bogus, b"not a model").unwrap();
    let out = model_cmd(
        tmp.path(),
        &tmp.path().join("models"),
        &["model", "pull", "--from", bogus.to_str().unwrap()],
    );
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("not a GGUF file"), "{}", stderr(&out));
}

#[test]
fn unknown_model_names_are_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let out = model_cmd(
        tmp.path(),
        &tmp.path().join("models"),
        &["model", "pull", "no-such-model"],
    );
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("unknown model"), "{}", stderr(&out));
}

#[test]
fn pull_from_a_gguf_file_installs_and_lists_it() {
    // A minimal valid GGUF header (v3, no tensors, no metadata) is enough to install.
    let tmp = tempfile::tempdir().unwrap();
    let src = tmp.path().join("tiny-test.gguf");
    let mut bytes = b"GGUF".to_vec();
    bytes.extend_from_slice(&3u32.to_le_bytes());
    bytes.extend_from_slice(&0u64.to_le_bytes());
    bytes.extend_from_slice(&0u64.to_le_bytes());
    std::fs::write(&src, &bytes).unwrap();
    let cache = tmp.path().join("models");

    let out = model_cmd(
        tmp.path(),
        &cache,
        &["model", "pull", "--from", src.to_str().unwrap(), "--json"],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let installed: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(installed["name"], "tiny-test");
    assert_eq!(installed["size"], bytes.len());
    assert!(installed["source"].as_str().unwrap().starts_with("file:"));
    // sha256 of the bytes written above.
    assert_eq!(installed["sha256"].as_str().unwrap().len(), 64);
    assert!(cache.join("tiny-test.gguf").is_file());

    let out = model_cmd(tmp.path(), &cache, &["model", "list", "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let list: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(list.as_array().unwrap().len(), 1);
    assert_eq!(list[0], installed);

    let out = model_cmd(tmp.path(), &cache, &["model", "list"]);
    let text = stdout(&out);
    assert!(
        text.contains("tiny-test") && text.contains("file:") && text.contains("24 B"),
        "{text}"
    );
}
