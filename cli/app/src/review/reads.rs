//! The sentences a run's calls showed, read from the store once per review
//! and shared by the mends that look in them ([`super::verbatim`],
//! [`super::bridge`]).

use std::cell::OnceCell;
use std::collections::HashSet;

use rlmkg_ids::ChunkId;
use rlmkg_ingest::Store;

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

/// The words of `text`, lowercased, each followed by one space and the whole
/// preceded by one, so that containment of the strings is containment of
/// contiguous word runs (linear with `str::contains`); and how many words.
pub(super) fn word_key(text: &str) -> (String, usize) {
    let mut key = String::from(" ");
    let mut words = 0;
    for word in text
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
    {
        key.extend(word.chars().flat_map(char::to_lowercase));
        key.push(' ');
        words += 1;
    }
    (key, words)
}

#[cfg(test)]
mod tests {
    use super::word_key;

    #[test]
    fn a_copied_run_is_contained_and_a_paraphrase_is_not() {
        let (sentence, _) = word_key(
            "Dr. Mara Ellison joined the Kestrel Institute for Coastal Studies (KICS) in September 2019.",
        );
        let (copy, n) = word_key("Mara Ellison joined the Kestrel Institute");
        assert_eq!(n, 6);
        assert!(sentence.contains(&copy));
        let (paraphrase, _) = word_key("Mara Ellison joined the Kestrel Institute in 2019");
        assert!(!sentence.contains(&paraphrase));
        // Whole words only: "Ellis" is not "Ellison".
        let (part, _) = word_key("Dr. Mara Ellis");
        assert!(!sentence.contains(&part));
    }
}
