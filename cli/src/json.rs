//! The `--json` output types built from the library's results: each field
//! name is written here, so renaming a field of a library type cannot
//! silently change the command line's JSON (the snapshot tests in
//! `tests/tests/it/cli_snapshots.rs` hold the output byte for byte). The
//! commands whose JSON holds no library type name their keys where they
//! print (`config show`, `generate`, `export --to-endpoint`, `trace export`,
//! and the reports of `eval`, whose parts come from here).
//!
//! Each type borrows from the library's result it is built from. Values of
//! the library's plain enums (a verdict, a reason kind, an answer method, an
//! answer type's name) are the names the library gives them for JSON
//! (`as_str()`, `name()` or their serde names): other work adds variants to
//! them, and an exhaustive match here would make each addition edit this
//! file; the shapes around them (every field name) are ours.
//!
//! Where a command built its JSON with `serde_json::json!`, the keys came
//! out in alphabetical order (serde_json's map is sorted), and the types
//! below that replace those keep that order.

use std::collections::BTreeMap;
use std::path::Path;

use serde::Serialize;
use serde::ser::SerializeMap as _;

/// `rlmkg --json ingest`: the summary's fields at the top level, then the
/// process's peak memory (`bench ingest` reads it back as
/// [`rlmkg::IngestReport`]).
#[derive(Debug, Serialize)]
pub(crate) struct Ingest<'a> {
    /// Files seen.
    files: u64,
    /// Files (re)ingested.
    ingested: u64,
    /// Files unchanged (skipped by hash).
    unchanged: u64,
    /// Files skipped (unsupported, binary, unreadable, corrupt).
    skipped: u64,
    /// Files removed because they vanished.
    removed: u64,
    /// Documents added.
    docs: u64,
    /// Chunks added.
    chunks: u64,
    /// Entities in the store after the ingest (as `stats` counts them).
    entities: u64,
    /// Relations in the store after the ingest: facts and co-occurrences.
    relations: u64,
    /// Of the relations, the facts.
    facts: u64,
    /// Mentions in the store after the ingest.
    mentions: u64,
    /// Warnings.
    warnings: u64,
    /// Bytes read from ingested files.
    bytes: u64,
    /// Wall seconds.
    seconds: f64,
    /// Ingested MB per second.
    mb_per_s: f64,
    /// How chunk tokens were counted.
    tokenizer: &'a str,
    /// Wall seconds per stage.
    stages: IngestStages,
    /// Peak resident set size in MB (null where unknown).
    peak_rss_mb: Option<f64>,
    /// What the model's reading of facts did (`--extract llm`; absent
    /// without it).
    #[serde(skip_serializing_if = "Option::is_none")]
    model_facts: Option<&'a rlmkg_ingest::ModelFactStats>,
}

/// Wall seconds per stage of an ingest.
#[derive(Debug, Serialize)]
pub(crate) struct IngestStages {
    /// Walking the inputs.
    walk: f64,
    /// Reading, chunking and extracting.
    prepare: f64,
    /// Handing records to the index.
    index: f64,
    /// Adding documents to the graph view.
    graph: f64,
    /// Commits before the last.
    commit: f64,
    /// The final commit and view snapshot.
    view: f64,
    /// Making the chunks' vectors (overlaps the other stages).
    embed: f64,
}

impl<'a> Ingest<'a> {
    /// The output of an ingest that ended with `s`, the process having used
    /// `peak_rss_mb` at most.
    pub(crate) fn new(s: &'a rlmkg_ingest::IngestSummary, peak_rss_mb: Option<f64>) -> Self {
        let st = &s.stages;
        Self {
            files: s.files,
            ingested: s.ingested,
            unchanged: s.unchanged,
            skipped: s.skipped,
            removed: s.removed,
            docs: s.docs,
            chunks: s.chunks,
            entities: s.entities,
            relations: s.relations,
            facts: s.facts,
            mentions: s.mentions,
            warnings: s.warnings,
            bytes: s.bytes,
            seconds: s.seconds,
            mb_per_s: s.mb_per_s,
            tokenizer: &s.tokenizer,
            stages: IngestStages {
                walk: st.walk,
                prepare: st.prepare,
                index: st.index,
                graph: st.graph,
                commit: st.commit,
                view: st.view,
                embed: st.embed,
            },
            peak_rss_mb,
            model_facts: s.model_facts.as_ref(),
        }
    }
}

/// `rlmkg --json search`: one hit (the output is a list of them).
#[derive(Debug, Serialize)]
pub(crate) struct SearchHit<'a> {
    /// Chunk id (`c12`).
    id: String,
    /// Document id (`d3`).
    doc: String,
    /// Document title.
    title: &'a str,
    /// Source path.
    path: &'a str,
    /// The score of the search's mode: BM25 (as the index computes it), the
    /// dot product of the vectors (dense) or the fused reciprocal-rank score
    /// (hybrid).
    score: f32,
    /// Chunk text.
    text: &'a str,
}

impl<'a> SearchHit<'a> {
    /// The hits of a search.
    pub(crate) fn list(hits: &'a [rlmkg_ingest::SearchHit]) -> Vec<Self> {
        hits.iter()
            .map(|h| Self {
                id: h.id.to_string(),
                doc: h.doc.to_string(),
                title: &h.title,
                path: &h.path,
                score: h.score,
                text: &h.text,
            })
            .collect()
    }
}

/// `rlmkg --json entity`: the entity, its neighbors and its chunks (keys in
/// alphabetical order).
#[derive(Debug, Serialize)]
pub(crate) struct Entity<'a> {
    /// Chunk ids that mention it.
    chunks: Vec<String>,
    /// The entity.
    entity: EntityInfo<'a>,
    /// Its neighbors.
    neighbors: Vec<Neighbor<'a>>,
}

