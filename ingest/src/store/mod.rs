//! The on-disk store: manifest, tantivy index, graph records and view
//! snapshot, document texts and the writer lock, kept consistent by ordering
//! (new files first, the manifest last, replaced files after it) and recovery
//! on the next writer open.
//!
//! - [`write`]: the writer API the ingest pipeline uses (one batch of files in,
//!   one commit; removals; the final commit with the view snapshot);
//! - [`read`]: every read query;
//! - [`check`]: the invariant checker.

mod ann;
mod check;
mod cited;
mod fresh;
mod fusion;
mod names;
mod read;
mod vectors;
pub(crate) mod write;

pub use ann::{ANN_EF_SEARCH, ANN_MIN_VECTORS};
pub use fusion::{BM25_WEIGHT, DENSE_WEIGHT, FUSION_DEPTH, RRF_K, SearchMode, fuse};
pub use names::NAME_MATCH_MIN;
pub use read::{MAX_HOPS, MAX_K};
pub use vectors::Embedder;

use std::collections::{BTreeSet, HashMap};
use std::fs::File;
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use rlmkg_graph::{
    DocGraph, EntityCards, GraphStore, GraphView, RdfGraph, SparqlRemote, ViewBuilder,
};
use rlmkg_index::ChunkIndex;

use crate::error::StoreError;
use crate::manifest::Manifest;

/// Indexing threads of the store's tantivy writer. One: the pipeline's own
/// threads (preparation, records, view) keep the other cores busy, and one
/// thread writes one segment per commit instead of one per thread, which
/// makes commits cheaper and searches faster (fewer segments to score).
const INDEX_THREADS: usize = 1;

/// The folder of the packs' texts (`p<n>.txt`, the texts of a pack's files
/// one after the other).
const TEXTS: &str = "texts";

/// The folder of the tantivy index.
const INDEX: &str = "index";

/// The folder of the graph (records and view snapshots).
const GRAPH: &str = "graph";

/// An open store directory.
pub struct Store {
    dir: PathBuf,
    manifest: Manifest,
    /// The committed file ids, each with its path as shown to users (a
    /// chunk's path is its file's: the index does not store it per chunk)
    /// and where its text is.
    committed: HashMap<String, Committed>,
    listed: ListedDocs,
    index: ChunkIndex,
    graph: GraphStore,
    view: Mutex<Option<Arc<GraphView>>>,
    /// The entity cards of the snapshot named (its name with them, `None`
    /// when it has none), opened on first use.
    cards: Mutex<Option<(String, Option<Arc<EntityCards>>)>>,
    rdf: Mutex<Option<Arc<RdfGraph>>>,
    /// Where SPARQL queries go instead of the in-memory RDF, when set.
    remote: Option<Arc<dyn SparqlRemote>>,
    /// The writer's view of the documents this command added, built on its
    /// own thread, so the final commit reads only the records of the others.
    fresh: Option<fresh::FreshView>,
    /// Files written since the last commit, which the next commit lists.
    pending: write::Pending,
    /// Makes a query's vector for dense search (set by the application).
    embedder: Option<Arc<dyn Embedder>>,
    /// The vectors of the committed packs, mapped on first use.
    dense: Mutex<Option<Arc<vectors::DenseIndex>>>,
    /// The entity-name vectors of the committed packs, mapped on first use.
    names: Mutex<Option<Arc<names::NameIndex>>>,
    /// The mode of [`Store::search`] when set, else [`Store::default_mode`]'s.
    mode: Option<SearchMode>,
    /// Chunk vectors from which a final commit builds the HNSW graph
    /// ([`ANN_MIN_VECTORS`] unless a test or benchmark lowers it).
    ann_min: usize,
    lock: Option<File>,
}

impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Store")
            .field("dir", &self.dir)
            .field("writer", &self.lock.is_some())
            .finish()
    }
}

/// The extension of a pack's text file (named after the pack, as its
/// records are: [`rlmkg_graph::pack_stem`]).
const TEXT_EXT: &str = "txt";

/// The pack whose text file is called `name` (see [`Store::text_path`]).
fn pack_of_text_name(name: &str) -> Option<u64> {
    rlmkg_graph::pack_of_stem(name.strip_suffix(TEXT_EXT)?.strip_suffix('.')?)
}

/// Reads the pack number from a pack file's name.
type PackOfName = fn(&str) -> Option<u64>;

