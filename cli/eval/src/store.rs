//! The evaluator's view of a real store: `rlmkg_ingest::Store` behind the
//! [`Retrieval`] trait, plus opening the store and ingesting the corpus.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use rlmkg_ingest::{Embedder, IngestOptions, Progress, SearchMode, Store};

use crate::EvalError;
use crate::score::{Retrieval, RetrievedDoc, distinct_docs};
use crate::seeds::candidates;

/// A store opened for evaluation (shared with the answer runs).
pub struct StoreRetrieval {
    store: Arc<Store>,
}

/// Open (or create) the store at `dir` and bring it up to date with `inputs`,
/// reporting to `progress`.
/// Unchanged inputs are skipped by content hash, so a rerun costs little.
pub fn open_and_ingest(
    dir: &Path,
    inputs: &[PathBuf],
    progress: &dyn Progress,
) -> crate::Result<StoreRetrieval> {
    open_and_ingest_with(dir, inputs, progress, &Dense::default())
}

/// Dense retrieval in an evaluation (issue 46).
#[derive(Debug, Default, Clone)]
pub struct Dense {
    /// Write a vector per chunk with this embedder (and make queries'
    /// vectors with it); `None` keeps the store's choice: the installed
    /// encoder when the store keeps vectors.
    pub embedder: Option<Arc<dyn Embedder>>,
    /// How searches rank; `None` is the store's default (hybrid when it
    /// keeps vectors).
    pub mode: Option<SearchMode>,
}

/// [`open_and_ingest`] with vectors and a search mode.
pub fn open_and_ingest_with(
    dir: &Path,
    inputs: &[PathBuf],
    progress: &dyn Progress,
    dense: &Dense,
) -> crate::Result<StoreRetrieval> {
    let at = |what| {
        move |source| EvalError::StoreAt {
            what,
            path: dir.to_path_buf(),
            source,
        }
    };
    let mut store = Store::create_or_open(dir).map_err(at("open the store"))?;
    let embedder = dense
        .embedder
        .clone()
        .or_else(|| rlmkg::store_embedder(&store.manifest().settings));
    let opts = IngestOptions {
        embedder: embedder.clone(),
        fact_reader: rlmkg_ingest::CachedFactReader::of(&store.manifest().settings),
        ..IngestOptions::default()
    };
    store
        .ingest(inputs, &opts, progress)
        .map_err(at("ingest the corpus into"))?;
    store.set_embedder(embedder);
    store.set_search_mode(dense.mode);
    Ok(StoreRetrieval {
        store: Arc::new(store),
    })
}

impl StoreRetrieval {
    /// The opened store, to share with the `ask` engine.
    pub fn store(&self) -> Arc<Store> {
        Arc::clone(&self.store)
    }

    /// Documents in the store.
    pub fn document_count(&self) -> crate::Result<usize> {
        Ok(self.store.stats()?.docs as usize)
    }

    /// Store entity ids for the names found in `question` (the graph seeds), with
    /// their display names.
    pub fn seeds(&self, question: &str) -> crate::Result<Vec<(String, String)>> {
        let mut out: Vec<(String, String)> = Vec::new();
        for name in candidates(question) {
            if let Some(e) = self.store.entity(&name)?
                && !out.iter().any(|(id, _)| *id == e.id)
            {
                out.push((e.id.clone(), e.name.clone()));
            }
        }
        Ok(out)
    }
}

impl Retrieval for StoreRetrieval {
    fn bm25(&self, question: &str, k: usize) -> crate::Result<Vec<RetrievedDoc>> {
        let hits = self.store.search(question, k.saturating_mul(4))?;
        let docs = hits.into_iter().map(|h| RetrievedDoc {
            id: h.doc.to_string(),
            title: h.title,
            path: h.path,
        });
        Ok(distinct_docs(docs).into_iter().take(k).collect())
    }

    fn graph(&self, question: &str, k: usize) -> crate::Result<(Vec<RetrievedDoc>, Vec<String>)> {
        let seeds = self.seeds(question)?;
        let ids: Vec<String> = seeds.iter().map(|(id, _)| id.clone()).collect();
        let ranked = self
            .store
            .related(&ids, Some(question), k.saturating_mul(4))?;
        let docs = ranked.into_iter().map(|c| RetrievedDoc {
            id: c.doc.to_string(),
            title: c.title,
            path: c.path,
        });
        let docs: Vec<RetrievedDoc> = distinct_docs(docs).into_iter().take(k).collect();
        Ok((docs, seeds.into_iter().map(|(_, name)| name).collect()))
    }

    fn doc_of(&self, id: &str) -> crate::Result<Option<RetrievedDoc>> {
        match self.store.read(id) {
            Ok(p) => Ok(Some(RetrievedDoc {
                id: p.doc.id,
                title: p.doc.title,
                path: p.doc.path,
            })),
            Err(_) => Ok(None),
        }
    }

    fn doc_text(&self, doc_id: &str) -> crate::Result<String> {
        Ok(self.store.doc_text(doc_id, 0, usize::MAX)?)
    }
}
