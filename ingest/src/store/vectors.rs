//! Dense vectors of chunks (issue 46): one vector file per pack
//! (`vectors/p<n>.vec`) beside its text and records, written with them,
//! replaced whole with them and read by memory map; exact search over all
//! of them.
//!
//! A vector file is a 16-byte header (the magic [`MAGIC`], the dimension and
//! the count as little-endian `u32`s), then `count × dim` little-endian
//! `f32`s (the vectors, unit length, 16 bytes into the file so a mapping is
//! aligned for them), then `count` little-endian `u64` chunk numbers, one per
//! vector, in the same order.
//!
//! The store computes vectors through the [`Embedder`] trait, which the
//! application implements with its sentence encoder: the store knows no model.

use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};

use rayon::prelude::*;
use rlmkg_ids::ChunkId;

use super::ann::{self, ANN_EF_SEARCH, Graph};
use crate::error::StoreError;

/// Turns texts into unit-length vectors whose dot product is their
/// similarity. The application implements it with its sentence encoder; a
/// store given one writes a vector per chunk and can search by meaning.
pub trait Embedder: Send + Sync + std::fmt::Debug {
    /// What made the vectors (the model's name), recorded in the store's
    /// settings: vectors of another embedder are made again.
    fn identity(&self) -> String;
    /// One vector per text, in order, all of one length.
    fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, String>;
}

/// The first bytes of a chunks' vector file (format 1).
const MAGIC: [u8; 8] = *b"RKVEC\0\0\x01";
/// Header bytes: the magic, the dimension, the count.
const HEADER: usize = 16;
/// The folder of the vector files.
pub(super) const VECTORS: &str = "vectors";
/// The extension of a pack's chunk vector file.
pub(super) const VECTOR_EXT: &str = "vec";
/// The extension of a pack's entity-name vector file ([`super::names`]).
pub(super) const NAME_EXT: &str = "ent";

/// The chunk vector file of pack `n` in the store `dir`.
pub(super) fn vector_path(dir: &Path, n: u64) -> PathBuf {
    let name = format!("{}.{VECTOR_EXT}", rlmkg_graph::pack_stem(n));
    dir.join(VECTORS).join(name)
}

/// The entity-name vector file of pack `n` in the store `dir`.
pub(super) fn name_vector_path(dir: &Path, n: u64) -> PathBuf {
    let name = format!("{}.{NAME_EXT}", rlmkg_graph::pack_stem(n));
    dir.join(VECTORS).join(name)
}

/// The pack whose vector file (of chunks or of entity names) is called `name`.
pub(super) fn pack_of_vector_name(name: &str) -> Option<u64> {
    let stem = [VECTOR_EXT, NAME_EXT]
        .iter()
        .find_map(|ext| name.strip_suffix(ext)?.strip_suffix('.'))?;
    rlmkg_graph::pack_of_stem(stem)
}

/// Write a vector file: `magic`, the header, `values` (`dim` numbers a row)
/// and `trailer`, what names the rows. Not yet durable: the caller syncs it
/// with the pack's other files before the commit.
pub(super) fn write_vector_file(
    path: &Path,
    magic: &[u8; 8],
    dim: usize,
    values: &[f32],
    trailer: &[u8],
) -> Result<(), StoreError> {
    let count = values.len().checked_div(dim).unwrap_or(0);
    let count = u32::try_from(count)
        .map_err(|_| StoreError::Invalid("too many vectors in one pack".into()))?;
    let dim = u32::try_from(dim).map_err(|_| StoreError::Invalid("vectors too long".into()))?;
    let mut bytes = Vec::with_capacity(HEADER + values.len() * 4 + trailer.len());
    bytes.extend_from_slice(magic);
    bytes.extend_from_slice(&dim.to_le_bytes());
    bytes.extend_from_slice(&count.to_le_bytes());
    for x in values {
        bytes.extend_from_slice(&x.to_le_bytes());
    }
    bytes.extend_from_slice(trailer);
    let mut out = File::create(path).map_err(StoreError::io(path))?;
    out.write_all(&bytes).map_err(StoreError::io(path))
}

/// What a chunk's vector is made of: its document's title (when it has one
/// and the text does not open with it) and its text.
pub(super) fn embed_input(title: &str, text: &str) -> String {
    let title = title.trim();
    if title.is_empty() || text.trim_start().starts_with(title) {
        text.to_string()
    } else {
        format!("{title}\n{text}")
    }
}

