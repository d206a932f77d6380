//! The writer API of a store: what the ingest pipeline hands over, and how it
//! is committed.
//!
//! A batch of [`FileUpdate`]s becomes one commit: texts, index records and
//! graph records of the new documents are written first (each written part
//! of them in one pack: one text file and one record file), then the index
//! commits, then the manifest (the commit point), and only then are the
//! replaced entries' index records and packs removed — so a reader never
//! misses anything the manifest it read lists. A pack is never changed: the
//! files that shared a pack with a replaced or removed one move to a new
//! pack before the commit ([`Store::repack`]), so deletes are real.
//! [`Store::finish`] ends a command with the commit that saves the view
//! snapshot.

use std::collections::{BTreeSet, HashSet};
use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

use rlmkg_graph::{ChunkSpan, DocGraph};
use rlmkg_index::{ChunkRecord, DocRecord};

use super::Store;
use super::fresh::FreshView;
use super::names::{MappedNames, PackNames, vector_names};
use super::vectors::{MappedVectors, PackVectors, name_vector_path, vector_path};
use crate::error::StoreError;
use crate::manifest::{FileEntry, Settings};
use crate::pipeline::PDoc;
use crate::types::{IngestSummary, RemoveSummary};

/// One input file's new state, as the pipeline hands it to the store.
#[derive(Debug)]
pub(crate) struct FileUpdate {
    /// Canonical path (the manifest key).
    pub key: String,
    /// Path as shown to users.
    pub display: String,
    /// Format name.
    pub format: &'static str,
    /// blake3 of the content.
    pub hash: String,
    /// Size in bytes.
    pub bytes: u64,
    /// The prepared documents; `None` when the file has no content any more
    /// (it became unreadable): its entry then keeps no stale content.
    pub docs: Option<Vec<PDoc>>,
    /// One vector per chunk of `docs`, in order, when the ingest has an
    /// embedder ([`FileUpdate::embed_inputs`] are the texts they were made of).
    pub vectors: Option<Vec<Vec<f32>>>,
    /// With `vectors`: one vector per name of [`FileUpdate::entity_names`], in order.
    pub name_vectors: Option<Vec<Vec<f32>>>,
    /// Some passage went unread by the store's fact reader (no model at
    /// hand): the file is listed with no hash, so the next ingest prepares
    /// it again.
    pub facts_unread: bool,
}

impl FileUpdate {
    /// What each chunk's vector is made of, in order: its document's title
    /// (when it has one) and its text.
    pub(crate) fn embed_inputs(&self) -> Vec<String> {
        let mut out = Vec::new();
        for d in self.docs.iter().flatten() {
            for c in &d.chunks {
                let text = d.text.get(c.start..c.end).unwrap_or_default();
                out.push(super::vectors::embed_input(&d.title, text));
            }
        }
        out
    }

    /// The (entity key, name) pairs of its documents that get a vector
    /// ([`super::names::vector_names`]).
    pub(crate) fn entity_names(&self) -> Vec<(String, String)> {
        super::names::vector_names(
            self.docs
                .iter()
                .flatten()
                .flat_map(|d| &d.extraction.entities),
        )
    }
}

/// Files written and not yet committed (see [`Store::write_files`]).
#[derive(Debug, Default)]
pub(crate) struct Pending {
    /// Their packs' record and text files, to be synced before the commit.
    records: Vec<PathBuf>,
    /// Their manifest entries.
    entries: Entries,
}

/// Manifest entries by file key.
type Entries = Vec<(String, FileEntry)>;

/// The text file of a pack being written, and how many bytes it holds.
struct PackText {
    path: PathBuf,
    out: std::io::BufWriter<File>,
    len: u64,
}

impl PackText {
    fn create(path: PathBuf) -> Result<Self, StoreError> {
        let out = std::io::BufWriter::new(File::create(&path).map_err(StoreError::io(&path))?);
        Ok(Self { path, out, len: 0 })
    }

