//! The in-memory petgraph view: entities, chunks, relation and mention edges,
//! and the algorithms over them.

use std::borrow::Borrow;
use std::collections::{BTreeSet, HashMap, HashSet, VecDeque};
use std::hash::Hash;

use rustc_hash::FxHashMap;

use petgraph::graph::{EdgeIndex, NodeIndex, UnGraph};
use petgraph::visit::EdgeRef;
use rlmkg_ids::{ChunkId, DocId};
use serde::{Deserialize, Serialize};

pub use rlmkg_corpus::{EntityInfo, GraphPath, Neighbor, PathStep};
use unicode_normalization::UnicodeNormalization;

mod cards;

pub use cards::EntityCards;
pub(crate) use cards::write_file;

/// The canonical key of an entity name: lowercase, diacritics and possessives
/// removed, a leading "the" dropped, punctuation dropped, words joined by `_`.
/// It is also the entity id.
pub fn entity_key(name: &str) -> String {
    if name.is_ascii() {
        return ascii_entity_key(name);
    }
    unicode_entity_key(name)
}

/// [`entity_key`] of an ASCII name in one pass and one allocation (ingest
/// computes a key per candidate mention): NFKD and combining marks are no-ops
/// on ASCII, so only the lowercasing, splitting and filtering remain.
fn ascii_entity_key(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut words = 0usize;
    let mut first_is_the = false;
    let split = |c: char| {
        matches!(
            c,
            '\t' | '\n' | '\x0b' | '\x0c' | '\r' | ' ' | '-' | '/' | '_'
        )
    };
    for raw in name.split(split) {
        let b = raw.as_bytes();
        // A possessive `'s` (or `` `s ``), any case, is dropped.
        let w = match b {
            [rest @ .., b'\'' | b'`', b's' | b'S'] => rest,
            _ => b,
        };
        let before = out.len();
        let sep = words > 0;
        if sep {
            out.push('_');
        }
        let mut any = false;
        for &c in w {
            if c.is_ascii_alphanumeric() || c == b'&' {
                out.push(char::from(c.to_ascii_lowercase()));
                any = true;
            }
        }
        if !any {
            out.truncate(before);
            continue;
        }
        words += 1;
        if words == 1 {
            first_is_the = &out[..] == "the";
        }
    }
    if words > 1 && first_is_the {
        out.drain(..4);
    }
    out
}

/// [`entity_key`] of any name.
fn unicode_entity_key(name: &str) -> String {
    let folded: String = name
        .nfkd()
        .filter(|c| !unicode_normalization::char::is_combining_mark(*c))
        .collect::<String>()
        .to_lowercase();
    let folded = folded.replace(['\u{2019}', '`'], "'");
    let mut words: Vec<String> = Vec::new();
    for raw in folded.split(|c: char| c.is_whitespace() || c == '-' || c == '/' || c == '_') {
        let w = raw.strip_suffix("'s").unwrap_or(raw);
        let w: String = w
            .chars()
            .filter(|c| c.is_alphanumeric() || *c == '&')
            .collect();
        if !w.is_empty() {
            words.push(w);
        }
    }
    if words.len() > 1 && words[0] == "the" {
        words.remove(0);
    }
    words.join("_")
}

/// A chunk–entity edge (mention count in the chunk).
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq)]
pub struct MentionEdge {
    /// Mentions of the entity in the chunk.
    pub weight: f64,
}

/// Weight of the edge between a chunk and its document's title entity, in mentions
/// (tuned on the HotpotQA and MuSiQue dev sets: 0 → 2 → 5 raised recall@5).
const ABOUT_WEIGHT: f64 = 5.0;
/// PPR restart probability (0.2, 0.3, 0.5, 0.7 tried; 0.3 best on both dev sets).
const RESTART: f64 = 0.3;
/// Share of the restart mass on question entities when chunk seeds exist too.
const ENTITY_SHARE: f64 = 0.7;

/// (total weight, evidence chunk slots, subject) of an aggregated relation.
type RelationAgg = (f64, Vec<u32>, usize);
/// Steps walked back from a target: (from, to, edge).
/// One end of a two-sided breadth-first search ([`GraphView::paths`]).
struct Side {
    /// Steps from this end, of every node reached.
    dist: HashMap<usize, usize>,
    /// The nodes reached at the last level.
    frontier: Vec<usize>,
    /// Levels expanded.
    level: usize,
}

impl Side {
    fn new(start: usize) -> Self {
        Self {
            dist: HashMap::from([(start, 0)]),
            frontier: vec![start],
            level: 0,
        }
    }

    /// Expand one level; the length of the shortest paths when this side
    /// meets `other`.
    fn expand(&mut self, view: &GraphView, other: &Side, walk: Walk) -> Option<usize> {
        self.level += 1;
        let mut next = Vec::new();
        let mut met: Option<usize> = None;
        for &u in &self.frontier {
            for (v, _) in view.path_steps(u, walk) {
                if self.dist.contains_key(&v) {
                    continue;
                }
                self.dist.insert(v, self.level);
                next.push(v);
                if let Some(&o) = other.dist.get(&v) {
                    let l = self.level + o;
                    met = Some(met.map_or(l, |m| m.min(l)));
                }
            }
        }
        self.frontier = next;
        met
    }
}

type PathSoFar<'a> = Vec<(usize, usize, &'a Edge)>;

