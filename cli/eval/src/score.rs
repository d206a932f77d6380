//! Scoring one question: rank passages by BM25 and by the graph, optionally run
//! the question, and compare everything with the gold answer and passages.

use std::cell::RefCell;
use std::collections::HashMap;
use std::time::Instant;

use serde::{Deserialize, Serialize};

use crate::dataset::{Dataset, EvalQuestion, GoldRef};
use crate::metrics::{best_em_f1, citation_precision_recall, recall_at_k};

/// The cut-offs reported for recall.
pub const RECALL_KS: [usize; 3] = [2, 5, 10];
/// How many distinct documents each ranking keeps.
pub const RANK_DEPTH: usize = 10;

/// A retrieved document (a passage of the pooled corpus after ingest).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RetrievedDoc {
    /// Store document id.
    pub id: String,
    /// Document title.
    pub title: String,
    /// Source path (for JSONL/JSON corpora, the file plus the record).
    pub path: String,
}

/// What the evaluator needs from a store. Implemented for `rlmkg_ingest::Store`;
/// tests can implement it over fixed rankings.
pub trait Retrieval {
    /// Up to `k` distinct documents ranked by plain BM25 search for `question`.
    fn bm25(&self, question: &str, k: usize) -> crate::Result<Vec<RetrievedDoc>>;
    /// Up to `k` distinct documents ranked by the graph (personalized PageRank from
    /// the question's entities and the query), with the seed entities used.
    fn graph(&self, question: &str, k: usize) -> crate::Result<(Vec<RetrievedDoc>, Vec<String>)>;
    /// The document holding a chunk or sentence id (`c12`, `c12.s3`, `c12.s2-s4`).
    fn doc_of(&self, id: &str) -> crate::Result<Option<RetrievedDoc>>;
    /// The full normalized text of a document.
    fn doc_text(&self, doc_id: &str) -> crate::Result<String>;
}

/// The record of one answered question, produced by the `ask` engine and scored here.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct QuestionRun {
    /// The final answer text (without citation markers).
    pub answer: String,
    /// The short answer the text opens with (SPEC §7.3); EM/F1 score it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub short_answer: Option<String>,
    /// The answer said "not found" (then EM/F1 score an empty answer).
    #[serde(default)]
    pub not_found: bool,
    /// The checker's claim support rate on the answer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub support_rate: Option<f64>,
    /// True when the answer is extractive (no model composed it).
    #[serde(default)]
    pub extractive: bool,
    /// What produced the answer (`rlm`, `heuristic_composed`, `extractive`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub method: Option<String>,
    /// Whether every factual claim of the answer verified against its citations.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verified: Option<bool>,
    /// The answer check's verdict (`answers`, `about_another`, `not_shown`)
    /// and its reason.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answer_check: Option<String>,
    /// Why the RLM run handed the question to the heuristic, when it did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fallback: Option<String>,
    /// Chunk or sentence ids the run read (`read`, `search` results shown in full, …), in order.
    #[serde(default)]
    pub read_ids: Vec<String>,
    /// Texts of the sentences the answer cites.
    #[serde(default)]
    pub cited_sentences: Vec<String>,
    /// Model calls (root and sub-calls).
    #[serde(default)]
    pub calls: u64,
    /// Handle calls of the root (search, read, map, …).
    #[serde(default)]
    pub handle_calls: u64,
    /// Sub-model calls from the root's code.
    #[serde(default)]
    pub sub_calls: u64,
    /// Root turns.
    #[serde(default)]
    pub turns: u32,
    /// Prompt tokens over all calls.
    #[serde(default)]
    pub input_tokens: u64,
    /// Completion tokens over all calls.
    #[serde(default)]
    pub output_tokens: u64,
    /// Wall time of the run.
    #[serde(default)]
    pub seconds: f64,
    /// Why the run failed, when it did (it then scores zero).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Remarks of the engine (fallbacks, rejected compositions), in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

/// Runs one question end to end (the `ask` engine plugs in here).
pub trait QuestionRunner {
    /// Answer `question` (dataset id `id`); errors are recorded in the run, not
    /// fatal to the evaluation.
    fn run(&self, id: &str, question: &str) -> crate::Result<QuestionRun>;
}

/// Recall at the cut-offs of [`RECALL_KS`]; `None` when the question has no gold passage.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct RecallAtK {
    /// Recall@2.
    #[serde(rename = "r@2")]
    pub r2: Option<f64>,
    /// Recall@5.
    #[serde(rename = "r@5")]
    pub r5: Option<f64>,
    /// Recall@10.
    #[serde(rename = "r@10")]
    pub r10: Option<f64>,
}

