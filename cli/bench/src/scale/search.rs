//! `rlmkg bench scale --vectors` (issue 46): query latency of `search` in
//! each mode and of hybrid `related`, and the store's size with a vector per
//! chunk, at each scale of the corpus.
//!
//! **What is synthetic.** The encoder makes 5–13 chunks a second on 2 cores,
//! so encoding ×10 the corpus (hundreds of thousands of chunks) would take
//! days. The store is instead ingested in this process with
//! [`SyntheticEmbedder`]: a deterministic pseudo-random unit vector per text,
//! of the encoder's dimension, written through the store's own ingest path.
//! Exact dense search scores every vector whatever its values, so its cost
//! depends on the count and the dimension only; the hits it returns mean
//! nothing. The query's own vector is made by the same synthetic embedder
//! while the search is timed, and the real encoder's time to encode the same
//! queries is measured apart ([`SearchRow::encode_ms`]): a real query
//! costs about the two added.

use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use anyhow::Context;
use rlmkg_ingest::{Embedder, IngestOptions, NoProgress, SearchMode, Store};
use serde::Serialize;

use crate::ingest::{EXCLUDE, bytes_under};

/// The dimension of the synthetic vectors when no encoder is installed to
/// read it from: all-MiniLM-L6-v2's.
const FALLBACK_DIM: usize = 384;

/// Hits asked of every timed query.
const K: usize = 10;

/// Times every query is run in each measure (samples = rounds × queries).
const ROUNDS: usize = 3;

/// The timed queries, one a line: questions a reader of the corpus could ask
/// (the State of the Union addresses), of 5 to 14 words.
const QUERIES: &str = "\
    What did the president say about the tariff on imported goods?\n\
    How large was the national debt at the end of the war?\n\
    Which treaty with Great Britain was ratified by the Senate?\n\
    What was proposed for the relief of the unemployed during the depression?\n\
    How did the government pay for the construction of the Panama Canal?\n\
    What was said about the Indian tribes on the western frontier?\n\
    Which measures were taken against the spread of communism?\n\
    the army and the navy in time of peace\n\
    When was the income tax first proposed to Congress?\n\
    What did the message say about civil service reform?\n\
    How many immigrants arrived in the year before the address?\n\
    What was asked of Congress on the currency and the banks?\n\
    the railroads and the regulation of interstate commerce\n\
    Who negotiated the purchase of Alaska from Russia?\n\
    What did the president report about relations with Mexico?\n\
    health insurance for every American family\n\
    How were the public lands of the territories to be sold?\n\
    What was the surplus in the Treasury and how should it be used?\n\
    nuclear weapons and arms control with the Soviet Union\n\
    What did the address say about education and the schools?";

/// Turns a text into a pseudo-random unit vector seeded by its bytes: the
/// same text always gets the same vector. For benchmarks only: the vectors
/// carry no meaning.
#[derive(Debug, Clone, Copy)]
pub struct SyntheticEmbedder {
    dim: usize,
}

impl SyntheticEmbedder {
    /// Vectors of `dim` numbers.
    pub fn new(dim: usize) -> Self {
        Self { dim: dim.max(1) }
    }

    /// The vector of one text.
    fn vector(&self, text: &str) -> Vec<f32> {
        // FNV-1a of the text seeds a splitmix64 stream.
        let mut state = text.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
            (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
        });
        let mut v: Vec<f32> = (0..self.dim)
            .map(|_| {
                state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
                let mut z = state;
                z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
                z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
                z ^= z >> 31;
                // The top 24 bits as a number in [-1, 1).
                (z >> 40) as f32 / (1u64 << 23) as f32 - 1.0
            })
            .collect();
        let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
        if norm > 0.0 {
            v.iter_mut().for_each(|x| *x /= norm);
        }
        v
    }
}

impl Embedder for SyntheticEmbedder {
    fn identity(&self) -> String {
        format!("synthetic-{} (benchmark only)", self.dim)
    }

    fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, String> {
        Ok(texts.iter().map(|t| self.vector(t)).collect())
    }
}

/// Query latencies and sizes of one shape's store with vectors.
#[derive(Debug, Clone, Serialize)]
pub struct SearchRow {
    /// Chunks in the store, one vector each.
    pub chunks: u64,
    /// The vectors' dimension.
    pub dim: usize,
    /// Wall seconds of the in-process ingest with synthetic vectors.
    pub ingest_secs: f64,
    /// The store's size on disk in MB, vectors included.
    pub store_mb: f64,
    /// Of it, the chunks' vector files (`vectors/p<n>.vec`), in MB.
    pub vectors_mb: f64,
    /// Of it, the entity names' vector files (`vectors/p<n>.ent`), in MB.
    pub name_vectors_mb: f64,
    /// Timed queries per measure.
    pub samples: usize,
    /// `search --mode bm25`, p50 and p99, ms.
    pub bm25_ms: (f64, f64),
    /// `search --mode dense` (exact over every vector; the synthetic query
    /// vector's cost included, the encoder's not), p50 and p99, ms.
    pub dense_ms: (f64, f64),
    /// `search --mode hybrid`, p50 and p99, ms (encoder not included).
    pub hybrid_ms: (f64, f64),
    /// Hybrid `related` (two searches, two PageRanks, fused), p50 and p99,
    /// ms (encoder not included).
    pub related_ms: (f64, f64),
    /// The real encoder's time to make one query's vector, p50 and p99, ms
    /// (`None`: no encoder installed).
    pub encode_ms: Option<(f64, f64)>,
    /// The HNSW graph built over the same vectors against exact search.
    pub ann: super::ann::AnnRow,
}