/// Vectors of a pack being written, in memory until [`PackVectors::write`].
#[derive(Debug, Default)]
pub(super) struct PackVectors {
    dim: usize,
    values: Vec<f32>,
    ids: Vec<u64>,
}

impl PackVectors {
    /// Add one chunk's vector; every vector of a pack has the first one's length.
    pub(super) fn push(&mut self, id: ChunkId, v: &[f32]) -> Result<(), StoreError> {
        fit_dim(
            &mut self.dim,
            self.ids.is_empty(),
            v,
            &format!("chunk {id}"),
        )?;
        self.values.extend_from_slice(v);
        self.ids.push(id.0);
        Ok(())
    }

    /// Whether no vector was added.
    pub(super) fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// Write the file of pack `n` (not yet durable: the caller syncs it with
    /// the pack's other files before the commit); returns its path.
    pub(super) fn write(&self, dir: &Path, n: u64) -> Result<PathBuf, StoreError> {
        let path = vector_path(dir, n);
        let trailer: Vec<u8> = self.ids.iter().flat_map(|id| id.to_le_bytes()).collect();
        write_vector_file(&path, &MAGIC, self.dim, &self.values, &trailer)?;
        Ok(path)
    }
}

/// Check that `v` has the pack's dimension `dim`, which the `first` vector
/// sets; `what` names the vector in the error.
pub(super) fn fit_dim(
    dim: &mut usize,
    first: bool,
    v: &[f32],
    what: &str,
) -> Result<(), StoreError> {
    if first {
        *dim = v.len();
    }
    if v.len() != *dim || v.is_empty() {
        return Err(StoreError::Invalid(format!(
            "the embedder returned a vector of {} numbers for {what}, not {dim}",
            v.len()
        )));
    }
    Ok(())
}

/// A vector file, mapped, its header checked: `count` rows of `dim`
/// numbers, then the trailer naming them.
#[derive(Debug)]
pub(super) struct Mapped {
    map: memmap2::Mmap,
    /// Numbers in a row.
    pub(super) dim: usize,
    /// Rows.
    pub(super) count: usize,
}

impl Mapped {
    /// Map the vector file at `path` if it opens with `magic`; `None` when
    /// there is none.
    pub(super) fn open(path: &Path, magic: &[u8; 8]) -> Result<Option<Self>, StoreError> {
        let file = match File::open(path) {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(StoreError::io(path)(e)),
        };
        // SAFETY: a pack's files are never changed once written: a pack is
        // replaced whole under a new name, and the old file is only unlinked,
        // which leaves this mapping's pages in place.
        #[allow(unsafe_code)]
        let map = unsafe { memmap2::Mmap::map(&file) }.map_err(StoreError::io(path))?;
        let header = map.get(..HEADER).ok_or_else(|| bad(path, "too short"))?;
        if header.get(..8) != Some(&magic[..]) {
            return Err(bad(path, "not a vector file of this kind"));
        }
        let word = |at: usize| {
            header
                .get(at..at + 4)
                .and_then(|b| b.try_into().ok())
                .map(u32::from_le_bytes)
        };
        let (dim, count) = match (word(8), word(12)) {
            (Some(d), Some(c)) => (d as usize, c as usize),
            _ => return Err(bad(path, "too short")),
        };
        let need = count
            .checked_mul(dim)
            .and_then(|n| n.checked_mul(4))
            .and_then(|n| n.checked_add(HEADER));
        if need.is_none_or(|n| n > map.len()) {
            return Err(bad(path, "shorter than its header says"));
        }
        Ok(Some(Self { map, dim, count }))
    }

    /// The vectors, `count × dim` numbers.
    pub(super) fn values(&self) -> &[f32] {
        let end = HEADER + self.count * self.dim * 4;
        // The mapping is page-aligned and the vectors start 16 bytes in.
        self.map
            .get(HEADER..end)
            .and_then(|b| bytemuck::try_cast_slice(b).ok())
            .unwrap_or_default()
    }

    /// Vector `i`.
    pub(super) fn row(&self, i: usize) -> Option<&[f32]> {
        self.values().get(i * self.dim..(i + 1) * self.dim)
    }

    /// The bytes after the vectors.
    pub(super) fn trailer(&self) -> &[u8] {
        self.map
            .get(HEADER + self.count * self.dim * 4..)
            .unwrap_or_default()
    }
}