/// A committed file as readers need it.
#[derive(Debug)]
struct Committed {
    /// Its path as shown to users.
    display: String,
    /// The pack holding its text, and where the text starts in it.
    text: Option<(u64, u64)>,
}

/// The number of a document id (`d17` → 17).
pub(super) fn doc_number(id: &str) -> Option<u64> {
    id.parse::<rlmkg_ids::DocId>().ok().map(|d| d.0)
}

/// The document ids a manifest lists, as sorted number ranges (a lookup is a
/// binary search, not a scan over the files), and the packs holding them.
#[derive(Debug, Default)]
struct ListedDocs {
    ranges: Vec<(u64, u64)>,
    count: u64,
    packs: Vec<u64>,
}

impl ListedDocs {
    fn of(m: &Manifest) -> Self {
        let mut ranges: Vec<(u64, u64)> = m
            .files
            .values()
            .filter(|f| f.doc_count > 0)
            .map(|f| (f.doc_first, f.doc_first + f.doc_count))
            .collect();
        ranges.sort_unstable();
        let count = ranges.iter().map(|(a, b)| b - a).sum();
        let packs: BTreeSet<u64> = m.files.values().filter_map(|f| f.pack).collect();
        Self {
            ranges,
            count,
            packs: packs.into_iter().collect(),
        }
    }

    fn contains(&self, doc: rlmkg_ids::DocId) -> bool {
        let n = doc.0;
        let i = self.ranges.partition_point(|r| r.0 <= n);
        i > 0 && n < self.ranges[i - 1].1
    }
}

impl Store {
    /// Open the store in `dir` as the single writer, creating it when absent. Takes
    /// the lock file (failing at once when another writer holds it) and removes any
    /// residue of an interrupted command.
    pub fn create_or_open(dir: &Path) -> Result<Store, StoreError> {
        std::fs::create_dir_all(dir).map_err(StoreError::io(dir))?;
        let lock = take_lock(dir)?;
        let fresh = Manifest::load(dir)?;
        let is_new = fresh.is_none();
        let manifest = fresh.unwrap_or_default();
        for sub in [TEXTS, vectors::VECTORS] {
            std::fs::create_dir_all(dir.join(sub)).map_err(StoreError::io(dir.join(sub)))?;
        }
        let index = ChunkIndex::open_or_create(&dir.join(INDEX), INDEX_THREADS)?;
        let graph = GraphStore::open(&dir.join(GRAPH), true)?;
        let mut store = Store::assemble(dir, manifest, index, graph, Some(lock));
        store.recover(is_new)?;
        Ok(store)
    }

    /// A store over opened parts, with the committed set read from the manifest.
    fn assemble(
        dir: &Path,
        manifest: Manifest,
        index: ChunkIndex,
        graph: GraphStore,
        lock: Option<File>,
    ) -> Store {
        let mut store = Store {
            dir: dir.to_path_buf(),
            committed: HashMap::new(),
            listed: ListedDocs::default(),
            manifest,
            index,
            graph,
            view: Mutex::new(None),
            cards: Mutex::new(None),
            rdf: Mutex::new(None),
            remote: None,
            fresh: None,
            pending: write::Pending::default(),
            embedder: None,
            dense: Mutex::new(None),
            ann_min: ANN_MIN_VECTORS,
            names: Mutex::new(None),
            mode: None,
            lock,
        };
        store.refresh_committed();
        store
    }

    /// Open the store in `dir` for reading: the last committed state, no lock.
    pub fn open_read(dir: &Path) -> Result<Store, StoreError> {
        let manifest =
            Manifest::load(dir)?.ok_or_else(|| StoreError::NotFound(dir.to_path_buf()))?;
        let index_dir = dir.join(INDEX);
        if !index_dir.is_dir() {
            // Writers create it before the first manifest and never remove it.
            return Err(StoreError::Damaged {
                dir: dir.to_path_buf(),
                what: missing_under(dir, &index_dir, true),
            });
        }
        let index = ChunkIndex::open_read(&index_dir)?;
        let graph = GraphStore::open(&dir.join(GRAPH), false)?;
        Ok(Store::assemble(dir, manifest, index, graph, None))
    }

    /// Make the current state the committed one by saving the manifest (the
    /// commit point); the index must be committed and new records written
    /// before. The manifest names no view snapshot, so readers build the view
    /// from the records (see [`Store::commit_last`]).
    fn commit(&mut self) -> Result<(), StoreError> {
        let prev = self.manifest.view_snapshot.take();
        self.refresh_committed();
        self.set_view(None);
        self.save_manifest(prev)
    }

