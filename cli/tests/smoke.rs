#![allow(clippy::panic)] // tests fail loudly
//! Smoke test of the binary's argument parsing. Having an integration test here
//! also makes `cargo test --workspace` build `target/<profile>/rlmkg`, which the
//! end-to-end tests in `tests/` run.

use std::process::Command;

#[test]
fn help_lists_every_command() {
    let out = Command::new(env!("CARGO_BIN_EXE_rlmkg"))
        .arg("--help")
        .output();
    let out = out.unwrap_or_else(|e| panic!("could not run rlmkg: {e}"));
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    for cmd in [
        "ingest", "ask", "search", "entity", "path", "sparql", "verify", "eval", "trace", "model",
        "config", "stats", "rm", "export", "bench",
    ] {
        assert!(text.contains(cmd), "--help does not mention {cmd}:\n{text}");
    }
}

#[test]
fn unknown_flag_is_a_usage_error() {
    let out = Command::new(env!("CARGO_BIN_EXE_rlmkg"))
        .arg("--no-such-flag")
        .output();
    let out = out.unwrap_or_else(|e| panic!("could not run rlmkg: {e}"));
    assert_eq!(out.status.code(), Some(2));
}
