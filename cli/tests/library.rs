//! rlmkg used as a library, the way SPEC §1 (library integration) describes:
//! open a store, ingest, ask, read the typed answer's claims, citations and
//! verdicts. No model: the heuristic strategy answers.

use std::path::Path;
use std::sync::Arc;

use rlmkg::{AskOptions, IngestOptions, Models, NoProgress, Store, Verdict};

type TestResult = Result<(), Box<dyn std::error::Error>>;

#[test]
fn open_ingest_ask_and_read_a_typed_cited_answer() -> TestResult {
    let tmp = tempfile::tempdir()?;
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/corpus");
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
