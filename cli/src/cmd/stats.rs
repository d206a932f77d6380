//! `rlmkg stats`: counts of documents, chunks, entities, relations; `--check`
//! also verifies the store invariants.

use clap::Args;

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
    let store = super::ingest::open_read(global)?;
    let stats = store.stats()?;
    let report = if args.check {
        Some(store.check_invariants()?)
    } else {
        None
    };
    let docs = if args.docs { Some(store.docs()?) } else { None };
    if global.json {
        let v = serde_json::json!({ "stats": stats, "invariants": report, "docs": docs });
        println!("{}", serde_json::to_string_pretty(&v)?);
    } else {
        println!("files      {}", stats.files);
        println!("documents  {}", stats.docs);
        println!("chunks     {}", stats.chunks);
        println!("entities   {}", stats.entities);
        println!("relations  {}", stats.relations);
        println!("mentions   {}", stats.mentions);
        println!("bytes      {}", stats.chars);
        println!("quads      {}", stats.quads);
        let types: Vec<String> = stats
            .entity_types
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        println!("types      {}", types.join(" "));
        if let Some(docs) = &docs {
            for d in docs {
                println!(
                    "{:<8} {:<6} {:>4} chunks  {}  ({})",
                    d.id, d.format, d.chunks, d.title, d.path
                );
            }
        }
        if let Some(r) = &report {
            println!(
                "invariants {} ({} docs, {} chunks, {} spans, {} relations checked)",
                if r.ok() { "ok" } else { "VIOLATED" },
                r.docs,
                r.chunks,
                r.spans,
                r.relations
            );
            for v in &r.violations {
                println!("  {v}");
            }
        }
    }
    if report.is_some_and(|r| !r.ok()) {
        anyhow::bail!("store invariants violated");
    }
    Ok(0)
}
