//! The index itself: schema, writer and reader.

use std::collections::BTreeSet;
use std::path::Path;
use std::time::Instant;

use tantivy::collector::{Count, DocSetCollector, TopDocs};
use tantivy::query::{QueryParser, TermQuery};
use tantivy::schema::{
    Field, IndexRecordOption, NumericOptions, STORED, STRING, Schema, TEXT, Value,
};
use tantivy::{Index, IndexReader, IndexWriter, ReloadPolicy, TantivyDocument, Term};

use crate::records::{ChunkRecord, DocRecord};

/// Errors of the index.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum IndexError {
    /// An error from tantivy.
    #[error("index: {0}")]
    Tantivy(#[from] tantivy::TantivyError),
    /// An I/O error.
    #[error("index I/O: {0}")]
    Io(#[from] std::io::Error),
    /// The index was opened read-only and a write was attempted.
    #[error("the index is open read-only")]
    ReadOnly,
    /// The schema on disk is not the one this version writes.
    #[error("the index schema does not match this version of rlmkg: {0}")]
    Schema(String),
}

/// One search result.
#[derive(Debug, Clone)]
pub struct SearchResult {
    /// BM25 score.
    pub score: f32,
    /// The chunk.
    pub chunk: ChunkRecord,
}

#[derive(Debug, Clone, Copy)]
struct Fields {
    kind: Field,
    id: Field,
    file: Field,
    doc: Field,
    title: Field,
    path: Field,
    text: Field,
    start: Field,
    end: Field,
    line_start: Field,
    format: Field,
    bytes: Field,
    blob_offset: Field,
    chunk_first: Field,
    chunk_count: Field,
    meta: Field,
    doc_title: Field,
}

fn schema() -> Schema {
    let mut b = Schema::builder();
    let stored_u64 = NumericOptions::default().set_stored();
    b.add_text_field("kind", STRING);
    b.add_text_field("id", STRING | STORED);
    b.add_text_field("file", STRING | STORED);
    b.add_text_field("doc", STRING | STORED);
    b.add_text_field("title", TEXT | STORED);
    b.add_text_field("path", STORED);
    b.add_text_field("text", TEXT | STORED);
    b.add_u64_field("start", stored_u64.clone());
    b.add_u64_field("end", stored_u64.clone());
    b.add_u64_field("line_start", stored_u64.clone());
    b.add_text_field("format", STORED);
    b.add_u64_field("bytes", stored_u64.clone());
    b.add_u64_field("blob_offset", stored_u64.clone());
    b.add_u64_field("chunk_first", stored_u64.clone());
    b.add_u64_field("chunk_count", stored_u64);
    b.add_text_field("meta", STORED);
    // A document record's title is stored apart from the chunks' searchable
    // `title`, so a text query can only ever match chunks and needs no `kind`
    // filter (a filter matching every chunk would defeat top-k pruning).
    b.add_text_field("doc_title", STORED);
    b.build()
}

fn fields(schema: &Schema) -> Result<Fields, IndexError> {
    let f = |name: &str| {
        schema
            .get_field(name)
            .map_err(|e| IndexError::Schema(e.to_string()))
    };
    Ok(Fields {
        kind: f("kind")?,
        id: f("id")?,
        file: f("file")?,
        doc: f("doc")?,
        title: f("title")?,
        path: f("path")?,
        text: f("text")?,
        start: f("start")?,
        end: f("end")?,
        line_start: f("line_start")?,
        format: f("format")?,
        bytes: f("bytes")?,
        blob_offset: f("blob_offset")?,
        chunk_first: f("chunk_first")?,
        chunk_count: f("chunk_count")?,
        meta: f("meta")?,
        doc_title: f("doc_title")?,
    })
}

/// The chunk index of one store.
pub struct ChunkIndex {
    index: Index,
    reader: IndexReader,
    writer: Option<IndexWriter>,
    f: Fields,
    parser: QueryParser,
}

impl std::fmt::Debug for ChunkIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ChunkIndex")
            .field("writable", &self.writer.is_some())
            .finish()
    }
}

const WRITER_MEMORY: usize = 96_000_000;

/// The most hits one search ranks while skipping rejected chunks.
const MAX_LIMIT: usize = 100_000;