    fn write(&mut self, bytes: &[u8]) -> Result<(), StoreError> {
        self.out
            .write_all(bytes)
            .map_err(StoreError::io(&self.path))?;
        self.len += bytes.len() as u64;
        Ok(())
    }

    /// Flush it; returns its path.
    fn finish(mut self) -> Result<PathBuf, StoreError> {
        self.out.flush().map_err(StoreError::io(&self.path))?;
        Ok(self.path)
    }
}

impl Store {
    /// The recorded content hash of a file (to skip unchanged files).
    pub(crate) fn known_hash(&self, key: &str) -> Option<&str> {
        self.manifest.files.get(key).map(|e| e.hash.as_str())
    }

    /// Whether the manifest lists a file.
    pub(crate) fn lists(&self, key: &str) -> bool {
        self.manifest.files.contains_key(key)
    }

    /// The listed files under one of `dirs` that are not in `seen` (vanished
    /// from ingested directories).
    pub(crate) fn vanished(
        &self,
        dirs: &[std::path::PathBuf],
        seen: &dyn Fn(&str) -> bool,
    ) -> Vec<String> {
        self.manifest
            .files
            .keys()
            .filter(|k| !seen(k))
            .filter(|k| dirs.iter().any(|d| Path::new(k).starts_with(d)))
            .cloned()
            .collect()
    }

    /// Record new chunking settings (saved at once, so an interrupted run still
    /// re-chunks); returns what changed the chunks when files were already
    /// ingested under the old ones.
    pub(crate) fn set_settings(&mut self, settings: Settings) -> Result<Vec<String>, StoreError> {
        self.require_writer()?;
        if settings == self.manifest.settings {
            return Ok(Vec::new());
        }
        let had_files = !self.manifest.files.is_empty();
        let changed = self.manifest.apply_settings(settings);
        self.manifest.save(&self.dir)?;
        Ok(if had_files { changed } else { Vec::new() })
    }

    /// Write files' texts, index records and graph records, the texts and
    /// records in one new pack; they stay invisible to readers until
    /// [`Store::commit_written`] lists them.
    pub(crate) fn write_files(
        &mut self,
        files: Vec<FileUpdate>,
        summary: &mut IngestSummary,
    ) -> Result<(), StoreError> {
        self.require_writer()?;
        if files.is_empty() {
            return Ok(());
        }
        let t = Instant::now();
        let first_doc = self.manifest.next_doc;
        let has_docs = |f: &FileUpdate| f.docs.as_ref().is_some_and(|d| !d.is_empty());
        let pack = files.iter().any(has_docs).then(|| self.new_pack());
        let entries: Vec<FileEntry> = files.iter().map(|f| self.allot(f)).collect();
        let mut text = pack
            .map(|n| PackText::create(self.text_path(n)))
            .transpose()?;
        let mut group = Vec::new();
        let mut vectors = PackVectors::default();
        let mut names = PackNames::default();
        for (f, mut entry) in files.into_iter().zip(entries) {
            if let (Some(n), Some(text)) = (pack, text.as_mut())
                && has_docs(&f)
            {
                entry.pack = Some(n);
                entry.text_offset = text.len;
                if let Some(vs) = &f.vectors {
                    if vs.len() as u64 != entry.chunk_count {
                        return Err(StoreError::Invalid(format!(
                            "{}: {} vectors for {} chunks",
                            entry.display,
                            vs.len(),
                            entry.chunk_count
                        )));
                    }
                    for (id, v) in (entry.chunk_first..).zip(vs) {
                        vectors.push(rlmkg_ids::ChunkId(id), v)?;
                    }
                    let pairs = f.entity_names();
                    let nvs = f.name_vectors.as_deref().unwrap_or_default();
                    if nvs.len() != pairs.len() {
                        return Err(StoreError::Invalid(format!(
                            "{}: {} vectors for {} entity names",
                            entry.display,
                            nvs.len(),
                            pairs.len()
                        )));
                    }
                    for ((key, name), v) in pairs.iter().zip(nvs) {
                        names.push(key, name, v)?;
                    }
                }
                self.write_file(f.docs.unwrap_or_default(), &entry, text, &mut group)?;
            }
            self.pending.entries.push((f.key, entry));
        }
        if let (Some(n), Some(text)) = (pack, text) {
            self.pending.records.push(text.finish()?);
            self.pending.records.push(self.graph.write_pack(n, &group)?);
            if !vectors.is_empty() {
                self.pending.records.push(vectors.write(&self.dir, n)?);
                self.pending.records.push(names.write(&self.dir, n)?);
            }
        }
        summary.stages.index += t.elapsed().as_secs_f64();
        for d in &group {
            summary.docs += 1;
            summary.chunks += d.chunks.len() as u64;
        }
        if self.fresh.is_none() {
            self.fresh = Some(FreshView::start(first_doc)?);
        }
        if let Some(fresh) = &self.fresh {
            fresh.add(group);
        }
        Ok(())
    }

