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
}

/// Run `rlmkg export`.
pub fn run(args: ExportArgs, global: &GlobalArgs) -> anyhow::Result<u8> {
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
