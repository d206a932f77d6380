//! `rlmkg rm`: remove files (or every file under a directory) from the store.

use std::io::Write;
use std::path::PathBuf;

use clap::Args;
use rlmkg_ingest::Store;

use crate::cli::GlobalArgs;

/// Arguments of `rlmkg rm`.
#[derive(Debug, Args)]
pub struct RmArgs {
    /// Files or directories to remove.
    #[arg(required = true)]
    pub paths: Vec<PathBuf>,
}

/// Run `rlmkg rm`.
pub fn run(args: RmArgs, global: &GlobalArgs) -> anyhow::Result<u8> {
    let mut stdout = crate::out::stdout();
    let mut store = Store::create_or_open(&global.store)?;
    let mut total = rlmkg_ingest::RemoveSummary::default();
    for p in &args.paths {
        let s = store.remove(p)?;
        total.files += s.files;
        total.docs += s.docs;
        total.chunks += s.chunks;
    }
    if global.json {
        let out = crate::json::Removed::from(&total);
        writeln!(stdout, "{}", serde_json::to_string_pretty(&out)?)?;
    } else if !global.quiet {
        writeln!(
            stdout,
            "removed {} files ({} documents, {} chunks)",
            total.files, total.docs, total.chunks
        )?;
    }
    Ok(0)
}
