//! The per-file part of ingest: read, normalize, chunk, extract. Pure and
//! parallel; ids are assigned afterwards, in order, by the store.

use std::path::Path;

use crate::extract::{Extraction, SentenceRef, extract};
use crate::formats::{DocMeta, ReadOptions, read_file};
use crate::manifest::Settings;
use crate::text::{SegmentMode, chunk_sentences, line_at, segment};
use crate::tokens::TokenCounter;

/// Options of an ingest.
#[derive(Debug, Clone)]
pub struct IngestOptions {
    /// Glob patterns to exclude (gitignore syntax), besides `.gitignore` files.
    pub exclude: Vec<String>,
    /// Delete files that vanished from ingested directories (default on).
    pub prune: bool,
    /// Target chunk size in tokens (as counted by `tokens`).
    pub target_tokens: usize,
    /// Overlap between consecutive chunks, in sentences.
    pub overlap_sentences: usize,
    /// JSONL / JSON text field.
    pub text_field: String,
    /// JSONL / JSON title field.
    pub title_field: String,
    /// Worker threads (0 = all cores).
    pub threads: usize,
    /// Bytes of input per commit batch (see [`DEFAULT_BATCH_BYTES`]). Memory
    /// grows with it up to tantivy's budget: tantivy keeps a batch's postings
    /// in memory until the commit or until its budget is spent.
    pub batch_bytes: u64,
    /// How sentence tokens are counted (default: the bytes/4 approximation).
    pub tokens: TokenCounter,
    /// Files larger than this are skipped with a warning.
    pub max_file_bytes: u64,
    /// Writes a vector per chunk when set (dense retrieval, issue 46); its
    /// identity is recorded in the store's settings.
    pub embedder: Option<std::sync::Arc<dyn crate::Embedder>>,
    /// Has a model read facts from every chunk besides the rules when set
    /// (`ingest --extract llm`); its identity is recorded in the store's
    /// settings.
    pub fact_reader: Option<std::sync::Arc<dyn crate::FactReader>>,
}

/// The default of [`IngestOptions::batch_bytes`]: 64 MiB. Each commit waits
/// for tantivy's indexing thread to drain its queue (up to 10,000 chunks,
/// about a quarter of a second) with the other core idle once preparing is
/// done, so fewer, larger batches index faster; a kill loses at most one
/// batch of work.
pub const DEFAULT_BATCH_BYTES: u64 = 64 << 20;

/// The default of [`IngestOptions::max_file_bytes`]: 256 MiB.
pub const DEFAULT_MAX_FILE_BYTES: u64 = 256 << 20;

impl Default for IngestOptions {
    fn default() -> Self {
        Self {
            exclude: Vec::new(),
            prune: true,
            target_tokens: 200,
            overlap_sentences: 1,
            text_field: "text".into(),
            title_field: "title".into(),
            threads: 0,
            batch_bytes: DEFAULT_BATCH_BYTES,
            tokens: TokenCounter::approx(),
            max_file_bytes: DEFAULT_MAX_FILE_BYTES,
            embedder: None,
            fact_reader: None,
        }
    }
}

impl IngestOptions {
    /// The chunking settings these options record in the store.
    pub fn settings(&self) -> Settings {
        Settings {
            target_tokens: self.target_tokens,
            overlap_sentences: self.overlap_sentences,
            tokenizer: self.tokens.identity().to_string(),
            tokenizer_source: self.tokens.source().map(str::to_string),
            sentence_rules: rlmkg_text::SENTENCE_RULES_VERSION,
            embedder: self.embedder.as_ref().map(|e| e.identity()),
            fact_reader: self.fact_reader.as_ref().map(|r| r.identity()),
        }
    }
}

/// A chunk before ids are assigned.
#[derive(Debug, Clone)]
pub(crate) struct PChunk {
    pub start: usize,
    pub end: usize,
    pub line_start: u32,
}

/// A document ready for the store; `extraction` names chunks by their index
/// in `chunks` until the store assigns ids.
#[derive(Debug)]
pub(crate) struct PDoc {
    pub title: String,
    pub text: String,
    pub format: &'static str,
    pub meta: DocMeta,
    pub chunks: Vec<PChunk>,
    pub extraction: Extraction,
}

/// One file's prepared documents.
#[derive(Debug, Default)]
pub(crate) struct PFile {
    pub docs: Vec<PDoc>,
    pub warnings: Vec<String>,
    pub skipped: Option<String>,
}

/// Group sentences into chunks of about `target` tokens with `overlap`
/// sentences shared by neighbours, given each sentence's token count. Returns
/// half-open sentence index ranges. A chunk exceeds `target` only when its
/// first sentence alone does.
pub(crate) fn pack(counts: &[usize], target: usize, overlap: usize) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < counts.len() {
        let mut j = i;
        let mut tokens = 0;
        while j < counts.len() {
            let t = counts[j];
            if j > i && tokens + t > target {
                break;
            }
            tokens += t;
            j += 1;
        }
        out.push((i, j));
        if j >= counts.len() {
            break;
        }
        let n = j - i;
        i = if n > overlap { j - overlap } else { j };
    }
    out
}

