//! `rlmkg mcp`: the MCP server over standard input and output, for an MCP
//! client to start (see the README for a client's config). Standard output
//! is the protocol's: nothing else is written to it.

use anyhow::Context as _;
use clap::Args;

use crate::cli::GlobalArgs;
use crate::cmd::serve::RunArgs;

/// Arguments of `rlmkg mcp`.
#[derive(Debug, Args)]
pub struct McpArgs {
    /// Strategy, run bounds, ingest and models.
    #[command(flatten)]
    pub run: RunArgs,
}

/// Run `rlmkg mcp` until the client closes standard input.
pub fn run(args: McpArgs, global: &GlobalArgs) -> anyhow::Result<u8> {
    let ops = crate::cmd::serve::open_ops(&args.run, global, None)?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("starting the async runtime")?;
    runtime.block_on(async move {
        tokio::select! {
            served = rlmkg_server::mcp::serve_io(ops, tokio::io::stdin(), tokio::io::stdout()) => served,
            () = crate::cmd::serve::shutdown() => Ok(()),
        }
    })?;
    // Standard input may still be read by a blocking thread: do not wait for it.
    runtime.shutdown_background();
    Ok(0)
}
