//! `llm_query_batched` runs concurrently, bounded by the per-backend limit:
//! 32 prompts against a server that sleeps 200 ms per call, limit 8, finish in
//! about ⌈32 / 8⌉ × 200 ms = 800 ms (asserted with a generous bound, < 3× ideal).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;

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

/// Run one block of `llm_query_batched` over `n` prompts against a server whose
/// sub-calls take `latency` (or answer `reply` when given), with `cfg`; returns the
/// block's wall time in ms and the peak number of calls in flight.
async fn fan_out(
    n: usize,
    latency: Duration,
    slots: Option<usize>,
    cfg: RlmConfig,
    reply: fn(usize) -> Option<Reply>,
) -> (u64, usize) {
    let in_flight = Arc::new(AtomicUsize::new(0));
    let peak = Arc::new(AtomicUsize::new(0));
    let (f2, p2) = (in_flight.clone(), peak.clone());
    let root_n = AtomicUsize::new(0);
    let sub_n = AtomicUsize::new(0);
    let srv = ChatServer::start_with_slots(slots, move |req: &Value, _| {
        if is_root_request(req) {
            return Reply::Text(if root_n.fetch_add(1, Ordering::SeqCst) == 0 {
                format!("```repl\nrs = llm_query_batched([f'p {{i}}' for i in range({n})])\nprint(len(rs))\n```")
            } else {
                "```repl\nFINAL('ok')\n```".into()
            });
        }
        if let Some(r) = reply(sub_n.fetch_add(1, Ordering::SeqCst)) {
            return r;
        }
        let now = f2.fetch_add(1, Ordering::SeqCst) + 1;
        p2.fetch_max(now, Ordering::SeqCst);
        std::thread::sleep(latency);
        f2.fetch_sub(1, Ordering::SeqCst);
        Reply::Text("r".into())
    })
    .unwrap();
    let m = Arc::new(OpenAiModel::new(OpenAiConfig::new(srv.base_url(), "slow")).unwrap());
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("t.jsonl");
    let cfg = RlmConfig {
        trace_path: Some(trace.clone()),
        ..cfg
    };
    let r = Rlm::new(cfg, m.clone(), m, Arc::new(MemHandle::sample()));
    let (mut s, out) = r.run("q").await.unwrap();
    assert_eq!(out.answer.as_deref(), Some("ok"));
    s.finish(Value::Null).unwrap();
    let t = rlm_core::Trajectory::read(&trace).unwrap();
    let block = &t.iterations[0].blocks[0];
    assert_eq!(block.output, format!("{n}\n"), "{:?}", block.error);
    (block.elapsed_ms, peak.load(Ordering::SeqCst))
}

/// The issue-15 target is 64 sub-calls of 200 ms within 1 s at the default
/// settings (the old default of 8 made it 1.6 s or more): the default
/// fan-out must run at least 13 at once against a local server that takes
/// them (five rounds of 200 ms), and no more than the cap. The wall time
/// itself is `rlmkg bench batched`'s figure: a timing bound in a test fails
/// under load.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn default_fan_out_runs_enough_of_64_calls_at_once_for_a_second() {
    let (_, peak) = fan_out(
        64,
        Duration::from_millis(200),
        None,
        RlmConfig::default(),
        |_| None,
    )
    .await;
    assert!(peak >= 13, "the default fan-out ran at most {peak} at once");
    assert!(peak <= rlm_core::MAX_CONCURRENCY);
}

/// Rate limiting makes the fan-out back off: after 429s, fewer calls run at once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rate_limited_fan_out_backs_off() {
    let cfg = RlmConfig {
        concurrency: Some(16),
        retry: rlm_core::RetryPolicy {
            max_retries: 3,
            base_delay: Duration::from_millis(10),
            max_delay: Duration::from_millis(50),
        },
        ..RlmConfig::default()
    };
    // The first 16 sub-calls are refused with 429; later ones succeed slowly.
    let (_, peak) = fan_out(64, Duration::from_millis(100), None, cfg, |i| {
        (i < 16).then(|| Reply::Status(429, Some(0), "slow down".into()))
    })
    .await;
    assert!(peak < 16, "no back-off after 429s: {peak} calls in flight");
}
