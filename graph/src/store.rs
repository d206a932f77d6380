//! The persistent RDF store: oxigraph on RocksDB, a live database for the writer
//! and read-only checkpoints for readers.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

use oxigraph::io::{RdfFormat, RdfSerializer};
use oxigraph::model::{
    GraphName, GraphNameRef, Literal, NamedNode, NamedOrBlankNode, NamedOrBlankNodeRef, Quad, Term,
};
use oxigraph::sparql::{CancellationToken, QueryResults, SparqlEvaluator};
use oxigraph::store::Store;
use serde::Serialize;

use crate::model::DocGraph;
use crate::view::GraphView;
use crate::vocab::{self, term};

/// Errors of the graph store.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum GraphError {
    /// Storage error from oxigraph.
    #[error("graph storage: {0}")]
    Storage(#[from] oxigraph::store::StorageError),
    /// A SPARQL syntax error.
    #[error("SPARQL syntax: {0}")]
    Syntax(String),
    /// A SPARQL evaluation error.
    #[error("SPARQL evaluation: {0}")]
    Evaluation(String),
    /// The query ran past its time limit.
    #[error("SPARQL query timed out after {0:?}")]
    Timeout(Duration),
    /// An update was sent to the read-only query endpoint.
    #[error("SPARQL updates are not allowed: the query interface is read-only")]
    UpdateRejected,
    /// A graph file could not be read, parsed or written.
    #[error("graph file {path}: {message}")]
    File {
        /// The file.
        path: PathBuf,
        /// What went wrong.
        message: String,
    },
    /// A bad IRI built from data.
    #[error("bad IRI: {0}")]
    Iri(String),
    /// The checkpoint the manifest names is gone (a writer replaced it meanwhile).
    #[error("graph snapshot {0} is missing")]
    SnapshotMissing(PathBuf),
    /// Serialization error.
    #[error("export: {0}")]
    Io(#[from] std::io::Error),
}

/// RDF export formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExportFormat {
    /// N-Quads (named graphs kept).
    NQuads,
    /// Turtle (the union of all named graphs).
    Turtle,
    /// TriG (named graphs kept).
    TriG,
}

/// The result of a SPARQL query, ready for printing or JSON.
#[derive(Debug, Clone, Serialize, PartialEq)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum SparqlOutput {
    /// SELECT: variables and rows of N-Triples-formatted terms (None = unbound).
    Select {
        /// Variable names.
        vars: Vec<String>,
        /// Rows.
        rows: Vec<Vec<Option<String>>>,
    },
    /// ASK.
    Ask {
        /// The answer.
        value: bool,
    },
    /// CONSTRUCT / DESCRIBE: triples in N-Triples syntax.
    Graph {
        /// Triples.
        triples: Vec<String>,
    },
}

fn file_err(path: &Path, e: &dyn std::fmt::Display) -> GraphError {
    GraphError::File {
        path: path.to_path_buf(),
        message: e.to_string(),
    }
}

/// The oxigraph store of one rlmkg store, persistent in RocksDB.
///
/// The single writer works on the live database (`<dir>/live`). Each commit of
/// the store takes a RocksDB checkpoint of it (`<dir>/snap-<n>`: hard links to
/// the immutable table files, so it costs milliseconds and little space) and the
/// store's manifest names that checkpoint. Readers open the checkpoint the
/// manifest names, read-only: they see exactly the last committed state and never
/// touch a database another process writes to (RocksDB does not allow that).
///
/// The [`DocGraph`]s the quads were made from are also kept as record files, one
/// per input file (`<dir>/docs/d17+3.jsonl` holds d17–d19, one JSON document per
/// line, written to a temporary name and renamed): the petgraph view is built
/// from these records, which is many times faster than decoding every quad out
/// of RocksDB, where each term of each quad is a separate dictionary lookup.
pub struct GraphStore {
    store: Store,
    dir: PathBuf,
    docs: PathBuf,
    writable: bool,
}

impl std::fmt::Debug for GraphStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GraphStore")
            .field("dir", &self.dir)
            .field("writable", &self.writable)
            .finish_non_exhaustive()
    }
}

/// The folder of the live database inside the graph folder.
const LIVE: &str = "live";
/// Prefix of checkpoint folders.
const SNAPSHOT_PREFIX: &str = "snap-";
/// The folder of the record files.
const DOCS: &str = "docs";

fn nn(iri: String) -> Result<NamedNode, GraphError> {
    NamedNode::new(iri).map_err(|e| GraphError::Iri(e.to_string()))
}

struct Vocab {
    rdf_type: NamedNode,
    c_document: NamedNode,
    c_chunk: NamedNode,
    c_entity: NamedNode,
    path: NamedNode,
    title: NamedNode,
    format: NamedNode,
    in_document: NamedNode,
    start: NamedNode,
    end: NamedNode,
    name: NamedNode,
    alias: NamedNode,
    entity_type: NamedNode,
    in_chunk: NamedNode,
    mentions: NamedNode,
    subject: NamedNode,
    object: NamedNode,
    label: NamedNode,
    weight: NamedNode,
    evidence: NamedNode,
    about: NamedNode,
}

