//! The persistent RDF store: oxigraph in memory, one N-Quads file per document graph on disk.

use std::collections::{BTreeSet, HashSet};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

use oxigraph::io::{RdfFormat, RdfParser, RdfSerializer};
use oxigraph::model::{GraphName, GraphNameRef, Literal, NamedNode, NamedOrBlankNode, Quad, Term};
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

/// The oxigraph store of one rlmkg store.
///
/// The quads live in an in-memory oxigraph store; each document's named graph is
/// also persisted as one N-Quads file in the store's graph folder, written to a
/// temporary name and renamed into place, so a document's facts appear or vanish
/// atomically on disk. The files are loaded into oxigraph on first use of the
/// store (SPARQL, export, writes, invariant checks); building the petgraph view
/// alone parses the files directly and never fills oxigraph, which keeps `ask`,
/// `search` and friends fast to open and small in memory. (oxigraph's RocksDB
/// backend costs a C++ build of RocksDB that the project's build budget cannot
/// carry; see ARCHITECTURE.md.)
pub struct GraphStore {
    store: std::sync::OnceLock<Store>,
    dir: PathBuf,
    writable: bool,
}

impl std::fmt::Debug for GraphStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GraphStore").finish_non_exhaustive()
    }
}

fn nn(iri: String) -> Result<NamedNode, GraphError> {
    NamedNode::new(iri).map_err(|e| GraphError::Iri(e.to_string()))
}

