//! Public result types of the store (all serializable for `--json` and the REPL).

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

pub use rlmkg_corpus::{
    Corpus, DocInfo, DocRef, EntityInfo, Fact, GraphPath, Neighbor, Passage, PathStep, RankedChunk,
    SearchHit, SentenceSpan,
};
pub use rlmkg_graph::SparqlOutput;

/// Store statistics.
#[derive(Debug, Clone, Serialize, PartialEq, Default)]
pub struct StoreStats {
    /// Files.
    pub files: u64,
    /// Documents.
    pub docs: u64,
    /// Chunks.
    pub chunks: u64,
    /// Entities.
    pub entities: u64,
    /// Aggregated relations: facts and co-occurrences.
    pub relations: u64,
    /// Of the relations, the facts (not co-occurrence).
    pub facts: u64,
    /// Mentions.
    pub mentions: u64,
    /// Characters (bytes) of normalized text.
    pub chars: u64,
    /// Entities per type guess.
    pub entity_types: BTreeMap<String, u64>,
    /// RDF quads.
    pub quads: u64,
}

/// The summary of an ingest.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Default)]
pub struct IngestSummary {
    /// Files seen.
    pub files: u64,
    /// Files (re)ingested.
    pub ingested: u64,
    /// Files unchanged (skipped by hash).
    pub unchanged: u64,
    /// Files skipped (unsupported, binary, unreadable, corrupt).
    pub skipped: u64,
    /// Files removed because they vanished (prune).
    pub removed: u64,
    /// Documents added.
    pub docs: u64,
    /// Chunks added.
    pub chunks: u64,
    /// Entities in the store after the ingest (as `stats` counts them).
    pub entities: u64,
    /// Aggregated relations in the store after the ingest: facts and
    /// co-occurrences (as `stats` counts them).
    pub relations: u64,
    /// Of the relations, the facts.
    #[serde(default)]
    pub facts: u64,
    /// Mentions in the store after the ingest (as `stats` counts them).
    pub mentions: u64,
    /// Warnings (one per problem).
    pub warnings: u64,
    /// Bytes read from ingested files.
    pub bytes: u64,
    /// Wall seconds.
    pub seconds: f64,
    /// Ingested bytes per second, in MB/s.
    pub mb_per_s: f64,
    /// How chunk tokens were counted: `approx: bytes/4` or `tokenizers: <file>
    /// blake3:<hash prefix>` (the store's recorded setting).
    pub tokenizer: String,
    /// Where the wall time went.
    pub stages: StageTimes,
    /// What the model's reading of facts did (`ingest --extract llm`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model_facts: Option<crate::ModelFactStats>,
}

/// Wall seconds spent in each stage of an ingest. A batch is prepared while the
/// previous one is written, so `prepare` overlaps the other stages and the sum
/// can exceed [`IngestSummary::seconds`].
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Default)]
pub struct StageTimes {
    /// Walking the inputs and pruning vanished files.
    pub walk: f64,
    /// Reading, hashing, normalizing, chunking and extracting (parallel, and
    /// overlapping the writing of the previous batch).
    pub prepare: f64,
    /// Handing records and texts to the index and the text files.
    pub index: f64,
    /// Adding the documents to the graph view, on a thread of its own
    /// beside the other stages (wall seconds; at its low priority this
    /// includes waiting for a core).
    pub graph: f64,
    /// Commits of the batches before the last: index, manifest, replaced
    /// entries (each overlapping the preparation of the next part).
    pub commit: f64,
    /// The final commit (once, at the end): building the graph view of the
    /// whole store and writing its snapshot, beside the last index commit.
    pub view: f64,
    /// Making the chunks' vectors (with an embedder; on the preparing
    /// threads, after each part is prepared, so it overlaps the writing too).
    #[serde(default)]
    pub embed: f64,
}

/// The summary of a removal.
#[derive(Debug, Clone, Serialize, PartialEq, Eq, Default)]
pub struct RemoveSummary {
    /// Files removed.
    pub files: u64,
    /// Documents removed.
    pub docs: u64,
    /// Chunks removed.
    pub chunks: u64,
}

/// The result of checking the store invariants (SPEC §3.2).
#[derive(Debug, Clone, Serialize, PartialEq, Eq, Default)]
pub struct InvariantReport {
    /// Documents checked.
    pub docs: u64,
    /// Chunks checked.
    pub chunks: u64,
    /// Mention and evidence spans checked.
    pub spans: u64,
    /// Relations checked.
    pub relations: u64,
    /// Violations, one line each.
    pub violations: Vec<String>,
}

impl InvariantReport {
    /// True when no invariant is violated.
    pub fn ok(&self) -> bool {
        self.violations.is_empty()
    }
}

/// Progress reporting from the ingest pipeline (the binary draws a bar).
pub trait Progress: Sync {
    /// The number of files to look at.
    fn start(&self, total_files: u64);
    /// One file done.
    fn file_done(&self, path: &Path, bytes: u64);
    /// A warning (a skipped file, a malformed record).
    fn warn(&self, msg: &str);
    /// Before a model reads facts: what it may cost.
    fn model_facts_estimate(&self, _estimate: &crate::ModelFactEstimate) {}
    /// All done.
    fn finish(&self);
}

/// A progress reporter that ignores everything.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoProgress;

impl Progress for NoProgress {
    fn start(&self, _: u64) {}
    fn file_done(&self, _: &Path, _: u64) {}
    fn warn(&self, _: &str) {}
    fn finish(&self) {}
}

/// RDF export formats.
pub use rlmkg_graph::ExportFormat as RdfFormat;
