//! `rlmkg ask`: answer a question with citations and verdicts (SPEC §5, §7.3, §8).

use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;

use anyhow::Context as _;
use clap::Args;

use crate::cli::{GlobalArgs, exit};
use crate::cmd::ExitError;
use rlmkg::{AskError, AskOptions, Method, Strategy};
use rlmkg_settings::ModelArgs;

/// What to do about [`AskError::NoRootModel`] on the command line.
pub(crate) const NO_ROOT_ADVICE: &str =
    "pass --base-url and --model, or --model-path with --embedded-root";

/// Arguments of `rlmkg ask`.
#[derive(Debug, Args)]
pub struct AskArgs {
    /// The question.
    pub question: String,
    /// Strategy: the RLM, the built-in heuristic, or auto (RLM when a root model is
    /// configured) [possible values: auto, rlm, heuristic].
    #[arg(long, default_value_t = Strategy::Auto)]
    pub strategy: Strategy,
    /// Give the root model one repair turn for failing claims; exit 1 if claims still fail.
    #[arg(long)]
    pub strict: bool,
    /// Write the trajectory here (default: inside the store).
    #[arg(long)]
    pub trace: Option<PathBuf>,
    /// Model and run settings.
    #[command(flatten)]
    pub model: ModelArgs,
}

/// Run `rlmkg ask`.
pub fn run(args: AskArgs, global: &GlobalArgs) -> anyhow::Result<u8> {
    let mut stdout = crate::out::stdout();
    if args.question.trim().is_empty() {
        anyhow::bail!("the question is empty");
    }
    let mut store = crate::cmd::ingest::open_read(global)?;
    let settings = crate::cmd::settings(&args.model, &global.store)?;
    if let Some(e) = crate::cmd::sparql::endpoint_of(&settings)? {
        store.set_sparql_remote(Some(std::sync::Arc::new(e)));
    }
    let backends = rlmkg_settings::build_backends(&settings)
        .map_err(|e| ExitError::backend(crate::out::error_chain(&e)))?;
    let trace = args
        .trace
        .clone()
        .or_else(|| default_trace_path(&global.store));
    let rlm = rlmkg_settings::rlm_config(&settings, &global.store, trace)?;
    if global.verbose > 0 {
        eprintln!("models: {}", backends.description);
    }
    let models = backends.models;
    let opts = AskOptions {
        strategy: args.strategy,
        rlm,
        strict: args.strict,
        ..Default::default()
    };

    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("starting the async runtime")?;
    let quiet = global.quiet;
    let mut note = move |msg: &str| {
        if !quiet {
            eprintln!("note: {msg}");
        }
    };
    let answer = runtime
        .block_on(rlmkg::ask(
            Arc::new(store),
            &args.question,
            &models,
            &opts,
            &mut note,
        ))
        .map_err(|e| match e {
            AskError::NoRootModel => ExitError::backend(format!("{e}: {NO_ROOT_ADVICE}")),
            AskError::Model(_) | AskError::Rlm(_) => ExitError::backend(e.to_string()),
            other => anyhow::Error::new(other),
        })?;

    if global.json {
        let out = crate::json::Answer::from(&answer);
        writeln!(stdout, "{}", serde_json::to_string_pretty(&out)?)?;
    } else {
        match &answer.short_answer {
            Some(short) => writeln!(
                stdout,
                "Short answer: {}\n{}\n",
                short.text,
                answer.answer_check.describe()
            )?,
            None if answer.text.trim().is_empty() => writeln!(
                stdout,
                "Not found: the corpus has no evidence for this question."
            )?,
            None => writeln!(
                stdout,
                "Not found: no evidence names {} for this question. Closest evidence (not an answer):\n",
                answer.answer_type.describe()
            )?,
        }
        if answer.method == Method::Extractive && !answer.text.trim().is_empty() {
            writeln!(
                stdout,
                "Extractive answer (no model composed it; the short answer and the evidence sentences):\n"
            )?;
        }
        write!(
            stdout,
            "{}",
            rlmkg_citation::render_text(&answer.verification)
        )?;
        if !global.quiet {
            if let Some(t) = &answer.trajectory {
                eprintln!("trajectory: {}", t.display());
            }
            eprintln!(
                "{} calls, {} tokens; {}",
                answer.usage.calls,
                answer.usage.tokens(),
                answer.stop_reason
            );
        }
    }
    if answer.method == Method::Rlm && answer.text.trim().is_empty() {
        return Err(ExitError::backend(format!(
            "the run ended without an answer: {}",
            answer.stop_reason
        )));
    }
    // A "not found" is never verified, so --strict exits 1 for it too.
    if args.strict && !answer.verified {
        return Ok(exit::VERIFY_FAILED);
    }
    Ok(exit::OK)
}

/// `<store>/traces/<timestamp>.jsonl`.
fn default_trace_path(store: &std::path::Path) -> Option<PathBuf> {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .ok()?;
    Some(store.join("traces").join(format!(
        "ask-{}-{}.jsonl",
        secs.as_secs(),
        std::process::id()
    )))
}
