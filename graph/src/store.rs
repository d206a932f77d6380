//! The graph folder of a store: the record files (the truth), snapshots of
//! the petgraph view built from them, and the RDF derived from them on demand.
//!
//! Layout inside the folder:
//! - `docs/p<n>.rec`: the records, one pack per part an ingest wrote (see
//!   [`crate::records`]); the caller names the packs to read;
//! - `view-<n>.bin`: a snapshot of the view of exactly the documents of one
//!   commit, which the store's manifest names, so readers open a big store
//!   without reading every record;
//! - `view-<n>.cards`: the entity cards of that view ([`EntityCards`]),
//!   written before it, so a cold entity lookup reads a few blocks of them
//!   instead of the whole snapshot (a store without them reads the view).
//!
//! There is no database: the RDF ([`RdfGraph`]) is built in memory from the
//! committed records when a command first needs it.

use std::collections::BTreeSet;
use std::io::Write;
use std::path::{Path, PathBuf};

use rayon::prelude::*;
use rlmkg_ids::DocId;

use crate::error::{GraphError, file_err};
use crate::model::DocGraph;
use crate::rdf::RdfGraph;
use crate::records::{Records, pack_file_name};
use crate::view::{EntityCards, GraphView, ViewBuilder, write_file};

/// The folder of the record files inside the graph folder.
const DOCS: &str = "docs";
/// Prefix and extension of view snapshots.
const SNAPSHOT_PREFIX: &str = "view-";
const SNAPSHOT_EXT: &str = ".bin";
/// Extension of the entity cards beside a snapshot.
const CARDS_EXT: &str = ".cards";
/// First bytes of a view snapshot, with the version of its encoding.
const SNAPSHOT_MAGIC: &[u8; 8] = b"RKVIEW02";
/// Record files parsed in parallel at once (bounds memory while reading).
const READ_SLICE: usize = 256;

/// The graph folder of one store.
#[derive(Debug, Clone)]
pub struct GraphStore {
    dir: PathBuf,
    records: Records,
}

impl GraphStore {
    /// The graph folder `dir` (created when `create`).
    pub fn open(dir: &Path, create: bool) -> Result<Self, GraphError> {
        let records = Records::new(dir.join(DOCS));
        if create {
            std::fs::create_dir_all(dir).map_err(|e| file_err(dir, &e))?;
            records.create()?;
        }
        Ok(Self {
            dir: dir.to_path_buf(),
            records,
        })
    }

    /// Write the records of pack `n` (documents written together); callers
    /// name the packs to read later. [`GraphStore::sync`] makes the written
    /// files durable.
    pub fn write_pack(&self, n: u64, docs: &[DocGraph]) -> Result<PathBuf, GraphError> {
        self.records.write(n, docs)
    }

    /// The records of pack `n`, for rewriting it without some documents;
    /// [`GraphError::RecordGone`] when it is gone.
    pub fn read_pack(&self, n: u64) -> Result<Vec<DocGraph>, GraphError> {
        Records::read(&self.records.path_of(n))?
            .ok_or_else(|| GraphError::RecordGone(pack_file_name(n)))
    }

    /// Make record files written by [`GraphStore::write_pack`] (and any
    /// other files of the store listed) durable.
    pub fn sync(&self, written: &[PathBuf]) -> Result<(), GraphError> {
        self.records.sync(written)
    }

    /// Delete the records of packs (call only once the manifest no longer
    /// names them, so a reader never misses a record its manifest names).
    pub fn remove_packs(&self, packs: &[u64]) -> Result<(), GraphError> {
        self.records.remove(packs)
    }

    /// The packs that have a record file.
    pub fn packs(&self) -> Result<BTreeSet<u64>, GraphError> {
        self.records.packs()
    }

    /// Call `each` with the records of every document `keep` accepts in
    /// `packs`, files parsed in parallel. A pack that is gone when read (a
    /// writer committed and removed it) is [`GraphError::RecordGone`].
    fn for_records(
        &self,
        packs: &[u64],
        keep: &(dyn Fn(DocId) -> bool + Sync),
        each: &mut dyn FnMut(DocGraph),
    ) -> Result<(), GraphError> {
        for slice in packs.chunks(READ_SLICE) {
            let parsed: Vec<Vec<DocGraph>> = slice
                .par_iter()
                .map(|&n| self.read_pack(n))
                .collect::<Result<_, _>>()?;
            for d in parsed.into_iter().flatten() {
                if keep(d.doc) {
                    each(d);
                }
            }
        }
        Ok(())
    }

