//! The read queries of a store: search, passages, entities and their
//! neighborhood, ranking, SPARQL, documents, texts, statistics and export.
//! Everything reads the last committed state only.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use rlmkg_corpus::Fact;
use rlmkg_graph::{
    EntityCards, EntityInfo, GraphError, GraphPath, GraphView, Neighbor, SparqlOutput,
};
use rlmkg_index::{ChunkRecord, DocRecord};

use rlmkg_ids::{ChunkId, DocId, PassageId};

use super::fusion::{BM25_WEIGHT, DENSE_WEIGHT, FUSION_DEPTH, SearchMode, fuse};
use super::names::NameIndex;
use super::vectors::{DenseIndex, Embedder};
use super::{Store, doc_number};
use crate::error::StoreError;
use crate::formats::DocMeta;
use crate::text::{SegmentMode, floor_boundary, line_at, sentences};
use crate::types::*;

/// The most results one query may ask for: larger `k` values are clamped (a
/// `k` from a model's code must not size an allocation).
pub const MAX_K: usize = 10_000;
/// The longest path [`Store::path`] looks for.
pub const MAX_HOPS: usize = 6;
/// Search hits that seed [`Store::related`]'s PageRank.
const RELATED_SEED_HITS: usize = 10;

impl Store {
    pub(super) fn is_committed(&self, file: &str) -> bool {
        self.committed.contains_key(file)
    }

    /// The path of a committed file, as shown to users.
    fn path_of(&self, file: &str) -> String {
        self.committed
            .get(file)
            .map(|c| c.display.clone())
            .unwrap_or_default()
    }

    /// The text file holding a committed file's text, and where its text
    /// starts in it; a file not listed, or listed without a text, is
    /// [`Store::gone`].
    fn text_of(&self, file: &str) -> Result<(PathBuf, u64), StoreError> {
        match self.committed.get(file).and_then(|c| c.text) {
            Some((pack, offset)) => Ok((self.text_path(pack), offset)),
            None => Err(self.gone(format!("the text of file {file} is missing"))),
        }
    }

    /// Search chunks (titles included) in the store's mode: the one set by
    /// [`Store::set_search_mode`], else [`Store::default_mode`].
    pub fn search(&self, query: &str, k: usize) -> Result<Vec<SearchHit>, StoreError> {
        self.search_with(query, k, self.search_mode())
    }

    /// The mode [`Store::search`] ranks by.
    pub fn search_mode(&self) -> SearchMode {
        self.mode.unwrap_or_else(|| self.default_mode())
    }

    /// Hybrid when dense retrieval is on ([`Store::dense_off`] is `None`), else BM25.
    pub fn default_mode(&self) -> SearchMode {
        if self.dense_off().is_none() {
            SearchMode::Hybrid
        } else {
            SearchMode::Bm25
        }
    }

    /// Make [`Store::search`] (and the searches of [`Store::related`]) rank
    /// by `mode`; `None` goes back to [`Store::default_mode`].
    pub fn set_search_mode(&mut self, mode: Option<SearchMode>) {
        self.mode = mode;
    }

    /// Give the store what makes a query's vector (dense and hybrid search).
    pub fn set_embedder(&mut self, embedder: Option<Arc<dyn Embedder>>) {
        self.embedder = embedder;
    }

    /// Why dense retrieval is off, in words (for the binary to say once);
    /// `None` when it is on: the store keeps vectors and has an embedder of
    /// the same identity for queries.
    pub fn dense_off(&self) -> Option<String> {
        let recorded = self.manifest.settings.embedder.as_deref();
        let given = self.embedder.as_ref().map(|e| e.identity());
        match (recorded, given) {
            (None, _) => Some(
                "dense retrieval is off: the store keeps no vectors (ingest with --embed \
                 to make them; `rlmkg model pull encoder` installs the encoder)"
                    .into(),
            ),
            (Some(r), None) => Some(format!(
                "dense retrieval is off: the store's vectors were made by {r}, which is not \
                 installed (`rlmkg model pull encoder`)"
            )),
            (Some(r), Some(g)) if r != g => Some(format!(
                "dense retrieval is off: the store's vectors were made by {r}, not by the \
                 installed {g} (ingest again to make them anew)"
            )),
            _ => None,
        }
    }

