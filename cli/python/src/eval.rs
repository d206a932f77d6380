//! `Store.eval`: the evaluation crate's scoring over this store, the way
//! `rlmkg eval` drives it (dataset conversion, the corpus brought up to date,
//! each question scored, the summary of the records), without its working
//! folder, resumption or printing.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use rlmkg::IngestOptions;
use rlmkg_eval::dataset::{self, DatasetError, DatasetFormat};
use rlmkg_eval::runner::AskRunner;
use rlmkg_eval::score::{GoldResolver, QuestionRunner, Summary, evaluate_question};
use rlmkg_eval::store::open_and_ingest;

use crate::convert::to_py;
use crate::errors::{self, EvalError};
use crate::models::RunSetup;
use crate::progress::{Callback, PyProgress};

/// What `Store.eval` was asked to do.
pub(crate) struct EvalArgs {
    /// The dataset file.
    pub dataset: PathBuf,
    /// Its format's name (`None`: detected).
    pub format: Option<String>,
    /// Files and folders to ingest as the corpus first.
    pub corpus: Vec<PathBuf>,
    /// Where a dataset's own passages are written before they are ingested.
    pub passages_file: Option<PathBuf>,
    /// Only the first questions.
    pub limit: Option<usize>,
    /// Answer runs (`None`: rank passages only).
    pub run: Option<RunSetup>,
    /// Where RLM trajectories go, one file per question.
    pub trajectories_dir: Option<PathBuf>,
    /// Progress: ingest events, then `question` (`id`, `done`, `total`).
    pub progress: Option<Arc<Callback>>,
}

/// The corpus inputs: `corpus`, else the dataset's own passages written to
/// `passages_file` (rewritten only when they changed, so a rerun skips
/// them), else nothing (plain JSONL over what the store holds).
fn inputs(args: &EvalArgs, ds: &dataset::Dataset) -> PyResult<Vec<PathBuf>> {
    if !args.corpus.is_empty() || ds.passages.is_empty() {
        return Ok(args.corpus.clone());
    }
    let Some(path) = &args.passages_file else {
        return Err(EvalError::new_err(format!(
            "{} carries its own passages: pass passages_file=PATH (they are written there and \
             ingested into this store) or corpus=[...]",
            args.dataset.display()
        )));
    };
    let json = ds
        .corpus_json()
        .map_err(|e| EvalError::new_err(format!("cannot serialize the pooled corpus: {e}")))?;
    let same = std::fs::read(path).is_ok_and(|old| old == json.as_bytes());
    if !same {
        std::fs::write(path, json.as_bytes())
            .map_err(|e| EvalError::new_err(format!("cannot write {}: {e}", path.display())))?;
    }
    Ok(vec![path.clone()])
}

/// Run an evaluation over the store in `dir` (read by `reader`, its last
/// commit) and return its summary as a dict. The caller reopens its reader
/// after it: the corpus may have changed the store.
pub(crate) fn run(
    py: Python<'_>,
    reader: Arc<rlmkg::Store>,
    dir: &Path,
    args: EvalArgs,
) -> PyResult<Py<PyAny>> {
    let format = args
        .format
        .as_deref()
        .map(str::parse::<DatasetFormat>)
        .transpose()
        .map_err(PyValueError::new_err)?;
    // The evaluation ingests with the default chunking settings: a store
    // built with others would be re-chunked, so it is refused instead.
    let recorded = &reader.manifest().settings;
    let differences = recorded.differences(&IngestOptions::default().settings());
    if !reader.manifest().files.is_empty() && !differences.is_empty() {
        return Err(EvalError::new_err(format!(
            "eval ingests with the default chunking settings, and this store was built with \
             others ({}): evaluate in a store of its own",
            differences.join(", ")
        )));
    }
    drop(reader);
    let dir = dir.to_path_buf();
    let progress = args.progress.clone();
    let summary = py.detach(|| -> PyResult<Summary> {
        let ds = match dataset::load(&args.dataset, format) {
            Err(e) => {
                return Err(EvalError::new_err(format!(
                    "cannot read {}: {e}",
                    args.dataset.display()
                )));
            }
            Ok(Err(e @ DatasetError::NotQuestions)) => {
                return Err(EvalError::new_err(format!(
                    "{}: {e}; score it with `rlmkg eval`",
                    args.dataset.display()
                )));
            }
            Ok(Err(e)) => {
                return Err(EvalError::new_err(format!(
                    "cannot convert {}: {e}",
                    args.dataset.display()
                )));
            }
            Ok(Ok((_, ds))) => ds,
        };
        let inputs = inputs(&args, &ds)?;
        let quiet = rlmkg::NoProgress;
        let reporter = args.progress.as_ref().map(|c| PyProgress(Arc::clone(c)));
        let reporter: &dyn rlmkg::Progress = match &reporter {
            Some(r) => r,
            None => &quiet,
        };
        let retrieval = open_and_ingest(&dir, &inputs, reporter).map_err(errors::eval)?;
        let runner = match args.run {
            None => None,
            Some(setup) => {
                let backends = setup.backends.build().map_err(errors::backend)?;
                Some(
                    AskRunner::new(
                        retrieval.store(),
                        backends.models,
                        setup.opts,
                        args.trajectories_dir.clone(),
                    )
                    .map_err(errors::eval)?,
                )
            }
        };
        let runner = runner.as_ref().map(|r| r as &dyn QuestionRunner);
        let resolver = GoldResolver::new(&ds);
        let questions: Vec<_> = ds
            .questions
            .iter()
            .take(args.limit.unwrap_or(usize::MAX))
            .collect();
        let mut records = Vec::with_capacity(questions.len());
        for (i, q) in questions.iter().enumerate() {
            let record = evaluate_question(q, &ds, &resolver, &retrieval, runner)
                .map_err(|e| EvalError::new_err(format!("question {}: {e}", q.id)))?;
            records.push(record);
            if let Some(c) = &args.progress {
                c.send("question", |d| {
                    d.set_item("id", &q.id)?;
                    d.set_item("done", i + 1)?;
                    d.set_item("total", questions.len())
                });
            }
        }
        Ok(Summary::of(&records))
    });
    let summary = summary?;
    if let Some(c) = &progress {
        c.raised()?;
    }
    to_py(py, &summary)
}
