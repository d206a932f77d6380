//! The store as a citation [`SpanSource`]: resolves `c12`, `c12.s3` and
//! `c12.s2-s4` to the exact sentences (with lines and pages) the checker compares
//! claims against. An id the store does not know resolves to nothing (a broken
//! citation); any other store failure is an error.

use std::sync::Arc;

use rlmkg_citation::{
    ChunkId, CitationId, Referents, Source, SourceError, SourceSentence, SpanSource,
};
use rlmkg_ingest::{Store, StoreError};

/// A read-only store resolving citation ids.
pub struct StoreSpans {
    store: Arc<Store>,
}

impl StoreSpans {
    /// Resolve ids against an open store.
    pub fn new(store: Arc<Store>) -> Self {
        Self { store }
    }
}

impl SpanSource for StoreSpans {
    fn resolve(&self, id: &CitationId) -> Result<Option<Source>, SourceError> {
        let passage = match self.store.read_passage(*id) {
            Ok(p) => p,
            Err(StoreError::UnknownId(_) | StoreError::Invalid(_)) => return Ok(None),
            Err(e) => return Err(SourceError::new(e.to_string())),
        };
        let title = (!passage.doc.title.is_empty()).then(|| passage.doc.title.clone());
        Ok(Some(Source {
            id: passage.id,
            path: passage.doc.path,
            title,
            sentences: passage
                .sentences
                .into_iter()
                .map(|s| SourceSentence {
                    id: s.id,
                    text: s.text,
                    line_start: s.line_start,
                    line_end: s.line_end,
                    page: s.page,
                })
                .collect(),
        }))
    }

    /// The previous sentence (from the chunk before when the sentence opens its
    /// chunk), the enclosing heading and the document title.
    fn referents(&self, id: &CitationId) -> Result<Referents, SourceError> {
        let Some(k) = id.sentences.map(|r| r.first()) else {
            return Ok(Referents::default());
        };
        let chunk = match self.store.read_passage(id.chunk.passage()) {
            Ok(p) => p,
            Err(StoreError::UnknownId(_) | StoreError::Invalid(_)) => {
                return Ok(Referents::default());
            }
            Err(e) => return Err(SourceError::new(e.to_string())),
        };
        let idx = (k as usize).saturating_sub(1);
        let Some(sentence) = chunk.sentences.get(idx) else {
            return Ok(Referents::default());
        };
        let previous = match idx.checked_sub(1) {
            Some(p) => chunk.sentences.get(p).map(|s| s.text.clone()),
            None => id
                .chunk
                .0
                .checked_sub(1)
                .and_then(|c| self.store.read_passage(ChunkId(c).passage()).ok())
                .filter(|p| p.doc.id == chunk.doc.id)
                .and_then(|p| p.sentences.last().map(|s| s.text.clone())),
        };
        Ok(Referents {
            previous,
            heading: sentence.heading.clone(),
            title: (!chunk.doc.title.is_empty()).then(|| chunk.doc.title.clone()),
        })
    }
}
