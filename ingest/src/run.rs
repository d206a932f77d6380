//! The ingest pipeline's driver: walk the inputs, cut them in parts, prepare
//! the parts in parallel ahead of the writer (up to `LOOKAHEAD` parts), and
//! hand the results to the store through its writer API
//! ([`crate::store::write`]).

use std::collections::{HashMap, HashSet};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::Instant;

use rayon::prelude::*;

use crate::error::StoreError;
use crate::formats::format_of;
use crate::model_facts::{FactCache, ModelFactEstimate, ModelFactStats};
use crate::pipeline::{IngestOptions, prepare_file};
use crate::store::Store;
use crate::store::write::FileUpdate;
use crate::types::*;

/// Input bytes of a part at most: files are prepared in parts, so preparing
/// one part overlaps writing the one before it, and indexing starts as soon
/// as the first part is ready.
const PART_BYTES: u64 = 1 << 20;

/// Parts a commit batch is cut in at least (small batches, as in tests).
const PARTS_PER_BATCH: u64 = 16;

/// Input bytes of the first part at most; each next part may hold twice as
/// much, up to the part size. Tantivy's indexing thread, the longest chain
/// of an ingest, waits for the first part: preparing a 1 MiB first part took
/// 70 ms, and the thread started 120 ms into a 1.4 s ingest (40 ms now).
const FIRST_PART_BYTES: u64 = 64 << 10;

/// Parts prepared ahead of the writer at most: enough to keep the pool busy
/// through a commit, few enough to bound memory (about 8 MB of input).
const LOOKAHEAD: usize = 8;

fn threads(n: usize) -> usize {
    if n == 0 {
        std::thread::available_parallelism().map_or(2, |n| n.get())
    } else {
        n
    }
}

/// A file found by the walk.
#[derive(Debug, Clone)]
struct WalkedFile {
    key: String,
    path: PathBuf,
    display: String,
    size: u64,
    format: &'static str,
}

/// What preparing one file gave.
enum Prepared {
    Unchanged,
    Skipped(String),
    Ready(FileUpdate, Vec<String>),
    /// Read, but with nothing to ingest (the reason); a listed file keeps no
    /// stale content.
    Empty(FileUpdate, String),
}