/// A damaged vector file.
pub(super) fn bad(path: &Path, what: &str) -> StoreError {
    StoreError::Invalid(format!("{}: {what}", path.display()))
}

/// One pack's chunk vector file, mapped.
#[derive(Debug)]
pub(super) struct MappedVectors {
    mapped: Mapped,
}

impl MappedVectors {
    /// Map the chunk vector file at `path`; `None` when there is none.
    pub(super) fn open(path: &Path) -> Result<Option<Self>, StoreError> {
        let Some(mapped) = Mapped::open(path, &MAGIC)? else {
            return Ok(None);
        };
        if mapped.trailer().len() != mapped.count * 8 {
            return Err(bad(path, "its length does not match its header"));
        }
        Ok(Some(Self { mapped }))
    }

    /// The chunk number of vector `i`.
    fn id(&self, i: usize) -> Option<u64> {
        let b: [u8; 8] = self
            .mapped
            .trailer()
            .get(i * 8..i * 8 + 8)?
            .try_into()
            .ok()?;
        Some(u64::from_le_bytes(b))
    }

    /// The chunk numbers and vectors of the rows `keep` accepts (for moving
    /// them to a new pack).
    pub(super) fn rows(&self, keep: &dyn Fn(u64) -> bool) -> Vec<(u64, &[f32])> {
        (0..self.mapped.count)
            .filter_map(|i| {
                let id = self.id(i)?;
                keep(id).then_some((id, self.mapped.row(i)?))
            })
            .collect()
    }
}

/// The vectors of the packs a manifest names, and the HNSW graph over
/// them when one was built for exactly these packs ([`super::ann`]).
#[derive(Debug, Default)]
pub(super) struct DenseIndex {
    /// Each pack's number and vectors, in the manifest's order.
    packs: Vec<(u64, MappedVectors)>,
    /// The first row of each pack, counted across the packs.
    starts: Vec<usize>,
    ann: Option<Graph>,
}

impl DenseIndex {
    /// Map the vector files of `packs` in the store `dir` (packs without one
    /// are left out) and the HNSW graph when it is fresh.
    pub(super) fn open(dir: &Path, packs: &[u64]) -> Result<Self, StoreError> {
        let packs = open_packs(packs, |n| {
            Ok(MappedVectors::open(&vector_path(dir, n))?.map(|m| (n, m)))
        })?;
        let starts = packs
            .iter()
            .scan(0, |at, (_, p)| {
                let s = *at;
                *at += p.mapped.count;
                Some(s)
            })
            .collect();
        let mut index = Self {
            packs,
            starts,
            ann: None,
        };
        let key = index.key();
        let dim = index.dim();
        index.ann = Graph::open(dir).filter(|g| g.key == key && Some(g.dim) == dim);
        Ok(index)
    }

    /// Vectors held.
    pub(super) fn len(&self) -> usize {
        self.packs.iter().map(|p| p.1.mapped.count).sum()
    }

    /// Whether searches walk a fresh HNSW graph.
    pub(super) fn has_ann(&self) -> bool {
        self.ann.is_some()
    }

    /// The packs and their row counts, in order (what a graph is built over).
    pub(super) fn key(&self) -> ann::Key {
        self.packs
            .iter()
            .map(|(n, p)| (*n, p.mapped.count as u64))
            .collect()
    }

    /// The dimension shared by every pack's vectors; `None` when there are
    /// none or they differ.
    pub(super) fn dim(&self) -> Option<usize> {
        let first = self.packs.first()?.1.mapped.dim;
        self.packs
            .iter()
            .all(|p| p.1.mapped.dim == first)
            .then_some(first)
    }

    /// Every vector, numbered across the packs in order.
    pub(super) fn rows(&self) -> Vec<&[f32]> {
        self.packs
            .iter()
            .flat_map(|p| p.1.mapped.values().chunks_exact(p.1.mapped.dim.max(1)))
            .collect()
    }

    /// Row `r` counted across the packs: its pack and its place there.
    fn locate(&self, r: u32) -> Option<(&MappedVectors, usize)> {
        let r = r as usize;
        let i = self.starts.partition_point(|&s| s <= r).checked_sub(1)?;
        let start = *self.starts.get(i)?;
        Some((&self.packs.get(i)?.1, r - start))
    }

