//! Resolving citation ids to the source sentences they name. The checker knows
//! nothing of the store: anything implementing [`SpanSource`] will do (the CLI
//! adapts the store; [`MemorySource`] serves tests, evaluations and callers that
//! hold their sources in memory).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::id::CitationId;

/// One source sentence, with what a footnote needs to point at it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SourceSentence {
    /// Sentence id, e.g. `c12.s3`.
    pub id: String,
    /// The sentence text (bytes of the normalized document).
    pub text: String,
    /// First line (1-based) of the sentence in the document.
    pub line_start: u32,
    /// Last line (1-based, inclusive).
    pub line_end: u32,
    /// Page number for paged formats (PDF).
    pub page: Option<u32>,
}

/// What a citation id resolves to: the cited sentences of one document.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Source {
    /// The canonical id that was resolved (`c12`, `c12.s3`, `c12.s2-s4`).
    pub id: String,
    /// Path of the document, as shown in footnotes.
    pub path: String,
    /// Title of the document, if known.
    pub title: Option<String>,
    /// The cited sentences, in document order.
    pub sentences: Vec<SourceSentence>,
}

impl Source {
    /// First and last line of the cited sentences.
    pub fn lines(&self) -> Option<(u32, u32)> {
        let start = self.sentences.iter().map(|s| s.line_start).min()?;
        let end = self.sentences.iter().map(|s| s.line_end).max()?;
        Some((start, end))
    }

    /// The first page any cited sentence is on.
    pub fn page(&self) -> Option<u32> {
        self.sentences.iter().find_map(|s| s.page)
    }
}

/// Failure of the span source itself (an id that does not exist is `Ok(None)`, not an error).
#[derive(Debug, thiserror::Error)]
#[error("span source failed: {message}")]
pub struct SourceError {
    /// What went wrong.
    pub message: String,
}

impl SourceError {
    /// A source error with a message.
    pub fn new(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
        }
    }
}

/// What one source sentence may refer back to: a leading pronoun or a definite
/// description ("the institute") is read as naming the previous sentence's subject,
/// the section heading or the document title.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Referents {
    /// The sentence before it in the document (across a chunk boundary too), if any.
    pub previous: Option<String>,
    /// The heading of its section, if the document has headings.
    pub heading: Option<String>,
    /// The document title.
    pub title: Option<String>,
}

/// Resolves citation ids to source sentences.
pub trait SpanSource {
    /// The sentences `id` names, or `Ok(None)` when it names nothing (a broken citation).
    fn resolve(&self, id: &CitationId) -> Result<Option<Source>, SourceError>;

    /// What the single sentence `id` (`c12.s3`) may refer back to. The default
    /// knows nothing, so pronouns stay unresolved.
    fn referents(&self, id: &CitationId) -> Result<Referents, SourceError> {
        let _ = id;
        Ok(Referents::default())
    }
}

/// Referents of sentence `k` (1-based) among `sentences`, given the sentences of
/// the document before them (`before`, in order) and the title. Headings are
/// sentences starting with `#`. Shared by [`MemorySource`] and store adapters.
pub fn referents_in(
    before: &[String],
    sentences: &[String],
    k: usize,
    title: Option<&str>,
) -> Referents {
    let prior: Vec<&String> = before
        .iter()
        .chain(sentences.iter().take(k.saturating_sub(1)))
        .collect();
    let is_heading = |s: &&String| s.trim_start().starts_with('#');
    Referents {
        previous: prior.last().map(|s| s.to_string()),
        heading: prior
            .iter()
            .rev()
            .find(|s| is_heading(s))
            .map(|s| s.trim_start_matches(['#', ' ']).trim().to_string()),
        title: title.filter(|t| !t.trim().is_empty()).map(str::to_string),
    }
}

/// A chunk held in memory by [`MemorySource`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MemoryChunk {
    /// Document path shown in footnotes.
    pub path: String,
    /// Document title.
    #[serde(default)]
    pub title: Option<String>,
    /// Line of the chunk's first sentence (1-based); each sentence is taken to be one line.
    #[serde(default = "one")]
    pub first_line: u32,
    /// Page, for paged formats.
    #[serde(default)]
    pub page: Option<u32>,
    /// The chunk's sentences, in order (`s1` is the first).
    pub sentences: Vec<String>,
}

fn one() -> u32 {
    1
}

/// An in-memory [`SpanSource`]: chunk number → sentences.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct MemorySource {
    /// Chunks by number.
    pub chunks: BTreeMap<u64, MemoryChunk>,
}

impl MemorySource {
    /// An empty source.
    pub fn new() -> Self {
        Self::default()
    }

    /// Add chunk `c<number>` with one sentence per line starting at line 1.
    pub fn insert(
        &mut self,
        number: u64,
        path: impl Into<String>,
        sentences: Vec<String>,
    ) -> &mut Self {
        self.chunks.insert(
            number,
            MemoryChunk {
                path: path.into(),
                title: None,
                first_line: 1,
                page: None,
                sentences,
            },
        );
        self
    }
}

impl SpanSource for MemorySource {
    fn resolve(&self, id: &CitationId) -> Result<Option<Source>, SourceError> {
        let Some(chunk) = self.chunks.get(&id.chunk.0) else {
            return Ok(None);
        };
        let n = u32::try_from(chunk.sentences.len()).unwrap_or(u32::MAX);
        let (a, b) = id.sentences.map_or((1, n), |r| (r.first(), r.last()));
        if a == 0 || b > n || a > b {
            return Ok(None);
        }
        let sentences = (a..=b)
            .filter_map(|k| {
                let text = chunk.sentences.get((k - 1) as usize)?;
                let line = chunk.first_line + k - 1;
                Some(SourceSentence {
                    id: id.chunk.sentence(k)?.to_string(),
                    text: text.clone(),
                    line_start: line,
                    line_end: line,
                    page: chunk.page,
                })
            })
            .collect();
        Ok(Some(Source {
            id: id.to_string(),
            path: chunk.path.clone(),
            title: chunk.title.clone(),
            sentences,
        }))
    }

    fn referents(&self, id: &CitationId) -> Result<Referents, SourceError> {
        let Some(chunk) = self.chunks.get(&id.chunk.0) else {
            return Ok(Referents::default());
        };
        let Some(k) = id.sentences.map(|r| r.first()) else {
            return Ok(Referents::default());
        };
        // Earlier chunks of the same document, in order.
        let before: Vec<String> = self
            .chunks
            .range(..id.chunk.0)
            .filter(|(_, c)| c.path == chunk.path)
            .flat_map(|(_, c)| c.sentences.iter().cloned())
            .collect();
        Ok(referents_in(
            &before,
            &chunk.sentences,
            k as usize,
            chunk.title.as_deref(),
        ))
    }
}
