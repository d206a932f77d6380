//! Run-level bounds (issue 15): budgets that hold between blocks and across
//! child runs, a root model that fails part-way, a trajectory that cannot be
//! written, and the fan-out chosen from the server.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;

use std::sync::Arc;
use std::time::{Duration, Instant};

use common::MemHandle;
use rlm_core::testkit::{ChatServer, Reply, is_root_request, last_user};
use rlm_core::trajectory::Trajectory;
use rlm_core::{
    Budgets, ConcurrencySource, Ending, FallbackReason, OpenAiConfig, OpenAiModel, ReplLimits,
    RetryPolicy, Rlm, RlmConfig, RunOutcome,
};
use serde_json::Value;

fn model(srv: &ChatServer) -> Arc<OpenAiModel> {
    Arc::new(OpenAiModel::new(OpenAiConfig::new(srv.base_url(), "m")).unwrap())
}

fn quick_retry() -> RetryPolicy {
    RetryPolicy {
        max_retries: 1,
        base_delay: Duration::from_millis(10),
        max_delay: Duration::from_millis(50),
    }
}

fn repl_block(code: &str) -> Reply {
    Reply::Text(format!("```repl\n{code}\n```"))
}

/// A run over [`MemHandle::sample`] with `srv` as root and sub model.
fn rlm(srv: &ChatServer, cfg: RlmConfig) -> Rlm {
    let m = model(srv);
    Rlm::new(cfg, m.clone(), m, Arc::new(MemHandle::sample()))
}

/// Run `question` on `srv` with `cfg` and a trajectory in a fresh temp dir,
/// finish the session, and return the outcome and the trajectory read back.
async fn traced_run(srv: &ChatServer, cfg: RlmConfig, question: &str) -> (RunOutcome, Trajectory) {
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("t.jsonl");
    let cfg = RlmConfig {
        trace_path: Some(trace.clone()),
        ..cfg
    };
    let (mut s, out) = rlm(srv, cfg).run(question).await.unwrap();
    s.finish(Value::Null).unwrap();
    (out, Trajectory::read(&trace).unwrap())
}

/// Child runs that never answer and fan out again: their turns are charged to
/// the sub-call budget, so the whole tree stops at the budget with a readable
/// error, and the variables assigned before are kept.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rlm_query_fan_out_and_recursion_stop_at_the_sub_call_budget() {
    let srv = ChatServer::start(|req: &Value, _| {
        if !is_root_request(req) {
            return Reply::Text("plain".into());
        }
        let first_turn = req["messages"].as_array().map_or(0, Vec::len) <= 2;
        let question = req["messages"][1]["content"].as_str().unwrap_or_default();
        if question.contains("child question") {
            // A child (or grandchild): fan out again, never answer.
            return repl_block("for i in range(50):\n    rlm_query('grandchild question')");
        }
        if first_turn {
            return repl_block(
                "kept = 'before'\nfor i in range(100):\n    rlm_query('child question')",
            );
        }
        repl_block("print(kept)\nFINAL('done ' + kept)")
    })
    .unwrap();
    let cfg = RlmConfig {
        budgets: Budgets {
            max_depth: 3,
            max_sub_calls: Some(25),
            ..Budgets::default()
        },
        retry: quick_retry(),
        ..RlmConfig::default()
    };
    let started = Instant::now();
    let r = rlm(&srv, cfg);
    let (_, out) = r.run("top").await.unwrap();
    assert!(started.elapsed() < Duration::from_secs(30));
    // Root turns plus at most the budget's worth of child turns (and a few
    // plain sub-calls at the depth limit, which the same budget counts).
    let requests = srv.requests().len();
    assert!(
        requests <= 25 + 5,
        "{requests} model calls for a budget of 25"
    );
    assert_eq!(out.answer.as_deref(), Some("done before"), "{out:?}");
}