/// Which steps a path may take: facts only or any relation, never into a
/// date other than the path's ends (`ends`).
#[derive(Debug, Clone, Copy)]
struct Walk {
    facts_only: bool,
    ends: (usize, usize),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
enum Node {
    Entity(u32),
    Chunk(u32),
}

#[derive(Debug, Clone, Serialize, Deserialize)]
enum Edge {
    Relation {
        label: u32,
        weight: f64,
        evidence: Vec<u32>,
        subject: u32,
    },
    Mention(MentionEdge),
}

impl Edge {
    fn weight(&self) -> f64 {
        match self {
            Edge::Relation { weight, .. } => *weight,
            Edge::Mention(m) => m.weight,
        }
    }
}

/// A relation as read from a record, before aggregation (slots of the
/// builder's interned keys, labels and chunk ids).
#[derive(Debug, Clone)]
struct RawRelation {
    subject: u32,
    object: u32,
    label: u32,
    weight: f64,
    evidence: Vec<u32>,
}

#[derive(Default)]
struct EntityAcc {
    /// Whether a record declares or mentions the entity (a key seen only as
    /// a relation end or a document's subject is not an entity by itself).
    real: bool,
    names: FxHashMap<String, u32>,
    kinds: FxHashMap<String, u32>,
    /// Kinds given by the documents about the entity (see [`ViewBuilder::add_doc`]).
    own_kinds: FxHashMap<String, u32>,
    aliases: BTreeSet<String>,
    mentions: u64,
}

/// Keys (entity keys, chunk ids, labels) numbered in the order first seen.
struct Interner<K> {
    names: Vec<K>,
    slots: FxHashMap<K, u32>,
}

impl<K> Default for Interner<K> {
    fn default() -> Self {
        Self {
            names: Vec::new(),
            slots: FxHashMap::default(),
        }
    }
}

impl<K: Hash + Eq + Ord + Clone> Interner<K> {
    fn slot<Q>(&mut self, s: &Q) -> u32
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ToOwned<Owned = K> + ?Sized,
    {
        if let Some(&i) = self.slots.get(s) {
            return i;
        }
        let i = self.names.len() as u32;
        let key = s.to_owned();
        self.names.push(key.clone());
        self.slots.insert(key, i);
        i
    }

    fn get(&self, slot: u32) -> Option<&K> {
        self.names.get(slot as usize)
    }

    /// Each slot's place in key order.
    fn ranks(&self) -> Vec<u32> {
        let mut order: Vec<u32> = (0..self.names.len() as u32).collect();
        order.sort_unstable_by(|&a, &b| self.get(a).cmp(&self.get(b)));
        let mut ranks = vec![0u32; order.len()];
        for (r, slot) in order.into_iter().enumerate() {
            ranks[slot as usize] = r as u32;
        }
        ranks
    }
}

impl Interner<String> {
    fn name(&self, slot: u32) -> &str {
        self.get(slot).map_or("", String::as_str)
    }
}

/// Collects the view from documents' records, one at a time.
#[derive(Default)]
pub struct ViewBuilder {
    keys: Interner<String>,
    accs: Vec<EntityAcc>,
    chunks: Interner<ChunkId>,
    labels: Interner<String>,
    /// Mentions per (chunk, entity), counted once per document.
    chunk_mentions: FxHashMap<(u32, u32), u32>,
    /// (chunk, entity) of each chunk and its document's subject.
    chunk_about: Vec<(u32, u32)>,
    relations: Vec<RawRelation>,
    docs: Vec<DocId>,
    quads: u64,
}

impl ViewBuilder {
    /// The accumulator of entity `e`, which a record declares or mentions.
    fn acc(&mut self, e: &str) -> &mut EntityAcc {
        let slot = self.key(e) as usize;
        if self.accs.len() <= slot {
            self.accs.resize_with(slot + 1, EntityAcc::default);
        }
        let acc = &mut self.accs[slot];
        acc.real = true;
        acc
    }
    fn key(&mut self, e: &str) -> u32 {
        self.keys.slot(e)
    }
    fn name(&mut self, e: &str, name: &str) {
        bump(&mut self.acc(e).names, name);
    }
    fn kind(&mut self, e: &str, kind: &str) {
        bump(&mut self.acc(e).kinds, kind);
    }
    fn own_kind(&mut self, e: &str, kind: &str) {
        bump(&mut self.acc(e).own_kinds, kind);
    }
    fn alias(&mut self, e: &str, alias: &str) {
        let aliases = &mut self.acc(e).aliases;
        if !aliases.contains(alias) {
            aliases.insert(alias.to_string());
        }
    }
    fn mention(&mut self, e: &str) -> u32 {
        self.acc(e).mentions += 1;
        self.key(e)
    }

    /// Add everything one document contributes (the same facts its named graph
    /// holds as RDF).
    pub fn add_doc(&mut self, d: &crate::model::DocGraph) {
        self.docs.push(d.doc);
        self.quads += crate::rdf::quad_count(d) as u64;
        for e in &d.entities {
            self.name(&e.key, &e.name);
            if owns_kind(d, e) {
                self.own_kind(&e.key, &e.kind);
            } else {
                self.kind(&e.key, &e.kind);
            }
            for a in &e.aliases {
                self.alias(&e.key, a);
            }
        }
        let mut seen: rustc_hash::FxHashSet<(u32, u32)> = Default::default();
        for m in &d.mentions {
            let e = self.mention(&m.entity);
            let c = self.chunks.slot(&m.chunk);
            if seen.insert((c, e)) {
                *self.chunk_mentions.entry((c, e)).or_default() += 1;
            }
        }
        for r in &d.relations {
            let relation = RawRelation {
                subject: self.key(&r.subject),
                object: self.key(&r.object),
                label: self.labels.slot(&r.label),
                weight: r.weight,
                evidence: r
                    .evidence
                    .iter()
                    .map(|e| self.chunks.slot(&e.chunk))
                    .collect(),
            };
            self.relations.push(relation);
        }
        if let Some(a) = &d.about {
            let e = self.key(a);
            for c in &d.chunks {
                let c = self.chunks.slot(&c.id);
                self.chunk_about.push((c, e));
            }
        }
    }

    /// Number of documents added.
    pub fn docs(&self) -> usize {
        self.docs.len()
    }

    /// Whether `listed` accepts every document added.
    pub fn all_listed(&self, listed: &dyn Fn(DocId) -> bool) -> bool {
        self.docs.iter().all(|&d| listed(d))
    }

