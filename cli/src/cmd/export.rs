//! `rlmkg export`: the graph as RDF.

use std::io::Write;
use std::path::PathBuf;

use anyhow::Context;
use clap::{Args, ValueEnum};
use rlmkg_ingest::RdfFormat;

use crate::cli::GlobalArgs;

/// Export formats.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum Format {
    /// N-Quads: one named graph per document.
    Nquads,
    /// Turtle: the union of all document graphs.
    Turtle,
    /// TriG: named graphs kept.
    Trig,
}

/// Arguments of `rlmkg export`.
#[derive(Debug, Args)]
pub struct ExportArgs {
    /// Output format.
    #[arg(long, value_enum, default_value = "nquads")]
    pub format: Format,
    /// Output file (default: stdout).
    #[arg(long, short)]
    pub output: Option<PathBuf>,
    /// Push the RDF to this SPARQL 1.1 endpoint (SPARQL Update, one named
    /// graph per document) instead of writing it; run again after an ingest
    /// to bring the endpoint in step (changed documents' graphs replaced,
    /// removed ones dropped, unchanged ones skipped).
    #[arg(long, conflicts_with = "output")]
    pub to_endpoint: Option<String>,
    /// With --to-endpoint: the graph on the endpoint recording what was
    /// pushed (each document graph's content hash).
    #[arg(long, requires = "to_endpoint", default_value = rlmkg_endpoint::DEFAULT_RECORD_GRAPH)]
    pub graph: String,
    /// With --to-endpoint: a file holding `user:password` (or
    /// RLMKG_ENDPOINT_USER and RLMKG_ENDPOINT_PASSWORD).
    #[arg(long, requires = "to_endpoint")]
    pub endpoint_auth_file: Option<PathBuf>,
    /// With --to-endpoint: triples per update request at most (small
    /// graphs share a request, a bigger one is split).
    #[arg(long, requires = "to_endpoint", default_value_t = rlmkg_endpoint::BATCH_TRIPLES)]
    pub batch_triples: usize,
}

/// Push progress for the terminal: a bar of document graphs.
struct PushBar(indicatif::ProgressBar);

impl rlmkg_endpoint::PushProgress for PushBar {
    fn start(&self, graphs: u64) {
        self.0.set_length(graphs);
    }
    fn graph_done(&self, _graph: &str, _pushed: bool) {
        self.0.inc(1);
    }
}

/// `rlmkg export --to-endpoint`.
fn push(args: ExportArgs, url: String, global: &GlobalArgs) -> anyhow::Result<u8> {
    let store = super::ingest::open_read(global)?;
    let Some(endpoint) = super::sparql::endpoint(global, Some(url), args.endpoint_auth_file)?
    else {
        anyhow::bail!("--to-endpoint needs a URL");
    };
    let docs = store.doc_graphs()?;
    let bar = PushBar(crate::out::bar(
        0,
        "{spinner} [{bar:40}] {pos}/{len} graphs {elapsed}",
        global.quiet || global.json,
    ));
    let endpoint = endpoint.with_batch(args.batch_triples);
    let summary = endpoint
        .push(&docs, &args.graph, &bar)
        .with_context(|| format!("exporting to {}", endpoint.url()))?;
    bar.0.finish_and_clear();
    let mut stdout = crate::out::stdout();
    if global.json {
        let v = serde_json::json!({
            "endpoint": endpoint.url(),
            "record_graph": args.graph,
            "pushed": summary.pushed,
            "unchanged": summary.unchanged,
            "dropped": summary.dropped,
            "triples": summary.triples,
        });
        writeln!(stdout, "{}", serde_json::to_string_pretty(&v)?)?;
    } else if !global.quiet {
        writeln!(
            stdout,
            "{}: {} graphs pushed ({} triples), {} unchanged, {} dropped",
            endpoint.url(),
            summary.pushed,
            summary.triples,
            summary.unchanged,
            summary.dropped
        )?;
    }
    Ok(0)
}

/// Run `rlmkg export`.
pub fn run(mut args: ExportArgs, global: &GlobalArgs) -> anyhow::Result<u8> {
    if let Some(url) = args.to_endpoint.take() {
        return push(args, url, global);
    }
    let store = super::ingest::open_read(global)?;
    let fmt = match args.format {
        Format::Nquads => RdfFormat::NQuads,
        Format::Turtle => RdfFormat::Turtle,
        Format::Trig => RdfFormat::TriG,
    };
    match args.output {
        Some(p) => {
            let f =
                std::fs::File::create(&p).with_context(|| format!("creating {}", p.display()))?;
            let mut w = std::io::BufWriter::new(f);
            store.export(fmt, &mut w)?;
            w.flush()?;
        }
        None => {
            let mut w = std::io::BufWriter::new(crate::out::stdout());
            store.export(fmt, &mut w)?;
            w.flush()?;
        }
    }
    Ok(0)
}
