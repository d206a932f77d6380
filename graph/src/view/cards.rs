//! Entity cards (issue 31): what `rlmkg entity` shows of one entity — its
//! info, the chunks that mention it and its relation edges — saved beside a
//! view snapshot (`view-<n>.cards`) in blocks of about [`BLOCK_BYTES`] with
//! an index of the blocks at the end, so a cold lookup reads the index and
//! a few blocks instead of deserialising the whole snapshot, however big
//! the store. They answer [`EntityCards::entity`], [`EntityCards::neighbors`]
//! and [`EntityCards::chunks_of_entity`] exactly as the view does: the same
//! resolution of names and aliases, the same edges in the same order, ranked
//! by the same selection ([`super::strongest`]).
//!
//! File: `RKCARD01`, the index's offset and length (two little-endian
//! `u64`), the blocks (postcard), the index (postcard, [`CardIndex`]).
//! Three tables, each cut in blocks: the entities' infos in view order
//! (which is id order), their adjacency in the same order, and the alias
//! keys in key order with the entities each names.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use petgraph::visit::EdgeRef;
use rlmkg_ids::ChunkId;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use super::{Edge, EntityInfo, GraphView, Neighbor, Node, entity_key, neighbor_order, strongest};
use crate::error::{GraphError, file_err};

/// First bytes of a cards file, with the version of its encoding.
const MAGIC: &[u8; 8] = b"RKCARD01";
/// Bytes of encoded items after which a block is cut (small in tests, so
/// their views span many blocks).
const BLOCK_BYTES: usize = if cfg!(test) { 512 } else { 16 * 1024 };

/// One block of a table.
#[derive(Debug, Serialize, Deserialize)]
struct BlockRef {
    /// Index (in its table) of the block's first item.
    first: u32,
    /// Key of the block's first item (entity id, alias key; empty for adjacency).
    key: String,
    /// Where the block starts in the file, and its length.
    offset: u64,
    len: u64,
}

/// The index at the end of a cards file.
#[derive(Debug, Serialize, Deserialize)]
struct CardIndex {
    /// Entities.
    entities: u32,
    /// Relation labels, by label id.
    labels: Vec<String>,
    /// Blocks of [`EntityInfo`]s, in view order (ids ascending).
    infos: Vec<BlockRef>,
    /// Blocks of [`Adjacency`], in the same order.
    adjacency: Vec<BlockRef>,
    /// Blocks of (alias key, entities it names), keys ascending.
    aliases: Vec<BlockRef>,
}

/// A relation edge of an entity as the view holds it.
#[derive(Debug, Serialize, Deserialize)]
struct CardEdge {
    /// The entity at the other end.
    other: u32,
    /// Label id.
    label: u32,
    weight: f64,
    evidence: Vec<ChunkId>,
    /// Whether this entity is the relation's subject.
    subject: bool,
}

/// An entity's chunks (sorted) and relation edges (in the view's order).
#[derive(Debug, Serialize, Deserialize)]
struct Adjacency {
    chunks: Vec<ChunkId>,
    edges: Vec<CardEdge>,
}

/// Writes one table's blocks after what is already in `out`.
struct TableWriter<'a> {
    out: &'a mut Vec<u8>,
    blocks: Vec<BlockRef>,
    /// Items of the open block, encoded one after the other.
    open: Vec<u8>,
    open_items: u32,
    open_key: String,
    next: u32,
}

impl<'a> TableWriter<'a> {
    fn new(out: &'a mut Vec<u8>) -> Self {
        Self {
            out,
            blocks: Vec::new(),
            open: Vec::new(),
            open_items: 0,
            open_key: String::new(),
            next: 0,
        }
    }

    fn push<T: Serialize>(&mut self, key: &str, item: &T) -> Result<(), postcard::Error> {
        if self.open_items == 0 {
            self.open_key = key.to_string();
        }
        self.open = postcard::to_extend(item, std::mem::take(&mut self.open))?;
        self.open_items += 1;
        self.next += 1;
        if self.open.len() >= BLOCK_BYTES {
            self.cut()?;
        }
        Ok(())
    }

    /// Close the open block: its item count, then its items.
    fn cut(&mut self) -> Result<(), postcard::Error> {
        if self.open_items == 0 {
            return Ok(());
        }
        let offset = self.out.len() as u64;
        let mut body = postcard::to_stdvec(&self.open_items)?;
        body.append(&mut self.open);
        self.out.extend_from_slice(&body);
        self.blocks.push(BlockRef {
            first: self.next - self.open_items,
            key: std::mem::take(&mut self.open_key),
            offset,
            len: body.len() as u64,
        });
        self.open_items = 0;
        Ok(())
    }