    /// The view of every document added.
    pub fn build(self) -> GraphView {
        let mut v = GraphView {
            docs: self.docs.len() as u64,
            quads: self.quads,
            ..GraphView::default()
        };
        let Self {
            keys,
            accs,
            chunks,
            labels,
            chunk_mentions,
            chunk_about,
            relations,
            ..
        } = self;
        // Entities in key order; `index[slot]` is the entity a key slot became.
        let mut order: Vec<u32> = (0..accs.len() as u32)
            .filter(|&k| accs[k as usize].real)
            .collect();
        order.sort_by(|&a, &b| keys.name(a).cmp(keys.name(b)));
        let mut index: Vec<Option<usize>> = vec![None; keys.names.len()];
        let mut accs: Vec<Option<EntityAcc>> = accs.into_iter().map(Some).collect();
        for slot in order {
            let Some(acc) = accs.get_mut(slot as usize).and_then(Option::take) else {
                continue;
            };
            let key = keys.name(slot).to_string();
            let name = best(&acc.names).unwrap_or_else(|| key.replace('_', " "));
            // A document that could not tell the type votes for nothing; the
            // documents about the entity outvote the others.
            let mut kinds = if acc.own_kinds.is_empty() {
                acc.kinds
            } else {
                acc.own_kinds
            };
            if kinds.len() > 1 {
                kinds.remove("other");
            }
            let kind = best(&kinds).unwrap_or_else(|| "other".to_string());
            let mut aliases: Vec<String> =
                acc.names.keys().filter(|n| **n != name).cloned().collect();
            aliases.extend(acc.aliases.into_iter().filter(|a| *a != name));
            aliases.sort();
            aliases.dedup();
            let idx = v.entities.len();
            for a in std::iter::once(&name).chain(aliases.iter()) {
                let k = entity_key(a);
                if k != key {
                    v.alias_idx.entry(k).or_default().push(idx);
                }
            }
            v.entity_idx.insert(key.clone(), idx);
            if let Some(i) = index.get_mut(slot as usize) {
                *i = Some(idx);
            }
            v.entities.push(EntityInfo {
                id: key,
                name,
                kind,
                aliases,
                mentions: acc.mentions,
            });
            let n = v.graph.add_node(Node::Entity(idx as u32));
            v.entity_node.push(n);
        }
        let entity = |slot: u32| index.get(slot as usize).copied().flatten();
        // Chunk–entity edges: mentions, plus the title entity of the chunk's document
        // (which the text may name differently: "Helen Hunt" vs "Helen Elizabeth Hunt").
        let mut cm: FxHashMap<(u32, u32), f64> = chunk_mentions
            .into_iter()
            .map(|(k, w)| (k, f64::from(w)))
            .collect();
        for key in chunk_about {
            *cm.entry(key).or_default() += ABOUT_WEIGHT;
        }
        // Chunks and keys sorted by name once; the sorts below compare ranks.
        let (chunk_rank, key_rank) = (chunks.ranks(), keys.ranks());
        let rank = |ranks: &[u32], slot: u32| ranks.get(slot as usize).copied().unwrap_or(u32::MAX);
        let mut cm: Vec<((u32, u32), f64)> = cm.into_iter().collect();
        cm.sort_unstable_by_key(|&((c, e), _)| (rank(&chunk_rank, c), rank(&key_rank, e)));
        for ((chunk, e), weight) in cm {
            let Some(ei) = entity(e) else {
                continue;
            };
            let Some(&id) = chunks.get(chunk) else {
                continue;
            };
            let ci = v.chunk(id);
            v.graph.add_edge(
                v.entity_node[ei],
                v.chunk_node[ci],
                Edge::Mention(MentionEdge { weight }),
            );
        }
        // Aggregate relations per (unordered pair, label).
        let mut agg: FxHashMap<(usize, usize, u32), RelationAgg> = FxHashMap::default();
        for r in relations {
            let (Some(si), Some(oi)) = (entity(r.subject), entity(r.object)) else {
                continue;
            };
            if si == oi {
                continue;
            }
            let key = if si < oi {
                (si, oi, r.label)
            } else {
                (oi, si, r.label)
            };
            let entry = agg.entry(key).or_insert((0.0, Vec::new(), si));
            entry.0 += r.weight;
            entry.1.extend(r.evidence);
        }
        let mut agg: Vec<_> = agg.into_iter().collect();
        agg.sort_by(|a, b| {
            let ((a0, a1, al), (b0, b1, bl)) = (a.0, b.0);
            (a0, a1)
                .cmp(&(b0, b1))
                .then_with(|| labels.name(al).cmp(labels.name(bl)))
        });
        for ((a, b, label), (weight, mut evidence, subject)) in agg {
            let label_id = v.label(labels.name(label));
            // The first 32 distinct evidence chunks in id order.
            evidence.sort_unstable_by_key(|&c| rank(&chunk_rank, c));
            evidence.dedup();
            let evidence: Vec<u32> = evidence
                .iter()
                .take(32)
                .filter_map(|&c| chunks.get(c).map(|&id| v.chunk(id) as u32))
                .collect();
            let e = v.graph.add_edge(
                v.entity_node[a],
                v.entity_node[b],
                Edge::Relation {
                    label: label_id,
                    weight,
                    evidence,
                    subject: subject as u32,
                },
            );
            v.relation_edges.push(e);
        }
        v.degree = v
            .graph
            .node_indices()
            .map(|n| {
                let (count, weight) = v
                    .graph
                    .edges(n)
                    .fold((0u32, 0.0), |(c, w), e| (c + 1, w + e.weight().weight()));
                (count, weight)
            })
            .collect();
        v
    }
}

/// The first `k` of `cand` in `order`, in that order: the one selection of
/// neighbors, shared by the view and the entity cards (given the same
/// candidates in the same order, they pick the same, ties included).
fn strongest<T>(
    mut cand: Vec<T>,
    k: usize,
    order: impl Fn(&T, &T) -> std::cmp::Ordering,
) -> Vec<T> {
    if k == 0 {
        return Vec::new();
    }
    if cand.len() > k {
        cand.select_nth_unstable_by(k - 1, &order);
        cand.truncate(k);
    }
    cand.sort_by(&order);
    cand
}

/// The one order of neighbors, shared by the view and the entity cards:
/// facts before co-occurrence, then by weight, then by id (the cards order
/// ids by their position, which is id order).
fn neighbor_order<K: Ord>(a: (bool, f64, K), b: (bool, f64, K)) -> std::cmp::Ordering {
    b.0.cmp(&a.0)
        .then_with(|| b.1.total_cmp(&a.1))
        .then_with(|| a.2.cmp(&b.2))
}

/// Whether document `d` settles the kind of its entity `e`: `e` is what the
/// document is about, under a title with no disambiguation in parentheses
/// ("Paris", not "Paris (film)": such a title says other things share the
/// name), and its kind is a place, an organisation, a work or a date. A
/// document knows its own subject best ("X is a town in …"), where other
/// documents only name it; a person is left to the vote, since any two
/// capitalised words look like one.
fn owns_kind(d: &crate::model::DocGraph, e: &crate::model::EntityDecl) -> bool {
    d.about.as_deref() == Some(e.key.as_str())
        && !d.title.trim_end().ends_with(')')
        && matches!(e.kind.as_str(), "place" | "organization" | "work" | "date")
}

/// Count one more `s` in `counts`, allocating only for a new one.
fn bump(counts: &mut FxHashMap<String, u32>, s: &str) {
    match counts.get_mut(s) {
        Some(n) => *n += 1,
        None => {
            counts.insert(s.to_string(), 1);
        }
    }
}

fn best(counts: &FxHashMap<String, u32>) -> Option<String> {
    counts
        .iter()
        .max_by(|a, b| a.1.cmp(b.1).then_with(|| b.0.cmp(a.0)))
        .map(|(k, _)| k.clone())
}

/// The in-memory graph: entities and chunks as nodes; relation edges between
/// entities and mention edges between entities and chunks. It is saved whole
/// as a snapshot (see [`crate::GraphStore::write_snapshot`]).
#[derive(Debug, Default, Serialize, Deserialize)]
pub struct GraphView {
    /// Documents it was built from.
    docs: u64,
    /// Quads of their RDF (see [`crate::rdf::quad_count`]).
    quads: u64,
    entities: Vec<EntityInfo>,
    entity_idx: FxHashMap<String, usize>,
    alias_idx: FxHashMap<String, Vec<usize>>,
    entity_node: Vec<NodeIndex>,
    chunks: Vec<ChunkId>,
    chunk_idx: FxHashMap<ChunkId, usize>,
    chunk_node: Vec<NodeIndex>,
    labels: Vec<String>,
    label_idx: FxHashMap<String, u32>,
    relation_edges: Vec<EdgeIndex>,
    graph: UnGraph<Node, Edge>,
    /// Per node (by index): number of edges and their total weight.
    degree: Vec<(u32, f64)>,
}

/// The counts of a view (for statistics and to compare two views).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ViewSummary {
    /// Documents.
    pub docs: u64,
    /// Chunks that carry an entity.
    pub chunks: u64,
    /// Entities.
    pub entities: u64,
    /// Aggregated relation edges.
    pub relations: u64,
    /// Mentions.
    pub mentions: u64,
    /// Quads of the RDF of the same documents.
    pub quads: u64,
}

