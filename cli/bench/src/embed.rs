//! `rlmkg bench embed`: the sentence encoder's throughput (issue 46) on chunks
//! of 200 words cut from the benchmark corpus of `bench ingest`, on all cores.

use std::time::Instant;

use anyhow::Context;
use rlm_core::embedded;
use rlmkg_embed::Encoder;

use crate::{BenchOptions, BenchRow};

const AREA: &str = "embed";
/// Words in a chunk: about the size of an ingested chunk.
const CHUNK_WORDS: usize = 200;

fn row(name: &str, value: f64, unit: &str, note: &str) -> BenchRow {
    BenchRow::plain(AREA, name, value, unit, note)
}

/// The first `count` chunks of [`CHUNK_WORDS`] words of the corpus's speeches,
/// taken in file-name order.
fn chunks(opts: &BenchOptions, count: usize) -> anyhow::Result<Vec<String>> {
    let dir = crate::ingest::corpus_texts(&opts.work_dir)?;
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .with_context(|| format!("reading {}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "txt"))
        .collect();
    files.sort();
    let mut out = Vec::with_capacity(count);
    for file in files {
        let text = std::fs::read_to_string(&file)
            .with_context(|| format!("reading {}", file.display()))?;
        let words: Vec<&str> = text.split_whitespace().collect();
        for chunk in words.chunks_exact(CHUNK_WORDS) {
            if out.len() == count {
                return Ok(out);
            }
            out.push(chunk.join(" "));
        }
    }
    anyhow::ensure!(
        out.len() == count,
        "the corpus holds only {} chunks",
        out.len()
    );
    Ok(out)
}

/// Run the encoder benchmark.
pub fn run(opts: &BenchOptions) -> anyhow::Result<Vec<BenchRow>> {
    let dir = embedded::installed_encoder()
        .context("no sentence encoder installed (run `rlmkg model pull encoder`)")?;
    let count = if opts.quick { 100 } else { 500 };
    let texts = chunks(opts, count)?;
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    let bytes: usize = refs.iter().map(|t| t.len()).sum();

    let t = Instant::now();
    let encoder = Encoder::load(&dir)?;
    let load_secs = t.elapsed().as_secs_f64();
    let threads = rayon::current_num_threads();
    let note = format!(
        "{count} chunks of {CHUNK_WORDS} words (cut at {} tokens), {threads} thread(s)",
        encoder.max_tokens()
    );
    // One small warm-up call, so the figure is of steady work.
    encoder.encode(refs.get(..4).unwrap_or(&refs))?;
    let t = Instant::now();
    let vectors = encoder.encode(&refs)?;
    let secs = t.elapsed().as_secs_f64().max(1e-9);
    anyhow::ensure!(
        vectors.len() == count,
        "the encoder returned {} vectors",
        vectors.len()
    );
    Ok(vec![
        row("load", load_secs, "s", ""),
        row("throughput", count as f64 / secs, "chunks/s", &note),
        row("throughput", bytes as f64 / secs / 1e3, "KB/s", &note),
    ])
}