    /// Search chunks by `mode`: BM25, dense (the query's vector against every
    /// chunk's) or both fused by reciprocal rank ([`super::fuse`]). Dense and
    /// hybrid need dense retrieval on ([`Store::dense_off`]).
    pub fn search_with(
        &self,
        query: &str,
        k: usize,
        mode: SearchMode,
    ) -> Result<Vec<SearchHit>, StoreError> {
        let k = k.min(MAX_K);
        if mode == SearchMode::Bm25 {
            let hits = self
                .index
                .search_where(query, k, &|c| self.is_committed(&c.file))?;
            return hits
                .into_iter()
                .map(|h| self.hit(h.chunk, h.score))
                .collect();
        }
        if let Some(off) = self.dense_off() {
            return Err(StoreError::Invalid(format!("--mode {mode}: {off}")));
        }
        let depth = if mode == SearchMode::Hybrid {
            k.max(FUSION_DEPTH)
        } else {
            k
        };
        let dense = self.dense_search(query, depth)?;
        let ranked: Vec<(ChunkId, f32)> = if mode == SearchMode::Dense {
            dense
        } else {
            let bm25: Vec<ChunkId> = self
                .index
                .search_where(query, depth, &|c| self.is_committed(&c.file))?
                .into_iter()
                .map(|h| h.chunk.id)
                .collect();
            let dense: Vec<ChunkId> = dense.into_iter().map(|(id, _)| id).collect();
            fuse(&[(&bm25, BM25_WEIGHT), (&dense, DENSE_WEIGHT)])
                .into_iter()
                .map(|(id, s)| (id, s as f32))
                .collect()
        };
        self.first_k(ranked, k, |c, _, score| self.hit(c, score))
    }

    /// The first `k` of `ranked` whose chunk records read (a chunk removed
    /// since is passed over), each made by `make` from its record, id and
    /// score.
    fn first_k<S, T>(
        &self,
        ranked: impl IntoIterator<Item = (ChunkId, S)>,
        k: usize,
        mut make: impl FnMut(ChunkRecord, ChunkId, S) -> Result<T, StoreError>,
    ) -> Result<Vec<T>, StoreError> {
        let mut out = Vec::with_capacity(k.min(MAX_K));
        for (id, score) in ranked {
            if out.len() >= k {
                break;
            }
            let Ok(c) = self.chunk_record(id) else {
                continue;
            };
            out.push(make(c, id, score)?);
        }
        Ok(out)
    }

    /// A search hit of a committed chunk.
    fn hit(&self, chunk: ChunkRecord, score: f32) -> Result<SearchHit, StoreError> {
        Ok(SearchHit {
            text: self.chunk_text(&chunk)?,
            path: self.path_of(&chunk.file),
            id: chunk.id,
            doc: chunk.doc,
            title: chunk.title,
            score,
        })
    }

    /// The `k` chunks nearest the query's vector, with their dot products.
    fn dense_search(&self, query: &str, k: usize) -> Result<Vec<(ChunkId, f32)>, StoreError> {
        if self.embedder.is_none() {
            return Ok(Vec::new());
        }
        let vector = self.query_vector(query)?;
        Ok(self.dense_index()?.search(&vector, k))
    }

    /// For benchmarks and tests: the `k` chunks nearest the query's vector,
    /// best first with their dot products, scoring every vector when
    /// `exact`, else as [`Store::search`] does (through the HNSW graph when
    /// [`Store::has_ann_index`]). Empty when dense retrieval is off.
    pub fn nearest_chunks(
        &self,
        query: &str,
        k: usize,
        exact: bool,
    ) -> Result<Vec<(ChunkId, f32)>, StoreError> {
        if self.dense_off().is_some() {
            return Ok(Vec::new());
        }
        let vector = self.query_vector(query)?;
        let index = self.dense_index()?;
        Ok(if exact {
            index.exact(&vector, k)
        } else {
            index.search(&vector, k)
        })
    }

    /// Whether dense search walks a fresh HNSW graph (built at the end of an
    /// ingest from [`super::ANN_MIN_VECTORS`] chunk vectors) instead of
    /// scoring every vector.
    pub fn has_ann_index(&self) -> Result<bool, StoreError> {
        Ok(self.dense_off().is_none() && self.dense_index()?.has_ann())
    }