impl GraphView {
    /// Its counts.
    pub fn summary(&self) -> ViewSummary {
        ViewSummary {
            docs: self.docs,
            chunks: self.chunks.len() as u64,
            entities: self.entities.len() as u64,
            relations: self.relation_edges.len() as u64,
            mentions: self.mention_count(),
            quads: self.quads,
        }
    }

    /// Check a view read from a snapshot: every index it holds must point
    /// inside it (a damaged or foreign file must not panic a query).
    pub(crate) fn is_consistent(&self) -> bool {
        let nodes = self.graph.node_count();
        self.entity_node.len() == self.entities.len()
            && self.chunk_node.len() == self.chunks.len()
            && self.degree.len() == nodes
            && self
                .entity_node
                .iter()
                .chain(&self.chunk_node)
                .all(|n| n.index() < nodes)
            && self.entity_idx.values().all(|&i| i < self.entities.len())
            && self
                .alias_idx
                .values()
                .flatten()
                .all(|&i| i < self.entities.len())
            && self.chunk_idx.values().all(|&i| i < self.chunks.len())
            && self
                .relation_edges
                .iter()
                .all(|e| e.index() < self.graph.edge_count())
            && self.graph.node_weights().all(|n| match n {
                Node::Entity(i) => (*i as usize) < self.entities.len(),
                Node::Chunk(i) => (*i as usize) < self.chunks.len(),
            })
            && self.graph.edge_weights().all(|e| match e {
                Edge::Relation {
                    label,
                    evidence,
                    subject,
                    ..
                } => {
                    (*label as usize) < self.labels.len()
                        && (*subject as usize) < self.entities.len()
                        && evidence.iter().all(|&c| (c as usize) < self.chunks.len())
                }
                Edge::Mention(_) => true,
            })
    }

    fn chunk(&mut self, id: ChunkId) -> usize {
        if let Some(&i) = self.chunk_idx.get(&id) {
            return i;
        }
        let i = self.chunks.len();
        self.chunks.push(id);
        self.chunk_idx.insert(id, i);
        let n = self.graph.add_node(Node::Chunk(i as u32));
        self.chunk_node.push(n);
        i
    }

    fn label(&mut self, l: &str) -> u32 {
        if let Some(&i) = self.label_idx.get(l) {
            return i;
        }
        let i = self.labels.len() as u32;
        self.labels.push(l.to_string());
        self.label_idx.insert(l.to_string(), i);
        i
    }

    /// Number of entities.
    pub fn entity_count(&self) -> usize {
        self.entities.len()
    }

