//! The HNSW graph against exact dense search (issue 46), on a store that
//! [`super::search::measure`] wrote: the graph built with the threshold
//! lowered, then each query searched both ways; recall@10 is the share of
//! the exact top 10 that the graph's top 10 holds.
//!
//! On the synthetic vectors of `bench scale --vectors` the neighbours of a
//! pseudo-random query are near-ties in a high dimension (an ANN worst
//! case): the recall measured there is a floor, not what real encoder
//! vectors, which cluster, get.

use std::collections::HashSet;
use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use rlmkg_ingest::{ANN_EF_SEARCH, Embedder, Store};
use serde::Serialize;

/// The graph against exact search on one store.
#[derive(Debug, Clone, Serialize)]
pub struct AnnRow {
    /// Wall seconds to build and write the graph.
    pub build_secs: f64,
    /// The graph file (`vectors/ann.hnsw`), MB.
    pub graph_mb: f64,
    /// Candidates kept while searching ([`ANN_EF_SEARCH`]).
    pub ef_search: usize,
    /// Mean share of the exact top `k` found by the graph's top `k`.
    pub recall: f64,
    /// Exact search (every vector scored), p50 and p99, ms.
    pub exact_ms: (f64, f64),
    /// Search through the graph, p50 and p99, ms.
    pub ann_ms: (f64, f64),
}

/// Build the graph in `store_dir` (vectors made by `embedder`), then search
/// each of `queries` `rounds` times both ways for `k` hits; `percentiles`
/// turns samples in ms into p50 and p99.
pub fn measure(
    store_dir: &Path,
    embedder: Arc<dyn Embedder>,
    queries: &[&str],
    (k, rounds): (usize, usize),
    percentiles: fn(Vec<f64>) -> (f64, f64),
) -> anyhow::Result<AnnRow> {
    let t = Instant::now();
    {
        let mut writer = Store::create_or_open(store_dir)?;
        writer.set_ann_min_vectors(1);
        writer.refresh_ann_index()?;
    }
    let build_secs = t.elapsed().as_secs_f64();
    let graph = store_dir.join("vectors").join("ann.hnsw");
    let graph_mb = std::fs::metadata(&graph).map_or(0.0, |m| m.len() as f64 / 1e6);
    let mut store = Store::open_read(store_dir)?;
    store.set_embedder(Some(embedder));
    if !store.has_ann_index()? {
        anyhow::bail!("no HNSW graph was built in {}", store_dir.display());
    }
    let (mut exact_ms, mut ann_ms, mut recall) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..rounds {
        for &q in queries {
            let t = Instant::now();
            let exact = store.nearest_chunks(q, k, true)?;
            exact_ms.push(t.elapsed().as_secs_f64() * 1e3);
            let t = Instant::now();
            let ann = store.nearest_chunks(q, k, false)?;
            ann_ms.push(t.elapsed().as_secs_f64() * 1e3);
            let found: HashSet<_> = ann.iter().map(|h| h.0).collect();
            let hit = exact.iter().filter(|h| found.contains(&h.0)).count();
            recall.push(hit as f64 / exact.len().max(1) as f64);
        }
    }
    Ok(AnnRow {
        build_secs,
        graph_mb,
        ef_search: ANN_EF_SEARCH,
        recall: recall.iter().sum::<f64>() / recall.len().max(1) as f64,
        exact_ms: percentiles(exact_ms),
        ann_ms: percentiles(ann_ms),
    })
}