    /// The final commit of a command: [`Store::commit`] that also builds the
    /// graph view of the whole store and saves its snapshot, which the manifest
    /// names. With `index_too` the index commits here too, beside the view
    /// build (new records must be written before). The previous snapshot stays
    /// for readers that read the previous manifest a moment ago; older ones go.
    ///
    /// Returns the seconds the view thread spent adding this command's
    /// documents (0 when it wrote none).
    fn commit_last(&mut self, index_too: bool) -> Result<f64, StoreError> {
        let prev = self.manifest.view_snapshot.take();
        self.refresh_committed();
        let name = GraphStore::snapshot_name(self.manifest.next_snapshot);
        self.manifest.next_snapshot += 1;
        let fresh = self.fresh.take();
        let first = fresh.as_ref().map_or(u64::MAX, fresh::FreshView::first);
        // The packs holding documents from before this command: the only
        // records the view still needs read.
        let earlier: BTreeSet<u64> = self
            .manifest
            .files
            .values()
            .filter(|f| f.doc_first < first)
            .filter_map(|f| f.pack)
            .collect();
        let earlier: Vec<u64> = earlier.into_iter().collect();
        let (listed, graph, index) = (&self.listed, &self.graph, &mut self.index);
        let build = || -> Result<(GraphView, f64), StoreError> {
            // The view thread finishes its documents beside the index commit.
            let (mut b, secs) = match fresh {
                Some(fresh) => {
                    let c = fresh.finish()?;
                    (c.builder, c.secs)
                }
                None => (ViewBuilder::default(), 0.0),
            };
            // Documents of this command whose records it replaced again are
            // not listed: start over from the records then (rare).
            let view = if b.docs() > 0 && !b.all_listed(&|d| listed.contains(d)) {
                graph.build_view(&listed.packs, &|d| listed.contains(d))?
            } else {
                graph.extend_view(&mut b, &earlier, &|d| listed.contains(d) && d.0 < first)?;
                b.build()
            };
            graph.write_snapshot(&name, &view)?;
            Ok((view, secs))
        };
        let (indexed, view) =
            rayon::join(|| if index_too { index.commit() } else { Ok(()) }, build);
        indexed?;
        let (view, secs) = view?;
        self.manifest.view_snapshot = Some(name);
        self.set_view(Some(Arc::new(view)));
        self.save_manifest(prev)?;
        self.refresh_ann()?;
        Ok(secs)
    }

    /// After a commit: build the HNSW graph over the committed chunk vectors
    /// when they are at least `ann_min` and it is not fresh; remove a stale
    /// one below that (searches are exact then).
    fn refresh_ann(&mut self) -> Result<(), StoreError> {
        if self.manifest.settings.embedder.is_none() {
            return Ok(());
        }
        let dense = vectors::DenseIndex::open(&self.dir, &self.listed.packs)?;
        if dense.has_ann() {
            return Ok(());
        }
        match dense.dim() {
            Some(dim) if dense.len() >= self.ann_min.max(1) => {
                let bytes = ann::build(&dense.rows(), dim, &dense.key())?;
                ann::write(&self.dir, &bytes)?;
            }
            _ => {
                let _ = std::fs::remove_file(ann::ann_path(&self.dir));
            }
        }
        if let Ok(mut d) = self.dense.lock() {
            *d = None;
        }
        Ok(())
    }

    /// For benchmarks: build the HNSW graph now if the committed chunk
    /// vectors are at least the threshold ([`Store::set_ann_min_vectors`])
    /// and it is not fresh, as the end of an ingest does.
    pub fn refresh_ann_index(&mut self) -> Result<(), StoreError> {
        self.require_writer()?;
        self.refresh_ann()
    }

    /// For tests and benchmarks: build the HNSW graph from `n` chunk vectors
    /// on (instead of [`ANN_MIN_VECTORS`]) at this writer's final commits.
    pub fn set_ann_min_vectors(&mut self, n: usize) {
        self.ann_min = n;
    }

