//! Compatibility with a real llama.cpp server (or any OpenAI-compatible server):
//! runs when `RLMKG_TEST_LLAMA_URL` is set (e.g. `http://127.0.0.1:8080/v1`),
//! skips otherwise. It checks the wire format and the loop's handling, not the
//! model's intelligence: a small model may never call FINAL.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;

use std::sync::Arc;
use std::time::Duration;

use common::MemHandle;
use rlm_core::trajectory::Trajectory;
use rlm_core::{
    Budgets, ChatRequest, LanguageModel, Message, OpenAiConfig, OpenAiModel, Rlm, RlmConfig,
    Sampling,
};

fn server() -> Option<(String, String)> {
    let url = std::env::var("RLMKG_TEST_LLAMA_URL")
        .ok()
        .filter(|u| !u.is_empty())?;
    let model = std::env::var("RLMKG_TEST_LLAMA_MODEL").unwrap_or_else(|_| "default".into());
    Some((url, model))
}

fn model(url: &str, name: &str) -> Arc<OpenAiModel> {
    let mut cfg = OpenAiConfig::new(url, name);
    cfg.timeout = Duration::from_secs(300);
    cfg.sampling = Sampling {
        temperature: Some(0.0),
        max_tokens: Some(200),
        seed: Some(1),
        top_k: Some(1),
        ..Default::default()
    };
    Arc::new(OpenAiModel::new(cfg).unwrap())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wire_format_against_a_real_server() {
    let Some((url, name)) = server() else {
        eprintln!("skipped: RLMKG_TEST_LLAMA_URL is not set");
        return;
    };
    let m = model(&url, &name);
    let r = m
        .chat(&ChatRequest {
            messages: vec![Message::user("Say hello in one word.")],
            ..Default::default()
        })
        .await
        .unwrap();
    assert!(
        !r.content.is_empty() || r.reasoning.is_some(),
        "empty reply"
    );
    assert!(
        r.usage.prompt_tokens > 0,
        "server reported no prompt tokens"
    );
    assert!(r.usage.completion_tokens > 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn short_loop_against_a_real_server() {
    let Some((url, name)) = server() else {
        eprintln!("skipped: RLMKG_TEST_LLAMA_URL is not set");
        return;
    };
    let m = model(&url, &name);
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("llama.jsonl");
    let cfg = RlmConfig {
        budgets: Budgets {
            max_iterations: 2,
            ..Budgets::default()
        },
        trace_path: Some(trace.clone()),
        root_sampling: m.config().sampling.clone(),
        sub_sampling: m.config().sampling.clone(),
        ..RlmConfig::default()
    };
    let r = Rlm::new(cfg, m.clone(), m, Arc::new(MemHandle::sample()));
    let mut s = r.start("Where was Marie Curie born?").await.unwrap();
    let out = s.run().await.unwrap();
    s.finish(serde_json::Value::Null).unwrap();
    let t = Trajectory::read(&trace).unwrap();
    assert!(!t.iterations.is_empty());
    assert!(t.iterations.iter().all(|i| i.usage.prompt_tokens > 0));
    assert!(out.usage.iterations >= 1 && out.usage.iterations <= 3);
    assert!(t.final_line.is_some());
}
