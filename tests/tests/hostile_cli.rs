//! Issue 15 through the real binary: hostile settings are usage errors (exit 2),
//! hostile `k` from Python is clamped, a server that never recovers is a clear
//! exit 3, and a store's own config cannot redirect requests.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;
use std::process::Output;
use std::time::{Duration, Instant};

use rlm_core::testkit::{ChatServer, Reply};
use rlmkg_tests::{repl, rlmkg, sample_store, stderr, stdout, turn, without_models};
use serde_json::Value;

fn ask(dir: &Path, store: &Path, base: &str, extra: &[&str]) -> Output {
    rlmkg_tests::ask_scripted(
        dir,
        store,
        base,
        extra,
        "Who organised the Skarvik Expedition?",
    )
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
    let out = ask(
        dir.path(),
        &store,
        "http://127.0.0.1:9/v1",
        &["--timeout=-1"],
    );
    check(&out, "ask --timeout=-1");
    let out = without_models(dir.path())
        .args([
            "--store",
            store.to_str().unwrap(),
            "ask",
            "--strategy",
            "heuristic",
            "q",
        ])
        .env("RLMKG_MAX_SECONDS", "inf")
        .output()
        .unwrap();
    check(&out, "RLMKG_MAX_SECONDS=inf");
}

#[test]
fn huge_k_from_python_is_clamped_and_the_run_answers() {
    let (dir, store) = sample_store();
    let srv = ChatServer::start(|req: &Value, _| {
        Reply::Text(match turn(req) {
            0 => repl(
                "a = context.search('Skarvik', 10**9)\nb = context.related('Skarvik Expedition', k=10**12)\nc = context.entities('Kestrel', 10**15)\nprint(len(a) <= 1000, len(b) <= 1000, len(c) <= 1000)",
            ),
            _ => repl("FINAL('clamped')"),
        })
    })
    .unwrap();
    let out = ask(dir.path(), &store, &srv.base_url(), &[]);
    assert!(out.status.success(), "{}", stderr(&out));
    let v: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(v["text"].as_str(), Some("clamped"), "{v}");
    let feedback = srv.requests()[1]["messages"].to_string();
    assert!(feedback.contains("True True True"), "{feedback}");
}

/// A block stuck inside the regex engine is given up past its time, the
/// model reads why, the variables from before it are kept, and the run
/// answers and exits (no thread left behind holds the process).
#[test]
fn a_block_stuck_in_a_native_operation_is_given_up_and_the_run_answers() {
    let (dir, store) = sample_store();
    let srv = ChatServer::start(|req: &Value, _| {
        Reply::Text(match turn(req) {
            0 => repl("keep = 'kept'"),
            1 => repl("import re\nre.sub(r'(?=(a+))\\1b', 'x', 'a' * 200_000)"),
            _ => repl("FINAL(keep)"),
        })
    })
    .unwrap();
    let started = Instant::now();
    let out = ask(dir.path(), &store, &srv.base_url(), &[]);
    assert!(out.status.success(), "{}", stderr(&out));
    let v: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(v["text"].as_str(), Some("kept"), "{v}");
    let feedback = srv.requests()[2]["messages"].to_string();
    assert!(feedback.contains("TimeoutError"), "{feedback}");
    assert!(started.elapsed() < Duration::from_secs(60));
}

#[test]
fn a_server_that_never_recovers_is_a_clear_exit_3_in_bounded_time() {
    let (dir, store) = sample_store();
    let srv = ChatServer::start(|_, _| Reply::Raw("{\"choices\": []}".into())).unwrap();
    let started = Instant::now();
    let out = ask(dir.path(), &store, &srv.base_url(), &[]);
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    assert!(!stderr(&out).contains("panicked"), "{}", stderr(&out));
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
