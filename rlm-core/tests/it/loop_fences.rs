//! Root models as they are (issue 13 item 5): the fences small models write, the
//! one correction for replies that ran nothing, and the fallback reason of a run
//! in which no code executed. Scripted replies over the real HTTP client.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;

use rlm_core::testkit::{ChatServer, last_user};
use rlm_core::trajectory::Trajectory;
use rlm_core::{Budgets, Ending, FallbackReason, RlmConfig};

/// Root calls get `root[i]` in turn (the last repeats); sub-calls echo.
fn server(root: Vec<String>) -> ChatServer {
    common::scripted_server(root, |p| format!("SUB[{p}]"))
}

fn budget(turns: u32) -> RlmConfig {
    RlmConfig {
        budgets: Budgets {
            max_iterations: turns,
            ..Budgets::default()
        },
        ..RlmConfig::default()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn python_and_bare_fences_with_code_run_and_end_the_run() {
    let srv = server(vec![
        "Let me search.\n```python\nhits = context.search('born')\nprint(hits[0]['id'])\n```"
            .into(),
        "Now the answer:\n```\nFINAL('Marie Curie was born in Warsaw [c1.s1].')\n```".into(),
    ]);
    let (_, out) = common::scripted_rlm(&srv, RlmConfig::default())
        .run("Where?")
        .await
        .unwrap();
    assert_eq!(out.ending, Ending::Final);
    assert_eq!(out.fallback, None);
    assert_eq!(
        out.answer.as_deref(),
        Some("Marie Curie was born in Warsaw [c1.s1].")
    );
    assert!(last_user(&common::root_requests(&srv)[1]).contains("c1"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_without_executed_code_falls_back_instead_of_answering() {
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("run.jsonl");
    // Prose, a ```text fence and a bare fence holding an answer: nothing runs,
    // and the last turn's prose (with a made-up citation) must not become the answer.
    let srv = server(vec![
        "I believe the answer is Paris.\n```text\nParis [c9.s9]\n```".into(),
        "```\nMarie Curie was born in Paris [c9.s9].\n```".into(),
        "Marie Curie was born in Paris [c9.s9].".into(),
    ]);
    let cfg = RlmConfig {
        trace_path: Some(trace.clone()),
        ..budget(2)
    };
    let r = common::scripted_rlm(&srv, cfg);
    let mut s = r.start("Where was Marie Curie born?").await.unwrap();
    let out = s.run().await.unwrap();
    assert_eq!(out.answer, None, "{out:?}");
    assert_eq!(
        out.fallback,
        Some(FallbackReason::NoCodeExecuted { turns: 3 })
    );
    assert_eq!(out.ending, Ending::NoAnswer);
    assert!(
        out.stop_reason.contains("ran no code"),
        "{}",
        out.stop_reason
    );

    // One clear correction, naming what was written and what runs.
    let r = common::root_requests(&srv);
    let fb = last_user(&r[1]);
    assert!(
        fb.contains("a ```text block") && fb.contains("```repl"),
        "{fb}"
    );
    let fb = r[2]["messages"].to_string();
    assert!(fb.contains("bare ``` block"), "{fb}");

    s.finish(serde_json::json!({})).unwrap();
    let t = Trajectory::read(&trace).unwrap();
    let f = t.final_line.unwrap();
    assert_eq!(f.answer, None);
    assert!(f.stop_reason.contains("ran no code"), "{}", f.stop_reason);
    assert!(
        t.iterations
            .iter()
            .all(|i| i.events.iter().any(|e| e.kind == "no_code"))
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_last_turn_prose_counts_once_code_has_run() {
    let srv = server(vec![
        "```py\nprint(context.read('c1'))\n```".into(),
        "Marie Curie was born in Warsaw [c1.s1].".into(),
    ]);
    let (_, out) = common::scripted_rlm(&srv, budget(1))
        .run("Where?")
        .await
        .unwrap();
    assert_eq!(out.ending, Ending::BestEffort);
    assert_eq!(out.fallback, None);
    assert_eq!(
        out.answer.as_deref(),
        Some("Marie Curie was born in Warsaw [c1.s1].")
    );
}
