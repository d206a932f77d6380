//! `rlmkg eval`: score answers and retrieval on a multi-hop QA dataset (SPEC §9).
//!
//! The dataset is converted, its pooled corpus written once to `OUT/corpus.json`
//! and ingested into `OUT/store` (incremental: a rerun skips it), then each
//! question is scored and appended to `OUT/results-<mode>.jsonl`. A rerun skips
//! the ids already in that file, so a killed evaluation continues where it stopped.
//!
//! Without `--retrieval-only` each question is also answered by the `ask` engine
//! (strategy and models as for `rlmkg ask`); the strategy and models are recorded
//! in `OUT/run-config.json` and a resumed run must match them. RLM trajectories go
//! to `OUT/traces/<question id>.jsonl`.
//!
//! A WiCE file (claims with cited pages and human labels) is scored by the
//! citation checker instead (`eval_wice`; `--judge` adds the model judge).

use std::collections::HashSet;
use std::fs::{self, File, OpenOptions};
use std::io::{BufRead, BufReader, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Context, bail};
use clap::Args;

use super::eval_wice::{self, WiceArgs};
use crate::cli::GlobalArgs;
use crate::cmd::ExitError;
use rlmkg::{AskError, AskOptions, Models, Strategy};
use rlmkg_eval::dataset::{self, DatasetError, DatasetFormat};
use rlmkg_eval::runner::{AskRunner, RunConfig};
use rlmkg_eval::score::{
    GoldResolver, QuestionRecord, QuestionRunner, RecallAtK, Summary, evaluate_question,
};
use rlmkg_eval::store::{Dense, open_and_ingest_with};
use rlmkg_settings::ModelArgs;

/// Arguments of `rlmkg eval`.
#[derive(Debug, Args)]
pub struct EvalArgs {
    /// The dataset: HotpotQA or MuSiQue (JSON array or JSONL), plain JSONL
    /// `{question, answer, answer_aliases?, gold_titles}` (then pass `--corpus`),
    /// or WiCE claims (scores the citation checker against human labels).
    pub dataset: PathBuf,
    /// The dataset shape (default: detected from the first record) [possible
    /// values: hotpotqa, musique, jsonl, wice].
    #[arg(long)]
    pub format: Option<DatasetFormat>,
    /// Files or directories to ingest as the corpus instead of the dataset's pooled
    /// passages (required for plain JSONL; gold titles then match document titles,
    /// file names or `file#record`).
    #[arg(long, value_name = "PATH")]
    pub corpus: Vec<PathBuf>,
    /// Working directory for the pooled corpus, the store and the per-question
    /// results [default: eval-<dataset file stem>].
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Evaluate only the first N questions.
    #[arg(long, value_name = "N")]
    pub limit: Option<usize>,
    /// Rank passages only (search and graph `related`); needs no model.
    #[arg(long)]
    pub retrieval_only: bool,
    /// How searches rank: bm25, dense or hybrid (dense and hybrid ingest the
    /// corpus with vectors) [default: hybrid when the store keeps vectors, else bm25].
    #[arg(long, value_name = "bm25|dense|hybrid")]
    pub mode: Option<rlmkg::SearchMode>,
    /// Ingest the corpus with a vector per chunk (the installed sentence encoder).
    #[arg(long)]
    pub embed: bool,
    /// Discard earlier per-question results in the working directory and start over.
    #[arg(long)]
    pub fresh: bool,
    /// Answer strategy: the RLM, the built-in heuristic, or auto (RLM when a root
    /// model is configured) [default: auto].
    #[arg(long, conflicts_with = "retrieval_only")]
    pub strategy: Option<Strategy>,
    /// WiCE only: ask the configured model about the clauses the lexical checker
    /// leaves `partial` (cached like other calls), and report both figures.
    #[arg(long)]
    pub judge: bool,
    /// Model and run settings (as for `rlmkg ask`; `rlmkg.toml` is read from the
    /// evaluation store `OUT/store`).
    #[command(flatten)]
    pub model: ModelArgs,
}

/// An answer run ready to go: the models and options, and their description.
struct AnswerSetup {
    models: Models,
    opts: AskOptions,
    config: RunConfig,
}