    /// Commit the files written since the last commit: their records reach
    /// the disk, the index commits, the manifest lists them, and the files
    /// they replace are removed.
    pub(crate) fn commit_written(&mut self, summary: &mut IngestSummary) -> Result<(), StoreError> {
        self.require_writer()?;
        if self.pending.entries.is_empty() {
            return Ok(());
        }
        let t = Instant::now();
        let (entries, old) = self.take_pending()?;
        self.index.commit()?;
        self.manifest.files.extend(entries);
        let dead = self.repack(&old)?;
        self.commit()?;
        self.drop_entries(&old, &dead)?;
        summary.stages.commit += t.elapsed().as_secs_f64();
        Ok(())
    }

    /// End a command that changed the store: the commit that builds the view
    /// of the whole store and saves its snapshot for readers.
    ///
    /// Files still written and uncommitted are committed with it: their index
    /// commit runs beside the view build, and the manifest is saved once.
    /// Returns the seconds the view thread spent adding the command's
    /// documents.
    pub(crate) fn finish(&mut self) -> Result<f64, StoreError> {
        self.require_writer()?;
        let (entries, old) = self.take_pending()?;
        let index_too = !entries.is_empty();
        self.manifest.files.extend(entries);
        let dead = self.repack(&old)?;
        let secs = self.commit_last(index_too)?;
        self.drop_entries(&old, &dead)?;
        Ok(secs)
    }

    /// Take the files written since the last commit, their records synced:
    /// their manifest entries, and the entries they replace.
    fn take_pending(&mut self) -> Result<(Entries, Vec<FileEntry>), StoreError> {
        let Pending { records, entries } = std::mem::take(&mut self.pending);
        self.graph.sync(&records)?;
        let old = entries
            .iter()
            .filter_map(|(k, _)| self.manifest.files.get(k).cloned())
            .collect();
        Ok((entries, old))
    }

    /// The entry of a file with its ids: a file number, and the document and
    /// chunk numbers its documents take (in order).
    fn allot(&mut self, f: &FileUpdate) -> FileEntry {
        let id = format!("f{}", self.manifest.next_file);
        self.manifest.next_file += 1;
        let docs = f.docs.as_deref().unwrap_or_default();
        let entry = FileEntry {
            id,
            display: f.display.clone(),
            hash: if f.facts_unread {
                String::new()
            } else {
                f.hash.clone()
            },
            bytes: f.bytes,
            format: f.format.to_string(),
            doc_first: self.manifest.next_doc,
            doc_count: docs.len() as u64,
            chunk_first: self.manifest.next_chunk,
            chunk_count: docs.iter().map(|d| d.chunks.len() as u64).sum(),
            text_bytes: docs.iter().map(|d| d.text.len() as u64).sum(),
            pack: None,
            text_offset: 0,
        };
        self.manifest.next_doc += entry.doc_count;
        self.manifest.next_chunk += entry.chunk_count;
        entry
    }