    /// The `k` chunks whose vectors have the largest dot product with
    /// `query`, best first (ties by chunk number), with it: found by the
    /// HNSW graph when there is a fresh one, else [`DenseIndex::exact`].
    pub(super) fn search(&self, query: &[f32], k: usize) -> Vec<(ChunkId, f32)> {
        let Some(graph) = self.ann.as_ref().filter(|g| g.dim == query.len()) else {
            return self.exact(query, k);
        };
        let found = graph.search(query, ANN_EF_SEARCH.max(k), |r| {
            let (p, i) = self.locate(r)?;
            p.mapped.row(i)
        });
        let mut hits: Vec<(ChunkId, f32)> = found
            .into_iter()
            .filter_map(|(r, s)| {
                let (p, i) = self.locate(r)?;
                Some((ChunkId(p.id(i)?), s))
            })
            .collect();
        top(&mut hits, k);
        hits
    }

    /// [`DenseIndex::search`] scoring every vector, packs in parallel.
    pub(super) fn exact(&self, query: &[f32], k: usize) -> Vec<(ChunkId, f32)> {
        if k == 0 {
            return Vec::new();
        }
        let mut all: Vec<(ChunkId, f32)> = self
            .packs
            .par_iter()
            .map(|p| &p.1)
            .filter(|p| p.mapped.dim == query.len())
            .flat_map_iter(|p| {
                let mut best: Vec<(ChunkId, f32)> = p
                    .mapped
                    .values()
                    .chunks_exact(p.mapped.dim)
                    .enumerate()
                    .filter_map(|(i, v)| Some((ChunkId(p.id(i)?), dot(v, query))))
                    .collect();
                top(&mut best, k);
                best
            })
            .collect();
        top(&mut all, k);
        all
    }
}

/// Each of `packs` opened by `open`, those without a file left out.
pub(super) fn open_packs<T>(
    packs: &[u64],
    open: impl Fn(u64) -> Result<Option<T>, StoreError>,
) -> Result<Vec<T>, StoreError> {
    let mut out = Vec::with_capacity(packs.len());
    for &n in packs {
        out.extend(open(n)?);
    }
    Ok(out)
}

/// Keep the `k` best of `hits`, best first (ties by key).
pub(super) fn top<K: Ord>(hits: &mut Vec<(K, f32)>, k: usize) {
    let order = |a: &(K, f32), b: &(K, f32)| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0));
    if hits.len() > k {
        hits.select_nth_unstable_by(k, order);
        hits.truncate(k);
    }
    hits.sort_by(order);
}

/// The dot product of two vectors (their similarity: both are unit length).
pub(super) fn dot(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn written_vectors_are_read_back_and_searched() {
        let tmp = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(tmp.path().join(VECTORS)).unwrap();
        let mut p = PackVectors::default();
        p.push(ChunkId(7), &[1.0, 0.0]).unwrap();
        p.push(ChunkId(3), &[0.6, 0.8]).unwrap();
        p.push(ChunkId(9), &[0.0, 1.0]).unwrap();
        assert!(p.push(ChunkId(1), &[1.0]).is_err(), "a wrong length");
        let path = p.write(tmp.path(), 4).unwrap();
        assert_eq!(pack_of_vector_name("p4.vec"), Some(4));
        assert_eq!(path, vector_path(tmp.path(), 4));
        let index = DenseIndex::open(tmp.path(), &[4, 5]).unwrap();
        assert_eq!(index.len(), 3);
        let hits = index.search(&[0.0, 1.0], 2);
        let ids: Vec<u64> = hits.iter().map(|h| h.0.0).collect();
        assert_eq!(ids, [9, 3]);
        let m = MappedVectors::open(&path).unwrap().unwrap();
        let kept: Vec<u64> = m.rows(&|id| id != 3).iter().map(|r| r.0).collect();
        assert_eq!(kept, [7, 9]);
    }

    #[test]
    fn a_damaged_file_is_refused() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("p1.vec");
        for bytes in [
            &b"RKVEC"[..],
            &[0u8; 16][..],
            &b"RKVEC\0\0\x01\x02\0\0\0\x01\0\0\0"[..],
        ] {
            std::fs::write(&path, bytes).unwrap();
            assert!(MappedVectors::open(&path).is_err(), "{bytes:?}");
        }
        assert!(
            MappedVectors::open(&tmp.path().join("none"))
                .unwrap()
                .is_none()
        );
    }
}
