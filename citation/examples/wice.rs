//! Agreement of the citation checker with WiCE human labels.
//!
//! `cargo run --release -p rlmkg-citation --example wice -- /work/shared/data/wice_dev.jsonl`
//!
//! Options after the path: `--halves` also scores the first and second half of the
//! file separately (for settings chosen on one half only); `--errors N` prints the
//! first N misclassified claims with the checker's per-clause verdicts, reasons and
//! aligned sentences, next to the annotators' first set of supporting sentences;
//! `--dump` prints one JSON line per claim (gold, checker, the per-clause reports); `--opt NAME=NUMBER` overrides a `CheckOptions` field.

use std::path::PathBuf;
use std::process::ExitCode;

use rlmkg_citation::CheckOptions;
use rlmkg_citation::wice::{WiceLabel, explain, read, score};

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let Some(path) = args.next().map(PathBuf::from) else {
        eprintln!("usage: wice WICE.jsonl [--halves] [--dump] [--errors N] [--opt NAME=NUMBER]...");
        return ExitCode::from(2);
    };
    let mut halves = false;
    let mut errors = 0usize;
    let mut dump = false;
    let mut overrides = serde_json::Map::new();
    while let Some(a) = args.next() {
        match a.as_str() {
            "--halves" => halves = true,
            "--dump" => dump = true,
            "--opt" => {
                let Some((k, v)) = args.next().and_then(|kv| {
                    let (k, v) = kv.split_once('=')?;
                    Some((
                        k.to_string(),
                        serde_json::from_str::<serde_json::Value>(v).ok()?,
                    ))
                }) else {
                    eprintln!("--opt needs NAME=NUMBER");
                    return ExitCode::from(2);
                };
                overrides.insert(k, v);
            }
            "--errors" => match args.next().and_then(|n| n.parse().ok()) {
                Some(n) => errors = n,
                None => {
                    eprintln!("--errors needs a count");
                    return ExitCode::from(2);
                }
            },
            other => {
                eprintln!("unknown option {other}");
                return ExitCode::from(2);
            }
        }
    }
    let started = std::time::Instant::now();
    let records = match read(&path) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let mut opts = CheckOptions::default();
    if !overrides.is_empty() {
        let mut value = serde_json::to_value(&opts).unwrap_or_default();
        if let Some(map) = value.as_object_mut() {
            for (k, v) in overrides {
                if !map.contains_key(&k) {
                    eprintln!("unknown option {k}");
                    return ExitCode::from(2);
                }
                map.insert(k, v);
            }
        }
        opts = match serde_json::from_value(value) {
            Ok(o) => o,
            Err(e) => {
                eprintln!("bad option: {e}");
                return ExitCode::from(2);
            }
        };
    }
    let mut pairs: Vec<(WiceLabel, WiceLabel)> = Vec::new();
    let mut shown = 0;
    for r in &records {
        let p = match explain(&r.claim, &r.evidence, &opts) {
            Ok(p) => p,
            Err(e) => {
                eprintln!("error: {e}");
                return ExitCode::from(2);
            }
        };
        if dump {
            // Each clause's score against its best sentence alone.
            let single: Vec<f64> = p
                .report
                .claims
                .iter()
                .map(|c| {
                    let Some(best) = c.evidence.first() else {
                        return 0.0;
                    };
                    explain(&c.text, std::slice::from_ref(&best.text), &opts)
                        .ok()
                        .and_then(|x| x.report.claims.first().map(|y| y.score))
                        .unwrap_or(0.0)
                })
                .collect();
            let line = serde_json::json!({
                "gold": r.label,
                "checker": p.label,
                "claim": r.claim,
                "clauses": p.report.claims,
                "single": single,
            });
            println!("{line}");
        }
        if p.label != r.label && shown < errors {
            shown += 1;
            println!(
                "--- #{} gold {} / checker {}",
                pairs.len(),
                r.label.name(),
                p.label.name()
            );
            println!("claim: {}", r.claim);
            for c in &p.report.claims {
                let why: Vec<&str> = c.reasons.iter().map(|x| x.detail.as_str()).collect();
                println!(
                    "  [{}] {:.2} {} | {}",
                    c.verdict.as_str(),
                    c.score,
                    c.text,
                    why.join("; ")
                );
                for e in &c.evidence {
                    println!("      > {} {}", e.id, e.text);
                }
            }
            for set in r.supporting_sentences.iter().take(1) {
                let texts: Vec<String> = set
                    .iter()
                    .filter_map(|i| r.evidence.get(*i).map(|t| format!("({i}) {t}")))
                    .collect();
                println!("  gold: {}", texts.join(" "));
            }
        }
        pairs.push((r.label, p.label));
    }
    println!("{}", score(&pairs));
    if halves {
        let mid = pairs.len() / 2;
        println!("first half:\n{}", score(&pairs[..mid]));
        println!("second half:\n{}", score(&pairs[mid..]));
    }
    println!("({:.2} s)", started.elapsed().as_secs_f64());
    ExitCode::SUCCESS
}
