//! `rlmkg trace show|export`: read trajectories (SPEC §5.3.6).
//!
//! `show` renders a readable timeline of one run. `export --format chat` writes one
//! chat-message JSONL sample per run whose answer passed verification: the system
//! prompt, the metadata message, then the model's replies and the REPL feedback in
//! turn order — the format used for rejection-sampling fine-tuning of recursive
//! models.

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};

use anyhow::Context as _;
use clap::{Args, Subcommand, ValueEnum};
use rlm_core::trajectory::{TraceIteration, Trajectory};
use serde_json::{Value, json};

use crate::cli::{GlobalArgs, exit};

/// Arguments of `rlmkg trace`.
#[derive(Debug, Args)]
pub struct TraceArgs {
    /// What to do.
    #[command(subcommand)]
    pub action: TraceAction,
}

/// `trace` subcommands.
#[derive(Debug, Subcommand)]
pub enum TraceAction {
    /// Show a trajectory as a timeline (default: the newest in the store).
    Show {
        /// A trajectory file.
        file: Option<PathBuf>,
        /// Show whole replies, code and outputs instead of excerpts.
        #[arg(long)]
        full: bool,
    },
    /// Export verified runs as training samples.
    Export {
        /// Output format.
        #[arg(long, value_enum, default_value_t = ExportFormat::Chat)]
        format: ExportFormat,
        /// Trajectory files or folders (default: the store's traces).
        paths: Vec<PathBuf>,
        /// Write here instead of stdout.
        #[arg(long, short)]
        output: Option<PathBuf>,
        /// Include runs whose answers did not pass verification.
        #[arg(long)]
        include_unverified: bool,
    },
}

/// Export formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ExportFormat {
    /// `{"messages": [{"role", "content"}…]}` per line.
    Chat,
}

/// Run `rlmkg trace`.
pub fn run(args: TraceArgs, global: &GlobalArgs) -> anyhow::Result<u8> {
    let mut stdout = crate::out::stdout();
    match args.action {
        TraceAction::Show { file, full } => {
            let path = match file {
                Some(f) => f,
                None => newest_trace(&global.store.join("traces"))?,
            };
            let t = Trajectory::read(&path)
                .with_context(|| format!("reading trajectory {}", path.display()))?;
            if global.json {
                let out = crate::json::Trace::from(&t);
                writeln!(stdout, "{}", serde_json::to_string_pretty(&out)?)?;
            } else {
                write!(stdout, "{}", render(&t, &path, full))?;
            }
            Ok(exit::OK)
        }
        TraceAction::Export {
            format: ExportFormat::Chat,
            paths,
            output,
            include_unverified,
        } => {
            let paths = if paths.is_empty() {
                vec![global.store.join("traces")]
            } else {
                paths
            };
            let files = trace_files(&paths)?;
            let mut out: Box<dyn std::io::Write> = match &output {
                Some(p) => Box::new(std::io::BufWriter::new(
                    std::fs::File::create(p)
                        .with_context(|| format!("creating {}", p.display()))?,
                )),
                None => Box::new(crate::out::stdout()),
            };
            let (mut written, mut skipped) = (0usize, 0usize);
            for f in &files {
                let t = match Trajectory::read(f) {
                    Ok(t) => t,
                    Err(e) => {
                        eprintln!("warning: skipping {}: {e}", f.display());
                        skipped += 1;
                        continue;
                    }
                };
                match chat_sample(&t, include_unverified) {
                    Some(sample) => {
                        writeln!(out, "{}", serde_json::to_string(&sample)?)?;
                        written += 1;
                    }
                    None => skipped += 1,
                }
            }
            out.flush()?;
            if !global.quiet {
                eprintln!(
                    "exported {written} sample(s) from {} trajectory file(s); {skipped} skipped (unverified, unfinished or unreadable)",
                    files.len()
                );
            }
            Ok(exit::OK)
        }
    }
}

fn newest_trace(dir: &Path) -> anyhow::Result<PathBuf> {
    let files = trace_files(&[dir.to_path_buf()])?;
    files
        .into_iter()
        .max_by_key(|p| std::fs::metadata(p).and_then(|m| m.modified()).ok())
        .with_context(|| {
            format!(
                "no trajectories in {}; run `rlmkg ask` first",
                dir.display()
            )
        })
}

/// `.jsonl` files given directly or inside the given folders, sorted.
fn trace_files(paths: &[PathBuf]) -> anyhow::Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    for p in paths {
        if p.is_dir() {
            for entry in std::fs::read_dir(p).with_context(|| format!("reading {}", p.display()))? {
                let path = entry?.path();
                if path.extension().is_some_and(|e| e == "jsonl") {
                    files.push(path);
                }
            }
        } else if p.exists() {
            files.push(p.clone());
        } else {
            anyhow::bail!("{} does not exist", p.display());
        }
    }
    files.sort();
    Ok(files)
}

/// Whether the attached verification says every factual claim is supported.
fn verified(verification: &Value) -> bool {
    let Some(claims) = verification.get("claims").and_then(Value::as_array) else {
        return false;
    };
    let verdicts: Vec<&str> = claims
        .iter()
        .filter_map(|c| c.get("verdict").and_then(Value::as_str))
        .collect();
    verdicts.contains(&"supported")
        && verdicts
            .iter()
            .all(|v| matches!(*v, "supported" | "exempt"))
}

