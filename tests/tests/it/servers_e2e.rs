//! Sub-calls over several model servers end to end (issue 31): the real
//! binary asked with `--sub-base-url` given twice, once as `@FILE` (a list
//! with a comment and a server that refuses connections). The scripted root
//! sends a batch of sub-calls and answers from a sentence it found; every
//! sub-call is answered by one of the two live servers, both take a share, and
//! the trajectory names the server of each call.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use rlm_core::testkit::{ChatServer, Reply, is_root_request, refused_url};
use rlmkg_tests::{Found, ask_scripted, find_sentence, repl, sample_store, stderr, stdout, turn};
use serde_json::Value;

const BATCH: usize = 24;

/// The first turn: a batch of sub-calls, then the id of the sentence that
/// places the Kestrel Institute in Tromsø, as `hop`.
fn first() -> String {
    format!(
        "rs = llm_query_batched([f\"Say ok {{i}}\" for i in range({BATCH})])\nprint(sum(r == \"ok\" for r in rs))\n{}",
        find_sentence(
            "hop",
            "Kestrel Institute for Coastal Studies Tromsø",
            5,
            &["Tromsø", "KICS"],
            Found::Id,
        )
    )
}

fn root(req: &Value, _: usize) -> Reply {
    Reply::Text(match turn(req) {
        0 => repl(&first()),
        _ => repl(
            r#"FINAL(f"The Kestrel Institute for Coastal Studies is a research institute in Tromsø [{hop}].")"#,
        ),
    })
}

fn sub(req: &Value, _: usize) -> Reply {
    if is_root_request(req) {
        return Reply::Status(400, None, "this server only serves sub-calls".into());
    }
    Reply::Delay(
        std::time::Duration::from_millis(50),
        Box::new(Reply::Text("ok".into())),
    )
}

#[test]
fn sub_calls_spread_over_servers_given_as_flags_and_a_file() {
    let (dir, store) = sample_store();
    let root_server = ChatServer::start(root).unwrap();
    let (a, b) = (
        ChatServer::start_serving(4, sub).unwrap(),
        ChatServer::start_serving(4, sub).unwrap(),
    );
    let refused = refused_url().unwrap();
    let list = dir.path().join("servers.txt");
    std::fs::write(
        &list,
        format!(
            "# the sub-model's other servers\n{}\n\n{refused}\n",
            b.base_url()
        ),
    )
    .unwrap();
    let at_list = format!("@{}", list.display());
    let out = ask_scripted(
        dir.path(),
        &store,
        &root_server.base_url(),
        &["--sub-base-url", &a.base_url(), "--sub-base-url", &at_list],
        "In which city is the Kestrel Institute for Coastal Studies?",
    );
    let why = format!("{}\n{}", stdout(&out), stderr(&out));
    assert!(out.status.success(), "{why}");
    let answer: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(answer["method"], "rlm", "{why}");
    assert!(answer["text"].as_str().unwrap().contains("Tromsø"), "{why}");

    let trace = std::fs::read_to_string(answer["trajectory"].as_str().unwrap()).unwrap();
    let lines: Vec<Value> = trace
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let sub_model = lines[0]["sub_model"].as_str().unwrap();
    assert!(sub_model.starts_with("pool["), "{sub_model}");
    let calls: Vec<&Value> = lines
        .iter()
        .filter(|l| l["type"] == "iteration")
        .flat_map(|l| l["sub_calls"].as_array().unwrap())
        .collect();
    assert_eq!(calls.len(), BATCH, "{trace}");
    let on = |url: &str| calls.iter().filter(|c| c["server"] == url).count();
    let (on_a, on_b) = (on(&a.base_url()), on(&b.base_url()));
    assert_eq!(on_a + on_b, BATCH, "{trace}");
    assert!(on_a >= BATCH / 4 && on_b >= BATCH / 4, "{on_a} / {on_b}");
    assert!(calls.iter().all(|c| c["error"].is_null()), "{trace}");
    // The root model is one server: its turns name none.
    assert!(
        lines
            .iter()
            .filter(|l| l["type"] == "iteration")
            .all(|l| l.get("server").is_none()),
        "{trace}"
    );
}
