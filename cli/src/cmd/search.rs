//! `rlmkg search`: chunks by BM25 over titles and texts, by meaning (dense
//! vectors), or both fused (`--mode`).

use clap::Args;
use std::io::Write;

use rlmkg_server::snippet;

use crate::cli::GlobalArgs;

/// Arguments of `rlmkg search`.
#[derive(Debug, Args)]
pub struct SearchArgs {
    /// The query (words are joined).
    #[arg(required = true)]
    pub query: Vec<String>,
    /// Number of results.
    #[arg(long, short = 'k', default_value_t = 10)]
    pub k: usize,
    /// How to rank: bm25, dense (by meaning: the store's vectors) or hybrid
    /// (both, fused by reciprocal rank) [default: hybrid when the store keeps
    /// vectors, else bm25].
    #[arg(long, value_name = "bm25|dense|hybrid")]
    pub mode: Option<rlmkg::SearchMode>,
}

/// Run `rlmkg search`.
pub fn run(args: SearchArgs, global: &GlobalArgs) -> anyhow::Result<u8> {
    let mut stdout = crate::out::stdout();
    let store = super::ingest::open_read(global)?;
    let mode = args.mode.unwrap_or_else(|| store.search_mode());
    let hits = store.search_with(&args.query.join(" "), args.k, mode)?;
    // Said once, after the results (an explicit dense mode fails with it instead).
    if args.mode.is_none()
        && !global.quiet
        && let Some(off) = store.dense_off()
    {
        eprintln!("note: {off}");
    }
    if global.json {
        let out = crate::json::SearchHit::list(&hits);
        writeln!(stdout, "{}", serde_json::to_string_pretty(&out)?)?;
        return Ok(0);
    }
    if hits.is_empty() && !global.quiet {
        eprintln!("no results");
    }
    for h in hits {
        // The hit's line, then its text's opening under it.
        let text = snippet(&h.text, 160);
        writeln!(
            stdout,
            "{:<8} {:>7.3}  {} ({}, {})\n         {text}",
            h.id, h.score, h.title, h.doc, h.path
        )?;
    }
    Ok(0)
}
