//! The store manifest: format version, chunking settings, id counters and one
//! entry per ingested file. Writing it (atomically, by rename) is the commit point of every
//! change: index records and document records not listed here are residue of an
//! interrupted command and are removed when a writer next opens the store.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::error::StoreError;

/// The on-disk format version this build reads and writes (2 added title
/// entities, `about`, to the graph; 3 moved the graph into oxigraph's RocksDB
/// store with checkpoints for readers; 4 made the RDF lean: one `rk:mentions`
/// fact per chunk and entity instead of a node per mention, untyped relations
/// and evidence spans; 5 left RocksDB: the records are the truth, the RDF is
/// derived in memory and readers open a snapshot of the view; 6 keeps chunk
/// text only in the text blobs: the index indexes it without storing it; 7
/// writes the graph records and the view snapshot in postcard, ids as numbers;
/// 8 keeps texts and records in packs, one per written part, not per file;
/// 9 labels relations by fact predicates with resolved subjects, issue 43;
/// 10 may keep a vector per chunk in `vectors/p<n>.vec`, issue 46;
/// 11 reads a passive outside the verb cues as a fact, issue 44;
/// 12 keeps a vector per entity name beside them, `vectors/p<n>.ent`;
/// 13 reads more facts: partners of parents, kin appositions, a document's
/// opening name as its title's entity, hyphenated names whole, issue 43;
/// 14 reads places within places, compass sides, roles after "as", cast
/// parentheses and siblings, issue 43; 15 makes another form of the title
/// opening the text the title's entity, and the document's subject co-occur
/// with every name of a sentence that names it or opens with a pronoun or
/// "The" and a noun of its kind for it, issue 43; 16 types names by closed
/// lists of countries, states and adjectives of nationality and by their
/// context: the noun after "the X", names listed together, a firm's short
/// name, a title's head and "A / B" names, issue 43).
pub const FORMAT_VERSION: u32 = 16;

/// Identity of the approximation, as recorded in a store's settings.
pub const APPROX_IDENTITY: &str = "approx: bytes/4";

/// The chunking settings a store was built with. Files are re-chunked when an
/// ingest runs with settings that differ (see [`Settings::differences`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Settings {
    /// Target chunk size in tokens.
    pub target_tokens: usize,
    /// Overlap between chunks, in sentences.
    pub overlap_sentences: usize,
    /// How tokens are counted: `approx: bytes/4`, or `tokenizers: <file name>
    /// blake3:<first 16 hex digits of the file's hash>`.
    pub tokenizer: String,
    /// Where the tokenizer was configured from (absolute path or Hugging Face
    /// repo id), so a re-ingest without `--tokenizer` loads it again; absent for
    /// the approximation (and in stores written before it was recorded).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tokenizer_source: Option<String>,
    /// The sentence-boundary rule the chunks were cut with
    /// ([`rlmkg_text::SENTENCE_RULES_VERSION`]); 1 in stores written before it
    /// was recorded.
    #[serde(default = "first_sentence_rules")]
    pub sentence_rules: u32,
    /// What made the chunks' vectors ([`crate::Embedder::identity`]); `None`
    /// when the store keeps none (dense retrieval off).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub embedder: Option<String>,
    /// Who read facts besides the rules ([`crate::FactReader::identity`]);
    /// `None` when the rules alone did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fact_reader: Option<String>,
}

/// The sentence rules of a store that does not record them: the first.
fn first_sentence_rules() -> u32 {
    1
}

impl Default for Settings {
    fn default() -> Self {
        Self {
            target_tokens: 200,
            overlap_sentences: 1,
            tokenizer: APPROX_IDENTITY.into(),
            tokenizer_source: None,
            sentence_rules: rlmkg_text::SENTENCE_RULES_VERSION,
            embedder: None,
            fact_reader: None,
        }
    }
}

impl Settings {
    /// What changes the chunks between `self` (recorded) and `new`, one
    /// `name old → new` item each; empty when files chunked under `self` stay
    /// valid under `new` (where the tokenizer was loaded from does not matter,
    /// only its identity).
    pub fn differences(&self, new: &Settings) -> Vec<String> {
        let mut out = Vec::new();
        if self.target_tokens != new.target_tokens {
            out.push(format!(
                "target tokens {} → {}",
                self.target_tokens, new.target_tokens
            ));
        }
        if self.overlap_sentences != new.overlap_sentences {
            out.push(format!(
                "overlap sentences {} → {}",
                self.overlap_sentences, new.overlap_sentences
            ));
        }
        if self.tokenizer != new.tokenizer {
            out.push(format!("tokenizer {} → {}", self.tokenizer, new.tokenizer));
        }
        if self.sentence_rules != new.sentence_rules {
            out.push(format!(
                "sentence rules {} → {}",
                self.sentence_rules, new.sentence_rules
            ));
        }
        if self.embedder != new.embedder {
            let name = |e: &Option<String>| e.clone().unwrap_or_else(|| "none".into());
            out.push(format!(
                "vectors {} → {}",
                name(&self.embedder),
                name(&new.embedder)
            ));
        }
        if self.fact_reader != new.fact_reader {
            let name = |e: &Option<String>| e.clone().unwrap_or_else(|| "the rules alone".into());
            out.push(format!(
                "facts read by {} → {}",
                name(&self.fact_reader),
                name(&new.fact_reader)
            ));
        }
        out
    }
}