impl RecallAtK {
    /// Recall of a ranked list whose entries hold the gold positions they match.
    pub fn of(ranked: &[Vec<usize>], n_gold: usize) -> Self {
        Self {
            r2: recall_at_k(ranked, n_gold, RECALL_KS[0]),
            r5: recall_at_k(ranked, n_gold, RECALL_KS[1]),
            r10: recall_at_k(ranked, n_gold, RECALL_KS[2]),
        }
    }

    fn get(&self, i: usize) -> Option<f64> {
        [self.r2, self.r5, self.r10].get(i).copied().flatten()
    }
}

/// One ranking of a question and its recall.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Ranking {
    /// Titles of the ranked documents (distinct, best first).
    pub docs: Vec<String>,
    /// For each ranked document, the gold positions it matches.
    pub matches: Vec<Vec<usize>>,
    /// Recall at 2, 5 and 10.
    pub recall: RecallAtK,
    /// Seed entities used (graph ranking only).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub seeds: Vec<String>,
    /// Why the ranking failed, when it did (it then scores zero).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// A run with its scores.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RunScore {
    /// The run itself.
    pub run: QuestionRun,
    /// Exact match over the answer and its aliases.
    pub em: f64,
    /// Token F1 over the answer and its aliases.
    pub f1: f64,
    /// 1.0 when the gold answer (or an alias) appears in the full answer text.
    #[serde(default)]
    pub contains: f64,
    /// Supporting-passage recall of what the run read, in reading order.
    pub read_recall: RecallAtK,
    /// Supporting-passage recall of everything the run read.
    pub read_recall_all: Option<f64>,
    /// Citation precision against gold supporting sentences.
    pub citation_precision: Option<f64>,
    /// Citation recall against gold supporting sentences.
    pub citation_recall: Option<f64>,
}

/// The per-question JSONL record.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct QuestionRecord {
    /// Question id.
    pub id: String,
    /// The question.
    pub question: String,
    /// Acceptable answers.
    pub answers: Vec<String>,
    /// Gold supporting passages (titles or names).
    pub gold: Vec<String>,
    /// The question's kind, when the dataset gives one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    /// BM25 search ranking.
    pub bm25: Ranking,
    /// Graph (`related`) ranking.
    pub graph: Ranking,
    /// The run, unless `--retrieval-only`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run: Option<RunScore>,
    /// Wall time spent on this question.
    pub seconds: f64,
}

/// Decides which gold passages a retrieved document is.
pub struct GoldResolver<'a> {
    dataset: &'a Dataset,
    by_title: HashMap<String, Vec<usize>>,
    cache: RefCell<HashMap<String, Option<usize>>>,
}