impl Vocab {
    fn new() -> Result<Self, GraphError> {
        let t = |l: &str| nn(vocab::ns(l));
        Ok(Self {
            rdf_type: nn(vocab::RDF_TYPE.to_string())?,
            c_document: t(term::DOCUMENT)?,
            c_chunk: t(term::CHUNK)?,
            c_entity: t(term::ENTITY)?,
            path: t(term::PATH)?,
            title: t(term::TITLE)?,
            format: t(term::FORMAT)?,
            in_document: t(term::IN_DOCUMENT)?,
            start: t(term::START)?,
            end: t(term::END)?,
            name: t(term::NAME)?,
            alias: t(term::ALIAS)?,
            entity_type: t(term::ENTITY_TYPE)?,
            in_chunk: t(term::IN_CHUNK)?,
            mentions: t(term::MENTIONS)?,
            subject: t(term::SUBJECT)?,
            object: t(term::OBJECT)?,
            label: t(term::LABEL)?,
            about: t(term::ABOUT)?,
            weight: t(term::WEIGHT)?,
            evidence: t(term::EVIDENCE)?,
        })
    }
}

fn int(v: u64) -> Term {
    Literal::from(i64::try_from(v).unwrap_or(i64::MAX)).into()
}

/// Most quads one bulk-loader worker sorts at once: larger sorts are slower per
/// quad (the keys no longer fit the caches), smaller ones leave more table files
/// for RocksDB to compact.
const LOADER_CHUNK_QUADS: usize = 256_000;

/// The memory setting that makes oxigraph's bulk loader cut `n` quads into equal
/// chunks of at most [`LOADER_CHUNK_QUADS`], a whole number of rounds for every
/// worker, so no worker is left sorting a large chunk alone at the end (the
/// loader's chunk size is `megabytes * 1000 / threads` quads).
fn loader_memory_mb(n: usize, threads: usize) -> usize {
    let per_worker = n.div_ceil(threads).max(1);
    let rounds = per_worker.div_ceil(LOADER_CHUNK_QUADS);
    let chunk = per_worker.div_ceil(rounds);
    (chunk * threads).div_ceil(1000).max(1)
}

/// Extension of record files.
const RECORD_EXT: &str = "jsonl";

/// A document id for a file name: ASCII letters, digits, `-` and `_` as they
/// are, every other byte percent-encoded (so `+` never appears).
fn file_safe(id: &str) -> String {
    let mut name = String::with_capacity(id.len());
    for b in id.bytes() {
        if b.is_ascii_alphanumeric() || b == b'-' || b == b'_' {
            name.push(char::from(b));
        } else {
            name.push_str(&format!("%{b:02X}"));
        }
    }
    name
}

/// `d17` → `("d", 17)`.
fn split_numbered(id: &str) -> Option<(&str, u64)> {
    let digits = id.len() - id.bytes().rev().take_while(u8::is_ascii_digit).count();
    let (prefix, n) = id.split_at(digits);
    if n.is_empty() || (n.len() > 1 && n.starts_with('0')) {
        return None;
    }
    Some((prefix, n.parse().ok()?))
}

/// The file stem of a record holding `ids`: the id itself for one document,
/// `d17+3` for the run d17, d18, d19 (how ingest numbers the documents of one
/// input file), and otherwise every id followed by `+` (`a+b+`).
fn record_stem(ids: &[&str]) -> String {
    let run = ids.len() > 1
        && ids.iter().zip(ids.iter().skip(1)).all(|(a, b)| {
            matches!((split_numbered(a), split_numbered(b)), (Some((pa, na)), Some((pb, nb))) if pa == pb && nb == na + 1)
        });
    match ids {
        [one] => file_safe(one),
        [first, ..] if run => format!("{}+{}", file_safe(first), ids.len()),
        // Not a numbered run (never from ingest): list every id.
        _ => {
            ids.iter()
                .map(|d| file_safe(d))
                .collect::<Vec<_>>()
                .join("+")
                + "+"
        }
    }
}

/// The document ids a record file name holds (inverse of [`record_stem`]).
fn record_ids(stem: &str) -> Vec<String> {
    if let Some(list) = stem.strip_suffix('+') {
        return list.split('+').map(percent_decode).collect();
    }
    if let Some((first, count)) = stem.rsplit_once('+') {
        let first = percent_decode(first);
        let (Some((prefix, n)), Ok(count)) = (split_numbered(&first), count.parse::<u64>()) else {
            return Vec::new();
        };
        return (n..n + count).map(|k| format!("{prefix}{k}")).collect();
    }
    vec![percent_decode(stem)]
}

/// Percent-encode characters that may not appear in an IRI path segment.
fn iri_safe(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for ch in s.chars() {
        if ch.is_alphanumeric() || matches!(ch, '-' | '_' | '.' | '~') {
            out.push(ch);
        } else {
            let mut buf = [0u8; 4];
            for b in ch.encode_utf8(&mut buf).bytes() {
                out.push_str(&format!("%{b:02X}"));
            }
        }
    }
    out
}

/// IRI of an entity key.
pub(crate) fn entity_iri(key: &str) -> String {
    format!("{}{}", vocab::ENTITY, iri_safe(key))
}

