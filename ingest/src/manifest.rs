//! The store manifest: format version, settings, id counters and one entry per
//! ingested file. Writing it (atomically, by rename) is the commit point of every
//! change: index records and document graphs not listed here are residue of an
//! interrupted command and are removed when a writer next opens the store.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::error::StoreError;

/// The on-disk format version this build reads and writes (2 added title
/// entities, `about`, to the graph).
pub const FORMAT_VERSION: u32 = 2;

/// Settings a store was built with.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Settings {
    /// Target chunk size in (approximate) tokens.
    pub target_tokens: usize,
    /// Overlap between chunks, in sentences.
    pub overlap_sentences: usize,
    /// How tokens are counted.
    pub tokenizer: String,
}

impl Default for Settings {
    fn default() -> Self {
        Self {
            target_tokens: 200,
            overlap_sentences: 1,
            tokenizer: "approx: bytes/4".into(),
        }
    }
}

/// One ingested file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileEntry {
    /// File id, `f<number>` (names the text blob and tags index records).
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
}

impl FileEntry {
    /// Document ids of this file.
    pub fn doc_ids(&self) -> impl Iterator<Item = String> + '_ {
        (self.doc_first..self.doc_first + self.doc_count).map(|n| format!("d{n}"))
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

    /// Does a document number belong to a committed file?
    pub fn file_of_doc(&self, n: u64) -> Option<&FileEntry> {
        self.files
            .values()
            .find(|f| n >= f.doc_first && n < f.doc_first + f.doc_count)
    }
}
