//! Facts a model reads (`ingest --extract llm`, issue 43). The store hands a
//! [`FactReader`] the chunks it has not read before (the cache is keyed by
//! the reader and the chunk's content), and keeps a proposed fact only when
//! its evidence sentence holds both ends — the resolved subject aside (a
//! sentence that says "He" of the passage's subject) — and its relation is
//! one of the vocabulary's or a phrase the sentence says. The model adds to
//! what the rules found and never removes any of it.

mod admit;
mod cache;

use serde::{Deserialize, Serialize};

pub(crate) use admit::{ChunkReading, admit};
pub(crate) use cache::FactCache;

/// One passage handed to a [`FactReader`]: its document's title and its
/// sentences, which the reader numbers from 1 in this order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FactPassage<'a> {
    /// The document's title (what "he" or "it" most likely is).
    pub title: &'a str,
    /// The passage's sentences.
    pub sentences: Vec<&'a str>,
}

/// A fact as a reader proposes it: names as the text writes them, the
/// relation in words, and the number (from 1) of the sentence that says it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProposedFact {
    /// The subject's name.
    pub subject: String,
    /// The relation: a vocabulary label ("born in", "founded by") or a short
    /// verb phrase.
    pub relation: String,
    /// The object's name or value.
    pub object: String,
    /// The sentence's number in its passage, from 1.
    pub sentence: usize,
}

/// What a reader read from some passages.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FactReading {
    /// The facts of each passage, in the order given.
    pub facts: Vec<Vec<ProposedFact>>,
    /// Prompt tokens the reading took.
    pub prompt_tokens: u64,
    /// Completion tokens the reading took.
    pub completion_tokens: u64,
}

