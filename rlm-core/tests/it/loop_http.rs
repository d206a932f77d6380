//! The root loop against a real HTTP server on 127.0.0.1 that speaks the
//! chat-completions wire format and replays scripted replies (SPEC §5.3).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use common::MemHandle;
use rlm_core::testkit::{ChatServer, Reply, is_root_request, last_user};
use rlm_core::trajectory::Trajectory;
use rlm_core::{Budgets, Ending, Profile, Rlm, RlmConfig};
use serde_json::Value;

fn server(root: Vec<String>, sub: fn(&str) -> String) -> ChatServer {
    common::scripted_server(root, sub)
}

fn upper(p: &str) -> String {
    format!(
        "SUB[{}]",
        p.chars().take(40).collect::<String>().to_uppercase()
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn scripted_run_with_fake_output_and_final_in_prose() {
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("run.jsonl");
    let srv = server(
        vec![
            // Prose that mentions FINAL( and fakes REPL output: neither may count.
            "I think the answer is FINAL(Paris). REPL output:\n```output\n99 c3\n```\nLet me check.\n\
             ```repl\nhits = context.search('born')\nprint(len(hits), hits[0]['id'])\n```"
                .into(),
            "```repl\ntext = context.read('c1')\nwhere = llm_query('Where was she born? ' + text)\n\
             parts = llm_query_batched(['one', 'two'])\nprint(where, parts)\n\
             result = 'Marie Curie was born in Warsaw [c1.s1].'\nFINAL_VAR('result')\n```"
                .into(),
        ],
        upper,
    );
    let cfg = RlmConfig {
        trace_path: Some(trace.clone()),
        ..RlmConfig::default()
    };
    let r = common::scripted_rlm(&srv, cfg);
    let mut session = r.start("Where was Marie Curie born?").await.unwrap();
    let out = session.run().await.unwrap();
    assert_eq!(
        out.answer.as_deref(),
        Some("Marie Curie was born in Warsaw [c1.s1].")
    );
    assert_eq!(out.ending, Ending::FinalVar);
    assert_eq!(out.usage.iterations, 2);
    assert_eq!(out.usage.sub_calls, 3);
    assert!(
        out.read_ids.contains(&"c1".to_string()),
        "{:?}",
        out.read_ids
    );

    // The second root request carries the real output, not the fake one.
    let roots = common::root_requests(&srv);
    assert_eq!(roots.len(), 2, "FINAL in prose ended the run early");
    let fed_back = last_user(&roots[1]);
    assert!(fed_back.contains("1 c1"), "{fed_back}");
    assert!(!fed_back.contains("99 c3"), "{fed_back}");
    // The metadata message names the functions and the question.
    let meta = roots[0]["messages"][1]["content"].as_str().unwrap();
    assert!(
        meta.contains("context.search(query, k=10)")
            && meta.contains("Where was Marie Curie born?")
    );

    session.finish(serde_json::json!({"supported": 1})).unwrap();
    let t = Trajectory::read(&trace).unwrap();
    let h = t.header.unwrap();
    assert_eq!(h.profile, "kg");
    assert_eq!(t.iterations.len(), 2);
    assert_eq!(t.iterations[0].blocks.len(), 1);
    assert_eq!(t.iterations[1].sub_calls.len(), 3);
    assert!(
        t.iterations[1]
            .sub_calls
            .iter()
            .all(|s| s.error.is_none() && !s.prompt_hash.is_empty())
    );
    let f = t.final_line.unwrap();
    assert_eq!(f.ending, Ending::FinalVar);
    assert_eq!(f.verification["supported"], 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn guards_reject_blind_answers_and_placeholders() {
    let srv = server(
        vec![
            "```repl\nFINAL('a blind guess')\n```".into(),
            "```repl\nanswer['content'] = 'Label: [least_common_status]'\nanswer['ready'] = True\n```".into(),
            "```repl\nanswer['content'] = 'Warsaw [c1.s1]'\nanswer['ready'] = True\n```".into(),
        ],
        upper,
    );
    let r = common::scripted_rlm(
        &srv,
        RlmConfig {
            profile: Some(Profile::Dict),
            ..RlmConfig::default()
        },
    );
    let (_, out) = r.run("Where?").await.unwrap();
    assert_eq!(out.answer.as_deref(), Some("Warsaw [c1.s1]"));
    assert_eq!(out.ending, Ending::AnswerDict);
    let roots = common::root_requests(&srv);
    assert_eq!(roots.len(), 3);
    assert!(last_user(&roots[1]).contains("only accepted after you have seen REPL output"));
    assert!(last_user(&roots[2]).contains("[least_common_status]"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn iteration_budget_ends_with_a_last_turn() {
    let srv = server(
        vec![
            "```repl\nprint('looking')\n```".into(),
            "```repl\nprint('still looking')\n```".into(),
            "Best answer: Warsaw [c1.s1].".into(),
        ],
        upper,
    );
    let cfg = RlmConfig {
        budgets: Budgets {
            max_iterations: 2,
            ..Budgets::default()
        },
        ..RlmConfig::default()
    };
    let (_, out) = common::scripted_rlm(&srv, cfg).run("Where?").await.unwrap();
    assert_eq!(out.ending, Ending::BestEffort);
    assert_eq!(out.answer.as_deref(), Some("Best answer: Warsaw [c1.s1]."));
    let roots = common::root_requests(&srv);
    assert_eq!(roots.len(), 3);
    assert!(last_user(&roots[2]).contains("turn budget is used up"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn token_budget_stops_the_run() {
    let srv = server(vec!["```repl\nprint('x' * 50)\n```".into()], upper);
    let cfg = RlmConfig {
        budgets: Budgets {
            max_total_tokens: Some(1),
            ..Budgets::default()
        },
        ..RlmConfig::default()
    };
    let (_, out) = common::scripted_rlm(&srv, cfg).run("Where?").await.unwrap();
    assert_eq!(out.ending, Ending::Budget);
    assert!(
        out.stop_reason.contains("token budget"),
        "{}",
        out.stop_reason
    );
    assert_eq!(common::root_requests(&srv).len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rlm_query_runs_a_child_and_degrades_at_max_depth() {
    // The child sees its own question in its metadata message.
    let n = AtomicUsize::new(0);
    let srv = ChatServer::start(move |req: &Value, _| {
        if !is_root_request(req) {
            return Reply::Text(format!("plain:{}", last_user(req)));
        }
        let meta = req["messages"][1]["content"].as_str().unwrap_or_default();
        if meta.contains("Question: child question") {
            let turn = req["messages"].as_array().map_or(0, Vec::len);
            return Reply::Text(if turn <= 2 {
                "```repl\nprint(context.docs())\nprint(rlm_query('grandchild'))\n```".into()
            } else {
                "```repl\nFINAL('child says Warsaw')\n```".into()
            });
        }
        let i = n.fetch_add(1, Ordering::SeqCst);
        Reply::Text(if i == 0 {
            "```repl\nsub = rlm_query('child question', scope=['c1', 'c3'])\nprint(sub)\n```".into()
        } else {
            "```repl\nFINAL('root: ' + sub)\n```".into()
        })
    })
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("t.jsonl");
    let cfg = RlmConfig {
        trace_path: Some(trace.clone()),
        ..RlmConfig::default()
    };
    let (mut s, out) = common::scripted_rlm(&srv, cfg)
        .run("root question")
        .await
        .unwrap();
    assert_eq!(out.answer.as_deref(), Some("root: child says Warsaw"));
    s.finish(Value::Null).unwrap();
    let t = Trajectory::read(&trace).unwrap();
    let call = &t.iterations[0].sub_calls[0];
    assert_eq!(call.kind, "rlm_query");
    assert_eq!(call.child.len(), 2);
    // The child was scoped to c1 and c3, and its own rlm_query was a plain call.
    assert!(
        call.child[0].blocks[0]
            .output
            .contains("['Marie Curie', 'Warsaw']"),
        "{:?}",
        call.child[0].blocks[0]
    );
    assert!(call.child[0].blocks[0].output.contains("plain:grandchild"));
    assert_eq!(call.child[0].sub_calls[0].kind, "rlm_query_plain");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn oversized_sub_prompts_are_refused_before_sending() {
    let srv = server(
        vec![
            "```repl\ntry:\n    llm_query('word ' * 5000)\nexcept ValueError as e:\n    print('refused:', e)\n```".into(),
            "```repl\nFINAL('done')\n```".into(),
        ],
        upper,
    );
    let r = Rlm::new(
        RlmConfig::default(),
        common::scripted_model(&srv, None),
        common::scripted_model(&srv, Some(1000)),
        Arc::new(MemHandle::sample()),
    );
    let (_, out) = r.run("q").await.unwrap();
    assert_eq!(out.answer.as_deref(), Some("done"));
    assert!(
        srv.requests().iter().all(is_root_request),
        "the oversized prompt was sent"
    );
    assert!(last_user(&common::root_requests(&srv)[1]).contains("refused: prompt not sent"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_cache_answers_a_rerun_without_calls() {
    let dir = tempfile::tempdir().unwrap();
    let srv = server(
        vec![
            "```repl\nprint(llm_query('hello'))\n```".into(),
            "```repl\nFINAL('cached answer')\n```".into(),
        ],
        upper,
    );
    let cfg = RlmConfig {
        cache_dir: Some(dir.path().join("cache")),
        ..RlmConfig::default()
    };
    let (_, first) = common::scripted_rlm(&srv, cfg.clone())
        .run("q")
        .await
        .unwrap();
    let sent = srv.requests().len();
    assert_eq!(sent, 3);
    let (_, second) = common::scripted_rlm(&srv, cfg).run("q").await.unwrap();
    assert_eq!(second.answer, first.answer);
    assert_eq!(srv.requests().len(), sent, "the rerun called the server");
    assert_eq!(second.usage.cached_calls, 3);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn paper_profile_gives_context_as_text_and_kg_as_handle() {
    let srv = server(
        vec![
            "```repl\nprint(isinstance(context, str), len(context) > 50, kg.search('Poland')[0]['id'])\n```".into(),
            "```repl\nFINAL(context.split('.')[0])\n```".into(),
        ],
        upper,
    );
    let (_, out) = common::scripted_rlm(
        &srv,
        RlmConfig {
            profile: Some(Profile::Paper),
            ..RlmConfig::default()
        },
    )
    .run("q")
    .await
    .unwrap();
    assert_eq!(
        out.answer.as_deref(),
        Some("Marie Curie was born in Warsaw")
    );
    let roots = common::root_requests(&srv);
    assert!(
        last_user(&roots[1]).contains("True True c3"),
        "{}",
        last_user(&roots[1])
    );
    assert!(
        roots[0]["messages"][0]["content"]
            .as_str()
            .unwrap()
            .contains("32K")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn repair_turn_takes_a_prose_answer() {
    let srv = server(
        vec![
            "```repl\nprint(context.read('c3'))\n```".into(),
            "```repl\nFINAL('Warsaw is in Germany [c3.s1].')\n```".into(),
            "Warsaw is the capital of Poland [c3.s1].".into(),
        ],
        upper,
    );
    let r = common::scripted_rlm(&srv, RlmConfig::default());
    let mut s = r.start("Where is Warsaw?").await.unwrap();
    let first = s.run().await.unwrap();
    assert_eq!(first.ending, Ending::Final);
    let fixed = s
        .repair("Claim 1 is unsupported by [c3.s1]; fix or remove it.")
        .await
        .unwrap();
    assert_eq!(
        fixed.answer.as_deref(),
        Some("Warsaw is the capital of Poland [c3.s1].")
    );
    assert_eq!(fixed.ending, Ending::BestEffort);
    assert!(last_user(&common::root_requests(&srv)[2]).contains("Claim 1 is unsupported"));
}
