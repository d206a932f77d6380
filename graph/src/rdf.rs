//! The RDF form of the records: the shape (written once, in [`shape`]), the
//! quads it makes, and [`RdfGraph`], an in-memory oxigraph store filled from
//! committed records for SPARQL, export and the invariant checks.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::io::Write;
use std::time::Duration;

use oxigraph::io::{RdfFormat, RdfSerializer};
use oxigraph::model::{
    GraphName, GraphNameRef, Literal, NamedNode, NamedOrBlankNode, NamedOrBlankNodeRef, Quad, Term,
};
use oxigraph::sparql::{CancellationToken, QueryResults, SparqlEvaluator};
use oxigraph::store::Store;
use rustc_hash::FxHashSet;
use serde::Serialize;

use rlmkg_ids::{ChunkId, DocId};

use crate::error::GraphError;
use crate::model::DocGraph;
use crate::vocab::{self, term};

/// A node of one document's named graph, before it becomes an IRI.
#[derive(Debug, Clone, Copy)]
enum Node<'a> {
    Doc,
    Chunk(ChunkId),
    Entity(&'a str),
    /// The n-th relation of the document (1-based).
    Relation(usize),
    /// The evidence span start–end of the document.
    Evidence(u64, u64),
}

/// An object: a node, a class, or a literal.
#[derive(Debug, Clone, Copy)]
enum Obj<'a> {
    Node(Node<'a>),
    Class(&'static str),
    Str(&'a str),
    Int(u64),
    Float(f64),
}

/// A predicate: `rdf:type` or a term of our vocabulary.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Pred {
    Type,
    Term(&'static str),
}

/// What [`shape`] emits facts into.
trait Sink<'a> {
    fn fact(&mut self, s: Node<'a>, p: Pred, o: Obj<'a>);
}

/// The RDF shape of one document (described in [`crate::vocab`]): every fact of
/// its named graph, in order. The one place that decides what the RDF holds.
fn shape<'a>(doc: &'a DocGraph, out: &mut impl Sink<'a>) {
    use Node::*;
    let t = Pred::Term;
    out.fact(Doc, Pred::Type, Obj::Class(term::DOCUMENT));
    out.fact(Doc, t(term::PATH), Obj::Str(&doc.path));
    out.fact(Doc, t(term::TITLE), Obj::Str(&doc.title));
    out.fact(Doc, t(term::FORMAT), Obj::Str(&doc.format));
    if let Some(about) = &doc.about {
        out.fact(Doc, t(term::ABOUT), Obj::Node(Entity(about)));
    }
    for c in &doc.chunks {
        out.fact(Chunk(c.id), Pred::Type, Obj::Class(term::CHUNK));
        out.fact(Chunk(c.id), t(term::IN_DOCUMENT), Obj::Node(Doc));
        out.fact(Chunk(c.id), t(term::START), Obj::Int(c.start));
        out.fact(Chunk(c.id), t(term::END), Obj::Int(c.end));
    }
    for e in &doc.entities {
        let en = Entity(&e.key);
        out.fact(en, Pred::Type, Obj::Class(term::ENTITY));
        out.fact(en, t(term::NAME), Obj::Str(&e.name));
        out.fact(en, t(term::ENTITY_TYPE), Obj::Str(&e.kind));
        for a in &e.aliases {
            out.fact(en, t(term::ALIAS), Obj::Str(a));
        }
    }
    // One `rk:mentions` fact per (chunk, entity); the mentions' exact spans
    // stay in the document's record.
    let mut seen: FxHashSet<(ChunkId, &str)> = FxHashSet::default();
    for m in &doc.mentions {
        if seen.insert((m.chunk, m.entity.as_str())) {
            out.fact(
                Chunk(m.chunk),
                t(term::MENTIONS),
                Obj::Node(Entity(&m.entity)),
            );
        }
    }
    let mut evidence_seen: FxHashSet<(u64, u64)> = FxHashSet::default();
    for (i, r) in doc.relations.iter().enumerate() {
        let rn = Relation(i + 1);
        // A fact is also a plain triple: `<subject> rk:bornIn <object>`, an
        // `other` fact `rk:other` with its phrase on the relation node.
        match crate::predicate::label_kind(&r.label) {
            crate::predicate::LabelKind::CoOccurs => {}
            crate::predicate::LabelKind::Fact(p) => {
                out.fact(
                    Entity(&r.subject),
                    t(p.rdf_name()),
                    Obj::Node(Entity(&r.object)),
                );
            }
            crate::predicate::LabelKind::Other(_) => {
                out.fact(
                    Entity(&r.subject),
                    t(crate::predicate::OTHER_RDF),
                    Obj::Node(Entity(&r.object)),
                );
            }
        }
        out.fact(rn, t(term::SUBJECT), Obj::Node(Entity(&r.subject)));
        out.fact(rn, t(term::OBJECT), Obj::Node(Entity(&r.object)));
        out.fact(rn, t(term::LABEL), Obj::Str(&r.label));
        out.fact(rn, t(term::WEIGHT), Obj::Float(r.weight));
        for ev in &r.evidence {
            // One node per evidence span, shared by every relation it supports
            // (a sentence naming several entities supports several pairs).
            let evn = Evidence(ev.start, ev.end);
            out.fact(rn, t(term::EVIDENCE), Obj::Node(evn));
            if evidence_seen.insert((ev.start, ev.end)) {
                out.fact(evn, t(term::IN_CHUNK), Obj::Node(Chunk(ev.chunk)));
                out.fact(evn, t(term::START), Obj::Int(ev.start));
                out.fact(evn, t(term::END), Obj::Int(ev.end));
            }
        }
    }
}

