//! Planted citation cases (issue 4): every case in `tests/fixtures/citation/cases.txt`
//! states the verdict of each claim; one helper checks it against the sources in
//! `sources.json` and snapshots the rendered report.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use rlmkg_citation::{CheckOptions, MemorySource, check, render_text};

/// One case of a case file: `== name`, `expect: verdict, …`, an optional
/// `reason: kind` (the first claim's reason), then the answer text.
struct Case {
    name: String,
    expect: Vec<String>,
    reason: Option<String>,
    answer: String,
}

/// The cases of `tests/fixtures/citation/<file>`.
fn cases(file: &str) -> Vec<Case> {
    let text = std::fs::read_to_string(rlmkg_tests::fixture(&format!("citation/{file}"))).unwrap();
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
    for c in &mut out {
        c.answer = c.answer.trim().to_string();
    }
    out
}

/// Run every case of `file` (at least `min` of them) with `run`, reporting all failures at once.
fn run_all(file: &str, min: usize, run: impl Fn(&Case) -> Result<(), String>) {
    let all = cases(file);
    assert!(all.len() >= min, "the fixture {file} lost cases");
    let failures: Vec<String> = all.iter().filter_map(|c| run(c).err()).collect();
    assert!(
        failures.is_empty(),
        "{} of {} cases failed:\n\n{}",
        failures.len(),
        all.len(),
        failures.join("\n\n")
    );
}

fn sources() -> MemorySource {
    let text = std::fs::read_to_string(rlmkg_tests::fixture("citation/sources.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

/// Check one case: verdicts as expected, and the rendered report as snapshotted.
fn run_case(case: &Case, source: &MemorySource) -> Result<(), String> {
    let report = check(&case.answer, source, &CheckOptions::default()).unwrap();
    let got: Vec<&str> = report.claims.iter().map(|c| c.verdict.as_str()).collect();
    let rendered = render_text(&report);
    insta::with_settings!({
        snapshot_path => rlmkg_tests::fixture("citation/snapshots"),
        prepend_module_to_snapshot => false,
        description => case.answer.clone(),
    }, {
        insta::assert_snapshot!(case.name.clone(), rendered);
    });
    if got != case.expect {
        return Err(format!(
            "{}: expected {:?}, got {:?}\n{}",
            case.name, case.expect, got, rendered
        ));
    }
    Ok(())
}

#[test]
fn planted_cases() {
    let source = sources();
    run_all("cases.txt", 20, |c| run_case(c, &source));
}

/// Issue 13 cases (`roles.txt`): swapped names, places and dates come out
/// `overreach` (naming the reason), stronger quantifiers and certainty too, and
/// claims naming what a cited pronoun refers to are `supported`. Issue 32 cases
/// beside them: roles moved between names, reversed directions, changed units
/// and unsaid relations are not `supported`, their controls are.
#[test]
fn role_cases() {
    let text = std::fs::read_to_string(rlmkg_tests::fixture("citation/roles.json")).unwrap();
    let source: MemorySource = serde_json::from_str(&text).unwrap();
    run_all("roles.txt", 40, |c| run_role_case(c, &source));
}

#[test]
fn json_report_carries_everything() {
    let source = sources();
    let report = check(
        "Acme Rocketry was founded in 1989 by Jane Doe [c1.s1].",
        &source,
        &CheckOptions::default(),
    )
    .unwrap();
    let json: serde_json::Value = serde_json::from_str(&rlmkg_citation::to_json(&report)).unwrap();
    let claim = &json["claims"][0];
    assert_eq!(claim["verdict"], "overreach");
    assert_eq!(claim["evidence"][0]["id"], "c1.s1");
    assert_eq!(claim["evidence"][0]["path"], "docs/acme-history.md");
    assert!(
        claim["reasons"]
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r["kind"] == "date")
    );
    assert_eq!(json["footnotes"][0]["line_start"], 3);
    assert_eq!(json["totals"]["citation_recall"], 0.0);
}

#[test]
fn wice_agreement_when_data_present() {
    let Some(path) = rlmkg_tests::shared_data("wice_dev.jsonl") else {
        eprintln!("skipping: ../shared/data/wice_dev.jsonl is absent");
        return;
    };
    let report = rlmkg_citation::wice::evaluate(&path).unwrap();
    eprintln!("{report}");
    assert_eq!(report.claims, 349);
    // Near the reported figure (0.714 on the dev set, which the rules were
    // developed against): a change that loses agreement fails here.
    assert!(report.macro_f1 >= 0.69, "macro-F1 {}", report.macro_f1);
}

/// Check one role case: verdicts as expected, and the first claim's reason kind when given.
fn run_role_case(case: &Case, source: &MemorySource) -> Result<(), String> {
    let report = check(&case.answer, source, &CheckOptions::default()).unwrap();
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
