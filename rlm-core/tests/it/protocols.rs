//! The root protocols against a real HTTP server on 127.0.0.1 (issue 28): tool
//! calls come back as tool messages and end with `final_answer`; a forced-code
//! reply is continued by a server that continues a trailing assistant message
//! (llama.cpp's), stopping at the fence; a repeated reply is not run again and
//! three in a row end the run.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;

use std::sync::Arc;

use common::{MemHandle, root_requests};
use rlm_core::testkit::{ChatServer, Reply, is_root_request, last_user};
use rlm_core::{FallbackReason, Protocol, Rlm, RlmConfig};
use serde_json::{Value, json};

/// An OpenAI chat-completion body whose message makes one tool call.
fn tool_call(id: &str, name: &str, args: Value) -> Reply {
    Reply::Raw(
        json!({
            "id": "x",
            "object": "chat.completion",
            "model": "scripted",
            "choices": [{
                "index": 0,
                "message": {
                    "role": "assistant",
                    "content": null,
                    "tool_calls": [{
                        "id": id,
                        "type": "function",
                        "function": {"name": name, "arguments": args.to_string()}
                    }]
                },
                "finish_reason": "tool_calls"
            }],
            "usage": {"prompt_tokens": 5000, "completion_tokens": 5}
        })
        .to_string(),
    )
}

/// The question of every test, and the answer the scripted roots give.
const QUESTION: &str = "Where was Marie Curie born?";
const ANSWER: &str = "Warsaw. Marie Curie was born in Warsaw [c1.s1].";

/// A server (with `slots`, as [`ChatServer::start_with_slots`]) whose root
/// calls get `root(request)` and whose sub-calls get "sub".
fn root_server(
    slots: Option<usize>,
    root: impl Fn(&Value) -> Reply + Send + Sync + 'static,
) -> ChatServer {
    ChatServer::start_with_slots(slots, move |req: &Value, _| {
        if is_root_request(req) {
            root(req)
        } else {
            Reply::Text("sub".into())
        }
    })
    .unwrap()
}

/// The messages of a request (it has them).
fn messages(req: &Value) -> &[Value] {
    req["messages"].as_array().expect("a request's messages")
}

/// How many messages of a request have this role (none if it has no messages).
fn count_role(req: &Value, role: &str) -> usize {
    req["messages"]
        .as_array()
        .map_or(0, |m| m.iter().filter(|m| m["role"] == role).count())
}

