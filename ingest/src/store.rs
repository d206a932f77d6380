//! The on-disk store: manifest, tantivy index, oxigraph graph, document texts
//! and the writer lock, kept consistent by ordering (graph and index first,
//! manifest last) and recovery on the next writer open.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::fs::File;
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rayon::prelude::*;
use rlmkg_graph::{ChunkSpan, DocGraph, GraphStore, GraphView};
use rlmkg_index::{ChunkIndex, ChunkRecord, DocRecord};

use crate::error::StoreError;
use crate::formats::{DocMeta, format_of};
use crate::manifest::{FileEntry, Manifest};
use crate::pipeline::{IngestOptions, PFile, prepare_file};
use crate::text::{SegmentMode, floor_boundary, line_at, sentences};
use crate::types::*;

/// An open store directory.
pub struct Store {
    dir: PathBuf,
    manifest: Manifest,
    committed: HashSet<String>,
    index: ChunkIndex,
    graph: GraphStore,
    view: Mutex<Option<Arc<GraphView>>>,
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

fn threads(n: usize) -> usize {
    if n == 0 {
        std::thread::available_parallelism().map_or(2, |n| n.get())
    } else {
        n
    }
}

fn parse_num(id: &str, prefix: char) -> Option<u64> {
    id.strip_prefix(prefix)?.parse().ok()
}

/// The document ids of file entries.
fn doc_ids_of(entries: &[FileEntry]) -> Vec<String> {
    entries.iter().flat_map(FileEntry::doc_ids).collect()
}

/// The document ids a manifest lists, as sorted number ranges (a lookup is a
/// binary search, not a scan over the files).
struct ListedDocs(Vec<(u64, u64)>);

impl ListedDocs {
    fn of(m: &Manifest) -> Self {
        let mut r: Vec<(u64, u64)> = m
            .files
            .values()
            .filter(|f| f.doc_count > 0)
            .map(|f| (f.doc_first, f.doc_first + f.doc_count))
            .collect();
        r.sort_unstable();
        Self(r)
    }

    fn contains(&self, doc: &str) -> bool {
        parse_num(doc, 'd').is_some_and(|n| {
            let i = self.0.partition_point(|r| r.0 <= n);
            i > 0 && n < self.0[i - 1].1
        })
    }
}

impl Store {
    /// Open the store in `dir` as the single writer, creating it when absent. Takes
    /// the lock file (failing at once when another writer holds it) and removes any
    /// residue of an interrupted command.
    pub fn create_or_open(dir: &Path) -> Result<Store, StoreError> {
        std::fs::create_dir_all(dir).map_err(StoreError::io(dir))?;
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
        let fresh = Manifest::load(dir)?;
        let is_new = fresh.is_none();
        let manifest = fresh.unwrap_or_default();
        std::fs::create_dir_all(dir.join("texts")).map_err(StoreError::io(dir.join("texts")))?;
        let index = ChunkIndex::open_or_create(&dir.join("index"), 2)?;
        let graph = GraphStore::open(&dir.join("graph"))?;
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
            committed: HashSet::new(),
            manifest,
            index,
            graph,
            view: Mutex::new(None),
            lock,
        };
        store.refresh_committed();
        store
    }

    /// Open the store in `dir` for reading: the last committed state, no lock.
    pub fn open_read(dir: &Path) -> Result<Store, StoreError> {
        let mut attempt = 0;
        loop {
            let manifest =
                Manifest::load(dir)?.ok_or_else(|| StoreError::NotFound(dir.to_path_buf()))?;
            // The graph checkpoint the manifest names; a writer that commits
            // meanwhile may retire it, then the newer manifest names another.
            match GraphStore::open_snapshot(&dir.join("graph"), manifest.graph_snapshot.as_deref())
            {
                Ok(graph) => {
                    let index = ChunkIndex::open_read(&dir.join("index"))?;
                    return Ok(Store::assemble(dir, manifest, index, graph, None));
                }
                Err(_) if attempt < 4 => {
                    attempt += 1;
                    std::thread::sleep(Duration::from_millis(25 << attempt));
                }
                Err(e) => return Err(e.into()),
            }
        }
    }

    /// Make the index's and the live graph's current state the committed one:
    /// checkpoint the graph, then write the manifest naming the checkpoint (the
    /// commit point). The index must be committed before. The previous
    /// checkpoint is kept for readers that opened it a moment ago; older ones go.
    fn commit(&mut self) -> Result<(), StoreError> {
        let name = GraphStore::snapshot_name(self.manifest.next_snapshot);
        self.manifest.next_snapshot += 1;
        self.graph.snapshot(&name)?;
        let prev = self.manifest.graph_snapshot.replace(name.clone());
        self.manifest.save(&self.dir)?;
        self.refresh_committed();
        let mut keep = vec![name.as_str()];
        if let Some(p) = &prev {
            keep.push(p.as_str());
        }
        self.graph.prune_snapshots(&keep)?;
        self.reset_view();
        Ok(())
    }