/// An entity's facts (keys in alphabetical order).
#[derive(Debug, Serialize)]
pub(crate) struct EntityInfo<'a> {
    /// Other names.
    aliases: &'a [String],
    /// Entity id.
    id: &'a str,
    /// Number of mentions.
    mentions: u64,
    /// Display name.
    name: &'a str,
    /// Type guess.
    #[serde(rename = "type")]
    kind: &'a str,
}

/// A neighbor of an entity (keys in alphabetical order).
#[derive(Debug, Serialize)]
pub(crate) struct Neighbor<'a> {
    /// Chunk ids of the evidence.
    evidence: Vec<String>,
    /// Whether the relation is a fact (not co-occurrence).
    fact: bool,
    /// Entity id.
    id: &'a str,
    /// Name.
    name: &'a str,
    /// Relation label as read from the entity: a predicate ("born in"), its
    /// inverse when the entity is the object ("founded by"), `other: <verb
    /// phrase>` (`<-` before it when the entity is the object) or `co-occurs`.
    relation: &'a str,
    /// Type guess.
    #[serde(rename = "type")]
    kind: &'a str,
    /// Weight.
    weight: f64,
}

impl<'a> Entity<'a> {
    /// The output for entity `e` with its `neighbors` and `chunks`.
    pub(crate) fn new(
        e: &'a rlmkg_ingest::EntityInfo,
        neighbors: &'a [rlmkg_ingest::Neighbor],
        chunks: &[impl std::fmt::Display],
    ) -> Self {
        Self {
            chunks: chunks.iter().map(ToString::to_string).collect(),
            entity: EntityInfo {
                aliases: &e.aliases,
                id: &e.id,
                mentions: e.mentions,
                name: &e.name,
                kind: &e.kind,
            },
            neighbors: neighbors
                .iter()
                .map(|n| Neighbor {
                    evidence: n.evidence.iter().map(ToString::to_string).collect(),
                    fact: rlmkg_ingest::is_fact(&n.relation),
                    id: &n.id,
                    name: &n.name,
                    relation: &n.relation,
                    kind: &n.kind,
                    weight: n.weight,
                })
                .collect(),
        }
    }
}

/// `rlmkg --json path`: one path (the output is a list of them).
#[derive(Debug, Serialize)]
pub(crate) struct GraphPath<'a> {
    /// Entity ids along the path, ends included.
    entities: &'a [String],
    /// Their names.
    names: &'a [String],
    /// The steps.
    steps: Vec<PathStep<'a>>,
}

/// One step of a path.
#[derive(Debug, Serialize)]
pub(crate) struct PathStep<'a> {
    /// Entity id.
    from: &'a str,
    /// Entity id.
    to: &'a str,
    /// Relation label.
    relation: &'a str,
    /// Evidence chunk ids.
    evidence: Vec<String>,
}

impl<'a> GraphPath<'a> {
    /// The paths found.
    pub(crate) fn list(paths: &'a [rlmkg_ingest::GraphPath]) -> Vec<Self> {
        paths
            .iter()
            .map(|p| Self {
                entities: &p.entities,
                names: &p.names,
                steps: p
                    .steps
                    .iter()
                    .map(|s| PathStep {
                        from: &s.from,
                        to: &s.to,
                        relation: &s.relation,
                        evidence: s.evidence.iter().map(ToString::to_string).collect(),
                    })
                    .collect(),
            })
            .collect()
    }
}

/// `rlmkg --json stats`: the counts, and the invariant check and the
/// documents when asked for (else null; keys in alphabetical order).
#[derive(Debug, Serialize)]
pub(crate) struct Stats<'a> {
    /// The documents (`--docs`).
    docs: Option<Vec<Doc<'a>>>,
    /// The invariant check (`--check`).
    invariants: Option<Invariants<'a>>,
    /// The counts.
    stats: StoreStats<'a>,
}

/// Store counts (keys in alphabetical order).
#[derive(Debug, Serialize)]
pub(crate) struct StoreStats<'a> {
    /// Bytes of normalized text.
    chars: u64,
    /// Chunks.
    chunks: u64,
    /// Documents.
    docs: u64,
    /// Entities.
    entities: u64,
    /// Entities per type guess.
    entity_types: &'a BTreeMap<String, u64>,
    /// Of the relations, the facts.
    facts: u64,
    /// Files.
    files: u64,
    /// Mentions.
    mentions: u64,
    /// RDF quads.
    quads: u64,
    /// Aggregated relations: facts and co-occurrences.
    relations: u64,
}

/// A document of the store (keys in alphabetical order).
#[derive(Debug, Serialize)]
pub(crate) struct Doc<'a> {
    /// Normalized text bytes.
    bytes: u64,
    /// Number of chunks.
    chunks: u64,
    /// Format.
    format: &'a str,
    /// Document id.
    id: &'a str,
    /// Source path.
    path: &'a str,
    /// Record index within a JSONL / JSON file.
    record: Option<u64>,
    /// Title.
    title: &'a str,
}

/// The invariant check (keys in alphabetical order).
#[derive(Debug, Serialize)]
pub(crate) struct Invariants<'a> {
    /// Chunks checked.
    chunks: u64,
    /// Documents checked.
    docs: u64,
    /// Relations checked.
    relations: u64,
    /// Spans checked.
    spans: u64,
    /// Violations, one line each.
    violations: &'a [String],
}