    /// Number of aggregated relation edges.
    pub fn relation_count(&self) -> usize {
        self.relation_edges.len()
    }

    /// Number of aggregated relation edges that are facts.
    pub fn fact_count(&self) -> usize {
        self.relation_edges
            .iter()
            .filter(|&&e| {
                self.graph
                    .edge_weight(e)
                    .is_some_and(|w| self.is_fact_edge(w))
            })
            .count()
    }

    /// Total mentions.
    pub fn mention_count(&self) -> u64 {
        self.entities.iter().map(|e| e.mentions).sum()
    }

    /// Entity counts per type guess.
    pub fn type_counts(&self) -> std::collections::BTreeMap<String, u64> {
        let mut m = std::collections::BTreeMap::new();
        for e in &self.entities {
            *m.entry(e.kind.clone()).or_insert(0) += 1;
        }
        m
    }

    fn resolve(&self, id_or_name: &str) -> Option<usize> {
        if let Some(&i) = self.entity_idx.get(id_or_name) {
            return Some(i);
        }
        let key = entity_key(id_or_name);
        if let Some(&i) = self.entity_idx.get(&key) {
            return Some(i);
        }
        self.alias_idx
            .get(&key)
            .and_then(|v| v.iter().copied().max_by_key(|&i| self.entities[i].mentions))
    }

    /// The entity with this id, name or alias.
    pub fn entity(&self, id_or_name: &str) -> Option<EntityInfo> {
        self.resolve(id_or_name).map(|i| self.entities[i].clone())
    }

    /// Entities whose names match `query`, best first.
    pub fn search_entities(&self, query: &str, k: usize) -> Vec<EntityInfo> {
        let key = entity_key(query);
        if key.is_empty() || k == 0 {
            return Vec::new();
        }
        let qwords: Vec<&str> = key.split('_').collect();
        let mut scored: Vec<(f64, usize)> = Vec::new();
        for (i, e) in self.entities.iter().enumerate() {
            let mut best = 0.0f64;
            let names = std::iter::once(&e.id)
                .cloned()
                .chain(e.aliases.iter().map(|a| entity_key(a)));
            for n in names {
                let s = if n == key {
                    100.0
                } else if n.starts_with(&key) || n.ends_with(&key) {
                    60.0
                } else if n.contains(&key) {
                    40.0
                } else {
                    let words: HashSet<&str> = n.split('_').collect();
                    let hit = qwords.iter().filter(|w| words.contains(*w)).count();
                    if hit == 0 {
                        0.0
                    } else {
                        30.0 * hit as f64 / qwords.len().max(words.len()) as f64
                    }
                };
                best = best.max(s);
            }
            if best > 0.0 {
                scored.push((best + (e.mentions as f64).ln_1p(), i));
            }
        }
        scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
        scored
            .into_iter()
            .take(k)
            .map(|(_, i)| self.entities[i].clone())
            .collect()
    }

    fn relation_neighbors(&self, ei: usize) -> Vec<(usize, &Edge)> {
        let node = self.entity_node[ei];
        let mut out = Vec::new();
        for e in self.graph.edges(node) {
            if let Edge::Relation { .. } = e.weight() {
                let other = if e.source() == node {
                    e.target()
                } else {
                    e.source()
                };
                if let Node::Entity(j) = self.graph[other] {
                    out.push((j as usize, e.weight()));
                }
            }
        }
        out
    }

    fn label_of(&self, edge: &Edge, from: usize) -> String {
        match edge {
            Edge::Relation { label, subject, .. } => {
                let l = self.labels.get(*label as usize).map_or("", String::as_str);
                crate::predicate::label_from(l, *subject as usize == from)
            }
            Edge::Mention(_) => "mentions".into(),
        }
    }

    /// Whether an edge is a fact (not co-occurrence).
    fn is_fact_edge(&self, edge: &Edge) -> bool {
        match edge {
            Edge::Relation { label, .. } => self
                .labels
                .get(*label as usize)
                .is_some_and(|l| crate::predicate::is_fact(l)),
            Edge::Mention(_) => false,
        }
    }

    /// The relation steps from `u` a path may take.
    fn path_steps(&self, u: usize, walk: Walk) -> Vec<(usize, &Edge)> {
        let mut steps = self.relation_neighbors(u);
        steps.retain(|(v, edge)| {
            (!walk.facts_only || self.is_fact_edge(edge))
                && (*v == walk.ends.0
                    || *v == walk.ends.1
                    || self.entities.get(*v).is_none_or(|e| e.kind != "date"))
        });
        steps
    }

    fn evidence_of(&self, edge: &Edge) -> Vec<ChunkId> {
        match edge {
            Edge::Relation { evidence, .. } => evidence
                .iter()
                .filter_map(|&c| self.chunks.get(c as usize).cloned())
                .collect(),
            Edge::Mention(_) => Vec::new(),
        }
    }

    /// Neighbors of an entity, strongest first; optionally only across `relation`.
    pub fn neighbors(&self, entity: &str, k: usize, relation: Option<&str>) -> Vec<Neighbor> {
        let Some(ei) = self.resolve(entity) else {
            return Vec::new();
        };
        // Filter on label ids and rank before building any strings: a hub has
        // thousands of edges and only `k` of them are returned.
        let want = match relation.map(crate::predicate::stored_label) {
            Some((l, inverse)) => match self.label_idx.get(&l) {
                Some(&id) => Some((id, crate::predicate::wants_side(&l, inverse))),
                None => return Vec::new(),
            },
            None => None,
        };
        let cand: Vec<(usize, &Edge)> = self
            .relation_neighbors(ei)
            .into_iter()
            .filter(|(_, edge)| match (want, edge) {
                (Some((w, side)), Edge::Relation { label, subject, .. }) => {
                    *label == w
                        && side.is_none_or(|as_subject| (*subject as usize == ei) == as_subject)
                }
                _ => true,
            })
            .collect();
        let order = |a: &(usize, &Edge), b: &(usize, &Edge)| {
            neighbor_order(
                (self.is_fact_edge(a.1), a.1.weight(), &self.entities[a.0].id),
                (self.is_fact_edge(b.1), b.1.weight(), &self.entities[b.0].id),
            )
        };
        strongest(cand, k, order)
            .into_iter()
            .map(|(j, edge)| {
                let e = &self.entities[j];
                Neighbor {
                    id: e.id.clone(),
                    name: e.name.clone(),
                    kind: e.kind.clone(),
                    relation: self.label_of(edge, ei),
                    weight: edge.weight(),
                    evidence: self.evidence_of(edge),
                }
            })
            .collect()
    }