    /// The store directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    fn refresh_committed(&mut self) {
        self.committed = self.manifest.files.values().map(|f| f.id.clone()).collect();
    }

    fn require_writer(&self) -> Result<(), StoreError> {
        if self.lock.is_some() {
            Ok(())
        } else {
            Err(StoreError::ReadOnly)
        }
    }

    fn blob_path(&self, file: &str) -> PathBuf {
        self.dir.join("texts").join(format!("{file}.txt"))
    }

    /// Remove index records, document graphs and text blobs not listed in the
    /// manifest, forget listed files whose records or graphs are incomplete (the
    /// next ingest adds them again), and commit when anything changed.
    fn recover(&mut self, is_new: bool) -> Result<(), StoreError> {
        let listed: BTreeSet<String> = self.committed.iter().cloned().collect();
        let in_index = self.index.files()?;
        let mut index_dirty = false;
        for f in in_index.difference(&listed) {
            self.index.delete_file(f)?;
            index_dirty = true;
        }
        let graph_docs = self.graph.doc_ids()?;
        let file_docs = self.graph.file_doc_ids()?;
        let listed_docs = ListedDocs::of(&self.manifest);
        let residue: Vec<String> = graph_docs
            .union(&file_docs)
            .filter(|d| !listed_docs.contains(d))
            .cloned()
            .collect();
        let mut changed = !residue.is_empty();
        self.graph.remove_docs(&residue)?;
        // A listed file missing from the index, or whose document graphs are not
        // all there, cannot be trusted: forget it so the next ingest re-adds it.
        let missing: Vec<String> = self
            .manifest
            .files
            .iter()
            .filter(|(_, f)| {
                f.doc_count > 0
                    && (!in_index.contains(&f.id)
                        || f.doc_ids()
                            .any(|d| !graph_docs.contains(&d) || !file_docs.contains(&d)))
            })
            .map(|(k, _)| k.clone())
            .collect();
        if !missing.is_empty() {
            changed = true;
            let mut docs = Vec::new();
            for k in &missing {
                if let Some(f) = self.manifest.files.remove(k) {
                    self.index.delete_file(&f.id)?;
                    index_dirty = true;
                    docs.extend(f.doc_ids());
                }
            }
            self.graph.remove_docs(&docs)?;
            self.refresh_committed();
        }
        if index_dirty {
            self.index.commit()?;
        }
        let snapshot_ok = self
            .manifest
            .graph_snapshot
            .as_ref()
            .is_some_and(|s| self.dir.join("graph").join(s).is_dir());
        if changed || is_new || !snapshot_ok {
            self.commit()?;
        } else if let Some(s) = self.manifest.graph_snapshot.clone() {
            // Checkpoints of interrupted commits.
            self.graph.prune_snapshots(&[s.as_str()])?;
        }
        if let Ok(rd) = std::fs::read_dir(self.dir.join("texts")) {
            for e in rd.flatten() {
                let name = e.file_name().to_string_lossy().into_owned();
                let stem = name.strip_suffix(".txt").unwrap_or(&name);
                if !self.committed.contains(stem) {
                    let _ = std::fs::remove_file(e.path());
                }
            }
        }
        Ok(())
    }

    fn reset_view(&self) {
        if let Ok(mut v) = self.view.lock() {
            *v = None;
        }
    }

    /// The graph view, built on first use.
    pub fn view(&self) -> Result<Arc<GraphView>, StoreError> {
        let mut guard = self
            .view
            .lock()
            .map_err(|_| StoreError::Invalid("graph view lock poisoned".into()))?;
        if let Some(v) = guard.as_ref() {
            return Ok(v.clone());
        }
        let listed = ListedDocs::of(&self.manifest);
        let v = Arc::new(self.graph.load_view(&|d| listed.contains(d))?);
        *guard = Some(v.clone());
        Ok(v)
    }

    // ------------------------------------------------------------------ ingest

    /// Ingest files and directories.
    pub fn ingest(
        &mut self,
        paths: &[PathBuf],
        opts: &IngestOptions,
        progress: &dyn Progress,
    ) -> Result<IngestSummary, StoreError> {
        self.require_writer()?;
        let t0 = Instant::now();
        let mut summary = IngestSummary::default();
        let (files, dirs) = self.walk(paths, opts, progress, &mut summary)?;
        progress.start(files.len() as u64);
        summary.files = files.len() as u64 + summary.skipped;
        summary.tokenizer = opts.tokens.identity().to_string();
        // New chunking settings: every file is marked for re-chunking (the
        // manifest is saved at once, so an interrupted run still re-chunks).
        let settings = opts.settings();
        if settings != self.manifest.settings {
            let had_files = !self.manifest.files.is_empty();
            let changed = self.manifest.apply_settings(settings);
            if had_files && !changed.is_empty() {
                progress.warn(&format!(
                    "chunking settings differ from the store's ({}): files are re-chunked \
                     even where their content is unchanged",
                    changed.join(", ")
                ));
                summary.warnings += 1;
            }
            self.manifest.save(&self.dir)?;
        }
        // Prune vanished files under ingested directories.
        if opts.prune {
            let seen: HashSet<&str> = files.iter().map(|f| f.key.as_str()).collect();
            let gone: Vec<String> = self
                .manifest
                .files
                .keys()
                .filter(|k| !seen.contains(k.as_str()))
                .filter(|k| dirs.iter().any(|d| Path::new(k).starts_with(d)))
                .cloned()
                .collect();
            if !gone.is_empty() {
                let r = self.remove_keys(&gone)?;
                summary.removed = r.files;
            }
        }
        summary.stages.walk = t0.elapsed().as_secs_f64();
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads(opts.threads))
            .build()
            .map_err(|e| StoreError::Invalid(e.to_string()))?;
        // Batches of about `batch_bytes`. Each batch is prepared (in parallel)
        // while the one before it is written, so the CPU does not idle while
        // the graph store sorts and the index commits.
        let mut batches: Vec<Vec<WalkedFile>> = Vec::new();
        let mut batch_bytes = 0u64;
        for f in files {
            if batches.is_empty() || batch_bytes >= opts.batch_bytes {
                batches.push(Vec::new());
                batch_bytes = 0;
            }
            batch_bytes += f.size;
            if let Some(b) = batches.last_mut() {
                b.push(f);
            }
        }
        pool.install(|| -> Result<(), StoreError> {
            let mut batches = batches.into_iter();
            let mut ready = batches.next().map(|b| {
                let known = self.known_hashes(&b);
                let (p, secs) = prepare_batch(b, known, opts);
                summary.stages.prepare += secs;
                p
            });
            while let Some(current) = ready.take() {
                let Some(next) = batches.next() else {
                    self.apply_batch(current, progress, &mut summary)?;
                    break;
                };
                let known = self.known_hashes(&next);
                let ((p, secs), applied) = rayon::join(
                    || prepare_batch(next, known, opts),
                    || self.apply_batch(current, progress, &mut summary),
                );
                applied?;
                summary.stages.prepare += secs;
                ready = Some(p);
            }
            Ok(())
        })?;
        self.reset_view();
        summary.seconds = t0.elapsed().as_secs_f64();
        summary.mb_per_s = if summary.seconds > 0.0 {
            summary.bytes as f64 / 1e6 / summary.seconds
        } else {
            0.0
        };
        progress.finish();
        Ok(summary)
    }

    fn walk(
        &self,
        paths: &[PathBuf],
        opts: &IngestOptions,
        progress: &dyn Progress,
        summary: &mut IngestSummary,
    ) -> Result<(Vec<WalkedFile>, Vec<PathBuf>), StoreError> {
        let mut out = Vec::new();
        let mut dirs = Vec::new();
        let mut seen = HashSet::new();
        let store_canon = std::fs::canonicalize(&self.dir).ok();
        for root in paths {
            let meta = match std::fs::metadata(root) {
                Ok(m) => m,
                Err(e) => {
                    return Err(StoreError::Io {
                        path: root.clone(),
                        source: e,
                    });
                }
            };
            if meta.is_dir()
                && let Ok(c) = std::fs::canonicalize(root)
            {
                dirs.push(c);
            }
            let mut ob = ignore::overrides::OverrideBuilder::new(root);
            for g in &opts.exclude {
                ob.add(&format!("!{g}"))
                    .map_err(|e| StoreError::Invalid(format!("--exclude {g}: {e}")))?;
            }
            let overrides = ob.build().map_err(|e| StoreError::Invalid(e.to_string()))?;
            let walker = ignore::WalkBuilder::new(root)
                .hidden(true)
                .git_ignore(true)
                .git_global(false)
                .require_git(false)
                .follow_links(true)
                .overrides(overrides)
                .build();
            for entry in walker {
                let entry = match entry {
                    Ok(e) => e,
                    Err(e) => {
                        progress.warn(&format!("skipped: {e}"));
                        summary.skipped += 1;
                        summary.warnings += 1;
                        continue;
                    }
                };
                let path = entry.path();
                let Ok(md) = std::fs::metadata(path) else {
                    progress.warn(&format!("{}: unreadable, skipped", path.display()));
                    summary.skipped += 1;
                    summary.warnings += 1;
                    continue;
                };
                if !md.is_file() {
                    continue;
                }
                let Ok(canon) = std::fs::canonicalize(path) else {
                    continue;
                };
                if store_canon.as_ref().is_some_and(|s| canon.starts_with(s)) {
                    continue;
                }
                let Some(format) = format_of(path) else {
                    progress.warn(&format!("{}: unsupported format, skipped", path.display()));
                    summary.warnings += 1;
                    summary.skipped += 1;
                    continue;
                };
                let key = canon.to_string_lossy().into_owned();
                if !seen.insert(key.clone()) {
                    continue;
                }
                out.push(WalkedFile {
                    key,
                    path: path.to_path_buf(),
                    display: path.to_string_lossy().into_owned(),
                    size: md.len(),
                    format,
                });
            }
        }
        Ok((out, dirs))
    }

    /// The recorded content hash of each file of a batch (for skipping
    /// unchanged files).
    fn known_hashes(&self, batch: &[WalkedFile]) -> Vec<Option<String>> {
        batch
            .iter()
            .map(|f| self.manifest.files.get(&f.key).map(|e| e.hash.clone()))
            .collect()
    }

    /// Write a prepared batch: texts and index records, then the graph, then
    /// the commit.
    fn apply_batch(
        &mut self,
        prepared: Vec<(WalkedFile, Prepared)>,
        progress: &dyn Progress,
        summary: &mut IngestSummary,
    ) -> Result<(), StoreError> {
        let t = Instant::now();
        let mut docgraphs: Vec<Vec<DocGraph>> = Vec::new();
        let mut new_entries: Vec<(String, FileEntry)> = Vec::new();
        for (f, p) in prepared {
            match p {
                Prepared::Unchanged => {
                    summary.unchanged += 1;
                }
                Prepared::Unreadable(e) => {
                    progress.warn(&format!("{}: unreadable, skipped: {e}", f.display));
                    summary.skipped += 1;
                    summary.warnings += 1;
                }
                Prepared::Ready(hash, size, out) => {
                    for w in &out.warnings {
                        progress.warn(w);
                        summary.warnings += 1;
                    }
                    if let Some(reason) = &out.skipped {
                        progress.warn(reason);
                        summary.skipped += 1;
                        summary.warnings += 1;
                        // A file that became unreadable keeps no stale content.
                        if self.manifest.files.contains_key(&f.key) {
                            new_entries.push((f.key.clone(), self.empty_entry(&f, &hash, size)));
                        }
                    } else {
                        summary.ingested += 1;
                        summary.bytes += size;
                        let entry = self.add_file(&f, &hash, size, out, &mut docgraphs, summary)?;
                        new_entries.push((f.key.clone(), entry));
                    }
                }
            }
            progress.file_done(&f.path, f.size);
        }
        summary.stages.index += t.elapsed().as_secs_f64();
        if new_entries.is_empty() {
            return Ok(());
        }
        let t = Instant::now();
        // 1. Live graph: new documents in, replaced ones out (readers use the
        // last checkpoint, so they see neither yet). 2. Index commit (new records
        // stay hidden from readers until the manifest lists them). 3. Checkpoint
        // and manifest: the commit point. 4. Replaced index records and texts out.
        let quads: Vec<Vec<oxigraph_quads::Quad>> = docgraphs
            .par_iter()
            .flatten()
            .map(GraphStore::quads_of)
            .collect::<Result<Vec<_>, rlmkg_graph::GraphError>>()?;
        let quads: Vec<oxigraph_quads::Quad> = quads.into_iter().flatten().collect();
        self.graph.add_docs(&docgraphs, quads, 2)?;
        let old: Vec<FileEntry> = new_entries
            .iter()
            .filter_map(|(k, _)| self.manifest.files.get(k).cloned())
            .collect();
        self.graph.remove_docs(&doc_ids_of(&old))?;
        summary.stages.graph += t.elapsed().as_secs_f64();
        let t = Instant::now();
        self.index.commit()?;
        self.manifest.files.extend(new_entries);
        self.commit()?;
        self.drop_entries(&old)?;
        summary.stages.commit += t.elapsed().as_secs_f64();
        Ok(())
    }

    fn empty_entry(&mut self, f: &WalkedFile, hash: &str, size: u64) -> FileEntry {
        let id = format!("f{}", self.manifest.next_file);
        self.manifest.next_file += 1;
        FileEntry {
            id,
            display: f.display.clone(),
            hash: hash.to_string(),
            bytes: size,
            format: f.format.to_string(),
            doc_first: self.manifest.next_doc,
            doc_count: 0,
            chunk_first: self.manifest.next_chunk,
            chunk_count: 0,
            text_bytes: 0,
        }
    }

    fn add_file(
        &mut self,
        f: &WalkedFile,
        hash: &str,
        size: u64,
        out: PFile,
        docgraphs: &mut Vec<Vec<DocGraph>>,
        summary: &mut IngestSummary,
    ) -> Result<FileEntry, StoreError> {
        let mut entry = self.empty_entry(f, hash, size);
        let blob_path = self.blob_path(&entry.id);
        let mut blob =
            std::io::BufWriter::new(File::create(&blob_path).map_err(StoreError::io(&blob_path))?);
        let mut offset = 0u64;
        let mut group = Vec::with_capacity(out.docs.len());
        for d in out.docs {
            let dn = self.manifest.next_doc;
            self.manifest.next_doc += 1;
            let doc_id = format!("d{dn}");
            let chunk_first = self.manifest.next_chunk;
            self.manifest.next_chunk += d.chunks.len() as u64;
            blob.write_all(d.text.as_bytes())
                .map_err(StoreError::io(&blob_path))?;
            let rec = DocRecord {
                id: doc_id.clone(),
                file: entry.id.clone(),
                path: f.display.clone(),
                title: d.title.clone(),
                format: d.format.to_string(),
                bytes: d.text.len() as u64,
                blob_offset: offset,
                chunk_first,
                chunk_count: d.chunks.len() as u64,
                meta: serde_json::to_string(&d.meta).unwrap_or_default(),
            };
            offset += d.text.len() as u64;
            self.index.add_doc(&rec)?;
            let cid =
                |k: &str| -> String { format!("c{}", chunk_first + k.parse::<u64>().unwrap_or(0)) };
            let mut chunks = Vec::with_capacity(d.chunks.len());
            for (k, c) in d.chunks.iter().enumerate() {
                let id = format!("c{}", chunk_first + k as u64);
                self.index.add_chunk(&ChunkRecord {
                    id: id.clone(),
                    file: entry.id.clone(),
                    doc: doc_id.clone(),
                    title: d.title.clone(),
                    path: f.display.clone(),
                    text: d.text[c.start..c.end].to_string(),
                    start: c.start as u64,
                    end: c.end as u64,
                    line_start: u64::from(c.line_start),
                })?;
                chunks.push(ChunkSpan {
                    id,
                    start: c.start as u64,
                    end: c.end as u64,
                });
            }
            let mut ex = d.extraction;
            for m in &mut ex.mentions {
                m.chunk = cid(&m.chunk);
            }
            for r in &mut ex.relations {
                for e in &mut r.evidence {
                    e.chunk = cid(&e.chunk);
                }
            }
            summary.docs += 1;
            summary.chunks += chunks.len() as u64;
            summary.entities += ex.entities.len() as u64;
            summary.relations += ex.relations.len() as u64;
            summary.mentions += ex.mentions.len() as u64;
            entry.doc_count += 1;
            entry.chunk_count += chunks.len() as u64;
            entry.text_bytes += d.text.len() as u64;
            group.push(DocGraph {
                doc: doc_id,
                path: f.display.clone(),
                title: d.title,
                format: d.format.to_string(),
                chunks,
                entities: ex.entities,
                mentions: ex.mentions,
                relations: ex.relations,
                about: ex.about,
            });
        }
        blob.flush().map_err(StoreError::io(&blob_path))?;
        docgraphs.push(group);
        Ok(entry)
    }

    /// Delete the index records and texts of entries no longer in the manifest
    /// (their graphs left the live graph before the commit).
    fn drop_entries(&mut self, old: &[FileEntry]) -> Result<(), StoreError> {
        if old.is_empty() {
            return Ok(());
        }
        for e in old {
            self.index.delete_file(&e.id)?;
        }
        self.index.commit()?;
        for e in old {
            let _ = std::fs::remove_file(self.blob_path(&e.id));
        }
        self.reset_view();
        Ok(())
    }

    fn remove_keys(&mut self, keys: &[String]) -> Result<RemoveSummary, StoreError> {
        let mut old = Vec::new();
        for k in keys {
            if let Some(e) = self.manifest.files.remove(k) {
                old.push(e);
            }
        }
        let summary = RemoveSummary {
            files: old.len() as u64,
            docs: old.iter().map(|e| e.doc_count).sum(),
            chunks: old.iter().map(|e| e.chunk_count).sum(),
        };
        if old.is_empty() {
            return Ok(summary);
        }
        self.graph.remove_docs(&doc_ids_of(&old))?;
        self.commit()?;
        self.drop_entries(&old)?;
        Ok(summary)
    }

    /// Remove a file, or every file under a directory, from the store.
    pub fn remove(&mut self, path: &Path) -> Result<RemoveSummary, StoreError> {
        self.require_writer()?;
        let abs = match std::fs::canonicalize(path) {
            Ok(p) => p,
            Err(_) => std::env::current_dir()
                .map_err(StoreError::io(path))?
                .join(path),
        };
        let keys: Vec<String> = self
            .manifest
            .files
            .iter()
            .filter(|(k, e)| Path::new(k).starts_with(&abs) || Path::new(&e.display) == path)
            .map(|(k, _)| k.clone())
            .collect();
        if keys.is_empty() {
            return Err(StoreError::UnknownId(format!(
                "{} is not in the store",
                path.display()
            )));
        }
        self.remove_keys(&keys)
    }

    // ------------------------------------------------------------------- reads

    fn is_committed(&self, file: &str) -> bool {
        self.committed.contains(file)
    }

    /// BM25 search over chunks (titles included).
    pub fn search(&self, query: &str, k: usize) -> Result<Vec<SearchHit>, StoreError> {
        let hits = self
            .index
            .search_where(query, k, &|c| self.is_committed(&c.file))?;
        Ok(hits
            .into_iter()
            .map(|h| SearchHit {
                id: h.chunk.id,
                doc: h.chunk.doc,
                title: h.chunk.title,
                path: h.chunk.path,
                score: h.score,
                text: h.chunk.text,
            })
            .collect())
    }

    fn chunk_record(&self, id: &str) -> Result<ChunkRecord, StoreError> {
        match self.index.chunk(id)? {
            Some(c) if self.is_committed(&c.file) => Ok(c),
            _ => Err(StoreError::UnknownId(format!("chunk {id}"))),
        }
    }

    fn doc_record(&self, id: &str) -> Result<DocRecord, StoreError> {
        match self.index.doc(id)? {
            Some(d) if self.is_committed(&d.file) => Ok(d),
            _ => Err(StoreError::UnknownId(format!("document {id}"))),
        }
    }

    /// Read a chunk (`c12`), a sentence (`c12.s3`) or a sentence range (`c12.s2-s4`).
    pub fn read(&self, id: &str) -> Result<Passage, StoreError> {
        let id = id.trim();
        let (chunk_id, range) = match id.split_once('.') {
            None => (id, None),
            Some((c, s)) => {
                let s = s
                    .strip_prefix('s')
                    .ok_or_else(|| StoreError::Invalid(format!("bad sentence id {id}")))?;
                let (a, b) = match s.split_once('-') {
                    Some((a, b)) => (a, b.trim_start_matches('s')),
                    None => (s, s),
                };
                let a: usize = a
                    .parse()
                    .map_err(|_| StoreError::Invalid(format!("bad sentence id {id}")))?;
                let b: usize = b
                    .parse()
                    .map_err(|_| StoreError::Invalid(format!("bad sentence id {id}")))?;
                if a == 0 || b < a {
                    return Err(StoreError::Invalid(format!("bad sentence range {id}")));
                }
                (c, Some((a, b)))
            }
        };
        if parse_num(chunk_id, 'c').is_none() {
            return Err(StoreError::Invalid(format!("not a chunk id: {id}")));
        }
        let c = self.chunk_record(chunk_id)?;
        let d = self.doc_record(&c.doc)?;
        let meta: DocMeta = serde_json::from_str(&d.meta).unwrap_or_default();
        let mode = SegmentMode::for_format(&d.format);
        let base = c.start as usize;
        let mut all = Vec::new();
        let mut line = c.line_start as u32;
        let mut pos = 0usize;
        for (k, (a, b)) in sentences(&c.text, mode).into_iter().enumerate() {
            line = line_at(&c.text, pos, line, a);
            pos = a;
            let line_end = line_at(&c.text, a, line, b);
            all.push(SentenceSpan {
                id: format!("{chunk_id}.s{}", k + 1),
                text: c.text[a..b].to_string(),
                start: base + a,
                end: base + b,
                line_start: line,
                line_end,
                page: meta.page_at((base + a) as u64),
                heading: meta.heading_at((base + a) as u64),
            });
        }
        let (sentences, text, start, end) = match range {
            None => (all, c.text.clone(), base, c.end as usize),
            Some((a, b)) => {
                if b > all.len() {
                    return Err(StoreError::UnknownId(format!(
                        "{id}: chunk {chunk_id} has {} sentences",
                        all.len()
                    )));
                }
                let sel: Vec<SentenceSpan> = all[a - 1..b].to_vec();
                let (s, e) = (sel[0].start, sel[sel.len() - 1].end);
                (sel, c.text[s - base..e - base].to_string(), s, e)
            }
        };
        Ok(Passage {
            id: id.to_string(),
            chunk: chunk_id.to_string(),
            doc: DocRef {
                id: d.id,
                path: d.path,
                title: d.title,
                format: d.format,
            },
            text,
            start,
            end,
            sentences,
        })
    }

    /// Chunk ids of a document, in order.
    pub fn chunk_ids_of_doc(&self, doc: &str) -> Result<Vec<String>, StoreError> {
        let d = self.doc_record(doc)?;
        Ok((d.chunk_first..d.chunk_first + d.chunk_count)
            .map(|n| format!("c{n}"))
            .collect())
    }

    /// Entities whose names match `query`.
    pub fn entities(&self, query: &str, k: usize) -> Result<Vec<EntityInfo>, StoreError> {
        Ok(self.view()?.search_entities(query, k))
    }

    /// One entity by id, name or alias.
    pub fn entity(&self, id_or_name: &str) -> Result<Option<EntityInfo>, StoreError> {
        Ok(self.view()?.entity(id_or_name))
    }

    /// Neighbors of an entity.
    pub fn neighbors(
        &self,
        entity: &str,
        k: usize,
        relation: Option<&str>,
    ) -> Result<Vec<Neighbor>, StoreError> {
        Ok(self.view()?.neighbors(entity, k, relation))
    }

    /// Shortest connecting paths between two entities.
    pub fn path(&self, a: &str, b: &str, max_hops: usize) -> Result<Vec<GraphPath>, StoreError> {
        Ok(self.view()?.paths(a, b, max_hops, 5))
    }

    /// Entities a chunk mentions (or is about, through its document's title).
    pub fn entities_of_chunk(&self, chunk: &str) -> Result<Vec<EntityInfo>, StoreError> {
        let view = self.view()?;
        Ok(view
            .entities_of_chunk(chunk)
            .iter()
            .filter_map(|id| view.entity(id))
            .collect())
    }

    /// Chunk ids mentioning an entity.
    pub fn chunks_of_entity(&self, entity: &str) -> Result<Vec<String>, StoreError> {
        Ok(self.view()?.chunks_of_entity(entity))
    }

    /// Chunks ranked by personalized PageRank from seed entities (ids or names),
    /// optionally also seeded by the BM25 hits of `query`.
    pub fn related(
        &self,
        seeds: &[String],
        query: Option<&str>,
        k: usize,
    ) -> Result<Vec<RankedChunk>, StoreError> {
        let view = self.view()?;
        let seed_entities: Vec<(String, f64)> = seeds.iter().map(|s| (s.clone(), 1.0)).collect();
        let mut seed_chunks = Vec::new();
        if let Some(q) = query.filter(|q| !q.trim().is_empty()) {
            for h in self.search(q, 10)? {
                seed_chunks.push((h.id, f64::from(h.score.max(0.0))));
            }
        }
        let ranked = view.rank_chunks(&seed_entities, &seed_chunks, k * 2 + 4);
        let mut out = Vec::with_capacity(k);
        for (id, score) in ranked {
            if out.len() >= k {
                break;
            }
            let Ok(c) = self.chunk_record(&id) else {
                continue;
            };
            out.push(RankedChunk {
                id,
                doc: c.doc,
                title: c.title,
                path: c.path,
                score,
                text: c.text,
            });
        }
        Ok(out)
    }

    /// Run a read-only SPARQL query.
    pub fn sparql(&self, query: &str, timeout: Duration) -> Result<SparqlOutput, StoreError> {
        Ok(self.graph.sparql(query, timeout)?)
    }

    /// Every document.
    pub fn docs(&self) -> Result<Vec<DocInfo>, StoreError> {
        let mut out: Vec<DocInfo> = self
            .index
            .docs()?
            .into_iter()
            .filter(|d| self.is_committed(&d.file))
            .map(|d| {
                let meta: DocMeta = serde_json::from_str(&d.meta).unwrap_or_default();
                DocInfo {
                    id: d.id,
                    path: d.path,
                    title: d.title,
                    chunks: d.chunk_count,
                    bytes: d.bytes,
                    format: d.format,
                    record: meta.record,
                }
            })
            .collect();
        out.sort_by_key(|d| parse_num(&d.id, 'd').unwrap_or(u64::MAX));
        Ok(out)
    }

    /// Normalized text of a document between byte offsets (clamped to the text and
    /// to char boundaries).
    pub fn doc_text(&self, doc: &str, start: usize, end: usize) -> Result<String, StoreError> {
        let d = self.doc_record(doc)?;
        let full = self.read_blob(&d)?;
        let s = floor_boundary(&full, start);
        let e = floor_boundary(&full, end.max(s));
        Ok(full[s..e].to_string())
    }

    fn read_blob(&self, d: &DocRecord) -> Result<String, StoreError> {
        use std::os::unix::fs::FileExt;
        let p = self.blob_path(&d.file);
        let f = File::open(&p).map_err(StoreError::io(&p))?;
        let mut buf = vec![0u8; usize::try_from(d.bytes).unwrap_or(0)];
        f.read_exact_at(&mut buf, d.blob_offset)
            .map_err(StoreError::io(&p))?;
        Ok(String::from_utf8_lossy(&buf).into_owned())
    }

    /// Store statistics.
    pub fn stats(&self) -> Result<StoreStats, StoreError> {
        let view = self.view()?;
        let m = &self.manifest;
        Ok(StoreStats {
            files: m.files.len() as u64,
            docs: m.files.values().map(|f| f.doc_count).sum(),
            chunks: m.files.values().map(|f| f.chunk_count).sum(),
            entities: view.entity_count() as u64,
            relations: view.relation_count() as u64,
            mentions: view.mention_count(),
            chars: m.files.values().map(|f| f.text_bytes).sum(),
            entity_types: view.type_counts(),
            quads: self.graph.len()? as u64,
        })
    }

    /// Export the graph as RDF.
    pub fn export(&self, format: RdfFormat, out: &mut dyn Write) -> Result<(), StoreError> {
        Ok(self.graph.export(format, out)?)
    }

    /// Check the SPEC §3.2 invariants.
    pub fn check_invariants(&self) -> Result<InvariantReport, StoreError> {
        let mut r = InvariantReport::default();
        let docs = self.index.docs()?;
        let chunks = self.index.chunks()?;
        let mut v = |msg: String| {
            if r.violations.len() < 200 {
                r.violations.push(msg);
            }
        };
        let listed_docs: BTreeSet<String> = self
            .manifest
            .files
            .values()
            .flat_map(|f| f.doc_ids().collect::<Vec<_>>())
            .collect();
        let index_docs: BTreeSet<String> = docs.iter().map(|d| d.id.clone()).collect();
        if listed_docs != index_docs {
            v(format!(
                "manifest and index disagree on documents: {} listed, {} indexed",
                listed_docs.len(),
                index_docs.len()
            ));
        }
        let graph_docs = self.graph.doc_ids()?;
        if graph_docs != index_docs {
            let extra: Vec<_> = graph_docs
                .symmetric_difference(&index_docs)
                .take(5)
                .collect();
            v(format!(
                "index and graph disagree on documents, e.g. {extra:?}"
            ));
        }
        // The document files the view is built from: every listed document has
        // one; only a writer's own store is free of files of uncommitted ones.
        let file_docs = self.graph.file_doc_ids()?;
        let extra_ok = self.lock.is_none();
        let off: Vec<_> = file_docs
            .symmetric_difference(&listed_docs)
            .filter(|d| !(extra_ok && file_docs.contains(*d)))
            .take(5)
            .collect();
        if !off.is_empty() {
            v(format!(
                "manifest and graph files disagree on documents, e.g. {off:?}"
            ));
        }
        let mut chunk_span: HashMap<String, (String, u64, u64)> = HashMap::new();
        let mut texts: HashMap<String, String> = HashMap::new();
        for d in &docs {
            match self.read_blob(d) {
                Ok(t) => {
                    texts.insert(d.id.clone(), t);
                }
                Err(e) => v(format!("document {}: text unreadable: {e}", d.id)),
            }
        }
        let mut per_doc: HashMap<&str, u64> = HashMap::new();
        for c in &chunks {
            *per_doc.entry(c.doc.as_str()).or_default() += 1;
            let ok = texts
                .get(&c.doc)
                .and_then(|t| t.get(c.start as usize..c.end as usize))
                .is_some_and(|s| s == c.text);
            if !ok {
                v(format!(
                    "chunk {}: text differs from document {} bytes {}..{}",
                    c.id, c.doc, c.start, c.end
                ));
            }
            chunk_span.insert(c.id.clone(), (c.doc.clone(), c.start, c.end));
        }
        for d in &docs {
            if per_doc.get(d.id.as_str()).copied().unwrap_or(0) != d.chunk_count {
                v(format!(
                    "document {}: {} chunks indexed, {} expected",
                    d.id,
                    per_doc.get(d.id.as_str()).copied().unwrap_or(0),
                    d.chunk_count
                ));
            }
        }
        let graph_chunks = self.graph.chunk_ids()?;
        let gset: BTreeSet<&str> = graph_chunks.iter().map(|(c, _)| c.as_str()).collect();
        let iset: BTreeSet<&str> = chunks.iter().map(|c| c.id.as_str()).collect();
        if gset != iset {
            let extra: Vec<_> = gset.symmetric_difference(&iset).take(5).collect();
            v(format!(
                "index and graph disagree on chunks, e.g. {extra:?}"
            ));
        }
        for (c, d) in &graph_chunks {
            if chunk_span.get(c).is_some_and(|(doc, _, _)| doc != d) {
                v(format!("chunk {c}: graph says document {d}"));
            }
        }
        let spans = self.graph.spans(&|d| listed_docs.contains(d))?;
        for s in &spans.spans {
            match (chunk_span.get(&s.chunk), s.start, s.end) {
                (Some((doc, cs, ce)), Some(a), Some(b)) => {
                    if *doc != s.doc || a < *cs || b > *ce || a >= b {
                        v(format!(
                            "{}: span {a}..{b} outside chunk {} ({cs}..{ce})",
                            s.node, s.chunk
                        ));
                    }
                }
                _ => v(format!("{}: span without a known chunk or offsets", s.node)),
            }
        }
        for rel in &spans.relations_without_evidence {
            v(format!("relation {rel} has no evidence"));
        }
        for m in &spans.mention_mismatch {
            v(format!("record and graph disagree on mentions: {m}"));
        }
        r.docs = docs.len() as u64;
        r.chunks = chunks.len() as u64;
        r.spans = spans.spans.len() as u64;
        r.relations = spans.relations as u64;
        Ok(r)
    }

    /// The manifest (for tools and tests).
    pub fn manifest(&self) -> &Manifest {
        &self.manifest
    }
}

