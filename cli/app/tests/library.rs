//! rlmkg used as a library, the way SPEC §1 (library integration) describes:
//! open a store, ingest, ask, read the typed answer's claims, citations and
//! verdicts. No model: the heuristic strategy answers.

use std::path::Path;
use std::sync::Arc;

use rlm_core::TraceLine;
use rlm_core::testkit::{ChatServer, Reply, is_root_request, last_user};
use rlmkg::backends::{BackendConfig, HttpModel};
use rlmkg::{
    AnswerStrategy, AskEvent, AskOptions, Events, Heuristic, IngestOptions, Method, Models,
    NoProgress, Question, Run, Store, Strategy, Verdict,
};

type TestResult = Result<(), Box<dyn std::error::Error>>;

#[test]
fn open_ingest_ask_and_read_a_typed_cited_answer() -> TestResult {
    let tmp = tempfile::tempdir()?;
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/corpus");
    let mut store = Store::create_or_open(tmp.path())?;
    let summary = store.ingest(&[corpus], &IngestOptions::default(), &NoProgress)?;
    assert!(summary.ingested >= 10, "{summary:?}");
    drop(store); // release the writer lock

    let store = Arc::new(Store::open_read(tmp.path())?);
    let runtime = tokio::runtime::Runtime::new()?;
    let mut notes = Vec::new();
    let answer = runtime.block_on(rlmkg::ask(
        Arc::clone(&store),
        "Who founded the publisher of The Salt Atlas?",
        &Models::default(),
        &AskOptions::default(),
        &mut |n| notes.push(n.to_owned()),
    ))?;
    let short = answer.short_answer.as_ref().map(|s| s.text.as_str());
    assert_eq!(short, Some("Catherine Moray"), "{}", answer.text);
    assert!(!answer.not_found && answer.verified, "{}", answer.text);
    let claims = &answer.verification.claims;
    assert!(!claims.is_empty());
    for claim in claims {
        assert!(
            claim.verdict == Verdict::Supported || claim.verdict == Verdict::Exempt,
            "{:?}: {}",
            claim.verdict,
            claim.text
        );
    }
    assert!(
        claims
            .iter()
            .any(|c| c.citations.iter().any(|cite| cite.id.is_some())),
        "no claim carries a citation: {}",
        answer.text
    );
    assert!(
        notes.iter().any(|n| n.contains("heuristic")),
        "the library says which strategy answered: {notes:?}"
    );

    // A question the corpus cannot answer says so, typed.
    let missing = runtime.block_on(rlmkg::ask(
        store,
        "Who was the first person to walk on Mars?",
        &Models::default(),
        &AskOptions::default(),
        &mut |_| {},
    ))?;
    assert!(missing.not_found, "{}", missing.text);
    assert!(missing.short_answer.is_none() && !missing.verified);
    Ok(())
}

/// A library user builds its models from a typed [`BackendConfig`] (here an
/// OpenAI-compatible test server whose "root model" explores with
/// `context.explore`, which runs the heuristic strategy's exploration, and
/// cites what it found), and can run a strategy directly through
/// [`AnswerStrategy`], getting what `ask` gives.
#[test]
fn typed_backend_config_and_strategies_behind_one_trait() -> TestResult {
    let tmp = tempfile::tempdir()?;
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/corpus");
    let mut store = Store::create_or_open(tmp.path())?;
    store.ingest(&[corpus], &IngestOptions::default(), &NoProgress)?;
    drop(store);
    let store = Arc::new(Store::open_read(tmp.path())?);
    let question = "Who founded the publisher of The Salt Atlas?";

    let server = ChatServer::start(|req, _| {
        if !is_root_request(req) {
            return Reply::Text("unused".into());
        }
        // The answer cites the chain: the book's publisher, then its founder
        // (the answer check needs both hops).
        let code = if last_user(req).contains("FOUND ") {
            r#"FINAL(f"Catherine Moray [{b}]. The Salt Atlas was published by Northlight Press [{a}]. Northlight Press was founded in 1987 by Catherine Moray [{b}].")"#
        } else {
            "a = context.search(\"Salt Atlas published Northlight Press\")[0][\"id\"]\n\
             found = context.explore(\"Who founded Northlight Press?\")\n\
             b = [e for e in found[\"evidence\"] if \"founded\" in e[\"text\"]][0][\"id\"]\n\
             print(\"FOUND \" + a + \" \" + b)"
        };
        Reply::Text(format!("```repl\n{code}\n```\n"))
    })?;
    let backends = BackendConfig {
        http: Some(HttpModel {
            base_url: server.base_url(),
            replicas: Vec::new(),
            model: "scripted".into(),
            api_key: None,
            context_window: Some(32_768),
            server: None,
        }),
        ..Default::default()
    }
    .build()?;
    assert!(
        backends.description.starts_with("HTTP root"),
        "{backends:?}"
    );
    let runtime = tokio::runtime::Runtime::new()?;
    // Every event of the run, as it happens: trajectory lines, the draft.
    let seen = Arc::new(std::sync::Mutex::new(Vec::<String>::new()));
    let sink = Arc::clone(&seen);
    let opts = AskOptions {
        strategy: Strategy::Rlm,
        events: Events::to(move |e| {
            let kind = match e {
                AskEvent::Run(TraceLine::Header(_)) => "header".to_owned(),
                AskEvent::Run(TraceLine::Iteration(it)) => format!("turn {}", it.blocks.len()),
                AskEvent::Run(TraceLine::Final(_)) => "final".to_owned(),
                AskEvent::Draft(text) => format!("draft {text}"),
                _ => "other".to_owned(),
            };
            if let Ok(mut v) = sink.lock() {
                v.push(kind);
            }
        }),
        ..Default::default()
    };
    let answer = runtime.block_on(rlmkg::ask(
        Arc::clone(&store),
        question,
        &backends.models,
        &opts,
        &mut |_| {},
    ))?;
    assert_eq!(answer.method, Method::Rlm, "{}", answer.text);
    assert!(
        answer.verified,
        "{}: {:?}",
        answer.text, answer.verification
    );
    assert!(answer.text.contains("[c"), "{}", answer.text);
    assert!(server.requests().len() >= 2);
    let seen = seen.lock().map(|v| v.clone()).unwrap_or_default();
    assert_eq!(seen.first().map(String::as_str), Some("header"), "{seen:?}");
    assert_eq!(
        seen.iter().filter(|k| *k == "turn 1").count(),
        2,
        "{seen:?}"
    );
    assert!(
        seen.iter()
            .any(|k| k.starts_with("draft Catherine Moray [")),
        "{seen:?}"
    );
    assert_eq!(seen.last().map(String::as_str), Some("final"), "{seen:?}");

    // The heuristic through the trait is what `ask` gives with that strategy.
    let heuristic = AskOptions {
        strategy: Strategy::Heuristic,
        ..Default::default()
    };
    let via_ask = runtime.block_on(rlmkg::ask(
        Arc::clone(&store),
        question,
        &Models::default(),
        &heuristic,
        &mut |_| {},
    ))?;
    let mut quiet = |_: &str| {};
    let mut run = Run::new(store, &heuristic, &mut quiet);
    let read = Question::read(question);
    let direct = runtime.block_on(Heuristic::new(None).answer(&mut run, &read))?;
    assert_eq!(direct.text, via_ask.text);
    assert_eq!(direct.method, Method::Extractive);
    Ok(())
}
