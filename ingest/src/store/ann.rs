//! An approximate nearest-neighbour index over the chunk vectors (issue 46):
//! a hierarchical navigable small-world (HNSW) graph, built by the `hnsw_rs`
//! crate when an ingest finishes with at least [`ANN_MIN_VECTORS`] chunk
//! vectors, and stored as its neighbour lists only (`vectors/ann.hnsw`):
//! the search walks the graph over the store's own memory-mapped vectors,
//! so the index holds no second copy of them and costs nothing to load.
//!
//! The file names the packs and row counts it was built over; when they
//! are not the committed ones it is stale and exact search is used. It is
//! written to a temporary name, synced and renamed, so a kill leaves the
//! old file, a stale one or none: never a wrong answer.
//!
//! Layout: the magic [`MAGIC`]; six little-endian `u32`s (pack count,
//! dimension, rows, entry row, levels, zero); per pack its number and rows
//! (two `u64`s); then per level from 0 up, `rows + 1` `u32` offsets and
//! the neighbour rows they delimit (rows are numbered across the packs in
//! order).

use std::cmp::Ordering;
use std::collections::BinaryHeap;
use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};

use hnsw_rs::prelude::{Distance, Hnsw};
use rustc_hash::FxHashSet;

use super::vectors::{VECTORS, dot};
use crate::error::StoreError;

/// Chunk vectors from which an ingest builds the HNSW index: below it exact
/// search is fast enough (BENCHMARKS "Fitted constants").
pub const ANN_MIN_VECTORS: usize = 200_000;
/// Candidates kept while searching the graph (`ef` in the HNSW paper).
pub const ANN_EF_SEARCH: usize = 100;
/// Neighbours a point keeps per level (`M`; twice as many on level 0).
const MAX_NEIGHBOURS: usize = 16;
/// Candidates kept while inserting a point.
const EF_CONSTRUCTION: usize = 100;
/// Levels the builder may use.
const MAX_LEVELS: usize = 16;
/// The first bytes of the index file (format 1).
const MAGIC: [u8; 8] = *b"RKANN\0\0\x01";
/// Bytes before the packs: the magic and six `u32`s.
const HEADER: usize = 32;
/// The index file's name in the vectors folder.
pub(super) const ANN_FILE: &str = "ann.hnsw";

/// The index file of the store `dir`.
pub(super) fn ann_path(dir: &Path) -> PathBuf {
    dir.join(VECTORS).join(ANN_FILE)
}

/// The packs and their row counts, in order: what an index was built over.
pub(super) type Key = Vec<(u64, u64)>;

/// Build the graph over `rows` (all of one dimension, `dim`), numbered in
/// order, and return the index file's bytes; `key` names the rows' packs.
pub(super) fn build(rows: &[&[f32]], dim: usize, key: &Key) -> Result<Vec<u8>, StoreError> {
    let n = rows.len();
    let count = u32::try_from(n).map_err(|_| StoreError::Invalid("too many vectors".into()))?;
    let hnsw: Hnsw<f32, Unlike> = Hnsw::new(MAX_NEIGHBOURS, n, MAX_LEVELS, EF_CONSTRUCTION, Unlike);
    let data: Vec<(&[f32], usize)> = rows.iter().copied().zip(0..).collect();
    hnsw.parallel_insert_slice(&data);
    let points = hnsw.get_point_indexation();
    let levels = if n == 0 {
        0
    } else {
        usize::from(points.get_max_level_observed()) + 1
    };
    // Neighbour lists per level, per row.
    let mut adj: Vec<Vec<Vec<u32>>> = vec![vec![Vec::new(); n]; levels];
    let mut entry = None;
    for level in (0..levels).rev() {
        entry = entry.or_else(|| points.get_layer_iterator(level).next());
    }
    if levels > 0 {
        for p in points {
            let row = p.get_origin_id();
            for (level, list) in p.get_neighborhood_id().iter().enumerate().take(levels) {
                if let Some(slot) = adj.get_mut(level).and_then(|a| a.get_mut(row)) {
                    *slot = list
                        .iter()
                        .filter_map(|x| u32::try_from(x.d_id).ok())
                        .collect();
                }
            }
        }
    }
    let entry = entry.map_or(0, |p| p.get_origin_id());
    let mut out = Vec::new();
    out.extend_from_slice(&MAGIC);
    let words = [key.len(), dim, n, entry, levels, 0];
    for w in words {
        let w = u32::try_from(w).map_err(|_| StoreError::Invalid("index too large".into()))?;
        out.extend_from_slice(&w.to_le_bytes());
    }
    for &(pack, rows) in key {
        out.extend_from_slice(&pack.to_le_bytes());
        out.extend_from_slice(&rows.to_le_bytes());
    }
    for level in &adj {
        let mut at = 0u32;
        out.extend_from_slice(&at.to_le_bytes());
        for list in level {
            at = at.saturating_add(u32::try_from(list.len()).unwrap_or(u32::MAX));
            out.extend_from_slice(&at.to_le_bytes());
        }
        for r in level.iter().flatten() {
            out.extend_from_slice(&r.min(&count.saturating_sub(1)).to_le_bytes());
        }
    }
    Ok(out)
}

