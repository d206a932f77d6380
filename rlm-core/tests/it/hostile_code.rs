//! Code written to hurt the host (issue 15): each case ends the block with a
//! readable error, within bounded time, and the variables assigned before it
//! are kept.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::time::{Duration, Instant};

use rlm_core::testkit::FnHost;
use rlm_core::{LimitHit, Repl, ReplLimits};
use serde_json::Value;

fn limits() -> ReplLimits {
    crate::common::sandbox_limits(Duration::from_secs(5))
}

/// A host with one function, `echo(x)`, returning the size of what it got.
fn echo() -> FnHost<impl Fn(Vec<Value>) -> Value + Send + Sync> {
    FnHost::new("echo", |args| {
        Value::from(args.first().map_or(0, |a| a.to_string().len()))
    })
}

/// What a hostile block must end with.
struct Case {
    name: &'static str,
    code: &'static str,
    /// Text the error must contain (`None`: the block may also succeed; it
    /// must only end, quickly, without taking the process down).
    error: Option<&'static str>,
    /// The limit it must report, if any.
    limit: Option<LimitHit>,
}

const BOMB: &str = "a = 'x'\nfor i in range(64):\n    a = [a, a]\n";

const CASES: &[Case] = &[
    Case {
        name: "cumulative memory growth in one block",
        code: "xs = []\nwhile True:\n    xs.append('x' * 20_000_000)",
        error: Some("MemoryError"),
        limit: Some(LimitHit::Memory),
    },
    Case {
        name: "DAG bomb as a host-call argument",
        code: "a = 'x'\nfor i in range(64):\n    a = [a, a]\necho(a)",
        error: Some("too large"),
        limit: None,
    },
    Case {
        name: "one big string shared 2000 times as an argument",
        code: "big = 'y' * 1_000_000\necho([big] * 2000)",
        error: Some("too large"),
        limit: None,
    },
    Case {
        name: "nesting too deep to convert",
        code: "a = []\nfor i in range(5000):\n    a = [a]\necho(a)",
        error: None,
        limit: None,
    },
    Case {
        name: "huge exception message",
        code: "raise ValueError('z' * 50_000_000)",
        error: Some("ValueError"),
        limit: None,
    },
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hostile_blocks_end_with_a_readable_error_and_keep_earlier_variables() {
    let mut failures = Vec::new();
    for c in CASES {
        let mut repl = Repl::new(limits());
        repl.run("keep = 'kept'", &echo()).await;
        let started = Instant::now();
        let r = repl.run(c.code, &echo()).await;
        let took = started.elapsed();
        match (&r.error, c.error) {
            (_, None) => {}
            (Some(e), Some(want)) if e.contains(want) => {}
            (other, _) => failures.push(format!("{}: error {other:?}", c.name)),
        }
        if r.limit != c.limit {
            failures.push(format!(
                "{}: limit {:?}, want {:?}",
                c.name, r.limit, c.limit
            ));
        }
        if r.error.as_ref().is_some_and(|e| e.chars().count() > 3_000) {
            failures.push(format!("{}: error text not cut", c.name));
        }
        if took > Duration::from_secs(8) {
            failures.push(format!("{}: took {took:?}", c.name));
        }
        let after = repl.run("print(keep)", &echo()).await;
        if after.output != "kept\n" {
            failures.push(format!("{}: variables lost: {after:?}", c.name));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Memory kept by earlier blocks counts: three blocks of 100 MB each pass a 256 MB
/// limit only if the count starts over at every block.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn memory_kept_across_blocks_counts_against_the_limit() {
    let mut repl = Repl::new(limits());
    repl.run("keep = 'kept'\nparts = []", &echo()).await;
    let mut hit = None;
    for i in 0..4 {
        let r = repl
            .run(
                "parts.append('p' * 100_000_000)\nprint(len(parts))",
                &echo(),
            )
            .await;
        if r.limit.is_some() {
            hit = Some((i, r));
            break;
        }
    }
    let (i, r) = hit.expect("four blocks of 100 MB kept passed a 256 MB limit");
    assert_eq!(r.limit, Some(LimitHit::Memory), "{:?}", r.error);
    assert!(i >= 2, "stopped too early, at block {i}: {:?}", r.error);
    let after = repl.run("print(keep, len(parts))", &echo()).await;
    assert_eq!(after.output, format!("kept {i}\n"));
    // Freeing the memory makes room again.
    let r = repl
        .run("parts = []\nx = 'q' * 100_000_000\nprint(len(x))", &echo())
        .await;
    assert_eq!(r.error, None);
}

/// The `answer` dict is read after every block; a DAG bomb in it is refused at
/// once instead of expanded.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dag_bomb_as_answer_is_refused_quickly() {
    let mut repl = Repl::new(limits());
    repl.run(
        &format!("{BOMB}answer = {{'content': a, 'ready': True}}"),
        &echo(),
    )
    .await;
    let started = Instant::now();
    let got = repl.eval_checked("answer").await;
    assert!(
        matches!(&got, Err(e) if e.contains("too large")),
        "{:?}",
        got.as_ref().map(|v| v.to_string().len())
    );
    assert!(started.elapsed() < Duration::from_secs(5));
    assert_eq!(repl.eval("len(a)").await, Some(Value::from(2)));
}

/// `print(a)` of a DAG bomb grows a string inside monty with no checkpoint (its
/// repr polls limits every 64th item of a list, and every list here has two),
/// and a catastrophic regular expression runs inside the regex engine: no
/// soft limit can stop either. The step is stopped at its memory ceiling or
/// given up past its time, the block ends with a readable error, the process
/// lives on, and the session is back as it was before the block. Run in a
/// child process: a runaway step holds the process's one interpreter turn
/// for seconds, which would slow the other tests' blocks down.
#[test]
fn uninterruptible_operations_are_given_up_and_the_session_restored() {
    if crate::common::run_in_child(
        "hostile_code::uninterruptible_operations_are_given_up_and_the_session_restored",
        "RLMKG_RUNAWAY_CHILD",
    ) {
        return;
    }
    tokio::runtime::Runtime::new()
        .unwrap()
        .block_on(given_up_and_restored());
}

async fn given_up_and_restored() {
    // (case, code, block time limit, error, limit hit): the bomb's time limit
    // is long enough that the memory ceiling stops it first.
    let cases = [
        (
            "print of a DAG bomb",
            format!("{BOMB}print(a)"),
            30,
            "MemoryError",
            LimitHit::Memory,
        ),
        (
            "catastrophic regex",
            "import re\nre.sub(r'(?=(a+))\\1b', 'x', 'a' * 100_000)".to_string(),
            2,
            "TimeoutError",
            LimitHit::Time,
        ),
    ];
    for (name, code, secs, want, hit) in cases {
        let mut repl = Repl::new(ReplLimits {
            max_memory: 64 * 1024 * 1024,
            max_block_time: Duration::from_secs(secs),
            ..limits()
        });
        repl.run("keep = 'kept'", &echo()).await;
        let started = Instant::now();
        let r = repl.run(&code, &echo()).await;
        let took = started.elapsed();
        let err = r.error.clone().unwrap_or_default();
        assert!(err.contains(want), "{name}: {r:?}");
        assert!(err.contains("as it was before"), "{name}: {err}");
        assert_eq!(r.limit, Some(hit), "{name}");
        assert!(took < Duration::from_secs(40), "{name}: took {took:?}");
        let after = repl.run("print(keep)", &echo()).await;
        assert_eq!(after.output, "kept\n", "{name}: {after:?}");
        let more = repl.run("n = sum(range(1000))\nprint(n)", &echo()).await;
        assert_eq!(more.output, "499500\n", "{name}: {more:?}");
        if hit == LimitHit::Time && cfg!(target_os = "linux") {
            // The regex computes on, at the idlest priority.
            assert!(
                niced_step_threads() >= 1,
                "{name}: no step thread at nice 19"
            );
        }
    }
}

/// Threads of this process named like REPL step threads that run at nice 19.
fn niced_step_threads() -> usize {
    let Ok(tasks) = std::fs::read_dir("/proc/self/task") else {
        return 0;
    };
    tasks
        .flatten()
        .filter(|t| {
            let stat = std::fs::read_to_string(t.path().join("stat")).unwrap_or_default();
            // Fields after the parenthesised name: state is the 3rd field, nice the 19th.
            let Some((name, rest)) = stat.split_once(") ") else {
                return false;
            };
            name.contains("rlmkg-repl-step") && rest.split_whitespace().nth(16) == Some("19")
        })
        .count()
}
