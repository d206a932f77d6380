//! The invariant checker of a store (SPEC §3.2): manifest, index, texts,
//! records, their RDF and the view snapshot describe the same documents and
//! chunks, and every span lies where it says.

use rlmkg_ids::DocId;
use std::collections::{BTreeSet, HashMap, HashSet};

use super::Store;
use crate::error::StoreError;
use crate::types::InvariantReport;

/// Entities of a big store whose entity cards the check compares with the
/// view (spread over all of them; every one in a smaller store).
const CARDS_CHECKED: usize = 2_000;

impl Store {
    /// Check the SPEC §3.2 invariants.
    pub fn check_invariants(&self) -> Result<InvariantReport, StoreError> {
        let mut r = InvariantReport::default();
        // A reader sees the committed state only: index records of a batch
        // the manifest does not list yet are not its concern (a writer's
        // recovery removes them, so for a writer they are violations).
        let reader = self.lock.is_none();
        let visible = |file: &str| !reader || self.is_committed(file);
        let docs: Vec<_> = self
            .index
            .docs()?
            .into_iter()
            .filter(|d| visible(&d.file))
            .collect();
        let chunks: Vec<_> = self
            .index
            .chunks()?
            .into_iter()
            .filter(|c| visible(&c.file))
            .collect();
        let mut v = |msg: String| {
            if r.violations.len() < 200 {
                r.violations.push(msg);
            }
        };
        let listed_docs: BTreeSet<rlmkg_ids::DocId> = self
            .manifest
            .files
            .values()
            .flat_map(|f| f.doc_ids().collect::<Vec<_>>())
            .collect();
        let index_docs: BTreeSet<rlmkg_ids::DocId> = docs.iter().map(|d| d.id).collect();
        if listed_docs != index_docs {
            v(format!(
                "manifest and index disagree on documents: {} listed, {} indexed",
                listed_docs.len(),
                index_docs.len()
            ));
        }
        // The RDF derived from the committed records, and those records.
        let (rdf, records) = self.committed_rdf()?;
        let graph_docs = rdf.doc_ids()?;
        if graph_docs != index_docs {
            let extra: Vec<_> = graph_docs
                .symmetric_difference(&index_docs)
                .take(5)
                .collect();
            v(format!(
                "index and graph disagree on documents, e.g. {extra:?}"
            ));
        }
        // The packs the records and texts are read from: every pack the
        // manifest names is there, and holds exactly the documents of the
        // files it names (the RDF above was built from them); only a writer's
        // own store is free of packs of uncommitted ones.
        // A store that keeps vectors keeps one per listed chunk.
        if self.manifest.settings.embedder.is_some() {
            let listed_chunks: u64 = self.manifest.files.values().map(|f| f.chunk_count).sum();
            let held = super::vectors::DenseIndex::open(self.dir(), &self.listed.packs)?.len();
            if held as u64 != listed_chunks {
                v(format!(
                    "the vectors ({held}) and the listed chunks ({listed_chunks}) disagree"
                ));
            }
            // And one per name its listed documents' entities go by, no other.
            let names = super::names::NameIndex::open(self.dir(), &self.listed.packs)?;
            let held: HashSet<&(String, String)> = names.pairs().collect();
            let want: HashSet<(String, String)> =
                super::names::vector_names(records.iter().flat_map(|d| &d.entities))
                    .into_iter()
                    .collect();
            let stale = held.iter().filter(|p| !want.contains(**p)).count();
            let missing = want.iter().filter(|p| !held.contains(p)).count();
            if stale + missing > 0 {
                v(format!(
                    "the entity-name vectors and the records disagree: {stale} name(s) of no \
                     listed document, {missing} name(s) without a vector"
                ));
            }
        }
        let on_disk = self.graph.packs()?;
        let named: BTreeSet<u64> = self.listed.packs.iter().copied().collect();
        let extra_ok = self.lock.is_none();
        let off: Vec<_> = on_disk
            .symmetric_difference(&named)
            .filter(|p| !(extra_ok && on_disk.contains(*p)))
            .take(5)
            .collect();
        if !off.is_empty() {
            v(format!(
                "manifest and graph files disagree on packs, e.g. {off:?}"
            ));
        }
        let mut in_packs: HashMap<u64, usize> = HashMap::new();
        for f in self.manifest.files.values() {
            if let Some(p) = f.pack {
                *in_packs.entry(p).or_default() += f.doc_count as usize;
            }
        }
        for (&p, &n) in &in_packs {
            match self.graph.read_pack(p) {
                Ok(docs) if docs.len() == n => {}
                Ok(docs) => v(format!(
                    "pack {p}: {} documents in its records, {n} listed",
                    docs.len()
                )),
                Err(e) => v(format!("pack {p}: {e}")),
            }
        }
        let mut chunk_span: HashMap<String, (String, u64, u64)> = HashMap::new();
        let mut texts: HashMap<DocId, String> = HashMap::new();
        for d in &docs {
            match self.read_blob(d) {
                Ok(t) => {
                    texts.insert(d.id, t);
                }
                Err(e) => v(format!("document {}: text unreadable: {e}", d.id)),
            }
        }
        let by_id: HashMap<DocId, &rlmkg_index::DocRecord> =
            docs.iter().map(|d| (d.id, d)).collect();
        let mut per_doc: HashMap<DocId, u64> = HashMap::new();
        for c in &chunks {
            *per_doc.entry(c.doc).or_default() += 1;
            // A chunk's text is read from its file's text at `blob_offset`:
            // it is `doc.text[start..end]` when that is where the document's
            // bytes `start..end` lie, on character boundaries.
            let ok = by_id.get(&c.doc).is_some_and(|d| {
                d.file == c.file
                    && c.blob_offset == d.blob_offset + c.start
                    && texts
                        .get(&c.doc)
                        .is_some_and(|t| t.get(c.start as usize..c.end as usize).is_some())
            });
            if !ok {
                v(format!(
                    "chunk {}: text differs from document {} bytes {}..{}",
                    c.id, c.doc, c.start, c.end
                ));
            }
            chunk_span.insert(c.id.to_string(), (c.doc.to_string(), c.start, c.end));
        }
        for d in &docs {
            if per_doc.get(&d.id).copied().unwrap_or(0) != d.chunk_count {
                v(format!(
                    "document {}: {} chunks indexed, {} expected",
                    d.id,
                    per_doc.get(&d.id).copied().unwrap_or(0),
                    d.chunk_count
                ));
            }
        }
        let graph_chunks = rdf.chunk_ids()?;
        let gset: BTreeSet<&str> = graph_chunks.iter().map(|(c, _)| c.as_str()).collect();
        let chunk_names: Vec<String> = chunks.iter().map(|c| c.id.to_string()).collect();
        let iset: BTreeSet<&str> = chunk_names.iter().map(String::as_str).collect();
        if gset != iset {
            let extra: Vec<_> = gset.symmetric_difference(&iset).take(5).collect();
            v(format!(
                "index and graph disagree on chunks, e.g. {extra:?}"
            ));
        }
        for (c, d) in &graph_chunks {
            if chunk_span.get(c).is_some_and(|(doc, _, _)| doc != d) {
                v(format!("chunk {c}: graph says document {d}"));
            }
        }
        let spans = rdf.spans(&records)?;
        for s in &spans.spans {
            match (chunk_span.get(&s.chunk), s.start, s.end) {
                (Some((doc, cs, ce)), Some(a), Some(b)) => {
                    if *doc != s.doc || a < *cs || b > *ce || a >= b {
                        v(format!(
                            "{}: span {a}..{b} outside chunk {} ({cs}..{ce})",
                            s.node, s.chunk
                        ));
                    }
                }
                _ => v(format!("{}: span without a known chunk or offsets", s.node)),
            }
        }
        for rel in &spans.relations_without_evidence {
            v(format!("relation {rel} has no evidence"));
        }
        for m in &spans.mention_mismatch {
            v(format!("record and graph disagree on mentions: {m}"));
        }
        // The snapshot readers open describes what the records do.
        if let Some(name) = &self.manifest.view_snapshot {
            let listed = &self.listed;
            let rebuilt = self
                .graph
                .build_view(&listed.packs, &|d| listed.contains(d))?
                .summary();
            let view = self.view()?;
            let opened = view.summary();
            if opened != rebuilt {
                v(format!(
                    "the view snapshot differs from the records: {opened:?} vs {rebuilt:?}"
                ));
            }
            // Its entity cards answer as it does (a spread of its entities).
            let differ = self
                .graph
                .open_cards(name)
                .and_then(|c| c.map_or(Ok(Vec::new()), |c| c.disagreements(&view, CARDS_CHECKED)));
            match differ {
                Ok(differ) => {
                    for d in differ {
                        v(format!(
                            "the entity cards differ from the view snapshot: {d}"
                        ));
                    }
                }
                Err(e) => v(format!("the entity cards of the view snapshot: {e}")),
            }
        }
        r.docs = docs.len() as u64;
        r.chunks = chunks.len() as u64;
        r.spans = spans.spans.len() as u64;
        r.relations = spans.relations as u64;
        Ok(r)
    }
}