/// Resolve settings and build the models before anything slow happens.
fn answer_setup(args: &EvalArgs, store_dir: &Path, quiet: bool) -> anyhow::Result<AnswerSetup> {
    let settings = crate::cmd::settings(&args.model, store_dir)?;
    let backends = rlmkg_settings::build_backends(&settings)
        .map_err(|e| ExitError::backend(crate::out::error_chain(&e)))?;
    let asked = args.strategy.unwrap_or_default();
    let strategy = match (asked, &backends.models.root) {
        (Strategy::Rlm, None) => {
            return Err(ExitError::backend(format!(
                "{}: {}",
                AskError::NoRootModel,
                crate::cmd::ask::NO_ROOT_ADVICE
            )));
        }
        (Strategy::Auto, None) => {
            if !quiet {
                let how = if backends.models.sub.is_some() {
                    "evidence composed by the sub-model"
                } else {
                    "extractive answers, so expect low EM"
                };
                eprintln!(
                    "note: no root model configured: answering with the heuristic strategy ({how})"
                );
            }
            Strategy::Heuristic
        }
        (Strategy::Auto, Some(_)) => Strategy::Rlm,
        (s, _) => s,
    };
    let models = backends.models;
    let config = RunConfig::describe(
        rlmkg::named::Named::name(asked),
        rlmkg::named::Named::name(strategy),
        &models,
        &|k: &str| settings.get(k).map(str::to_owned),
    );
    let opts = AskOptions {
        strategy,
        rlm: rlmkg_settings::rlm_config(&settings, store_dir, None)?,
        ..Default::default()
    };
    Ok(AnswerSetup {
        models,
        opts,
        config,
    })
}

/// Check a resumed run against `OUT/run-config.json`, or record the configuration
/// when the results file is empty.
fn check_run_config(
    path: &Path,
    config: &RunConfig,
    has_results: bool,
    results: &Path,
) -> anyhow::Result<()> {
    if has_results {
        let old: Option<RunConfig> = fs::read(path)
            .ok()
            .and_then(|b| serde_json::from_slice(&b).ok());
        match old {
            Some(old) if old.same_run(config) => return Ok(()),
            Some(old) => bail!(
                "{} holds answers of another run configuration:\n  earlier: {}\n  now:     {}\n\
                 rerun with the same strategy and models to resume, pass --fresh to discard those \
                 answers, or use another --out",
                results.display(),
                old.summary(),
                config.summary()
            ),
            None => bail!(
                "{} holds answers but {} is missing or unreadable, so they cannot be matched \
                 with this run; pass --fresh to discard them, or use another --out",
                results.display(),
                path.display()
            ),
        }
    }
    let mut json = serde_json::to_string_pretty(config).context("cannot serialize the run")?;
    json.push('\n');
    fs::write(path, json).with_context(|| format!("cannot write {}", path.display()))
}

/// The working directory: `--out`, else `eval-<dataset file stem>`.
fn out_dir(args: &EvalArgs) -> PathBuf {
    args.out.clone().unwrap_or_else(|| {
        let stem = args
            .dataset
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| "dataset".into());
        PathBuf::from(format!("eval-{stem}"))
    })
}

/// What `--json` prints (the run and the summary through the output types
/// of [`crate::json`]).
#[derive(Debug, serde::Serialize)]
struct Report<'a> {
    dataset: &'a Path,
    format: DatasetFormat,
    mode: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    run: Option<crate::json::RunConfig<'a>>,
    store: &'a Path,
    results: &'a Path,
    documents: usize,
    resumed: usize,
    new: usize,
    summary: crate::json::EvalSummary<'a>,
}