struct Vocab {
    rdf_type: NamedNode,
    c_document: NamedNode,
    c_chunk: NamedNode,
    c_entity: NamedNode,
    c_mention: NamedNode,
    c_relation: NamedNode,
    c_evidence: NamedNode,
    path: NamedNode,
    title: NamedNode,
    format: NamedNode,
    in_document: NamedNode,
    start: NamedNode,
    end: NamedNode,
    name: NamedNode,
    alias: NamedNode,
    entity_type: NamedNode,
    mention_of: NamedNode,
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
            c_mention: t(term::MENTION)?,
            c_relation: t(term::RELATION)?,
            c_evidence: t(term::EVIDENCE_SPAN)?,
            path: t(term::PATH)?,
            title: t(term::TITLE)?,
            format: t(term::FORMAT)?,
            in_document: t(term::IN_DOCUMENT)?,
            start: t(term::START)?,
            end: t(term::END)?,
            name: t(term::NAME)?,
            alias: t(term::ALIAS)?,
            entity_type: t(term::ENTITY_TYPE)?,
            mention_of: t(term::MENTION_OF)?,
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
pub(crate) fn entity_of_iri(iri: &str) -> Option<String> {
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
    /// Open (creating when absent) the RDF store in `dir` for writing.
    pub fn open(dir: &Path) -> Result<Self, GraphError> {
        std::fs::create_dir_all(dir).map_err(|e| file_err(dir, &e))?;
        Self::load(dir, true)
    }

    /// Open the RDF store in `dir` read-only.
    pub fn open_read_only(dir: &Path) -> Result<Self, GraphError> {
        Self::load(dir, false)
    }

    fn load(dir: &Path, writable: bool) -> Result<Self, GraphError> {
        Ok(Self {
            store: std::sync::OnceLock::new(),
            dir: dir.to_path_buf(),
            writable,
        })
    }

    /// The document graph files, sorted.
    fn files(&self) -> Result<Vec<PathBuf>, GraphError> {
        if !self.dir.exists() {
            return Ok(Vec::new());
        }
        let mut files: Vec<PathBuf> = std::fs::read_dir(&self.dir)
            .map_err(|e| file_err(&self.dir, &e))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "nq"))
            .collect();
        files.sort();
        Ok(files)
    }

    /// The oxigraph store, loaded from the files on first use.
    fn store(&self) -> Result<&Store, GraphError> {
        if let Some(s) = self.store.get() {
            return Ok(s);
        }
        let store = Store::new()?;
        for f in self.files()? {
            let bytes = std::fs::read(&f).map_err(|e| file_err(&f, &e))?;
            store
                .load_from_slice(RdfFormat::NQuads, &bytes)
                .map_err(|e| GraphError::File {
                    path: f.clone(),
                    message: e.to_string(),
                })?;
        }
        // Another thread may have loaded it meanwhile; either copy is the same.
        let _ = self.store.set(store);
        self.store.get().ok_or_else(|| GraphError::File {
            path: self.dir.clone(),
            message: "the graph store could not be loaded".to_owned(),
        })
    }

    /// The file holding the named graph of document `doc`.
    fn doc_file(&self, doc: &str) -> PathBuf {
        let mut name = String::with_capacity(doc.len() + 3);
        for b in doc.bytes() {
            if b.is_ascii_alphanumeric() || b == b'-' || b == b'_' {
                name.push(char::from(b));
            } else {
                name.push_str(&format!("%{b:02X}"));
            }
        }
        name.push_str(".nq");
        self.dir.join(name)
    }

    /// Write the quads of one document graph to its file, atomically.
    fn persist(&self, doc: &str, quads: &[&Quad]) -> Result<(), GraphError> {
        let path = self.doc_file(doc);
        let tmp = path.with_extension("nq.tmp");
        let mut ser = RdfSerializer::from_format(RdfFormat::NQuads).for_writer(Vec::new());
        for q in quads {
            ser.serialize_quad(*q).map_err(|e| file_err(&path, &e))?;
        }
        let bytes = ser.finish().map_err(|e| file_err(&path, &e))?;
        {
            let mut f = std::fs::File::create(&tmp).map_err(|e| file_err(&tmp, &e))?;
            f.write_all(&bytes).map_err(|e| file_err(&tmp, &e))?;
            f.sync_all().map_err(|e| file_err(&tmp, &e))?;
        }
        std::fs::rename(&tmp, &path).map_err(|e| file_err(&path, &e))
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

    /// Build the quads of one document.
    pub fn quads_of(doc: &DocGraph) -> Result<Vec<Quad>, GraphError> {
        let v = Vocab::new()?;
        let d = nn(format!("{}{}", vocab::DOC, doc.doc))?;
        let g = GraphName::NamedNode(d.clone());
        let mut q = Vec::with_capacity(
            4 + doc.chunks.len() * 4
                + doc.entities.len() * 3
                + doc.mentions.len() * 5
                + doc.relations.len() * 10,
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
        if let Some(about) = &doc.about {
            push(&d, &v.about, nn(entity_iri(about))?.into());
        }
        for c in &doc.chunks {
            let cn = nn(format!("{}{}", vocab::CHUNK, c.id))?;
            push(&cn, &v.rdf_type, v.c_chunk.clone().into());
            push(&cn, &v.in_document, d.clone().into());
            push(&cn, &v.start, int(c.start));
            push(&cn, &v.end, int(c.end));
        }
        for e in &doc.entities {
            let en = nn(entity_iri(&e.key))?;
            push(&en, &v.rdf_type, v.c_entity.clone().into());
            push(&en, &v.name, Literal::from(e.name.as_str()).into());
            push(&en, &v.entity_type, Literal::from(e.kind.as_str()).into());
            for a in &e.aliases {
                push(&en, &v.alias, Literal::from(a.as_str()).into());
            }
        }
        let mut seen: HashSet<(&str, &str)> = HashSet::new();
        for (i, m) in doc.mentions.iter().enumerate() {
            let mn = nn(format!("{}{}:{}", vocab::MENTION, doc.doc, i + 1))?;
            let en = nn(entity_iri(&m.entity))?;
            let cn = nn(format!("{}{}", vocab::CHUNK, m.chunk))?;
            push(&mn, &v.rdf_type, v.c_mention.clone().into());
            push(&mn, &v.mention_of, en.clone().into());
            push(&mn, &v.in_chunk, cn.clone().into());
            push(&mn, &v.start, int(m.start));
            push(&mn, &v.end, int(m.end));
            if seen.insert((m.chunk.as_str(), m.entity.as_str())) {
                push(&cn, &v.mentions, en.into());
            }
        }
        for (i, r) in doc.relations.iter().enumerate() {
            let rn = nn(format!("{}{}:{}", vocab::RELATION, doc.doc, i + 1))?;
            push(&rn, &v.rdf_type, v.c_relation.clone().into());
            push(&rn, &v.subject, nn(entity_iri(&r.subject))?.into());
            push(&rn, &v.object, nn(entity_iri(&r.object))?.into());
            push(&rn, &v.label, Literal::from(r.label.as_str()).into());
            push(&rn, &v.weight, Literal::from(r.weight).into());
            for (k, ev) in r.evidence.iter().enumerate() {
                let evn = nn(format!(
                    "{}{}:{}:{}",
                    vocab::EVIDENCE,
                    doc.doc,
                    i + 1,
                    k + 1
                ))?;
                push(&rn, &v.evidence, evn.clone().into());
                push(&evn, &v.rdf_type, v.c_evidence.clone().into());
                push(
                    &evn,
                    &v.in_chunk,
                    nn(format!("{}{}", vocab::CHUNK, ev.chunk))?.into(),
                );
                push(&evn, &v.start, int(ev.start));
                push(&evn, &v.end, int(ev.end));
            }
        }
        Ok(q)
    }

    /// Load prepared quads with the bulk loader (fast, not atomic: the store's
    /// manifest is the commit point and recovery drops unlisted document graphs).
    pub fn bulk_load(&self, quads: Vec<Quad>, threads: usize) -> Result<(), GraphError> {
        if quads.is_empty() {
            return Ok(());
        }
        self.check_writable()?;
        let mut by_doc: std::collections::BTreeMap<String, Vec<&Quad>> = Default::default();
        for q in &quads {
            let doc = match &q.graph_name {
                GraphName::NamedNode(n) => {
                    n.as_str().strip_prefix(vocab::DOC).unwrap_or(n.as_str())
                }
                _ => "default",
            };
            by_doc.entry(doc.to_owned()).or_default().push(q);
        }
        let loaded = self.store.get();
        for (doc, qs) in &by_doc {
            // Quads already held for this document graph are kept beside the new ones.
            let mut all: Vec<Quad> = Vec::new();
            if let Some(store) = loaded {
                let gref = nn(format!("{}{}", vocab::DOC, doc))?;
                for q in store.quads_for_pattern(
                    None,
                    None,
                    None,
                    Some(GraphNameRef::NamedNode(gref.as_ref())),
                ) {
                    all.push(q?);
                }
            } else {
                let f = self.doc_file(doc);
                if f.exists() {
                    let bytes = std::fs::read(&f).map_err(|e| file_err(&f, &e))?;
                    for q in RdfParser::from_format(RdfFormat::NQuads).for_slice(&bytes) {
                        all.push(q.map_err(|e| GraphError::File {
                            path: f.clone(),
                            message: e.to_string(),
                        })?);
                    }
                }
            }
            if all.is_empty() {
                self.persist(doc, qs)?;
            } else {
                let mut refs: Vec<&Quad> = all.iter().collect();
                refs.extend(qs.iter().copied());
                self.persist(doc, &refs)?;
            }
        }
        // oxigraph itself is only updated when something has loaded it; otherwise
        // the files are the store and the next reader parses them.
        let Some(store) = loaded else {
            return Ok(());
        };
        let mut loader = store
            .bulk_loader()
            .with_num_threads(threads.max(1))
            .with_max_memory_size_in_megabytes(256);
        loader.load_quads(quads)?;
        loader.commit()?;
        Ok(())
    }

    /// Drop the named graphs of the given document ids.
    pub fn remove_docs(&self, docs: &[String]) -> Result<(), GraphError> {
        self.check_writable()?;
        for d in docs {
            let f = self.doc_file(d);
            match std::fs::remove_file(&f) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(file_err(&f, &e)),
            }
        }
        let Some(store) = self.store.get() else {
            return Ok(());
        };
        for chunk in docs.chunks(256) {
            let mut tx = store.start_transaction()?;
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
        if self.store.get().is_none() {
            // One file per document graph, named by its id.
            return Ok(self
                .files()?
                .iter()
                .filter_map(|f| f.file_stem().and_then(|s| s.to_str()))
                .map(percent_decode)
                .collect());
        }
        let mut out = BTreeSet::new();
        for g in self.store()?.named_graphs() {
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
            .store()?
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

    /// Mention spans `(doc, chunk, start, end)` and evidence spans, for invariant checks.
    /// Returns `(mentions, evidence, relations_without_evidence)`.
    pub fn spans(&self) -> Result<SpanReport, GraphError> {
        let v = Vocab::new()?;
        let mut report = SpanReport::default();
        for g in self.store()?.named_graphs() {
            let g = g?;
            let NamedOrBlankNode::NamedNode(gn) = g else {
                continue;
            };
            let doc = gn
                .as_str()
                .strip_prefix(vocab::DOC)
                .unwrap_or_default()
                .to_string();
            let gref = GraphNameRef::NamedNode(gn.as_ref());
            let mut chunk_of = std::collections::HashMap::new();
            let mut starts = std::collections::HashMap::new();
            let mut ends = std::collections::HashMap::new();
            let mut has_ev: HashSet<String> = HashSet::new();
            let mut relations: HashSet<String> = HashSet::new();
            for q in self
                .store()?
                .quads_for_pattern(None, None, None, Some(gref))
            {
                let q = q?;
                let NamedOrBlankNode::NamedNode(s) = &q.subject else {
                    continue;
                };
                let s = s.as_str().to_string();
                if q.predicate == v.in_chunk {
                    if let Term::NamedNode(o) = &q.object {
                        chunk_of.insert(
                            s,
                            o.as_str()
                                .strip_prefix(vocab::CHUNK)
                                .unwrap_or_default()
                                .to_string(),
                        );
                    }
                } else if q.predicate == v.start {
                    starts.insert(s, lit_u64(&q.object));
                } else if q.predicate == v.end {
                    ends.insert(s, lit_u64(&q.object));
                } else if q.predicate == v.evidence {
                    has_ev.insert(s);
                } else if q.predicate == v.rdf_type
                    && q.object == Term::NamedNode(v.c_relation.clone())
                {
                    relations.insert(s);
                }
            }
            for (node, chunk) in chunk_of {
                let span = SpanCheck {
                    doc: doc.clone(),
                    node: node.clone(),
                    chunk,
                    start: starts.get(&node).copied().flatten(),
                    end: ends.get(&node).copied().flatten(),
                };
                report.spans.push(span);
            }
            report.relations += relations.len();
            for r in relations {
                if !has_ev.contains(&r) {
                    report.relations_without_evidence.push(r);
                }
            }
        }
        Ok(report)
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
        match prepared
            .on_store(self.store()?)
            .execute()
            .map_err(map_err)?
        {
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
        for q in self.store()?.iter() {
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
        if let Some(s) = self.store.get() {
            return Ok(s.len()?);
        }
        // One quad per N-Quads line; no need to load oxigraph to count them.
        let mut n = 0;
        for f in self.files()? {
            let bytes = std::fs::read(&f).map_err(|e| file_err(&f, &e))?;
            n += bytes
                .split(|b| *b == b'\n')
                .filter(|l| l.iter().any(|b| !b.is_ascii_whitespace()))
                .count();
        }
        Ok(n)
    }

    /// True when the store holds no quads.
    pub fn is_empty(&self) -> Result<bool, GraphError> {
        Ok(self.len()? == 0)
    }

    /// Flush to disk (a no-op: every document graph is written when loaded).
    pub fn flush(&self) -> Result<(), GraphError> {
        Ok(())
    }

    /// Build the in-memory petgraph view of the whole graph: from oxigraph when it
    /// is loaded, else straight from the document files (without loading oxigraph).
    pub fn load_view(&self) -> Result<GraphView, GraphError> {
        let mut acc = ViewAcc::new()?;
        if let Some(store) = self.store.get() {
            for q in store.iter() {
                acc.add(q?);
            }
        } else {
            for f in self.files()? {
                let bytes = std::fs::read(&f).map_err(|e| file_err(&f, &e))?;
                for q in RdfParser::from_format(RdfFormat::NQuads).for_slice(&bytes) {
                    acc.add(q.map_err(|e| GraphError::File {
                        path: f.clone(),
                        message: e.to_string(),
                    })?);
                }
            }
        }
        Ok(acc.finish())
    }
}

/// Collects the view in one pass over the quads, whatever their order.
struct ViewAcc {
    v: Vocab,
    b: crate::view::ViewBuilder,
    rels: std::collections::HashMap<String, crate::view::RawRelation>,
    ev_chunk: std::collections::HashMap<String, String>,
    rel_evidence: Vec<(String, String)>,
    about: std::collections::HashMap<String, String>,
    chunk_doc: Vec<(String, String)>,
    quads: u64,
}

impl ViewAcc {
    fn new() -> Result<Self, GraphError> {
        Ok(Self {
            v: Vocab::new()?,
            b: crate::view::ViewBuilder::default(),
            rels: Default::default(),
            ev_chunk: Default::default(),
            rel_evidence: Vec::new(),
            about: Default::default(),
            chunk_doc: Vec::new(),
            quads: 0,
        })
    }

    fn add(&mut self, q: Quad) {
        self.quads += 1;
        let v = &self.v;
        let subject = match &q.subject {
            NamedOrBlankNode::NamedNode(n) => n.as_str().to_string(),
            NamedOrBlankNode::BlankNode(n) => n.as_str().to_string(),
        };
        let p = &q.predicate;
        if *p == v.name || *p == v.entity_type || *p == v.alias {
            if let (Some(e), Term::Literal(l)) = (subject_entity(&q), &q.object) {
                if *p == v.name {
                    self.b.name(&e, l.value());
                } else if *p == v.entity_type {
                    self.b.kind(&e, l.value());
                } else {
                    self.b.alias(&e, l.value());
                }
            }
        } else if *p == v.mention_of {
            if let Term::NamedNode(o) = &q.object
                && let Some(e) = entity_of_iri(o.as_str())
            {
                self.b.mention(&e);
            }
        } else if *p == v.mentions {
            if let Term::NamedNode(o) = &q.object
                && let (Some(c), Some(e)) = (
                    subject.strip_prefix(vocab::CHUNK),
                    entity_of_iri(o.as_str()),
                )
            {
                self.b.chunk_mention(c, &e);
            }
        } else if *p == v.subject || *p == v.object {
            if let Term::NamedNode(o) = &q.object {
                let r = self.rels.entry(subject).or_default();
                if *p == v.subject {
                    r.subject = entity_of_iri(o.as_str());
                } else {
                    r.object = entity_of_iri(o.as_str());
                }
            }
        } else if *p == v.label {
            if let Term::Literal(l) = &q.object {
                self.rels.entry(subject).or_default().label = l.value().to_string();
            }
        } else if *p == v.weight {
            if let Term::Literal(l) = &q.object {
                self.rels.entry(subject).or_default().weight = l.value().parse().unwrap_or(1.0);
            }
        } else if *p == v.in_chunk {
            if subject.starts_with(vocab::EVIDENCE)
                && let Term::NamedNode(o) = &q.object
                && let Some(c) = o.as_str().strip_prefix(vocab::CHUNK)
            {
                self.ev_chunk.insert(subject, c.to_string());
            }
        } else if *p == v.evidence {
            if let Term::NamedNode(o) = &q.object {
                self.rel_evidence.push((subject, o.as_str().to_string()));
            }
        } else if *p == v.about {
            if let Term::NamedNode(o) = &q.object
                && let (Some(d), Some(e)) =
                    (subject.strip_prefix(vocab::DOC), entity_of_iri(o.as_str()))
            {
                self.about.insert(d.to_string(), e);
            }
        } else if *p == v.in_document
            && let Term::NamedNode(o) = &q.object
            && let (Some(c), Some(d)) = (
                subject.strip_prefix(vocab::CHUNK),
                o.as_str().strip_prefix(vocab::DOC),
            )
        {
            self.chunk_doc.push((c.to_string(), d.to_string()));
        }
    }

    fn finish(mut self) -> GraphView {
        for (rel, ev) in std::mem::take(&mut self.rel_evidence) {
            if let Some(c) = self.ev_chunk.get(&ev) {
                self.rels.entry(rel).or_default().evidence.push(c.clone());
            }
        }
        // Title entities: every chunk of a document is about the entity its title names.
        for (c, d) in &self.chunk_doc {
            if let Some(e) = self.about.get(d) {
                self.b.chunk_about(c, e);
            }
        }
        for (_, r) in self.rels {
            self.b.relation(r);
        }
        let mut view = self.b.build();
        view.quads = self.quads;
        view
    }
}

fn subject_entity(q: &Quad) -> Option<String> {
    match &q.subject {
        NamedOrBlankNode::NamedNode(n) => entity_of_iri(n.as_str()),
        NamedOrBlankNode::BlankNode(_) => None,
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
    /// Every mention and evidence span.
    pub spans: Vec<SpanCheck>,
    /// Number of relations.
    pub relations: usize,
    /// Relations without any evidence span.
    pub relations_without_evidence: Vec<String>,
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
    use super::*;
    use crate::view::entity_key;

    #[test]
    fn entity_iri_round_trips() {
        for k in ["barack_obama", "zürich", "a/b c", "100%"] {
            assert_eq!(entity_of_iri(&entity_iri(k)).as_deref(), Some(k));
        }
        assert_eq!(entity_key("Barack Obama"), "barack_obama");
    }
}
