//! A real local model in the loop (issue 13 item 6): Qwen2.5-Coder-1.5B-Instruct,
//! embedded, composes a short cited answer from the heuristic evidence on the
//! sample corpus, and the answer verifies. The model is assembled by
//! `../shared/models/qwen-gguf.sh 1.5b` into `~/.cache/rlmkg-dev-models` (or
//! `RLMKG_QWEN_GGUF` names the file); the test skips with a message when it is absent.
//! One question only: about 30 s of CPU.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use rlmkg_tests::ask_qwen;

#[test]
fn a_real_model_composes_a_verified_short_answer() {
    let Some((answer, stderr)) = ask_qwen(
        "heuristic",
        &[],
        "Who founded the publisher of The Salt Atlas?",
    ) else {
        return;
    };
    assert_eq!(
        answer["method"], "heuristic_composed",
        "{answer:#}\n{stderr}"
    );
    assert_eq!(
        answer["short_answer"]["text"], "Catherine Moray",
        "{answer:#}"
    );
    // The short answer is the first claim, and it is supported.
    assert_eq!(
        answer["verification"]["claims"][0]["verdict"], "supported",
        "{answer:#}"
    );
    // Every shown claim is verified or marked: no claim lacks a verdict.
    for c in answer["verification"]["claims"].as_array().unwrap() {
        assert!(c["verdict"].is_string(), "{c:#}");
    }
}