/// Run `rlmkg eval`.
pub fn run(args: EvalArgs, global: &GlobalArgs) -> anyhow::Result<u8> {
    let started = Instant::now();
    let loaded = dataset::load(&args.dataset, args.format)
        .with_context(|| format!("cannot read {}", args.dataset.display()))?;
    if matches!(loaded, Err(DatasetError::NotQuestions)) {
        let wice_args = WiceArgs {
            dataset: &args.dataset,
            out: out_dir(&args),
            limit: args.limit,
            judge: args.judge,
            model: &args.model,
        };
        return eval_wice::run(&wice_args, global);
    }
    let (format, ds) = match loaded {
        Err(e @ DatasetError::UnknownFormat(_)) => {
            bail!(
                "cannot convert {}: {e}; pass --format",
                args.dataset.display()
            )
        }
        r => r.with_context(|| format!("cannot convert {}", args.dataset.display()))?,
    };
    if args.judge {
        bail!(
            "--judge scores the citation checker on a WiCE file; use --strategy and model flags for QA runs"
        );
    }
    if format == DatasetFormat::Jsonl && args.corpus.is_empty() {
        bail!(
            "a plain JSONL dataset has no passages of its own: pass the documents with --corpus PATH"
        );
    }
    let mode = if args.retrieval_only {
        "retrieval"
    } else {
        "run"
    };
    let out = out_dir(&args);
    fs::create_dir_all(&out).with_context(|| format!("cannot create {}", out.display()))?;
    let store_dir = out.join("store");
    let setup = if args.retrieval_only {
        None
    } else {
        Some(answer_setup(&args, &store_dir, global.quiet)?)
    };

    // The corpus: the pooled passages, written once (unchanged bytes keep the store's hash).
    let inputs: Vec<PathBuf> = if args.corpus.is_empty() {
        let path = out.join("corpus.json");
        let json = ds
            .corpus_json()
            .context("cannot serialize the pooled corpus")?;
        let same = fs::read(&path).is_ok_and(|old| old == json.as_bytes());
        if !same {
            fs::write(&path, json.as_bytes())
                .with_context(|| format!("cannot write {}", path.display()))?;
        }
        vec![path]
    } else {
        args.corpus.clone()
    };
    if !global.quiet {
        let what = if args.corpus.is_empty() {
            format!("{} pooled passages", ds.passages.len())
        } else {
            "the corpus".into()
        };
        eprintln!(
            "eval: {} {format} questions; ingesting {what} into {}",
            ds.questions.len(),
            store_dir.display()
        );
    }
    let progress = crate::out::IngestProgress::new(false, global.quiet);
    let wants_vectors = args.embed || args.mode.is_some_and(|m| m != rlmkg::SearchMode::Bm25);
    let embedder = if wants_vectors {
        Some(rlmkg::installed_embedder().context(
            "dense retrieval needs the sentence encoder: run `rlmkg model pull encoder`",
        )?)
    } else {
        None
    };
    let dense = Dense {
        embedder,
        mode: args.mode,
    };
    let store = open_and_ingest_with(&store_dir, &inputs, &progress, &dense)?;
    let search_mode = store.store().search_mode();
    if search_mode != rlmkg::SearchMode::Bm25
        && let Some(off) = store.store().dense_off()
    {
        bail!("--mode {search_mode}: {off}");
    }
    if !global.quiet {
        if let Some(off) = store.store().dense_off() {
            eprintln!("note: {off}");
        }
        eprintln!("eval: searches rank by {search_mode}");
    }
    let documents = store.document_count()?;
    let traces = out.join("traces");
    let (runner, run_config): (Option<Box<dyn QuestionRunner>>, Option<RunConfig>) = match setup {
        None => (None, None),
        Some(s) => (
            Some(Box::new(AskRunner::new(
                store.store(),
                s.models,
                s.opts,
                Some(traces.clone()),
            )?)),
            Some(s.config),
        ),
    };

    // Resume.
    // Each search mode keeps its own results (BM25's under the old name).
    let results = match search_mode {
        rlmkg::SearchMode::Bm25 => out.join(format!("results-{mode}.jsonl")),
        m => out.join(format!("results-{mode}-{m}.jsonl")),
    };
    if args.fresh && results.exists() {
        fs::remove_file(&results)
            .with_context(|| format!("cannot remove {}", results.display()))?;
    }
    if args.fresh && runner.is_some() && traces.exists() {
        fs::remove_dir_all(&traces)
            .with_context(|| format!("cannot remove {}", traces.display()))?;
    }
    let (mut records, skipped_lines) = read_records(&results)?;
    if let Some(config) = &run_config {
        check_run_config(
            &out.join("run-config.json"),
            config,
            !records.is_empty(),
            &results,
        )?;
    }
    if skipped_lines > 0 && !global.quiet {
        eprintln!(
            "warning: {skipped_lines} unreadable line(s) in {} ignored (they will be redone)",
            results.display()
        );
    }
    let questions: Vec<_> = ds
        .questions
        .iter()
        .take(args.limit.unwrap_or(usize::MAX))
        .collect();
    let wanted: HashSet<&str> = questions.iter().map(|q| q.id.as_str()).collect();
    records.retain(|r| wanted.contains(r.id.as_str()));
    let done: HashSet<String> = records.iter().map(|r| r.id.clone()).collect();
    let todo: Vec<_> = questions.iter().filter(|q| !done.contains(&q.id)).collect();
    let resumed = records.len();

    let mut file = open_append(&results)?;
    let bar = crate::out::bar(
        todo.len() as u64,
        "{spinner} {pos}/{len} questions [{elapsed_precise}] {wide_bar} {msg}",
        global.quiet,
    );
    let resolver = GoldResolver::new(&ds);
    for q in &todo {
        bar.set_message(q.id.clone());
        let record = evaluate_question(q, &ds, &resolver, &store, runner.as_deref())
            .with_context(|| format!("question {}", q.id))?;
        let mut line = serde_json::to_string(&record).context("cannot serialize a result")?;
        line.push('\n');
        file.write_all(line.as_bytes())
            .and_then(|()| file.flush())
            .with_context(|| format!("cannot append to {}", results.display()))?;
        if global.verbose > 0
            && let Some(run) = &record.run
        {
            bar.suspend(|| {
                for n in &run.run.notes {
                    eprintln!("note ({}): {n}", q.id);
                }
                if let Some(e) = &run.run.error {
                    eprintln!("error ({}): {e}", q.id);
                }
            });
        }
        records.push(record);
        bar.inc(1);
    }
    bar.finish_and_clear();

    // Keep dataset order in the summary.
    let order: std::collections::HashMap<&str, usize> = questions
        .iter()
        .enumerate()
        .map(|(i, q)| (q.id.as_str(), i))
        .collect();
    records.sort_by_key(|r| order.get(r.id.as_str()).copied().unwrap_or(usize::MAX));
    let summary = Summary::of(&records);
    let mut stdout = crate::out::stdout();
    if global.json {
        let report = Report {
            dataset: &args.dataset,
            format,
            mode,
            run: run_config.as_ref().map(crate::json::RunConfig::from),
            store: &store_dir,
            results: &results,
            documents,
            resumed,
            new: todo.len(),
            summary: (&summary).into(),
        };
        serde_json::to_writer_pretty(&mut stdout, &report)?;
        writeln!(stdout)?;
    } else {
        write_table(&mut stdout, &summary, search_mode)?;
        write_kinds(&mut stdout, &summary, run_config.as_ref())?;
        if !global.quiet {
            eprintln!(
                "{} questions ({} new, {} resumed) over {documents} documents in {:.1} s; per-question results: {}",
                summary.questions,
                todo.len(),
                resumed,
                started.elapsed().as_secs_f64(),
                results.display()
            );
        }
    }
    Ok(crate::cli::exit::OK)
}

