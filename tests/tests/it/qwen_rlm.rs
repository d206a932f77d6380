//! A real root model that recurses (issue 28): Qwen2.5-Coder-1.5B-Instruct,
//! embedded, is the root of an RLM run on the sample corpus. Its reply is
//! started as a ```repl block (the forced-code protocol its size selects), so
//! its own code searches and reads the graph and ends with a cited answer that
//! the run accepts as the RLM's (not the heuristic fallback's). One hop
//! (search, read, answer): two-hop questions are measured by `rlmkg eval`,
//! not asserted here, as this model reaches only some of them. The model is
//! `qwen_gguf()`; the test skips with a message when it is absent. A few
//! minutes of CPU.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use rlmkg_tests::ask_qwen;

#[test]
fn a_small_real_root_writes_code_that_reaches_the_answer() {
    let Some((answer, stderr)) = ask_qwen(
        "rlm",
        &["--embedded-root", "--max-iterations", "6"],
        "Who led the Skarvik Expedition?",
    ) else {
        return;
    };
    let why = format!("{answer:#}\n{stderr}");
    // The RLM's own answer, not the fallback's.
    assert_eq!(answer["method"], "rlm", "{why}");
    assert!(answer["fallback"].is_null(), "{why}");
    // Its code called the handle.
    assert!(
        answer["usage"]["handle_calls"].as_u64().unwrap_or(0) >= 1,
        "{why}"
    );
    // At least one claim is supported, and every claim has a verdict.
    let claims = answer["verification"]["claims"].as_array().unwrap();
    assert!(claims.iter().any(|c| c["verdict"] == "supported"), "{why}");
    // The right answer is in it.
    assert!(
        answer["text"]
            .as_str()
            .unwrap_or_default()
            .contains("Reyes"),
        "{why}"
    );
}
