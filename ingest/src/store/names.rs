//! Vectors of entity names (issue 46): one per name an entity goes by in a
//! pack (its name and its aliases), so a name written otherwise ("Lindqvist",
//! "the Kestrel institute of coastal studies") finds the entity its words
//! alone do not ([`super::Store::similar_entities`]).
//!
//! One file per pack (`vectors/p<n>.ent`) beside its chunk vectors, written,
//! synced, repacked and removed with them (so a removed document's names go
//! with its pack, and a kill leaves what the chunk vectors leave). The file
//! is a vector file ([`super::vectors::write_vector_file`]) whose trailer
//! names each row: the entity's key, then the name, each a little-endian
//! `u32` length and its UTF-8 bytes.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use rayon::prelude::*;
use rlmkg_graph::EntityDecl;

use super::vectors::{
    Mapped, bad, dot, fit_dim, name_vector_path, open_packs, top, write_vector_file,
};
use crate::error::StoreError;

/// The first bytes of an entity-name vector file (format 1).
const MAGIC: [u8; 8] = *b"RKENT\0\0\x01";

/// The least similarity at which a name's vector stands for an entity. With
/// all-MiniLM-L6-v2, name variants of the sample corpus's entities score
/// 0.65–0.97 ("Lindqvist" 0.88, "Dr Ellison" 0.72, "USA" → United States of
/// America 0.75, "Kestrel Institute" 0.67, "UN" 0.65), and other entities of
/// the same kind up to 0.68 ("USA" → Russia; Norway 0.62): 0.7 keeps the
/// clearer variants and leaves those out (BENCHMARKS.md, "Fitted constants").
pub const NAME_MATCH_MIN: f32 = 0.7;

/// The kinds of entity whose names get vectors. Dates are their words, and
/// `other` (capitalised words the extraction could not type) are most of a
/// store's entities and seldom go by another name: left out, they keep the
/// name vectors near the size of the chunk vectors (BENCHMARKS.md, "Scale").
const NAMED_KINDS: [&str; 4] = ["person", "organization", "place", "work"];

/// The names of `entities` that get a vector, as (entity key, name): each
/// entity's name and its aliases, for the [`NAMED_KINDS`]. In order, each
/// pair once.
pub(crate) fn vector_names<'a>(
    entities: impl IntoIterator<Item = &'a EntityDecl>,
) -> Vec<(String, String)> {
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    for e in entities
        .into_iter()
        .filter(|e| NAMED_KINDS.contains(&e.kind.as_str()))
    {
        for name in std::iter::once(&e.name).chain(&e.aliases) {
            let name = name.trim();
            if !name.is_empty() && seen.insert((e.key.as_str(), name)) {
                out.push((e.key.clone(), name.to_string()));
            }
        }
    }
    out
}

/// Entity-name vectors of a pack being written, in memory until [`PackNames::write`].
#[derive(Debug, Default)]
pub(super) struct PackNames {
    dim: usize,
    values: Vec<f32>,
    rows: Vec<(String, String)>,
    seen: HashSet<(String, String)>,
}

impl PackNames {
    /// Add the vector of an entity's name (once per pair; every vector of a
    /// pack has the first one's length).
    pub(super) fn push(&mut self, key: &str, name: &str, v: &[f32]) -> Result<(), StoreError> {
        let what = format!("the name {name:?}");
        fit_dim(&mut self.dim, self.rows.is_empty(), v, &what)?;
        if self.seen.insert((key.to_string(), name.to_string())) {
            self.values.extend_from_slice(v);
            self.rows.push((key.to_string(), name.to_string()));
        }
        Ok(())
    }

    /// Write the file of pack `n`, even with no names (a store that keeps
    /// vectors has one for every pack); returns its path.
    pub(super) fn write(&self, dir: &Path, n: u64) -> Result<PathBuf, StoreError> {
        let path = name_vector_path(dir, n);
        let mut trailer = Vec::new();
        for (key, name) in &self.rows {
            for s in [key, name] {
                let len = u32::try_from(s.len())
                    .map_err(|_| StoreError::Invalid("an entity name too long".into()))?;
                trailer.extend_from_slice(&len.to_le_bytes());
                trailer.extend_from_slice(s.as_bytes());
            }
        }
        write_vector_file(&path, &MAGIC, self.dim, &self.values, &trailer)?;
        Ok(path)
    }
}

/// One pack's entity-name vector file, mapped, its rows' names read.
#[derive(Debug)]
pub(super) struct MappedNames {
    mapped: Mapped,
    rows: Vec<(String, String)>,
}

impl MappedNames {
    /// Map the file at `path`; `None` when there is none.
    pub(super) fn open(path: &Path) -> Result<Option<Self>, StoreError> {
        let Some(mapped) = Mapped::open(path, &MAGIC)? else {
            return Ok(None);
        };
        let mut rest = mapped.trailer();
        let mut take = || -> Option<String> {
            let len = u32::from_le_bytes(rest.get(..4)?.try_into().ok()?) as usize;
            let s = std::str::from_utf8(rest.get(4..4 + len)?).ok()?.to_string();
            rest = rest.get(4 + len..)?;
            Some(s)
        };
        let mut rows = Vec::with_capacity(mapped.count);
        for _ in 0..mapped.count {
            match (take(), take()) {
                (Some(key), Some(name)) => rows.push((key, name)),
                _ => return Err(bad(path, "its names are cut short")),
            }
        }
        Ok(Some(Self { mapped, rows }))
    }

