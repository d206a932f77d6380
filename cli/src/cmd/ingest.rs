//! `rlmkg ingest`.

use clap::Args;

use crate::cli::GlobalArgs;

/// Arguments of `rlmkg ingest`.
#[derive(Debug, Args)]
pub struct IngestArgs {}

/// Run `rlmkg ingest`.
pub fn run(_args: IngestArgs, _global: &GlobalArgs) -> anyhow::Result<u8> {
    anyhow::bail!("`rlmkg ingest` is not built yet")
}