/// Counts facts.
struct Count(usize);

impl<'a> Sink<'a> for Count {
    fn fact(&mut self, _: Node<'a>, _: Pred, _: Obj<'a>) {
        self.0 += 1;
    }
}

/// Number of quads of a document's named graph (without building them).
pub fn quad_count(doc: &DocGraph) -> usize {
    let mut c = Count(0);
    shape(doc, &mut c);
    c.0
}

fn nn(iri: String) -> Result<NamedNode, GraphError> {
    NamedNode::new(iri).map_err(|e| GraphError::Iri(e.to_string()))
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

fn int(v: u64) -> Term {
    Literal::from(i64::try_from(v).unwrap_or(i64::MAX)).into()
}

/// Documents whose quads [`RdfGraph::from_records`] builds at a time.
const DOCS_PER_SLICE: usize = 16;

/// Slices built ahead of the loader at most.
const SLICES_AHEAD: usize = 4;

/// Builds oxigraph quads; the first bad IRI is kept as the error.
struct Quads<'a> {
    doc: &'a DocGraph,
    graph: GraphName,
    doc_node: NamedNode,
    preds: HashMap<Pred, NamedNode>,
    classes: HashMap<&'static str, NamedNode>,
    entities: HashMap<&'a str, NamedNode>,
    chunks: HashMap<ChunkId, NamedNode>,
    out: Vec<Quad>,
    error: Option<GraphError>,
}

impl<'a> Quads<'a> {
    fn new(doc: &'a DocGraph) -> Result<Self, GraphError> {
        let doc_node = nn(format!("{}{}", vocab::DOC, doc.doc))?;
        Ok(Self {
            doc,
            graph: GraphName::NamedNode(doc_node.clone()),
            doc_node,
            preds: HashMap::new(),
            classes: HashMap::new(),
            entities: HashMap::new(),
            chunks: HashMap::new(),
            out: Vec::with_capacity(quad_count(doc)),
            error: None,
        })
    }

    /// A node of the document's own (document, chunk, relation, evidence):
    /// its IRI is a namespace and numbered ids (`d12`, `c345`, `12-40`),
    /// which need no validation.
    fn own(iri: String) -> NamedNode {
        NamedNode::new_unchecked(iri)
    }

    fn node(&mut self, n: Node<'a>) -> Result<NamedNode, GraphError> {
        Ok(match n {
            Node::Doc => self.doc_node.clone(),
            Node::Chunk(id) => {
                if let Some(c) = self.chunks.get(&id) {
                    return Ok(c.clone());
                }
                let c = Self::own(format!("{}{id}", vocab::CHUNK));
                self.chunks.insert(id, c.clone());
                c
            }
            // Entity IRIs are validated once per document and reused.
            Node::Entity(key) => {
                if let Some(e) = self.entities.get(key) {
                    return Ok(e.clone());
                }
                let e = nn(entity_iri(key))?;
                self.entities.insert(key, e.clone());
                e
            }
            Node::Relation(i) => Self::own(format!("{}{}:{i}", vocab::RELATION, self.doc.doc)),
            Node::Evidence(s, e) => {
                Self::own(format!("{}{}:{s}-{e}", vocab::EVIDENCE, self.doc.doc))
            }
        })
    }

