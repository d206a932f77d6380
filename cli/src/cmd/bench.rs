//! `rlmkg bench`: the benchmark suite (SPEC §10, `rlmkg-bench`); with no area
//! it runs them all but `scale`, and prints one table (or `--json` rows).
//! `rlmkg bench scale` runs alone, with options of its own, and prints a
//! table of one row per shape (or `--json` rows of its own shape).

use std::io::Write;

use clap::Args;
use rlmkg::named::Named;
use rlmkg_bench::scale::search::SearchRow;
use rlmkg_bench::scale::{ScaleOptions, ScaleRow, ScalesError};
use rlmkg_bench::{Area, BenchOptions};

use crate::cli::GlobalArgs;

/// Arguments of `rlmkg bench`.
#[derive(Debug, Args)]
pub struct BenchArgs {
    /// Areas to run (ingest, graph, repl, batched, model, embed, serve,
    /// servers; default: all of these), or `scale` alone.
    pub areas: Vec<Area>,
    /// Where benchmark corpora and scratch stores go.
    #[arg(long, default_value = "bench-data")]
    pub work_dir: std::path::PathBuf,
    /// Smaller inputs, for a quick look.
    #[arg(long)]
    pub quick: bool,
    /// `scale`: copies of the corpus to ingest, one store each (1 to 100).
    #[arg(long, value_parser = parse_scales, value_name = "N,N,…")]
    pub scales: Option<Scales>,
    /// `scale`: MB of generated entity-dense text to ingest too (0: none).
    #[arg(long, value_name = "MB", value_parser = clap::value_parser!(u32).range(0..=1000))]
    pub dense_mb: Option<u32>,
    /// `scale`: a SPARQL 1.1 endpoint to export each store to
    /// (`rlmkg export --to-endpoint`) and query (`--sparql-endpoint`).
    #[arg(long, value_name = "URL")]
    pub endpoint: Option<String>,
    /// `scale`: also ingest each scale of the corpus with a vector per chunk
    /// (synthetic vectors: no encoder runs) and time `search` in each mode,
    /// hybrid `related` and the real encoder on the same queries.
    #[arg(long)]
    pub vectors: bool,
    /// `ingest`: also ingest a small slice of the corpus with and without
    /// vectors (the installed encoder, `ingest --embed`).
    #[arg(long)]
    pub embed: bool,
}

/// The copies `bench scale` ingests (`--scales 1,4,10`).
#[derive(Debug, Clone)]
pub struct Scales(Vec<u32>);

fn parse_scales(s: &str) -> Result<Scales, ScalesError> {
    rlmkg_bench::scale::parse_scales(s).map(Scales)
}

/// The default of `--scales`.
const DEFAULT_SCALES: [u32; 3] = [1, 4, 10];
/// The default of `--dense-mb`.
const DEFAULT_DENSE_MB: u32 = 20;

/// Run `rlmkg bench`.
pub fn run(args: BenchArgs, global: &GlobalArgs) -> anyhow::Result<u8> {
    if args.areas.contains(&Area::Scale) {
        anyhow::ensure!(
            args.areas.len() == 1,
            "`bench scale` runs alone (it takes many minutes and prints a table of its own)"
        );
        return run_scale(args, global);
    }
    if args.scales.is_some() || args.dense_mb.is_some() || args.endpoint.is_some() || args.vectors {
        anyhow::bail!(
            "--scales, --dense-mb, --endpoint and --vectors are options of `bench scale`"
        );
    }
    if args.embed && !args.areas.contains(&Area::Ingest) {
        anyhow::bail!("--embed is an option of `bench ingest`");
    }
    let mut stdout = crate::out::stdout();
    let areas = if args.areas.is_empty() {
        Area::ALL
            .iter()
            .copied()
            .filter(|&a| a != Area::Scale)
            .collect()
    } else {
        args.areas.clone()
    };
    let opts = BenchOptions {
        work_dir: args.work_dir,
        quick: args.quick,
        rlmkg_bin: std::env::current_exe()?,
        embed: args.embed,
    };
    let mut rows = Vec::new();
    for area in areas {
        match rlmkg_bench::run(area, &opts, &mut |n| eprintln!("bench {area}: {n}")) {
            Ok(r) => rows.extend(r),
            Err(e) => eprintln!("bench {area}: {}", crate::out::error_chain(e.as_ref())),
        }
    }
    if global.json {
        writeln!(stdout, "{}", serde_json::to_string_pretty(&rows)?)?;
    } else {
        writeln!(
            stdout,
            "{:<8} {:<44} {:>14} {:<8} {:<22} note",
            "area", "measure", "value", "unit", "target"
        )?;
        for r in &rows {
            writeln!(
                stdout,
                "{:<8} {:<44} {:>14.3} {:<8} {:<22} {}",
                r.area,
                r.name,
                r.value,
                r.unit,
                r.target.as_deref().unwrap_or("-"),
                r.note
            )?;
        }
    }
    Ok(0)
}

