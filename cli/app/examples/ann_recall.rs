//! Recall@10 of the HNSW graph against exact dense search on real encoder
//! vectors: `cargo run -p rlmkg --example ann_recall -- CORPUS.json
//! QUESTIONS.txt STORE_DIR` ingests the corpus (`[{title, text}]`) with the
//! installed encoder into a new store whose graph is built from the first
//! vector on, then asks each question (one a line) both ways.
// An example for a measurement: it fails loudly.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout)]

use std::path::PathBuf;

use rlmkg::{IngestOptions, NoProgress, Store};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (corpus, questions, dir) = (
        PathBuf::from(&args[1]),
        std::fs::read_to_string(&args[2]).unwrap(),
        PathBuf::from(&args[3]),
    );
    let embedder = rlmkg::installed_embedder().expect("the encoder is installed");
    let mut store = Store::create_or_open(&dir).unwrap();
    store.set_ann_min_vectors(1);
    store.set_embedder(Some(embedder.clone()));
    let opts = IngestOptions {
        embedder: Some(embedder.clone()),
        ..IngestOptions::default()
    };
    let t = std::time::Instant::now();
    store.ingest(&[corpus], &opts, &NoProgress).unwrap();
    println!(
        "ingest with vectors and the graph: {:.1} s",
        t.elapsed().as_secs_f64()
    );
    drop(store);
    let mut store = Store::open_read(&dir).unwrap();
    store.set_embedder(Some(embedder));
    assert!(store.has_ann_index().unwrap(), "no graph was built");
    let (mut hit, mut total, mut top1) = (0usize, 0usize, 0usize);
    for q in questions.lines().filter(|l| !l.trim().is_empty()) {
        let exact = store.nearest_chunks(q, 10, true).unwrap();
        let ann = store.nearest_chunks(q, 10, false).unwrap();
        let got: std::collections::HashSet<_> = ann.iter().map(|(c, _)| *c).collect();
        hit += exact.iter().filter(|(c, _)| got.contains(c)).count();
        total += exact.len();
        top1 += usize::from(exact.first().map(|e| e.0) == ann.first().map(|a| a.0));
    }
    let n = questions.lines().filter(|l| !l.trim().is_empty()).count();
    println!(
        "{n} questions: recall@10 {:.3}, same top hit {top1}/{n}",
        hit as f64 / total.max(1) as f64
    );
}