    fn pred(&mut self, p: Pred) -> Result<NamedNode, GraphError> {
        if let Some(n) = self.preds.get(&p) {
            return Ok(n.clone());
        }
        let n = match p {
            Pred::Type => nn(vocab::RDF_TYPE.to_string())?,
            Pred::Term(l) => nn(vocab::ns(l))?,
        };
        self.preds.insert(p, n.clone());
        Ok(n)
    }

    fn quad(&mut self, s: Node<'a>, p: Pred, o: Obj<'a>) -> Result<Quad, GraphError> {
        let s = self.node(s)?;
        let p = self.pred(p)?;
        let o: Term = match o {
            Obj::Node(n) => self.node(n)?.into(),
            Obj::Class(c) => {
                if let Some(n) = self.classes.get(c) {
                    n.clone().into()
                } else {
                    let n = nn(vocab::ns(c))?;
                    self.classes.insert(c, n.clone());
                    n.into()
                }
            }
            Obj::Str(v) => Literal::from(v).into(),
            Obj::Int(v) => int(v),
            Obj::Float(v) => Literal::from(v).into(),
        };
        Ok(Quad::new(
            NamedOrBlankNode::NamedNode(s),
            p,
            o,
            self.graph.clone(),
        ))
    }
}

impl<'a> Sink<'a> for Quads<'a> {
    fn fact(&mut self, s: Node<'a>, p: Pred, o: Obj<'a>) {
        if self.error.is_some() {
            return;
        }
        match self.quad(s, p, o) {
            Ok(q) => self.out.push(q),
            Err(e) => self.error = Some(e),
        }
    }
}