fn squash(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn basename(path: &str) -> &str {
    path.rsplit(['/', '\\']).next().unwrap_or(path)
}

/// Whether a document is the one a gold name designates: same title (ignoring
/// case), same file name, a path ending in the name, or for `file#record`, the
/// file plus a title, id or path ending equal to the record.
pub fn name_matches(doc: &RetrievedDoc, name: &str) -> bool {
    let name = name.trim();
    if name.is_empty() {
        return false;
    }
    if doc.title.trim().eq_ignore_ascii_case(name) {
        return true;
    }
    let path = doc.path.trim();
    if path == name || basename(path) == name || path.ends_with(&format!("/{name}")) {
        return true;
    }
    if let Some((file, record)) = name.split_once('#') {
        let mut file_part = path.split_once('#').map_or(path, |(f, _)| f);
        // "file.jsonl:3" (record number) names the file too.
        if let Some((f, n)) = file_part.rsplit_once(':')
            && !n.is_empty()
            && n.chars().all(|c| c.is_ascii_digit())
        {
            file_part = f;
        }
        let file_ok = basename(file_part) == file || file_part.ends_with(&format!("/{file}"));
        let rec_ok = doc.title.trim().eq_ignore_ascii_case(record)
            || doc.id == record
            || path.ends_with(&format!("#{record}"))
            || path.ends_with(&format!(":{record}"));
        return file_ok && rec_ok;
    }
    false
}

impl<'a> GoldResolver<'a> {
    /// A resolver over a converted dataset.
    pub fn new(dataset: &'a Dataset) -> Self {
        let mut by_title: HashMap<String, Vec<usize>> = HashMap::new();
        for (i, p) in dataset.passages.iter().enumerate() {
            by_title.entry(p.title.to_lowercase()).or_default().push(i);
        }
        Self {
            dataset,
            by_title,
            cache: RefCell::new(HashMap::new()),
        }
    }

    /// The pooled passage a document is, if any. Titles decide; when several
    /// passages share a title the document text decides.
    pub fn passage_of(
        &self,
        doc: &RetrievedDoc,
        retrieval: &dyn Retrieval,
    ) -> crate::Result<Option<usize>> {
        if let Some(hit) = self.cache.borrow().get(&doc.id) {
            return Ok(*hit);
        }
        let found = match self
            .by_title
            .get(&doc.title.trim().to_lowercase())
            .map(Vec::as_slice)
        {
            None | Some([]) => None,
            Some([one]) => Some(*one),
            Some(many) => {
                let text = squash(&retrieval.doc_text(&doc.id)?);
                let exact = many
                    .iter()
                    .copied()
                    .find(|i| squash(&self.dataset.passages[*i].text) == text);
                exact.or_else(|| {
                    many.iter().copied().find(|i| {
                        let p = squash(&self.dataset.passages[*i].text);
                        let head: String = p.chars().take(120).collect();
                        !head.is_empty() && text.contains(&head)
                    })
                })
            }
        };
        self.cache.borrow_mut().insert(doc.id.clone(), found);
        Ok(found)
    }

    /// The positions in `gold` that `doc` matches.
    pub fn matches(
        &self,
        doc: &RetrievedDoc,
        gold: &[GoldRef],
        retrieval: &dyn Retrieval,
    ) -> crate::Result<Vec<usize>> {
        let mut passage = None;
        let mut looked = false;
        let mut out = Vec::new();
        for (pos, g) in gold.iter().enumerate() {
            let hit = match g {
                GoldRef::Name(name) => name_matches(doc, name),
                GoldRef::Passage(i) => {
                    if !looked {
                        passage = self.passage_of(doc, retrieval)?;
                        looked = true;
                    }
                    passage == Some(*i)
                }
            };
            if hit {
                out.push(pos);
            }
        }
        Ok(out)
    }

    fn ranking(
        &self,
        docs: &[RetrievedDoc],
        gold: &[GoldRef],
        retrieval: &dyn Retrieval,
    ) -> crate::Result<Ranking> {
        let mut matches = Vec::with_capacity(docs.len());
        for d in docs {
            matches.push(self.matches(d, gold, retrieval)?);
        }
        Ok(Ranking {
            docs: docs.iter().map(|d| d.title.clone()).collect(),
            recall: RecallAtK::of(&matches, gold.len()),
            matches,
            seeds: Vec::new(),
            error: None,
        })
    }
}

fn failed(err: &crate::EvalError, n_gold: usize) -> Ranking {
    Ranking {
        recall: RecallAtK::of(&[], n_gold),
        error: Some(err.to_string()),
        ..Ranking::default()
    }
}

/// Distinct documents in first-seen order.
pub fn distinct_docs(docs: impl IntoIterator<Item = RetrievedDoc>) -> Vec<RetrievedDoc> {
    let mut seen = std::collections::HashSet::new();
    docs.into_iter()
        .filter(|d| seen.insert(d.id.clone()))
        .collect()
}

/// Score one question: both rankings always, the run when a runner is given.
///
/// Ranking and run failures are recorded in the record (and score zero); only a
/// failure to tell which passage a document is aborts.
pub fn evaluate_question(
    q: &EvalQuestion,
    dataset: &Dataset,
    resolver: &GoldResolver<'_>,
    retrieval: &dyn Retrieval,
    runner: Option<&dyn QuestionRunner>,
) -> crate::Result<QuestionRecord> {
    let started = Instant::now();
    let n_gold = q.gold.len();
    let bm25 = match retrieval.bm25(&q.question, RANK_DEPTH) {
        Ok(docs) => resolver.ranking(&docs, &q.gold, retrieval)?,
        Err(e) => failed(&e, n_gold),
    };
    let graph = match retrieval.graph(&q.question, RANK_DEPTH) {
        Ok((docs, seeds)) => Ranking {
            seeds,
            ..resolver.ranking(&docs, &q.gold, retrieval)?
        },
        Err(e) => failed(&e, n_gold),
    };
    let run = match runner {
        None => None,
        Some(r) => {
            let run = r.run(&q.id, &q.question).unwrap_or_else(|e| QuestionRun {
                error: Some(format!("{e:#}")),
                ..QuestionRun::default()
            });
            Some(score_run(run, q, resolver, retrieval)?)
        }
    };
    Ok(QuestionRecord {
        id: q.id.clone(),
        question: q.question.clone(),
        answers: q.answers.clone(),
        gold: q.gold.iter().map(|g| dataset.gold_name(g)).collect(),
        kind: q.kind.clone(),
        bm25,
        graph,
        run,
        seconds: started.elapsed().as_secs_f64(),
    })
}

/// Score a finished run against a question's gold.
pub fn score_run(
    run: QuestionRun,
    q: &EvalQuestion,
    resolver: &GoldResolver<'_>,
    retrieval: &dyn Retrieval,
) -> crate::Result<RunScore> {
    // What users see first: the short answer; "not found" scores as no answer.
    let scored = match (&run.short_answer, run.not_found) {
        (Some(short), _) => short.as_str(),
        (None, true) => "",
        (None, false) => run.answer.as_str(),
    };
    let (em, f1) = best_em_f1(scored, &q.answers);
    let contains = gold_contained(&run.answer, &q.answers);
    let mut docs = Vec::new();
    for id in &run.read_ids {
        if let Some(d) = retrieval.doc_of(id)? {
            docs.push(d);
        }
    }
    let docs = distinct_docs(docs);
    let mut matches = Vec::with_capacity(docs.len());
    for d in &docs {
        matches.push(resolver.matches(d, &q.gold, retrieval)?);
    }
    let gold_sentences: Vec<String> = q.gold_sentences.iter().map(|s| s.text.clone()).collect();
    let (citation_precision, citation_recall) = if gold_sentences.is_empty() {
        (None, None)
    } else {
        citation_precision_recall(&run.cited_sentences, &gold_sentences)
    };
    Ok(RunScore {
        em,
        f1,
        contains,
        read_recall: RecallAtK::of(&matches, q.gold.len()),
        read_recall_all: recall_at_k(&matches, q.gold.len(), usize::MAX),
        citation_precision,
        citation_recall,
        run,
    })
}

/// 1.0 when a normalized gold answer occurs, as whole words, in the normalized text.
pub fn gold_contained(text: &str, answers: &[String]) -> f64 {
    let t = format!(" {} ", super::metrics::normalize_answer(text));
    let hit = answers.iter().any(|a| {
        let a = super::metrics::normalize_answer(a);
        !a.is_empty() && t.contains(&format!(" {a} "))
    });
    if hit { 1.0 } else { 0.0 }
}

impl RunScore {
    /// The short answer is right: it equals the gold answer or an alias
    /// once normalised (exact match).
    pub fn right(&self) -> bool {
        self.em >= 1.0
    }

    /// The answer was marked verified.
    pub fn verified(&self) -> bool {
        self.run.verified == Some(true)
    }
}

/// How the runs of one kind of question ended (or of all, `kind` `all`).
/// A run counts in every column that describes it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct KindRow {
    /// The kind (`two-hop`, `count`, HotpotQA's `bridge`, …), or `all`.
    pub kind: String,
    /// Questions run.
    pub questions: usize,
    /// Right short answers ([`RunScore::right`]), whoever gave them.
    pub right: usize,
    /// Wrong answers that stood as the strategy's own: not "not found",
    /// not handed to the heuristic, not failed.
    pub wrong_stood: usize,
    /// Answers marked verified.
    pub verified: usize,
    /// Answers marked verified that are wrong.
    pub verified_wrong: usize,
    /// Runs the RLM handed to the heuristic.
    pub fell_back: usize,
    /// Of those, the right ones.
    pub fell_back_right: usize,
    /// Answers that said "not found".
    pub not_found: usize,
    /// Runs that failed with an error.
    pub failed: usize,
}

