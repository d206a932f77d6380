//! The writer API of a store: what the ingest pipeline hands over, and how it
//! is committed.
//!
//! A batch of [`FileUpdate`]s becomes one commit: texts, index records and
//! graph records of the new documents are written first, then the index
//! commits, then the manifest (the commit point), and only then are the
//! replaced entries' index records, graph records and texts removed — so a
//! reader never misses anything the manifest it read lists. [`Store::finish`]
//! ends a command with the commit that saves the view snapshot.

use std::fs::File;
use std::io::Write;
use std::path::Path;
use std::time::Instant;

use rlmkg_graph::{ChunkSpan, DocGraph};
use rlmkg_index::{ChunkRecord, DocRecord};

use super::{Store, doc_ids_of};
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

    /// Write a batch of files and commit it (see the module doc); counts go to
    /// `summary`, with the time of each stage.
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
        let mut groups: Vec<Vec<DocGraph>> = Vec::new();
        let mut new_entries: Vec<(String, FileEntry)> = Vec::with_capacity(files.len());
        for f in files {
            let mut entry = self.empty_entry(&f);
            if let Some(docs) = f.docs {
                groups.push(self.add_docs(&f.display, &mut entry, docs, summary)?);
            }
            new_entries.push((f.key, entry));
        }
        summary.stages.index += t.elapsed().as_secs_f64();
        let t = Instant::now();
        self.graph.add_docs(&groups)?;
        drop(groups);
        summary.stages.graph += t.elapsed().as_secs_f64();
        let t = Instant::now();
        self.index.commit()?;
        let old: Vec<FileEntry> = new_entries
            .iter()
            .filter_map(|(k, _)| self.manifest.files.get(k).cloned())
            .collect();
        self.manifest.files.extend(new_entries);
        self.commit(false)?;
        self.drop_entries(&old)?;
        summary.stages.commit += t.elapsed().as_secs_f64();
        Ok(())
    }

    /// End a command that changed the store: the commit that builds the view
    /// of the whole store and saves its snapshot for readers.
    pub(crate) fn finish(&mut self) -> Result<(), StoreError> {
        self.require_writer()?;
        self.commit(true)
    }

    fn empty_entry(&mut self, f: &FileUpdate) -> FileEntry {
        let id = format!("f{}", self.manifest.next_file);
        self.manifest.next_file += 1;
        FileEntry {
            id,
            display: f.display.clone(),
            hash: f.hash.clone(),
            bytes: f.bytes,
            format: f.format.to_string(),
            doc_first: self.manifest.next_doc,
            doc_count: 0,
            chunk_first: self.manifest.next_chunk,
            chunk_count: 0,
            text_bytes: 0,
        }
    }

    /// Give a file's documents their ids, write their text and index records,
    /// and return their graph records.
    fn add_docs(
        &mut self,
        display: &str,
        entry: &mut FileEntry,
        docs: Vec<PDoc>,
        summary: &mut IngestSummary,
    ) -> Result<Vec<DocGraph>, StoreError> {
        let blob_path = self.blob_path(&entry.id);
        let mut blob =
            std::io::BufWriter::new(File::create(&blob_path).map_err(StoreError::io(&blob_path))?);
        let mut offset = 0u64;
        let mut group = Vec::with_capacity(docs.len());
        for d in docs {
            let dn = self.manifest.next_doc;
            self.manifest.next_doc += 1;
            let doc_id = format!("d{dn}");
            let chunk_first = self.manifest.next_chunk;
            self.manifest.next_chunk += d.chunks.len() as u64;
            blob.write_all(d.text.as_bytes())
                .map_err(StoreError::io(&blob_path))?;
            self.index.add_doc(&DocRecord {
                id: doc_id.clone(),
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
            offset += d.text.len() as u64;
            let chunk_id = |k: usize| format!("c{}", chunk_first + k as u64);
            let mut chunks = Vec::with_capacity(d.chunks.len());
            for (k, c) in d.chunks.iter().enumerate() {
                let Some(text) = d.text.get(c.start..c.end) else {
                    return Err(StoreError::Invalid(format!(
                        "{display}: chunk {k} is not on character boundaries"
                    )));
                };
                let id = chunk_id(k);
                self.index.add_chunk(&ChunkRecord {
                    id: id.clone(),
                    file: entry.id.clone(),
                    doc: doc_id.clone(),
                    title: d.title.clone(),
                    path: display.to_string(),
                    text: text.to_string(),
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
            // Extraction refers to chunks by local index; every index it
            // holds was made from `d.chunks`, so the ids resolve.
            let ex = d.extraction;
            let mut mentions = Vec::with_capacity(ex.mentions.len());
            for m in ex.mentions {
                mentions.push(rlmkg_graph::MentionDecl {
                    entity: m.entity,
                    chunk: chunk_id(m.chunk),
                    start: m.start,
                    end: m.end,
                });
            }
            let mut relations = Vec::with_capacity(ex.relations.len());
            for r in ex.relations {
                relations.push(rlmkg_graph::RelationDecl {
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
                });
            }
            summary.docs += 1;
            summary.chunks += chunks.len() as u64;
            summary.entities += ex.entities.len() as u64;
            summary.relations += relations.len() as u64;
            summary.mentions += mentions.len() as u64;
            entry.doc_count += 1;
            entry.chunk_count += chunks.len() as u64;
            entry.text_bytes += d.text.len() as u64;
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
        blob.flush().map_err(StoreError::io(&blob_path))?;
        Ok(group)
    }

    /// Delete the index records, graph records and texts of entries the
    /// manifest no longer lists (it was saved before this is called).
    fn drop_entries(&mut self, old: &[FileEntry]) -> Result<(), StoreError> {
        if old.is_empty() {
            return Ok(());
        }
        for e in old {
            self.index.delete_file(&e.id)?;
        }
        self.index.commit()?;
        self.graph.remove_docs(&doc_ids_of(old))?;
        for e in old {
            let _ = std::fs::remove_file(self.blob_path(&e.id));
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
        self.commit(false)?;
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
        let summary = self.remove_keys(&keys)?;
        self.finish()?;
        Ok(summary)
    }
}