    /// Entities within `hops` relation steps of `entity` (with their distance).
    pub fn k_hop(&self, entity: &str, hops: usize) -> Vec<(EntityInfo, usize)> {
        let Some(start) = self.resolve(entity) else {
            return Vec::new();
        };
        let mut dist: HashMap<usize, usize> = HashMap::from([(start, 0)]);
        let mut queue = VecDeque::from([start]);
        while let Some(u) = queue.pop_front() {
            let d = dist[&u];
            if d >= hops {
                continue;
            }
            for (v, _) in self.relation_neighbors(u) {
                if let std::collections::hash_map::Entry::Vacant(e) = dist.entry(v) {
                    e.insert(d + 1);
                    queue.push_back(v);
                }
            }
        }
        let mut out: Vec<(EntityInfo, usize)> = dist
            .into_iter()
            .filter(|(i, _)| *i != start)
            .map(|(i, d)| (self.entities[i].clone(), d))
            .collect();
        out.sort_by(|a, b| a.1.cmp(&b.1).then_with(|| b.0.mentions.cmp(&a.0.mentions)));
        out
    }

    /// Shortest connecting paths (up to `limit`) of at most `max_hops` relation steps.
    pub fn paths(&self, a: &str, b: &str, max_hops: usize, limit: usize) -> Vec<GraphPath> {
        let (Some(s), Some(t)) = (self.resolve(a), self.resolve(b)) else {
            return Vec::new();
        };
        if s == t {
            return vec![GraphPath {
                entities: vec![self.entities[s].id.clone()],
                names: vec![self.entities[s].name.clone()],
                steps: Vec::new(),
            }];
        }
        // Facts first: a chain of facts at most one step longer than the
        // shortest connection of any kind; else that connection.
        let any = self.paths_by(
            s,
            t,
            max_hops,
            limit,
            Walk {
                facts_only: false,
                ends: (s, t),
            },
        );
        let Some(shortest) = any.first().map(|p| p.steps.len()) else {
            return any;
        };
        let facts = self.paths_by(
            s,
            t,
            max_hops.min(shortest + 1),
            limit,
            Walk {
                facts_only: true,
                ends: (s, t),
            },
        );
        if facts.is_empty() { any } else { facts }
    }