impl KindRow {
    /// The row of `runs` under the name `kind`.
    pub fn of(kind: &str, runs: &[&RunScore]) -> Self {
        let count = |f: &dyn Fn(&RunScore) -> bool| runs.iter().filter(|r| f(r)).count();
        Self {
            kind: kind.to_owned(),
            questions: runs.len(),
            right: count(&|r| r.right()),
            wrong_stood: count(&|r| {
                !r.right() && !r.run.not_found && r.run.fallback.is_none() && r.run.error.is_none()
            }),
            verified: count(&|r| r.verified()),
            verified_wrong: count(&|r| r.verified() && !r.right()),
            fell_back: count(&|r| r.run.fallback.is_some()),
            fell_back_right: count(&|r| r.run.fallback.is_some() && r.right()),
            not_found: count(&|r| r.run.not_found),
            failed: count(&|r| r.run.error.is_some()),
        }
    }
}

/// The row name of the runs of every kind.
pub const ALL_KINDS: &str = "all";

/// One row per kind of question, in the order the kinds first come, then
/// the row of all (only the row of all when no question has a kind).
fn kind_rows(records: &[QuestionRecord]) -> Vec<KindRow> {
    let runs: Vec<(Option<&str>, &RunScore)> = records
        .iter()
        .filter_map(|r| Some((r.kind.as_deref(), r.run.as_ref()?)))
        .collect();
    if runs.is_empty() {
        return Vec::new();
    }
    let mut kinds: Vec<&str> = Vec::new();
    for (k, _) in &runs {
        if let Some(k) = *k
            && !kinds.contains(&k)
        {
            kinds.push(k);
        }
    }
    let mut rows: Vec<KindRow> = kinds
        .iter()
        .map(|k| {
            let of: Vec<&RunScore> = runs
                .iter()
                .filter(|(rk, _)| rk == &Some(*k))
                .map(|(_, r)| *r)
                .collect();
            KindRow::of(k, &of)
        })
        .collect();
    let all: Vec<&RunScore> = runs.iter().map(|(_, r)| *r).collect();
    rows.push(KindRow::of(ALL_KINDS, &all));
    rows
}