impl<'a> Stats<'a> {
    /// The output for `stats`, with the `report` of `--check` and the `docs`
    /// of `--docs` when asked for.
    pub(crate) fn new(
        stats: &'a rlmkg_ingest::StoreStats,
        report: Option<&'a rlmkg_ingest::InvariantReport>,
        docs: Option<&'a [rlmkg_ingest::DocInfo]>,
    ) -> Self {
        Self {
            docs: docs.map(|docs| {
                docs.iter()
                    .map(|d| Doc {
                        bytes: d.bytes,
                        chunks: d.chunks,
                        format: &d.format,
                        id: &d.id,
                        path: &d.path,
                        record: d.record,
                        title: &d.title,
                    })
                    .collect()
            }),
            invariants: report.map(|r| Invariants {
                chunks: r.chunks,
                docs: r.docs,
                relations: r.relations,
                spans: r.spans,
                violations: &r.violations,
            }),
            stats: StoreStats {
                chars: stats.chars,
                chunks: stats.chunks,
                docs: stats.docs,
                entities: stats.entities,
                entity_types: &stats.entity_types,
                facts: stats.facts,
                files: stats.files,
                mentions: stats.mentions,
                quads: stats.quads,
                relations: stats.relations,
            },
        }
    }
}

/// `rlmkg --json sparql`: the result, tagged by its `kind`.
#[derive(Debug, Serialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub(crate) enum Sparql<'a> {
    /// SELECT: variables and rows of N-Triples terms (null: unbound).
    Select {
        /// Variable names.
        vars: &'a [String],
        /// Rows.
        rows: &'a [Vec<Option<String>>],
    },
    /// ASK.
    Ask {
        /// The answer.
        value: bool,
    },
    /// CONSTRUCT / DESCRIBE: triples in N-Triples syntax.
    Graph {
        /// Triples.
        triples: &'a [String],
    },
}

impl<'a> From<&'a rlmkg_ingest::SparqlOutput> for Sparql<'a> {
    fn from(out: &'a rlmkg_ingest::SparqlOutput) -> Self {
        use rlmkg_ingest::SparqlOutput as S;
        match out {
            S::Select { vars, rows } => Self::Select { vars, rows },
            S::Ask { value } => Self::Ask { value: *value },
            S::Graph { triples } => Self::Graph { triples },
        }
    }
}

/// `rlmkg --json rm`: what was removed.
#[derive(Debug, Serialize)]
pub(crate) struct Removed {
    /// Files removed.
    files: u64,
    /// Documents removed.
    docs: u64,
    /// Chunks removed.
    chunks: u64,
}

impl From<&rlmkg_ingest::RemoveSummary> for Removed {
    fn from(s: &rlmkg_ingest::RemoveSummary) -> Self {
        Self {
            files: s.files,
            docs: s.docs,
            chunks: s.chunks,
        }
    }
}

/// `rlmkg --json model list` (a list of them) and `model pull`: an
/// installed model.
#[derive(Debug, Serialize)]
pub(crate) struct Model<'a> {
    /// Short name.
    name: &'a str,
    /// Path of the `.gguf` file.
    path: &'a Path,
    /// Size in bytes.
    size: u64,
    /// Where it came from.
    source: &'a str,
    /// sha256 of the file, when recorded at install.
    sha256: Option<&'a str>,
}

impl<'a> From<&'a rlm_core::embedded::InstalledModel> for Model<'a> {
    fn from(m: &'a rlm_core::embedded::InstalledModel) -> Self {
        Self {
            name: &m.name,
            path: &m.path,
            size: m.size,
            source: &m.source,
            sha256: m.sha256.as_deref(),
        }
    }
}

/// `rlmkg --json ask`: the answer, its verification and the run's usage.
#[derive(Debug, Serialize)]
pub(crate) struct Answer<'a> {
    /// The question.
    question: &'a str,
    /// The short answer the text opens with, when there is one.
    short_answer: Option<ShortAnswer<'a>>,
    /// The answer checked as an answer: verdict, chain, reason.
    answer_check: AnswerCheck<'a>,
    /// What the question asks for.
    answer_type: AnswerType<'a>,
    /// The sources carry no answer of the asked type.
    not_found: bool,
    /// The answer text with inline citations.
    text: &'a str,
    /// What produced it (`rlm`, `heuristic_composed`, `extractive`).
    method: rlmkg::Method,
    /// The checker's report.
    verification: Report<'a>,
    /// Whether there is an answer, every factual claim of it is supported
    /// and the answer check finds that it answers the question.
    verified: bool,
    /// Whether a `--strict` repair turn was used.
    repaired: bool,
    /// Why the run stopped.
    stop_reason: &'a str,
    /// Model usage.
    usage: Usage,
    /// Chunk and sentence ids the run read.
    read_ids: &'a [String],
    /// The trajectory file, when one was written.
    trajectory: Option<&'a Path>,
    /// Why the root model's run was set aside for the heuristic, if it was.
    #[serde(skip_serializing_if = "Option::is_none")]
    fallback: Option<Fallback<'a>>,
}

/// The answer check: `answers`, `about_another` or `not_shown`, the chain
/// of cited facts, and why.
#[derive(Debug, Serialize)]
pub(crate) struct AnswerCheck<'a> {
    /// The verdict's name.
    verdict: &'static str,
    /// The facts, hop by hop.
    chain: Vec<ChainHop<'a>>,
    /// Why, in one sentence.
    reason: &'a str,
}

/// One fact of a chain, read along it.
#[derive(Debug, Serialize)]
pub(crate) struct ChainHop<'a> {
    /// The entity the hop starts from.
    from: &'a str,
    /// The predicate as read from `from`.
    relation: &'a str,
    /// The entity it reaches.
    to: &'a str,
    /// The cited sentence that states it.
    sentence: &'a str,
}

impl<'a> From<&'a rlmkg::AnswerCheck> for AnswerCheck<'a> {
    fn from(c: &'a rlmkg::AnswerCheck) -> Self {
        Self {
            verdict: c.verdict.name(),
            chain: c
                .chain
                .iter()
                .map(|h| ChainHop {
                    from: &h.from,
                    relation: &h.relation,
                    to: &h.to,
                    sentence: &h.sentence,
                })
                .collect(),
            reason: &c.reason,
        }
    }
}

