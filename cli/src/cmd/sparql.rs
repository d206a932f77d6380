//! `rlmkg sparql`: a read-only SPARQL query against the graph.

use std::io::Write;
use std::time::Duration;

use anyhow::Context;
use clap::Args;
use rlmkg_ingest::SparqlOutput;

use crate::cli::GlobalArgs;

/// Arguments of `rlmkg sparql`.
#[derive(Debug, Args)]
pub struct SparqlArgs {
    /// The query; `@FILE` reads it from a file, `-` from stdin. Prefix `rk:` is
    /// `https://rlmkg.invalid/ns#`.
    pub query: String,
    /// Time limit in seconds.
    #[arg(long, default_value_t = 30)]
    pub timeout: u64,
}

const PREFIXES: &str = "PREFIX rk: <https://rlmkg.invalid/ns#>\nPREFIX rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#>\n";

/// Run `rlmkg sparql`.
pub fn run(args: SparqlArgs, global: &GlobalArgs) -> anyhow::Result<u8> {
    let mut stdout = crate::out::stdout();
    let text = if args.query == "-" {
        std::io::read_to_string(std::io::stdin()).context("reading the query from stdin")?
    } else if let Some(f) = args.query.strip_prefix('@') {
        std::fs::read_to_string(f).with_context(|| format!("reading {f}"))?
    } else {
        args.query
    };
    let query = if text.to_ascii_lowercase().contains("prefix rk:") {
        text
    } else {
        format!("{PREFIXES}{text}")
    };
    let store = super::ingest::open_read(global)?;
    let out = store.sparql(&query, Duration::from_secs(args.timeout))?;
    if global.json {
        writeln!(stdout, "{}", serde_json::to_string_pretty(&out)?)?;
        return Ok(0);
    }
    match out {
        SparqlOutput::Select { vars, rows } => {
            writeln!(
                stdout,
                "{}",
                vars.iter()
                    .map(|v| format!("?{v}"))
                    .collect::<Vec<_>>()
                    .join("\t")
            )?;
            for r in rows {
                writeln!(
                    stdout,
                    "{}",
                    r.into_iter()
                        .map(|c| c.unwrap_or_default())
                        .collect::<Vec<_>>()
                        .join("\t")
                )?;
            }
        }
        SparqlOutput::Ask { value } => writeln!(stdout, "{value}")?,
        SparqlOutput::Graph { triples } => {
            for t in triples {
                writeln!(stdout, "{t}")?;
            }
        }
    }
    Ok(0)
}