/// The scores of the runs one method produced (extractive, composed, RLM).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct MethodRow {
    /// `extractive`, `heuristic_composed`, `rlm` (or `failed`).
    pub method: String,
    /// Runs.
    pub runs: usize,
    /// Mean exact match of the short answer.
    pub em: f64,
    /// Mean F1 of the short answer.
    pub f1: f64,
    /// Share of answers containing the gold answer.
    pub contains: f64,
    /// Mean claim support rate (answers with cited claims).
    pub claims_supported: Option<f64>,
    /// Mean citation precision against gold sentences.
    pub citation_precision: Option<f64>,
    /// Mean citation recall against gold sentences.
    pub citation_recall: Option<f64>,
    /// Share of answers that said "not found".
    pub not_found: f64,
    /// Runs whose short answer is right ([`RunScore::right`]).
    pub right: usize,
    /// Runs marked verified.
    pub verified: usize,
    /// Runs marked verified whose short answer is wrong.
    pub verified_wrong: usize,
    /// Mean handle calls of the root per run.
    pub handle_calls: f64,
    /// Mean sub-model calls per run.
    pub sub_calls: f64,
    /// Mean root turns per run.
    pub turns: f64,
    /// Mean wall time per run, in seconds.
    pub seconds: f64,
}

impl MethodRow {
    fn of(method: &str, runs: &[&RunScore]) -> Self {
        let n = runs.len().max(1) as f64;
        Self {
            method: method.to_owned(),
            runs: runs.len(),
            em: runs.iter().map(|r| r.em).sum::<f64>() / n,
            f1: runs.iter().map(|r| r.f1).sum::<f64>() / n,
            contains: runs.iter().map(|r| r.contains).sum::<f64>() / n,
            claims_supported: mean(runs.iter().map(|r| r.run.support_rate)),
            citation_precision: mean(runs.iter().map(|r| r.citation_precision)),
            citation_recall: mean(runs.iter().map(|r| r.citation_recall)),
            not_found: runs.iter().filter(|r| r.run.not_found).count() as f64 / n,
            right: runs.iter().filter(|r| r.right()).count(),
            verified: runs.iter().filter(|r| r.verified()).count(),
            verified_wrong: runs.iter().filter(|r| r.verified() && !r.right()).count(),
            handle_calls: runs.iter().map(|r| r.run.handle_calls as f64).sum::<f64>() / n,
            sub_calls: runs.iter().map(|r| r.run.sub_calls as f64).sum::<f64>() / n,
            turns: runs.iter().map(|r| f64::from(r.run.turns)).sum::<f64>() / n,
            seconds: runs.iter().map(|r| r.run.seconds).sum::<f64>() / n,
        }
    }
}

