//! One shared open store for every request, reopened when a writer commits.
//!
//! A reader opened on a manifest sees that commit whole: it filters the index
//! by the manifest it read and reads the packs it names (ARCHITECTURE.md,
//! invariants). The server keeps one such reader and looks at the manifest's
//! file before handing it out (one `stat`): when the manifest was replaced (a
//! commit renames a new one into place), it opens a new reader on the new
//! commit; requests already running keep the reader they started with, so
//! every request sees one whole commit, the one before or the one after.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, RwLock};
use std::time::SystemTime;

use rlmkg::{Store, StoreError};

/// The name of the store's manifest file (its commit point).
const MANIFEST: &str = "manifest.json";

/// What identifies one version of the manifest file: a commit writes a new
/// file and renames it into place, which changes its inode and its time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Stamp {
    inode: u64,
    modified: Option<SystemTime>,
    len: u64,
}

impl Stamp {
    /// The stamp of the manifest in `dir`, or `None` when there is none.
    fn of(dir: &Path) -> Option<Stamp> {
        let meta = std::fs::metadata(dir.join(MANIFEST)).ok()?;
        Some(Stamp {
            inode: inode(&meta),
            modified: meta.modified().ok(),
            len: meta.len(),
        })
    }
}

#[cfg(unix)]
fn inode(meta: &std::fs::Metadata) -> u64 {
    std::os::unix::fs::MetadataExt::ino(meta)
}

#[cfg(not(unix))]
fn inode(_: &std::fs::Metadata) -> u64 {
    0
}

/// The reader in use and the manifest it was opened on.
struct Current {
    stamp: Option<Stamp>,
    store: Arc<Store>,
}

/// A store directory shared by every request: the reader of its last commit.
pub struct SharedStore {
    dir: PathBuf,
    current: RwLock<Current>,
    /// Held while a new reader is opened, so that one commit opens one reader.
    reopening: Mutex<()>,
}

impl std::fmt::Debug for SharedStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SharedStore")
            .field("dir", &self.dir)
            .finish()
    }
}

impl SharedStore {
    /// Open the store in `dir` for reading (it must exist).
    pub fn open(dir: &Path) -> Result<SharedStore, StoreError> {
        let stamp = Stamp::of(dir);
        let store = rlmkg::open_store_read(dir)?;
        Ok(SharedStore {
            dir: dir.to_path_buf(),
            current: RwLock::new(Current {
                stamp,
                store: Arc::new(store),
            }),
            reopening: Mutex::new(()),
        })
    }

    /// The store directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The reader of the last commit: the one in use, or a new one when the
    /// manifest changed since it was opened. Blocking (it may open the store).
    pub fn get(&self) -> Result<Arc<Store>, StoreError> {
        let stamp = Stamp::of(&self.dir);
        if let Some(store) = self.current_if(stamp) {
            return Ok(store);
        }
        self.reopen()
    }

    /// Run `f` on the reader of the last commit; when a writer committed
    /// while it read (`StoreError::Changed`), once more on the new commit.
    pub fn with<T>(&self, f: impl Fn(&Store) -> Result<T, StoreError>) -> Result<T, StoreError> {
        let store = self.get()?;
        match f(&store) {
            Err(StoreError::Changed(_)) => {
                let store = self.reopen()?;
                f(&store)
            }
            other => other,
        }
    }

    fn current_if(&self, stamp: Option<Stamp>) -> Option<Arc<Store>> {
        let cur = self.current.read().ok()?;
        (cur.stamp == stamp).then(|| Arc::clone(&cur.store))
    }

    /// Open a reader on the manifest now in place (unless another request
    /// did while this one waited for the lock).
    fn reopen(&self) -> Result<Arc<Store>, StoreError> {
        let _one = self
            .reopening
            .lock()
            .map_err(|_| StoreError::Invalid("the store lock was poisoned".into()))?;
        let stamp = Stamp::of(&self.dir);
        if let Some(store) = self.current_if(stamp) {
            return Ok(store);
        }
        // Read the stamp before opening: a commit after it gives a newer
        // manifest than the stamp says, which the next request reopens.
        let store = Arc::new(rlmkg::open_store_read(&self.dir)?);
        if let Ok(mut cur) = self.current.write() {
            *cur = Current {
                stamp,
                store: Arc::clone(&store),
            };
        }
        Ok(store)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ingest(dir: &Path, name: &str, text: &str) {
        let src = dir.join("src").join(name);
        std::fs::create_dir_all(src.parent().expect("a parent")).expect("a folder");
        std::fs::write(&src, text).expect("a file");
        let mut store = Store::create_or_open(&dir.join("store")).expect("the writer");
        store
            .ingest(&[src], &rlmkg::IngestOptions::default(), &rlmkg::NoProgress)
            .expect("ingest");
    }

    #[test]
    fn a_commit_gives_readers_a_new_reader_and_nothing_else_does() {
        let dir = tempfile::tempdir().expect("a temp dir");
        ingest(dir.path(), "a.md", "# A\n\nAlpha stands in Aldergate.\n");
        let shared = SharedStore::open(&dir.path().join("store")).expect("open");
        let first = shared.get().expect("a reader");
        assert!(
            Arc::ptr_eq(&first, &shared.get().expect("a reader")),
            "no commit, same reader"
        );
        let docs = |s: &Store| s.stats().expect("stats").docs;
        assert_eq!(docs(&first), 1);
        ingest(dir.path(), "b.md", "# B\n\nBeta stands in Halden.\n");
        let second = shared.get().expect("a reader");
        assert!(!Arc::ptr_eq(&first, &second), "a commit, a new reader");
        assert_eq!(docs(&second), 2);
        // The request that held the old reader still sees its whole commit.
        assert_eq!(docs(&first), 1);
        assert_eq!(shared.with(|s| s.stats()).expect("stats").docs, 2);
    }
}
