//! The web page in headless Chromium: the test types the sample question
//! and presses Ask, waits for the streamed answer and reads what the page
//! shows from the DOM (`tests/fixtures/serve/browser.py` drives Chromium over
//! the DevTools protocol), then opens a saved trajectory in the page's file
//! input. The screenshots are kept in `test-artifacts/`.

use rlmkg_tests::{first_then, fixture, sample_store, scripted_case, stderr, stdout};
use serde_json::Value;

use super::support::{SKARVIK, Server, artifacts, chromium, python};

#[test]
fn the_page_shows_the_short_answer_claim_verdicts_and_cited_sentences() {
    let (Some(python), Some(chromium)) = (python(), chromium()) else {
        return;
    };
    // A real trajectory to open in the page: a scripted root model's run.
    // It reads who organised the expedition, then where the organiser is.
    let case = scripted_case(
        first_then(
            "print(context.search(\"Skarvik Expedition organised\", k=1)[0][\"id\"])\n\
             hits = context.search(\"Kestrel Institute Tromsø\", k=2)\nprint(hits[0][\"id\"])",
            "FINAL(\"The Kestrel Institute is in Tromsø [c5.s2].\")",
        ),
        &[],
        SKARVIK,
    );
    let trajectory = case.answer()["trajectory"]
        .as_str()
        .map(std::path::PathBuf::from)
        .filter(|t| t.exists())
        .unwrap_or_else(|| panic!("the scripted run wrote no trajectory: {}", case.stderr()));
    let (dir, store) = sample_store();
    let server = Server::start(dir.path(), &store, &[], &[]);
    let shot = artifacts().join("serve-page.png");
    let _ = std::fs::remove_file(&shot);
    let out = std::process::Command::new(python)
        .arg(fixture("serve/browser.py"))
        .arg(chromium)
        .arg(server.url("/"))
        .arg(SKARVIK)
        .arg(&shot)
        .arg(&trajectory)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "the browser run failed:\n{}\n{}",
        stdout(&out),
        stderr(&out)
    );
    let page: Value = serde_json::from_str(stdout(&out).lines().last().unwrap_or_default())
        .unwrap_or_else(|e| panic!("{e}: {}", stdout(&out)));
    assert_eq!(page["answered"], true, "{page}");
    assert_eq!(page["short_answer"], "Tromsø", "{page}");
    // Verified: the answer check shows the chain from the expedition to
    // the city (issue 44).
    assert_eq!(page["verified"], "true", "{page}");
    // The answer check is shown beside the badge, with its chain.
    assert_eq!(page["answer_check_verdict"], "answers", "{page}");
    assert!(
        page["answer_check"]
            .as_str()
            .unwrap()
            .starts_with("Answers the question: Skarvik Expedition —other: organised by→ "),
        "{page}"
    );
    let claims = page["claims"].as_array().unwrap();
    assert!(!claims.is_empty(), "{page}");
    for c in claims {
        assert_eq!(c["verdict"], "supported", "{page}");
        // Coloured by its verdict, with its reasons and source on hover.
        assert_eq!(c["colour"], "rgb(209, 250, 229)", "{c}");
        assert!(c["title"].as_str().unwrap().starts_with("supported"), "{c}");
    }
    // The cited sentences are highlighted inside their passages.
    let marked = page["marked"].as_array().unwrap();
    assert!(
        !marked.is_empty() && page["sources"].as_u64().unwrap() >= 1,
        "{page}"
    );
    assert!(
        std::fs::metadata(&shot).is_ok_and(|m| m.len() > 10_000),
        "no screenshot at {}",
        shot.display()
    );

    // The saved trajectory opened in the page: its turns, code and outputs.
    assert_eq!(page["trace_opened"], true, "{page}");
    let trace = &page["trace"];
    assert_eq!(trace["turns"], 2, "{trace}");
    assert!(
        trace["code"][0]
            .as_str()
            .unwrap()
            .contains("context.search"),
        "{trace}"
    );
    assert!(
        trace["code"][1].as_str().unwrap().contains("FINAL"),
        "{trace}"
    );
    assert!(
        trace["summary"].as_str().unwrap().contains("root openai:")
            && trace["summary"].as_str().unwrap().contains("scripted"),
        "{trace}"
    );
    // The answer's claim, and those of the sentences linking it to the
    // question written after it: all supported.
    let claims = trace["claims"].as_array().unwrap();
    assert!(
        !claims.is_empty() && claims.iter().all(|c| c == "supported"),
        "{trace}"
    );
}