    /// The query's vector (dense retrieval on, [`Store::dense_off`]).
    fn query_vector(&self, query: &str) -> Result<Vec<f32>, StoreError> {
        let Some(embedder) = &self.embedder else {
            return Ok(Vec::new());
        };
        Ok(embedder
            .embed(&[query])
            .map_err(|e| StoreError::Invalid(format!("making the query's vector: {e}")))?
            .into_iter()
            .next()
            .unwrap_or_default())
    }

    /// Entities with a name whose meaning is near `name` (its vector's
    /// similarity with one of the entity's names is at least
    /// [`super::NAME_MATCH_MIN`]), best first with that similarity, at most
    /// `k`: "Lindqvist" finds Ivar Lindqvist, "the Kestrel institute of
    /// coastal studies" the Kestrel Institute for Coastal Studies. Empty when
    /// dense retrieval is off ([`Store::dense_off`]).
    pub fn similar_entities(
        &self,
        name: &str,
        k: usize,
    ) -> Result<Vec<(EntityInfo, f32)>, StoreError> {
        if self.dense_off().is_some() || name.trim().is_empty() {
            return Ok(Vec::new());
        }
        let vector = self.query_vector(name)?;
        let hits = self
            .name_index()?
            .search(&vector, k.min(MAX_K), super::NAME_MATCH_MIN);
        let mut out = Vec::with_capacity(hits.len());
        for (key, score) in hits {
            if let Some(e) = self.entity(&key)? {
                out.push((e, score));
            }
        }
        Ok(out)
    }

    /// The entity-name vectors of the committed packs, mapped on first use.
    fn name_index(&self) -> Result<Arc<NameIndex>, StoreError> {
        super::loaded(&self.names, "name vectors", || {
            NameIndex::open(self.dir(), &self.listed.packs)
        })
    }

    /// The vectors of the committed packs, mapped on first use.
    fn dense_index(&self) -> Result<Arc<DenseIndex>, StoreError> {
        super::loaded(&self.dense, "vectors", || {
            DenseIndex::open(self.dir(), &self.listed.packs)
        })
    }

    /// The text of a chunk, read from its pack's text (the one copy: the
    /// index does not store it). A text gone while its file is listed means
    /// a writer replaced the file since this reader read the manifest, or
    /// that the store is damaged ([`Store::gone`]).
    fn chunk_text(&self, c: &ChunkRecord) -> Result<String, StoreError> {
        let (p, base) = self.text_of(&c.file)?;
        let buf = read_range(&p, base.saturating_add(c.blob_offset), c.len()).map_err(|e| {
            if e.kind() == std::io::ErrorKind::NotFound {
                self.gone(super::missing_under(self.dir(), &p, false))
            } else {
                StoreError::Io {
                    path: p.clone(),
                    source: e,
                }
            }
        })?;
        String::from_utf8(buf).map_err(|_| {
            StoreError::Invalid(format!(
                "chunk {}: its text in {} is not on character boundaries",
                c.id,
                p.display()
            ))
        })
    }

    fn chunk_record(&self, id: ChunkId) -> Result<ChunkRecord, StoreError> {
        match self.index.chunk(id)? {
            Some(c) if self.is_committed(&c.file) => Ok(c),
            _ => Err(StoreError::UnknownId(format!("chunk {id}"))),
        }
    }

    pub(super) fn doc_record(&self, id: DocId) -> Result<DocRecord, StoreError> {
        match self.index.doc(id)? {
            Some(d) if self.is_committed(&d.file) => Ok(d),
            _ => Err(StoreError::UnknownId(format!("document {id}"))),
        }
    }

    /// A document id given as text: not one is an unknown document.
    fn doc_id(doc: &str) -> Result<DocId, StoreError> {
        doc.parse()
            .map_err(|_| StoreError::UnknownId(format!("document {}", doc.trim())))
    }

    /// Read a chunk (`c12`), a sentence (`c12.s3`) or a sentence range
    /// (`c12.s2-s4`), given as text (parsed as a [`PassageId`]).
    pub fn read(&self, id: &str) -> Result<Passage, StoreError> {
        let id: PassageId = id.parse().map_err(|e: rlmkg_ids::ParseIdError| {
            StoreError::Invalid(format!("{e} (ids look like c12, c12.s3 or c12.s2-s4)"))
        })?;
        self.read_passage(id)
    }