    /// The records of the documents `keep` accepts in `packs`.
    pub fn records(
        &self,
        packs: &[u64],
        keep: &(dyn Fn(DocId) -> bool + Sync),
    ) -> Result<Vec<DocGraph>, GraphError> {
        let mut out = Vec::new();
        self.for_records(packs, keep, &mut |d| out.push(d))?;
        Ok(out)
    }

    /// Build the petgraph view from the records of the documents `keep`
    /// accepts in `packs` (readers pass the committed ones).
    pub fn build_view(
        &self,
        packs: &[u64],
        keep: &(dyn Fn(DocId) -> bool + Sync),
    ) -> Result<GraphView, GraphError> {
        let mut b = ViewBuilder::default();
        self.extend_view(&mut b, packs, keep)?;
        Ok(b.build())
    }

    /// Add the records of the documents `keep` accepts in `packs` to a view
    /// under construction.
    pub fn extend_view(
        &self,
        b: &mut ViewBuilder,
        packs: &[u64],
        keep: &(dyn Fn(DocId) -> bool + Sync),
    ) -> Result<(), GraphError> {
        self.for_records(packs, keep, &mut |d| b.add_doc(&d))
    }

    /// The RDF of the records of the documents `keep` accepts in `packs`,
    /// with the records it was built from.
    pub fn rdf(
        &self,
        packs: &[u64],
        keep: &(dyn Fn(DocId) -> bool + Sync),
    ) -> Result<(RdfGraph, Vec<DocGraph>), GraphError> {
        let records = self.records(packs, keep)?;
        Ok((RdfGraph::from_records(&records)?, records))
    }

    /// The name of view snapshot number `n`.
    pub fn snapshot_name(n: u64) -> String {
        format!("{SNAPSHOT_PREFIX}{n}{SNAPSHOT_EXT}")
    }

    /// The name of the entity cards beside the snapshot `name`.
    fn cards_name(name: &str) -> String {
        let stem = name.strip_suffix(SNAPSHOT_EXT).unwrap_or(name);
        format!("{stem}{CARDS_EXT}")
    }