/// Means over the records of one evaluation.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Summary {
    /// Questions scored.
    pub questions: usize,
    /// Mean BM25 recall at 2, 5, 10.
    pub bm25: RecallAtK,
    /// Mean graph recall at 2, 5, 10.
    pub graph: RecallAtK,
    /// Questions whose graph ranking failed.
    pub graph_errors: usize,
    /// Mean recall of what runs read (only with runs).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub read: Option<RecallAtK>,
    /// Runs that ended in an error (only with runs).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub run_errors: Option<usize>,
    /// Mean exact match (only with runs).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub em: Option<f64>,
    /// Mean F1 (only with runs).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub f1: Option<f64>,
    /// Share of answers containing the gold answer (only with runs).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub contains: Option<f64>,
    /// Mean claim support rate (only with runs).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub claims_supported: Option<f64>,
    /// Share of "not found" answers (only with runs).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub not_found: Option<f64>,
    /// The same scores per method that produced the answers (only with runs).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub by_method: Vec<MethodRow>,
    /// How the runs ended per kind of question, then over all (only with runs).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub by_kind: Vec<KindRow>,
    /// Mean citation precision (runs on datasets with gold sentences).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub citation_precision: Option<f64>,
    /// Mean citation recall (runs on datasets with gold sentences).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub citation_recall: Option<f64>,
    /// Total model calls.
    pub calls: u64,
    /// Total tokens (prompt + completion).
    pub tokens: u64,
    /// Total seconds over the questions.
    pub seconds: f64,
}

fn method_name(r: &RunScore) -> String {
    if r.run.error.is_some() {
        return "failed".to_owned();
    }
    r.run.method.clone().unwrap_or_else(|| "unknown".to_owned())
}

fn mean(values: impl IntoIterator<Item = Option<f64>>) -> Option<f64> {
    let (sum, n) = values
        .into_iter()
        .flatten()
        .fold((0.0, 0usize), |(s, n), v| (s + v, n + 1));
    (n > 0).then(|| sum / n as f64)
}

fn mean_recall<'r>(rs: impl Iterator<Item = &'r RecallAtK> + Clone) -> RecallAtK {
    let at = |i: usize| mean(rs.clone().map(|r| r.get(i)));
    RecallAtK {
        r2: at(0),
        r5: at(1),
        r10: at(2),
    }
}

