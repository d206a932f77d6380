//! `rlmkg sparql`.

use clap::Args;

use crate::cli::GlobalArgs;

/// Arguments of `rlmkg sparql`.
#[derive(Debug, Args)]
pub struct SparqlArgs {}

/// Run `rlmkg sparql`.
pub fn run(_args: SparqlArgs, _global: &GlobalArgs) -> anyhow::Result<u8> {
    anyhow::bail!("`rlmkg sparql` is not built yet")
}
