//! The index itself: schema, writer and reader.

use std::collections::BTreeSet;
use std::path::Path;
use std::time::Instant;

use tantivy::collector::{Count, DocSetCollector, TopDocs};
use tantivy::query::{EnableScoring, QueryParser, TermQuery, Weight};
use tantivy::schema::{
    Field, IndexRecordOption, NumericOptions, STORED, STRING, Schema, TEXT, Value,
};
use tantivy::{
    DocAddress, DocId, Index, IndexReader, IndexWriter, ReloadPolicy, Score, Searcher,
    TantivyDocument, Term,
};

use rlmkg_ids::ChunkId;

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
    /// A stored record holds an id that does not parse (the index is damaged).
    #[error("the index holds a damaged record: {0}")]
    Damaged(#[from] rlmkg_ids::ParseIdError),
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
    b.add_text_field("doc", STORED);
    b.add_text_field("title", TEXT | STORED);
    // Only document records store their path: a chunk's is its file's.
    b.add_text_field("path", STORED);
    // Indexed, not stored: the chunk text's one copy is the store's text.
    b.add_text_field("text", TEXT);
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

/// Text fields are analyzed by the fused analyzer (the same tokens as
/// tantivy's default, in one pass) for indexing and queries alike; it is
/// registered before a writer starts.
fn register_analyzer(index: &Index) {
    index
        .tokenizers()
        .register(crate::analyzer::NAME, crate::analyzer::analyzer());
}

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
        register_analyzer(&index);
        let writer = index
            .writer_with_num_threads(threads.clamp(1, 8), WRITER_MEMORY * threads.clamp(1, 8))?;
        Self::build(index, Some(writer))
    }

    /// Open the index in `dir` read-only (the last commit).
    pub fn open_read(dir: &Path) -> Result<Self, IndexError> {
        let index = Index::open_in_dir(dir)?;
        register_analyzer(&index);
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

    /// Queue a chunk record with its text (indexed, not stored) for the next
    /// commit.
    pub fn add_chunk(&self, c: &ChunkRecord, text: &str) -> Result<(), IndexError> {
        let f = &self.f;
        let mut d = TantivyDocument::default();
        d.add_text(f.kind, "chunk");
        d.add_text(f.id, c.id.to_string());
        d.add_text(f.file, &c.file);
        d.add_text(f.doc, c.doc.to_string());
        d.add_text(f.title, &c.title);
        d.add_text(f.text, text);
        d.add_u64(f.start, c.start);
        d.add_u64(f.end, c.end);
        d.add_u64(f.line_start, c.line_start);
        d.add_u64(f.blob_offset, c.blob_offset);
        self.writer()?.add_document(d)?;
        Ok(())
    }

    /// Queue a document record for the next commit.
    pub fn add_doc(&self, r: &DocRecord) -> Result<(), IndexError> {
        let f = &self.f;
        let mut d = TantivyDocument::default();
        d.add_text(f.kind, "doc");
        d.add_text(f.id, r.id.to_string());
        d.add_text(f.file, &r.file);
        d.add_text(f.doc, r.id.to_string());
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
    /// Any text is a query: syntax that would reach other fields is read as
    /// words (`query.rs`), so a search fails only on I/O.
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
        // Only chunks have `title`/`text` terms (see `schema`), and a user's
        // query reaches no other field (`query.rs`), so it selects chunks alone.
        let parsed =
            crate::query::user_query(&self.parser, query, || Box::new(self.kind_query("chunk")));
        let searcher = self.reader.searcher();
        // Ask for `k` first: `keep` rarely rejects (only chunks of files a
        // commit has not listed yet), and a larger top-k makes the search
        // slower. Ask again for more only when it did.
        let mut limit = k;
        let weight = parsed.weight(EnableScoring::enabled_from_searcher(&searcher))?;
        loop {
            let top = top_by_score(&searcher, weight.as_ref(), limit)?;
            let full = top.len() == limit;
            let mut out = Vec::with_capacity(k);
            for (score, addr) in top {
                let d: TantivyDocument = searcher.doc(addr)?;
                let chunk = self.to_chunk(&d)?;
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
    pub fn chunk(&self, id: ChunkId) -> Result<Option<ChunkRecord>, IndexError> {
        self.by_id(&id.to_string())?
            .map(|d| self.to_chunk(&d))
            .transpose()
    }

    /// The document with id `id`.
    pub fn doc(&self, id: rlmkg_ids::DocId) -> Result<Option<DocRecord>, IndexError> {
        self.by_id(&id.to_string())?
            .map(|d| self.to_doc(&d))
            .transpose()
    }

    /// Every document record.
    pub fn docs(&self) -> Result<Vec<DocRecord>, IndexError> {
        let searcher = self.reader.searcher();
        let set = searcher.search(&self.kind_query("doc"), &DocSetCollector)?;
        let mut out = Vec::with_capacity(set.len());
        for addr in set {
            let d: TantivyDocument = searcher.doc(addr)?;
            out.push(self.to_doc(&d)?);
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
            out.push(self.to_chunk(&d)?);
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

    fn to_chunk(&self, d: &TantivyDocument) -> Result<ChunkRecord, IndexError> {
        let f = &self.f;
        Ok(ChunkRecord {
            id: Self::str_of(d, f.id).parse()?,
            file: Self::str_of(d, f.file),
            doc: Self::str_of(d, f.doc).parse()?,
            title: Self::str_of(d, f.title),
            start: Self::u64_of(d, f.start),
            end: Self::u64_of(d, f.end),
            line_start: Self::u64_of(d, f.line_start),
            blob_offset: Self::u64_of(d, f.blob_offset),
        })
    }

    fn to_doc(&self, d: &TantivyDocument) -> Result<DocRecord, IndexError> {
        let f = &self.f;
        Ok(DocRecord {
            id: Self::str_of(d, f.id).parse()?,
            file: Self::str_of(d, f.file),
            path: Self::str_of(d, f.path),
            title: Self::str_of(d, f.doc_title),
            format: Self::str_of(d, f.format),
            bytes: Self::u64_of(d, f.bytes),
            blob_offset: Self::u64_of(d, f.blob_offset),
            chunk_first: Self::u64_of(d, f.chunk_first),
            chunk_count: Self::u64_of(d, f.chunk_count),
            meta: Self::str_of(d, f.meta),
        })
    }

    /// The underlying tantivy index.
    pub fn tantivy(&self) -> &Index {
        &self.index
    }
}

/// A hit of [`top_by_score`]: higher scores first, then lower addresses.
#[derive(Debug, Clone, Copy)]
struct Ranked {
    score: Score,
    addr: DocAddress,
}

impl Ranked {
    /// The order of the results: best first (higher score, then lower
    /// address, as tantivy's `TopDocs` breaks ties).
    fn cmp_best_first(&self, other: &Self) -> std::cmp::Ordering {
        other
            .score
            .total_cmp(&self.score)
            .then_with(|| self.addr.cmp(&other.addr))
    }
}

impl PartialEq for Ranked {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other).is_eq()
    }
}
impl Eq for Ranked {}
impl PartialOrd for Ranked {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
/// Greater is better: the max of a `Reverse` heap is the worst kept hit.
impl Ord for Ranked {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        other.cmp_best_first(self)
    }
}

/// The best `limit` live documents of `weight`, best first: what tantivy's
/// `TopDocs` collector returns (same scores, same tie order), except that
/// the pruning threshold carries from one segment to the next. `TopDocs`
/// starts every segment from nothing, so Block-WAND scores each segment's
/// frequent terms until that segment's own top `limit` fills; carried over,
/// later segments skip every block that cannot beat the hits already kept.
/// Segments are visited in order and equal scores are rejected, so among
/// equal scores the lower address wins, as with `TopDocs`.
fn top_by_score(
    searcher: &Searcher,
    weight: &dyn Weight,
    limit: usize,
) -> Result<Vec<(Score, DocAddress)>, IndexError> {
    use std::cmp::Reverse;
    use std::collections::BinaryHeap;
    let mut heap: BinaryHeap<Reverse<Ranked>> = BinaryHeap::with_capacity(limit.min(1024));
    if limit == 0 {
        return Ok(Vec::new());
    }
    let threshold_of = |heap: &BinaryHeap<Reverse<Ranked>>| -> Score {
        if heap.len() < limit {
            Score::MIN
        } else {
            heap.peek().map_or(Score::MIN, |Reverse(r)| r.score)
        }
    };
    for (ord, reader) in searcher.segment_readers().iter().enumerate() {
        let segment_ord = ord as u32;
        let alive = reader.alive_bitset();
        let mut threshold = threshold_of(&heap);
        weight.for_each_pruning(threshold, reader, &mut |doc: DocId, score: Score| {
            if alive.is_some_and(|a| a.is_deleted(doc)) {
                return threshold;
            }
            let hit = Ranked {
                score,
                addr: DocAddress::new(segment_ord, doc),
            };
            if heap.len() < limit {
                heap.push(Reverse(hit));
            } else if heap
                .peek()
                .is_some_and(|Reverse(worst)| score > worst.score)
                && let Some(mut worst) = heap.peek_mut()
            {
                *worst = Reverse(hit);
            }
            threshold = threshold_of(&heap);
            threshold
        })?;
    }
    let mut out: Vec<Ranked> = heap.into_iter().map(|Reverse(r)| r).collect();
    out.sort_by(Ranked::cmp_best_first);
    Ok(out.into_iter().map(|r| (r.score, r.addr)).collect())
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
    use super::*;

    fn chunk(id: &str, file: &str, text: &str) -> ChunkRecord {
        ChunkRecord {
            id: id.parse().unwrap(),
            file: file.into(),
            doc: rlmkg_ids::DocId(1),
            title: "t".into(),
            start: 0,
            end: text.len() as u64,
            line_start: 1,
            blob_offset: 0,
        }
    }

    /// The carried threshold changes the work, never the answer: the same
    /// hits, scores and tie order as `TopDocs`, over several segments (one
    /// per commit), with deletions, many equal scores and every limit.
    #[test]
    fn top_by_score_equals_top_docs_over_segments() {
        let tmp = tempfile::tempdir().unwrap();
        let mut ix = ChunkIndex::open_or_create(tmp.path(), 1).unwrap();
        let words = ["harbour", "lighthouse", "bergen", "oslo", "council", "bank"];
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut n = 0;
        for seg in 0..5 {
            for _ in 0..300 {
                let mut text = String::new();
                for _ in 0..(3 + n % 7) {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    text.push_str(words[(x % words.len() as u64) as usize]);
                    text.push(' ');
                }
                n += 1;
                let c = chunk(&format!("c{n}"), &format!("f{seg}"), &text);
                ix.add_chunk(&c, &text).unwrap();
            }
            ix.commit().unwrap();
        }
        ix.delete_file("f2").unwrap();
        ix.commit().unwrap();
        let searcher = ix.reader.searcher();
        assert!(searcher.segment_readers().len() >= 4);
        assert!(
            top_by_score(
                &searcher,
                &*ix.parser
                    .parse_query_lenient("oslo")
                    .0
                    .weight(EnableScoring::enabled_from_searcher(&searcher))
                    .unwrap(),
                0
            )
            .unwrap()
            .is_empty()
        );
        for q in [
            "harbour",
            "oslo bergen",
            "harbour lighthouse council bank",
            "t",
        ] {
            let (parsed, _) = ix.parser.parse_query_lenient(q);
            let weight = parsed
                .weight(EnableScoring::enabled_from_searcher(&searcher))
                .unwrap();
            for limit in [1, 3, 10, 57, 2000] {
                let want = searcher
                    .search(
                        parsed.as_ref(),
                        &TopDocs::with_limit(limit).order_by_score(),
                    )
                    .unwrap();
                let got = top_by_score(&searcher, weight.as_ref(), limit).unwrap();
                // Block-WAND sums a document's terms in an order that depends
                // on the threshold, so a score may differ in its last bit.
                let addrs = |v: &[(Score, DocAddress)]| v.iter().map(|h| h.1).collect::<Vec<_>>();
                assert_eq!(addrs(&got), addrs(&want), "{q} / {limit}");
                for (g, w) in got.iter().zip(&want) {
                    assert!((g.0 - w.0).abs() <= 1e-5 * w.0.abs(), "{q}: {g:?} vs {w:?}");
                }
            }
        }
    }

    /// Chunk text is searchable but not stored (its one copy is the
    /// store's text); the record read back says where it lies there.
    #[test]
    fn chunk_text_is_indexed_not_stored() {
        let tmp = tempfile::tempdir().unwrap();
        let mut ix = ChunkIndex::open_or_create(tmp.path(), 1).unwrap();
        let mut c = chunk("c7", "f1", "the harbour froze");
        c.blob_offset = 40;
        ix.add_chunk(&c, "the harbour froze").unwrap();
        ix.commit().unwrap();
        let hits = ix.search("harbour", 1).unwrap();
        assert_eq!(hits.len(), 1);
        assert_eq!(hits[0].chunk, c);
        let searcher = ix.reader.searcher();
        let top = searcher
            .search(
                &ix.parser.parse_query_lenient("harbour").0,
                &TopDocs::with_limit(1).order_by_score(),
            )
            .unwrap();
        let d: TantivyDocument = searcher.doc(top[0].1).unwrap();
        assert!(d.get_first(ix.f.text).is_none());
        assert!(d.get_first(ix.f.path).is_none());
    }

    #[test]
    fn search_where_skips_rejected_chunks_and_keeps_k() {
        let tmp = tempfile::tempdir().unwrap();
        let mut ix = ChunkIndex::open_or_create(tmp.path(), 1).unwrap();
        ix.add_chunk(
            &chunk("c1", "f1", "harbour harbour harbour lighthouse"),
            "harbour harbour harbour lighthouse",
        )
        .unwrap();
        ix.add_chunk(
            &chunk("c2", "f2", "harbour harbour lighthouse"),
            "harbour harbour lighthouse",
        )
        .unwrap();
        ix.add_chunk(
            &chunk("c3", "f2", "harbour lighthouse"),
            "harbour lighthouse",
        )
        .unwrap();
        ix.add_chunk(&chunk("c4", "f2", "nothing relevant"), "nothing relevant")
            .unwrap();
        ix.commit().unwrap();
        let ids = |hits: Vec<SearchResult>| -> Vec<String> {
            hits.into_iter().map(|h| h.chunk.id.to_string()).collect()
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

    /// An index of two chunks and their document's record.
    fn small_index() -> (tempfile::TempDir, ChunkIndex) {
        let tmp = tempfile::tempdir().unwrap();
        let mut ix = ChunkIndex::open_or_create(tmp.path(), 1).unwrap();
        let texts = [
            ("c1", "the title of the harbour report"),
            ("c2", "the lighthouse and the doc"),
        ];
        for (id, text) in texts {
            ix.add_chunk(&chunk(id, "f1", text), text).unwrap();
        }
        ix.add_doc(&DocRecord {
            id: rlmkg_ids::DocId(1),
            file: "f1".into(),
            path: "a.txt".into(),
            title: "t".into(),
            format: "txt".into(),
            bytes: 10,
            blob_offset: 0,
            chunk_first: 1,
            chunk_count: 2,
            meta: String::new(),
        })
        .unwrap();
        ix.commit().unwrap();
        (tmp, ix)
    }

    /// What user text finds: the query syntax over titles and texts, and
    /// anything reaching further (another field, `field:*`, ranges, sets,
    /// regexes, `*`) searched as its words (issue 45: `title:* AND ("` was a
    /// schema error).
    #[test]
    fn user_text_finds_chunks_by_its_words() {
        let (_tmp, ix) = small_index();
        let mut wrong = Vec::new();
        for (query, want) in [
            ("harbour", &["c1"][..]),
            ("\"harbour report\"", &["c1"]),
            ("\"report harbour\"", &[]),
            ("text:lighthouse", &["c2"]),
            ("harbour OR lighthouse", &["c2", "c1"]),
            ("+the -harbour", &["c2"]),
            ("-harbour", &["c2"]),
            ("harbour OR (NOT lighthouse)", &["c1"]),
            ("lighthouse^2 OR harbour", &["c2", "c1"]),
            ("title:* AND (\"", &["c2", "c1"]),
            ("*", &[]),
            ("kind:doc", &["c2"]),
            ("id:c1", &[]),
            ("start:[0 TO 100]", &[]),
            ("title: IN [harbour]", &["c1"]),
            ("text:/lighthouse/", &["c2"]),
            ("harbour^-1", &["c1"]),
            ("} !", &[]),
            ("!^2", &[]),
        ] {
            let hits = ix
                .search(query, 5)
                .unwrap_or_else(|e| panic!("{query}: {e}"));
            let ids: Vec<String> = hits.iter().map(|h| h.chunk.id.to_string()).collect();
            if ids != want {
                wrong.push(format!("{query}: {ids:?}, not {want:?}"));
            }
        }
        assert!(wrong.is_empty(), "{wrong:#?}");
    }

    /// No user text makes a search fail or return a record that is not a chunk.
    #[test]
    fn any_user_text_is_a_query() {
        let (_tmp, ix) = small_index();
        let text = "[a-zA-Z0-9 :*()\"'\\[\\]{}+\\-^~!<>=/\\\\.,ø]{0,40}";
        let config = proptest::test_runner::Config {
            failure_persistence: None,
            ..proptest::test_runner::Config::default()
        };
        proptest::test_runner::TestRunner::new(config)
            .run(&text, |query| {
                let hits = ix.search(&query, 5);
                proptest::prop_assert!(hits.is_ok(), "{query}: {hits:?}");
                Ok(())
            })
            .unwrap();
    }
}