    fn finish(mut self) -> Result<Vec<BlockRef>, postcard::Error> {
        self.cut()?;
        Ok(self.blocks)
    }
}

impl GraphView {
    /// The relation edges of entity `ei` as cards hold them.
    fn card_edges(&self, ei: usize) -> Vec<CardEdge> {
        self.relation_neighbors(ei)
            .into_iter()
            .filter_map(|(j, edge)| match edge {
                Edge::Relation {
                    label,
                    weight,
                    subject,
                    ..
                } => Some(CardEdge {
                    other: j as u32,
                    label: *label,
                    weight: *weight,
                    evidence: self.evidence_of(edge),
                    subject: *subject as usize == ei,
                }),
                Edge::Mention(_) => None,
            })
            .collect()
    }

    /// The chunks of entity `ei`, sorted: its cards' chunks and
    /// [`GraphView::chunks_of_entity`], one body for both.
    pub(super) fn card_chunks(&self, ei: usize) -> Vec<ChunkId> {
        let node = self.entity_node[ei];
        let mut out: Vec<ChunkId> = self
            .graph
            .edges(node)
            .filter_map(|e| {
                let other = if e.source() == node {
                    e.target()
                } else {
                    e.source()
                };
                match self.graph[other] {
                    Node::Chunk(c) => self.chunks.get(c as usize).cloned(),
                    Node::Entity(_) => None,
                }
            })
            .collect();
        out.sort();
        out
    }

    /// The cards file of this view, or `None` for a view whose entities are
    /// not in ascending id order (cards rank neighbors by position, which
    /// must be the order of their ids).
    pub(crate) fn cards_bytes(&self) -> Result<Option<Vec<u8>>, postcard::Error> {
        if !self.entities.windows(2).all(|w| w[0].id < w[1].id) {
            return Ok(None);
        }
        let mut out = MAGIC.to_vec();
        out.extend_from_slice(&[0u8; 16]);
        let mut t = TableWriter::new(&mut out);
        for e in &self.entities {
            t.push(&e.id, e)?;
        }
        let infos = t.finish()?;
        let mut t = TableWriter::new(&mut out);
        for ei in 0..self.entities.len() {
            let adjacency = Adjacency {
                chunks: self.card_chunks(ei),
                edges: self.card_edges(ei),
            };
            t.push("", &adjacency)?;
        }
        let adjacency = t.finish()?;
        let mut aliases: Vec<(&String, &Vec<usize>)> = self.alias_idx.iter().collect();
        aliases.sort_unstable_by(|a, b| a.0.cmp(b.0));
        let mut t = TableWriter::new(&mut out);
        for (key, entities) in aliases {
            let entities: Vec<u32> = entities.iter().map(|&i| i as u32).collect();
            t.push(key, &(key, entities))?;
        }
        let aliases = t.finish()?;
        let index = CardIndex {
            entities: self.entities.len() as u32,
            labels: self.labels.clone(),
            infos,
            adjacency,
            aliases,
        };
        let at = out.len() as u64;
        let index = postcard::to_stdvec(&index)?;
        out[8..16].copy_from_slice(&at.to_le_bytes());
        out[16..24].copy_from_slice(&(index.len() as u64).to_le_bytes());
        out.extend_from_slice(&index);
        Ok(Some(out))
    }
}

/// Write `bytes` to `path` (temporary file, fsync, rename).
pub(crate) fn write_file(path: &Path, bytes: &[u8]) -> Result<(), GraphError> {
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".tmp");
    let tmp = PathBuf::from(tmp);
    {
        let mut f = File::create(&tmp).map_err(|e| file_err(&tmp, &e))?;
        f.write_all(bytes)
            .and_then(|()| f.sync_all())
            .map_err(|e| file_err(&tmp, &e))?;
    }
    std::fs::rename(&tmp, path).map_err(|e| file_err(path, &e))
}

/// The entity cards of one view snapshot, read a block at a time.
#[derive(Debug)]
pub struct EntityCards {
    path: PathBuf,
    file: Mutex<File>,
    index: CardIndex,
}