/// The wall-time budget holds between blocks: a slow first block uses it up and
/// the second block (which would answer) does not run.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_wall_time_budget_is_checked_between_blocks() {
    assert!(
        Budgets::default().max_wall_time.is_some(),
        "no default bound"
    );
    let srv = ChatServer::start(|req: &Value, _| {
        if is_root_request(req) {
            Reply::Text(
                "```repl\nanswer['content'] = 'partial [c1.s1]'\nn = 0\nwhile True:\n    n += 1\n```\n```repl\nFINAL('too late')\n```"
                    .into(),
            )
        } else {
            Reply::Text("sub".into())
        }
    })
    .unwrap();
    let cfg = RlmConfig {
        budgets: Budgets {
            max_wall_time: Some(Duration::from_millis(800)),
            ..Budgets::default()
        },
        repl: ReplLimits {
            max_block_time: Duration::from_millis(1200),
            ..ReplLimits::default()
        },
        ..RlmConfig::default()
    };
    let r = rlm(&srv, cfg);
    let (_, out) = r.run("q").await.unwrap();
    assert_eq!(out.ending, Ending::Budget, "{out:?}");
    assert_eq!(out.answer.as_deref(), Some("partial [c1.s1]"), "{out:?}");
    assert!(out.stop_reason.contains("wall-time"), "{}", out.stop_reason);
}

/// The root model fails for good after some turns: the run returns the best
/// answer so far, or says why there is none; the trajectory gets its final line.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_root_model_failing_part_way_gives_the_best_answer_so_far_or_a_fallback() {
    for draft in [true, false] {
        let srv = ChatServer::start(move |req: &Value, n| {
            if !is_root_request(req) {
                return Reply::Text("sub".into());
            }
            if n == 0 {
                let code = if draft {
                    "answer['content'] = 'Warsaw [c1.s1]'\nprint(context.search('Warsaw'))"
                } else {
                    "print(context.search('Warsaw'))"
                };
                return repl_block(code);
            }
            Reply::Status(503, None, "gone for good".into())
        })
        .unwrap();
        let cfg = RlmConfig {
            retry: quick_retry(),
            ..RlmConfig::default()
        };
        let (out, t) = traced_run(&srv, cfg, "Where was Marie Curie born?").await;
        assert_eq!(out.ending, Ending::ModelError);
        if draft {
            assert_eq!(out.answer.as_deref(), Some("Warsaw [c1.s1]"));
            assert!(out.stop_reason.contains("best answer so far"));
        } else {
            assert_eq!(out.answer, None);
            assert!(
                matches!(
                    out.fallback,
                    Some(FallbackReason::RootModelFailed { turns: 2, .. })
                ),
                "{out:?}"
            );
        }
        assert_eq!(t.final_line.unwrap().ending, Ending::ModelError);
    }
}

/// A trajectory that cannot be written is a warning; the run still answers.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unwritable_trajectory_is_a_warning_not_the_end_of_the_run() {
    let srv = ChatServer::start(|req: &Value, n| {
        if !is_root_request(req) {
            return Reply::Text(format!("sub {}", last_user(req)));
        }
        if n == 0 {
            repl_block("print(1)")
        } else {
            repl_block("FINAL('still here')")
        }
    })
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let blocker = dir.path().join("a-file");
    std::fs::write(&blocker, "x").unwrap();
    let cfg = RlmConfig {
        // Its parent is a regular file: neither it nor its directory can be made.
        trace_path: Some(blocker.join("trace.jsonl")),
        ..RlmConfig::default()
    };
    let r = rlm(&srv, cfg);
    let (mut s, out) = r.run("q").await.unwrap();
    assert_eq!(out.answer.as_deref(), Some("still here"));
    assert!(
        out.warnings.iter().any(|w| w.contains("trajectory")),
        "{:?}",
        out.warnings
    );
    s.finish(Value::Null).unwrap();
}

/// With no `--concurrency`, the fan-out is the server's reported slots (bounded),
/// else the backend kind's default; the trajectory header says which.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_fan_out_comes_from_the_server_when_it_says_and_is_in_the_header() {
    for (slots, want, source) in [
        (Some(24), 24, ConcurrencySource::Server),
        (
            Some(100_000),
            rlm_core::MAX_CONCURRENCY,
            ConcurrencySource::Server,
        ),
        (None, 16, ConcurrencySource::BackendDefault),
    ] {
        let srv = ChatServer::start_with_slots(slots, |req: &Value, _| {
            if is_root_request(req) {
                repl_block("FINAL('x')")
            } else {
                Reply::Text("sub".into())
            }
        })
        .unwrap();
        let (_, t) = traced_run(&srv, RlmConfig::default(), "q").await;
        let c = t.header.unwrap().concurrency.unwrap();
        assert_eq!((c.limit, c.source), (want, source), "slots {slots:?}");
    }
}