    /// Write `view` as the snapshot `name`, its entity cards first (each a
    /// temporary file, fsync, rename).
    pub fn write_snapshot(&self, name: &str, view: &GraphView) -> Result<(), GraphError> {
        let cards = self.dir.join(Self::cards_name(name));
        match view.cards_bytes().map_err(|e| file_err(&cards, &e))? {
            Some(bytes) => write_file(&cards, &bytes)?,
            None => match std::fs::remove_file(&cards) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                    return Err(file_err(&cards, &e));
                }
                _ => {}
            },
        }
        let path = self.dir.join(name);
        let tmp = self.dir.join(format!("{name}.tmp"));
        let body = postcard::to_allocvec(view).map_err(|e| file_err(&path, &e))?;
        {
            let mut f = std::fs::File::create(&tmp).map_err(|e| file_err(&tmp, &e))?;
            f.write_all(SNAPSHOT_MAGIC)
                .and_then(|()| f.write_all(&body))
                .and_then(|()| f.sync_all())
                .map_err(|e| file_err(&tmp, &e))?;
        }
        std::fs::rename(&tmp, &path).map_err(|e| file_err(&path, &e))
    }

    /// The entity cards beside the snapshot `name`; `None` when there are
    /// none (a store written before them, or a writer replaced them).
    pub fn open_cards(&self, name: &str) -> Result<Option<EntityCards>, GraphError> {
        EntityCards::open(&self.dir.join(Self::cards_name(name)))
    }

    /// Read the snapshot `name`; `None` when it is gone (a writer replaced it).
    pub fn read_snapshot(&self, name: &str) -> Result<Option<GraphView>, GraphError> {
        let path = self.dir.join(name);
        let bytes = match std::fs::read(&path) {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(file_err(&path, &e)),
        };
        let Some(body) = bytes.strip_prefix(SNAPSHOT_MAGIC.as_slice()) else {
            return Err(file_err(&path, &"not a view snapshot of this version"));
        };
        let view: GraphView = postcard::from_bytes(body).map_err(|e| file_err(&path, &e))?;
        if !view.is_consistent() {
            return Err(file_err(&path, &"damaged view snapshot"));
        }
        Ok(Some(view))
    }

    /// Whether the snapshot `name` exists.
    pub fn has_snapshot(&self, name: &str) -> bool {
        self.dir.join(name).is_file()
    }

    /// Delete every snapshot and its cards (and leftover temporary files)
    /// except those named in `keep` and their cards. Files that cannot be
    /// deleted are left for the next call.
    pub fn prune_snapshots(&self, keep: &[&str]) -> Result<(), GraphError> {
        let cards: Vec<String> = keep.iter().map(|k| Self::cards_name(k)).collect();
        let rd = std::fs::read_dir(&self.dir).map_err(|e| file_err(&self.dir, &e))?;
        for e in rd.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            if name.starts_with(SNAPSHOT_PREFIX)
                && !keep.contains(&name.as_str())
                && !cards.contains(&name)
            {
                let _ = std::fs::remove_file(e.path());
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rdf::tests::doc;

    #[test]
    fn records_views_and_snapshots() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("graph");
        let g = GraphStore::open(&dir, true).unwrap();
        let written = [
            g.write_pack(1, &[doc(1, "ada")]).unwrap(),
            g.write_pack(2, &[doc(2, "bob"), doc(3, "cy")]).unwrap(),
        ];
        g.sync(&written).unwrap();
        assert_eq!(g.packs().unwrap(), BTreeSet::from([1, 2]));
        // The view is built from the named packs, filtered by the caller.
        let view = g.build_view(&[1, 2], &|d| d == DocId(2)).unwrap();
        assert!(view.entity("bob").is_some() && view.entity("ada").is_none());
        assert!(view.entity("cy").is_none());
        assert_eq!(
            view.entities_of_chunk(rlmkg_ids::ChunkId(2)),
            vec!["bob".to_string()]
        );
        assert!(
            g.build_view(&[1], &|_| true)
                .unwrap()
                .entity("bob")
                .is_none()
        );
        // A snapshot reads back as the same view.
        let name = GraphStore::snapshot_name(1);
        g.write_snapshot(&name, &view).unwrap();
        let back = g.read_snapshot(&name).unwrap().unwrap();
        assert_eq!(back.summary(), view.summary());
        assert_eq!(
            back.neighbors("bob", 10, None),
            view.neighbors("bob", 10, None)
        );
        assert_eq!(back.entity("bob"), view.entity("bob"));
        // Its entity cards beside it answer the same.
        let cards = g.open_cards(&name).unwrap().unwrap();
        assert_eq!(cards.entity("bob").unwrap(), view.entity("bob"));
        g.prune_snapshots(&[&name]).unwrap();
        assert!(
            g.open_cards(&name).unwrap().is_some(),
            "kept with its snapshot"
        );
        g.prune_snapshots(&[]).unwrap();
        assert!(g.read_snapshot(&name).unwrap().is_none());
        assert!(g.open_cards(&name).unwrap().is_none());
        // Removing a pack: a reader that still names it learns it is gone.
        g.remove_packs(&[1]).unwrap();
        assert_eq!(g.packs().unwrap(), BTreeSet::from([2]));
        assert!(matches!(
            g.records(&[1, 2], &|_| true),
            Err(GraphError::RecordGone(_))
        ));
        let (rdf, records) = g.rdf(&[2], &|_| true).unwrap();
        assert_eq!(records.len(), 2);
        assert_eq!(rdf.doc_ids().unwrap(), BTreeSet::from([DocId(2), DocId(3)]));
    }

    #[test]
    fn a_snapshot_of_another_version_is_an_error() {
        let tmp = tempfile::tempdir().unwrap();
        let g = GraphStore::open(tmp.path(), true).unwrap();
        std::fs::write(tmp.path().join("view-1.bin"), b"RKVIEW00junk").unwrap();
        assert!(matches!(
            g.read_snapshot("view-1.bin"),
            Err(GraphError::File { .. })
        ));
    }
}