impl Store {
    /// Ingest files and directories.
    pub fn ingest(
        &mut self,
        paths: &[PathBuf],
        opts: &IngestOptions,
        progress: &dyn Progress,
    ) -> Result<IngestSummary, StoreError> {
        let t0 = Instant::now();
        let mut summary = IngestSummary::default();
        let (files, dirs) = walk(self.dir(), paths, opts, progress, &mut summary)?;
        progress.start(files.len() as u64);
        summary.files = files.len() as u64 + summary.skipped;
        summary.tokenizer = opts.tokens.identity().to_string();
        let changed = self.set_settings(opts.settings())?;
        if !changed.is_empty() {
            progress.warn(&format!(
                "chunking settings differ from the store's ({}): files are re-chunked \
                 even where their content is unchanged",
                changed.join(", ")
            ));
            summary.warnings += 1;
        }
        let mut dirty = false;
        // Prune vanished files under ingested directories.
        if opts.prune {
            let seen: HashSet<&str> = files.iter().map(|f| f.key.as_str()).collect();
            let gone = self.vanished(&dirs, &|k| seen.contains(k));
            if !gone.is_empty() {
                summary.removed = self.remove_keys(&gone)?.files;
                dirty = true;
            }
        }
        summary.stages.walk = t0.elapsed().as_secs_f64();
        let mut fact_cache = match &opts.fact_reader {
            Some(reader) => {
                let bytes = files.iter().map(|f| f.size).sum();
                if reader.reads() {
                    let chunk = opts.target_tokens;
                    let estimate = ModelFactEstimate::new(reader.as_ref(), bytes, chunk);
                    progress.model_facts_estimate(&estimate);
                }
                summary.model_facts = Some(ModelFactStats {
                    reader: reader.identity(),
                    ..ModelFactStats::default()
                });
                Some(FactCache::open(self.dir())?)
            }
            None => None,
        };
        let pool = rayon::ThreadPoolBuilder::new()
            .start_handler(|_| crate::nice::lower_priority())
            .num_threads(threads(opts.threads))
            .build()
            .map_err(|e| StoreError::Invalid(e.to_string()))?;
        // Parts are prepared (in parallel) ahead of the one being written, and
        // the written files are committed once about `batch_bytes` wait.
        let part_bytes = (opts.batch_bytes / PARTS_PER_BATCH).clamp(1, PART_BYTES);
        let mut parts: Vec<Vec<WalkedFile>> = Vec::new();
        let (mut part_size, mut limit) = (0u64, FIRST_PART_BYTES.min(part_bytes));
        for f in files {
            if parts.is_empty() || part_size >= limit {
                if !parts.is_empty() {
                    limit = limit.saturating_mul(2).min(part_bytes);
                }
                parts.push(Vec::new());
                part_size = 0;
            }
            part_size += f.size;
            if let Some(b) = parts.last_mut() {
                b.push(f);
            }
        }
        // Known hashes are read before preparing starts: the manifest lists a
        // walked file under its own key only, which no earlier part changes.
        let known: Vec<Vec<Option<String>>> = parts.iter().map(|p| self.known_hashes(p)).collect();
        let n_parts = parts.len();
        std::thread::scope(|scope| -> Result<(), StoreError> {
            // The pool prepares parts in order, up to `LOOKAHEAD` ahead of the
            // writer (this thread), so it keeps working while the writer
            // waits on a commit; the writer hands chunks to tantivy's own
            // indexing thread.
            let (tx, rx) = std::sync::mpsc::sync_channel(LOOKAHEAD);
            let pool = &pool;
            scope.spawn(move || {
                for (part, known) in parts.into_iter().zip(known) {
                    let out = pool.install(|| prepare_batch(part, known, opts));
                    // A model reads facts (on this thread: it runs its own
                    // threads), then vectors are made on the same pool (of
                    // every entity the facts name too), ahead of the writer.
                    let out = out.and_then(|(mut part, secs)| {
                        let read = read_facts_part(&mut part, opts, fact_cache.as_mut())?;
                        let embed_secs = pool.install(|| embed_part(&mut part, opts))?;
                        Ok((part, secs, embed_secs, read))
                    });
                    if tx.send(out).is_err() {
                        // The writer stopped (an error): prepare no more.
                        break;
                    }
                }
            });
            let mut uncommitted = 0u64;
            for (i, out) in rx.into_iter().enumerate() {
                let (current, secs, embed_secs, read) = out?;
                if let (Some(total), Some(read)) = (summary.model_facts.as_mut(), read) {
                    total.add(&read);
                }
                summary.stages.prepare += secs;
                summary.stages.embed += embed_secs;
                uncommitted += current.iter().map(|(f, _)| f.size).sum::<u64>();
                // The last part's commit is left to `finish`, whose index
                // commit runs beside the view build.
                let commit = i + 1 < n_parts && uncommitted >= opts.batch_bytes;
                // The writer works on this thread, at normal priority, not
                // in the pool behind the lookahead: when it waited there for
                // a worker, tantivy's thread waited for chunks.
                dirty |= self.apply(current, progress, &mut summary)?;
                if commit {
                    uncommitted = 0;
                    self.commit_written(&mut summary)?;
                }
            }
            Ok(())
        })?;
        if dirty {
            let t = Instant::now();
            summary.stages.graph = pool.install(|| self.finish())?;
            summary.stages.view = t.elapsed().as_secs_f64();
        }
        // What the store holds now, counted as `stats` counts it.
        let held = self.stats()?;
        summary.entities = held.entities;
        summary.relations = held.relations;
        summary.facts = held.facts;
        summary.mentions = held.mentions;
        summary.seconds = t0.elapsed().as_secs_f64();
        summary.mb_per_s = if summary.seconds > 0.0 {
            summary.bytes as f64 / 1e6 / summary.seconds
        } else {
            0.0
        };
        progress.finish();
        Ok(summary)
    }

    /// The recorded content hash of each file of a batch.
    fn known_hashes(&self, batch: &[WalkedFile]) -> Vec<Option<String>> {
        batch
            .iter()
            .map(|f| self.known_hash(&f.key).map(str::to_string))
            .collect()
    }

    /// Report a prepared batch and write it; true when the store changed.
    fn apply(
        &mut self,
        prepared: Vec<(WalkedFile, Prepared)>,
        progress: &dyn Progress,
        summary: &mut IngestSummary,
    ) -> Result<bool, StoreError> {
        let mut updates = Vec::new();
        for (f, p) in prepared {
            match p {
                Prepared::Unchanged => summary.unchanged += 1,
                Prepared::Skipped(e) => {
                    progress.warn(&format!("{}: {e}, skipped", f.display));
                    summary.skipped += 1;
                    summary.warnings += 1;
                }
                Prepared::Empty(update, reason) => {
                    progress.warn(&reason);
                    summary.skipped += 1;
                    summary.warnings += 1;
                    if self.lists(&f.key) {
                        updates.push(update);
                    }
                }
                Prepared::Ready(update, warnings) => {
                    for w in &warnings {
                        progress.warn(w);
                        summary.warnings += 1;
                    }
                    summary.ingested += 1;
                    summary.bytes += update.bytes;
                    updates.push(update);
                }
            }
            progress.file_done(&f.path, f.size);
        }
        let dirty = !updates.is_empty();
        self.write_files(updates, summary)?;
        Ok(dirty)
    }
}

