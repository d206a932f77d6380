//! `rlmkg eval WICE.jsonl`: agreement of the citation checker with WiCE human
//! labels (SPEC §10). Each claim cites the page it was written from; the checker's
//! label ([`rlmkg_citation::wice`]) is compared with the gold one. With `--judge`
//! the configured model reviews every clause the lexical checker leaves `partial`
//! (through the same cached judge as `rlmkg verify --judge`), and both the lexical
//! and the judged figures are reported. Per-claim results go to
//! `OUT/results-wice.jsonl`.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::Context;
use rlmkg_citation::wice::{self, WiceLabel};
use rlmkg_citation::{CheckOptions, Judge, Report, Verdict};
use serde::Serialize;

use crate::cli::GlobalArgs;
use crate::cmd::ExitError;
use rlmkg_settings::ModelArgs;

/// What a WiCE run needs from the command line.
pub struct WiceArgs<'a> {
    /// The WiCE JSONL file.
    pub dataset: &'a Path,
    /// Working directory (results file; `store/` holds `rlmkg.toml` and the call cache).
    pub out: PathBuf,
    /// Score only the first N claims.
    pub limit: Option<usize>,
    /// Ask the configured model about `partial` clauses.
    pub judge: bool,
    /// Model settings for the judge.
    pub model: &'a ModelArgs,
}

/// Consecutive failed judge calls, with none answered yet, after which the run
/// stops (the model is unreachable or never answers in the expected form).
const JUDGE_GIVE_UP: usize = 3;

/// What the judge did over the run.
#[derive(Debug, Default, Serialize)]
struct JudgeStats {
    /// The judge's id (backend and model).
    id: String,
    /// Clauses sent to the judge.
    requests: usize,
    /// Of which answered from the cache.
    cached: usize,
    /// Of which the reply could not be read or the call failed (left `partial`).
    failed: usize,
    /// Wall time spent in judge calls.
    seconds: f64,
}

/// One claim's line in `results-wice.jsonl`.
#[derive(Serialize)]
struct ClaimLine<'a> {
    index: usize,
    gold: WiceLabel,
    lexical: WiceLabel,
    #[serde(skip_serializing_if = "Option::is_none")]
    judged: Option<WiceLabel>,
    claim: &'a str,
    clauses: Vec<ClauseLine<'a>>,
}

#[derive(Serialize)]
struct ClauseLine<'a> {
    text: &'a str,
    verdict: Verdict,
    #[serde(skip_serializing_if = "Option::is_none")]
    lexical: Option<Verdict>,
    score: f64,
}

/// What `--json` prints.
#[derive(Serialize)]
struct JsonReport<'a> {
    dataset: &'a Path,
    format: &'static str,
    results: &'a Path,
    lexical: crate::json::WiceScores<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    judged: Option<crate::json::WiceScores<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    judge: Option<&'a JudgeStats>,
    seconds: f64,
}