impl EntityCards {
    /// Open the cards file `path`; `None` when there is none.
    pub fn open(path: &Path) -> Result<Option<Self>, GraphError> {
        let mut file = match File::open(path) {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(file_err(path, &e)),
        };
        let mut head = [0u8; 24];
        file.read_exact(&mut head).map_err(|e| file_err(path, &e))?;
        if &head[..8] != MAGIC {
            return Err(file_err(path, &"not an entity cards file of this version"));
        }
        let word = |i: usize| {
            let mut b = [0u8; 8];
            b.copy_from_slice(&head[i..i + 8]);
            u64::from_le_bytes(b)
        };
        let (at, len) = (word(8), word(16));
        let bytes = read_at(&mut file, path, at, len)?;
        let index: CardIndex = postcard::from_bytes(&bytes).map_err(|e| file_err(path, &e))?;
        Ok(Some(Self {
            path: path.to_path_buf(),
            file: Mutex::new(file),
            index,
        }))
    }

    fn damaged(&self, what: &str) -> GraphError {
        file_err(&self.path, &format!("damaged entity cards: {what}"))
    }

    /// The items of one block.
    fn block<T: DeserializeOwned>(&self, b: &BlockRef) -> Result<Vec<T>, GraphError> {
        let bytes = {
            let mut f = self
                .file
                .lock()
                .map_err(|_| self.damaged("file lock poisoned"))?;
            read_at(&mut f, &self.path, b.offset, b.len)?
        };
        let (n, mut rest): (u32, &[u8]) =
            postcard::take_from_bytes(&bytes).map_err(|e| file_err(&self.path, &e))?;
        let mut items = Vec::new();
        for _ in 0..n {
            let (item, r) =
                postcard::take_from_bytes(rest).map_err(|e| file_err(&self.path, &e))?;
            items.push(item);
            rest = r;
        }
        Ok(items)
    }

    /// Item `i` of a table in position order.
    fn item<T: DeserializeOwned>(&self, table: &[BlockRef], i: u32) -> Result<T, GraphError> {
        let b = table
            .partition_point(|b| b.first <= i)
            .checked_sub(1)
            .and_then(|at| table.get(at))
            .ok_or_else(|| self.damaged("an entity past the end"))?;
        let mut items: Vec<T> = self.block(b)?;
        let at = (i - b.first) as usize;
        if at >= items.len() {
            return Err(self.damaged("an entity past its block"));
        }
        Ok(items.swap_remove(at))
    }

    /// The block of a table in key order that holds `key`, if any.
    fn block_of_key<'a>(&self, table: &'a [BlockRef], key: &str) -> Option<&'a BlockRef> {
        table
            .partition_point(|b| b.key.as_str() <= key)
            .checked_sub(1)
            .and_then(|at| table.get(at))
    }

    /// The position of the entity with id `id`.
    fn find_id(&self, id: &str) -> Result<Option<u32>, GraphError> {
        let Some(b) = self.block_of_key(&self.index.infos, id) else {
            return Ok(None);
        };
        let infos: Vec<EntityInfo> = self.block(b)?;
        Ok(infos
            .binary_search_by(|e| e.id.as_str().cmp(id))
            .ok()
            .map(|at| b.first + at as u32))
    }

    fn info(&self, i: u32) -> Result<EntityInfo, GraphError> {
        if i >= self.index.entities {
            return Err(self.damaged("an entity past the end"));
        }
        self.item(&self.index.infos, i)
    }

    /// As [`GraphView::resolve`]: the id, then the key of the name, then the
    /// most mentioned entity the key is an alias of.
    fn resolve(&self, id_or_name: &str) -> Result<Option<u32>, GraphError> {
        if let Some(i) = self.find_id(id_or_name)? {
            return Ok(Some(i));
        }
        let key = entity_key(id_or_name);
        if let Some(i) = self.find_id(&key)? {
            return Ok(Some(i));
        }
        let Some(b) = self.block_of_key(&self.index.aliases, &key) else {
            return Ok(None);
        };
        let aliases: Vec<(String, Vec<u32>)> = self.block(b)?;
        let Ok(at) = aliases.binary_search_by(|(k, _)| k.as_str().cmp(&key)) else {
            return Ok(None);
        };
        let mut best: Option<(u64, u32)> = None;
        for &i in &aliases[at].1 {
            let m = self.info(i)?.mentions;
            // `max_by_key`: the last of equal maxima.
            if best.is_none_or(|(bm, _)| m >= bm) {
                best = Some((m, i));
            }
        }
        Ok(best.map(|(_, i)| i))
    }

    /// As [`GraphView::entity`].
    pub fn entity(&self, id_or_name: &str) -> Result<Option<EntityInfo>, GraphError> {
        self.resolve(id_or_name)?.map(|i| self.info(i)).transpose()
    }

    /// As [`GraphView::chunks_of_entity`].
    pub fn chunks_of_entity(&self, entity: &str) -> Result<Vec<ChunkId>, GraphError> {
        let Some(i) = self.resolve(entity)? else {
            return Ok(Vec::new());
        };
        let a: Adjacency = self.item(&self.index.adjacency, i)?;
        Ok(a.chunks)
    }

    /// As [`GraphView::neighbors`].
    pub fn neighbors(
        &self,
        entity: &str,
        k: usize,
        relation: Option<&str>,
    ) -> Result<Vec<Neighbor>, GraphError> {
        let Some(i) = self.resolve(entity)? else {
            return Ok(Vec::new());
        };
        let labels = &self.index.labels;
        let want = match relation.map(crate::predicate::stored_label) {
            Some((r, inverse)) => match labels.iter().position(|l| *l == r) {
                Some(l) => Some((l as u32, crate::predicate::wants_side(&r, inverse))),
                None => return Ok(Vec::new()),
            },
            None => None,
        };
        let a: Adjacency = self.item(&self.index.adjacency, i)?;
        let cand: Vec<CardEdge> = a
            .edges
            .into_iter()
            .filter(|e| {
                want.is_none_or(|(w, side)| {
                    e.label == w && side.is_none_or(|as_subject| e.subject == as_subject)
                })
            })
            .collect();
        let fact = |e: &CardEdge| {
            labels
                .get(e.label as usize)
                .is_some_and(|l| crate::predicate::is_fact(l))
        };
        // Positions are in id order (checked when written), as ids are.
        let top = strongest(cand, k, |a, b| {
            neighbor_order((fact(a), a.weight, a.other), (fact(b), b.weight, b.other))
        });
        top.into_iter()
            .map(|e| {
                let other = self.info(e.other)?;
                let l = labels
                    .get(e.label as usize)
                    .ok_or_else(|| self.damaged("a label past the end"))?;
                let relation = crate::predicate::label_from(l, e.subject);
                Ok(Neighbor {
                    id: other.id,
                    name: other.name,
                    kind: other.kind,
                    relation,
                    weight: e.weight,
                    evidence: e.evidence,
                })
            })
            .collect()
    }
}