impl ChunkIndex {
    /// Open the index in `dir` for writing, creating it when absent.
    pub fn open_or_create(dir: &Path, threads: usize) -> Result<Self, IndexError> {
        std::fs::create_dir_all(dir)?;
        let index = if dir.join("meta.json").exists() {
            Index::open_in_dir(dir)?
        } else {
            Index::create_in_dir(dir, schema())?
        };
        let writer = index
            .writer_with_num_threads(threads.clamp(1, 8), WRITER_MEMORY * threads.clamp(1, 8))?;
        Self::build(index, Some(writer))
    }

    /// Open the index in `dir` read-only (the last commit).
    pub fn open_read(dir: &Path) -> Result<Self, IndexError> {
        let index = Index::open_in_dir(dir)?;
        Self::build(index, None)
    }

    fn build(index: Index, writer: Option<IndexWriter>) -> Result<Self, IndexError> {
        let f = fields(&index.schema())?;
        let reader = index
            .reader_builder()
            .reload_policy(ReloadPolicy::Manual)
            .try_into()?;
        let mut parser = QueryParser::for_index(&index, vec![f.title, f.text]);
        parser.set_field_boost(f.title, 1.5);
        Ok(Self {
            index,
            reader,
            writer,
            f,
            parser,
        })
    }

    fn writer(&self) -> Result<&IndexWriter, IndexError> {
        self.writer.as_ref().ok_or(IndexError::ReadOnly)
    }

    /// Queue a chunk record for the next commit.
    pub fn add_chunk(&self, c: &ChunkRecord) -> Result<(), IndexError> {
        let f = &self.f;
        let mut d = TantivyDocument::default();
        d.add_text(f.kind, "chunk");
        d.add_text(f.id, &c.id);
        d.add_text(f.file, &c.file);
        d.add_text(f.doc, &c.doc);
        d.add_text(f.title, &c.title);
        d.add_text(f.path, &c.path);
        d.add_text(f.text, &c.text);
        d.add_u64(f.start, c.start);
        d.add_u64(f.end, c.end);
        d.add_u64(f.line_start, c.line_start);
        self.writer()?.add_document(d)?;
        Ok(())
    }

    /// Queue a document record for the next commit.
    pub fn add_doc(&self, r: &DocRecord) -> Result<(), IndexError> {
        let f = &self.f;
        let mut d = TantivyDocument::default();
        d.add_text(f.kind, "doc");
        d.add_text(f.id, &r.id);
        d.add_text(f.file, &r.file);
        d.add_text(f.doc, &r.id);
        d.add_text(f.path, &r.path);
        d.add_text(f.format, &r.format);
        d.add_text(f.meta, &r.meta);
        d.add_u64(f.bytes, r.bytes);
        d.add_u64(f.blob_offset, r.blob_offset);
        d.add_u64(f.chunk_first, r.chunk_first);
        d.add_u64(f.chunk_count, r.chunk_count);
        d.add_text(f.doc_title, &r.title);
        self.writer()?.add_document(d)?;
        Ok(())
    }

    /// Queue the deletion of every record of `file`.
    pub fn delete_file(&self, file: &str) -> Result<(), IndexError> {
        self.writer()?
            .delete_term(Term::from_field_text(self.f.file, file));
        Ok(())
    }

    /// Commit queued changes and make them visible to this handle's searches.
    pub fn commit(&mut self) -> Result<(), IndexError> {
        let Some(w) = self.writer.as_mut() else {
            return Err(IndexError::ReadOnly);
        };
        w.commit()?;
        self.reader.reload()?;
        Ok(())
    }

    /// Drop queued, uncommitted changes.
    pub fn rollback(&mut self) -> Result<(), IndexError> {
        if let Some(w) = self.writer.as_mut() {
            w.rollback()?;
        }
        Ok(())
    }

    /// BM25 search over chunk titles and texts; at most `k` results, best first.
    pub fn search(&self, query: &str, k: usize) -> Result<Vec<SearchResult>, IndexError> {
        self.search_where(query, k, &|_| true)
    }

