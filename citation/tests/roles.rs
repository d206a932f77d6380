//! Issue 13 cases (`tests/fixtures/citation/roles.txt`): swapped names, places and
//! dates come out `overreach` (naming the reason), stronger quantifiers and
//! certainty too, and claims naming what a cited pronoun refers to are `supported`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::PathBuf;

use rlmkg_citation::{CheckOptions, MemorySource, check};

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures/citation")
        .join(name)
}

struct Case {
    name: String,
    expect: Vec<String>,
    reason: Option<String>,
    answer: String,
}

fn cases() -> Vec<Case> {
    let text = std::fs::read_to_string(fixture("roles.txt")).unwrap();
    let mut out: Vec<Case> = Vec::new();
    for line in text.lines() {
        if let Some(name) = line.strip_prefix("== ") {
            out.push(Case {
                name: name.trim().to_string(),
                expect: Vec::new(),
                reason: None,
                answer: String::new(),
            });
        } else if let Some(last) = out.last_mut() {
            if let Some(list) = line.strip_prefix("expect:") {
                last.expect = list.split(',').map(|s| s.trim().to_string()).collect();
            } else if let Some(r) = line.strip_prefix("reason:") {
                last.reason = Some(r.trim().to_string());
            } else {
                last.answer.push_str(line);
                last.answer.push('\n');
            }
        }
    }
    out
}

fn run_case(case: &Case, source: &MemorySource) -> Result<(), String> {
    let report = check(case.answer.trim(), source, &CheckOptions::default()).unwrap();
    let got: Vec<&str> = report.claims.iter().map(|c| c.verdict.as_str()).collect();
    let detail = || {
        report
            .claims
            .iter()
            .map(|c| {
                let why: Vec<String> = c.reasons.iter().map(|r| r.detail.clone()).collect();
                format!(
                    "  [{}] {:.2} {} | {}",
                    c.verdict.as_str(),
                    c.score,
                    c.text,
                    why.join("; ")
                )
            })
            .collect::<Vec<_>>()
            .join("\n")
    };
    if got != case.expect {
        return Err(format!(
            "{}: expected {:?}, got {:?}\n{}",
            case.name,
            case.expect,
            got,
            detail()
        ));
    }
    if let Some(want) = &case.reason {
        let kinds = serde_json::to_value(&report.claims[0].reasons).unwrap();
        let has = kinds
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r["kind"] == want.as_str());
        if !has {
            return Err(format!(
                "{}: no reason of kind {want}\n{}",
                case.name,
                detail()
            ));
        }
    }
    Ok(())
}

#[test]
fn issue_13_cases() {
    let source: MemorySource =
        serde_json::from_str(&std::fs::read_to_string(fixture("roles.json")).unwrap()).unwrap();
    let all = cases();
    assert!(all.len() >= 14, "the fixture lost cases");
    let failures: Vec<String> = all
        .iter()
        .filter_map(|c| run_case(c, &source).err())
        .collect();
    assert!(
        failures.is_empty(),
        "{} of {} cases failed:\n\n{}",
        failures.len(),
        all.len(),
        failures.join("\n\n")
    );
}