/// The names of the tools a request offered.
fn tool_names(req: &Value) -> Vec<&str> {
    req["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|t| t["function"]["name"].as_str())
        .collect()
}

fn rlm(server: &ChatServer, protocol: Protocol) -> Rlm {
    common::scripted_rlm(
        server,
        RlmConfig {
            protocol,
            ..RlmConfig::default()
        },
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tool_calls_run_and_their_results_come_back_as_tool_messages() {
    let srv = root_server(None, |req| {
        if count_role(req, "tool") > 0 {
            tool_call("call_2", "final_answer", json!({ "answer": ANSWER }))
        } else {
            tool_call("call_1", "search", json!({"query": "Marie Curie"}))
        }
    });
    let (_, out) = rlm(&srv, Protocol::Tools).run(QUESTION).await.unwrap();
    assert_eq!(out.answer.as_deref(), Some(ANSWER), "{out:?}");
    let reqs = root_requests(&srv);
    assert_eq!(reqs.len(), 2);
    // The tools offered: the handle's functions and the loop's own.
    let names = tool_names(&reqs[0]);
    for n in ["search", "read", "llm_query", "python", "final_answer"] {
        assert!(names.contains(&n), "{names:?}");
    }
    // The search result came back as the tool message answering call_1.
    let tool = messages(&reqs[1])
        .iter()
        .find(|m| m["role"] == "tool")
        .cloned()
        .unwrap();
    assert_eq!(tool["tool_call_id"], "call_1", "{tool}");
    assert!(tool["content"].as_str().unwrap().contains("c1"), "{tool}");
    assert_eq!(out.usage.handle_calls, 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn forced_code_is_continued_by_a_server_that_continues_the_reply() {
    // `GET /props` with total_slots: the client takes it for llama.cpp's server.
    let srv = root_server(Some(1), |req| {
        // The server writes only what follows the prefix, up to the stop.
        Reply::Text(if count_role(req, "user") <= 1 {
            "text = context.read('c1')\nprint(text)\n".into()
        } else {
            format!("FINAL('{ANSWER}')\n")
        })
    });
    let (_, out) = rlm(&srv, Protocol::Code).run(QUESTION).await.unwrap();
    assert_eq!(out.answer.as_deref(), Some(ANSWER), "{out:?}");
    let reqs = root_requests(&srv);
    let first = &reqs[0];
    let last = messages(first).last().unwrap();
    assert_eq!(last["role"], "assistant", "{first}");
    assert_eq!(last["content"], "```repl\n", "{first}");
    assert!(
        first["stop"].as_array().unwrap().iter().any(|s| s == "```"),
        "{first}"
    );
    // What the model saw of its own first turn is the whole block.
    let seen = reqs[1]["messages"][2]["content"].as_str().unwrap();
    assert!(
        seen.starts_with("```repl\ntext = context.read('c1')"),
        "{seen}"
    );
    assert!(last_user(&reqs[1]).contains("Marie Curie was born in Warsaw"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reply_repeated_three_times_ends_the_run_without_burning_the_budget() {
    let srv = root_server(None, |_| {
        Reply::Text("```repl\nprint(context.search('Curie'))\n```".into())
    });
    let (_, out) = rlm(&srv, Protocol::Free).run(QUESTION).await.unwrap();
    assert!(
        matches!(
            out.fallback,
            Some(FallbackReason::Repeating { repeats: 3, .. })
        ),
        "{out:?}"
    );
    let reqs = root_requests(&srv);
    assert_eq!(reqs.len(), 4, "run once, then three repeats");
    // Each repeat changed what the model saw: a warmer temperature, and from
    // the second on, the reply begun as code.
    let temps: Vec<f64> = reqs
        .iter()
        .map(|r| r["temperature"].as_f64().unwrap_or(0.0))
        .collect();
    assert!(temps.windows(2).skip(1).all(|w| w[1] > w[0]), "{temps:?}");
    // Warmer than the temperature the backend samples at when none is set,
    // not colder.
    assert!(temps[2] > 0.7, "{temps:?}");
    // The code ran once.
    assert_eq!(out.usage.handle_calls, 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_repeated_read_is_followed_by_a_turn_begun_as_a_search() {
    // A root that reads the same chunk again is begun on the step it did not
    // take (a search), not on another read it would fill in the same way.
    let srv = root_server(Some(1), |req| {
        let begun = messages(req)
            .last()
            .and_then(|m| m["content"].as_str())
            .unwrap_or_default()
            .to_owned();
        Reply::Text(if begun.ends_with("search(\"") {
            "Curie\")\nprint(hits)\n".into()
        } else if count_role(req, "user") >= 4 {
            format!("FINAL('{ANSWER}')\n")
        } else {
            "print(context.read('c1'))\n".into()
        })
    });
    let (_, out) = rlm(&srv, Protocol::Code).run(QUESTION).await.unwrap();
    assert_eq!(out.answer.as_deref(), Some(ANSWER), "{out:?}");
    let reqs = root_requests(&srv);
    assert_eq!(reqs.len(), 4, "read, repeated read, search, FINAL");
    let begun = messages(&reqs[2]).last().unwrap()["content"].clone();
    assert!(
        begun
            .as_str()
            .unwrap_or_default()
            .contains("context.search("),
        "{begun}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_small_root_is_offered_the_recipe_tools_only() {
    let srv = root_server(None, |_| {
        tool_call("call_1", "final_answer", json!({ "answer": ANSWER }))
    });
    let cfg = RlmConfig {
        protocol: Protocol::Tools,
        profile: Some(rlm_core::Profile::Small),
        ..RlmConfig::default()
    };
    let r = common::scripted_rlm(&srv, cfg);
    let _ = r.run(QUESTION).await.unwrap();
    let reqs = root_requests(&srv);
    let names = tool_names(&reqs[0]);
    assert!(
        names.contains(&"search") && names.contains(&"final_answer"),
        "{names:?}"
    );
    assert!(
        !names.contains(&"llm_query") && !names.contains(&"rlm_query"),
        "{names:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_long_run_is_kept_inside_the_roots_context_window() {
    // Each turn prints a long output; the window holds about two of them.
    let srv = root_server(None, |req| {
        let turn = count_role(req, "assistant");
        Reply::Text(format!("```repl\nprint('word{turn} ' * 1500)\n```"))
    });
    let m = common::scripted_model(&srv, Some(6000));
    let cfg = RlmConfig {
        budgets: rlm_core::Budgets {
            max_iterations: 6,
            ..Default::default()
        },
        ..RlmConfig::default()
    };
    let r = Rlm::new(cfg, m.clone(), m, Arc::new(MemHandle::sample()));
    let _ = r.run(QUESTION).await.unwrap();
    let reqs = root_requests(&srv);
    let last = reqs.last().unwrap();
    let chars: usize = messages(last)
        .iter()
        .map(|m| m["content"].as_str().map_or(0, str::len))
        .sum();
    // About four characters a token: the request fits the window with room to reply.
    assert!(chars < 6000 * 4, "{chars} characters sent");
    let shortened = messages(last)
        .iter()
        .filter(|m| {
            m["content"]
                .as_str()
                .is_some_and(|c| c.contains("shortened to fit the context window"))
        })
        .count();
    assert!(shortened >= 2, "{last:#}");
    // The last output is whole.
    let msgs = messages(last);
    let final_output = msgs[msgs.len() - 1]["content"].as_str().unwrap();
    assert!(!final_output.contains("shortened to fit"), "{final_output}");
}
