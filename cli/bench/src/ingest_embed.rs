//! `rlmkg bench ingest --embed` (issue 46): ingest MB/s with a vector per
//! chunk (the installed encoder, `rlmkg ingest --embed`) beside the same
//! ingest without, on a small slice of the benchmark corpus: the encoder
//! makes 5–13 chunks a second on 2 cores, so the whole 21.5 MB would take
//! hours.

use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::Context;

use crate::ingest::{bytes_under, corpus_texts, ingest_process};
use crate::{BenchOptions, BenchRow};

/// Bytes of `.txt` files in the slice (whole files, in file-name order,
/// until at least this many), and in a quick look.
const SLICE_BYTES: u64 = 300_000;
const QUICK_SLICE_BYTES: u64 = 60_000;

/// Copy the first `.txt` files of `data` (file-name order) into a folder of
/// their own until they hold at least `bytes`.
fn slice(data: &Path, work: &Path, bytes: u64) -> anyhow::Result<PathBuf> {
    let root = work.join(format!("sotu-slice-{bytes}"));
    let _ = std::fs::remove_dir_all(&root);
    std::fs::create_dir_all(&root).with_context(|| format!("creating {}", root.display()))?;
    let mut files: Vec<PathBuf> = std::fs::read_dir(data)
        .with_context(|| format!("reading {}", data.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "txt"))
        .collect();
    files.sort();
    let mut total = 0;
    for p in files {
        if total >= bytes {
            break;
        }
        let Some(name) = p.file_name() else { continue };
        total += std::fs::copy(&p, root.join(name))
            .with_context(|| format!("copying {}", p.display()))?;
    }
    Ok(root)
}

/// Run the slice's two ingests, each in a new process into a new store.
pub fn run(args: &BenchOptions) -> anyhow::Result<Vec<BenchRow>> {
    anyhow::ensure!(
        rlm_core::embedded::installed_encoder().is_some(),
        "no sentence encoder installed (run `rlmkg model pull encoder`)"
    );
    let bytes = if args.quick {
        QUICK_SLICE_BYTES
    } else {
        SLICE_BYTES
    };
    let root = slice(&corpus_texts(&args.work_dir)?, &args.work_dir, bytes)?;
    let stores = args.work_dir.join("bench-ingest-embed-stores");
    let _ = std::fs::remove_dir_all(&stores);
    let mut measured = Vec::new();
    for (name, extra) in [("plain", &[][..]), ("embed", &["--embed"][..])] {
        let store = stores.join(name);
        let t = Instant::now();
        let report = ingest_process(&args.rlmkg_bin, &store, &root, extra)?;
        let secs = t.elapsed().as_secs_f64();
        let store_mb = bytes_under(&store, &|_| true) as f64 / 1e6;
        measured.push((report, secs, store_mb));
    }
    let [(_, plain_secs, plain_mb), (embed, embed_secs, embed_mb)] = &measured[..] else {
        anyhow::bail!("two ingests expected");
    };
    let mb = embed.summary.bytes as f64 / 1e6;
    let chunks = embed.summary.chunks;
    let note = format!(
        "the first {} .txt files of the corpus ({mb:.2} MB, {chunks} chunks), \
         `rlmkg --json ingest [--embed]` in a new process into a new store; \
         encoder stage {:.1} s",
        embed.summary.ingested, embed.summary.stages.embed
    );
    let row =
        |name: &str, value: f64, unit: &str| BenchRow::plain("ingest", name, value, unit, &note);
    Ok(vec![
        row("slice: ingest without vectors", mb / plain_secs, "MB/s"),
        row(
            "slice: ingest with vectors (--embed)",
            mb / embed_secs,
            "MB/s",
        ),
        row(
            "slice: chunks embedded per second of ingest",
            chunks as f64 / embed_secs,
            "chunks/s",
        ),
        row("slice: store without vectors", *plain_mb, "MB"),
        row("slice: store with vectors", *embed_mb, "MB"),
        row(
            "slice: peak RSS with vectors",
            embed.peak_rss_mb.unwrap_or(f64::NAN),
            "MB",
        ),
    ])
}
