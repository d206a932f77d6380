//! The record files: the source of truth of the graph.
//!
//! The documents an ingest writes together (one part of its input, many
//! files' worth) are kept in one pack, `<graph>/docs/p<n>.rec` (see
//! [`pack_file_name`]): [`RECORD_MAGIC`], then the documents' [`DocGraph`]s in
//! postcard (compact binary serde; JSON took 35 MB for 21 MB of text and a
//! sixth of ingest's record writing, and readers parse it again when they
//! build the RDF). One file per part, not per input file: creating a file
//! costs up to 240 µs where many were freed lately (ext4 without a journal
//! checks each recently freed inode it passes). The caller names which packs
//! hold what (the store's manifest) and never changes a written pack: packs
//! are replaced whole. `rlmkg export` shows the same facts as RDF. A batch of
//! files is made durable with one `syncfs`. Everything else the graph offers
//! (the petgraph view, its snapshot, the RDF) is derived from these records.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use crate::error::{GraphError, file_err};
use crate::model::DocGraph;

/// Extension of record files.
const RECORD_EXT: &str = "rec";
/// First bytes of a record file, with the version of its encoding.
const RECORD_MAGIC: &[u8; 8] = b"RKREC002";

/// The record files of one graph folder.
#[derive(Debug, Clone)]
pub(crate) struct Records {
    dir: PathBuf,
}

/// The name of pack `n` without an extension, `p<n>`: its record file is
/// `p<n>.rec`, and the store names the pack's other files after it too.
pub fn pack_stem(n: u64) -> String {
    format!("p{n}")
}

/// The pack a file stem names (inverse of [`pack_stem`]).
pub fn pack_of_stem(stem: &str) -> Option<u64> {
    let digits = stem.strip_prefix('p')?;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

/// The file name of pack `n`'s records: `p<n>.rec`.
pub(crate) fn pack_file_name(n: u64) -> String {
    format!("{}.{RECORD_EXT}", pack_stem(n))
}

/// The pack number a record file name holds (inverse of [`pack_file_name`]).
pub(crate) fn pack_of_name(name: &str) -> Option<u64> {
    pack_of_stem(name.strip_suffix(RECORD_EXT)?.strip_suffix('.')?)
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

    /// The packs that have a record file.
    pub(crate) fn packs(&self) -> Result<BTreeSet<u64>, GraphError> {
        let rd = match std::fs::read_dir(&self.dir) {
            Ok(rd) => rd,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(BTreeSet::new()),
            Err(e) => return Err(file_err(&self.dir, &e)),
        };
        Ok(rd
            .filter_map(|e| e.ok())
            .filter_map(|e| pack_of_name(&e.file_name().to_string_lossy()))
            .collect())
    }

    /// The record file of pack `n`.
    pub(crate) fn path_of(&self, n: u64) -> PathBuf {
        self.dir.join(pack_file_name(n))
    }

    /// Write the records of pack `n`; [`Records::sync`] makes them durable.
    /// No temporary name is needed: no manifest names the pack yet, so a
    /// half-written one is never read, and the next writer removes it before
    /// it gives that number again.
    pub(crate) fn write(&self, n: u64, docs: &[DocGraph]) -> Result<PathBuf, GraphError> {
        use std::io::Write;
        let path = self.path_of(n);
        // Streamed: a pack's records in one buffer took megabytes at a time,
        // which glibc's heap kept (50 MB more peak memory for sotu).
        let file = std::fs::File::create(&path).map_err(|e| file_err(&path, &e))?;
        let mut out = std::io::BufWriter::new(file);
        out.write_all(RECORD_MAGIC)
            .map_err(|e| file_err(&path, &e))?;
        let mut out = postcard::to_io(docs, out).map_err(|e| file_err(&path, &e))?;
        out.flush().map_err(|e| file_err(&path, &e))?;
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

    /// Delete the record files of packs (already gone is fine).
    pub(crate) fn remove(&self, packs: &[u64]) -> Result<(), GraphError> {
        for &n in packs {
            let f = self.path_of(n);
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
    fn pack_names_round_trip() {
        for n in [0, 7, 17, 123_456_789, u64::MAX] {
            assert_eq!(pack_of_name(&pack_file_name(n)), Some(n));
        }
        assert_eq!(pack_file_name(17), "p17.rec");
        for junk in [
            "p.rec",
            "p1x.rec",
            "d1.rec",
            "p1.txt",
            "p+1.rec",
            "p1.rec.tmp",
            "q1.rec",
        ] {
            assert_eq!(pack_of_name(junk), None, "{junk}");
        }
    }
}