    /// Write one file's documents under the ids of `entry`: their text (to
    /// its pack's, from `entry.text_offset` on) and index records; their
    /// graph records join `group`.
    fn write_file(
        &self,
        docs: Vec<PDoc>,
        entry: &FileEntry,
        text: &mut PackText,
        group: &mut Vec<DocGraph>,
    ) -> Result<(), StoreError> {
        let display = entry.display.as_str();
        // Offsets in the index are the file's own, from its first byte.
        let mut offset = 0u64;
        let mut chunk_first = entry.chunk_first;
        for (dn, d) in (entry.doc_first..).zip(docs) {
            let doc_id = rlmkg_ids::DocId(dn);
            text.write(d.text.as_bytes())?;
            self.index.add_doc(&DocRecord {
                id: doc_id,
                file: entry.id.clone(),
                path: display.to_string(),
                title: d.title.clone(),
                format: d.format.to_string(),
                bytes: d.text.len() as u64,
                blob_offset: offset,
                chunk_first,
                chunk_count: d.chunks.len() as u64,
                meta: serde_json::to_string(&d.meta).unwrap_or_default(),
            })?;
            let doc_offset = offset;
            offset += d.text.len() as u64;
            let first = chunk_first;
            chunk_first += d.chunks.len() as u64;
            let chunk_id = |k: usize| rlmkg_ids::ChunkId(first + k as u64);
            let mut chunks = Vec::with_capacity(d.chunks.len());
            for (k, c) in d.chunks.iter().enumerate() {
                let Some(text) = d.text.get(c.start..c.end) else {
                    return Err(StoreError::Invalid(format!(
                        "{display}: chunk {k} is not on character boundaries"
                    )));
                };
                let id = chunk_id(k);
                self.index.add_chunk(
                    &ChunkRecord {
                        id,
                        file: entry.id.clone(),
                        doc: doc_id,
                        title: d.title.clone(),
                        start: c.start as u64,
                        end: c.end as u64,
                        line_start: u64::from(c.line_start),
                        blob_offset: doc_offset + c.start as u64,
                    },
                    text,
                )?;
                chunks.push(ChunkSpan {
                    id,
                    start: c.start as u64,
                    end: c.end as u64,
                });
            }
            // Extraction refers to chunks by their index in `d.chunks`.
            let ex = d.extraction;
            let mentions = ex
                .mentions
                .into_iter()
                .map(|m| rlmkg_graph::MentionDecl {
                    entity: m.entity,
                    chunk: chunk_id(m.chunk),
                    start: m.start,
                    end: m.end,
                })
                .collect();
            let relations = ex
                .relations
                .into_iter()
                .map(|r| rlmkg_graph::RelationDecl {
                    subject: r.subject,
                    object: r.object,
                    label: r.label,
                    weight: r.weight,
                    evidence: r
                        .evidence
                        .into_iter()
                        .map(|e| rlmkg_graph::EvidenceSpan {
                            chunk: chunk_id(e.chunk),
                            start: e.start,
                            end: e.end,
                        })
                        .collect(),
                })
                .collect();
            group.push(DocGraph {
                doc: doc_id,
                path: display.to_string(),
                title: d.title,
                format: d.format.to_string(),
                chunks,
                entities: ex.entities,
                mentions,
                relations,
                about: ex.about,
            });
        }
        Ok(())
    }

    /// The number of a new pack (the manifest keeps the counter).
    fn new_pack(&mut self) -> u64 {
        self.manifest.next_pack += 1;
        self.manifest.next_pack - 1
    }