/// Reads facts from passages. The library implements it with a language
/// model; the store knows no model.
pub trait FactReader: Send + Sync + std::fmt::Debug {
    /// Who reads (the model and the prompt's version), recorded in the
    /// store's settings and part of every cache key: passages read by
    /// another reader are read again.
    fn identity(&self) -> String;
    /// The facts of each passage, in order (as many lists as passages).
    fn read(&self, passages: &[FactPassage<'_>]) -> Result<FactReading, String>;
    /// Prompt tokens a passage of `text_bytes` bytes of sentences costs, the
    /// instructions included (for the estimate before an ingest).
    fn prompt_tokens(&self, text_bytes: u64) -> u64;
    /// Completion tokens a passage may cost at most.
    fn max_completion_tokens(&self) -> u64;
    /// Whether it reads at all: [`CachedFactReader`] only keeps a store's
    /// record, giving what the cache holds and reading nothing new.
    fn reads(&self) -> bool {
        true
    }
}

/// The reader a store records, for an ingest that has no model at hand
/// (a server's or the Python package's): passages its model read before
/// come from the cache, others go unread (counted in
/// [`ModelFactStats::unread`]), and the store keeps its setting, so the
/// model's facts are not dropped by an ingest that cannot make them.
#[derive(Debug, Clone)]
pub struct CachedFactReader {
    identity: String,
}

impl CachedFactReader {
    /// The reader `settings` record, if any.
    pub fn of(settings: &crate::Settings) -> Option<std::sync::Arc<dyn FactReader>> {
        let identity = settings.fact_reader.clone()?;
        Some(std::sync::Arc::new(Self { identity }))
    }
}

impl FactReader for CachedFactReader {
    fn identity(&self) -> String {
        self.identity.clone()
    }

    fn read(&self, _: &[FactPassage<'_>]) -> Result<FactReading, String> {
        Err("no model is at hand to read new passages".into())
    }

    fn prompt_tokens(&self, _: u64) -> u64 {
        0
    }

    fn max_completion_tokens(&self) -> u64 {
        0
    }

    fn reads(&self) -> bool {
        false
    }
}

/// What the model's reading did in one ingest.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ModelFactStats {
    /// Who read ([`FactReader::identity`]).
    pub reader: String,
    /// Passages (chunks) of the ingested files.
    pub passages: u64,
    /// Of them, read from the cache (no model call).
    pub cached: u64,
    /// Of them, not read: the ingest had no model at hand
    /// ([`CachedFactReader`]); `ingest --extract llm` reads them.
    #[serde(default)]
    pub unread: u64,
    /// Facts the model proposed.
    pub proposed: u64,
    /// Facts added to the graph.
    pub added: u64,
    /// Proposed facts the rules had found already.
    pub known: u64,
    /// Facts dropped by the evidence check, by reason.
    pub dropped: std::collections::BTreeMap<String, u64>,
    /// Prompt tokens spent (cached passages cost none).
    pub prompt_tokens: u64,
    /// Completion tokens spent.
    pub completion_tokens: u64,
    /// Seconds spent waiting for the model.
    pub seconds: f64,
}

impl ModelFactStats {
    /// Facts dropped by the evidence check, whatever the reason.
    pub fn dropped_total(&self) -> u64 {
        self.dropped.values().sum()
    }

    pub(crate) fn drop_for(&mut self, reason: &str) {
        *self.dropped.entry(reason.to_owned()).or_default() += 1;
    }

    pub(crate) fn add(&mut self, other: &ModelFactStats) {
        self.passages += other.passages;
        self.cached += other.cached;
        self.unread += other.unread;
        self.proposed += other.proposed;
        self.added += other.added;
        self.known += other.known;
        for (k, v) in &other.dropped {
            *self.dropped.entry(k.clone()).or_default() += v;
        }
        self.prompt_tokens += other.prompt_tokens;
        self.completion_tokens += other.completion_tokens;
        self.seconds += other.seconds;
    }
}

/// The estimate before an ingest whose model reads the facts: the passages
/// at most (every walked file changed, none cached) and their tokens.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ModelFactEstimate {
    /// Who will read.
    pub reader: String,
    /// Bytes of the walked files.
    pub bytes: u64,
    /// Passages, about.
    pub passages: u64,
    /// Prompt tokens, about.
    pub prompt_tokens: u64,
    /// Completion tokens at most.
    pub completion_tokens: u64,
}

impl ModelFactEstimate {
    /// The estimate for `bytes` of input cut into chunks of about
    /// `chunk_tokens` tokens (bytes / 4 a token).
    pub fn new(reader: &dyn FactReader, bytes: u64, chunk_tokens: usize) -> Self {
        let chunk_bytes = (chunk_tokens.max(1) as u64).saturating_mul(4);
        let passages = bytes.div_ceil(chunk_bytes);
        Self {
            reader: reader.identity(),
            bytes,
            passages,
            prompt_tokens: passages.saturating_mul(reader.prompt_tokens(chunk_bytes)),
            completion_tokens: passages.saturating_mul(reader.max_completion_tokens()),
        }
    }
}

/// A chunk's sentences (byte spans of its document's text) and its cache
/// key.
type ChunkKey = (Vec<(usize, usize)>, String);

/// Passages handed to the reader in one call at most.
const READ_BATCH: usize = 16;

/// Has `reader` read the chunks of `docs` (from `cache` where it read them
/// before) and adds to each document the facts that pass the evidence
/// check; the statistics of it, and for each document whether a passage of
/// it went unread (a reader that [`FactReader::reads`] nothing new).
pub(crate) fn read_docs(
    docs: &mut [&mut crate::pipeline::PDoc],
    reader: &dyn FactReader,
    cache: &mut FactCache,
) -> Result<(ModelFactStats, Vec<bool>), crate::error::StoreError> {
    let identity = reader.identity();
    let mut stats = ModelFactStats::default();
    // Each chunk's sentences (spans of its document's text) and cache key.
    let mut chunks: Vec<Vec<ChunkKey>> = Vec::with_capacity(docs.len());
    let mut missing: Vec<(usize, usize)> = Vec::new();
    let mut unread = vec![false; docs.len()];
    for (d, doc) in docs.iter().enumerate() {
        let mode = crate::text::SegmentMode::for_format(doc.format);
        let mut of_doc = Vec::with_capacity(doc.chunks.len());
        for (c, chunk) in doc.chunks.iter().enumerate() {
            let text = doc.text.get(chunk.start..chunk.end).unwrap_or("");
            let spans: Vec<(usize, usize)> = crate::text::sentences(text, mode)
                .into_iter()
                .map(|(a, b)| (chunk.start + a, chunk.start + b))
                .collect();
            let key = FactCache::key(&identity, &passage(doc, &spans));
            stats.passages += 1;
            if cache.get(&key).is_some() {
                stats.cached += 1;
            } else if reader.reads() {
                missing.push((d, c));
            } else {
                stats.unread += 1;
                if let Some(u) = unread.get_mut(d) {
                    *u = true;
                }
            }
            of_doc.push((spans, key));
        }
        chunks.push(of_doc);
    }
    for batch in missing.chunks(READ_BATCH) {
        let passages: Vec<FactPassage<'_>> = batch
            .iter()
            .filter_map(|&(d, c)| Some(passage(docs.get(d)?, &chunks.get(d)?.get(c)?.0)))
            .collect();
        let t = std::time::Instant::now();
        let reading = reader.read(&passages).map_err(|e| {
            crate::error::StoreError::Invalid(format!(
                "reading facts with {identity}: {e} (the passages read so far are cached: an \
                 ingest run again goes on from there)"
            ))
        })?;
        stats.seconds += t.elapsed().as_secs_f64();
        stats.prompt_tokens += reading.prompt_tokens;
        stats.completion_tokens += reading.completion_tokens;
        if reading.facts.len() != passages.len() {
            return Err(crate::error::StoreError::Invalid(format!(
                "{identity} read {} passages of {}",
                reading.facts.len(),
                passages.len()
            )));
        }
        for (&(d, c), facts) in batch.iter().zip(reading.facts) {
            if let Some((_, key)) = chunks.get(d).and_then(|v| v.get(c)) {
                cache.put(key.clone(), facts);
            }
        }
        cache.flush()?;
    }
    for (doc, of_doc) in docs.iter_mut().zip(&chunks) {
        let readings: Vec<ChunkReading<'_>> = of_doc
            .iter()
            .enumerate()
            .map(|(c, (spans, key))| ChunkReading {
                chunk: c,
                sentences: spans,
                proposals: cache.get(key).unwrap_or(&[]),
            })
            .collect();
        admit(doc, &readings, &mut stats);
    }
    Ok((stats, unread))
}

/// The passage of a chunk whose sentences are `spans` of `doc`'s text.
fn passage<'a>(doc: &'a crate::pipeline::PDoc, spans: &[(usize, usize)]) -> FactPassage<'a> {
    FactPassage {
        title: &doc.title,
        sentences: spans
            .iter()
            .filter_map(|&(a, b)| doc.text.get(a..b))
            .map(str::trim)
            .collect(),
    }
}