/// `rlmkg --json verify --question Q`: the answer check, then the report.
#[derive(Debug, Serialize)]
pub(crate) struct Checked<'a> {
    /// The answer checked as an answer to the question.
    pub(crate) answer_check: AnswerCheck<'a>,
    /// The checker's report on its claims.
    pub(crate) report: Report<'a>,
}

/// The short answer and where it was read.
#[derive(Debug, Serialize)]
pub(crate) struct ShortAnswer<'a> {
    /// The answer itself.
    text: &'a str,
    /// What the question asked for.
    kind: AnswerType<'a>,
    /// The sentence id that carries it.
    citation: &'a str,
}

/// What a question asks for: `{"type": "person"}`, or for a choice
/// `{"type": "choice", "options": […]}`.
#[derive(Debug, Serialize)]
pub(crate) struct AnswerType<'a> {
    /// The type's name (`person`, `place`, `date`, `number`,
    /// `organization`, `yes_no`, `choice`, `name`).
    #[serde(rename = "type")]
    name: &'static str,
    /// The options of a choice.
    #[serde(skip_serializing_if = "Option::is_none")]
    options: Option<&'a [String]>,
}

impl<'a> From<&'a rlmkg::AnswerType> for AnswerType<'a> {
    fn from(t: &'a rlmkg::AnswerType) -> Self {
        Self {
            name: t.name(),
            options: match t {
                rlmkg::AnswerType::Choice(options) => Some(options),
                _ => None,
            },
        }
    }
}

/// Model usage of a run.
#[derive(Debug, Serialize)]
pub(crate) struct Usage {
    /// Model calls (cache hits included).
    calls: u64,
    /// Calls answered from the cache.
    cached_calls: u64,
    /// Sub-calls made from the REPL.
    sub_calls: u64,
    /// Prompt tokens.
    prompt_tokens: u64,
    /// Completion tokens.
    completion_tokens: u64,
    /// Cost.
    cost: f64,
    /// Wall seconds.
    seconds: f64,
    /// Root iterations.
    iterations: u32,
    /// Calls of the handle's functions.
    handle_calls: u64,
}

impl From<&rlm_core::Totals> for Usage {
    fn from(t: &rlm_core::Totals) -> Self {
        Self {
            calls: t.calls,
            cached_calls: t.cached_calls,
            sub_calls: t.sub_calls,
            prompt_tokens: t.prompt_tokens,
            completion_tokens: t.completion_tokens,
            cost: t.cost,
            seconds: t.seconds,
            iterations: t.iterations,
            handle_calls: t.handle_calls,
        }
    }
}

/// Why a root model's run was set aside, tagged by its `kind`.
#[derive(Debug, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub(crate) enum Fallback<'a> {
    /// No code block ran.
    NoCodeExecuted {
        /// Root turns the run took.
        turns: u32,
    },
    /// The root model failed for good.
    RootModelFailed {
        /// Root turns, the failing one included.
        turns: u32,
        /// The model error.
        error: &'a str,
    },
    /// The root model repeated itself.
    Repeating {
        /// Root turns the run took.
        turns: u32,
        /// Replies in a row that repeated the one before.
        repeats: u32,
    },
    /// The run's answer is not carried by what it cites.
    UnsupportedAnswer {
        /// Why, per failing claim.
        why: &'a str,
    },
    /// A reason this binary does not know yet, as the library writes it.
    #[serde(untagged)]
    Other(serde_json::Value),
}

impl<'a> From<&'a rlm_core::FallbackReason> for Fallback<'a> {
    fn from(f: &'a rlm_core::FallbackReason) -> Self {
        use rlm_core::FallbackReason as F;
        match f {
            F::NoCodeExecuted { turns } => Self::NoCodeExecuted { turns: *turns },
            F::RootModelFailed { turns, error } => Self::RootModelFailed {
                turns: *turns,
                error,
            },
            F::Repeating { turns, repeats } => Self::Repeating {
                turns: *turns,
                repeats: *repeats,
            },
            F::UnsupportedAnswer { why } => Self::UnsupportedAnswer { why },
            other => Self::Other(serde_json::to_value(other).unwrap_or_default()),
        }
    }
}

impl<'a> From<&'a rlmkg::Answer> for Answer<'a> {
    fn from(a: &'a rlmkg::Answer) -> Self {
        Self {
            question: &a.question,
            short_answer: a.short_answer.as_ref().map(|s| ShortAnswer {
                text: &s.text,
                kind: (&s.kind).into(),
                citation: &s.citation,
            }),
            answer_check: (&a.answer_check).into(),
            answer_type: (&a.answer_type).into(),
            not_found: a.not_found,
            text: &a.text,
            method: a.method,
            verification: (&a.verification).into(),
            verified: a.verified,
            repaired: a.repaired,
            stop_reason: &a.stop_reason,
            usage: (&a.usage).into(),
            read_ids: &a.read_ids,
            trajectory: a.trajectory.as_deref(),
            fallback: a.fallback.as_ref().map(Fallback::from),
        }
    }
}

/// `rlmkg --json verify` (and `verification` in `ask`): the checker's
/// report on an answer.
#[derive(Debug, Serialize)]
pub(crate) struct Report<'a> {
    /// The answer as given.
    answer: &'a str,
    /// Claims in order.
    claims: Vec<Claim<'a>>,
    /// Footnotes in order of first citation.
    footnotes: Vec<Footnote<'a>>,
    /// Totals.
    totals: Totals<'a>,
}

/// One claim, checked.
#[derive(Debug, Serialize)]
pub(crate) struct Claim<'a> {
    /// Position in the answer (0-based).
    index: usize,
    /// The claim text, citations removed.
    text: &'a str,
    /// Byte range `[start, end)` of the claim in the answer.
    span: [usize; 2],
    /// The verdict.
    verdict: &'static str,
    /// Share of the claim's terms carried by the evidence (0–1).
    score: f64,
    /// The claim's citations.
    citations: Vec<Citation<'a>>,
    /// The best-matching source sentences, best first.
    evidence: Vec<Evidence<'a>>,
    /// Why the verdict.
    reasons: Vec<Reason<'a>>,
    /// The model judge's involvement, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    judge: Option<JudgeNote<'a>>,
}

