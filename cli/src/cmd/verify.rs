//! `rlmkg verify FILE`: check the citations of an answer (from rlmkg or any other
//! system using the SPEC §7.1 syntax) against the store, print the answer with
//! footnotes and verdict marks, or the full report with `--json`.

use std::io::{Read as _, Write as _};
use std::path::{Path, PathBuf};

use anyhow::Context as _;
use clap::Args;
use rlm_core::{CallCache, ChatRequest, Message, ModelClient, Sampling};
use rlmkg_citation::{
    CheckOptions, Judge, JudgeAnswer, JudgeError, JudgeRequest, Report, check, parse_reply,
    render_answer, render_text,
};

use crate::cli::{GlobalArgs, exit};
use crate::cmd::ExitError;
use rlmkg_settings::ModelArgs;

/// Arguments of `rlmkg verify`.
#[derive(Debug, Args)]
pub struct VerifyArgs {
    /// The answer to check (`-` reads standard input).
    pub file: PathBuf,
    /// Exit with status 1 unless every factual claim is supported (and,
    /// with `--question`, the answer check finds that it answers it).
    #[arg(long)]
    pub strict: bool,
    /// The question the answer answers: also check the answer as an answer
    /// to it (a chain of cited facts from the question to the short answer
    /// the answer opens with), shown first.
    #[arg(long)]
    pub question: Option<String>,
    /// Ask the configured model about claims the lexical check leaves `partial` (cached).
    #[arg(long)]
    pub judge: bool,
    /// Score at or above which a claim without problems is `supported`.
    #[arg(long, default_value_t = CheckOptions::default().support_threshold)]
    pub support_threshold: f64,
    /// Score below which a claim is `unsupported`.
    #[arg(long, default_value_t = CheckOptions::default().partial_threshold)]
    pub partial_threshold: f64,
    /// Model settings (used with `--judge`).
    #[command(flatten)]
    pub model: ModelArgs,
}

/// Run `rlmkg verify`.
pub fn run(args: VerifyArgs, global: &GlobalArgs) -> anyhow::Result<u8> {
    let answer = read_answer(&args.file)?;
    let store = std::sync::Arc::new(crate::cmd::ingest::open_read(global)?);
    let spans = rlmkg::StoreSpans::new(std::sync::Arc::clone(&store));
    let opts = CheckOptions {
        support_threshold: args.support_threshold,
        partial_threshold: args.partial_threshold,
        ..CheckOptions::default()
    };
    let mut report = check(&answer, &spans, &opts).context("resolving citations in the store")?;
    if args.judge {
        judge(&mut report, &args.model, &global.store, global.quiet)?;
    }
    let answers = match &args.question {
        None => {
            print_report(&report, global)?;
            true
        }
        Some(question) => {
            let question = rlmkg::Question::read(question);
            let short = rlmkg::opening_answer(&report);
            let checked = rlmkg::check_answer(&store, &question, short.as_deref(), &report)
                .context("reading the facts the answer cites")?;
            print_checked(&report, &checked, global)?;
            checked.answers()
        }
    };
    Ok(if args.strict && (!report.all_supported() || !answers) {
        exit::VERIFY_FAILED
    } else {
        exit::OK
    })
}

/// Print a report the way `verify` and `ask` do: JSON with `--json`, the answer
/// with marks only with `--quiet`, else the full text report.
pub fn print_report(report: &Report, global: &GlobalArgs) -> std::io::Result<()> {
    let text = if global.json {
        format!(
            "{}\n",
            serde_json::to_string_pretty(&crate::json::Report::from(report))?
        )
    } else if global.quiet {
        format!("{}\n", render_answer(report))
    } else {
        render_text(report)
    };
    let mut out = crate::out::stdout();
    out.write_all(text.as_bytes())?;
    out.flush()
}

/// Print the answer check first, then the report: with `--json` one object
/// (`answer_check`, `report`).
fn print_checked(
    report: &Report,
    checked: &rlmkg::AnswerCheck,
    global: &GlobalArgs,
) -> std::io::Result<()> {
    let mut out = crate::out::stdout();
    if global.json {
        let both = crate::json::Checked {
            answer_check: checked.into(),
            report: report.into(),
        };
        writeln!(out, "{}", serde_json::to_string_pretty(&both)?)?;
        return out.flush();
    }
    writeln!(out, "{}\n", checked.describe())?;
    out.flush()?;
    drop(out);
    print_report(report, global)
}

fn read_answer(file: &Path) -> anyhow::Result<String> {
    if file.as_os_str() == "-" {
        let mut s = String::new();
        std::io::stdin()
            .read_to_string(&mut s)
            .context("reading the answer from standard input")?;
        return Ok(s);
    }
    std::fs::read_to_string(file).with_context(|| format!("reading the answer {}", file.display()))
}

/// Run the model judge over the report's `partial` claims.
fn judge(report: &mut Report, model: &ModelArgs, store: &Path, quiet: bool) -> anyhow::Result<()> {
    if report.judge_requests().is_empty() {
        return Ok(()); // nothing left partial: no model needed
    }
    let judge = model_judge(model, store)?;
    let n = report
        .judge_partials(&judge)
        .map_err(|e| ExitError::backend(e.to_string()))?;
    if !quiet {
        eprintln!("judge {}: {n} partial claim(s) reviewed", judge.id());
    }
    Ok(())
}

/// The judge over the configured model (sub-model first), its calls cached under
/// `STORE/cache/calls` unless `no_cache` is set.
pub(crate) fn model_judge(model: &ModelArgs, store: &Path) -> anyhow::Result<ModelJudge> {
    let settings = crate::cmd::settings(model, store)?;
    let backends = rlmkg_settings::build_backends(&settings)
        .map_err(|e| ExitError::backend(crate::out::error_chain(&e)))?;
    let Some(lm) = backends.models.sub.or(backends.models.root) else {
        return Err(ExitError::backend(
            "--judge needs a model: set --base-url and --model, or install one with `rlmkg model pull`",
        ));
    };
    let no_cache = settings.typed()?.no_cache.unwrap_or(false);
    let cache = (!no_cache).then(|| CallCache::new(store.join("cache").join("calls")));
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("starting the async runtime")?;
    Ok(ModelJudge {
        client: ModelClient::new(lm).with_cache(cache),
        runtime,
    })
}

/// The judge over a model client (cache, retries and accounting like every
/// other model call).
pub(crate) struct ModelJudge {
    client: ModelClient,
    runtime: tokio::runtime::Runtime,
}

impl Judge for ModelJudge {
    fn id(&self) -> String {
        self.client.id()
    }

    fn judge(&self, request: &JudgeRequest) -> Result<JudgeAnswer, JudgeError> {
        let (system, user) = request.prompt();
        let chat = ChatRequest {
            messages: vec![Message::system(system), Message::user(user)],
            sampling: Sampling {
                temperature: Some(0.0),
                max_tokens: Some(256),
                ..Sampling::default()
            },
            ..Default::default()
        };
        // A reply the judge cannot read is neither taken from the cache nor cached.
        let report = self.runtime.block_on(
            self.client
                .chat_accepting(&chat, |r| parse_reply(&r.content).is_some()),
        );
        let response = report.result.map_err(|e| JudgeError::new(e.to_string()))?;
        let verdict = parse_reply(&response.content).ok_or_else(|| {
            JudgeError::new(format!("unreadable judge reply: {:?}", response.content))
        })?;
        Ok(JudgeAnswer {
            verdict,
            cached: report.cached,
        })
    }
}
