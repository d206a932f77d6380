//! The facts a model read, cached by content: a JSON line per passage in
//! the store (`model-facts.jsonl`), keyed by the reader and the passage, so
//! a file ingested again (changed elsewhere, or re-chunked the same way)
//! costs no model call for a passage read before. Appended, never
//! rewritten; a line cut short by a kill is passed over when read.

use std::collections::HashMap;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::{FactPassage, ProposedFact};
use crate::error::StoreError;

/// The cache file's name in the store folder.
pub(crate) const CACHE_FILE: &str = "model-facts.jsonl";

/// One line of the cache.
#[derive(Serialize, Deserialize)]
struct Line {
    key: String,
    facts: Vec<ProposedFact>,
}

/// The cache, read whole when an ingest with a model opens it.
#[derive(Debug, Default)]
pub(crate) struct FactCache {
    path: PathBuf,
    facts: HashMap<String, Vec<ProposedFact>>,
    /// Lines not yet appended to the file.
    pending: Vec<String>,
    /// Whether the file ends in the middle of a line (a kill while writing).
    torn: bool,
}

impl FactCache {
    /// The cache of the store in `dir` (empty when there is none yet).
    pub(crate) fn open(dir: &Path) -> Result<Self, StoreError> {
        let path = dir.join(CACHE_FILE);
        let mut text = String::new();
        match std::fs::File::open(&path) {
            Ok(mut f) => {
                f.read_to_string(&mut text).map_err(StoreError::io(&path))?;
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(StoreError::io(&path)(e)),
        }
        let facts = text
            .lines()
            .filter_map(|l| serde_json::from_str::<Line>(l).ok())
            .map(|l| (l.key, l.facts))
            .collect();
        Ok(Self {
            path,
            facts,
            pending: Vec::new(),
            torn: !text.is_empty() && !text.ends_with('\n'),
        })
    }

    /// The key of `passage` read by `reader`.
    pub(crate) fn key(reader: &str, passage: &FactPassage<'_>) -> String {
        let mut h = blake3::Hasher::new();
        for part in [reader, passage.title] {
            h.update(part.as_bytes());
            h.update(b"\0");
        }
        for s in &passage.sentences {
            h.update(s.as_bytes());
            h.update(b"\n");
        }
        h.finalize().to_hex().to_string()
    }

    /// The facts cached under `key`.
    pub(crate) fn get(&self, key: &str) -> Option<&[ProposedFact]> {
        self.facts.get(key).map(Vec::as_slice)
    }

    /// Keeps the facts read under `key` (written by [`Self::flush`]).
    pub(crate) fn put(&mut self, key: String, facts: Vec<ProposedFact>) {
        let line = Line { key, facts };
        if let Ok(json) = serde_json::to_string(&line) {
            self.pending.push(json);
        }
        self.facts.insert(line.key, line.facts);
    }

    /// Appends what was read since the last flush.
    pub(crate) fn flush(&mut self) -> Result<(), StoreError> {
        if self.pending.is_empty() {
            return Ok(());
        }
        let mut out = String::new();
        if std::mem::take(&mut self.torn) {
            out.push('\n');
        }
        for l in self.pending.drain(..) {
            out.push_str(&l);
            out.push('\n');
        }
        let mut f = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&self.path)
            .map_err(StoreError::io(&self.path))?;
        f.write_all(out.as_bytes())
            .map_err(StoreError::io(&self.path))?;
        Ok(())
    }
}
