//! The per-file part of ingest: read, normalize, chunk, extract. Pure and
//! parallel; ids are assigned afterwards, in order, by the store.

use std::path::Path;

use crate::extract::{Extraction, SentenceRef, extract};
use crate::formats::{DocMeta, ReadOptions, read_file};
use crate::text::{SegmentMode, approx_tokens, line_at, sentences};

/// Options of an ingest.
#[derive(Debug, Clone)]
pub struct IngestOptions {
    /// Glob patterns to exclude (gitignore syntax), besides `.gitignore` files.
    pub exclude: Vec<String>,
    /// Delete files that vanished from ingested directories (default on).
    pub prune: bool,
    /// Target chunk size in approximate tokens.
    pub target_tokens: usize,
    /// Overlap between consecutive chunks, in sentences.
    pub overlap_sentences: usize,
    /// JSONL / JSON text field.
    pub text_field: String,
    /// JSONL / JSON title field.
    pub title_field: String,
    /// Worker threads (0 = all cores).
    pub threads: usize,
    /// Bytes of input per commit batch (bounds memory).
    pub batch_bytes: u64,
}

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
            batch_bytes: 16 << 20,
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

/// A document ready for the store; chunk references in `extraction` are local
/// chunk indexes (as strings) until ids are assigned.
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

/// Cut sentence spans into chunks of about `target` tokens with `overlap` sentences.
pub(crate) fn pack(
    text: &str,
    sents: &[(usize, usize)],
    target: usize,
    overlap: usize,
) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < sents.len() {
        let mut j = i;
        let mut tokens = 0;
        while j < sents.len() {
            let t = approx_tokens(&text[sents[j].0..sents[j].1]);
            if j > i && tokens + t > target {
                break;
            }
            tokens += t;
            j += 1;
        }
        out.push((sents[i].0, sents[j - 1].1));
        if j >= sents.len() {
            break;
        }
        let n = j - i;
        i = if n > overlap { j - overlap } else { j };
    }
    out
}

/// Prepare one document: chunk it and extract entities and relations.
pub(crate) fn prepare_doc(
    title: String,
    text: String,
    format: &'static str,
    meta: DocMeta,
    opts: &IngestOptions,
) -> PDoc {
    let mode = SegmentMode::for_format(format);
    let sents = sentences(&text, mode);
    let spans = pack(
        &text,
        &sents,
        opts.target_tokens.max(1),
        opts.overlap_sentences,
    );
    let mut chunks = Vec::with_capacity(spans.len());
    let mut line = 1u32;
    let mut line_pos = 0usize;
    let mut names: Vec<String> = Vec::with_capacity(spans.len());
    for (k, &(s, e)) in spans.iter().enumerate() {
        line = line_at(&text, line_pos, line, s);
        line_pos = s;
        chunks.push(PChunk {
            start: s,
            end: e,
            line_start: line,
        });
        names.push(k.to_string());
    }
    // Sentences for extraction: the chunk's own segmentation (as read back), each
    // sentence attributed to the first chunk that holds it.
    let mut srefs: Vec<SentenceRef<'_>> = Vec::new();
    let mut covered = 0usize;
    for (k, c) in chunks.iter().enumerate() {
        for (a, b) in sentences(&text[c.start..c.end], mode) {
            let (a, b) = (c.start + a, c.start + b);
            if a >= covered {
                srefs.push(SentenceRef {
                    chunk: &names[k],
                    start: a,
                    end: b,
                });
            }
        }
        covered = covered.max(c.end);
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
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
    use super::*;

    #[test]
    fn pack_respects_target_and_overlap() {
        let text = "Aaaa bbbb. ".repeat(20);
        let sents = sentences(&text, SegmentMode::Prose);
        let chunks = pack(&text, &sents, 6, 1);
        assert!(chunks.len() > 5);
        for w in chunks.windows(2) {
            assert!(w[1].0 < w[0].1, "overlap of one sentence");
            assert!(w[1].1 > w[0].1, "progress");
        }
        let chunks = pack(&text, &sents, 1000, 0);
        assert_eq!(chunks, vec![(0, text.trim_end().len())]);
    }
}