/// Run `rlmkg bench scale`: progress on stderr (unless `--quiet`), the table
/// (or `--json` rows) on stdout.
fn run_scale(args: BenchArgs, global: &GlobalArgs) -> anyhow::Result<u8> {
    if let Some(url) = &args.endpoint {
        anyhow::ensure!(
            url.starts_with("http://") || url.starts_with("https://"),
            "--endpoint {url:?} is not an http(s) URL"
        );
    }
    let opts = ScaleOptions {
        work_dir: args.work_dir,
        rlmkg_bin: std::env::current_exe()?,
        scales: args.scales.map_or_else(|| DEFAULT_SCALES.to_vec(), |s| s.0),
        dense_mb: args.dense_mb.unwrap_or(DEFAULT_DENSE_MB),
        endpoint: args.endpoint,
        vectors: args.vectors,
    };
    let quiet = global.quiet;
    let rows = rlmkg_bench::scale::run(&opts, &mut |line| {
        if !quiet {
            eprintln!("bench scale: {line}");
        }
    })?;
    let mut stdout = crate::out::stdout();
    if global.json {
        writeln!(stdout, "{}", serde_json::to_string_pretty(&rows)?)?;
    } else {
        print_scale(&mut stdout, &rows)?;
        print_search(&mut stdout, &rows)?;
    }
    Ok(0)
}

/// The `bench scale` table: one row per shape.
fn print_scale(out: &mut dyn Write, rows: &[ScaleRow]) -> std::io::Result<()> {
    let opt =
        |v: Option<f64>, prec: usize| v.map_or_else(|| "-".to_string(), |v| format!("{v:.prec$}"));
    writeln!(
        out,
        "{:<12} {:>8} {:>6} {:>8} {:>9} {:>8} {:>11} {:>10} {:>9} {:>10} {:>9} {:>10} {:>9} {:>10} {:>9} {:>5}",
        "shape",
        "input MB",
        "docs",
        "entities",
        "quads",
        "ingest s",
        "ingest MB/s",
        "ingest RSS",
        "store MB",
        "entity ms",
        "sparql s",
        "sparql RSS",
        "export s",
        "endpoint s",
        "endpt RSS",
        "same"
    )?;
    for r in rows {
        writeln!(
            out,
            "{:<12} {:>8.1} {:>6} {:>8} {:>9} {:>8.2} {:>11.1} {:>10} {:>9.1} {:>10.1} {:>9.2} {:>10} {:>9} {:>10} {:>9} {:>5}",
            r.shape,
            r.input_mb,
            r.docs,
            r.entities,
            r.quads,
            r.ingest_secs,
            r.ingest_mb_s,
            opt(r.ingest_peak_rss_mb, 0),
            r.store_mb,
            r.entity_ms,
            r.sparql_secs,
            opt(r.sparql_peak_rss_mb, 0),
            opt(r.export_secs, 2),
            opt(r.endpoint_sparql_secs, 2),
            opt(r.endpoint_sparql_peak_rss_mb, 0),
            r.endpoint_same
                .map_or("-", |s| if s { "yes" } else { "NO" }),
        )?;
    }
    Ok(())
}

/// The `bench scale --vectors` table: query latencies per shape with a
/// vector per chunk (nothing when no row has them).
fn print_search(out: &mut dyn Write, rows: &[ScaleRow]) -> std::io::Result<()> {
    let measured: Vec<(&str, &SearchRow)> = rows
        .iter()
        .filter_map(|r| Some((r.shape.as_str(), r.search.as_ref()?)))
        .collect();
    let Some((_, first)) = measured.first() else {
        return Ok(());
    };
    writeln!(
        out,
        "\nQuery latency with a vector per chunk, p50 / p99 ms over {} queries each, k = 10. \
         The vectors are SYNTHETIC (pseudo-random, {} numbers, written by the store's ingest \
         without the encoder): exact dense search costs the same whatever their values. \
         dense, hybrid and related exclude the query's encoding, timed apart with the real \
         encoder (`encode`); a real query costs about the two added.",
        first.samples, first.dim
    )?;
    writeln!(
        out,
        "{:<12} {:>8} {:>9} {:>10} {:>8} {:>15} {:>15} {:>15} {:>15} {:>15}",
        "shape",
        "chunks",
        "store MB",
        "vectors MB",
        "names MB",
        "bm25",
        "dense",
        "hybrid",
        "related",
        "encode"
    )?;
    let pair = |(a, b): (f64, f64)| format!("{a:.1} / {b:.1}");
    for &(shape, s) in &measured {
        writeln!(
            out,
            "{:<12} {:>8} {:>9.1} {:>10.1} {:>8.1} {:>15} {:>15} {:>15} {:>15} {:>15}",
            shape,
            s.chunks,
            s.store_mb,
            s.vectors_mb,
            s.name_vectors_mb,
            pair(s.bm25_ms),
            pair(s.dense_ms),
            pair(s.hybrid_ms),
            pair(s.related_ms),
            s.encode_ms.map_or_else(|| "no encoder".to_string(), pair),
        )?;
    }
    writeln!(
        out,
        "\nThe HNSW graph over the same (synthetic) vectors against exact dense search, \
         ef_search {}, p50 / p99 ms; recall@10 of the graph against exact search:",
        first.ann.ef_search
    )?;
    writeln!(
        out,
        "{:<12} {:>9} {:>9} {:>15} {:>15} {:>10}",
        "shape", "build s", "graph MB", "exact", "hnsw", "recall@10"
    )?;
    for (shape, s) in measured {
        let a = &s.ann;
        writeln!(
            out,
            "{:<12} {:>9.1} {:>9.1} {:>15} {:>15} {:>10.3}",
            shape,
            a.build_secs,
            a.graph_mb,
            pair(a.exact_ms),
            pair(a.ann_ms),
            a.recall
        )?;
    }
    Ok(())
}