/// One chat sample, or `None` when the run is unfinished or (unless asked) unverified.
fn chat_sample(t: &Trajectory, include_unverified: bool) -> Option<Value> {
    let header = t.header.as_ref()?;
    let fin = t.final_line.as_ref()?;
    fin.answer.as_ref()?;
    let ok = verified(&fin.verification);
    if !ok && !include_unverified {
        return None;
    }
    let mut messages = vec![
        json!({"role": "system", "content": header.system_prompt}),
        json!({"role": "user", "content": header.metadata_message}),
    ];
    for it in t.iterations.iter().filter(|it| it.depth == 0) {
        messages.push(json!({"role": "assistant", "content": it.reply}));
        if !it.feedback.is_empty() {
            messages.push(json!({"role": "user", "content": it.feedback}));
        }
    }
    Some(json!({
        "messages": messages,
        "meta": {
            "run_id": header.run_id,
            "question": header.question,
            "root_model": header.root_model,
            "answer": fin.answer,
            "verified": ok,
        }
    }))
}

fn excerpt(text: &str, full: bool, max: usize) -> String {
    let text = text.trim();
    if full || text.chars().count() <= max {
        return text.to_owned();
    }
    let head: String = text.chars().take(max).collect();
    format!("{head}… [{} more chars]", text.chars().count() - max)
}

fn indent(text: &str, pad: &str) -> String {
    text.lines().map(|l| format!("{pad}{l}\n")).collect()
}

/// The readable timeline.
fn render(t: &Trajectory, path: &Path, full: bool) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "trajectory {}", path.display());
    if let Some(h) = &t.header {
        let _ = writeln!(s, "question: {}", h.question);
        let _ = writeln!(
            s,
            "run {} · profile {} · root {} · sub {}",
            h.run_id, h.profile, h.root_model, h.sub_model
        );
    }
    for it in &t.iterations {
        render_iteration(&mut s, it, full, "");
    }
    match &t.final_line {
        Some(f) => {
            let _ = writeln!(s, "\n== end: {:?} — {}", f.ending, f.stop_reason);
            if let Some(a) = &f.answer {
                let _ = writeln!(s, "answer:\n{}", indent(a, "  ").trim_end());
            }
            if let Some(totals) = f.verification.get("totals") {
                let _ = writeln!(s, "verification: {}", totals);
            }
            let tt = &f.totals;
            let _ = writeln!(
                s,
                "totals: {} iterations, {} calls ({} cached, {} sub-calls), {} prompt + {} completion tokens, {:.2}s, cost {:.4}",
                tt.iterations,
                tt.calls,
                tt.cached_calls,
                tt.sub_calls,
                tt.prompt_tokens,
                tt.completion_tokens,
                tt.seconds,
                tt.cost
            );
        }
        None => {
            let _ = writeln!(s, "\n== the run did not finish (no final line)");
        }
    }
    s
}

fn render_iteration(s: &mut String, it: &TraceIteration, full: bool, pad: &str) {
    let _ = writeln!(
        s,
        "\n{pad}-- turn {} (depth {}) · {} ms · {}+{} tokens{}{}",
        it.iteration,
        it.depth,
        it.latency_ms,
        it.usage.prompt_tokens,
        it.usage.completion_tokens,
        if it.cached { " · cached" } else { "" },
        it.server
            .as_ref()
            .map(|u| format!(" · {u}"))
            .unwrap_or_default()
    );
    if let Some(r) = &it.reasoning {
        let _ = writeln!(
            s,
            "{pad}  thinking: {}",
            excerpt(r, full, 160).replace('\n', " ")
        );
    }
    let _ = write!(
        s,
        "{}",
        indent(&excerpt(&it.reply, full, 400), &format!("{pad}  > "))
    );
    for (i, b) in it.blocks.iter().enumerate() {
        let _ = writeln!(s, "{pad}  [block {}] {} ms", i + 1, b.elapsed_ms);
        let _ = write!(
            s,
            "{}",
            indent(&excerpt(&b.code, full, 600), &format!("{pad}    | "))
        );
        if !b.output.trim().is_empty() {
            let _ = write!(
                s,
                "{}",
                indent(&excerpt(&b.output, full, 400), &format!("{pad}    = "))
            );
        }
        if let Some(e) = &b.error {
            let _ = writeln!(s, "{pad}    ! {}", excerpt(e, full, 300).replace('\n', " "));
        }
        if let Some(l) = &b.limit {
            let _ = writeln!(s, "{pad}    ! limit: {l:?}");
        }
    }
    for c in &it.sub_calls {
        let _ = writeln!(
            s,
            "{pad}  {} → {} · {} chars · {}+{} tokens · {} ms{}{}{}",
            c.kind,
            // A pool's call names the server that answered it.
            c.server.as_ref().unwrap_or(&c.model),
            c.prompt_chars,
            c.usage.prompt_tokens,
            c.usage.completion_tokens,
            c.latency_ms,
            if c.cached { " · cached" } else { "" },
            if c.retries > 0 {
                format!(" · {} retries", c.retries)
            } else {
                String::new()
            },
            c.error
                .as_ref()
                .map(|e| format!(" · error: {e}"))
                .unwrap_or_default()
        );
        for child in &c.child {
            render_iteration(s, child, full, &format!("{pad}    "));
        }
    }
    for e in &it.events {
        let _ = writeln!(s, "{pad}  * {}: {}", e.kind, e.message);
    }
}
