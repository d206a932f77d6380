//! The sentences a run's calls showed, read from the store once per review
//! and shared by the mends that look in them ([`super::verbatim`],
//! [`super::bridge`]).

use std::cell::OnceCell;
use std::collections::HashSet;

use rlmkg_ids::ChunkId;
use rlmkg_ingest::Store;
pub(super) use rlmkg_text::word_key;

/// Most read ids whose sentences are looked in (the run's first reads: ids
/// are kept first seen first).
pub const MAX_READS: usize = 64;

/// A sentence the run read.
pub(super) struct ReadSentence {
    /// Its id (`c16.s2`).
    pub(super) id: String,
    /// Its chunk.
    pub(super) chunk: ChunkId,
    /// Its text.
    pub(super) text: String,
    /// Its [`word_key`].
    pub(super) key: String,
}

/// The sentences of the ids a run's calls showed, read on first use.
pub(crate) struct Reads<'a> {
    store: &'a Store,
    ids: &'a [String],
    sentences: OnceCell<Vec<ReadSentence>>,
}

impl<'a> Reads<'a> {
    /// The reads of `ids` (what the run's handle calls showed), not read yet.
    pub(crate) fn new(store: &'a Store, ids: &'a [String]) -> Self {
        Self {
            store,
            ids,
            sentences: OnceCell::new(),
        }
    }

    /// The sentences of the first [`MAX_READS`] ids, first read first, each
    /// once; an id the store cannot read is skipped.
    pub(super) fn sentences(&self) -> &[ReadSentence] {
        self.sentences.get_or_init(|| {
            let mut out = Vec::new();
            let mut seen = HashSet::new();
            for id in self.ids.iter().take(MAX_READS) {
                let Ok(passage) = self.store.read(id) else {
                    continue;
                };
                for s in passage.sentences {
                    if seen.insert(s.id.clone()) {
                        out.push(ReadSentence {
                            key: word_key(&s.text).0,
                            id: s.id,
                            chunk: passage.chunk,
                            text: s.text,
                        });
                    }
                }
            }
            out
        })
    }
}