    /// The rows whose (entity key, name) `keep` accepts, with their vectors
    /// (for moving them to a new pack).
    pub(super) fn rows(&self, keep: &dyn Fn(&str, &str) -> bool) -> Vec<(&str, &str, &[f32])> {
        self.rows
            .iter()
            .enumerate()
            .filter(|(_, (k, n))| keep(k, n))
            .filter_map(|(i, (k, n))| Some((k.as_str(), n.as_str(), self.mapped.row(i)?)))
            .collect()
    }
}

/// The entity-name vectors of the packs a manifest names.
#[derive(Debug, Default)]
pub(super) struct NameIndex {
    packs: Vec<MappedNames>,
}

impl NameIndex {
    /// Map the files of `packs` in the store `dir` (packs without one are left out).
    pub(super) fn open(dir: &Path, packs: &[u64]) -> Result<Self, StoreError> {
        let packs = open_packs(packs, |n| MappedNames::open(&name_vector_path(dir, n)))?;
        Ok(Self { packs })
    }

    /// The (entity key, name) pairs that have a vector, pack by pack.
    pub(super) fn pairs(&self) -> impl Iterator<Item = &(String, String)> {
        self.packs.iter().flat_map(|p| &p.rows)
    }

    /// The `k` entities with a name whose vector is nearest `query` (at least
    /// `min`), best first (ties by key), each once with its best name's
    /// similarity. Exact: every vector is scored, packs in parallel.
    pub(super) fn search(&self, query: &[f32], k: usize, min: f32) -> Vec<(String, f32)> {
        let best: HashMap<&str, f32> = self
            .packs
            .par_iter()
            .filter(|p| p.mapped.dim == query.len())
            .map(|p| {
                let mut best: HashMap<&str, f32> = HashMap::new();
                for (i, v) in p.mapped.values().chunks_exact(p.mapped.dim).enumerate() {
                    let s = dot(v, query);
                    if let (true, Some((key, _))) = (s >= min, p.rows.get(i)) {
                        let e = best.entry(key.as_str()).or_insert(s);
                        *e = e.max(s);
                    }
                }
                best
            })
            .reduce(HashMap::new, |mut a, b| {
                for (key, s) in b {
                    let e = a.entry(key).or_insert(s);
                    *e = e.max(s);
                }
                a
            });
        let mut hits: Vec<(String, f32)> =
            best.into_iter().map(|(k, s)| (k.to_string(), s)).collect();
        top(&mut hits, k);
        hits
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::vectors::VECTORS;

    fn decl(key: &str, name: &str, kind: &str, aliases: &[&str]) -> EntityDecl {
        EntityDecl {
            key: key.into(),
            name: name.into(),
            kind: kind.into(),
            aliases: aliases.iter().map(|a| a.to_string()).collect(),
        }
    }

    #[test]
    fn names_and_aliases_of_named_kinds_get_vectors() {
        let names = vector_names(&[
            decl("kics", "Kestrel Institute", "organization", &["KICS", " "]),
            decl("d1998", "1998", "date", &[]),
            decl("autumn", "Autumn", "other", &[]),
            decl("kics", "Kestrel Institute", "organization", &["KICS"]),
        ]);
        let pairs: Vec<(&str, &str)> = names.iter().map(|(k, n)| (&k[..], &n[..])).collect();
        assert_eq!(
            pairs,
            [("kics", "Kestrel Institute"), ("kics", "KICS")],
            "each pair once, no blank alias, no date, nothing untyped"
        );
    }

    #[test]
    fn written_names_are_read_back_and_searched() {
        let tmp = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(tmp.path().join(VECTORS)).unwrap();
        let mut p = PackNames::default();
        p.push("a", "Alpha", &[1.0, 0.0]).unwrap();
        p.push("a", "Alpha", &[1.0, 0.0]).unwrap();
        p.push("a", "A. Lpha", &[0.8, 0.6]).unwrap();
        p.push("b", "Beta", &[0.0, 1.0]).unwrap();
        assert!(p.push("c", "Gamma", &[1.0]).is_err(), "a wrong length");
        p.write(tmp.path(), 3).unwrap();
        PackNames::default().write(tmp.path(), 4).unwrap();
        let index = NameIndex::open(tmp.path(), &[3, 4, 5]).unwrap();
        // One hit per entity, its best name's similarity; below `min` left out.
        let hits = index.search(&[0.6, 0.8], 5, 0.5);
        let keys: Vec<&str> = hits.iter().map(|h| h.0.as_str()).collect();
        assert_eq!(keys, ["a", "b"]);
        assert!((hits[0].1 - 0.96).abs() < 1e-6, "{hits:?}");
        assert!(index.search(&[0.6, 0.8], 5, 0.97).is_empty());
        let m = MappedNames::open(&name_vector_path(tmp.path(), 3))
            .unwrap()
            .unwrap();
        let kept: Vec<&str> = m.rows(&|k, _| k == "b").iter().map(|r| r.1).collect();
        assert_eq!(kept, ["Beta"]);
    }

    #[test]
    fn a_damaged_file_is_refused() {
        let tmp = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(tmp.path().join(VECTORS)).unwrap();
        let mut p = PackNames::default();
        p.push("a", "Alpha", &[1.0]).unwrap();
        let path = p.write(tmp.path(), 1).unwrap();
        let bytes = std::fs::read(&path).unwrap();
        std::fs::write(&path, &bytes[..bytes.len() - 2]).unwrap();
        assert!(MappedNames::open(&path).is_err(), "names cut short");
        std::fs::write(&path, b"RKVEC\0\0\x01\0\0\0\0\0\0\0\0").unwrap();
        assert!(MappedNames::open(&path).is_err(), "a chunk vector file");
    }
}