    /// Read a chunk or a sentence range of it.
    pub fn read_passage(&self, id: PassageId) -> Result<Passage, StoreError> {
        let range = id
            .sentences
            .map(|r| (r.first() as usize, r.last() as usize));
        let c = self.chunk_record(id.chunk)?;
        let d = self.doc_record(c.doc)?;
        let text = self.chunk_text(&c)?;
        let meta: DocMeta = serde_json::from_str(&d.meta).unwrap_or_default();
        let mode = SegmentMode::for_format(&d.format);
        let base = c.start as usize;
        let mut all = Vec::new();
        let mut line = c.line_start as u32;
        let mut pos = 0usize;
        for (k, (a, b)) in sentences(&text, mode).into_iter().enumerate() {
            line = line_at(&text, pos, line, a);
            pos = a;
            let line_end = line_at(&text, a, line, b);
            all.push(SentenceSpan {
                id: u32::try_from(k + 1)
                    .ok()
                    .and_then(|k| id.chunk.sentence(k))
                    .map_or_else(String::new, |p| p.to_string()),
                text: text[a..b].to_string(),
                start: base + a,
                end: base + b,
                line_start: line,
                line_end,
                page: meta.page_at((base + a) as u64),
                heading: meta.heading_at((base + a) as u64),
            });
        }
        let (sentences, text, start, end) = match range {
            None => (all, text.clone(), base, c.end as usize),
            Some((a, b)) => {
                if b > all.len() {
                    return Err(StoreError::UnknownId(format!(
                        "{id}: chunk {} has {} sentences",
                        id.chunk,
                        all.len()
                    )));
                }
                let sel: Vec<SentenceSpan> = all[a - 1..b].to_vec();
                let (s, e) = (sel[0].start, sel[sel.len() - 1].end);
                (sel, text[s - base..e - base].to_string(), s, e)
            }
        };
        Ok(Passage {
            id: id.to_string(),
            chunk: id.chunk,
            doc: DocRef {
                id: d.id.to_string(),
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
    pub fn chunk_ids_of_doc(&self, doc: &str) -> Result<Vec<ChunkId>, StoreError> {
        let d = self.doc_record(Self::doc_id(doc)?)?;
        Ok((d.chunk_first..d.chunk_first + d.chunk_count)
            .map(ChunkId)
            .collect())
    }

    /// `from_cards` on the entity cards while the view is not loaded
    /// ([`Store::cards`]), else `from_view` on the view: the same answer.
    fn cards_or_view<T>(
        &self,
        from_cards: impl FnOnce(&EntityCards) -> Result<T, GraphError>,
        from_view: impl FnOnce(&GraphView) -> T,
    ) -> Result<T, StoreError> {
        match self.cards() {
            Some(cards) => Ok(from_cards(&cards)?),
            None => Ok(from_view(self.view()?.as_ref())),
        }
    }

    /// Entities whose names match `query`.
    pub fn entities(&self, query: &str, k: usize) -> Result<Vec<EntityInfo>, StoreError> {
        Ok(self.view()?.search_entities(query, k.min(MAX_K)))
    }

    /// One entity by id, name or alias (from the entity cards while the
    /// view is not loaded, [`Store::cards`]: the same answer).
    pub fn entity(&self, id_or_name: &str) -> Result<Option<EntityInfo>, StoreError> {
        self.cards_or_view(|c| c.entity(id_or_name), |v| v.entity(id_or_name))
    }

    /// Neighbors of an entity (from the entity cards while the view is not
    /// loaded).
    pub fn neighbors(
        &self,
        entity: &str,
        k: usize,
        relation: Option<&str>,
    ) -> Result<Vec<Neighbor>, StoreError> {
        let k = k.min(MAX_K);
        self.cards_or_view(
            |c| c.neighbors(entity, k, relation),
            |v| v.neighbors(entity, k, relation),
        )
    }

    /// The facts about an entity (as subject or object), up to `k`, grouped
    /// by predicate, each with the sentence of its evidence that names one of
    /// its ends (co-occurrence is not a fact and is left out).
    pub fn facts(&self, entity: &str, k: usize) -> Result<Vec<Fact>, StoreError> {
        let Some(e) = self.entity(entity)? else {
            return Ok(Vec::new());
        };
        let mut out = Vec::new();
        // The evidence chunks read so far (facts of one entity share them).
        let mut read = std::collections::HashMap::new();
        for n in self.neighbors(&e.id, MAX_K, None)? {
            if out.len() >= k {
                break;
            }
            if !rlmkg_graph::is_fact(&n.relation) {
                // Facts come first: the rest are co-occurrences.
                break;
            }
            // The label as read from the subject, and which end `e` is.
            let (stored, inverse) = rlmkg_graph::stored_label(&n.relation);
            let other = self.entity(&n.id)?;
            let names = |info: &EntityInfo| -> Vec<String> {
                std::iter::once(info.name.to_lowercase())
                    .chain(info.aliases.iter().map(|a| a.to_lowercase()))
                    .collect()
            };
            let mut wanted = names(&e);
            if let Some(o) = &other {
                wanted.extend(names(o));
            }
            let sentence = self.sentence_naming(&n.evidence, &wanted, &mut read)?;
            let (subject, subject_name, object, object_name, object_type) = if inverse {
                (
                    n.id.clone(),
                    n.name.clone(),
                    e.id.clone(),
                    e.name.clone(),
                    e.kind.clone(),
                )
            } else {
                (
                    e.id.clone(),
                    e.name.clone(),
                    n.id.clone(),
                    n.name.clone(),
                    n.kind.clone(),
                )
            };
            out.push(Fact {
                subject,
                subject_name,
                predicate: stored,
                object,
                object_name,
                object_type,
                sentence,
                evidence: n.evidence,
            });
        }
        out.sort_by(|a, b| a.predicate.cmp(&b.predicate));
        Ok(out)
    }

    /// The id of the first sentence of the evidence chunks that holds one
    /// of `names` (lower case); `read` keeps each chunk's sentences (id,
    /// lower-case text) once read.
    fn sentence_naming(
        &self,
        chunks: &[ChunkId],
        names: &[String],
        read: &mut std::collections::HashMap<ChunkId, Vec<(String, String)>>,
    ) -> Result<Option<String>, StoreError> {
        for &c in chunks.iter().take(3) {
            let sentences = match read.entry(c) {
                std::collections::hash_map::Entry::Occupied(e) => e.into_mut(),
                std::collections::hash_map::Entry::Vacant(e) => {
                    let passage = self.read_passage(PassageId {
                        chunk: c,
                        sentences: None,
                    })?;
                    e.insert(
                        passage
                            .sentences
                            .into_iter()
                            .map(|s| (s.id, s.text.to_lowercase()))
                            .collect(),
                    )
                }
            };
            if let Some((id, _)) = sentences.iter().find(|(_, t)| {
                names
                    .iter()
                    .any(|n| !n.is_empty() && t.contains(n.as_str()))
            }) {
                return Ok(Some(id.clone()));
            }
        }
        Ok(None)
    }

    /// Shortest connecting paths between two entities.
    pub fn path(&self, a: &str, b: &str, max_hops: usize) -> Result<Vec<GraphPath>, StoreError> {
        Ok(self.view()?.paths(a, b, max_hops.min(MAX_HOPS), 5))
    }

    /// Entities a chunk mentions (or is about, through its document's title).
    pub fn entities_of_chunk(&self, chunk: ChunkId) -> Result<Vec<EntityInfo>, StoreError> {
        let view = self.view()?;
        Ok(view
            .entities_of_chunk(chunk)
            .iter()
            .filter_map(|id| view.entity(id))
            .collect())
    }

    /// Chunk ids mentioning an entity, in id order (from the entity cards
    /// while the view is not loaded).
    pub fn chunks_of_entity(&self, entity: &str) -> Result<Vec<ChunkId>, StoreError> {
        self.cards_or_view(
            |c| c.chunks_of_entity(entity),
            |v| v.chunks_of_entity(entity),
        )
    }

    /// Chunks ranked by personalized PageRank from seed entities (ids or names),
    /// optionally also seeded by the search hits of `query` in the store's
    /// mode ([`Store::search_mode`]); in hybrid mode, the PageRank seeded by
    /// the BM25 hits fused with the one seeded by the dense hits. In dense and
    /// hybrid mode a seed that names no entity stands for the entity whose
    /// name is nearest by meaning ([`Store::similar_entities`]), if any.
    pub fn related(
        &self,
        seeds: &[String],
        query: Option<&str>,
        k: usize,
    ) -> Result<Vec<RankedChunk>, StoreError> {
        self.related_with(seeds, query, k, self.search_mode())
    }

    /// [`Store::related`] with the query's hits searched by `mode`.
    pub fn related_with(
        &self,
        seeds: &[String],
        query: Option<&str>,
        k: usize,
        mode: SearchMode,
    ) -> Result<Vec<RankedChunk>, StoreError> {
        let k = k.min(MAX_K);
        let view = self.view()?;
        let mut seed_entities: Vec<(String, f64)> = Vec::with_capacity(seeds.len());
        for s in seeds {
            // A seed no entity is named by stands, by meaning, for the entity
            // whose name is nearest (dense and hybrid), weighted by how near.
            if mode != SearchMode::Bm25 && view.entity(s).is_none() {
                if let Some((e, score)) = self.similar_entities(s, 1)?.into_iter().next() {
                    seed_entities.push((e.id, f64::from(score)));
                }
                continue;
            }
            seed_entities.push((s.clone(), 1.0));
        }
        let query = query.filter(|q| !q.trim().is_empty());
        // PageRank from the question's entities and the search hits of one mode.
        let rank = |mode: SearchMode, depth: usize| -> Result<Vec<(ChunkId, f64)>, StoreError> {
            let mut seed_chunks = Vec::new();
            if let Some(q) = query {
                for h in self.search_with(q, RELATED_SEED_HITS, mode)? {
                    seed_chunks.push((h.id, f64::from(h.score.max(0.0))));
                }
            }
            Ok(view.rank_chunks(&seed_entities, &seed_chunks, depth))
        };
        let ranked = match mode {
            // Hybrid: the PageRank seeded by BM25's hits and the one seeded by
            // the dense hits, fused by reciprocal rank (not one PageRank seeded
            // by the fused hits: fusion flattens the seeds' weights).
            SearchMode::Hybrid if query.is_some() => {
                let depth = (k * 2 + 4).max(FUSION_DEPTH);
                let ids = |r: Vec<(ChunkId, f64)>| r.into_iter().map(|(id, _)| id).collect();
                let by_bm25: Vec<ChunkId> = ids(rank(SearchMode::Bm25, depth)?);
                let by_dense: Vec<ChunkId> = ids(rank(SearchMode::Dense, depth)?);
                fuse(&[(&by_bm25, BM25_WEIGHT), (&by_dense, DENSE_WEIGHT)])
            }
            SearchMode::Hybrid => rank(SearchMode::Bm25, k * 2 + 4)?,
            mode => rank(mode, k * 2 + 4)?,
        };
        self.first_k(ranked, k, |c, id, score| {
            Ok(RankedChunk {
                text: self.chunk_text(&c)?,
                path: self.path_of(&c.file),
                id,
                doc: c.doc,
                title: c.title,
                score,
            })
        })
    }

    /// Run a read-only SPARQL query: on the remote endpoint when one is set
    /// ([`Store::set_sparql_remote`]; the query is checked read-only before
    /// it is sent), else on the RDF built from the committed records on the
    /// first call of a process.
    pub fn sparql(&self, query: &str, timeout: Duration) -> Result<SparqlOutput, StoreError> {
        if let Some(remote) = self.sparql_remote() {
            rlmkg_graph::check_read_only(query)?;
            return Ok(remote.sparql(query, timeout)?);
        }
        Ok(self.rdf()?.sparql(query, timeout)?)
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
                    id: d.id.to_string(),
                    path: d.path,
                    title: d.title,
                    chunks: d.chunk_count,
                    bytes: d.bytes,
                    format: d.format,
                    record: meta.record,
                }
            })
            .collect();
        out.sort_by_key(|d| doc_number(&d.id).unwrap_or(u64::MAX));
        Ok(out)
    }

    /// Normalized text of a document between byte offsets (clamped to the text and
    /// to char boundaries).
    pub fn doc_text(&self, doc: &str, start: usize, end: usize) -> Result<String, StoreError> {
        let d = self.doc_record(Self::doc_id(doc)?)?;
        let full = self.read_blob(&d)?;
        let s = floor_boundary(&full, start);
        let e = floor_boundary(&full, end.max(s));
        Ok(full[s..e].to_string())
    }

    pub(super) fn read_blob(&self, d: &DocRecord) -> Result<String, StoreError> {
        let (p, base) = self.text_of(&d.file)?;
        let buf = read_range(&p, base.saturating_add(d.blob_offset), d.bytes).map_err(|e| {
            if e.kind() == std::io::ErrorKind::NotFound {
                self.gone(super::missing_under(self.dir(), &p, false))
            } else if e.kind() == std::io::ErrorKind::UnexpectedEof {
                StoreError::Invalid(format!(
                    "document {}: text file {} is shorter than recorded",
                    d.id,
                    p.display()
                ))
            } else {
                StoreError::Io {
                    path: p.clone(),
                    source: e,
                }
            }
        })?;
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
            facts: view.fact_count() as u64,
            mentions: view.mention_count(),
            chars: m.files.values().map(|f| f.text_bytes).sum(),
            entity_types: view.type_counts(),
            quads: view.summary().quads,
        })
    }

    /// Export the graph as RDF.
    pub fn export(&self, format: RdfFormat, out: &mut dyn Write) -> Result<(), StoreError> {
        Ok(self.rdf()?.export(format, out)?)
    }

    /// The texts of every committed chunk (for benchmarks comparing against bare tantivy).
    pub fn chunk_texts(&self) -> Result<Vec<String>, StoreError> {
        self.index
            .chunks()?
            .into_iter()
            .filter(|c| self.is_committed(&c.file))
            .map(|c| self.chunk_text(&c))
            .collect()
    }
}

