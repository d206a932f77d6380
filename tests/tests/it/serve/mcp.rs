//! The MCP server driven by the official Python SDK (`mcp` from PyPI), over
//! stdio (`rlmkg mcp`, started by the SDK) and over streamable HTTP (`/mcp`
//! of `rlmkg serve`). The SDK checks every structured result against the
//! tool's output schema; `tests/fixtures/serve/mcp_client.py` says what it calls.

use std::path::Path;

use rlmkg_tests::{bin, fixture, sample_store, stderr, stdout};
use serde_json::Value;

use super::support::{Server, python};

/// Run the Python client with `args`; its JSON report.
fn client(python: &Path, dir: &Path, args: &[&str]) -> Value {
    let out = std::process::Command::new(python)
        .arg(fixture("serve/mcp_client.py"))
        .args(args)
        .current_dir(dir)
        .env("RLMKG_MODEL_DIR", dir.join("no-models"))
        .env_remove("RLMKG_BASE_URL")
        .env_remove("RLMKG_MODEL")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "the MCP client failed:\n{}\n{}",
        stdout(&out),
        stderr(&out)
    );
    let last = stdout(&out).lines().last().unwrap_or_default().to_string();
    serde_json::from_str(&last).unwrap_or_else(|e| panic!("{e}: {}", stdout(&out)))
}

/// What both transports must show.
fn assert_session(r: &Value, with_ingest: bool) {
    let mut want = vec![
        "ask",
        "entity",
        "facts",
        "neighbors",
        "path",
        "read",
        "related",
        "search",
        "stats",
        "verify",
    ];
    if with_ingest {
        want.push("ingest");
        want.sort_unstable();
    }
    assert_eq!(r["server"], "rlmkg");
    let tools: Vec<&str> = r["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t.as_str().unwrap())
        .collect();
    assert_eq!(tools, want);
    // What the documents state of her, with the sentence to cite.
    assert!(
        r["facts"]
            .as_array()
            .is_some_and(|f| f.contains(&serde_json::json!(["founded", "northlight_press", true]))),
        "{r}"
    );
    assert_eq!(
        r["schemas"], true,
        "every tool has an input and an output schema"
    );
    assert!(r["search_ids"][0].as_str().unwrap().starts_with('c'), "{r}");
    assert!(
        r["search_text"].as_str().unwrap().contains("Skarvik"),
        "{r}"
    );
    assert!(r["read_marked"].as_str().unwrap().starts_with('['), "{r}");
    assert_eq!(r["ask_error"], false, "{r}");
    assert_eq!(r["short_answer"], "Tromsø", "{r}");
    // The answer check shows the chain from the expedition to the city.
    assert_eq!(r["ask_verified"], true, "{r}");
    assert_eq!(r["verify_good"], serde_json::json!(["supported"]), "{r}");
    let bad = r["verify_bad"].as_array().unwrap();
    assert!(
        !bad.is_empty() && bad.iter().all(|v| v != "supported"),
        "{r}"
    );
    assert!(
        r["verify_bad_text"].as_str().unwrap().contains("bergen"),
        "{r}"
    );
    assert_eq!(r["entity_missing_error"], true, "{r}");
    // Arguments are named for what they are (issue 45: `path` took `a` and `b`).
    assert_eq!(
        r["path_arguments"],
        serde_json::json!(["from", "max_hops", "to"]),
        "{r}"
    );
    assert_eq!(r["path_error"], false, "{r}");
    assert_eq!(
        r["path_names"][0],
        // A chain of facts: he led the expedition, the institute organised it.
        serde_json::json!([
            "Tomas Reyes",
            "Skarvik Expedition",
            "Kestrel Institute for Coastal Studies"
        ]),
        "{r}"
    );
    // Any text is a search (issue 45: this was the index's schema error).
    assert_eq!(r["odd_search_error"], false, "{r}");
    assert!(
        r["unknown_tool"].as_str().unwrap().contains("unknown tool"),
        "{r}"
    );
    assert!(r["bad_args"].as_str().unwrap().contains("query"), "{r}");
    assert!(
        r["stats_docs"].as_u64().unwrap() > 0,
        "the session went on after the errors"
    );
}

#[test]
fn the_python_sdk_over_stdio_lists_tools_and_calls_search_verify_and_ask() {
    let Some(python) = python() else { return };
    let (dir, store) = sample_store();
    std::fs::create_dir_all(dir.path().join("no-models")).unwrap();
    let r = client(
        &python,
        dir.path(),
        &[
            "stdio",
            bin().to_str().unwrap(),
            "--store",
            store.to_str().unwrap(),
            "mcp",
        ],
    );
    assert_session(&r, false);
}

#[test]
fn the_python_sdk_over_http_lists_tools_and_calls_search_verify_and_ask() {
    let Some(python) = python() else { return };
    let (dir, store) = sample_store();
    let server = Server::start(dir.path(), &store, &["--allow-ingest"], &[]);
    let r = client(&python, dir.path(), &["http", &server.url("/mcp")]);
    assert_session(&r, true);
    // Still serving the API beside MCP.
    let status = super::support::client()
        .get(server.url("/healthz"))
        .send()
        .unwrap()
        .status();
    assert_eq!(status, 200);
}