impl Summary {
    /// Aggregate records.
    pub fn of(records: &[QuestionRecord]) -> Self {
        let runs: Vec<&RunScore> = records.iter().filter_map(|r| r.run.as_ref()).collect();
        let has_runs = !runs.is_empty();
        Self {
            questions: records.len(),
            bm25: mean_recall(records.iter().map(|r| &r.bm25.recall)),
            graph: mean_recall(records.iter().map(|r| &r.graph.recall)),
            graph_errors: records.iter().filter(|r| r.graph.error.is_some()).count(),
            read: has_runs.then(|| mean_recall(runs.iter().map(|r| &r.read_recall))),
            run_errors: has_runs.then(|| runs.iter().filter(|r| r.run.error.is_some()).count()),
            em: mean(runs.iter().map(|r| Some(r.em))),
            f1: mean(runs.iter().map(|r| Some(r.f1))),
            contains: mean(runs.iter().map(|r| Some(r.contains))),
            claims_supported: mean(runs.iter().map(|r| r.run.support_rate)),
            not_found: mean(
                runs.iter()
                    .map(|r| Some(if r.run.not_found { 1.0 } else { 0.0 })),
            ),
            by_method: {
                let mut methods: Vec<String> = Vec::new();
                for r in &runs {
                    let m = method_name(r);
                    if !methods.contains(&m) {
                        methods.push(m);
                    }
                }
                methods
                    .iter()
                    .map(|m| {
                        let rs: Vec<&RunScore> = runs
                            .iter()
                            .copied()
                            .filter(|r| &method_name(r) == m)
                            .collect();
                        MethodRow::of(m, &rs)
                    })
                    .collect()
            },
            by_kind: kind_rows(records),
            citation_precision: mean(runs.iter().map(|r| r.citation_precision)),
            citation_recall: mean(runs.iter().map(|r| r.citation_recall)),
            calls: runs.iter().map(|r| r.run.calls).sum(),
            tokens: runs
                .iter()
                .map(|r| r.run.input_tokens + r.run.output_tokens)
                .sum(),
            seconds: records.iter().map(|r| r.seconds).sum(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dataset::convert_text;

    /// Rankings fixed in advance; documents are titled after their passages.
    struct Fixed {
        bm25: Vec<(&'static str, &'static str)>,
        graph: Vec<(&'static str, &'static str)>,
        texts: HashMap<&'static str, &'static str>,
    }

    fn doc(id: &str, title: &str) -> RetrievedDoc {
        RetrievedDoc {
            id: id.into(),
            title: title.into(),
            path: "corpus.json".into(),
        }
    }

    impl Retrieval for Fixed {
        fn bm25(&self, _: &str, k: usize) -> crate::Result<Vec<RetrievedDoc>> {
            Ok(self.bm25.iter().take(k).map(|(i, t)| doc(i, t)).collect())
        }
        fn graph(&self, _: &str, k: usize) -> crate::Result<(Vec<RetrievedDoc>, Vec<String>)> {
            if self.graph.is_empty() {
                return Err(crate::EvalError::Failed("no graph".into()));
            }
            Ok((
                self.graph.iter().take(k).map(|(i, t)| doc(i, t)).collect(),
                vec!["Ann Lee".into()],
            ))
        }
        fn doc_of(&self, id: &str) -> crate::Result<Option<RetrievedDoc>> {
            let chunk = id.split('.').next().unwrap_or(id);
            Ok(self
                .bm25
                .iter()
                .chain(&self.graph)
                .find(|(i, _)| *i == chunk)
                .map(|(i, t)| doc(i, t)))
        }
        fn doc_text(&self, doc_id: &str) -> crate::Result<String> {
            Ok(self
                .texts
                .get(doc_id)
                .copied()
                .unwrap_or_default()
                .to_string())
        }
    }

    const DATA: &str = r#"[
      {"id": "m1", "question": "Where was the author of X born?", "answer": "Oslo", "answer_aliases": ["Oslo, Norway"],
       "paragraphs": [{"title": "X", "paragraph_text": "X is a book by Ann Lee.", "is_supporting": true},
                      {"title": "Ann Lee", "paragraph_text": "Ann Lee was born in Oslo.", "is_supporting": true},
                      {"title": "Ann Lee", "paragraph_text": "Ann Lee (painter) was born in Rome.", "is_supporting": false},
                      {"title": "Noise", "paragraph_text": "Nothing here.", "is_supporting": false}]}
    ]"#;

    struct Answers(&'static str);
    impl QuestionRunner for Answers {
        fn run(&self, _: &str, _: &str) -> crate::Result<QuestionRun> {
            Ok(QuestionRun {
                answer: self.0.into(),
                read_ids: vec!["d3.s1".into(), "d0".into(), "d9".into()],
                calls: 2,
                input_tokens: 10,
                output_tokens: 5,
                ..QuestionRun::default()
            })
        }
    }

    #[test]
    fn duplicate_titles_are_told_apart_by_text() {
        let (_, ds) = convert_text(DATA, None).unwrap();
        let fixed = Fixed {
            bm25: vec![
                ("d2", "Ann Lee"),
                ("d3", "Noise"),
                ("d1", "Ann Lee"),
                ("d0", "X"),
            ],
            graph: vec![("d0", "X"), ("d1", "ann lee")],
            texts: HashMap::from([
                ("d1", "Ann Lee was born\nin Oslo."),
                ("d2", "Ann Lee (painter) was born in Rome."),
            ]),
        };
        let resolver = GoldResolver::new(&ds);
        let rec = evaluate_question(
            &ds.questions[0],
            &ds,
            &resolver,
            &fixed,
            Some(&Answers("oslo")),
        )
        .unwrap();
        assert_eq!(rec.gold, vec!["X".to_string(), "Ann Lee".to_string()]);
        assert_eq!(rec.bm25.matches, vec![vec![], vec![], vec![1], vec![0]]);
        assert_eq!(
            rec.bm25.recall,
            RecallAtK {
                r2: Some(0.0),
                r5: Some(1.0),
                r10: Some(1.0)
            }
        );
        assert_eq!(
            rec.graph.recall,
            RecallAtK {
                r2: Some(1.0),
                r5: Some(1.0),
                r10: Some(1.0)
            }
        );
        assert_eq!(rec.graph.seeds, vec!["Ann Lee".to_string()]);
        let run = rec.run.as_ref().unwrap();
        assert_eq!((run.em, run.f1), (1.0, 1.0));
        // read d3 (noise) then d0 (X); d9 is unknown
        assert_eq!(
            run.read_recall,
            RecallAtK {
                r2: Some(0.5),
                r5: Some(0.5),
                r10: Some(0.5)
            }
        );
        assert_eq!(run.read_recall_all, Some(0.5));

        let summary = Summary::of(&[rec.clone(), QuestionRecord { run: None, ..rec }]);
        assert_eq!(summary.questions, 2);
        assert_eq!(summary.bm25.r5, Some(1.0));
        assert_eq!(summary.em, Some(1.0));
        assert_eq!(summary.calls, 2);
        assert_eq!(summary.tokens, 15);
    }

    /// A scored run: right or not, verified or not, fell back or not.
    fn scored(
        kind: &str,
        right: bool,
        verified: bool,
        fell_back: bool,
        not_found: bool,
    ) -> QuestionRecord {
        QuestionRecord {
            kind: Some(kind.into()),
            run: Some(RunScore {
                em: if right { 1.0 } else { 0.0 },
                run: QuestionRun {
                    verified: Some(verified),
                    fallback: fell_back.then(|| "no answer".into()),
                    not_found,
                    ..QuestionRun::default()
                },
                ..RunScore::default()
            }),
            ..QuestionRecord::default()
        }
    }

    #[test]
    fn runs_are_counted_per_kind_and_over_all() {
        let records = [
            scored("two-hop", true, true, false, false),
            scored("two-hop", false, true, false, false),
            scored("count", false, false, true, false),
            scored("two-hop", false, false, false, true),
            scored("count", true, true, true, false),
        ];
        let s = Summary::of(&records);
        let row = |k: &str| s.by_kind.iter().find(|r| r.kind == k).cloned().unwrap();
        let names: Vec<&str> = s.by_kind.iter().map(|r| r.kind.as_str()).collect();
        assert_eq!(names, ["two-hop", "count", ALL_KINDS]);
        assert_eq!(
            row("two-hop"),
            KindRow {
                kind: "two-hop".into(),
                questions: 3,
                right: 1,
                wrong_stood: 1,
                verified: 2,
                verified_wrong: 1,
                not_found: 1,
                ..KindRow::default()
            }
        );
        let count = row("count");
        assert_eq!(
            (count.fell_back, count.fell_back_right, count.wrong_stood),
            (2, 1, 0)
        );
        let all = row(ALL_KINDS);
        assert_eq!((all.questions, all.right, all.verified_wrong), (5, 2, 1));
        // Without runs there are no rows; without kinds only the row of all.
        assert!(Summary::of(&[QuestionRecord::default()]).by_kind.is_empty());
        let plain = QuestionRecord {
            kind: None,
            ..scored("x", true, true, false, false)
        };
        let names: Vec<String> = Summary::of(&[plain])
            .by_kind
            .into_iter()
            .map(|r| r.kind)
            .collect();
        assert_eq!(names, [ALL_KINDS]);
    }

    #[test]
    fn a_failing_ranking_is_recorded_and_scores_zero() {
        let (_, ds) = convert_text(DATA, None).unwrap();
        let fixed = Fixed {
            bm25: vec![("d0", "X")],
            graph: vec![],
            texts: HashMap::new(),
        };
        let resolver = GoldResolver::new(&ds);
        let rec = evaluate_question(&ds.questions[0], &ds, &resolver, &fixed, None).unwrap();
        assert_eq!(rec.graph.error.as_deref(), Some("no graph"));
        assert_eq!(rec.graph.recall.r5, Some(0.0));
        assert_eq!(rec.bm25.recall.r2, Some(0.5));
        assert!(rec.run.is_none());
        let s = Summary::of(&[rec]);
        assert_eq!(s.graph_errors, 1);
        assert_eq!(s.em, None);
    }

    #[test]
    fn gold_names_match_titles_files_and_records() {
        let d = |title: &str, path: &str| RetrievedDoc {
            id: "d1".into(),
            title: title.into(),
            path: path.into(),
        };
        let cases = [
            (
                d("About KICS", "/x/examples/corpus/kestrel_institute.html"),
                "kestrel_institute.html",
                true,
            ),
            (
                d("About KICS", "/x/examples/corpus/kestrel_institute.html"),
                "corpus/kestrel_institute.html",
                true,
            ),
            (
                d("About KICS", "/x/examples/corpus/kestrel_institute.html"),
                "about kics",
                true,
            ),
            (
                d("About KICS", "/x/examples/corpus/kestrel_institute.html"),
                "institute.html",
                false,
            ),
            (
                d(
                    "Halvorsen Medal 2018",
                    "/x/corpus/awards.jsonl#award-halvorsen-2018",
                ),
                "awards.jsonl#award-halvorsen-2018",
                true,
            ),
            (
                d("Halvorsen Medal 2018", "/x/corpus/awards.jsonl:1"),
                "awards.jsonl#Halvorsen Medal 2018",
                true,
            ),
            (
                d(
                    "Coastal Science Prize 2022",
                    "/x/corpus/awards.jsonl#award-coastal-prize-2022",
                ),
                "awards.jsonl#award-halvorsen-2018",
                false,
            ),
            (d("", ""), "", false),
        ];
        for (doc, name, want) in cases {
            assert_eq!(name_matches(&doc, name), want, "{name:?} vs {doc:?}");
        }
    }
}