    /// Before a commit that drops the entries `old`: the listed files that
    /// share a pack with one of them move to a new pack (records and texts
    /// written and made durable), so the old packs hold nothing the manifest
    /// will list. Returns the old packs, to delete once the manifest is saved.
    pub(super) fn repack(&mut self, old: &[FileEntry]) -> Result<Vec<u64>, StoreError> {
        let packs: BTreeSet<u64> = old.iter().filter_map(|e| e.pack).collect();
        let mut written = Vec::new();
        for &p in &packs {
            let keys: Vec<String> = self
                .manifest
                .files
                .iter()
                .filter(|(_, f)| f.pack == Some(p))
                .map(|(k, _)| k.clone())
                .collect();
            if keys.is_empty() {
                continue;
            }
            let src = self.text_path(p);
            let old_text = std::fs::read(&src).map_err(StoreError::io(&src))?;
            let records = self.graph.read_pack(p)?;
            let old_vectors = MappedVectors::open(&vector_path(&self.dir, p))?;
            let old_names = MappedNames::open(&name_vector_path(&self.dir, p))?;
            let n = self.new_pack();
            let mut text = PackText::create(self.text_path(n))?;
            let mut moved: Vec<(u64, u64)> = Vec::new();
            let mut moved_chunks: Vec<(u64, u64)> = Vec::new();
            for k in &keys {
                let Some(f) = self.manifest.files.get_mut(k) else {
                    continue;
                };
                let bytes = usize::try_from(f.text_offset)
                    .ok()
                    .zip(usize::try_from(f.text_offset.saturating_add(f.text_bytes)).ok())
                    .and_then(|(a, b)| old_text.get(a..b))
                    .ok_or_else(|| {
                        StoreError::Invalid(format!(
                            "{}: shorter than its files' texts",
                            src.display()
                        ))
                    })?;
                f.pack = Some(n);
                f.text_offset = text.len;
                text.write(bytes)?;
                moved.push((f.doc_first, f.doc_first + f.doc_count));
                moved_chunks.push((f.chunk_first, f.chunk_first + f.chunk_count));
            }
            let docs: Vec<DocGraph> = records
                .into_iter()
                .filter(|d| moved.iter().any(|&(a, b)| (a..b).contains(&d.doc.0)))
                .collect();
            written.push(text.finish()?);
            written.push(self.graph.write_pack(n, &docs)?);
            if let Some(old_vectors) = old_vectors {
                let keep = |id: u64| moved_chunks.iter().any(|&(a, b)| (a..b).contains(&id));
                let mut vectors = PackVectors::default();
                for (id, v) in old_vectors.rows(&keep) {
                    vectors.push(rlmkg_ids::ChunkId(id), v)?;
                }
                if !vectors.is_empty() {
                    written.push(vectors.write(&self.dir, n)?);
                    // The names the moved documents still go by.
                    let still: HashSet<(String, String)> =
                        vector_names(docs.iter().flat_map(|d| &d.entities))
                            .into_iter()
                            .collect();
                    let mut names = PackNames::default();
                    for (key, name, v) in old_names.iter().flat_map(|m| {
                        m.rows(&|k, n| still.contains(&(k.to_string(), n.to_string())))
                    }) {
                        names.push(key, name, v)?;
                    }
                    written.push(names.write(&self.dir, n)?);
                }
            }
        }
        self.graph.sync(&written)?;
        Ok(packs.into_iter().collect())
    }

    /// Delete the index records of entries the manifest no longer lists (it
    /// was saved before this is called), and the packs `dead`.
    fn drop_entries(&mut self, old: &[FileEntry], dead: &[u64]) -> Result<(), StoreError> {
        if !old.is_empty() {
            for e in old {
                self.index.delete_file(&e.id)?;
            }
            self.index.commit()?;
        }
        self.remove_packs(dead)
    }

    /// Delete the record and text files of packs (gone already is fine).
    pub(super) fn remove_packs(&self, packs: &[u64]) -> Result<(), StoreError> {
        self.graph.remove_packs(packs)?;
        for &n in packs {
            let _ = std::fs::remove_file(self.text_path(n));
            let _ = std::fs::remove_file(vector_path(&self.dir, n));
            let _ = std::fs::remove_file(name_vector_path(&self.dir, n));
        }
        Ok(())
    }

    /// Remove files by manifest key (one commit, not the final one).
    pub(crate) fn remove_keys(&mut self, keys: &[String]) -> Result<RemoveSummary, StoreError> {
        self.require_writer()?;
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
        let dead = self.repack(&old)?;
        self.commit()?;
        self.drop_entries(&old, &dead)?;
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
        let summary = self.remove_keys(&keys)?;
        self.finish()?;
        Ok(summary)
    }
}
