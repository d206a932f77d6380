//! The web page in headless Chromium: the test types the sample question
//! and presses Ask, waits for the streamed answer and reads what the page
//! shows from the DOM (`tests/fixtures/serve/browser.py` drives Chromium over
//! the DevTools protocol). The screenshot is kept in `test-artifacts/`.

use rlmkg_tests::{fixture, sample_store, stderr, stdout};
use serde_json::Value;

use crate::support::{SKARVIK, Server, artifacts, chromium, python};

#[test]
fn the_page_shows_the_short_answer_claim_verdicts_and_cited_sentences() {
    let (Some(python), Some(chromium)) = (python(), chromium()) else {
        return;
    };
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
    assert_eq!(page["verified"], "true", "{page}");
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
}