/// Ingest `root` into a new store `store` with synthetic vectors, then time
/// the queries; `progress` receives a line per step.
pub fn measure(
    root: &Path,
    store_dir: &Path,
    progress: &mut dyn FnMut(&str),
) -> anyhow::Result<SearchRow> {
    let encoder = rlmkg::installed_embedder();
    let dim = match &encoder {
        Some(e) => e
            .embed(&["a"])
            .map_err(anyhow::Error::msg)
            .context("loading the sentence encoder")?
            .first()
            .map_or(FALLBACK_DIM, Vec::len),
        None => FALLBACK_DIM,
    };
    let synthetic: Arc<dyn Embedder> = Arc::new(SyntheticEmbedder::new(dim));
    progress("ingest with synthetic vectors (in this process)");
    let _ = std::fs::remove_dir_all(store_dir);
    let t = Instant::now();
    {
        let mut store = Store::create_or_open(store_dir)?;
        let opts = IngestOptions {
            exclude: EXCLUDE.iter().map(|s| s.to_string()).collect(),
            embedder: Some(synthetic.clone()),
            ..IngestOptions::default()
        };
        store.ingest(&[root.to_path_buf()], &opts, &NoProgress)?;
    }
    let ingest_secs = t.elapsed().as_secs_f64();
    let store_mb = bytes_under(store_dir, &|_| true) as f64 / 1e6;
    let mb_of = |ext: &str| {
        bytes_under(store_dir, &|p| p.extension().is_some_and(|x| x == ext)) as f64 / 1e6
    };
    let (vectors_mb, name_vectors_mb) = (mb_of("vec"), mb_of("ent"));
    let mut store = Store::open_read(store_dir)?;
    store.set_embedder(Some(synthetic));
    if let Some(off) = store.dense_off() {
        anyhow::bail!("the store written with synthetic vectors: {off}");
    }
    let chunks = store.stats()?.chunks;
    // Warm: the vectors mapped, the view loaded, the index's readers open.
    let queries: Vec<&str> = QUERIES.lines().map(str::trim).collect();
    store.related_with(&[], queries.first().copied(), K, SearchMode::Hybrid)?;
    let mut time = |what: &str, f: &dyn Fn(&str) -> anyhow::Result<()>| {
        progress(what);
        let mut ms = Vec::with_capacity(ROUNDS * queries.len());
        for _ in 0..ROUNDS {
            for &q in &queries {
                let t = Instant::now();
                f(q)?;
                ms.push(t.elapsed().as_secs_f64() * 1e3);
            }
        }
        anyhow::Ok(percentiles(ms))
    };
    let search = |mode: SearchMode| {
        let store = &store;
        move |q: &str| -> anyhow::Result<()> {
            store.search_with(q, K, mode)?;
            Ok(())
        }
    };
    let bm25_ms = time("search --mode bm25", &search(SearchMode::Bm25))?;
    let dense_ms = time("search --mode dense", &search(SearchMode::Dense))?;
    let hybrid_ms = time("search --mode hybrid", &search(SearchMode::Hybrid))?;
    let related_ms = time("hybrid related", &|q| {
        store.related_with(&[], Some(q), K, SearchMode::Hybrid)?;
        Ok(())
    })?;
    let encode_ms = match &encoder {
        Some(e) => Some(time("the encoder, one query at a time", &|q| {
            e.embed(&[q]).map_err(anyhow::Error::msg)?;
            Ok(())
        })?),
        None => None,
    };
    drop(store);
    progress("the HNSW graph against exact dense search");
    let ann = super::ann::measure(
        store_dir,
        Arc::new(SyntheticEmbedder::new(dim)),
        &queries,
        (K, ROUNDS),
        percentiles,
    )?;
    Ok(SearchRow {
        chunks,
        dim,
        ingest_secs,
        store_mb,
        vectors_mb,
        name_vectors_mb,
        samples: ROUNDS * queries.len(),
        bm25_ms,
        dense_ms,
        hybrid_ms,
        related_ms,
        encode_ms,
        ann,
    })
}

/// The 50th and 99th percentiles (nearest rank) of some samples.
fn percentiles(mut ms: Vec<f64>) -> (f64, f64) {
    ms.sort_by(f64::total_cmp);
    let at = |p: f64| {
        let rank = ((p * ms.len() as f64).ceil() as usize).clamp(1, ms.len().max(1));
        ms.get(rank - 1).copied().unwrap_or(f64::NAN)
    };
    (at(0.50), at(0.99))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn synthetic_vectors_are_unit_length_and_deterministic() {
        let e = SyntheticEmbedder::new(384);
        let v = e.embed(&["one text", "another", "one text"]).unwrap();
        assert_eq!(v[0], v[2]);
        assert_ne!(v[0], v[1]);
        for x in &v {
            assert_eq!(x.len(), 384);
            let norm: f32 = x.iter().map(|a| a * a).sum();
            assert!((norm - 1.0).abs() < 1e-4, "{norm}");
        }
    }

    #[test]
    fn the_queries_are_twenty_questions_of_5_to_14_words() {
        let words: Vec<usize> = QUERIES
            .lines()
            .map(|q| q.split_whitespace().count())
            .collect();
        assert_eq!(words.len(), 20);
        assert!(words.iter().all(|n| (5..=14).contains(n)), "{words:?}");
    }

    #[test]
    fn percentiles_are_nearest_rank() {
        let ms: Vec<f64> = (1..=100).map(f64::from).collect();
        assert_eq!(percentiles(ms), (50.0, 99.0));
        assert_eq!(percentiles(vec![3.0, 1.0, 2.0]), (2.0, 3.0));
        assert!(percentiles(Vec::new()).0.is_nan());
    }
}