/// The store as the model-free strategy's [`Corpus`]: each method is the
/// store's own query of the same name.
impl Corpus for Store {
    type Error = StoreError;

    /// BM25 whatever the store's mode: the model-free strategy reads "no
    /// hits" as "no chunk has these words", which a dense search never says.
    fn search(&self, query: &str, k: usize) -> Result<Vec<SearchHit>, StoreError> {
        Store::search_with(self, query, k, SearchMode::Bm25)
    }
    fn read(&self, id: &str) -> Result<Passage, StoreError> {
        Store::read(self, id)
    }
    fn entities(&self, query: &str, k: usize) -> Result<Vec<EntityInfo>, StoreError> {
        Store::entities(self, query, k)
    }
    fn entity(&self, id_or_name: &str) -> Result<Option<EntityInfo>, StoreError> {
        Store::entity(self, id_or_name)
    }
    fn path(&self, a: &str, b: &str, max_hops: usize) -> Result<Vec<GraphPath>, StoreError> {
        Store::path(self, a, b, max_hops)
    }
    fn entities_of_chunk(&self, chunk: ChunkId) -> Result<Vec<EntityInfo>, StoreError> {
        Store::entities_of_chunk(self, chunk)
    }
    fn chunks_of_entity(&self, entity: &str) -> Result<Vec<ChunkId>, StoreError> {
        Store::chunks_of_entity(self, entity)
    }
    fn chunk_ids_of_doc(&self, doc: &str) -> Result<Vec<ChunkId>, StoreError> {
        Store::chunk_ids_of_doc(self, doc)
    }
    /// Seeded by BM25's hits whatever the store's mode: the model-free
    /// strategy's rules were fitted on that ranking, and the hybrid one
    /// answered one HotpotQA-100 question fewer (BENCHMARKS.md).
    fn related(
        &self,
        seeds: &[String],
        query: Option<&str>,
        k: usize,
    ) -> Result<Vec<RankedChunk>, StoreError> {
        Store::related_with(self, seeds, query, k, SearchMode::Bm25)
    }
}

/// `len` bytes of the file at `path` from byte `offset`; an error when the
/// file holds fewer (sized by what is read, not by the claim).
pub(super) fn read_range(path: &Path, offset: u64, len: u64) -> std::io::Result<Vec<u8>> {
    use std::io::{Read, Seek, SeekFrom};
    let mut f = std::fs::File::open(path)?;
    f.seek(SeekFrom::Start(offset))?;
    let mut buf = Vec::new();
    f.take(len).read_to_end(&mut buf)?;
    if buf.len() as u64 != len {
        return Err(std::io::Error::new(
            std::io::ErrorKind::UnexpectedEof,
            format!("{} is shorter than recorded", path.display()),
        ));
    }
    Ok(buf)
}