/// Prepare one document: segment it once, chunk it and extract entities and
/// relations.
pub(crate) fn prepare_doc(
    title: String,
    text: String,
    format: &'static str,
    meta: DocMeta,
    opts: &IngestOptions,
) -> PDoc {
    let mode = SegmentMode::for_format(format);
    let seg = segment(&text, mode);
    let sents = &seg.spans;
    let counts: Vec<usize> = sents
        .iter()
        .map(|&(a, b)| opts.tokens.count(&text[a..b]))
        .collect();
    let ranges = pack(&counts, opts.target_tokens.max(1), opts.overlap_sentences);
    let mut chunks = Vec::with_capacity(ranges.len());
    let mut line = 1u32;
    let mut line_pos = 0usize;
    for &(i, j) in &ranges {
        let (s, e) = (sents[i].0, sents[j - 1].1);
        line = line_at(&text, line_pos, line, s);
        line_pos = s;
        chunks.push(PChunk {
            start: s,
            end: e,
            line_start: line,
        });
    }
    // Sentences for extraction: each chunk's sentences as read back (`c12.s3`),
    // each sentence attributed to the first chunk that holds it.
    let mut srefs: Vec<SentenceRef> = Vec::new();
    let mut covered = 0usize;
    for (k, &(i, j)) in ranges.iter().enumerate() {
        for (a, b) in chunk_sentences(&text, &seg, i, j, mode) {
            if a >= covered {
                srefs.push(SentenceRef {
                    chunk: k,
                    start: a,
                    end: b,
                });
            }
        }
        covered = covered.max(sents[j - 1].1);
    }
    let extraction = extract(&text, &title, &srefs);
    PDoc {
        title,
        text,
        format,
        meta,
        chunks,
        extraction,
    }
}

/// Read and prepare one file.
pub(crate) fn prepare_file(
    path: &Path,
    bytes: &[u8],
    format: &'static str,
    opts: &IngestOptions,
) -> PFile {
    let ro = ReadOptions {
        text_field: opts.text_field.clone(),
        title_field: opts.title_field.clone(),
    };
    let outcome = read_file(path, bytes, format, &ro);
    let docs = if outcome.docs.len() > 1 {
        use rayon::prelude::*;
        outcome
            .docs
            .into_par_iter()
            .map(|d| prepare_doc(d.title, d.text, d.format, d.meta, opts))
            .collect()
    } else {
        outcome
            .docs
            .into_iter()
            .map(|d| prepare_doc(d.title, d.text, d.format, d.meta, opts))
            .collect()
    };
    PFile {
        docs,
        warnings: outcome.warnings,
        skipped: outcome.skipped,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pack_respects_target_and_overlap() {
        let text = "Aaaa bbbb. ".repeat(20);
        let sents = crate::text::sentences(&text, SegmentMode::Prose);
        let counts: Vec<usize> = sents
            .iter()
            .map(|&(a, b)| TokenCounter::approx().count(&text[a..b]))
            .collect();
        let chunks = pack(&counts, 6, 1);
        assert!(chunks.len() > 5);
        for w in chunks.windows(2) {
            assert!(w[1].0 < w[0].1, "overlap of one sentence");
            assert!(w[1].1 > w[0].1, "progress");
        }
        assert_eq!(pack(&counts, 1000, 0), vec![(0, sents.len())]);
    }

    /// Every chunk's derived sentences equal the re-segmentation of its text
    /// (what `c12.s3` numbering reads) on the fixture corpora and the sample
    /// corpus, for several chunk sizes; `RLMKG_SEGMENT_CORPUS` adds a folder.
    #[test]
    fn chunk_sentences_match_resegmentation_on_corpora() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let mut dirs = vec![
            root.join("tests").join("fixtures").join("ingest"),
            root.join("examples").join("corpus"),
        ];
        if let Some(extra) = std::env::var_os("RLMKG_SEGMENT_CORPUS") {
            dirs.push(extra.into());
        }
        let ro = ReadOptions {
            text_field: "text".into(),
            title_field: "title".into(),
        };
        let (mut docs, mut chunks) = (0, 0);
        for dir in dirs {
            for entry in ignore::WalkBuilder::new(&dir).build().flatten() {
                let path = entry.path();
                let Some(format) = crate::formats::format_of(path) else {
                    continue;
                };
                let Ok(bytes) = std::fs::read(path) else {
                    continue;
                };
                for d in read_file(path, &bytes, format, &ro).docs {
                    docs += 1;
                    let mode = SegmentMode::for_format(d.format);
                    let seg = segment(&d.text, mode);
                    let counts: Vec<usize> = seg
                        .spans
                        .iter()
                        .map(|&(a, b)| TokenCounter::approx().count(&d.text[a..b]))
                        .collect();
                    for (target, overlap) in [(1, 0), (12, 1), (60, 2), (200, 1)] {
                        for (i, j) in pack(&counts, target, overlap) {
                            chunks += 1;
                            let (cs, ce) = (seg.spans[i].0, seg.spans[j - 1].1);
                            let again: Vec<(usize, usize)> =
                                crate::text::sentences(&d.text[cs..ce], mode)
                                    .into_iter()
                                    .map(|(a, b)| (cs + a, cs + b))
                                    .collect();
                            assert_eq!(
                                chunk_sentences(&d.text, &seg, i, j, mode),
                                again,
                                "{}: chunk {:?}",
                                path.display(),
                                &d.text[cs..ce]
                            );
                        }
                    }
                }
            }
        }
        assert!(
            docs >= 20 && chunks >= 500,
            "{docs} documents, {chunks} chunks"
        );
    }

    #[test]
    fn pack_exceeds_target_only_for_one_long_sentence() {
        let counts = [3, 3, 9, 3, 3, 3, 1];
        let chunks = pack(&counts, 6, 0);
        assert_eq!(chunks, vec![(0, 2), (2, 3), (3, 5), (5, 7)]);
        for &(i, j) in &chunks {
            let sum: usize = counts[i..j].iter().sum();
            assert!(sum <= 6 || j - i == 1);
        }
        assert!(pack(&[], 6, 1).is_empty());
    }
}