/// Run the WiCE evaluation.
pub fn run(args: &WiceArgs<'_>, global: &GlobalArgs) -> anyhow::Result<u8> {
    let started = Instant::now();
    let mut records = wice::read(args.dataset)
        .with_context(|| format!("cannot read {}", args.dataset.display()))?;
    records.truncate(args.limit.unwrap_or(usize::MAX));
    fs::create_dir_all(&args.out)
        .with_context(|| format!("cannot create {}", args.out.display()))?;
    let store_dir = args.out.join("store");
    let judge = if args.judge {
        Some(crate::cmd::verify::model_judge(args.model, &store_dir)?)
    } else {
        None
    };
    let opts = CheckOptions::default();
    let results = args.out.join("results-wice.jsonl");
    let mut file = fs::File::create(&results)
        .with_context(|| format!("cannot write {}", results.display()))?;
    let bar = crate::out::bar(
        records.len() as u64,
        "{spinner} {pos}/{len} claims [{elapsed_precise}] {wide_bar} {msg}",
        global.quiet,
    );
    let mut stats = JudgeStats {
        id: judge.as_ref().map(Judge::id).unwrap_or_default(),
        ..JudgeStats::default()
    };
    let mut lexical_pairs = Vec::new();
    let mut judged_pairs = Vec::new();
    for (index, r) in records.iter().enumerate() {
        let p = wice::explain(&r.claim, &r.evidence, &opts)
            .with_context(|| format!("claim {}", index + 1))?;
        let mut report = p.report;
        let judged = match &judge {
            Some(j) => {
                judge_report(&mut report, j, &mut stats)?;
                Some(wice::label_of(&report))
            }
            None => None,
        };
        lexical_pairs.push((r.label, p.label));
        if let Some(l) = judged {
            judged_pairs.push((r.label, l));
        }
        let line = claim_line(index, r.label, p.label, judged, &r.claim, &report);
        let mut text = serde_json::to_string(&line).context("cannot serialize a result")?;
        text.push('\n');
        file.write_all(text.as_bytes())
            .with_context(|| format!("cannot write {}", results.display()))?;
        bar.inc(1);
    }
    bar.finish_and_clear();
    let lexical = wice::score(&lexical_pairs);
    let judged = judge.as_ref().map(|_| wice::score(&judged_pairs));
    let mut stdout = crate::out::stdout();
    if global.json {
        let report = JsonReport {
            dataset: args.dataset,
            format: "wice",
            results: &results,
            lexical: (&lexical).into(),
            judged: judged.as_ref().map(crate::json::WiceScores::from),
            judge: judge.as_ref().map(|_| &stats),
            seconds: started.elapsed().as_secs_f64(),
        };
        serde_json::to_writer_pretty(&mut stdout, &report)?;
        writeln!(stdout)?;
    } else {
        writeln!(stdout, "lexical checker\n{lexical}")?;
        if let Some(j) = &judged {
            writeln!(
                stdout,
                "with judge {}: {} partial clause(s) reviewed ({} cached, {} failed) in {:.1} s\n{j}",
                stats.id, stats.requests, stats.cached, stats.failed, stats.seconds
            )?;
        }
        stdout.flush()?;
        if !global.quiet {
            eprintln!(
                "{} claims in {:.1} s; per-claim results: {}",
                records.len(),
                started.elapsed().as_secs_f64(),
                results.display()
            );
        }
    }
    Ok(crate::cli::exit::OK)
}

/// Send the report's `partial` clauses to the judge; a failed call leaves its
/// clause `partial` (counted), unless nothing has been answered yet and
/// [`JUDGE_GIVE_UP`] calls in a row failed.
fn judge_report(
    report: &mut Report,
    judge: &dyn Judge,
    stats: &mut JudgeStats,
) -> anyhow::Result<()> {
    let id = judge.id();
    for req in report.judge_requests() {
        let t = Instant::now();
        let answer = judge.judge(&req);
        stats.seconds += t.elapsed().as_secs_f64();
        stats.requests += 1;
        match answer {
            Ok(a) => {
                stats.cached += usize::from(a.cached);
                report.apply_judgement(req.claim_index, a.verdict, &id, a.cached);
            }
            Err(e) => {
                stats.failed += 1;
                if stats.failed >= JUDGE_GIVE_UP && stats.failed == stats.requests {
                    return Err(ExitError::backend(format!(
                        "the judge failed on the first {} clauses: {e}",
                        stats.failed
                    )));
                }
            }
        }
    }
    Ok(())
}

fn claim_line<'a>(
    index: usize,
    gold: WiceLabel,
    lexical: WiceLabel,
    judged: Option<WiceLabel>,
    claim: &'a str,
    report: &'a Report,
) -> ClaimLine<'a> {
    ClaimLine {
        index,
        gold,
        lexical,
        judged,
        claim,
        clauses: report
            .claims
            .iter()
            .map(|c| ClauseLine {
                text: &c.text,
                verdict: c.verdict,
                lexical: c.judge.as_ref().map(|j| j.lexical),
                score: c.score,
            })
            .collect(),
    }
}
