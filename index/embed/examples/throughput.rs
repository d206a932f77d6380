//! Encoder throughput without the rest of rlmkg, for a release build of this
//! crate alone (`rlmkg bench embed` measures the same in the full binary):
//!
//! ```text
//! cargo run --release -p rlmkg-embed --example throughput -- MODEL_DIR COUNT FILE...
//! ```
//!
//! Cuts the files' text into COUNT chunks of 200 words, encodes them once and
//! prints chunks/s and KB/s.
#![allow(clippy::print_stdout)]

use std::path::PathBuf;
use std::time::Instant;

use rlmkg_embed::Encoder;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let usage = "usage: throughput MODEL_DIR COUNT FILE...";
    let dir = PathBuf::from(args.next().ok_or(usage)?);
    let count: usize = args.next().ok_or(usage)?.parse()?;
    let mut chunks = Vec::with_capacity(count);
    for file in args {
        let text = std::fs::read_to_string(&file)?;
        let words: Vec<&str> = text.split_whitespace().collect();
        chunks.extend(words.chunks_exact(200).map(|c| c.join(" ")));
        if chunks.len() >= count {
            break;
        }
    }
    chunks.truncate(count);
    let refs: Vec<&str> = chunks.iter().map(String::as_str).collect();
    let bytes: usize = refs.iter().map(|t| t.len()).sum();
    let t = Instant::now();
    let encoder = Encoder::load(&dir)?;
    println!("load: {:.2} s", t.elapsed().as_secs_f64());
    encoder.encode(refs.get(..4).unwrap_or(&refs))?;
    let t = Instant::now();
    let vectors = encoder.encode(&refs)?;
    let secs = t.elapsed().as_secs_f64();
    println!(
        "{} chunks of 200 words in {secs:.2} s: {:.1} chunks/s, {:.1} KB/s ({} threads)",
        vectors.len(),
        vectors.len() as f64 / secs,
        bytes as f64 / secs / 1e3,
        rayon::current_num_threads()
    );
    Ok(())
}