    /// [`GraphView::paths`] taking the steps `walk` allows.
    fn paths_by(
        &self,
        s: usize,
        t: usize,
        max_hops: usize,
        limit: usize,
        walk: Walk,
    ) -> Vec<GraphPath> {
        // Breadth-first from both ends, a whole level of the smaller frontier
        // at a time, until they meet: the length of the shortest paths.
        let mut from_s = Side::new(s);
        let mut from_t = Side::new(t);
        let mut len = None;
        while len.is_none()
            && from_s.level + from_t.level < max_hops
            && !from_s.frontier.is_empty()
            && !from_t.frontier.is_empty()
        {
            len = if from_s.frontier.len() <= from_t.frontier.len() {
                from_s.expand(self, &from_t, walk)
            } else {
                from_t.expand(self, &from_s, walk)
            };
        }
        let Some(len) = len else {
            return Vec::new();
        };
        // A node at `p` steps from `s` on a shortest path has `dist_s = p` (known
        // on s's side, p <= its level) and `dist_t = len - p` (known on t's side
        // otherwise): the predecessors of a node are read off those.
        let at = |v: usize, p: usize| -> bool {
            if p <= from_s.level {
                from_s.dist.get(&v) == Some(&p)
            } else {
                from_t.dist.get(&v) == Some(&(len - p))
            }
        };
        let mut preds: HashMap<usize, Vec<(usize, &Edge)>> = HashMap::new();
        let mut seen: HashSet<usize> = HashSet::from([t]);
        let mut layer = vec![t];
        for p in (1..=len).rev() {
            let mut next = Vec::new();
            for &v in &layer {
                for (u, edge) in self.path_steps(v, walk) {
                    if at(u, p - 1) {
                        preds.entry(v).or_default().push((u, edge));
                        if seen.insert(u) {
                            next.push(u);
                        }
                    }
                }
            }
            layer = next;
        }
        let mut out = Vec::new();
        let mut stack: Vec<(usize, PathSoFar<'_>)> = vec![(t, Vec::new())];
        while let Some((node, rev)) = stack.pop() {
            if out.len() >= limit {
                break;
            }
            if node == s {
                let mut steps_rev = rev.clone();
                steps_rev.reverse();
                let mut entities = vec![self.entities[s].id.clone()];
                let mut names = vec![self.entities[s].name.clone()];
                let mut steps = Vec::new();
                for (from, to, edge) in steps_rev {
                    entities.push(self.entities[to].id.clone());
                    names.push(self.entities[to].name.clone());
                    steps.push(PathStep {
                        from: self.entities[from].id.clone(),
                        to: self.entities[to].id.clone(),
                        relation: self.label_of(edge, from),
                        evidence: self.evidence_of(edge),
                    });
                }
                out.push(GraphPath {
                    entities,
                    names,
                    steps,
                });
                continue;
            }
            let mut ps = preds.get(&node).cloned().unwrap_or_default();
            ps.sort_by(|a, b| a.1.weight().total_cmp(&b.1.weight()));
            for (p, edge) in ps {
                let mut r = rev.clone();
                r.push((p, node, edge));
                stack.push((p, r));
            }
        }
        out
    }

    /// Chunk ids mentioning an entity.
    pub fn chunks_of_entity(&self, entity: &str) -> Vec<ChunkId> {
        let Some(ei) = self.resolve(entity) else {
            return Vec::new();
        };
        self.card_chunks(ei)
    }

    /// Entity ids mentioned in a chunk.
    pub fn entities_of_chunk(&self, chunk: ChunkId) -> Vec<String> {
        let Some(&ci) = self.chunk_idx.get(&chunk) else {
            return Vec::new();
        };
        let n = self.chunk_node[ci];
        self.graph
            .neighbors(n)
            .filter_map(|o| match self.graph[o] {
                Node::Entity(e) => Some(self.entities[e as usize].id.clone()),
                Node::Chunk(_) => None,
            })
            .collect()
    }

    /// Resolve entity ids or names to ids (unknown ones are dropped).
    pub fn resolve_ids(&self, names: &[String]) -> Vec<String> {
        names
            .iter()
            .filter_map(|n| self.resolve(n))
            .map(|i| self.entities[i].id.clone())
            .collect()
    }

    /// Chunks ranked by personalized PageRank (SPEC §5.2 `related`).
    ///
    /// The restart distribution mixes two kinds of seeds: entities (weighted by
    /// their rarity, so "American" or "2001" barely count next to "Haymo of
    /// Faversham") and chunks (e.g. BM25 hits, weighted by their scores relative to
    /// each other). When both are given each kind gets a fixed share of the restart
    /// mass, whatever the scale of the chunk scores. A chunk's score is its PageRank
    /// mass (dividing by its degree was tried and lost recall).
    pub fn rank_chunks(
        &self,
        seed_entities: &[(String, f64)],
        seed_chunks: &[(ChunkId, f64)],
        k: usize,
    ) -> Vec<(ChunkId, f64)> {
        let n_chunks = self.chunks.len().max(1) as f64;
        let mut ent_seeds: HashMap<NodeIndex, f64> = HashMap::new();
        for (e, w) in seed_entities {
            if let Some(i) = self.resolve(e) {
                let node = self.entity_node[i];
                let df = self
                    .graph
                    .edges(node)
                    .filter(|e| matches!(e.weight(), Edge::Mention(_)))
                    .count() as f64;
                let rarity = (n_chunks / (1.0 + df)).ln().max(0.0);
                *ent_seeds.entry(node).or_default() += w.max(0.0) * rarity;
            }
        }
        let mut chunk_seeds: HashMap<NodeIndex, f64> = HashMap::new();
        for (c, w) in seed_chunks {
            if let Some(&i) = self.chunk_idx.get(c) {
                *chunk_seeds.entry(self.chunk_node[i]).or_default() += w.max(0.0);
            }
        }
        let ent_total: f64 = ent_seeds.values().sum();
        let chunk_total: f64 = chunk_seeds.values().sum();
        let entity_share = match (ent_total > 0.0, chunk_total > 0.0) {
            (false, false) => return Vec::new(),
            (true, false) => 1.0,
            (false, true) => 0.0,
            (true, true) => ENTITY_SHARE,
        };
        let mut residual: HashMap<NodeIndex, f64> = HashMap::new();
        for (n, w) in ent_seeds {
            *residual.entry(n).or_default() += entity_share * w / ent_total.max(f64::MIN_POSITIVE);
        }
        for (n, w) in chunk_seeds {
            *residual.entry(n).or_default() +=
                (1.0 - entity_share) * w / chunk_total.max(f64::MIN_POSITIVE);
        }
        let alpha = RESTART;
        let eps = 1e-6;
        let mut p: HashMap<NodeIndex, f64> = HashMap::new();
        let mut queue: VecDeque<NodeIndex> = residual.keys().copied().collect();
        let mut queued: HashSet<NodeIndex> = queue.iter().copied().collect();
        // Work is bounded by edges visited, not pushes: one push from a hub visits
        // thousands of edges.
        let mut budget: usize = 2_000_000;
        let degree = |n: NodeIndex| self.degree.get(n.index()).copied().unwrap_or((0, 0.0));
        while let Some(u) = queue.pop_front() {
            queued.remove(&u);
            let r = residual.remove(&u).unwrap_or(0.0);
            if r <= 0.0 {
                continue;
            }
            *p.entry(u).or_default() += alpha * r;
            let (count, wdeg) = degree(u);
            if budget < count as usize {
                break;
            }
            budget -= count as usize;
            if wdeg <= 0.0 {
                *p.entry(u).or_default() += (1.0 - alpha) * r;
                continue;
            }
            let spread = (1.0 - alpha) * r;
            for e in self.graph.edges(u) {
                let v = if e.source() == u {
                    e.target()
                } else {
                    e.source()
                };
                let add = spread * e.weight().weight() / wdeg;
                let rv = residual.entry(v).or_default();
                *rv += add;
                let deg = f64::from(degree(v).0.max(1));
                if *rv > eps * deg && queued.insert(v) {
                    queue.push_back(v);
                }
            }
        }
        let mut out: Vec<(ChunkId, f64)> = p
            .into_iter()
            .filter_map(|(n, s)| match self.graph[n] {
                Node::Chunk(c) => self.chunks.get(c as usize).map(|&id| (id, s)),
                Node::Entity(_) => None,
            })
            .collect();
        out.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        out.truncate(k);
        out
    }
}

#[cfg(test)]
mod key_tests {
    use super::*;