impl EntityCards {
    /// Up to `sample` entities of `view`, spread over all of them, whose
    /// cards answer otherwise than the view (entity, chunks, neighbors), in
    /// words; empty when they agree.
    pub fn disagreements(
        &self,
        view: &GraphView,
        sample: usize,
    ) -> Result<Vec<String>, GraphError> {
        let mut out = Vec::new();
        if self.index.entities as usize != view.entities.len() {
            out.push(format!(
                "{} entities, the view has {}",
                self.index.entities,
                view.entities.len()
            ));
            return Ok(out);
        }
        let step = view.entities.len().div_ceil(sample.max(1)).max(1);
        for e in view.entities.iter().step_by(step) {
            let id = e.id.as_str();
            if self.entity(id)? != view.entity(id)
                || self.chunks_of_entity(id)? != view.chunks_of_entity(id)
                || self.neighbors(id, 50, None)? != view.neighbors(id, 50, None)
            {
                out.push(format!("entity {id}"));
            }
        }
        Ok(out)
    }
}

/// `len` bytes of `file` from `at`.
fn read_at(file: &mut File, path: &Path, at: u64, len: u64) -> Result<Vec<u8>, GraphError> {
    let size = file.metadata().map_err(|e| file_err(path, &e))?.len();
    if at.checked_add(len).is_none_or(|end| end > size) {
        return Err(file_err(
            path,
            &"damaged entity cards: a block past the end",
        ));
    }
    let mut buf = vec![0u8; len as usize];
    file.seek(SeekFrom::Start(at))
        .and_then(|_| file.read_exact(&mut buf))
        .map_err(|e| file_err(path, &e))?;
    Ok(buf)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{ChunkSpan, DocGraph, EntityDecl, EvidenceSpan, MentionDecl, RelationDecl};
    use crate::view::ViewBuilder;
    use rlmkg_ids::DocId;

    /// Document `d` of a made-up collection: entities drawn from a pool of
    /// 300 (a few hubs in every document), names shared as aliases, relations
    /// of two labels in both directions, equal weights (ties to rank).
    fn doc(d: u64) -> DocGraph {
        let pick = |i: u64| (d * 37 + i * 101) % 300;
        let ents: Vec<u64> = [0, 1, 2].into_iter().chain((0..8).map(pick)).collect();
        let key = |e: u64| format!("person_{e}");
        let chunk = |i: u64| ChunkId(d * 10 + i % 3);
        let entities = ents
            .iter()
            .map(|&e| EntityDecl {
                key: key(e),
                name: format!("Person {e}"),
                kind: if e % 2 == 0 { "person" } else { "other" }.into(),
                // Two entities share each alias: the more mentioned one wins.
                aliases: vec![format!("P{}", e / 2)],
            })
            .collect();
        let mentions = ents
            .iter()
            .enumerate()
            .map(|(i, &e)| MentionDecl {
                entity: key(e),
                chunk: chunk(i as u64),
                start: 0,
                end: 1,
            })
            .collect();
        let relations = ents
            .windows(2)
            .enumerate()
            .map(|(i, w)| RelationDecl {
                subject: key(w[0]),
                object: key(w[1]),
                label: if i % 2 == 0 { "co-occurs" } else { "met" }.into(),
                weight: 1.0,
                evidence: vec![EvidenceSpan {
                    chunk: chunk(i as u64),
                    start: 0,
                    end: 1,
                }],
            })
            .collect();
        DocGraph {
            doc: DocId(d),
            path: format!("d{d}.txt"),
            title: format!("Person {}", pick(9)),
            format: "text".into(),
            chunks: (0..3)
                .map(|i| ChunkSpan {
                    id: chunk(i),
                    start: i * 10,
                    end: i * 10 + 10,
                })
                .collect(),
            entities,
            mentions,
            relations,
            about: Some(key(pick(9))),
        }
    }

    /// A view of many documents: hubs with more edges than `k`, aliases,
    /// relations with labels both ways.
    fn big_view() -> GraphView {
        let mut b = ViewBuilder::default();
        for d in 1..=120 {
            b.add_doc(&doc(d));
        }
        b.build()
    }

    #[test]
    fn cards_answer_as_the_view_does() {
        let view = big_view();
        assert!(view.entity_count() > 100, "{}", view.entity_count());
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("view-1.cards");
        write_file(&path, &view.cards_bytes().unwrap().unwrap()).unwrap();
        let cards = EntityCards::open(&path).unwrap().unwrap();
        for table in [
            &cards.index.infos,
            &cards.index.adjacency,
            &cards.index.aliases,
        ] {
            assert!(table.len() > 1, "several blocks: {}", table.len());
        }
        let mut asked = 0;
        let mut names: Vec<String> = view
            .entities
            .iter()
            .flat_map(|e| {
                let mut n = vec![e.id.clone(), e.name.clone(), e.name.to_uppercase()];
                n.extend(e.aliases.iter().cloned());
                n
            })
            .collect();
        names.extend(["nobody".to_string(), String::new(), "zzzz".into()]);
        for name in &names {
            assert_eq!(cards.entity(name).unwrap(), view.entity(name), "{name}");
            assert_eq!(
                cards.chunks_of_entity(name).unwrap(),
                view.chunks_of_entity(name),
                "{name}"
            );
            for k in [0, 1, 3, 15, 1000] {
                for rel in [
                    None,
                    Some("co-occurs"),
                    Some("<-met"),
                    Some("met"),
                    Some("none"),
                ] {
                    assert_eq!(
                        cards.neighbors(name, k, rel).unwrap(),
                        view.neighbors(name, k, rel),
                        "{name} {k} {rel:?}"
                    );
                    asked += 1;
                }
            }
        }
        assert!(asked > 1000);
        assert!(
            EntityCards::open(&tmp.path().join("none.cards"))
                .unwrap()
                .is_none()
        );
    }

    #[test]
    fn damaged_cards_are_errors_not_panics() {
        let view = big_view();
        let bytes = view.cards_bytes().unwrap().unwrap();
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("c.cards");
        for cut in [0, 7, 24, bytes.len() / 2, bytes.len() - 1] {
            std::fs::write(&path, &bytes[..cut]).unwrap();
            let opened = EntityCards::open(&path);
            if let Ok(Some(c)) = opened {
                let _ = c.entity("x");
            }
        }
        let mut junk = bytes.clone();
        for b in junk.iter_mut().skip(24).step_by(7) {
            *b ^= 0x5a;
        }
        std::fs::write(&path, &junk).unwrap();
        if let Ok(Some(c)) = EntityCards::open(&path) {
            for e in view.entities.iter().take(50) {
                let _ = c.entity(&e.id);
                let _ = c.neighbors(&e.id, 5, None);
                let _ = c.chunks_of_entity(&e.id);
            }
        }
    }
}