fn fmt_opt(v: Option<f64>) -> String {
    v.map_or_else(|| "-".into(), |v| format!("{v:.3}"))
}

fn recall_row(out: &mut dyn Write, name: &str, r: &RecallAtK) -> std::io::Result<()> {
    writeln!(
        out,
        "{name:<22} {:>6} {:>6} {:>6}",
        fmt_opt(r.r2),
        fmt_opt(r.r5),
        fmt_opt(r.r10)
    )
}

/// The human summary table.
fn write_table(out: &mut dyn Write, s: &Summary, search: rlmkg::SearchMode) -> std::io::Result<()> {
    writeln!(
        out,
        "{:<22} {:>6} {:>6} {:>6}",
        format!("recall ({} q)", s.questions),
        "@2",
        "@5",
        "@10"
    )?;
    recall_row(out, &format!("{search} search"), &s.bm25)?;
    recall_row(out, "graph related", &s.graph)?;
    if let Some(read) = &s.read {
        recall_row(out, "run read", read)?;
    }
    if s.graph_errors > 0 {
        writeln!(
            out,
            "graph ranking failed on {} question(s); see the per-question results",
            s.graph_errors
        )?;
    }
    if s.em.is_some() {
        writeln!(
            out,
            "short answer EM {}  F1 {}  gold contained {}  claims supported {}  not found {}",
            fmt_opt(s.em),
            fmt_opt(s.f1),
            fmt_opt(s.contains),
            fmt_opt(s.claims_supported),
            fmt_opt(s.not_found)
        )?;
        writeln!(
            out,
            "{:<20} {:>5} {:>6} {:>6} {:>8} {:>9} {:>7} {:>7} {:>9} {:>7} {:>7} {:>6} {:>7}",
            "method",
            "runs",
            "EM",
            "F1",
            "contains",
            "supported",
            "cit P",
            "cit R",
            "not found",
            "handle",
            "sub",
            "turns",
            "s/run"
        )?;
        for m in &s.by_method {
            writeln!(
                out,
                "{:<20} {:>5} {:>6.3} {:>6.3} {:>8.3} {:>9} {:>7} {:>7} {:>9.3} {:>7.1} {:>7.1} {:>6.1} {:>7.1}",
                m.method,
                m.runs,
                m.em,
                m.f1,
                m.contains,
                fmt_opt(m.claims_supported),
                fmt_opt(m.citation_precision),
                fmt_opt(m.citation_recall),
                m.not_found,
                m.handle_calls,
                m.sub_calls,
                m.turns,
                m.seconds
            )?;
        }
        if let Some(n) = s.run_errors.filter(|n| *n > 0) {
            writeln!(
                out,
                "the run failed on {n} question(s) (scored zero); see the per-question results"
            )?;
        }
        writeln!(
            out,
            "citations precision {}  recall {}",
            fmt_opt(s.citation_precision),
            fmt_opt(s.citation_recall)
        )?;
        writeln!(
            out,
            "calls {}  tokens {}  seconds {:.1}",
            s.calls, s.tokens, s.seconds
        )?;
    }
    Ok(())
}