/// One citation of a claim, checked.
#[derive(Debug, Serialize)]
pub(crate) struct Citation<'a> {
    /// The id as written.
    raw: &'a str,
    /// The canonical id, when it parses.
    id: Option<&'a str>,
    /// Whether the id resolved to source text.
    resolved: bool,
    /// Whether the citation is precise.
    precise: bool,
    /// Footnote number (1-based), when resolved.
    footnote: Option<usize>,
}

/// A source sentence a claim was aligned with.
#[derive(Debug, Serialize)]
pub(crate) struct Evidence<'a> {
    /// Sentence id.
    id: &'a str,
    /// Sentence text.
    text: &'a str,
    /// Document path.
    path: &'a str,
    /// First line.
    line_start: u32,
    /// Last line.
    line_end: u32,
    /// Page, for PDF.
    page: Option<u32>,
}

/// Why a claim got its verdict.
#[derive(Debug, Serialize)]
pub(crate) struct Reason<'a> {
    /// The kind of problem.
    kind: rlmkg_citation::ReasonKind,
    /// What it concerns, in words.
    detail: &'a str,
}

/// The model judge's opinion on a claim.
#[derive(Debug, Serialize)]
pub(crate) struct JudgeNote<'a> {
    /// The lexical verdict before the judge.
    lexical: &'static str,
    /// The judge that answered.
    judge: &'a str,
    /// Whether the answer came from the cache.
    cached: bool,
}

/// A footnote: one distinct resolved citation.
#[derive(Debug, Serialize)]
pub(crate) struct Footnote<'a> {
    /// Footnote number (1-based).
    number: usize,
    /// Canonical citation id.
    id: &'a str,
    /// Document path.
    path: &'a str,
    /// Document title.
    title: Option<&'a str>,
    /// First line of the cited span.
    line_start: u32,
    /// Last line of the cited span.
    line_end: u32,
    /// Page, for PDF.
    page: Option<u32>,
    /// Id of the quoted sentence.
    sentence: &'a str,
    /// The quoted source sentence.
    quote: &'a str,
}

/// Totals over an answer.
#[derive(Debug, Serialize)]
pub(crate) struct Totals<'a> {
    /// Claims found.
    claims: usize,
    /// Factual claims.
    factual: usize,
    /// Claims per verdict, in the verdicts' order.
    verdicts: VerdictCounts<'a>,
    /// Supported / claims that cite something.
    support_rate: Option<f64>,
    /// Precise citations / all citations.
    citation_precision: Option<f64>,
    /// Supported / factual claims.
    citation_recall: Option<f64>,
}

/// Claims per verdict, as a JSON object in the verdicts' order.
#[derive(Debug)]
pub(crate) struct VerdictCounts<'a>(&'a BTreeMap<rlmkg::Verdict, usize>);

impl Serialize for VerdictCounts<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(self.0.len()))?;
        for (verdict, n) in self.0 {
            map.serialize_entry(verdict.as_str(), n)?;
        }
        map.end()
    }
}

impl<'a> From<&'a rlmkg::Report> for Report<'a> {
    fn from(r: &'a rlmkg::Report) -> Self {
        Self {
            answer: &r.answer,
            claims: r
                .claims
                .iter()
                .map(|c| Claim {
                    index: c.index,
                    text: &c.text,
                    span: [c.span.0, c.span.1],
                    verdict: c.verdict.as_str(),
                    score: c.score,
                    citations: c
                        .citations
                        .iter()
                        .map(|x| Citation {
                            raw: &x.raw,
                            id: x.id.as_deref(),
                            resolved: x.resolved,
                            precise: x.precise,
                            footnote: x.footnote,
                        })
                        .collect(),
                    evidence: c
                        .evidence
                        .iter()
                        .map(|e| Evidence {
                            id: &e.id,
                            text: &e.text,
                            path: &e.path,
                            line_start: e.line_start,
                            line_end: e.line_end,
                            page: e.page,
                        })
                        .collect(),
                    reasons: c
                        .reasons
                        .iter()
                        .map(|x| Reason {
                            kind: x.kind,
                            detail: &x.detail,
                        })
                        .collect(),
                    judge: c.judge.as_ref().map(|j| JudgeNote {
                        lexical: j.lexical.as_str(),
                        judge: &j.judge,
                        cached: j.cached,
                    }),
                })
                .collect(),
            footnotes: r
                .footnotes
                .iter()
                .map(|f| Footnote {
                    number: f.number,
                    id: &f.id,
                    path: &f.path,
                    title: f.title.as_deref(),
                    line_start: f.line_start,
                    line_end: f.line_end,
                    page: f.page,
                    sentence: &f.sentence,
                    quote: &f.quote,
                })
                .collect(),
            totals: Totals {
                claims: r.totals.claims,
                factual: r.totals.factual,
                verdicts: VerdictCounts(&r.totals.verdicts),
                support_rate: r.totals.support_rate,
                citation_precision: r.totals.citation_precision,
                citation_recall: r.totals.citation_recall,
            },
        }
    }
}

/// `rlmkg --json eval`: what an answer run used (`run`).
#[derive(Debug, Serialize)]
pub(crate) struct RunConfig<'a> {
    /// The strategy asked for (`auto`, `rlm`, `heuristic`).
    strategy: &'a str,
    /// The strategy that actually ran.
    effective: &'a str,
    /// The root model, if any.
    root_model: Option<&'a str>,
    /// The sub-model, if any.
    sub_model: Option<&'a str>,
    /// Settings that change answers, as resolved.
    settings: &'a BTreeMap<String, String>,
    /// What reports call the run: `rlm`, `composed` (the heuristic's evidence
    /// composed by a model) or `heuristic` (no model).
    label: &'static str,
}