/// The quads of one document's named graph (the shape is described in
/// [`crate::vocab`]).
pub fn quads_of(doc: &DocGraph) -> Result<Vec<Quad>, GraphError> {
    let mut q = Quads::new(doc)?;
    shape(doc, &mut q);
    match q.error {
        Some(e) => Err(e),
        None => Ok(q.out),
    }
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

/// A span-bearing node (mention or evidence) as found in the graph.
#[derive(Debug, Clone, Serialize)]
pub struct SpanCheck {
    /// Document id.
    pub doc: String,
    /// IRI of the evidence node, or a description of the mention.
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

/// Something other than the in-memory RDF that answers SPARQL over the same
/// graph: a SPARQL 1.1 endpoint the store's RDF was exported to. A store
/// given one sends its queries there instead of building the RDF.
pub trait SparqlRemote: Send + Sync + std::fmt::Debug {
    /// Run a read-only query with a time limit, results in the shape the
    /// in-memory engine gives ([`RdfGraph::sparql`]).
    fn sparql(&self, query: &str, timeout: Duration) -> Result<SparqlOutput, GraphError>;
}

/// The check every SPARQL query passes before it runs, here or on a remote:
/// it parses as a SPARQL 1.1 query ([`GraphError::UpdateRejected`] for an
/// update, [`GraphError::Syntax`] otherwise).
pub fn check_read_only(query: &str) -> Result<(), GraphError> {
    match SparqlEvaluator::new().parse_query(query) {
        Ok(_) => Ok(()),
        Err(e) => {
            if SparqlEvaluator::new().parse_update(query).is_ok() {
                return Err(GraphError::UpdateRejected);
            }
            Err(GraphError::Syntax(e.to_string()))
        }
    }
}

/// The RDF of a set of committed records, in oxigraph's in-memory store.
pub struct RdfGraph {
    store: Store,
}

impl std::fmt::Debug for RdfGraph {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RdfGraph").finish_non_exhaustive()
    }
}

impl RdfGraph {
    /// The RDF of `docs` (one named graph each).
    pub fn from_records(docs: &[DocGraph]) -> Result<Self, GraphError> {
        let store = Store::new()?;
        // A thread of its own builds the quads, a few documents at a time,
        // while this one loads them: building and indexing overlap, and
        // memory stays bounded by the slices in flight, not the corpus.
        let (tx, rx) = std::sync::mpsc::sync_channel::<Result<Vec<Quad>, GraphError>>(SLICES_AHEAD);
        std::thread::scope(|scope| {
            scope.spawn(move || {
                for slice in docs.chunks(DOCS_PER_SLICE) {
                    let quads = slice.iter().try_fold(Vec::new(), |mut all, d| {
                        all.extend(quads_of(d)?);
                        Ok(all)
                    });
                    let failed = quads.is_err();
                    if tx.send(quads).is_err() || failed {
                        break;
                    }
                }
            });
            let mut failure = None;
            let quads = rx.iter().map_while(|r| match r {
                Ok(q) => Some(q),
                Err(e) => {
                    failure = Some(e);
                    None
                }
            });
            let mut loader = store.bulk_loader();
            loader.load_quads(quads.flatten())?;
            if let Some(e) = failure {
                return Err(e);
            }
            loader.commit()?;
            Ok(Self { store })
        })
    }

    /// Run a read-only SPARQL query with a time limit.
    pub fn sparql(&self, query: &str, timeout: Duration) -> Result<SparqlOutput, GraphError> {
        let token = CancellationToken::new();
        let mut prepared = match SparqlEvaluator::new()
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
        // The default graph is the union of the documents' named graphs (a
        // query naming its own dataset with FROM keeps it).
        if prepared.dataset().is_default_dataset() {
            prepared.dataset_mut().set_default_graph_as_union();
        }
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

    /// True when the graph holds no quads.
    pub fn is_empty(&self) -> Result<bool, GraphError> {
        Ok(self.store.is_empty()?)
    }

    /// The document ids that have a named graph.
    pub fn doc_ids(&self) -> Result<BTreeSet<DocId>, GraphError> {
        let mut out = BTreeSet::new();
        for g in self.store.named_graphs() {
            if let NamedOrBlankNode::NamedNode(n) = g?
                && let Some(Ok(id)) = n.as_str().strip_prefix(vocab::DOC).map(str::parse)
            {
                out.insert(id);
            }
        }
        Ok(out)
    }

    /// The chunk ids that the graph holds (with their document ids).
    pub fn chunk_ids(&self) -> Result<Vec<(String, String)>, GraphError> {
        let in_document = nn(vocab::ns(term::IN_DOCUMENT))?;
        let mut out = Vec::new();
        for q in self
            .store
            .quads_for_pattern(None, Some(in_document.as_ref()), None, None)
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

    /// Mention spans (from `records`) and evidence spans (from the RDF),
    /// relations without evidence, and documents whose record and named graph
    /// disagree on which chunks mention which entities, or that have one
    /// without the other: for invariant checks.
    pub fn spans(&self, records: &[DocGraph]) -> Result<SpanReport, GraphError> {
        let mut report = SpanReport::default();
        let mut checked: HashSet<String> = HashSet::new();
        for record in records {
            let doc = record.doc.to_string();
            if !checked.contains(&doc) {
                self.check_doc(&doc, Some(record), &mut report)?;
                checked.insert(doc);
            }
        }
        for g in self.store.named_graphs() {
            if let NamedOrBlankNode::NamedNode(gn) = g?
                && let Some(doc) = gn.as_str().strip_prefix(vocab::DOC)
                && !checked.contains(doc)
            {
                self.check_doc(doc, None, &mut report)?;
            }
        }
        Ok(report)
    }

    /// Check one document's named graph (and its record, when it has one).
    fn check_doc(
        &self,
        doc: &str,
        record: Option<&DocGraph>,
        report: &mut SpanReport,
    ) -> Result<(), GraphError> {
        let p = |l: &str| nn(vocab::ns(l));
        let (in_chunk, start, end) = (p(term::IN_CHUNK)?, p(term::START)?, p(term::END)?);
        let (evidence, subject, mentions_p) =
            (p(term::EVIDENCE)?, p(term::SUBJECT)?, p(term::MENTIONS)?);
        let rdf_type = nn(vocab::RDF_TYPE.to_string())?;
        let gn = nn(format!("{}{doc}", vocab::DOC))?;
        let gref = GraphNameRef::NamedNode(gn.as_ref());
        let mut chunk_of = HashMap::new();
        let mut starts = HashMap::new();
        let mut ends = HashMap::new();
        let mut has_ev: HashSet<String> = HashSet::new();
        let mut relations: HashSet<String> = HashSet::new();
        let mut mentions: BTreeSet<(String, String)> = BTreeSet::new();
        for pred in [&in_chunk, &start, &end, &evidence, &subject, &mentions_p] {
            for q in self
                .store
                .quads_for_pattern(None, Some(pred.as_ref()), None, Some(gref))
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
                if q.predicate == in_chunk {
                    if let Some(o) = object_iri {
                        let c = o.strip_prefix(vocab::CHUNK).unwrap_or_default();
                        chunk_of.insert(s, c.to_string());
                    }
                } else if q.predicate == start {
                    starts.insert(s, lit_u64(&q.object));
                } else if q.predicate == end {
                    ends.insert(s, lit_u64(&q.object));
                } else if q.predicate == evidence {
                    has_ev.insert(s);
                } else if q.predicate == subject {
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
                Some(rdf_type.as_ref()),
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
                chunk: m.chunk.to_string(),
                start: Some(m.start),
                end: Some(m.end),
            });
            from_record.insert((m.chunk.to_string(), entity_iri(&m.entity)));
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
}

fn lit_u64(t: &Term) -> Option<u64> {
    match t {
        Term::Literal(l) => l.value().parse().ok(),
        _ => None,
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::model::{ChunkSpan, EntityDecl, EvidenceSpan, MentionDecl, RelationDecl};
    use crate::view::entity_key;

    /// Decode `%XX` escapes (invalid escapes stay as they are).
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

    /// Entity key of an entity IRI.
    fn entity_of_iri(iri: &str) -> Option<String> {
        let rest = iri.strip_prefix(vocab::ENTITY)?;
        Some(percent_decode(rest))
    }

    #[test]
    fn entity_iri_round_trips() {
        for k in ["barack_obama", "zürich", "a/b c", "100%"] {
            assert_eq!(entity_of_iri(&entity_iri(k)).as_deref(), Some(k));
        }
        assert_eq!(entity_key("Barack Obama"), "barack_obama");
    }

    /// Document `d<n>` with one chunk `c<n>` naming `entity`, related to two places.
    pub(crate) fn doc(n: u64, entity: &str) -> DocGraph {
        let (id, chunk) = (rlmkg_ids::DocId(n), ChunkId(n));
        let relation = |object: &str| RelationDecl {
            subject: entity.to_string(),
            object: object.into(),
            label: "co-occurs".into(),
            weight: 1.0,
            evidence: vec![EvidenceSpan {
                chunk,
                start: 0,
                end: 20,
            }],
        };
        DocGraph {
            doc: id,
            path: format!("/{id}.txt"),
            title: id.to_string(),
            format: "txt".into(),
            chunks: vec![ChunkSpan {
                id: chunk,
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
                chunk,
                start: 0,
                end: 5,
            }],
            relations: vec![relation("oslo"), relation("bergen")],
            about: None,
        }
    }

    #[test]
    fn quad_count_matches_the_quads() {
        let d = doc(1, "ada");
        assert_eq!(quad_count(&d), quads_of(&d).unwrap().len());
    }

    #[test]
    fn rdf_of_records_checks_spans_and_answers_sparql() {
        let docs = [doc(1, "ada"), doc(2, "bob")];
        let rdf = RdfGraph::from_records(&docs).unwrap();
        assert_eq!(rdf.doc_ids().unwrap(), BTreeSet::from([DocId(1), DocId(2)]));
        assert_eq!(rdf.len().unwrap(), 2 * quad_count(&docs[0]));
        // Two relations from one sentence share one evidence node.
        let report = rdf.spans(&docs[..1]).unwrap();
        assert_eq!(report.relations, 4);
        assert!(report.relations_without_evidence.is_empty());
        assert_eq!(
            report
                .spans
                .iter()
                .filter(|s| s.node.starts_with(vocab::EVIDENCE))
                .count(),
            2
        );
        // d2 has a named graph but no record in what was passed.
        assert_eq!(report.mention_mismatch, vec!["d2: no record".to_string()]);
        let out = rdf
            .sparql(
                "ASK { GRAPH ?g { ?c <https://rlmkg.invalid/ns#mentions> ?e } }",
                Duration::from_secs(5),
            )
            .unwrap();
        assert_eq!(out, SparqlOutput::Ask { value: true });
        assert!(matches!(
            rdf.sparql("DELETE WHERE { ?s ?p ?o }", Duration::from_secs(5)),
            Err(GraphError::UpdateRejected)
        ));
    }
}