/// How the runs ended per kind of question and over all, under the run's
/// label (`rlm`, `composed`, `heuristic`).
fn write_kinds(out: &mut dyn Write, s: &Summary, run: Option<&RunConfig>) -> std::io::Result<()> {
    if s.by_kind.is_empty() {
        return Ok(());
    }
    writeln!(
        out,
        "{:<20} {:>5} {:>6} {:>7} {:>9} {:>9} {:>10} {:>10} {:>7}",
        format!("by kind ({})", run.map_or("run", RunConfig::label)),
        "runs",
        "right",
        "wrong*",
        "verified",
        "verif+wr",
        "fell back",
        "not found",
        "failed"
    )?;
    for k in &s.by_kind {
        writeln!(
            out,
            "{:<20} {:>5} {:>6} {:>7} {:>9} {:>9} {:>10} {:>10} {:>7}",
            k.kind,
            k.questions,
            k.right,
            k.wrong_stood,
            k.verified,
            k.verified_wrong,
            format!("{} ({})", k.fell_back, k.fell_back_right),
            k.not_found,
            k.failed
        )?;
    }
    writeln!(
        out,
        "wrong* = wrong and standing as the strategy's answer; verif+wr = verified but wrong; fell back (right)"
    )
}

/// Records already written, and the number of lines that could not be read.
fn read_records(path: &Path) -> anyhow::Result<(Vec<QuestionRecord>, usize)> {
    let file = match File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok((Vec::new(), 0)),
        Err(e) => return Err(e).with_context(|| format!("cannot read {}", path.display())),
    };
    let mut records = Vec::new();
    let mut bad = 0;
    let mut seen = HashSet::new();
    for line in BufReader::new(file).lines() {
        let line = line.with_context(|| format!("cannot read {}", path.display()))?;
        if line.trim().is_empty() {
            continue;
        }
        match serde_json::from_str::<QuestionRecord>(&line) {
            Ok(r) => {
                if seen.insert(r.id.clone()) {
                    records.push(r);
                }
            }
            Err(_) => bad += 1,
        }
    }
    Ok((records, bad))
}

/// Open the results file for appending, first ending a line cut short by a kill.
fn open_append(path: &Path) -> anyhow::Result<File> {
    let mut file = OpenOptions::new()
        .create(true)
        .read(true)
        .append(true)
        .open(path)
        .with_context(|| format!("cannot open {}", path.display()))?;
    let len = file.metadata().map(|m| m.len()).unwrap_or(0);
    if len > 0 {
        let mut last = [0u8; 1];
        file.seek(SeekFrom::Start(len - 1))
            .and_then(|_| file.read_exact(&mut last))
            .with_context(|| format!("cannot read {}", path.display()))?;
        if last[0] != b'\n' {
            file.write_all(b"\n")
                .with_context(|| format!("cannot write {}", path.display()))?;
        }
    }
    Ok(file)
}
