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
use std::path::{Path, PathBuf};
use std::time::Instant;

use rlmkg_graph::{ChunkSpan, DocGraph};
use rlmkg_index::{ChunkRecord, DocRecord};

use super::fresh::FreshView;
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

/// One file as written by [`Store::write_file`], before the commit.
/// Files written and not yet committed (see [`Store::write_files`]).
#[derive(Debug, Default)]
pub(crate) struct Pending {
    /// Their graph record files, to be synced before the commit.
    records: Vec<PathBuf>,
    /// Their manifest entries.
    entries: Entries,
}

/// Manifest entries by file key.
type Entries = Vec<(String, FileEntry)>;

struct Written {
    key: String,
    entry: FileEntry,
    group: Vec<DocGraph>,
    record: Option<PathBuf>,
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

    /// Write files' texts, index records and graph records; they stay
    /// invisible to readers until [`Store::commit_written`] lists them.
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
        let entries: Vec<FileEntry> = files.iter().map(|f| self.allot(f)).collect();
        let this = &*self;
        let written: Vec<Written> = files
            .into_iter()
            .zip(entries)
            .map(|(f, entry)| this.write_file(f, entry))
            .collect::<Result<_, _>>()?;
        summary.stages.index += t.elapsed().as_secs_f64();
        if self.fresh.is_none() {
            self.fresh = Some(FreshView::start(first_doc)?);
        }
        let mut group = Vec::new();
        for w in written {
            for d in &w.group {
                summary.docs += 1;
                summary.chunks += d.chunks.len() as u64;
                summary.entities += d.entities.len() as u64;
                summary.relations += d.relations.len() as u64;
                summary.mentions += d.mentions.len() as u64;
            }
            group.extend(w.group);
            self.pending.records.extend(w.record);
            self.pending.entries.push((w.key, w.entry));
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
        self.commit()?;
        self.drop_entries(&old)?;
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
        let secs = self.commit_last(index_too)?;
        self.drop_entries(&old)?;
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
            hash: f.hash.clone(),
            bytes: f.bytes,
            format: f.format.to_string(),
            doc_first: self.manifest.next_doc,
            doc_count: docs.len() as u64,
            chunk_first: self.manifest.next_chunk,
            chunk_count: docs.iter().map(|d| d.chunks.len() as u64).sum(),
            text_bytes: docs.iter().map(|d| d.text.len() as u64).sum(),
        };
        self.manifest.next_doc += entry.doc_count;
        self.manifest.next_chunk += entry.chunk_count;
        entry
    }

    /// Write one file's documents under the ids of `entry`: their text, index
    /// records and graph record.
    fn write_file(&self, f: FileUpdate, entry: FileEntry) -> Result<Written, StoreError> {
        let Some(docs) = f.docs else {
            return Ok(Written {
                key: f.key,
                entry,
                group: Vec::new(),
                record: None,
            });
        };
        let display = f.display.as_str();
        let blob_path = self.blob_path(&entry.id);
        let mut blob =
            std::io::BufWriter::new(File::create(&blob_path).map_err(StoreError::io(&blob_path))?);
        let mut offset = 0u64;
        let mut chunk_first = entry.chunk_first;
        let mut group = Vec::with_capacity(docs.len());
        for (dn, d) in (entry.doc_first..).zip(docs) {
            let doc_id = rlmkg_ids::DocId(dn);
            blob.write_all(d.text.as_bytes())
                .map_err(StoreError::io(&blob_path))?;
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
        blob.flush().map_err(StoreError::io(&blob_path))?;
        let record = if group.is_empty() {
            None
        } else {
            Some(self.graph.write_group(&group)?)
        };
        Ok(Written {
            key: f.key,
            entry,
            group,
            record,
        })
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
        let summary = self.remove_keys(&keys)?;
        self.finish()?;
        Ok(summary)
    }
}