impl<'a> From<&'a rlmkg_eval::runner::RunConfig> for RunConfig<'a> {
    fn from(c: &'a rlmkg_eval::runner::RunConfig) -> Self {
        Self {
            strategy: &c.strategy,
            effective: &c.effective,
            root_model: c.root_model.as_deref(),
            sub_model: c.sub_model.as_deref(),
            settings: &c.settings,
            label: c.label(),
        }
    }
}

/// `rlmkg --json eval`: the means over the questions (`summary`); the
/// answer scores only when there were runs.
#[derive(Debug, Serialize)]
pub(crate) struct EvalSummary<'a> {
    /// Questions scored.
    questions: usize,
    /// Mean BM25 recall.
    bm25: Recall,
    /// Mean graph recall.
    graph: Recall,
    /// Questions whose graph ranking failed.
    graph_errors: usize,
    /// Mean recall of what runs read.
    #[serde(skip_serializing_if = "Option::is_none")]
    read: Option<Recall>,
    /// Runs that ended in an error.
    #[serde(skip_serializing_if = "Option::is_none")]
    run_errors: Option<usize>,
    /// Mean exact match.
    #[serde(skip_serializing_if = "Option::is_none")]
    em: Option<f64>,
    /// Mean F1.
    #[serde(skip_serializing_if = "Option::is_none")]
    f1: Option<f64>,
    /// Share of answers containing the gold answer.
    #[serde(skip_serializing_if = "Option::is_none")]
    contains: Option<f64>,
    /// Mean claim support rate.
    #[serde(skip_serializing_if = "Option::is_none")]
    claims_supported: Option<f64>,
    /// Share of "not found" answers.
    #[serde(skip_serializing_if = "Option::is_none")]
    not_found: Option<f64>,
    /// The same scores per answering method.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    by_method: Vec<MethodRow<'a>>,
    /// How the runs ended per kind of question, then over all (`all`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    by_kind: Vec<KindRow<'a>>,
    /// Mean citation precision (datasets with gold sentences).
    #[serde(skip_serializing_if = "Option::is_none")]
    citation_precision: Option<f64>,
    /// Mean citation recall (datasets with gold sentences).
    #[serde(skip_serializing_if = "Option::is_none")]
    citation_recall: Option<f64>,
    /// Total model calls.
    calls: u64,
    /// Total tokens.
    tokens: u64,
    /// Total seconds over the questions.
    seconds: f64,
}

/// Recall at 2, 5 and 10 (null: no gold passage).
#[derive(Debug, Serialize)]
pub(crate) struct Recall {
    /// Recall@2.
    #[serde(rename = "r@2")]
    r2: Option<f64>,
    /// Recall@5.
    #[serde(rename = "r@5")]
    r5: Option<f64>,
    /// Recall@10.
    #[serde(rename = "r@10")]
    r10: Option<f64>,
}

impl From<&rlmkg_eval::score::RecallAtK> for Recall {
    fn from(r: &rlmkg_eval::score::RecallAtK) -> Self {
        Self {
            r2: r.r2,
            r5: r.r5,
            r10: r.r10,
        }
    }
}

/// The scores of the runs one answering method produced.
#[derive(Debug, Serialize)]
pub(crate) struct MethodRow<'a> {
    /// `extractive`, `heuristic_composed`, `rlm` or `failed`.
    method: &'a str,
    /// Runs.
    runs: usize,
    /// Mean exact match.
    em: f64,
    /// Mean F1.
    f1: f64,
    /// Share of answers containing the gold answer.
    contains: f64,
    /// Mean claim support rate.
    claims_supported: Option<f64>,
    /// Mean citation precision.
    citation_precision: Option<f64>,
    /// Mean citation recall.
    citation_recall: Option<f64>,
    /// Share of "not found" answers.
    not_found: f64,
    /// Right short answers (exact match).
    right: usize,
    /// Answers marked verified.
    verified: usize,
    /// Answers marked verified that are wrong.
    verified_wrong: usize,
    /// Mean handle calls per run.
    handle_calls: f64,
    /// Mean sub-model calls per run.
    sub_calls: f64,
    /// Mean root turns per run.
    turns: f64,
    /// Mean wall seconds per run.
    seconds: f64,
}

/// How the runs of one kind of question ended (a run counts in every
/// column that describes it).
#[derive(Debug, Serialize)]
pub(crate) struct KindRow<'a> {
    /// The kind (`two-hop`, `count`, HotpotQA's `bridge`, …) or `all`.
    kind: &'a str,
    /// Questions run.
    questions: usize,
    /// Right short answers (exact match), whoever gave them.
    right: usize,
    /// Wrong answers that stood as the strategy's own (not "not found", not
    /// handed to the heuristic, not failed).
    wrong_stood: usize,
    /// Answers marked verified.
    verified: usize,
    /// Answers marked verified that are wrong.
    verified_wrong: usize,
    /// Runs the RLM handed to the heuristic.
    fell_back: usize,
    /// Of those, the right ones.
    fell_back_right: usize,
    /// Answers that said "not found".
    not_found: usize,
    /// Runs that failed with an error.
    failed: usize,
}

impl<'a> From<&'a rlmkg_eval::score::KindRow> for KindRow<'a> {
    fn from(k: &'a rlmkg_eval::score::KindRow) -> Self {
        Self {
            kind: &k.kind,
            questions: k.questions,
            right: k.right,
            wrong_stood: k.wrong_stood,
            verified: k.verified,
            verified_wrong: k.verified_wrong,
            fell_back: k.fell_back,
            fell_back_right: k.fell_back_right,
            not_found: k.not_found,
            failed: k.failed,
        }
    }
}