/// Walk the inputs: regular files of supported formats inside the given
/// roots (a link that leads outside them, or to anything but a regular file,
/// is skipped with a warning), outside the store, each once.
fn walk(
    store_dir: &Path,
    paths: &[PathBuf],
    opts: &IngestOptions,
    progress: &dyn Progress,
    summary: &mut IngestSummary,
) -> Result<(Vec<WalkedFile>, Vec<PathBuf>), StoreError> {
    let mut out = Vec::new();
    let mut dirs = Vec::new();
    let mut seen = HashSet::new();
    let store_canon = std::fs::canonicalize(store_dir).ok();
    let skip = |summary: &mut IngestSummary, msg: String| {
        progress.warn(&msg);
        summary.skipped += 1;
        summary.warnings += 1;
    };
    for root in paths {
        let meta = std::fs::metadata(root).map_err(|e| StoreError::Io {
            path: root.clone(),
            source: e,
        })?;
        let canon_root = std::fs::canonicalize(root).map_err(StoreError::io(root))?;
        if meta.is_dir() {
            dirs.push(canon_root.clone());
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
                    skip(summary, format!("skipped: {e}"));
                    continue;
                }
            };
            let path = entry.path();
            let Ok(canon) = std::fs::canonicalize(path) else {
                skip(summary, format!("{}: unreadable, skipped", path.display()));
                continue;
            };
            // Inside the root it was found under; a link may not lead out.
            if !canon.starts_with(&canon_root) {
                skip(
                    summary,
                    format!(
                        "{}: a link to {}, outside {}, skipped",
                        path.display(),
                        canon.display(),
                        root.display()
                    ),
                );
                continue;
            }
            let Ok(md) = std::fs::metadata(&canon) else {
                skip(summary, format!("{}: unreadable, skipped", path.display()));
                continue;
            };
            if md.is_dir() {
                continue;
            }
            if !md.is_file() {
                skip(
                    summary,
                    format!("{}: not a regular file, skipped", path.display()),
                );
                continue;
            }
            if store_canon.as_ref().is_some_and(|s| canon.starts_with(s)) {
                continue;
            }
            if md.len() > opts.max_file_bytes {
                skip(
                    summary,
                    format!(
                        "{}: {} bytes, over the size limit of {} bytes (--max-file-size), skipped",
                        path.display(),
                        md.len(),
                        opts.max_file_bytes
                    ),
                );
                continue;
            }
            let Some(format) = format_of(path) else {
                skip(
                    summary,
                    format!("{}: unsupported format, skipped", path.display()),
                );
                continue;
            };
            let key = canon.to_string_lossy().into_owned();
            if !seen.insert(key.clone()) {
                continue;
            }
            out.push(WalkedFile {
                key,
                path: canon,
                display: path.to_string_lossy().into_owned(),
                size: md.len(),
                format,
            });
        }
    }
    Ok((out, dirs))
}

/// Read a file, at most `max` bytes (a file that grew past the cap since the
/// walk, or that reports no size, is refused rather than read whole).
fn read_capped(path: &Path, max: u64) -> Result<Vec<u8>, String> {
    let f = std::fs::File::open(path).map_err(|e| format!("unreadable: {e}"))?;
    let mut bytes = Vec::new();
    f.take(max.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|e| format!("unreadable: {e}"))?;
    if bytes.len() as u64 > max {
        return Err(format!(
            "over the size limit of {max} bytes (--max-file-size)"
        ));
    }
    Ok(bytes)
}