/// The distance the graph is built with: one less the dot product of two
/// unit vectors, never below 0 (the crate's `DistDot` asserts that rounding
/// keeps it so, which a vector against itself can break).
#[derive(Debug, Clone, Copy, Default)]
struct Unlike;

impl Distance<f32> for Unlike {
    fn eval(&self, a: &[f32], b: &[f32]) -> f32 {
        (1.0 - dot(a, b)).max(0.0)
    }
}

/// Write the index file durably: a temporary name, synced, renamed.
pub(super) fn write(dir: &Path, bytes: &[u8]) -> Result<(), StoreError> {
    let path = ann_path(dir);
    let tmp = path.with_extension("tmp");
    {
        let mut f = File::create(&tmp).map_err(StoreError::io(&tmp))?;
        f.write_all(bytes).map_err(StoreError::io(&tmp))?;
        f.sync_all().map_err(StoreError::io(&tmp))?;
    }
    std::fs::rename(&tmp, &path).map_err(StoreError::io(&path))?;
    if let Ok(d) = File::open(dir.join(VECTORS)) {
        let _ = d.sync_all();
    }
    Ok(())
}

/// A stored graph, mapped.
#[derive(Debug)]
pub(super) struct Graph {
    map: memmap2::Mmap,
    /// Numbers in a vector.
    pub(super) dim: usize,
    /// Rows indexed.
    count: usize,
    /// Where the search starts (a row on the top level).
    entry: u32,
    /// Per level, where its offsets and its neighbour rows start (in words
    /// after the packs).
    levels: Vec<(usize, usize)>,
    /// The packs and rows it was built over.
    pub(super) key: Key,
}

impl Graph {
    /// Map the index file of the store `dir`; `None` when there is none or
    /// it is damaged (exact search is used then; the next ingest rebuilds it).
    pub(super) fn open(dir: &Path) -> Option<Self> {
        let file = File::open(ann_path(dir)).ok()?;
        // SAFETY: the file is never changed once written: a new index is
        // renamed over it, which leaves this mapping's pages in place.
        #[allow(unsafe_code)]
        let map = unsafe { memmap2::Mmap::map(&file) }.ok()?;
        if map.get(..8)? != MAGIC {
            return None;
        }
        let word = |at: usize| -> Option<usize> {
            let b: [u8; 4] = map.get(at..at + 4)?.try_into().ok()?;
            Some(u32::from_le_bytes(b) as usize)
        };
        let (packs, dim, count, entry, n_levels) =
            (word(8)?, word(12)?, word(16)?, word(20)?, word(24)?);
        let long = |at: usize| -> Option<u64> {
            Some(u64::from_le_bytes(map.get(at..at + 8)?.try_into().ok()?))
        };
        let key = (0..packs)
            .map(|i| Some((long(HEADER + 16 * i)?, long(HEADER + 16 * i + 8)?)))
            .collect::<Option<Key>>()?;
        let mut graph = Self {
            map,
            dim,
            count,
            entry: u32::try_from(entry).ok()?,
            levels: Vec::with_capacity(n_levels),
            key,
        };
        let words = graph.words().len();
        let mut at = 0;
        for _ in 0..n_levels {
            let offsets = at;
            let edges = *graph.words().get(offsets + count)? as usize;
            at = offsets + count + 1 + edges;
            if at > words {
                return None;
            }
            graph.levels.push((offsets, offsets + count + 1));
        }
        (entry < count || count == 0).then_some(graph)
    }

    /// The words after the packs.
    fn words(&self) -> &[u32] {
        let start = HEADER + 16 * self.key.len();
        // The mapping is page-aligned and `start` a multiple of 4.
        self.map
            .get(start..)
            .and_then(|b| bytemuck::try_cast_slice(b.get(..b.len() / 4 * 4)?).ok())
            .unwrap_or_default()
    }

