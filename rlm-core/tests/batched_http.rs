//! `llm_query_batched` runs concurrently, bounded by the per-backend limit:
//! 32 prompts against a server that sleeps 200 ms per call, limit 8, finish in
//! about ⌈32 / 8⌉ × 200 ms = 800 ms (asserted with a generous bound, < 3× ideal).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use common::MemHandle;
use rlm_core::testkit::{ChatServer, Reply, is_root_request, last_user};
use rlm_core::{OpenAiConfig, OpenAiModel, Rlm, RlmConfig};
use serde_json::Value;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn batched_sub_calls_run_concurrently_within_the_limit() {
    let in_flight = Arc::new(AtomicUsize::new(0));
    let peak = Arc::new(AtomicUsize::new(0));
    let (f2, p2) = (in_flight.clone(), peak.clone());
    let root_n = AtomicUsize::new(0);
    let srv = ChatServer::start(move |req: &Value, _| {
        if is_root_request(req) {
            return Reply::Text(if root_n.fetch_add(1, Ordering::SeqCst) == 0 {
                "```repl\nrs = llm_query_batched([f'prompt {i}' for i in range(32)])\nprint(len(rs), rs[0], rs[31])\n```".into()
            } else {
                "```repl\nFINAL('ok')\n```".into()
            });
        }
        let now = f2.fetch_add(1, Ordering::SeqCst) + 1;
        p2.fetch_max(now, Ordering::SeqCst);
        std::thread::sleep(Duration::from_millis(200));
        f2.fetch_sub(1, Ordering::SeqCst);
        Reply::Text(format!("re {}", last_user(req)))
    })
    .unwrap();
    let m = Arc::new(OpenAiModel::new(OpenAiConfig::new(srv.base_url(), "slow")).unwrap());
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("t.jsonl");
    let cfg = RlmConfig {
        concurrency: Some(8),
        trace_path: Some(trace.clone()),
        ..RlmConfig::default()
    };
    let r = Rlm::new(cfg, m.clone(), m, Arc::new(MemHandle::sample()));
    let (_, out) = r.run("q").await.unwrap();
    assert_eq!(out.answer.as_deref(), Some("ok"));
    let t = rlm_core::Trajectory::read(&trace).unwrap();
    let block = &t.iterations[0].blocks[0];
    assert!(
        block.output.starts_with("32 re prompt 0 re prompt 31"),
        "{}",
        block.output
    );
    let ideal = 32u64.div_ceil(8) * 200;
    assert!(
        block.elapsed_ms < 3 * ideal,
        "batched block took {} ms, ideal {ideal} ms",
        block.elapsed_ms
    );
    assert!(
        block.elapsed_ms >= ideal - 50,
        "faster than the limit allows: {} ms",
        block.elapsed_ms
    );
    assert!(
        peak.load(Ordering::SeqCst) <= 8,
        "more than 8 calls in flight: {}",
        peak.load(Ordering::SeqCst)
    );
}
