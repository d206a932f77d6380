//! Fault injection through a real local HTTP server (SPEC §6.1): each failure is
//! retried or reported with the right class, never a panic; the trajectory records
//! what happened, and a run that can still finish does.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use common::MemHandle;
use rlm_core::testkit::{ChatServer, Reply, is_root_request, last_user};
use rlm_core::trajectory::Trajectory;
use rlm_core::{
    ChatRequest, Ending, LanguageModel, Message, ModelError, OpenAiConfig, OpenAiModel,
    RetryPolicy, Rlm, RlmConfig, RlmError, chat_with_retry,
};
use serde_json::Value;

fn client(srv: &ChatServer, timeout: Duration) -> OpenAiModel {
    let mut cfg = OpenAiConfig::new(srv.base_url(), "faulty");
    cfg.timeout = timeout;
    OpenAiModel::new(cfg).unwrap()
}

fn quick_retry(max_retries: u32) -> RetryPolicy {
    RetryPolicy {
        max_retries,
        base_delay: Duration::from_millis(20),
        max_delay: Duration::from_secs(2),
    }
}

fn req(text: &str) -> ChatRequest {
    ChatRequest {
        messages: vec![Message::user(text)],
        ..Default::default()
    }
}

/// A server that replies with `first` to the first `times` requests, then "ok".
fn failing(first: Reply, times: usize) -> ChatServer {
    ChatServer::start(move |_, n| {
        if n < times {
            first.clone()
        } else {
            Reply::Text("ok".into())
        }
    })
    .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn classes_and_retries_per_fault() {
    struct Case {
        name: &'static str,
        reply: Reply,
        /// Expected final result: Ok(content) or the error class.
        want: Result<&'static str, &'static str>,
        retries: usize,
    }
    let cases = vec![
        Case {
            name: "429 Retry-After",
            reply: Reply::Status(429, Some(1), "slow down".into()),
            want: Ok("ok"),
            retries: 1,
        },
        Case {
            name: "500",
            reply: Reply::Status(500, None, "oops".into()),
            want: Ok("ok"),
            retries: 1,
        },
        Case {
            name: "hang past timeout",
            reply: Reply::Delay(Duration::from_secs(3), Box::new(Reply::Text("late".into()))),
            want: Ok("ok"),
            retries: 1,
        },
        // A garbage 200 is a struggling server, retried like a 5xx (issue 15).
        Case {
            name: "malformed JSON",
            reply: Reply::Raw("{\"choices\": [".into()),
            want: Ok("ok"),
            retries: 1,
        },
        Case {
            name: "empty choices",
            reply: Reply::Raw("{\"choices\": []}".into()),
            want: Ok("ok"),
            retries: 1,
        },
        Case {
            name: "401",
            reply: Reply::Status(401, None, "bad key".into()),
            want: Err("permanent"),
            retries: 0,
        },
        Case {
            name: "context length",
            reply: Reply::Status(
                400,
                None,
                "{\"error\":\"This model's maximum context length is 4096 tokens\"}".into(),
            ),
            want: Err("context"),
            retries: 0,
        },
        Case {
            name: "far fewer prompt tokens",
            reply: Reply::TextWithPromptTokens("clipped".into(), 12),
            want: Err("truncated"),
            retries: 0,
        },
    ];
    let mut failures = Vec::new();
    for c in cases {
        let srv = failing(c.reply, 1);
        let m = client(&srv, Duration::from_millis(400));
        let started = Instant::now();
        let prompt = "fact ".repeat(1000);
        let (result, notes) = chat_with_retry(&m, &req(&prompt), &quick_retry(2)).await;
        let got = match &result {
            Ok(r) => Ok(r.content.as_str()),
            Err(ModelError::Permanent { .. }) => Err("permanent"),
            Err(ModelError::Transient { .. }) => Err("transient"),
            Err(ModelError::RateLimited { .. }) => Err("rate_limited"),
            Err(ModelError::ContextLength { .. }) => Err("context"),
            Err(ModelError::Truncated { .. }) => Err("truncated"),
            Err(_) => Err("other"),
        };
        if got != c.want || notes.len() != c.retries {
            failures.push(format!(
                "{}: got {got:?} after {} retries ({result:?})",
                c.name,
                notes.len()
            ));
        }
        if c.name == "429 Retry-After" && started.elapsed() < Duration::from_millis(950) {
            failures.push(format!(
                "{}: Retry-After not honoured ({:?})",
                c.name,
                started.elapsed()
            ));
        }
        if c.want.is_err() && srv.requests().len() != 1 {
            failures.push(format!("{}: a non-transient error was retried", c.name));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn persistent_transient_failure_is_reported_as_transient() {
    let srv = failing(Reply::Status(503, None, "down".into()), usize::MAX);
    let m = client(&srv, Duration::from_secs(2));
    let (result, notes) = chat_with_retry(&m, &req("hi"), &quick_retry(2)).await;
    assert!(
        matches!(result, Err(ModelError::Transient { .. })),
        "{result:?}"
    );
    assert_eq!(notes.len(), 2);
    assert_eq!(srv.requests().len(), 3);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sub_call_faults_reach_the_code_and_the_trajectory_and_the_run_finishes() {
    let p429_attempts = AtomicUsize::new(0);
    let root_n = AtomicUsize::new(0);
    let srv = ChatServer::start(move |req: &Value, _| {
        if is_root_request(req) {
            let i = root_n.fetch_add(1, Ordering::SeqCst);
            return Reply::Text(if i == 0 {
                "```repl\nrs = llm_query_batched(['p429', 'p500', 'pbad', 'pempty', 'pok'])\nfor r in rs:\n    print(r[:60])\n```"
                    .into()
            } else {
                "```repl\nFINAL('finished despite faults')\n```".into()
            });
        }
        let p = last_user(req);
        match p.as_str() {
            "p429" if p429_attempts.fetch_add(1, Ordering::SeqCst) == 0 => Reply::Status(429, Some(0), "rate".into()),
            "p500" => Reply::Status(500, None, "always broken".into()),
            "pbad" => Reply::Raw("not json".into()),
            "pempty" => Reply::Raw("{\"choices\": []}".into()),
            _ => Reply::Text(format!("answer to {p}")),
        }
    })
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("t.jsonl");
    let m = Arc::new(client(&srv, Duration::from_secs(5)));
    let cfg = RlmConfig {
        trace_path: Some(trace.clone()),
        retry: quick_retry(1),
        ..RlmConfig::default()
    };
    let r = Rlm::new(cfg, m.clone(), m, Arc::new(MemHandle::sample()));
    let (mut s, out) = r.run("q").await.unwrap();
    assert_eq!(out.answer.as_deref(), Some("finished despite faults"));
    s.finish(Value::Null).unwrap();
    let t = Trajectory::read(&trace).unwrap();
    let calls = &t.iterations[0].sub_calls;
    assert_eq!(calls.len(), 5);
    let by_hash = |p: &str| {
        calls
            .iter()
            .find(|c| c.prompt_hash == rlm_core::short_hash(p))
            .unwrap()
    };
    assert_eq!(by_hash("p429").retries, 1);
    assert!(by_hash("p429").error.is_none());
    assert!(
        by_hash("p500")
            .error
            .as_deref()
            .unwrap()
            .contains("transient")
    );
    assert!(
        by_hash("pbad")
            .error
            .as_deref()
            .unwrap()
            .contains("malformed")
    );
    assert!(
        by_hash("pempty")
            .error
            .as_deref()
            .unwrap()
            .contains("no choices")
    );
    assert!(by_hash("pok").error.is_none());
    let output = &t.iterations[0].blocks[0].output;
    assert!(
        output.contains("answer to p429") && output.contains("Error: sub-call failed"),
        "{output}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn root_model_failure_ends_the_run_with_a_model_error() {
    let srv = failing(Reply::Status(401, None, "no such key".into()), usize::MAX);
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("t.jsonl");
    let m = Arc::new(client(&srv, Duration::from_secs(2)));
    let cfg = RlmConfig {
        trace_path: Some(trace.clone()),
        retry: quick_retry(1),
        ..RlmConfig::default()
    };
    let r = Rlm::new(cfg, m.clone(), m, Arc::new(MemHandle::sample()));
    let mut s = r.start("q").await.unwrap();
    let err = s.run().await.unwrap_err();
    assert!(
        matches!(err, RlmError::Model(ModelError::Permanent { .. })),
        "{err}"
    );
    s.finish(Value::Null).unwrap();
    let t = Trajectory::read(&trace).unwrap();
    assert_eq!(t.iterations[0].events[0].kind, "model_error");
    assert_eq!(t.final_line.unwrap().ending, Ending::ModelError);
}

#[test]
fn id_names_endpoint_and_model() {
    let m = OpenAiModel::new(OpenAiConfig::new("http://127.0.0.1:9/v1/", "qwen")).unwrap();
    assert_eq!(m.id(), "openai:http://127.0.0.1:9/v1:qwen");
}