    /// The neighbours of `row` on `level`.
    fn neighbours(&self, level: usize, row: u32) -> &[u32] {
        let Some(&(offsets, edges)) = self.levels.get(level) else {
            return &[];
        };
        let words = self.words();
        let r = row as usize;
        let (Some(&a), Some(&b)) = (words.get(offsets + r), words.get(offsets + r + 1)) else {
            return &[];
        };
        words
            .get(edges + a as usize..edges + b as usize)
            .unwrap_or_default()
    }

    /// The rows nearest `query` found by walking the graph: greedy on the
    /// upper levels, a search keeping the `ef` best on level 0; with their
    /// dot products, in no order. `vector` gives a row's vector.
    pub(super) fn search<'a>(
        &self,
        query: &[f32],
        ef: usize,
        vector: impl Fn(u32) -> Option<&'a [f32]>,
    ) -> Vec<(u32, f32)> {
        if self.count == 0 || self.levels.is_empty() || ef == 0 {
            return Vec::new();
        }
        let sim = |r: u32| vector(r).map_or(f32::NEG_INFINITY, |v| dot(v, query));
        let mut cur = Scored(sim(self.entry), self.entry);
        for level in (1..self.levels.len()).rev() {
            loop {
                let best = self
                    .neighbours(level, cur.1)
                    .iter()
                    .map(|&n| Scored(sim(n), n))
                    .max()
                    .filter(|b| b.0 > cur.0);
                match best {
                    Some(b) => cur = b,
                    None => break,
                }
            }
        }
        let mut seen = FxHashSet::default();
        seen.insert(cur.1);
        let mut candidates = BinaryHeap::from([cur]);
        // The best found, worst on top.
        let mut found = BinaryHeap::from([std::cmp::Reverse(cur)]);
        while let Some(c) = candidates.pop() {
            let worst = found.peek().map_or(f32::NEG_INFINITY, |w| w.0.0);
            if found.len() >= ef && c.0 < worst {
                break;
            }
            for &n in self.neighbours(0, c.1) {
                if !seen.insert(n) {
                    continue;
                }
                let s = Scored(sim(n), n);
                let worst = found.peek().map_or(f32::NEG_INFINITY, |w| w.0.0);
                if found.len() < ef || s.0 > worst {
                    candidates.push(s);
                    found.push(std::cmp::Reverse(s));
                    if found.len() > ef {
                        found.pop();
                    }
                }
            }
        }
        found.into_iter().map(|r| (r.0.1, r.0.0)).collect()
    }
}

/// A row and its similarity, ordered by similarity (then row).
#[derive(Debug, Clone, Copy)]
struct Scored(f32, u32);

impl PartialEq for Scored {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Scored {}

impl PartialOrd for Scored {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Scored {
    fn cmp(&self, other: &Self) -> Ordering {
        self.0.total_cmp(&other.0).then(other.1.cmp(&self.1))
    }
}

#[cfg(test)]
mod tests {
    use super::super::vectors::{DenseIndex, PackVectors};
    use super::*;
    use rlmkg_ids::ChunkId;

    /// A unit vector near axis `c` of `dim`, moved a little by `i`.
    fn clustered(c: usize, i: usize, dim: usize) -> Vec<f32> {
        let mut v: Vec<f32> = (0..dim)
            .map(|d| (((i * 31 + d * 17) % 13) as f32) * 0.01)
            .collect();
        v[c % dim] += 1.0;
        let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
        v.iter().map(|x| x / norm).collect()
    }

    /// Two packs of clustered vectors in a store folder; their numbers.
    fn store(dir: &Path, dim: usize) -> Vec<u64> {
        std::fs::create_dir_all(dir.join(VECTORS)).unwrap();
        for pack in [1u64, 2] {
            let mut p = PackVectors::default();
            for i in 0..300 {
                let id = pack * 1000 + i as u64;
                p.push(ChunkId(id), &clustered(i % 8, i, dim)).unwrap();
            }
            p.write(dir, pack).unwrap();
        }
        vec![1, 2]
    }

