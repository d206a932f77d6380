//! The facts a set of cited sentences states (issue 44): what the answer
//! check walks from the question to the short answer.
//!
//! A fact belongs to a sentence when the exact byte span its extraction
//! recorded as evidence starts inside that sentence — the graph's records
//! keep those spans; the view keeps only chunks, so this reads the records
//! of the cited documents' packs.

use std::collections::HashMap;

use rlmkg_graph::DocGraph;
use rlmkg_ids::{DocId, PassageId};

use super::Store;
use crate::error::StoreError;
use rlmkg_corpus::Fact;

/// Most passages [`Store::facts_in`] reads (an answer cites a few).
const MAX_CITED_PASSAGES: usize = 64;

impl Store {
    /// The facts stated in `passages`' sentences (facts only, never
    /// co-occurrence): each fact whose evidence span starts in one of their
    /// sentences, with that sentence's id, in the order of `passages` and
    /// of the records. Names and kinds are the store's (the view's
    /// canonical entity), so they agree with `entity`. At most 64
    /// passages are read; an id of a file removed
    /// since is an error like [`Store::read`]'s.
    pub fn facts_in(&self, passages: &[PassageId]) -> Result<Vec<Fact>, StoreError> {
        let mut packs: HashMap<u64, Vec<DocGraph>> = HashMap::new();
        let mut out: Vec<Fact> = Vec::new();
        let mut seen = std::collections::HashSet::new();
        for &id in passages.iter().take(MAX_CITED_PASSAGES) {
            let passage = self.read_passage(id)?;
            let doc: DocId = passage
                .doc
                .id
                .parse()
                .map_err(|e: rlmkg_ids::ParseIdError| StoreError::Invalid(e.to_string()))?;
            let record = self.doc_record(doc)?;
            let Some(pack) = self.committed.get(&record.file).and_then(|c| c.text) else {
                continue;
            };
            let pack = pack.0;
            if let std::collections::hash_map::Entry::Vacant(e) = packs.entry(pack) {
                e.insert(self.graph.read_pack(pack).map_err(|e| self.changed_or(e))?);
            }
            let Some(graph) = packs
                .get(&pack)
                .and_then(|g| g.iter().find(|g| g.doc == doc))
            else {
                continue;
            };
            for r in graph
                .relations
                .iter()
                .filter(|r| rlmkg_graph::is_fact(&r.label))
            {
                for e in r.evidence.iter().filter(|e| e.chunk == id.chunk) {
                    let Some(sentence) = passage
                        .sentences
                        .iter()
                        .find(|s| (s.start as u64) <= e.start && e.start < s.end as u64)
                    else {
                        continue;
                    };
                    if !seen.insert((
                        r.subject.clone(),
                        r.label.clone(),
                        r.object.clone(),
                        sentence.id.clone(),
                    )) {
                        continue;
                    }
                    let (Some(subject), Some(object)) =
                        (self.entity(&r.subject)?, self.entity(&r.object)?)
                    else {
                        continue;
                    };
                    out.push(Fact {
                        subject: subject.id,
                        subject_name: subject.name,
                        predicate: r.label.clone(),
                        object: object.id,
                        object_name: object.name,
                        object_type: object.kind,
                        sentence: Some(sentence.id.clone()),
                        evidence: vec![id.chunk],
                    });
                }
            }
        }
        Ok(out)
    }
}
