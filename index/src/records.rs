//! The plain records stored in the index.

use rlmkg_ids::{ChunkId, DocId};
use serde::{Deserialize, Serialize};

/// One chunk as stored in the index. Its text is indexed but not stored: the
/// one copy is the file's text (kept by the store), where it starts at `blob_offset` and runs
/// for `end - start` bytes (exactly `doc.text[start..end]`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChunkRecord {
    /// Chunk id.
    pub id: ChunkId,
    /// Id of the ingested file (`f<number>`) the chunk came from.
    pub file: String,
    /// Document id.
    pub doc: DocId,
    /// Title of the document.
    pub title: String,
    /// Byte start in the document's normalized text.
    pub start: u64,
    /// Byte end (exclusive).
    pub end: u64,
    /// 1-based line of `start` in the document.
    pub line_start: u64,
    /// Byte offset of the chunk's text in the file's text (the
    /// document's own offset plus `start`).
    pub blob_offset: u64,
}

impl ChunkRecord {
    /// Byte length of the chunk's text.
    pub fn len(&self) -> u64 {
        self.end.saturating_sub(self.start)
    }

    /// Whether the chunk's text is empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// One document as stored in the index.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DocRecord {
    /// Document id.
    pub id: DocId,
    /// Id of the ingested file.
    pub file: String,
    /// Path of the source file.
    pub path: String,
    /// Title.
    pub title: String,
    /// Format name (`txt`, `md`, `html`, `pdf`, `jsonl`, `json`, `json-sentences`).
    pub format: String,
    /// Byte length of the normalized text.
    pub bytes: u64,
    /// Byte offset of the text in the file's text.
    pub blob_offset: u64,
    /// First chunk number.
    pub chunk_first: u64,
    /// Number of chunks.
    pub chunk_count: u64,
    /// Positional metadata (pages, headings, record index) as JSON.
    pub meta: String,
}
