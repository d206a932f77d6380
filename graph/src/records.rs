//! The record files: the source of truth of the graph.
//!
//! Each input file's documents are kept in `<graph>/docs/<stem>.rec`, where
//! the stem names the documents it holds (`d17+3` holds d17–d19; see
//! [`record_stem`]): [`RECORD_MAGIC`], then the documents' [`DocGraph`]s in
//! postcard (compact binary serde; JSON took 35 MB for 21 MB of text and a
//! sixth of ingest's record writing, and readers parse it again when they
//! build the RDF). `rlmkg export` shows the same facts as RDF. A batch of
//! files is made durable with one `syncfs`. Everything else the graph offers
//! (the petgraph view, its snapshot, the RDF) is derived from these records.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use rlmkg_ids::DocId;

use crate::error::{GraphError, file_err};
use crate::model::DocGraph;

/// Extension of record files.
const RECORD_EXT: &str = "rec";
/// First bytes of a record file, with the version of its encoding.
const RECORD_MAGIC: &[u8; 8] = b"RKREC001";

/// The record files of one graph folder.
#[derive(Debug, Clone)]
pub(crate) struct Records {
    dir: PathBuf,
}

/// The file stem of a record holding `ids`: the id itself for one document,
/// `d17+3` for the run d17, d18, d19 (how ingest numbers the documents of one
/// input file), and otherwise every id followed by `+` (`d1+d5+`).
pub(crate) fn record_stem(ids: &[DocId]) -> String {
    let run = ids.len() > 1 && ids.windows(2).all(|w| w[1].0 == w[0].0.wrapping_add(1));
    match ids {
        [one] => one.to_string(),
        [first, ..] if run => format!("{first}+{}", ids.len()),
        // Not a numbered run (never from ingest): list every id.
        _ => ids.iter().map(|d| format!("{d}+")).collect(),
    }
}

/// The document ids a record file name holds (inverse of [`record_stem`]);
/// none for a name that is not one.
pub(crate) fn record_ids(stem: &str) -> Vec<DocId> {
    if let Some(list) = stem.strip_suffix('+') {
        return list
            .split('+')
            .map(str::parse)
            .collect::<Result<_, _>>()
            .unwrap_or_default();
    }
    if let Some((first, count)) = stem.rsplit_once('+') {
        let (Ok(first), Ok(count)) = (first.parse::<DocId>(), count.parse::<u64>()) else {
            return Vec::new();
        };
        return (first.0..first.0.saturating_add(count))
            .map(DocId)
            .collect();
    }
    stem.parse().map(|d| vec![d]).unwrap_or_default()
}

impl Records {
    /// The record files in `dir`.
    pub(crate) fn new(dir: PathBuf) -> Self {
        Self { dir }
    }

    /// Create the folder.
    pub(crate) fn create(&self) -> Result<(), GraphError> {
        std::fs::create_dir_all(&self.dir).map_err(|e| file_err(&self.dir, &e))
    }

    /// The record files and the document ids each holds (from its name), sorted
    /// by name.
    pub(crate) fn list(&self) -> Result<Vec<(PathBuf, Vec<DocId>)>, GraphError> {
        let rd = match std::fs::read_dir(&self.dir) {
            Ok(rd) => rd,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(file_err(&self.dir, &e)),
        };
        let mut files: Vec<(PathBuf, Vec<DocId>)> = rd
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == RECORD_EXT))
            .filter_map(|p| {
                let ids = p.file_stem().and_then(|s| s.to_str()).map(record_ids)?;
                Some((p, ids))
            })
            .collect();
        files.sort();
        Ok(files)
    }

    /// The document ids that have a record.
    pub(crate) fn doc_ids(&self) -> Result<BTreeSet<DocId>, GraphError> {
        Ok(self.list()?.into_iter().flat_map(|(_, ids)| ids).collect())
    }

    /// The record file of a group of documents (those of one input file).
    fn path_of(&self, ids: &[DocId]) -> PathBuf {
        self.dir.join(format!("{}.{RECORD_EXT}", record_stem(ids)))
    }

    /// Write the record of a group of document graphs to its file;
    /// [`Records::sync`] makes it durable. No temporary
    /// name is needed: the file names documents no manifest lists yet, so a
    /// half-written one is never read, and the next writer removes it before
    /// it gives those ids again.
    pub(crate) fn write(&self, docs: &[DocGraph]) -> Result<PathBuf, GraphError> {
        let ids: Vec<DocId> = docs.iter().map(|d| d.doc).collect();
        let path = self.path_of(&ids);
        let bytes =
            postcard::to_extend(docs, RECORD_MAGIC.to_vec()).map_err(|e| file_err(&path, &e))?;
        std::fs::write(&path, &bytes).map_err(|e| file_err(&path, &e))?;
        Ok(path)
    }

    /// Read a record file; `None` when it is gone (removed since it was listed).
    pub(crate) fn read(path: &Path) -> Result<Option<Vec<DocGraph>>, GraphError> {
        let bytes = match std::fs::read(path) {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(file_err(path, &e)),
        };
        let Some(body) = bytes.strip_prefix(RECORD_MAGIC.as_slice()) else {
            return Err(file_err(path, &"not a record file of this version"));
        };
        postcard::from_bytes(body)
            .map(Some)
            .map_err(|e| file_err(path, &e))
    }

    /// Make freshly written records and their directory entries durable: one
    /// `syncfs` on Linux (an fsync per record cost about 3 ms each, which
    /// dominated corpora of many small documents), an fsync per file elsewhere.
    pub(crate) fn sync(&self, written: &[PathBuf]) -> Result<(), GraphError> {
        if written.is_empty() {
            return Ok(());
        }
        let dir = std::fs::File::open(&self.dir).map_err(|e| file_err(&self.dir, &e))?;
        #[cfg(target_os = "linux")]
        {
            let _ = written;
            rustix::fs::syncfs(&dir).map_err(|e| file_err(&self.dir, &e))
        }
        #[cfg(not(target_os = "linux"))]
        {
            for p in written {
                let f = std::fs::File::open(p).map_err(|e| file_err(p, &e))?;
                f.sync_all().map_err(|e| file_err(p, &e))?;
            }
            dir.sync_all().map_err(|e| file_err(&self.dir, &e))
        }
    }

    /// Delete the record files holding any of `docs` (already gone is fine).
    pub(crate) fn remove(&self, docs: &BTreeSet<DocId>) -> Result<(), GraphError> {
        if docs.is_empty() {
            return Ok(());
        }
        for (f, ids) in self.list()? {
            if !ids.iter().any(|d| docs.contains(d)) {
                continue;
            }
            match std::fs::remove_file(&f) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(file_err(&f, &e)),
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn record_names_round_trip() {
        let cases: &[&[u64]] = &[&[7], &[17, 18, 19], &[9, 10], &[1, 3], &[5, 4]];
        for ids in cases {
            let ids: Vec<DocId> = ids.iter().copied().map(DocId).collect();
            let stem = record_stem(&ids);
            assert!(!stem.contains(['/', ' ']), "{stem}");
            assert_eq!(record_ids(&stem), ids, "{stem}");
        }
        assert_eq!(record_stem(&[DocId(17), DocId(18), DocId(19)]), "d17+3");
        assert_eq!(record_stem(&[DocId(1), DocId(3)]), "d1+d3+");
        for junk in ["junk+x", "x", "d1+d2x+", "d+1"] {
            assert!(record_ids(junk).is_empty(), "{junk}");
        }
    }
}