/// One ingested file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileEntry {
    /// File id, `f<number>` (tags index records).
    pub id: String,
    /// Path as shown to users.
    pub display: String,
    /// blake3 of the content.
    pub hash: String,
    /// Size in bytes.
    pub bytes: u64,
    /// Format name.
    pub format: String,
    /// First document number.
    pub doc_first: u64,
    /// Number of documents.
    pub doc_count: u64,
    /// First chunk number.
    pub chunk_first: u64,
    /// Number of chunks.
    pub chunk_count: u64,
    /// Normalized text bytes.
    pub text_bytes: u64,
    /// The pack holding the file's text and graph records (none for a file
    /// without documents). Packs are written whole and never changed: a file
    /// replaced or removed from a pack moves the pack's other files to a new
    /// one ([`crate::store`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pack: Option<u64>,
    /// Where the file's text starts in its pack's text.
    #[serde(default)]
    pub text_offset: u64,
}

impl FileEntry {
    /// Mark the file for re-chunking: its recorded hash is cleared, so it never
    /// matches the file's content and the next ingest that reaches the file
    /// prepares it again.
    pub fn mark_rechunk(&mut self) {
        self.hash.clear();
    }

    /// Whether the file waits for re-chunking (chunked under older settings).
    pub fn needs_rechunk(&self) -> bool {
        self.hash.is_empty()
    }

    /// Document ids of this file.
    pub fn doc_ids(&self) -> impl Iterator<Item = rlmkg_ids::DocId> + '_ {
        (self.doc_first..self.doc_first + self.doc_count).map(rlmkg_ids::DocId)
    }
}

/// The manifest.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Manifest {
    /// On-disk format version.
    pub format_version: u32,
    /// Ingest settings.
    pub settings: Settings,
    /// Next file number.
    pub next_file: u64,
    /// Next document number.
    pub next_doc: u64,
    /// Next chunk number.
    pub next_chunk: u64,
    /// Files by canonical path.
    pub files: BTreeMap<String, FileEntry>,
    /// The snapshot of the graph view of exactly the committed documents
    /// (None after a batch of an unfinished command: readers then build the
    /// view from the records).
    #[serde(default)]
    pub view_snapshot: Option<String>,
    /// Number of the next view snapshot.
    #[serde(default)]
    pub next_snapshot: u64,
    /// Number of the next pack.
    #[serde(default)]
    pub next_pack: u64,
}

impl Default for Manifest {
    fn default() -> Self {
        Self {
            format_version: FORMAT_VERSION,
            settings: Settings::default(),
            next_file: 1,
            next_doc: 1,
            next_chunk: 1,
            files: BTreeMap::new(),
            view_snapshot: None,
            next_snapshot: 1,
            next_pack: 1,
        }
    }
}

#[derive(Deserialize)]
struct VersionProbe {
    format_version: u32,
}

impl Manifest {
    /// Read the manifest of the store in `dir`; None when absent.
    pub fn load(dir: &Path) -> Result<Option<Manifest>, StoreError> {
        let path = dir.join("manifest.json");
        let bytes = match std::fs::read(&path) {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(StoreError::Io { path, source: e }),
        };
        let probe: VersionProbe =
            serde_json::from_slice(&bytes).map_err(|e| StoreError::Manifest {
                path: path.clone(),
                message: e.to_string(),
            })?;
        if probe.format_version != FORMAT_VERSION {
            return Err(StoreError::FormatVersion {
                dir: dir.to_path_buf(),
                found: probe.format_version,
                expected: FORMAT_VERSION,
            });
        }
        serde_json::from_slice(&bytes)
            .map(Some)
            .map_err(|e| StoreError::Manifest {
                path,
                message: e.to_string(),
            })
    }

    /// Write atomically (temp file, fsync, rename, fsync dir).
    pub fn save(&self, dir: &Path) -> Result<(), StoreError> {
        let tmp = dir.join("manifest.json.tmp");
        let path = dir.join("manifest.json");
        let json = serde_json::to_vec_pretty(self).map_err(|e| StoreError::Manifest {
            path: path.clone(),
            message: e.to_string(),
        })?;
        {
            let mut f = std::fs::File::create(&tmp).map_err(StoreError::io(&tmp))?;
            f.write_all(&json).map_err(StoreError::io(&tmp))?;
            f.sync_all().map_err(StoreError::io(&tmp))?;
        }
        std::fs::rename(&tmp, &path).map_err(StoreError::io(&path))?;
        if let Ok(d) = std::fs::File::open(dir) {
            let _ = d.sync_all();
        }
        Ok(())
    }

    /// Record `new` chunking settings. When they differ from the recorded ones
    /// in a way that changes chunks, every file entry is marked for re-chunking
    /// and the differences are returned (empty otherwise; then only the
    /// tokenizer's recorded location may change).
    pub fn apply_settings(&mut self, new: Settings) -> Vec<String> {
        let diff = self.settings.differences(&new);
        if !diff.is_empty() {
            for f in self.files.values_mut() {
                f.mark_rechunk();
            }
        }
        self.settings = new;
        diff
    }

    /// Does a document number belong to a committed file?
    pub fn file_of_doc(&self, n: u64) -> Option<&FileEntry> {
        self.files
            .values()
            .find(|f| n >= f.doc_first && n < f.doc_first + f.doc_count)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_store_cut_under_older_sentence_rules_is_rechunked() {
        // Settings as stores wrote them before the sentence rules were recorded.
        let old: Settings = serde_json::from_str(
            r#"{"target_tokens":200,"overlap_sentences":1,"tokenizer":"approx: bytes/4"}"#,
        )
        .unwrap();
        assert_eq!(old.sentence_rules, 1);
        let new = Settings {
            tokenizer: old.tokenizer.clone(),
            ..Settings::default()
        };
        assert_eq!(
            old.differences(&new),
            vec![format!(
                "sentence rules 1 → {}",
                rlmkg_text::SENTENCE_RULES_VERSION
            )]
        );
        assert!(new.differences(&new.clone()).is_empty());
    }
}
