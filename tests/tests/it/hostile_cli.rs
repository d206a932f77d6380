//! Issue 15 through the real binary: hostile settings are usage errors (exit 2),
//! hostile `k` from Python is clamped, a server that never recovers is a clear
//! exit 3, and a store's own config cannot redirect requests.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::process::Output;
use std::time::{Duration, Instant};

use rlm_core::testkit::Reply;
use rlmkg_tests::{
    ScriptedCase, ask_heuristic, ask_scripted, repl, rlmkg, sample_store, scripted_case, stderr,
    stdout, turn,
};
use serde_json::Value;

const QUESTION: &str = "Who organised the Skarvik Expedition?";

/// Run `QUESTION` with `script` as the root model (see [`scripted_case`]).
fn ask(script: impl Fn(&Value, usize) -> Reply + Send + Sync + 'static) -> ScriptedCase {
    scripted_case(script, &[], QUESTION)
}

#[test]
fn negative_nan_or_infinite_durations_are_usage_errors_not_panics() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store");
    std::fs::create_dir_all(&store).unwrap();
    let check = |out: &Output, what: &str| {
        assert_eq!(out.status.code(), Some(2), "{what}: {}", stderr(out));
        let err = stderr(out);
        assert!(
            err.contains("not a duration") && !err.contains("panicked"),
            "{what}: {err}"
        );
    };
    for flag in [
        "--timeout=-1",
        "--timeout=NaN",
        "--timeout=inf",
        "--timeout=1e20",
        "--max-seconds=-5",
        "--max-seconds=inf",
    ] {
        let out = rlmkg(dir.path())
            .args(["--store", store.to_str().unwrap(), "config", "show", flag])
            .env("RLMKG_CONFIG", dir.path().join("none.toml"))
            .output()
            .unwrap();
        check(&out, flag);
    }
    // The same through `ask`, and from the environment.
    let (dir, store) = sample_store();
    let out = ask_scripted(
        dir.path(),
        &store,
        "http://127.0.0.1:9/v1",
        &["--timeout=-1"],
        QUESTION,
    );
    check(&out, "ask --timeout=-1");
    let out = ask_heuristic(dir.path(), &store, &[], "q")
        .env("RLMKG_MAX_SECONDS", "inf")
        .output()
        .unwrap();
    check(&out, "RLMKG_MAX_SECONDS=inf");
}

#[test]
fn huge_k_from_python_is_clamped_and_the_run_answers() {
    let case = ask(|req: &Value, _| {
        Reply::Text(match turn(req) {
            0 => repl(
                "a = context.search('Skarvik', 10**9)\nb = context.related('Skarvik Expedition', k=10**12)\nc = context.entities('Kestrel', 10**15)\nprint(len(a) <= 1000, len(b) <= 1000, len(c) <= 1000)",
            ),
            _ => repl("FINAL('clamped')"),
        })
    });
    assert!(case.out.status.success(), "{}", case.stderr());
    let v = case.answer();
    // "clamped" cites nothing: it does not stand as the RLM's answer, and the
    // run answers by its fallback instead.
    assert!(v["fallback"]["kind"].is_string(), "{v}");
    assert!(!v["text"].as_str().unwrap_or_default().is_empty(), "{v}");
    let feedback = case.server.requests()[1]["messages"].to_string();
    assert!(feedback.contains("True True True"), "{feedback}");
}

/// A block stuck inside the regex engine is given up past its time, the
/// model reads why, the variables from before it are kept, and the run
/// answers and exits (no thread left behind holds the process).
#[test]
fn a_block_stuck_in_a_native_operation_is_given_up_and_the_run_answers() {
    // The bound covers the sample store's ingest too (a second or two).
    let started = Instant::now();
    let case = ask(|req: &Value, _| {
        Reply::Text(match turn(req) {
            0 => repl("keep = 'kept'"),
            1 => repl("import re\nre.sub(r'(?=(a+))\\1b', 'x', 'a' * 200_000)"),
            2 => repl("print(keep)"),
            _ => repl("FINAL(keep)"),
        })
    });
    assert!(case.out.status.success(), "{}", case.stderr());
    let feedback = case.server.requests()[2]["messages"].to_string();
    assert!(feedback.contains("TimeoutError"), "{feedback}");
    // The variable from before the stuck block is still there.
    let requests = case.server.requests();
    let last = requests[3]["messages"].as_array().unwrap().last().unwrap();
    assert!(last["content"].as_str().unwrap().contains("kept"), "{last}");
    assert!(started.elapsed() < Duration::from_secs(60));
}