    /// Save the manifest (the commit point) and prune the view snapshots no
    /// reader can still need (all but the current one and `prev`).
    fn save_manifest(&mut self, prev: Option<String>) -> Result<(), StoreError> {
        self.manifest.save(&self.dir)?;
        if let Ok(mut rdf) = self.rdf.lock() {
            *rdf = None;
        }
        let keep: Vec<&str> = [&self.manifest.view_snapshot, &prev]
            .into_iter()
            .flatten()
            .map(String::as_str)
            .collect();
        self.graph.prune_snapshots(&keep)?;
        Ok(())
    }

    /// The store directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    fn refresh_committed(&mut self) {
        self.committed = self
            .manifest
            .files
            .values()
            .map(|f| {
                let c = Committed {
                    display: f.display.clone(),
                    text: f.pack.map(|p| (p, f.text_offset)),
                };
                (f.id.clone(), c)
            })
            .collect();
        self.listed = ListedDocs::of(&self.manifest);
        if let Ok(mut dense) = self.dense.lock() {
            *dense = None;
        }
        if let Ok(mut names) = self.names.lock() {
            *names = None;
        }
    }

    fn require_writer(&self) -> Result<(), StoreError> {
        if self.lock.is_some() {
            Ok(())
        } else {
            Err(StoreError::ReadOnly)
        }
    }

    /// The text file of pack `n` (`texts/p<n>.txt`).
    fn text_path(&self, n: u64) -> PathBuf {
        let name = format!("{}.{TEXT_EXT}", rlmkg_graph::pack_stem(n));
        self.dir.join(TEXTS).join(name)
    }

    /// Remove index records and packs the manifest does not name, forget
    /// listed files whose index records or pack are missing (the next ingest
    /// adds them again; the other files of their packs move to new ones), and
    /// commit when anything changed or the view snapshot is missing.
    fn recover(&mut self, is_new: bool) -> Result<(), StoreError> {
        let listed: BTreeSet<String> = self.committed.keys().cloned().collect();
        let in_index = self.index.files()?;
        let mut index_dirty = false;
        for f in in_index.difference(&listed) {
            self.index.delete_file(f)?;
            index_dirty = true;
        }
        let named: BTreeSet<u64> = self.listed.packs.iter().copied().collect();
        let on_disk = self.graph.packs()?;
        let residue: Vec<u64> = on_disk.difference(&named).copied().collect();
        let mut changed = !residue.is_empty();
        self.remove_packs(&residue)?;
        // A listed file missing from the index, or whose pack is not all
        // there, cannot be trusted: forget it so the next ingest re-adds it.
        // A store that keeps vectors keeps both kinds for every pack.
        let embeds = self.manifest.settings.embedder.is_some();
        let whole = |p: u64| {
            on_disk.contains(&p)
                && self.text_path(p).is_file()
                && (!embeds
                    || (vectors::vector_path(&self.dir, p).is_file()
                        && vectors::name_vector_path(&self.dir, p).is_file()))
        };
        let missing: Vec<String> = self
            .manifest
            .files
            .iter()
            .filter(|(_, f)| {
                f.doc_count > 0 && (!in_index.contains(&f.id) || !f.pack.is_some_and(whole))
            })
            .map(|(k, _)| k.clone())
            .collect();
        let mut dead = Vec::new();
        if !missing.is_empty() {
            changed = true;
            let mut gone = Vec::new();
            for k in &missing {
                if let Some(f) = self.manifest.files.remove(k) {
                    self.index.delete_file(&f.id)?;
                    index_dirty = true;
                    gone.push(f);
                }
            }
            dead = self.repack(&gone)?;
            self.refresh_committed();
        }
        if index_dirty {
            self.index.commit()?;
        }
        let snapshot_ok = self
            .manifest
            .view_snapshot
            .as_ref()
            .is_some_and(|s| self.graph.has_snapshot(s));
        if changed || is_new || !snapshot_ok {
            self.commit_last(false)?;
        } else if let Some(s) = self.manifest.view_snapshot.clone() {
            // Snapshots of interrupted commands.
            self.graph.prune_snapshots(&[s.as_str()])?;
        }
        self.remove_packs(&dead)?;
        // Texts and vectors of packs no manifest names (the records' residue
        // went above).
        let kinds: [(&str, PackOfName); 2] = [
            (TEXTS, pack_of_text_name),
            (vectors::VECTORS, vectors::pack_of_vector_name),
        ];
        for (folder, pack_of) in kinds {
            if let Ok(rd) = std::fs::read_dir(self.dir.join(folder)) {
                for e in rd.flatten() {
                    let name = e.file_name().to_string_lossy().into_owned();
                    if folder == vectors::VECTORS && name == ann::ANN_FILE {
                        continue;
                    }
                    let pack = pack_of(&name);
                    if pack.is_none_or(|p| self.listed.packs.binary_search(&p).is_err()) {
                        let _ = std::fs::remove_file(e.path());
                    }
                }
            }
        }
        Ok(())
    }

    fn set_view(&self, v: Option<Arc<GraphView>>) {
        if let Ok(mut guard) = self.view.lock() {
            *guard = v;
        }
    }

    /// The graph view of the committed documents, loaded on first use: the
    /// snapshot the manifest names, else built from the records. A reader
    /// whose manifest a writer has since replaced, and whose records are gone,
    /// gets [`StoreError::Changed`]; records gone from a store no writer
    /// changed are [`StoreError::Damaged`].
    pub fn view(&self) -> Result<Arc<GraphView>, StoreError> {
        loaded(&self.view, "graph view", || {
            let snapshot = match &self.manifest.view_snapshot {
                Some(name) => self.graph.read_snapshot(name)?,
                None => None,
            };
            if let Some(v) = snapshot {
                return Ok(v);
            }
            let listed = &self.listed;
            let v = self
                .graph
                .build_view(&listed.packs, &|d| listed.contains(d))
                .map_err(|e| self.changed_or(e))?;
            let docs = v.summary().docs;
            if docs != self.listed.count {
                return Err(self.records_short(docs));
            }
            Ok(v)
        })
    }

    /// The entity cards of the snapshot the manifest names, while the view
    /// is not loaded: a cold entity lookup reads a few blocks of them instead
    /// of the whole snapshot (issue 31). `None` once the view is loaded (it
    /// answers), or when the snapshot has no cards (a store written before
    /// them; a reader whose snapshot a writer has since pruned): then the
    /// view answers.
    pub(crate) fn cards(&self) -> Option<Arc<EntityCards>> {
        if self.view.lock().ok()?.is_some() {
            return None;
        }
        let name = self.manifest.view_snapshot.as_ref()?;
        let mut guard = self.cards.lock().ok()?;
        if let Some((n, c)) = guard.as_ref()
            && n == name
        {
            return c.clone();
        }
        let cards = self.graph.open_cards(name).ok().flatten().map(Arc::new);
        *guard = Some((name.clone(), cards.clone()));
        cards
    }

    /// The RDF of the committed documents, built on first use (once per
    /// process).
    pub fn rdf(&self) -> Result<Arc<RdfGraph>, StoreError> {
        let mut guard = self
            .rdf
            .lock()
            .map_err(|_| StoreError::Invalid("RDF lock poisoned".into()))?;
        if let Some(r) = guard.as_ref() {
            return Ok(r.clone());
        }
        let (rdf, records) = self.committed_rdf()?;
        drop(records);
        let rdf = Arc::new(rdf);
        *guard = Some(rdf.clone());
        Ok(rdf)
    }

    /// Send SPARQL queries ([`Store::sparql`]) to `remote` (a SPARQL endpoint
    /// the RDF was exported to) instead of the in-memory RDF; `None` goes
    /// back to the local engine.
    pub fn set_sparql_remote(&mut self, remote: Option<Arc<dyn SparqlRemote>>) {
        self.remote = remote;
    }

    /// The remote set by [`Store::set_sparql_remote`], if any.
    pub(crate) fn sparql_remote(&self) -> Option<&Arc<dyn SparqlRemote>> {
        self.remote.as_ref()
    }

    /// The graph records of every committed document (what an export to a
    /// SPARQL endpoint pushes), in the order of the packs.
    pub fn doc_graphs(&self) -> Result<Vec<DocGraph>, StoreError> {
        let listed = &self.listed;
        let records = self
            .graph
            .records(&listed.packs, &|d| listed.contains(d))
            .map_err(|e| self.changed_or(e))?;
        if records.len() as u64 != listed.count {
            return Err(self.records_short(records.len() as u64));
        }
        Ok(records)
    }

    /// The RDF of the committed documents with the records it was built from;
    /// [`StoreError::Changed`] or [`StoreError::Damaged`] when a listed
    /// record is gone ([`Store::gone`]).
    fn committed_rdf(&self) -> Result<(RdfGraph, Vec<DocGraph>), StoreError> {
        let listed = &self.listed;
        let (rdf, records) = self
            .graph
            .rdf(&listed.packs, &|d| listed.contains(d))
            .map_err(|e| self.changed_or(e))?;
        if records.len() as u64 != self.listed.count {
            return Err(self.records_short(records.len() as u64));
        }
        Ok((rdf, records))
    }

    /// A record file that vanished under a reader: a writer committed, or
    /// the store is damaged ([`Store::gone`]).
    fn changed_or(&self, e: rlmkg_graph::GraphError) -> StoreError {
        match e {
            rlmkg_graph::GraphError::RecordGone(name) => {
                let graph = self.dir.join(GRAPH);
                self.gone(if graph.is_dir() {
                    format!("the graph records {name} are missing")
                } else {
                    missing_under(&self.dir, &graph, true)
                })
            }
            e => e.into(),
        }
    }

    /// Fewer documents in the graph records than the manifest lists (`found`).
    fn records_short(&self, found: u64) -> StoreError {
        self.gone(format!(
            "the graph records of {} of its {} documents are missing",
            self.listed.count.abs_diff(found),
            self.listed.count
        ))
    }

    /// The error for something the manifest names that is not there (`what`,
    /// in words): [`StoreError::Changed`] when a writer has committed since
    /// this reader read the manifest (writers remove what they replaced
    /// only after the commit, so a rerun reads the new state), else
    /// [`StoreError::Damaged`], which no rerun mends. A writer holds the
    /// lock, so nothing commits under it: what it misses is damage.
    pub(crate) fn gone(&self, what: String) -> StoreError {
        if self.lock.is_none() {
            match Manifest::load(&self.dir) {
                Ok(Some(now)) if now == self.manifest => {}
                Ok(Some(_)) => return StoreError::Changed(self.dir.clone()),
                Ok(None) => return StoreError::NotFound(self.dir.clone()),
                Err(e) => return e,
            }
        }
        StoreError::Damaged {
            dir: self.dir.clone(),
            what,
        }
    }

    /// The manifest (for tools and tests).
    pub fn manifest(&self) -> &Manifest {
        &self.manifest
    }
}