    /// The best `k` chunks for `query` that `keep` accepts. Stored documents are
    /// read lazily, best first, and reading stops at `k` accepted ones: each read
    /// decompresses a block of the document store, which costs more than the
    /// ranking itself. Up to `2k + 8` ranked candidates are considered.
    pub fn search_where(
        &self,
        query: &str,
        k: usize,
        keep: &dyn Fn(&ChunkRecord) -> bool,
    ) -> Result<Vec<SearchResult>, IndexError> {
        if k == 0 || query.trim().is_empty() {
            return Ok(Vec::new());
        }
        // Only chunks have `title`/`text` terms (see `schema`), so the parsed
        // query alone selects chunks.
        let (parsed, _errors) = self.parser.parse_query_lenient(query);
        let searcher = self.reader.searcher();
        // Ask for `k` first: `keep` rarely rejects (only chunks of files a
        // commit has not listed yet), and a larger top-k makes the search
        // slower. Ask again for more only when it did.
        let mut limit = k;
        loop {
            let top = searcher.search(
                parsed.as_ref(),
                &TopDocs::with_limit(limit).order_by_score(),
            )?;
            let full = top.len() == limit;
            let mut out = Vec::with_capacity(k);
            for (score, addr) in top {
                let d: TantivyDocument = searcher.doc(addr)?;
                let chunk = self.to_chunk(&d);
                if keep(&chunk) {
                    out.push(SearchResult { score, chunk });
                    if out.len() == k {
                        break;
                    }
                }
            }
            if out.len() == k || !full || limit >= MAX_LIMIT {
                return Ok(out);
            }
            limit = limit.saturating_mul(4).min(MAX_LIMIT);
        }
    }

    fn kind_query(&self, kind: &str) -> TermQuery {
        TermQuery::new(
            Term::from_field_text(self.f.kind, kind),
            IndexRecordOption::Basic,
        )
    }

    fn by_id(&self, id: &str) -> Result<Option<TantivyDocument>, IndexError> {
        let searcher = self.reader.searcher();
        let q = TermQuery::new(
            Term::from_field_text(self.f.id, id),
            IndexRecordOption::Basic,
        );
        let top = searcher.search(&q, &TopDocs::with_limit(1).order_by_score())?;
        match top.first() {
            Some((_, addr)) => Ok(Some(searcher.doc(*addr)?)),
            None => Ok(None),
        }
    }

    /// The chunk with id `id`.
    pub fn chunk(&self, id: &str) -> Result<Option<ChunkRecord>, IndexError> {
        Ok(self.by_id(id)?.map(|d| self.to_chunk(&d)))
    }

    /// The document with id `id`.
    pub fn doc(&self, id: &str) -> Result<Option<DocRecord>, IndexError> {
        Ok(self.by_id(id)?.map(|d| self.to_doc(&d)))
    }

    /// Every document record.
    pub fn docs(&self) -> Result<Vec<DocRecord>, IndexError> {
        let searcher = self.reader.searcher();
        let set = searcher.search(&self.kind_query("doc"), &DocSetCollector)?;
        let mut out = Vec::with_capacity(set.len());
        for addr in set {
            let d: TantivyDocument = searcher.doc(addr)?;
            out.push(self.to_doc(&d));
        }
        Ok(out)
    }

    /// Every chunk record (for invariant checks and graph building).
    pub fn chunks(&self) -> Result<Vec<ChunkRecord>, IndexError> {
        let searcher = self.reader.searcher();
        let set = searcher.search(&self.kind_query("chunk"), &DocSetCollector)?;
        let mut out = Vec::with_capacity(set.len());
        for addr in set {
            let d: TantivyDocument = searcher.doc(addr)?;
            out.push(self.to_chunk(&d));
        }
        Ok(out)
    }

    /// Number of live chunk records.
    pub fn chunk_count(&self) -> Result<usize, IndexError> {
        Ok(self
            .reader
            .searcher()
            .search(&self.kind_query("chunk"), &Count)?)
    }

    /// The file ids that have at least one live record.
    pub fn files(&self) -> Result<BTreeSet<String>, IndexError> {
        let searcher = self.reader.searcher();
        let mut candidates = BTreeSet::new();
        for seg in searcher.segment_readers() {
            let inv = seg.inverted_index(self.f.file)?;
            let mut stream = inv.terms().stream()?;
            while stream.advance() {
                candidates.insert(String::from_utf8_lossy(stream.key()).into_owned());
            }
        }
        let mut out = BTreeSet::new();
        for file in candidates {
            let q = TermQuery::new(
                Term::from_field_text(self.f.file, &file),
                IndexRecordOption::Basic,
            );
            if searcher.search(&q, &Count)? > 0 {
                out.insert(file);
            }
        }
        Ok(out)
    }