impl<'a> From<&'a rlmkg_eval::score::Summary> for EvalSummary<'a> {
    fn from(s: &'a rlmkg_eval::score::Summary) -> Self {
        Self {
            questions: s.questions,
            bm25: (&s.bm25).into(),
            graph: (&s.graph).into(),
            graph_errors: s.graph_errors,
            read: s.read.as_ref().map(Recall::from),
            run_errors: s.run_errors,
            em: s.em,
            f1: s.f1,
            contains: s.contains,
            claims_supported: s.claims_supported,
            not_found: s.not_found,
            by_method: s
                .by_method
                .iter()
                .map(|m| MethodRow {
                    method: &m.method,
                    runs: m.runs,
                    em: m.em,
                    f1: m.f1,
                    contains: m.contains,
                    claims_supported: m.claims_supported,
                    citation_precision: m.citation_precision,
                    citation_recall: m.citation_recall,
                    not_found: m.not_found,
                    right: m.right,
                    verified: m.verified,
                    verified_wrong: m.verified_wrong,
                    handle_calls: m.handle_calls,
                    sub_calls: m.sub_calls,
                    turns: m.turns,
                    seconds: m.seconds,
                })
                .collect(),
            by_kind: s.by_kind.iter().map(KindRow::from).collect(),
            citation_precision: s.citation_precision,
            citation_recall: s.citation_recall,
            calls: s.calls,
            tokens: s.tokens,
            seconds: s.seconds,
        }
    }
}

/// `rlmkg --json eval` on WiCE claims: the checker's agreement with the
/// human labels (`lexical`, and `judged` with `--judge`).
#[derive(Debug, Serialize)]
pub(crate) struct WiceScores<'a> {
    /// Claims evaluated.
    claims: usize,
    /// `confusion[gold][predicted]`, in the order supported,
    /// partially_supported, not_supported.
    confusion: &'a [[usize; 3]; 3],
    /// F1 per label, same order.
    f1: &'a [f64; 3],
    /// Mean of the three F1s.
    macro_f1: f64,
    /// Share of claims with the gold label.
    accuracy: f64,
}

impl<'a> From<&'a rlmkg_citation::wice::WiceReport> for WiceScores<'a> {
    fn from(r: &'a rlmkg_citation::wice::WiceReport) -> Self {
        Self {
            claims: r.claims,
            confusion: &r.confusion,
            f1: &r.f1,
            macro_f1: r.macro_f1,
            accuracy: r.accuracy,
        }
    }
}

/// `rlmkg --json trace show`: a trajectory's header, turns and final line
/// (null when the file has none). The keys of every object are in
/// alphabetical order, as the output has always had them; the budgets and
/// the verification are passed on as the trajectory holds them (free-form
/// JSON in the file format).
#[derive(Debug, Serialize)]
pub(crate) struct Trace<'a> {
    /// The final line.
    #[serde(rename = "final")]
    final_line: Option<TraceFinal<'a>>,
    /// The header.
    header: Option<TraceHeader<'a>>,
    /// The root turns in order.
    iterations: Vec<TraceIteration<'a>>,
}

/// A trajectory's header.
#[derive(Debug, Serialize)]
pub(crate) struct TraceHeader<'a> {
    /// Budgets in force.
    budgets: &'a serde_json::Value,
    /// The sub-call fan-out and where it came from.
    #[serde(skip_serializing_if = "Option::is_none")]
    concurrency: Option<Concurrency>,
    /// The metadata message sent.
    metadata_message: &'a str,
    /// The prompt profile.
    profile: &'a str,
    /// The question.
    question: &'a str,
    /// Root model id.
    root_model: &'a str,
    /// The run's id.
    run_id: &'a str,
    /// Start time, seconds since the Unix epoch.
    started_at: u64,
    /// Sub-call model id.
    sub_model: &'a str,
    /// The system prompt sent.
    system_prompt: &'a str,
    /// The trajectory format's version.
    version: u32,
}

/// The sub-call fan-out chosen for a run.
#[derive(Debug, Serialize)]
pub(crate) struct Concurrency {
    /// Sub-calls at once.
    limit: usize,
    /// Where it came from (`configured`, `server`, `backend_default`).
    source: rlm_core::ConcurrencySource,
}

/// One model turn.
#[derive(Debug, Serialize)]
pub(crate) struct TraceIteration<'a> {
    /// Executed blocks in order.
    blocks: Vec<TraceBlock<'a>>,
    /// Whether the call was answered from the cache.
    cached: bool,
    /// Recursion depth (0 for the root run).
    depth: u32,
    /// Events.
    events: Vec<TraceEvent<'a>>,
    /// The user message sent back after the turn.
    feedback: &'a str,
    /// 1-based turn number.
    iteration: u32,
    /// Call latency in milliseconds.
    latency_ms: u64,
    /// The reasoning block, if the model produced one.
    reasoning: Option<&'a str>,
    /// The reply with reasoning removed.
    reply: &'a str,
    /// The server that answered, when the model is a pool.
    #[serde(skip_serializing_if = "Option::is_none")]
    server: Option<&'a str>,
    /// Sub-calls made by the blocks.
    sub_calls: Vec<SubCall<'a>>,
    /// Token usage of the call.
    usage: TokenUsage,
}

/// One executed code block.
#[derive(Debug, Serialize)]
pub(crate) struct TraceBlock<'a> {
    /// The code.
    code: &'a str,
    /// Characters cut from the output.
    cut_chars: usize,
    /// Wall time in milliseconds.
    elapsed_ms: u64,
    /// The Python error, if the block raised.
    error: Option<&'a str>,
    /// The limit that stopped the block, if any.
    limit: Option<rlm_core::LimitHit>,
    /// Output shown to the model.
    output: &'a str,
}

/// Something notable in a turn.
#[derive(Debug, Serialize)]
pub(crate) struct TraceEvent<'a> {
    /// What kind (`retry`, `guard`, `budget`, …).
    kind: &'a str,
    /// Details in words.
    message: &'a str,
}