/// What is missing of `path` (a folder when `folder`) under the store
/// `dir`, in words: the first folder on the way to it that is gone
/// (`texts/ is missing`), else the path itself (`texts/p1.txt is missing`).
pub(crate) fn missing_under(dir: &Path, path: &Path, folder: bool) -> String {
    let rel = path.strip_prefix(dir).unwrap_or(path);
    let mut so_far = PathBuf::new();
    let mut parts = rel.components().peekable();
    while let Some(part) = parts.next() {
        so_far.push(part);
        let last = parts.peek().is_none();
        if last || !dir.join(&so_far).exists() {
            let slash = if !last || folder { "/" } else { "" };
            return format!("{}{slash} is missing", so_far.display());
        }
    }
    format!("{} is missing", rel.display())
}

/// Take the writer lock of `dir`, recording who holds it.
fn take_lock(dir: &Path) -> Result<File, StoreError> {
    let lock_path = dir.join("lock");
    let mut lock = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(&lock_path)
        .map_err(StoreError::io(&lock_path))?;
    if lock.try_lock().is_err() {
        let mut holder = String::new();
        let _ = lock.read_to_string(&mut holder);
        let holder = holder.trim();
        return Err(StoreError::Locked {
            dir: dir.to_path_buf(),
            holder: if holder.is_empty() {
                "unknown process".into()
            } else {
                holder.to_string()
            },
        });
    }
    let me = format!(
        "pid {} ({})",
        std::process::id(),
        std::env::args().take(3).collect::<Vec<_>>().join(" ")
    );
    let _ = lock.set_len(0);
    let _ = lock.seek(SeekFrom::Start(0));
    let _ = lock.write_all(me.as_bytes());
    let _ = lock.flush();
    Ok(lock)
}

/// What `slot` holds, made by `make` on the first call (the lock held, so
/// once); `what` names it in the error of a poisoned lock.
pub(super) fn loaded<T>(
    slot: &Mutex<Option<Arc<T>>>,
    what: &str,
    make: impl FnOnce() -> Result<T, StoreError>,
) -> Result<Arc<T>, StoreError> {
    let mut guard = slot
        .lock()
        .map_err(|_| StoreError::Invalid(format!("{what} lock poisoned")))?;
    if let Some(v) = guard.as_ref() {
        return Ok(v.clone());
    }
    let v = Arc::new(make()?);
    *guard = Some(v.clone());
    Ok(v)
}