    fn str_of(d: &TantivyDocument, f: Field) -> String {
        d.get_first(f)
            .and_then(|v| v.as_str())
            .unwrap_or_default()
            .to_string()
    }

    fn u64_of(d: &TantivyDocument, f: Field) -> u64 {
        d.get_first(f).and_then(|v| v.as_u64()).unwrap_or_default()
    }

    fn to_chunk(&self, d: &TantivyDocument) -> ChunkRecord {
        let f = &self.f;
        ChunkRecord {
            id: Self::str_of(d, f.id),
            file: Self::str_of(d, f.file),
            doc: Self::str_of(d, f.doc),
            title: Self::str_of(d, f.title),
            path: Self::str_of(d, f.path),
            text: Self::str_of(d, f.text),
            start: Self::u64_of(d, f.start),
            end: Self::u64_of(d, f.end),
            line_start: Self::u64_of(d, f.line_start),
        }
    }

    fn to_doc(&self, d: &TantivyDocument) -> DocRecord {
        let f = &self.f;
        DocRecord {
            id: Self::str_of(d, f.id),
            file: Self::str_of(d, f.file),
            path: Self::str_of(d, f.path),
            title: Self::str_of(d, f.doc_title),
            format: Self::str_of(d, f.format),
            bytes: Self::u64_of(d, f.bytes),
            blob_offset: Self::u64_of(d, f.blob_offset),
            chunk_first: Self::u64_of(d, f.chunk_first),
            chunk_count: Self::u64_of(d, f.chunk_count),
            meta: Self::str_of(d, f.meta),
        }
    }

    /// The underlying tantivy index.
    pub fn tantivy(&self) -> &Index {
        &self.index
    }
}

/// Index `texts` into a fresh bare tantivy index (one TEXT field, stored) in `dir`
/// with `threads` indexing threads and return the seconds it took, commit included.
/// This is the baseline the ingest benchmark compares against.
pub fn bare_index_throughput<'a>(
    dir: &Path,
    threads: usize,
    texts: impl Iterator<Item = &'a str>,
) -> Result<f64, IndexError> {
    let mut b = Schema::builder();
    let text = b.add_text_field("text", TEXT | STORED);
    let index = Index::create_in_dir(dir, b.build())?;
    let t0 = Instant::now();
    let mut w: IndexWriter =
        index.writer_with_num_threads(threads.clamp(1, 8), WRITER_MEMORY * threads.clamp(1, 8))?;
    for t in texts {
        let mut d = TantivyDocument::default();
        d.add_text(text, t);
        w.add_document(d)?;
    }
    w.commit()?;
    Ok(t0.elapsed().as_secs_f64())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
    use super::*;

    fn chunk(id: &str, file: &str, text: &str) -> ChunkRecord {
        ChunkRecord {
            id: id.into(),
            file: file.into(),
            doc: "d1".into(),
            title: "t".into(),
            path: "p".into(),
            text: text.into(),
            start: 0,
            end: text.len() as u64,
            line_start: 1,
        }
    }

    #[test]
    fn search_where_skips_rejected_chunks_and_keeps_k() {
        let tmp = tempfile::tempdir().unwrap();
        let mut ix = ChunkIndex::open_or_create(tmp.path(), 1).unwrap();
        ix.add_chunk(&chunk("c1", "f1", "harbour harbour harbour lighthouse"))
            .unwrap();
        ix.add_chunk(&chunk("c2", "f2", "harbour harbour lighthouse"))
            .unwrap();
        ix.add_chunk(&chunk("c3", "f2", "harbour lighthouse"))
            .unwrap();
        ix.add_chunk(&chunk("c4", "f2", "nothing relevant"))
            .unwrap();
        ix.commit().unwrap();
        let ids = |hits: Vec<SearchResult>| -> Vec<String> {
            hits.into_iter().map(|h| h.chunk.id).collect()
        };
        assert_eq!(ids(ix.search("harbour", 2).unwrap()), ["c1", "c2"]);
        let not_f1 = |c: &ChunkRecord| c.file != "f1";
        assert_eq!(
            ids(ix.search_where("harbour", 2, &not_f1).unwrap()),
            ["c2", "c3"]
        );
        assert_eq!(
            ids(ix.search_where("harbour", 5, &not_f1).unwrap()),
            ["c2", "c3"]
        );
        assert!(ix.search_where("harbour", 0, &not_f1).unwrap().is_empty());
    }
}
