//! `rlmkg bench model`: the embedded model's prompt-processing and generation speed,
//! prefix reuse and peak RSS; compared with llama.cpp on the same GGUF when the
//! `llama_cpp` Python module (llama-cpp-python) is importable.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::Context;
use rlm_core::embedded::{self, EmbeddedModel, EmbeddedOptions};
use rlm_core::{ChatRequest, Message, Sampling};

use crate::{BenchOptions, BenchRow};

const AREA: &str = "model";

fn row(
    name: &str,
    value: f64,
    unit: &str,
    target: Option<&str>,
    note: impl Into<String>,
) -> BenchRow {
    BenchRow {
        area: AREA.into(),
        name: name.into(),
        value,
        unit: unit.into(),
        target: target.map(Into::into),
        note: note.into(),
    }
}

/// The model to measure: `$RLMKG_MODEL_PATH`, else the pulled default.
fn model_path() -> anyhow::Result<PathBuf> {
    if let Some(p) = std::env::var_os("RLMKG_MODEL_PATH").filter(|p| !p.is_empty()) {
        return Ok(PathBuf::from(p));
    }
    embedded::installed_default().context("no embedded model installed (run `rlmkg model pull`)")
}

/// Peak resident set size of this process in MiB (Linux), if known.
fn peak_rss_mib() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib / 1024.0)
}

/// A deterministic filler prompt of roughly `words` words.
fn filler(words: usize) -> String {
    const W: [&str; 12] = [
        "graph", "entity", "river", "citation", "passage", "model", "token", "archive", "Paris",
        "1923", "node", "edge",
    ];
    (0..words)
        .map(|i| W[(i * 7 + i / 3) % W.len()])
        .collect::<Vec<_>>()
        .join(" ")
}

/// Run the model benchmarks.
pub fn run(args: &BenchOptions, note_out: &mut dyn FnMut(&str)) -> anyhow::Result<Vec<BenchRow>> {
    let path = model_path()?;
    let threads = std::env::var("RLMKG_THREADS")
        .ok()
        .and_then(|t| t.parse().ok());
    let opts = EmbeddedOptions {
        threads,
        ..EmbeddedOptions::default()
    };
    let thread_note = threads.unwrap_or_else(embedded::default_threads);
    let (pp_n, tg_n) = if args.quick { (128, 32) } else { (512, 128) };
    let file = path
        .file_name()
        .map(|f| f.to_string_lossy().into_owned())
        .unwrap_or_default();
    let note = format!("{file}, {thread_note} thread(s)");

    let t = std::time::Instant::now();
    let model = EmbeddedModel::load(&path, opts).map_err(|e| anyhow::anyhow!("{e}"))?;
    let load_secs = t.elapsed().as_secs_f64();
    let mut rows = vec![row(
        "load (incl. Q4→Q8_0 requantize)",
        load_secs,
        "s",
        None,
        note.clone(),
    )];

    // Raw speed, like llama-bench: pp over a fresh cache, then greedy decode without stopping.
    let prompt_ids: Vec<u32> = model
        .encode(&filler(pp_n * 2))
        .map_err(|e| anyhow::anyhow!("{e}"))?;
    let prompt_ids: Vec<u32> = prompt_ids.into_iter().take(pp_n).collect();
    let raw = model
        .measure(&prompt_ids, tg_n)
        .map_err(|e| anyhow::anyhow!("{e}"))?;
    let pp_tps = raw.prompt_tokens as f64 / raw.prompt_secs.max(1e-9);
    let tg_tps = raw.generated_tokens as f64 / raw.generate_secs.max(1e-9);
    rows.push(row(
        &format!("prompt processing (pp{pp_n})"),
        pp_tps,
        "tok/s",
        None,
        note.clone(),
    ));
    rows.push(row(
        &format!("generation (tg{tg_n})"),
        tg_tps,
        "tok/s",
        None,
        note.clone(),
    ));

    // A chat call, then a second one sharing the system prompt: prefix reuse.
    let system = format!(
        "You answer questions about a corpus. Metadata: {}",
        filler(300)
    );
    let ask = |q: &str| ChatRequest {
        messages: vec![Message::system(system.clone()), Message::user(q)],
        sampling: Sampling {
            temperature: Some(0.0),
            max_tokens: Some(16),
            ..Sampling::default()
        },
        ..Default::default()
    };
    model.clear_prefix_cache();
    model
        .chat_blocking(&ask("Which river is named?"))
        .map_err(|e| anyhow::anyhow!("{e}"))?;
    let cold = model.last_stats();
    model
        .chat_blocking(&ask("Which city is named?"))
        .map_err(|e| anyhow::anyhow!("{e}"))?;
    let warm = model.last_stats();
    rows.push(row(
        "chat prompt, cold",
        cold.prompt_secs * 1000.0,
        "ms",
        None,
        format!("{} prompt tokens", cold.prompt_tokens),
    ));
    rows.push(row(
        "chat prompt, shared prefix reused",
        warm.prompt_secs * 1000.0,
        "ms",
        None,
        format!(
            "{} of {} prompt tokens reused",
            warm.reused_tokens, warm.prompt_tokens
        ),
    ));
    if let Some(rss) = peak_rss_mib() {
        rows.push(row("peak RSS", rss, "MiB", None, note.clone()));
    }

    match llama_cpp(&path, &prompt_ids, tg_n, thread_note, &args.work_dir) {
        Ok((lpp, ltg)) => {
            rows.push(row(
                &format!("llama.cpp prompt processing (pp{pp_n})"),
                lpp,
                "tok/s",
                None,
                note.clone(),
            ));
            rows.push(row(
                &format!("llama.cpp generation (tg{tg_n})"),
                ltg,
                "tok/s",
                None,
                note.clone(),
            ));
            rows.push(row(
                "generation speed vs llama.cpp",
                100.0 * tg_tps / ltg,
                "%",
                Some(">= 50 %"),
                note.clone(),
            ));
            rows.push(row(
                "prompt speed vs llama.cpp",
                100.0 * pp_tps / lpp,
                "%",
                None,
                note,
            ));
        }
        Err(e) => note_out(&format!("llama.cpp comparison skipped: {e:#}")),
    }
    Ok(rows)
}