    #[test]
    fn the_graph_finds_the_exact_top_hits_and_a_stale_one_is_not_used() {
        let tmp = tempfile::tempdir().unwrap();
        let dim = 16;
        let packs = store(tmp.path(), dim);
        let exact = DenseIndex::open(tmp.path(), &packs).unwrap();
        assert!(!exact.has_ann(), "no graph yet");
        let bytes = build(&exact.rows(), dim, &exact.key()).unwrap();
        write(tmp.path(), &bytes).unwrap();
        let index = DenseIndex::open(tmp.path(), &packs).unwrap();
        assert!(index.has_ann());
        let mut agree = 0;
        for q in 0..40 {
            let query = clustered(q % 8, q * 7 + 3, dim);
            let want = index.exact(&query, 10);
            let got = index.search(&query, 10);
            assert_eq!(got.first(), want.first(), "query {q}");
            agree += got.iter().filter(|h| want.contains(h)).count();
        }
        assert!(agree >= 40 * 9, "recall@10 {agree}/400");
        // Another pack list (a pack replaced or added): stale, exact search.
        let fewer = DenseIndex::open(tmp.path(), &packs[..1]).unwrap();
        assert!(!fewer.has_ann());
        let query = clustered(3, 5, dim);
        assert_eq!(fewer.search(&query, 5), fewer.exact(&query, 5));
        // A damaged or missing file: exact search.
        std::fs::write(ann_path(tmp.path()), &bytes[..bytes.len() / 2]).unwrap();
        assert!(!DenseIndex::open(tmp.path(), &packs).unwrap().has_ann());
        std::fs::remove_file(ann_path(tmp.path())).unwrap();
        assert!(!DenseIndex::open(tmp.path(), &packs).unwrap().has_ann());
    }

    /// Vectors of the words of a text, hashed into 32 numbers: texts that
    /// share words are near.
    #[derive(Debug)]
    struct Words;

    impl crate::Embedder for Words {
        fn identity(&self) -> String {
            "words".into()
        }
        fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, String> {
            Ok(texts
                .iter()
                .map(|t| {
                    let mut v = [0.01f32; 32];
                    for w in t.split_whitespace() {
                        let h = w.bytes().fold(7usize, |h, b| h * 31 + b as usize);
                        v[h % 32] += 1.0;
                    }
                    let n = v.iter().map(|x| x * x).sum::<f32>().sqrt();
                    v.iter().map(|x| x / n).collect()
                })
                .collect())
        }
    }

    fn ingest(store: &Path, corpus: &Path, ann_min: usize) {
        let mut w = crate::Store::create_or_open(store).unwrap();
        w.set_ann_min_vectors(ann_min);
        let opts = crate::IngestOptions {
            embedder: Some(std::sync::Arc::new(Words)),
            ..crate::IngestOptions::default()
        };
        w.ingest(&[corpus.to_path_buf()], &opts, &crate::NoProgress)
            .unwrap();
    }

    fn reader(store: &Path) -> crate::Store {
        let mut r = crate::Store::open_read(store).unwrap();
        r.set_embedder(Some(std::sync::Arc::new(Words)));
        r
    }

    #[test]
    fn an_ingest_past_the_threshold_builds_the_graph_and_search_uses_it() {
        let tmp = tempfile::tempdir().unwrap();
        let (corpus, store) = (tmp.path().join("corpus"), tmp.path().join("store"));
        std::fs::create_dir_all(&corpus).unwrap();
        let topics = [
            "river flood valley",
            "pasta water salt",
            "stadium club goal",
        ];
        for i in 0..30 {
            let text = format!("{} note {i} {}", topics[i % 3], topics[i % 3]);
            std::fs::write(corpus.join(format!("f{i}.txt")), text).unwrap();
        }
        ingest(&store, &corpus, 1);
        let r = reader(&store);
        assert!(r.has_ann_index().unwrap());
        let exact = r.nearest_chunks("pasta salt", 5, true).unwrap();
        let ann = r.nearest_chunks("pasta salt", 5, false).unwrap();
        assert_eq!(ann.first(), exact.first());
        drop(r);
        // A new file under the default threshold: the graph is stale and goes.
        std::fs::write(corpus.join("new.txt"), "river valley").unwrap();
        ingest(&store, &corpus, ANN_MIN_VECTORS);
        assert!(!ann_path(&store).exists());
        let r = reader(&store);
        assert!(!r.has_ann_index().unwrap());
        let exact = r.nearest_chunks("river", 5, true).unwrap();
        assert_eq!(r.nearest_chunks("river", 5, false).unwrap(), exact);
        assert!(!exact.is_empty());
    }
}