#[test]
fn a_server_that_never_recovers_is_a_clear_exit_3_in_bounded_time() {
    // The bound covers the sample store's ingest too (a second or two).
    let started = Instant::now();
    let case = ask(|_, _| Reply::Raw("{\"choices\": []}".into()));
    assert_eq!(case.out.status.code(), Some(3), "{}", case.stderr());
    assert!(!case.stderr().contains("panicked"), "{}", case.stderr());
    assert!(started.elapsed() < Duration::from_secs(60));
}

#[test]
fn a_store_config_cannot_redirect_requests_without_trust() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store");
    std::fs::create_dir_all(&store).unwrap();
    std::fs::write(
        store.join("rlmkg.toml"),
        "base_url = \"http://attacker.invalid/v1\"\nmodel = \"m\"\n",
    )
    .unwrap();
    let show = |extra: &[&str]| {
        let mut args = vec![
            "--store",
            store.to_str().unwrap(),
            "--json",
            "config",
            "show",
        ];
        args.extend_from_slice(extra);
        rlmkg(dir.path())
            .args(&args)
            .env("RLMKG_CONFIG", dir.path().join("none.toml"))
            .env_remove("RLMKG_BASE_URL")
            .output()
            .unwrap()
    };
    let base_url = |out: &Output| {
        let v: Value = serde_json::from_str(&stdout(out)).unwrap();
        v["settings"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["key"] == "base_url")
            .unwrap()["value"]
            .clone()
    };
    let out = show(&[]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(base_url(&out), Value::Null);
    assert!(
        stderr(&out).contains("ignoring base_url"),
        "{}",
        stderr(&out)
    );
    let out = show(&["--trust-store-config"]);
    assert_eq!(base_url(&out), "http://attacker.invalid/v1");
}

/// Issue 32: an HTML file nested 200 000 levels deep (2.2 MB) goes through
/// the whole pipeline and its text is found. That the work is linear in the
/// nesting is asserted where it is counted, in `ingest/src/formats/html.rs`
/// (a quadratic parse would still pass here, minutes later).
#[test]
fn html_nested_200k_levels_deep_is_ingested_and_its_text_found() {
    let dir = tempfile::tempdir().unwrap();
    let docs = dir.path().join("docs");
    std::fs::create_dir(&docs).unwrap();
    let text = "deep text here. Another sentence.";
    let n = 200_000;
    std::fs::write(
        docs.join("deep.html"),
        format!(
            "<html><body>{}{text}{}</body></html>",
            "<div>".repeat(n),
            "</div>".repeat(n)
        ),
    )
    .unwrap();
    let out = rlmkg(dir.path())
        .args(["--json", "ingest", "docs"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let report: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(report["ingested"], 1, "{report}");
    let out = rlmkg(dir.path())
        .args(["--json", "search", "deep text"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let hits: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(hits[0]["text"], text, "{hits}");
}

/// Issue 45: `rlmkg search 'title:* AND ("'` exited 2 with the index's
/// "Field title is not a fast field": any text is a search, and syntax that
/// reaches beyond titles and texts is read as its words.
#[test]
fn any_text_is_a_search_not_an_index_error() {
    let (dir, store) = sample_store();
    for (query, found) in [
        ("title:* AND (\"", None),
        ("kind:doc", None),
        ("*", None),
        ("start:[0 TO 9]", None),
        ("text:Skarvik", Some("Skarvik")),
        ("\"Skarvik Expedition\" -Tromsø", Some("Skarvik")),
    ] {
        let out = rlmkg(dir.path())
            .args([
                "--store",
                store.to_str().unwrap(),
                "--json",
                "search",
                query,
            ])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{query}: {}", stderr(&out));
        let hits: Value = serde_json::from_str(&stdout(&out)).unwrap();
        let hits = hits.as_array().unwrap();
        if let Some(word) = found {
            assert!(
                hits.first()
                    .is_some_and(|h| h["text"].as_str().unwrap().contains(word)),
                "{query}: {hits:?}"
            );
        }
    }
}