/// One sub-call made from the REPL.
#[derive(Debug, Serialize)]
pub(crate) struct SubCall<'a> {
    /// Answered from the cache.
    cached: bool,
    /// For `rlm_query`: the child run's turns.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    child: Vec<TraceIteration<'a>>,
    /// The error returned to the code, if the call failed.
    error: Option<&'a str>,
    /// `llm_query`, `llm_query_batched`, `rlm_query` or `rlm_query_plain`.
    kind: &'a str,
    /// Latency in milliseconds.
    latency_ms: u64,
    /// Model id.
    model: &'a str,
    /// Characters in the prompt.
    prompt_chars: usize,
    /// Short hash of the prompt.
    prompt_hash: &'a str,
    /// Short hash of the response (empty on error).
    response_hash: &'a str,
    /// Retries before the final attempt.
    retries: u32,
    /// The server that answered, when the sub-model is a pool.
    #[serde(skip_serializing_if = "Option::is_none")]
    server: Option<&'a str>,
    /// Token usage.
    usage: TokenUsage,
}

/// Token usage of one call.
#[derive(Debug, Serialize)]
pub(crate) struct TokenUsage {
    /// Tokens generated.
    completion_tokens: u64,
    /// Tokens in the prompt.
    prompt_tokens: u64,
}

/// A trajectory's final line.
#[derive(Debug, Serialize)]
pub(crate) struct TraceFinal<'a> {
    /// The answer, if any.
    answer: Option<&'a str>,
    /// How the run ended.
    ending: rlm_core::Ending,
    /// Ids the run read or was shown.
    read_ids: &'a [String],
    /// Why the run stopped.
    stop_reason: &'a str,
    /// Usage totals.
    totals: TraceTotals,
    /// The verification the caller attached.
    verification: &'a serde_json::Value,
}

/// Usage totals of a run (keys in alphabetical order).
#[derive(Debug, Serialize)]
pub(crate) struct TraceTotals {
    /// Calls answered from the cache.
    cached_calls: u64,
    /// Model calls.
    calls: u64,
    /// Completion tokens.
    completion_tokens: u64,
    /// Cost.
    cost: f64,
    /// Calls of the handle's functions.
    handle_calls: u64,
    /// Root iterations.
    iterations: u32,
    /// Prompt tokens.
    prompt_tokens: u64,
    /// Wall seconds.
    seconds: f64,
    /// Sub-calls from the REPL.
    sub_calls: u64,
}

impl From<&rlm_core::Usage> for TokenUsage {
    fn from(u: &rlm_core::Usage) -> Self {
        Self {
            completion_tokens: u.completion_tokens,
            prompt_tokens: u.prompt_tokens,
        }
    }
}

impl<'a> From<&'a rlm_core::trajectory::TraceIteration> for TraceIteration<'a> {
    fn from(it: &'a rlm_core::trajectory::TraceIteration) -> Self {
        Self {
            blocks: it
                .blocks
                .iter()
                .map(|b| TraceBlock {
                    code: &b.code,
                    cut_chars: b.cut_chars,
                    elapsed_ms: b.elapsed_ms,
                    error: b.error.as_deref(),
                    limit: b.limit,
                    output: &b.output,
                })
                .collect(),
            cached: it.cached,
            depth: it.depth,
            events: it
                .events
                .iter()
                .map(|e| TraceEvent {
                    kind: &e.kind,
                    message: &e.message,
                })
                .collect(),
            feedback: &it.feedback,
            iteration: it.iteration,
            latency_ms: it.latency_ms,
            reasoning: it.reasoning.as_deref(),
            reply: &it.reply,
            server: it.server.as_deref(),
            sub_calls: it
                .sub_calls
                .iter()
                .map(|c| SubCall {
                    cached: c.cached,
                    child: c.child.iter().map(TraceIteration::from).collect(),
                    error: c.error.as_deref(),
                    kind: &c.kind,
                    latency_ms: c.latency_ms,
                    model: &c.model,
                    prompt_chars: c.prompt_chars,
                    prompt_hash: &c.prompt_hash,
                    response_hash: &c.response_hash,
                    retries: c.retries,
                    server: c.server.as_deref(),
                    usage: (&c.usage).into(),
                })
                .collect(),
            usage: (&it.usage).into(),
        }
    }
}

impl<'a> From<&'a rlm_core::Trajectory> for Trace<'a> {
    fn from(t: &'a rlm_core::Trajectory) -> Self {
        Self {
            final_line: t.final_line.as_ref().map(|f| TraceFinal {
                answer: f.answer.as_deref(),
                ending: f.ending,
                read_ids: &f.read_ids,
                stop_reason: &f.stop_reason,
                totals: TraceTotals {
                    cached_calls: f.totals.cached_calls,
                    calls: f.totals.calls,
                    completion_tokens: f.totals.completion_tokens,
                    cost: f.totals.cost,
                    handle_calls: f.totals.handle_calls,
                    iterations: f.totals.iterations,
                    prompt_tokens: f.totals.prompt_tokens,
                    seconds: f.totals.seconds,
                    sub_calls: f.totals.sub_calls,
                },
                verification: &f.verification,
            }),
            header: t.header.as_ref().map(|h| TraceHeader {
                budgets: &h.budgets,
                concurrency: h.concurrency.map(|c| Concurrency {
                    limit: c.limit,
                    source: c.source,
                }),
                metadata_message: &h.metadata_message,
                profile: &h.profile,
                question: &h.question,
                root_model: &h.root_model,
                run_id: &h.run_id,
                started_at: h.started_at,
                sub_model: &h.sub_model,
                system_prompt: &h.system_prompt,
                version: h.version,
            }),
            iterations: t.iterations.iter().map(TraceIteration::from).collect(),
        }
    }
}
