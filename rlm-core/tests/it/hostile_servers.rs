//! Servers that misbehave on purpose (issue 15), through a real local HTTP server:
//! every fault ends in an answer or a classified error, within a bounded time,
//! never a panic, a hang or an unbounded read.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;

use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

use common::MemHandle;
use rlm_core::testkit::{ChatServer, Reply, is_root_request};
use rlm_core::{
    ChatRequest, Message, ModelError, OpenAiConfig, OpenAiModel, RetryPolicy, Rlm, RlmConfig,
    chat_with_retry,
};
use serde_json::Value;

fn policy() -> RetryPolicy {
    RetryPolicy {
        max_retries: 2,
        base_delay: Duration::from_millis(20),
        max_delay: Duration::from_secs(3),
    }
}

fn req() -> ChatRequest {
    ChatRequest {
        messages: vec![Message::user("hello")],
        ..Default::default()
    }
}

struct Case {
    name: &'static str,
    /// The first reply; every later one is "ok".
    first: Reply,
    /// What the call must end with: `Ok(content)` or an error class.
    want: Result<&'static str, &'static str>,
    /// The call must take at least this long (a wait that must be honoured)...
    at_least: Duration,
    /// ...and at most this long.
    at_most: Duration,
}

fn class(r: &Result<rlm_core::ChatResponse, ModelError>) -> Result<&str, &'static str> {
    match r {
        Ok(r) => Ok(r.content.as_str()),
        Err(ModelError::Transient { .. }) => Err("transient"),
        Err(ModelError::RateLimited { .. }) => Err("rate_limited"),
        Err(ModelError::Permanent { .. }) => Err("permanent"),
        Err(_) => Err("other"),
    }
}

/// One scripted fault per case; the client has short timeouts so a hang shows.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_server_fault_ends_in_an_answer_or_a_classified_error_in_bounded_time() {
    let in_two_seconds = httpdate::fmt_http_date(SystemTime::now() + Duration::from_secs(2));
    // First, so the date is still ahead when its case runs.
    let cases = vec![
        Case {
            name: "Retry-After as an HTTP date is honoured",
            first: Reply::StatusRetryAfter(503, in_two_seconds, "later".into()),
            want: Ok("ok"),
            at_least: Duration::from_millis(900),
            at_most: Duration::from_secs(5),
        },
        Case {
            name: "absurd Retry-After (1e20 s) is clamped to the policy's longest wait",
            first: Reply::StatusRetryAfter(429, "1e20".into(), "slow down".into()),
            want: Ok("ok"),
            at_least: Duration::from_millis(2900),
            at_most: Duration::from_secs(6),
        },
        Case {
            name: "infinite Retry-After",
            first: Reply::StatusRetryAfter(503, "inf".into(), "down".into()),
            want: Ok("ok"),
            at_least: Duration::ZERO,
            at_most: Duration::from_secs(6),
        },
        Case {
            name: "500 then ok",
            first: Reply::Status(500, None, "oops".into()),
            want: Ok("ok"),
            at_least: Duration::ZERO,
            at_most: Duration::from_secs(3),
        },
        Case {
            name: "garbage 200 (not JSON) then ok",
            first: Reply::Raw("<html>proxy error</html>".into()),
            want: Ok("ok"),
            at_least: Duration::ZERO,
            at_most: Duration::from_secs(3),
        },
        Case {
            name: "200 with empty choices then ok",
            first: Reply::Raw("{\"choices\": []}".into()),
            want: Ok("ok"),
            at_least: Duration::ZERO,
            at_most: Duration::from_secs(3),
        },
        Case {
            name: "connection reset then ok",
            first: Reply::Reset,
            want: Ok("ok"),
            at_least: Duration::ZERO,
            at_most: Duration::from_secs(3),
        },
        Case {
            name: "a body that never ends (trickling) is cut at the body timeout",
            first: Reply::Endless {
                every: Duration::from_millis(50),
                chunk: 16,
            },
            want: Ok("ok"),
            at_least: Duration::from_millis(400),
            at_most: Duration::from_secs(4),
        },
        Case {
            name: "a body that never ends (fast) is cut at the size cap",
            first: Reply::Endless {
                every: Duration::ZERO,
                chunk: 64 * 1024,
            },
            want: Ok("ok"),
            at_least: Duration::ZERO,
            at_most: Duration::from_secs(4),
        },
        Case {
            name: "a huge body is cut at the size cap",
            first: Reply::Huge(512 * 1024 * 1024),
            want: Ok("ok"),
            at_least: Duration::ZERO,
            at_most: Duration::from_secs(4),
        },
    ];
    let mut failures = Vec::new();
    for c in cases {
        let first = c.first.clone();
        let srv = ChatServer::start(move |_, n| {
            if n == 0 {
                first.clone()
            } else {
                Reply::Text("ok".into())
            }
        })
        .unwrap();
        let mut cfg = OpenAiConfig::new(srv.base_url(), "hostile");
        cfg.timeout = Duration::from_secs(20);
        cfg.body_timeout = Duration::from_millis(500);
        cfg.max_reply_bytes = 4 * 1024 * 1024;
        let m = OpenAiModel::new(cfg).unwrap();
        let started = Instant::now();
        let (result, notes) = chat_with_retry(&m, &req(), &policy()).await;
        let took = started.elapsed();
        let got = class(&result);
        if got != c.want {
            failures.push(format!("{}: got {got:?} ({result:?}, {notes:?})", c.name));
        }
        if took < c.at_least || took > c.at_most {
            failures.push(format!(
                "{}: took {took:?}, want {:?}..{:?}",
                c.name, c.at_least, c.at_most
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A fault that never clears ends as a transient error after the retries, in
/// bounded time, however large the server's wishes.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn persistent_hostile_replies_end_as_transient_errors_in_bounded_time() {
    let srv = ChatServer::start(|_, _| Reply::Endless {
        every: Duration::ZERO,
        chunk: 64 * 1024,
    })
    .unwrap();
    let mut cfg = OpenAiConfig::new(srv.base_url(), "hostile");
    cfg.max_reply_bytes = 1024 * 1024;
    let m = OpenAiModel::new(cfg).unwrap();
    let started = Instant::now();
    let (result, notes) = chat_with_retry(&m, &req(), &policy()).await;
    assert!(
        matches!(&result, Err(ModelError::Transient { message, .. }) if message.contains("over")),
        "{result:?}"
    );
    assert_eq!(notes.len(), 2);
    assert!(started.elapsed() < Duration::from_secs(10));
}

/// One garbage 200 from the root model does not end the run: it is retried and
/// the run answers.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_garbage_root_reply_is_retried_and_the_run_answers() {
    let srv = ChatServer::start(|req: &Value, n| {
        if !is_root_request(req) {
            return Reply::Text("sub".into());
        }
        match n {
            0 => Reply::Raw("{\"choices\": []}".into()),
            1 => Reply::Raw("not json at all".into()),
            2 => Reply::Text("```repl\nprint(1)\n```".into()),
            _ => Reply::Text("```repl\nFINAL('survived')\n```".into()),
        }
    })
    .unwrap();
    let m = Arc::new(OpenAiModel::new(OpenAiConfig::new(srv.base_url(), "m")).unwrap());
    let cfg = RlmConfig {
        retry: policy(),
        ..RlmConfig::default()
    };
    let r = Rlm::new(cfg, m.clone(), m, Arc::new(MemHandle::sample()));
    let (_, out) = r.run("q").await.unwrap();
    assert_eq!(out.answer.as_deref(), Some("survived"));
}