#[derive(Debug, Clone)]
struct WalkedFile {
    key: String,
    path: PathBuf,
    display: String,
    size: u64,
    format: &'static str,
}

/// Read, hash and prepare the files of a batch in parallel (`known`: each
/// file's recorded hash); returns them with the wall seconds it took.
fn prepare_batch(
    batch: Vec<WalkedFile>,
    known: Vec<Option<String>>,
    opts: &IngestOptions,
) -> (Vec<(WalkedFile, Prepared)>, f64) {
    let t = Instant::now();
    let prepared = batch
        .into_par_iter()
        .zip(known)
        .map(|(f, known)| {
            let bytes = match std::fs::read(&f.path) {
                Ok(b) => b,
                Err(e) => return (f, Prepared::Unreadable(e.to_string())),
            };
            let hash = blake3::hash(&bytes).to_hex().to_string();
            if known.is_some_and(|k| k == hash) {
                return (f, Prepared::Unchanged);
            }
            let out = prepare_file(&f.path, &bytes, f.format, opts);
            (f, Prepared::Ready(hash, bytes.len() as u64, out))
        })
        .collect();
    (prepared, t.elapsed().as_secs_f64())
}

enum Prepared {
    Unchanged,
    Unreadable(String),
    Ready(String, u64, PFile),
}

mod oxigraph_quads {
    pub use rlmkg_graph::Quad;
}

impl Store {
    /// The texts of every committed chunk (for benchmarks comparing against bare tantivy).
    pub fn chunk_texts(&self) -> Result<Vec<String>, StoreError> {
        Ok(self
            .index
            .chunks()?
            .into_iter()
            .filter(|c| self.is_committed(&c.file))
            .map(|c| c.text)
            .collect())
    }
}