    /// The ASCII path equals the general one on text dense in the bytes the
    /// rules treat specially (xorshift-generated, deterministic).
    #[test]
    fn ascii_keys_match_the_unicode_path() {
        const BYTES: &[u8] = b"aZsS09 _-/'`&.,\t\n\x0b\x0c\r#()";
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let mut cases: Vec<String> = [
            "The Beatles",
            "the",
            "The",
            "THE Who's",
            "Ada's",
            "a `s b",
            "x'S",
            "the 's x",
            "",
            " - ",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        for _ in 0..20_000 {
            let n = (next() % 14) as usize;
            let mut s = String::new();
            for _ in 0..n {
                let r = next();
                if r % 5 == 0 {
                    s.push_str(["the", "The", "'s", "`S"][(r >> 8) as usize % 4]);
                } else {
                    s.push(char::from(BYTES[(r >> 8) as usize % BYTES.len()]));
                }
            }
            cases.push(s);
        }
        for c in &cases {
            assert_eq!(ascii_entity_key(c), unicode_entity_key(c), "{c:?}");
        }
    }
}

#[cfg(test)]
mod path_tests {
    use super::*;
    use crate::model::{ChunkSpan, DocGraph, EntityDecl, EvidenceSpan, RelationDecl};

    /// One document whose chunk `c1` relates each pair of `edges`.
    fn view_of(edges: &[(&str, &str)]) -> GraphView {
        let mut names: Vec<&str> = edges.iter().flat_map(|(a, b)| [*a, *b]).collect();
        names.sort_unstable();
        names.dedup();
        let doc = DocGraph {
            doc: DocId(1),
            path: "/d1.txt".into(),
            title: "d1".into(),
            format: "txt".into(),
            chunks: vec![ChunkSpan {
                id: ChunkId(1),
                start: 0,
                end: 10,
            }],
            entities: names
                .iter()
                .map(|n| EntityDecl {
                    key: (*n).into(),
                    name: (*n).into(),
                    kind: "other".into(),
                    aliases: Vec::new(),
                })
                .collect(),
            mentions: Vec::new(),
            relations: edges
                .iter()
                .map(|(a, b)| RelationDecl {
                    subject: (*a).into(),
                    object: (*b).into(),
                    label: "co-occurs".into(),
                    weight: 1.0,
                    evidence: vec![EvidenceSpan {
                        chunk: ChunkId(1),
                        start: 0,
                        end: 10,
                    }],
                })
                .collect(),
            about: None,
        };
        let mut b = ViewBuilder::default();
        b.add_doc(&doc);
        b.build()
    }

    fn routes(v: &GraphView, a: &str, b: &str, hops: usize) -> Vec<String> {
        let mut out: Vec<String> = v
            .paths(a, b, hops, 10)
            .iter()
            .map(|p| p.entities.join("-"))
            .collect();
        out.sort();
        out
    }

    /// Every shortest path, whichever end the search grows from, and none
    /// longer than the hop limit.
    #[test]
    fn two_sided_search_finds_every_shortest_path() {
        let v = view_of(&[
            ("a", "b"),
            ("b", "d"),
            ("a", "c"),
            ("c", "d"),
            ("d", "e"),
            ("a", "x1"),
            ("x1", "x2"),
            ("x2", "x3"),
            ("x3", "e"),
            ("e", "f1"),
            ("e", "f2"),
            ("e", "f3"),
        ]);
        assert_eq!(routes(&v, "a", "e", 3), ["a-b-d-e", "a-c-d-e"]);
        assert_eq!(routes(&v, "e", "a", 4), ["e-d-b-a", "e-d-c-a"]);
        assert!(routes(&v, "a", "e", 2).is_empty());
        assert_eq!(routes(&v, "a", "b", 1), ["a-b"]);
        assert_eq!(routes(&v, "x2", "f1", 4), ["x2-x3-e-f1"]);
        assert_eq!(routes(&v, "a", "a", 3), ["a"]);
        assert!(routes(&v, "a", "nobody", 3).is_empty());
    }
}

#[cfg(test)]
mod kind_tests {
    use super::*;
    use crate::model::{ChunkSpan, DocGraph, EntityDecl};

    /// Document `n` titled `title`, declaring `tovik` of `kind`, about it or not.
    fn doc(n: u64, title: &str, kind: &str, about: bool) -> DocGraph {
        DocGraph {
            doc: DocId(n),
            path: format!("/d{n}.txt"),
            title: title.into(),
            format: "txt".into(),
            chunks: vec![ChunkSpan {
                id: ChunkId(n),
                start: 0,
                end: 10,
            }],
            entities: vec![EntityDecl {
                key: "tovik".into(),
                name: "Tovik".into(),
                kind: kind.into(),
                aliases: Vec::new(),
            }],
            mentions: Vec::new(),
            relations: Vec::new(),
            about: about.then(|| "tovik".to_string()),
        }
    }

    /// One document of a case: its title, its kind for `tovik`, whether it
    /// is about it.
    type Doc<'a> = (&'a str, &'a str, bool);

    /// A document about an entity, under a title without parentheses,
    /// settles its kind over the other documents' guesses; a person, an
    /// untyped subject or a disambiguated title is one vote among the others.
    #[test]
    fn the_document_about_an_entity_settles_its_kind() {
        // (documents as (title, kind, about), settled kind)
        let cases: &[(&[Doc], &str)] = &[
            (
                &[
                    ("A", "person", false),
                    ("B", "person", false),
                    ("Tovik", "place", true),
                ],
                "place",
            ),
            (
                &[
                    ("A", "person", false),
                    ("B", "person", false),
                    ("Tovik (film)", "work", true),
                ],
                "person",
            ),
            (
                &[
                    ("A", "place", false),
                    ("B", "place", false),
                    ("Tovik", "person", true),
                ],
                "place",
            ),
            (
                &[
                    ("A", "place", false),
                    ("B", "place", false),
                    ("Tovik", "other", true),
                ],
                "place",
            ),
        ];
        for (docs, want) in cases {
            let mut b = ViewBuilder::default();
            for (i, (title, kind, about)) in docs.iter().enumerate() {
                b.add_doc(&doc(i as u64 + 1, title, kind, *about));
            }
            let v = b.build();
            assert_eq!(
                v.entity("tovik").map(|e| e.kind).as_deref(),
                Some(*want),
                "{docs:?}"
            );
        }
    }
}