/// The same measurement with llama-cpp-python (`$RLMKG_LLAMA_PYTHON`, default `python3`).
fn llama_cpp(
    path: &Path,
    prompt: &[u32],
    tg: usize,
    threads: usize,
    work: &Path,
) -> anyhow::Result<(f64, f64)> {
    let python = std::env::var("RLMKG_LLAMA_PYTHON").unwrap_or_else(|_| "python3".into());
    let script = work.join("llama_cpp_bench.py");
    std::fs::write(&script, LLAMA_SCRIPT)?;
    let ids = prompt
        .iter()
        .map(u32::to_string)
        .collect::<Vec<_>>()
        .join(",");
    let out = Command::new(&python)
        .arg(&script)
        .arg(path)
        .arg(ids)
        .arg(tg.to_string())
        .arg(threads.to_string())
        .output()
        .with_context(|| format!("running {python}"))?;
    if !out.status.success() {
        anyhow::bail!(
            "{python} could not run llama_cpp: {}",
            String::from_utf8_lossy(&out.stderr)
                .lines()
                .last()
                .unwrap_or("")
        );
    }
    let text = String::from_utf8_lossy(&out.stdout);
    let v: serde_json::Value =
        serde_json::from_str(text.trim()).context("llama_cpp bench output")?;
    let pp = v["pp"].as_f64().context("pp missing")?;
    let tg = v["tg"].as_f64().context("tg missing")?;
    Ok((pp, tg))
}

const LLAMA_SCRIPT: &str = r#"
import json, sys, time
from llama_cpp import Llama
path, ids, tg, threads = sys.argv[1], [int(x) for x in sys.argv[2].split(",")], int(sys.argv[3]), int(sys.argv[4])
# n_batch bounds the rows of `scores` when logits_all is off: keep it >= every token evaluated.
llm = Llama(model_path=path, n_ctx=2048, n_threads=threads, n_threads_batch=threads, n_batch=2048, n_ubatch=512, verbose=False)
llm.eval(ids[:8]); llm.reset()
t = time.perf_counter(); llm.eval(ids); pp = len(ids) / (time.perf_counter() - t)
tok = int(llm.scores[llm.n_tokens - 1].argmax())
t = time.perf_counter()
for _ in range(tg):
    llm.eval([tok]); tok = int(llm.scores[llm.n_tokens - 1].argmax())
tgs = tg / (time.perf_counter() - t)
print(json.dumps({"pp": pp, "tg": tgs}))
"#;