/// Entity key of an entity IRI.
#[cfg(test)]
fn entity_of_iri(iri: &str) -> Option<String> {
    let rest = iri.strip_prefix(vocab::ENTITY)?;
    Some(percent_decode(rest))
}

fn percent_decode(s: &str) -> String {
    fn hex(b: u8) -> Option<u8> {
        (b as char).to_digit(16).and_then(|d| u8::try_from(d).ok())
    }
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && let (Some(h), Some(l)) = (
                bytes.get(i + 1).copied().and_then(hex),
                bytes.get(i + 2).copied().and_then(hex),
            )
        {
            out.push(h * 16 + l);
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

impl GraphStore {
    /// Open (creating when absent) the live database in `dir` for writing.
    pub fn open(dir: &Path) -> Result<Self, GraphError> {
        std::fs::create_dir_all(dir).map_err(|e| file_err(dir, &e))?;
        let docs = dir.join(DOCS);
        std::fs::create_dir_all(&docs).map_err(|e| file_err(&docs, &e))?;
        Ok(Self {
            store: Store::open(dir.join(LIVE))?,
            dir: dir.to_path_buf(),
            docs,
            writable: true,
        })
    }

    /// Open the checkpoint `snapshot` of the graph in `dir` read-only; `None` (a
    /// store that never committed) is an empty graph.
    pub fn open_snapshot(dir: &Path, snapshot: Option<&str>) -> Result<Self, GraphError> {
        let store = match snapshot {
            None => Store::new()?,
            Some(name) => {
                let path = dir.join(name);
                if !path.is_dir() {
                    return Err(GraphError::SnapshotMissing(path));
                }
                Store::open_read_only(&path)?
            }
        };
        Ok(Self {
            store,
            dir: dir.to_path_buf(),
            docs: dir.join(DOCS),
            writable: false,
        })
    }

    /// The name of the checkpoint number `n`.
    pub fn snapshot_name(n: u64) -> String {
        format!("{SNAPSHOT_PREFIX}{n}")
    }

    /// Take a checkpoint of the live database named `name` (replacing a leftover
    /// folder of that name from an interrupted command).
    pub fn snapshot(&self, name: &str) -> Result<(), GraphError> {
        self.check_writable()?;
        let path = self.dir.join(name);
        if path.exists() {
            std::fs::remove_dir_all(&path).map_err(|e| file_err(&path, &e))?;
        }
        // A RocksDB checkpoint flushes the memory tables itself.
        self.store.backup(&path)?;
        Ok(())
    }

    /// Delete every checkpoint folder except those named in `keep`. Folders that
    /// cannot be deleted are left for the next call.
    pub fn prune_snapshots(&self, keep: &[&str]) -> Result<(), GraphError> {
        self.check_writable()?;
        let rd = std::fs::read_dir(&self.dir).map_err(|e| file_err(&self.dir, &e))?;
        for e in rd.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            if name.starts_with(SNAPSHOT_PREFIX) && !keep.contains(&name.as_str()) {
                let _ = std::fs::remove_dir_all(e.path());
            }
        }
        Ok(())
    }

    /// The record files and the document ids each holds (from its name), sorted
    /// by name.
    fn record_files(&self) -> Result<Vec<(PathBuf, Vec<String>)>, GraphError> {
        if !self.docs.exists() {
            return Ok(Vec::new());
        }
        let mut files: Vec<(PathBuf, Vec<String>)> = std::fs::read_dir(&self.docs)
            .map_err(|e| file_err(&self.docs, &e))?
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

    /// The record file of a group of documents (those of one input file).
    fn record_file(&self, ids: &[&str]) -> PathBuf {
        self.docs.join(format!("{}.{RECORD_EXT}", record_stem(ids)))
    }

    /// Write the record of a group of document graphs (one JSON document per
    /// line) to its file, atomically (made durable by
    /// [`GraphStore::sync_records`]).
    fn persist(&self, docs: &[DocGraph]) -> Result<PathBuf, GraphError> {
        let ids: Vec<&str> = docs.iter().map(|d| d.doc.as_str()).collect();
        let path = self.record_file(&ids);
        let tmp = path.with_extension(format!("{RECORD_EXT}.tmp"));
        let mut bytes = Vec::new();
        for d in docs {
            serde_json::to_writer(&mut bytes, d).map_err(|e| file_err(&path, &e))?;
            bytes.push(b'\n');
        }
        std::fs::write(&tmp, &bytes).map_err(|e| file_err(&tmp, &e))?;
        std::fs::rename(&tmp, &path).map_err(|e| file_err(&path, &e))?;
        Ok(path)
    }

    /// Read a record file; a file removed since it was listed reads as empty.
    fn read_record(path: &Path) -> Result<Vec<DocGraph>, GraphError> {
        let bytes = match std::fs::read(path) {
            Ok(b) => b,
            // Removed by a writer since the listing: no longer committed.
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(file_err(path, &e)),
        };
        serde_json::Deserializer::from_slice(&bytes)
            .into_iter::<DocGraph>()
            .map(|d| d.map_err(|e| file_err(path, &e)))
            .collect()
    }

    /// Make freshly written records and their directory entries durable: one
    /// `syncfs` on Linux (an fsync per record cost about 3 ms each, which
    /// dominated corpora of many small documents), an fsync per file elsewhere.
    fn sync_records(&self, written: &[PathBuf]) -> Result<(), GraphError> {
        if written.is_empty() {
            return Ok(());
        }
        let dir = std::fs::File::open(&self.docs).map_err(|e| file_err(&self.docs, &e))?;
        #[cfg(target_os = "linux")]
        {
            let _ = written;
            rustix::fs::syncfs(&dir).map_err(|e| file_err(&self.docs, &e))
        }
        #[cfg(not(target_os = "linux"))]
        {
            for p in written {
                let f = std::fs::File::open(p).map_err(|e| file_err(p, &e))?;
                f.sync_all().map_err(|e| file_err(p, &e))?;
            }
            dir.sync_all().map_err(|e| file_err(&self.docs, &e))
        }
    }

    /// The document ids that have a record.
    pub fn file_doc_ids(&self) -> Result<BTreeSet<String>, GraphError> {
        Ok(self
            .record_files()?
            .into_iter()
            .flat_map(|(_, ids)| ids)
            .collect())
    }

    fn check_writable(&self) -> Result<(), GraphError> {
        if self.writable {
            Ok(())
        } else {
            Err(GraphError::File {
                path: self.dir.clone(),
                message: "the graph store is open read-only".to_owned(),
            })
        }
    }

    /// Build the quads of one document (the shape is described in
    /// [`crate::vocab`]).
    pub fn quads_of(doc: &DocGraph) -> Result<Vec<Quad>, GraphError> {
        let v = Vocab::new()?;
        // Ids as ingest makes them (`d12`, `c345`) need no IRI validation,
        // which was a noticeable share of this function; any other id is checked.
        let plain = doc
            .chunks
            .iter()
            .map(|c| c.id.as_str())
            .chain(doc.mentions.iter().map(|m| m.chunk.as_str()))
            .chain(
                doc.relations
                    .iter()
                    .flat_map(|r| r.evidence.iter().map(|e| e.chunk.as_str())),
            )
            .chain([doc.doc.as_str()])
            .all(|id| {
                id.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
            });
        let own = |iri: String| -> Result<NamedNode, GraphError> {
            if plain {
                Ok(NamedNode::new_unchecked(iri))
            } else {
                nn(iri)
            }
        };
        let d = own(format!("{}{}", vocab::DOC, doc.doc))?;
        let g = GraphName::NamedNode(d.clone());
        let mut q = Vec::with_capacity(
            5 + doc.chunks.len() * 4
                + doc.entities.len() * 3
                + doc.mentions.len()
                + doc.relations.len() * 8,
        );
        let mut push = |s: &NamedNode, p: &NamedNode, o: Term| {
            q.push(Quad::new(
                NamedOrBlankNode::NamedNode(s.clone()),
                p.clone(),
                o,
                g.clone(),
            ));
        };
        push(&d, &v.rdf_type, v.c_document.clone().into());
        push(&d, &v.path, Literal::from(doc.path.as_str()).into());
        push(&d, &v.title, Literal::from(doc.title.as_str()).into());
        push(&d, &v.format, Literal::from(doc.format.as_str()).into());
        // Entity IRIs are validated once per document and reused.
        let mut entities: HashMap<&str, NamedNode> = HashMap::new();
        let keys = doc.entities.iter().map(|e| e.key.as_str());
        let keys = keys
            .chain(doc.mentions.iter().map(|m| m.entity.as_str()))
            .chain(
                doc.relations
                    .iter()
                    .flat_map(|r| [r.subject.as_str(), r.object.as_str()]),
            )
            .chain(doc.about.as_deref());
        for k in keys {
            if !entities.contains_key(k) {
                entities.insert(k, nn(entity_iri(k))?);
            }
        }
        let entity = |key: &str| -> Result<NamedNode, GraphError> {
            match entities.get(key) {
                Some(n) => Ok(n.clone()),
                None => nn(entity_iri(key)),
            }
        };
        if let Some(about) = &doc.about {
            push(&d, &v.about, entity(about)?.into());
        }
        let mut chunks: HashMap<&str, NamedNode> = HashMap::with_capacity(doc.chunks.len());
        for c in &doc.chunks {
            let cn = own(format!("{}{}", vocab::CHUNK, c.id))?;
            push(&cn, &v.rdf_type, v.c_chunk.clone().into());
            push(&cn, &v.in_document, d.clone().into());
            push(&cn, &v.start, int(c.start));
            push(&cn, &v.end, int(c.end));
            chunks.insert(c.id.as_str(), cn);
        }
        let chunk = |id: &str| match chunks.get(id) {
            Some(n) => Ok(n.clone()),
            None => own(format!("{}{id}", vocab::CHUNK)),
        };
        for e in &doc.entities {
            let en = entity(&e.key)?;
            push(&en, &v.rdf_type, v.c_entity.clone().into());
            push(&en, &v.name, Literal::from(e.name.as_str()).into());
            push(&en, &v.entity_type, Literal::from(e.kind.as_str()).into());
            for a in &e.aliases {
                push(&en, &v.alias, Literal::from(a.as_str()).into());
            }
        }
        // One `rk:mentions` fact per (chunk, entity); the mentions' exact spans
        // stay in the document's record.
        let mut seen: HashSet<(&str, &str)> = HashSet::new();
        for m in &doc.mentions {
            if seen.insert((m.chunk.as_str(), m.entity.as_str())) {
                push(&chunk(&m.chunk)?, &v.mentions, entity(&m.entity)?.into());
            }
        }
        let mut evidence_seen: HashSet<(u64, u64)> = HashSet::new();
        for (i, r) in doc.relations.iter().enumerate() {
            let rn = own(format!("{}{}:{}", vocab::RELATION, doc.doc, i + 1))?;
            push(&rn, &v.subject, entity(&r.subject)?.into());
            push(&rn, &v.object, entity(&r.object)?.into());
            push(&rn, &v.label, Literal::from(r.label.as_str()).into());
            push(&rn, &v.weight, Literal::from(r.weight).into());
            for ev in &r.evidence {
                // One node per evidence span, shared by every relation it supports
                // (a sentence naming several entities supports several pairs).
                let evn = own(format!(
                    "{}{}:{}-{}",
                    vocab::EVIDENCE,
                    doc.doc,
                    ev.start,
                    ev.end
                ))?;
                push(&rn, &v.evidence, evn.clone().into());
                if evidence_seen.insert((ev.start, ev.end)) {
                    push(&evn, &v.in_chunk, chunk(&ev.chunk)?.into());
                    push(&evn, &v.start, int(ev.start));
                    push(&evn, &v.end, int(ev.end));
                }
            }
        }
        Ok(q)
    }

    /// Add the document graphs of input files (one group per file): a record
    /// file per group, then their quads through oxigraph's bulk loader, which
    /// writes sorted table files and adds them to the database in one step.
    /// `quads` are the documents' quads ([`GraphStore::quads_of`], which callers
    /// may build in parallel).
    pub fn add_docs(
        &self,
        groups: &[Vec<DocGraph>],
        quads: Vec<Quad>,
        threads: usize,
    ) -> Result<(), GraphError> {
        self.check_writable()?;
        let mut written = Vec::with_capacity(groups.len());
        for g in groups.iter().filter(|g| !g.is_empty()) {
            written.push(self.persist(g)?);
        }
        self.sync_records(&written)?;
        if quads.is_empty() {
            return Ok(());
        }
        let threads = threads.max(1);
        let mut loader = self
            .store
            .bulk_loader()
            .with_num_threads(threads)
            .with_max_memory_size_in_megabytes(loader_memory_mb(quads.len(), threads));
        loader.load_quads(quads)?;
        loader.commit()?;
        Ok(())
    }

    /// Drop the named graphs of the given document ids.
    pub fn remove_docs(&self, docs: &[String]) -> Result<(), GraphError> {
        if docs.is_empty() {
            return Ok(());
        }
        self.check_writable()?;
        let gone: HashSet<&str> = docs.iter().map(String::as_str).collect();
        for (f, ids) in self.record_files()? {
            if !ids.iter().any(|d| gone.contains(d.as_str())) {
                continue;
            }
            match std::fs::remove_file(&f) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(file_err(&f, &e)),
            }
        }
        for chunk in docs.chunks(256) {
            let mut tx = self.store.start_transaction()?;
            for d in chunk {
                let g = nn(format!("{}{}", vocab::DOC, d))?;
                tx.remove_named_graph(g.as_ref())?;
            }
            tx.commit()?;
        }
        Ok(())
    }

    /// The document ids that have a named graph.
    pub fn doc_ids(&self) -> Result<BTreeSet<String>, GraphError> {
        let mut out = BTreeSet::new();
        for g in self.store.named_graphs() {
            if let NamedOrBlankNode::NamedNode(n) = g?
                && let Some(id) = n.as_str().strip_prefix(vocab::DOC)
            {
                out.insert(id.to_string());
            }
        }
        Ok(out)
    }

    /// The chunk ids that the graph holds (with their document ids).
    pub fn chunk_ids(&self) -> Result<Vec<(String, String)>, GraphError> {
        let v = Vocab::new()?;
        let mut out = Vec::new();
        for q in self
            .store
            .quads_for_pattern(None, Some(v.in_document.as_ref()), None, None)
        {
            let q = q?;
            if let (NamedOrBlankNode::NamedNode(s), Term::NamedNode(o)) = (&q.subject, &q.object)
                && let (Some(c), Some(d)) = (
                    s.as_str().strip_prefix(vocab::CHUNK),
                    o.as_str().strip_prefix(vocab::DOC),
                )
            {
                out.push((c.to_string(), d.to_string()));
            }
        }
        Ok(out)
    }

    /// Mention spans (from the documents' records) and evidence spans (from
    /// the RDF), relations without evidence, and documents whose record and RDF
    /// disagree on which chunks mention which entities: for invariant checks.
    /// Records of documents `keep` rejects (a writer's uncommitted ones) are
    /// not checked.
    pub fn spans(&self, keep: &dyn Fn(&str) -> bool) -> Result<SpanReport, GraphError> {
        let v = Vocab::new()?;
        let mut report = SpanReport::default();
        // Every record file is read once, and each of its documents is checked
        // against its named graph; then the named graphs without a record.
        let mut checked: HashSet<String> = HashSet::new();
        for (f, _) in self.record_files()? {
            for record in Self::read_record(&f)? {
                if keep(&record.doc) && checked.insert(record.doc.clone()) {
                    self.check_doc(&v, &record.doc, Some(&record), &mut report)?;
                }
            }
        }
        for g in self.store.named_graphs() {
            if let NamedOrBlankNode::NamedNode(gn) = g?
                && let Some(doc) = gn.as_str().strip_prefix(vocab::DOC)
                && !checked.contains(doc)
            {
                self.check_doc(&v, doc, None, &mut report)?;
            }
        }
        Ok(report)
    }

    /// Check one document's named graph (and its record, when it has one).
    fn check_doc(
        &self,
        v: &Vocab,
        doc: &str,
        record: Option<&DocGraph>,
        report: &mut SpanReport,
    ) -> Result<(), GraphError> {
        let gn = NamedNode::new_unchecked(format!("{}{doc}", vocab::DOC));
        let gref = GraphNameRef::NamedNode(gn.as_ref());
        let mut chunk_of = HashMap::new();
        let mut starts = HashMap::new();
        let mut ends = HashMap::new();
        let mut has_ev: HashSet<String> = HashSet::new();
        let mut relations: HashSet<String> = HashSet::new();
        let mut mentions: BTreeSet<(String, String)> = BTreeSet::new();
        // Only the predicates the checks need: decoding a quad costs a RocksDB
        // lookup per term, so scanning the whole named graph is much slower.
        let wanted = [
            &v.in_chunk,
            &v.start,
            &v.end,
            &v.evidence,
            &v.subject,
            &v.mentions,
        ];
        for p in wanted {
            for q in self
                .store
                .quads_for_pattern(None, Some(p.as_ref()), None, Some(gref))
            {
                let q = q?;
                let NamedOrBlankNode::NamedNode(s) = &q.subject else {
                    continue;
                };
                let s = s.as_str().to_string();
                let object_iri = match &q.object {
                    Term::NamedNode(o) => Some(o.as_str()),
                    _ => None,
                };
                if q.predicate == v.in_chunk {
                    if let Some(o) = object_iri {
                        let c = o.strip_prefix(vocab::CHUNK).unwrap_or_default();
                        chunk_of.insert(s, c.to_string());
                    }
                } else if q.predicate == v.start {
                    starts.insert(s, lit_u64(&q.object));
                } else if q.predicate == v.end {
                    ends.insert(s, lit_u64(&q.object));
                } else if q.predicate == v.evidence {
                    has_ev.insert(s);
                } else if q.predicate == v.subject {
                    relations.insert(s);
                } else if let Some(o) = object_iri {
                    let c = s.strip_prefix(vocab::CHUNK).unwrap_or_default();
                    mentions.insert((c.to_string(), o.to_string()));
                }
            }
        }
        let has_graph = self
            .store
            .quads_for_pattern(
                Some(NamedOrBlankNodeRef::NamedNode(gn.as_ref())),
                Some(v.rdf_type.as_ref()),
                None,
                Some(gref),
            )
            .next()
            .is_some();
        for (node, chunk) in chunk_of {
            report.spans.push(SpanCheck {
                doc: doc.to_string(),
                start: starts.get(&node).copied().flatten(),
                end: ends.get(&node).copied().flatten(),
                node,
                chunk,
            });
        }
        report.relations += relations.len();
        for r in relations {
            if !has_ev.contains(&r) {
                report.relations_without_evidence.push(r);
            }
        }
        let Some(record) = record else {
            report.mention_mismatch.push(format!("{doc}: no record"));
            return Ok(());
        };
        if !has_graph {
            report
                .mention_mismatch
                .push(format!("{doc}: no named graph"));
            return Ok(());
        }
        let mut from_record = BTreeSet::new();
        for (i, m) in record.mentions.iter().enumerate() {
            report.spans.push(SpanCheck {
                doc: doc.to_string(),
                node: format!("mention {} of {} in {doc}", i + 1, m.entity),
                chunk: m.chunk.clone(),
                start: Some(m.start),
                end: Some(m.end),
            });
            from_record.insert((m.chunk.clone(), entity_iri(&m.entity)));
        }
        report.mentions += record.mentions.len();
        if from_record != mentions {
            report.mention_mismatch.push(format!(
                "{doc}: the record has {} (chunk, entity) mention pairs, the RDF {}",
                from_record.len(),
                mentions.len()
            ));
        }
        Ok(())
    }

    /// Run a read-only SPARQL query with a time limit.
    pub fn sparql(&self, query: &str, timeout: Duration) -> Result<SparqlOutput, GraphError> {
        let token = CancellationToken::new();
        let prepared = match SparqlEvaluator::new()
            .with_cancellation_token(token.clone())
            .parse_query(query)
        {
            Ok(p) => p,
            Err(e) => {
                if SparqlEvaluator::new().parse_update(query).is_ok() {
                    return Err(GraphError::UpdateRejected);
                }
                return Err(GraphError::Syntax(e.to_string()));
            }
        };
        let (done_tx, done_rx) = std::sync::mpsc::channel::<()>();
        let timer_token = token.clone();
        let timer = std::thread::spawn(move || {
            if let Err(std::sync::mpsc::RecvTimeoutError::Timeout) = done_rx.recv_timeout(timeout) {
                timer_token.cancel();
            }
        });
        let result = self.run_query(prepared, timeout);
        let _ = done_tx.send(());
        let _ = timer.join();
        result
    }

    fn run_query(
        &self,
        prepared: oxigraph::sparql::PreparedSparqlQuery,
        timeout: Duration,
    ) -> Result<SparqlOutput, GraphError> {
        let map_err = |e: oxigraph::sparql::QueryEvaluationError| match e {
            oxigraph::sparql::QueryEvaluationError::Cancelled => GraphError::Timeout(timeout),
            other => GraphError::Evaluation(other.to_string()),
        };
        match prepared.on_store(&self.store).execute().map_err(map_err)? {
            QueryResults::Solutions(sol) => {
                let vars: Vec<String> = sol
                    .variables()
                    .iter()
                    .map(|v| v.as_str().to_string())
                    .collect();
                let mut rows = Vec::new();
                for s in sol {
                    let s = s.map_err(map_err)?;
                    rows.push(
                        vars.iter()
                            .map(|v| s.get(v.as_str()).map(|t| t.to_string()))
                            .collect(),
                    );
                }
                Ok(SparqlOutput::Select { vars, rows })
            }
            QueryResults::Boolean(value) => Ok(SparqlOutput::Ask { value }),
            QueryResults::Graph(triples) => {
                let mut out = Vec::new();
                for t in triples {
                    out.push(format!("{} .", t.map_err(map_err)?));
                }
                Ok(SparqlOutput::Graph { triples: out })
            }
        }
    }

    /// Write the whole graph in `format`.
    pub fn export(&self, format: ExportFormat, out: &mut dyn Write) -> Result<(), GraphError> {
        let rdf = match format {
            ExportFormat::NQuads => RdfFormat::NQuads,
            ExportFormat::Turtle => RdfFormat::Turtle,
            ExportFormat::TriG => RdfFormat::TriG,
        };
        let serializer = RdfSerializer::from_format(rdf)
            .with_prefix("rk", vocab::NS)
            .map_err(|e| GraphError::Iri(e.to_string()))?;
        let mut ser = serializer.for_writer(out);
        for q in self.store.iter() {
            let q = q?;
            if rdf.supports_datasets() {
                ser.serialize_quad(&q)?;
            } else {
                ser.serialize_triple(q.as_ref())?;
            }
        }
        ser.finish()?;
        Ok(())
    }

    /// Number of quads.
    pub fn len(&self) -> Result<usize, GraphError> {
        Ok(self.store.len()?)
    }

    /// True when the store holds no quads.
    pub fn is_empty(&self) -> Result<bool, GraphError> {
        Ok(self.store.is_empty()?)
    }

    /// Build the in-memory petgraph view from the record files of the documents
    /// `keep` accepts (readers pass the committed ones: a writer may be adding
    /// files meanwhile).
    pub fn load_view(&self, keep: &dyn Fn(&str) -> bool) -> Result<GraphView, GraphError> {
        let mut b = crate::view::ViewBuilder::default();
        for (f, ids) in self.record_files()? {
            if !ids.iter().any(|d| keep(d)) {
                continue;
            }
            for d in Self::read_record(&f)? {
                if keep(&d.doc) {
                    b.add_doc(&d);
                }
            }
        }
        Ok(b.build())
    }
}

fn lit_u64(t: &Term) -> Option<u64> {
    match t {
        Term::Literal(l) => l.value().parse().ok(),
        _ => None,
    }
}

/// A span-bearing node (mention or evidence) as found in the graph.
#[derive(Debug, Clone, Serialize)]
pub struct SpanCheck {
    /// Document id.
    pub doc: String,
    /// IRI of the mention or evidence node.
    pub node: String,
    /// Chunk id it claims to lie in.
    pub chunk: String,
    /// Byte start.
    pub start: Option<u64>,
    /// Byte end.
    pub end: Option<u64>,
}

/// Spans found in the graph, for the store's invariant checks.
#[derive(Debug, Clone, Default, Serialize)]
pub struct SpanReport {
    /// Every mention span (records) and evidence span (RDF).
    pub spans: Vec<SpanCheck>,
    /// Number of relations.
    pub relations: usize,
    /// Relations without any evidence span.
    pub relations_without_evidence: Vec<String>,
    /// Mentions checked (from the records).
    pub mentions: usize,
    /// Documents whose record and RDF disagree on their mention facts.
    pub mention_mismatch: Vec<String>,
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
    use super::*;
    use crate::view::entity_key;

    #[test]
    fn record_names_round_trip() {
        let cases: &[&[&str]] = &[
            &["d7"],
            &["d17", "d18", "d19"],
            &["d9", "d10"],
            &["a b", "x+y"],
            &["d1", "d3"],
            &["d01", "d02"],
            &["d+1"],
        ];
        for ids in cases {
            let stem = record_stem(ids);
            assert!(!stem.contains(['/', ' ']), "{stem}");
            assert_eq!(record_ids(&stem), *ids, "{stem}");
        }
        assert_eq!(record_stem(&["d17", "d18", "d19"]), "d17+3");
        assert!(record_ids("junk+x").is_empty());
    }

    #[test]
    fn entity_iri_round_trips() {
        for k in ["barack_obama", "zürich", "a/b c", "100%"] {
            assert_eq!(entity_of_iri(&entity_iri(k)).as_deref(), Some(k));
        }
        assert_eq!(entity_key("Barack Obama"), "barack_obama");
    }

    fn doc(id: &str, entity: &str) -> DocGraph {
        use crate::model::{ChunkSpan, EntityDecl, EvidenceSpan, MentionDecl, RelationDecl};
        let chunk = format!("c{}", &id[1..]);
        DocGraph {
            doc: id.to_string(),
            path: format!("/{id}.txt"),
            title: id.to_string(),
            format: "txt".into(),
            chunks: vec![ChunkSpan {
                id: chunk.clone(),
                start: 0,
                end: 40,
            }],
            entities: vec![EntityDecl {
                key: entity.to_string(),
                name: entity.to_string(),
                kind: "person".into(),
                aliases: Vec::new(),
            }],
            mentions: vec![MentionDecl {
                entity: entity.to_string(),
                chunk: chunk.clone(),
                start: 0,
                end: 5,
            }],
            relations: vec![
                RelationDecl {
                    subject: entity.to_string(),
                    object: "oslo".into(),
                    label: "co-occurs".into(),
                    weight: 1.0,
                    evidence: vec![EvidenceSpan {
                        chunk: chunk.clone(),
                        start: 0,
                        end: 20,
                    }],
                },
                RelationDecl {
                    subject: entity.to_string(),
                    object: "bergen".into(),
                    label: "co-occurs".into(),
                    weight: 1.0,
                    evidence: vec![EvidenceSpan {
                        chunk,
                        start: 0,
                        end: 20,
                    }],
                },
            ],
            about: None,
        }
    }

    #[test]
    fn ids_that_are_not_plain_are_validated_as_iris() {
        let ok = doc("d1", "ada");
        assert!(GraphStore::quads_of(&ok).is_ok());
        let mut bad = ok.clone();
        bad.doc = "d 1".into();
        assert!(matches!(
            GraphStore::quads_of(&bad),
            Err(GraphError::Iri(_))
        ));
        let mut bad = ok;
        bad.chunks[0].id = "c<1>".into();
        assert!(matches!(
            GraphStore::quads_of(&bad),
            Err(GraphError::Iri(_))
        ));
    }

    #[test]
    fn readers_see_the_checkpoint_not_the_live_database() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("graph");
        let w = GraphStore::open(&dir).unwrap();
        let d1 = doc("d1", "ada");
        w.add_docs(&[vec![d1.clone()]], GraphStore::quads_of(&d1).unwrap(), 1)
            .unwrap();
        w.snapshot(&GraphStore::snapshot_name(1)).unwrap();
        let d2 = doc("d2", "bob");
        w.add_docs(&[vec![d2.clone()]], GraphStore::quads_of(&d2).unwrap(), 1)
            .unwrap();
        w.remove_docs(&["d1".to_string()]).unwrap();

        let r = GraphStore::open_snapshot(&dir, Some("snap-1")).unwrap();
        assert_eq!(r.doc_ids().unwrap(), BTreeSet::from(["d1".to_string()]));
        assert_eq!(w.doc_ids().unwrap(), BTreeSet::from(["d2".to_string()]));
        assert!(
            r.remove_docs(&["d1".to_string()]).is_err(),
            "readers cannot write"
        );
        // The view is built from the document files, filtered by the caller.
        assert_eq!(
            w.file_doc_ids().unwrap(),
            BTreeSet::from(["d2".to_string()])
        );
        let view = w.load_view(&|d| d == "d2").unwrap();
        assert!(view.entity("bob").is_some() && view.entity("ada").is_none());
        assert_eq!(view.entities_of_chunk("c2"), vec!["bob".to_string()]);
        // Two relations from one sentence share one evidence node.
        let report = r.spans(&|_| true).unwrap();
        assert_eq!(report.relations, 2);
        assert!(report.relations_without_evidence.is_empty());
        assert_eq!(
            report
                .spans
                .iter()
                .filter(|s| s.node.starts_with(vocab::EVIDENCE))
                .count(),
            1
        );

        w.snapshot(&GraphStore::snapshot_name(2)).unwrap();
        w.prune_snapshots(&["snap-2"]).unwrap();
        assert!(matches!(
            GraphStore::open_snapshot(&dir, Some("snap-1")),
            Err(GraphError::SnapshotMissing(_))
        ));
        let r2 = GraphStore::open_snapshot(&dir, Some("snap-2")).unwrap();
        assert_eq!(r2.doc_ids().unwrap(), BTreeSet::from(["d2".to_string()]));
        let empty = GraphStore::open_snapshot(&dir, None).unwrap();
        assert!(empty.is_empty().unwrap());
    }
}