/// Read, hash and prepare the files of a batch in parallel (`known`: each
/// file's recorded hash); returns them with the wall seconds it took.
fn prepare_batch(
    batch: Vec<WalkedFile>,
    known: Vec<Option<String>>,
    opts: &IngestOptions,
) -> Result<(Vec<(WalkedFile, Prepared)>, f64), StoreError> {
    let t = Instant::now();
    let prepared = batch
        .into_par_iter()
        .zip(known)
        .map(|(f, known)| {
            let bytes = match read_capped(&f.path, opts.max_file_bytes) {
                Ok(b) => b,
                Err(e) => return (f, Prepared::Skipped(e)),
            };
            let hash = blake3::hash(&bytes).to_hex().to_string();
            if known.is_some_and(|k| k == hash) {
                return (f, Prepared::Unchanged);
            }
            let out = prepare_file(&f.path, &bytes, f.format, opts);
            let mut update = FileUpdate {
                key: f.key.clone(),
                display: f.display.clone(),
                format: f.format,
                hash,
                bytes: bytes.len() as u64,
                docs: None,
                vectors: None,
                name_vectors: None,
                facts_unread: false,
            };
            let p = match out.skipped {
                Some(reason) => Prepared::Empty(update, reason),
                None => {
                    update.docs = Some(out.docs);
                    Prepared::Ready(update, out.warnings)
                }
            };
            (f, p)
        })
        .collect();
    Ok((prepared, t.elapsed().as_secs_f64()))
}

/// Has the ingest's fact reader, if any, read the prepared documents of a
/// part; what it did.
fn read_facts_part(
    part: &mut [(WalkedFile, Prepared)],
    opts: &IngestOptions,
    cache: Option<&mut FactCache>,
) -> Result<Option<ModelFactStats>, StoreError> {
    let (Some(reader), Some(cache)) = (&opts.fact_reader, cache) else {
        return Ok(None);
    };
    let mut updates: Vec<&mut FileUpdate> = part
        .iter_mut()
        .filter_map(|(_, p)| match p {
            Prepared::Ready(u, _) => Some(u),
            _ => None,
        })
        .collect();
    let per_file: Vec<usize> = updates
        .iter()
        .map(|u| u.docs.as_ref().map_or(0, Vec::len))
        .collect();
    let mut docs: Vec<&mut crate::pipeline::PDoc> = updates
        .iter_mut()
        .filter_map(|u| u.docs.as_mut())
        .flatten()
        .collect();
    let (stats, unread) = crate::model_facts::read_docs(&mut docs, reader.as_ref(), cache)?;
    let mut unread = unread.into_iter();
    for (u, n) in updates.iter_mut().zip(per_file) {
        // Every one of the file's `n` documents is taken, read or not.
        let of_file: Vec<bool> = unread.by_ref().take(n).collect();
        u.facts_unread = of_file.contains(&true);
    }
    Ok(Some(stats))
}

/// With an embedder: one vector per chunk of the part's prepared files and
/// one per distinct entity name among them, made in one call (the embedder
/// batches them by length). Returns the seconds it took (0 without an
/// embedder).
fn embed_part(
    part: &mut [(WalkedFile, Prepared)],
    opts: &IngestOptions,
) -> Result<f64, StoreError> {
    let Some(embedder) = &opts.embedder else {
        return Ok(0.0);
    };
    let t = Instant::now();
    // Per file: its chunks' texts and its (entity key, name) pairs.
    type Inputs = (Vec<String>, Vec<(String, String)>);
    let inputs: Vec<Inputs> = part
        .iter()
        .map(|(_, p)| match p {
            Prepared::Ready(u, _) => (u.embed_inputs(), u.entity_names()),
            _ => (Vec::new(), Vec::new()),
        })
        .collect();
    let mut texts: Vec<&str> = inputs
        .iter()
        .flat_map(|i| &i.0)
        .map(String::as_str)
        .collect();
    let chunk_count = texts.len();
    if chunk_count == 0 {
        return Ok(0.0);
    }
    // Each distinct name once, after the chunks.
    let mut name_at: HashMap<&str, usize> = HashMap::new();
    for (_, name) in inputs.iter().flat_map(|i| &i.1) {
        name_at.entry(name.as_str()).or_insert_with(|| {
            texts.push(name);
            texts.len() - 1
        });
    }
    let vectors = embedder
        .embed(&texts)
        .map_err(|e| StoreError::Invalid(format!("making the chunks' vectors: {e}")))?;
    if vectors.len() != texts.len() {
        return Err(StoreError::Invalid(format!(
            "the embedder returned {} vectors for {} texts",
            vectors.len(),
            texts.len()
        )));
    }
    let mut chunk_vectors = vectors.iter().take(chunk_count).cloned();
    for ((_, p), (chunks, names)) in part.iter_mut().zip(&inputs) {
        if let Prepared::Ready(u, _) = p {
            u.vectors = Some(chunk_vectors.by_ref().take(chunks.len()).collect());
            u.name_vectors = Some(
                names
                    .iter()
                    .filter_map(|(_, n)| vectors.get(*name_at.get(n.as_str())?).cloned())
                    .collect(),
            );
        }
    }
    Ok(t.elapsed().as_secs_f64())
}
