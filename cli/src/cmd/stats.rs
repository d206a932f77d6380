//! `rlmkg stats`: counts of documents, chunks, entities, relations; `--check`
//! also verifies the store invariants.

use clap::Args;
use std::io::Write;

use crate::cli::GlobalArgs;

/// Arguments of `rlmkg stats`.
#[derive(Debug, Args)]
pub struct StatsArgs {
    /// Also check the store invariants (spans, index/graph agreement); exit 2 on a violation.
    #[arg(long)]
    pub check: bool,
    /// List the documents.
    #[arg(long)]
    pub docs: bool,
}

/// Run `rlmkg stats`.
pub fn run(args: StatsArgs, global: &GlobalArgs) -> anyhow::Result<u8> {
    let mut stdout = crate::out::stdout();
    let store = super::ingest::open_read(global)?;
    let stats = store.stats()?;
    let report = if args.check {
        Some(store.check_invariants()?)
    } else {
        None
    };
    let docs = if args.docs { Some(store.docs()?) } else { None };
    if global.json {
        let v = crate::json::Stats::new(&stats, report.as_ref(), docs.as_deref());
        writeln!(stdout, "{}", serde_json::to_string_pretty(&v)?)?;
    } else {
        writeln!(stdout, "files      {}", stats.files)?;
        writeln!(stdout, "documents  {}", stats.docs)?;
        writeln!(stdout, "chunks     {}", stats.chunks)?;
        writeln!(stdout, "entities   {}", stats.entities)?;
        writeln!(stdout, "facts      {}", stats.facts)?;
        writeln!(
            stdout,
            "co-occurs  {}",
            stats.relations.saturating_sub(stats.facts)
        )?;
        writeln!(stdout, "mentions   {}", stats.mentions)?;
        writeln!(stdout, "bytes      {}", stats.chars)?;
        writeln!(stdout, "quads      {}", stats.quads)?;
        let types: Vec<String> = stats
            .entity_types
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        writeln!(stdout, "types      {}", types.join(" "))?;
        if let Some(docs) = &docs {
            for d in docs {
                writeln!(
                    stdout,
                    "{:<8} {:<6} {:>4} chunks  {}  ({})",
                    d.id, d.format, d.chunks, d.title, d.path
                )?;
            }
        }
        if let Some(r) = &report {
            writeln!(
                stdout,
                "invariants {} ({} docs, {} chunks, {} spans, {} relations checked)",
                if r.ok() { "ok" } else { "VIOLATED" },
                r.docs,
                r.chunks,
                r.spans,
                r.relations
            )?;
            for v in &r.violations {
                writeln!(stdout, "  {v}")?;
            }
        }
    }
    if report.is_some_and(|r| !r.ok()) {
        anyhow::bail!("store invariants violated");
    }
    Ok(0)
}
