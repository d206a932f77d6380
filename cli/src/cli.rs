//! Command-line parsing and dispatch. Each subcommand lives in its own module
//! under `cmd/` with its own `Args` struct and `run` function.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};

use crate::cmd;

/// Exit codes (SPEC §8).
pub mod exit {
    /// Success.
    pub const OK: u8 = 0;
    /// An answer was produced but failed verification under `--strict`.
    pub const VERIFY_FAILED: u8 = 1;
    /// Usage or input error.
    pub const USAGE: u8 = 2;
    /// Model or backend failure.
    pub const BACKEND: u8 = 3;
}

/// Answer questions over large document collections with a recursive language model
/// walking a knowledge graph, and verify every sentence against the cited source.
#[derive(Debug, Parser)]
#[command(
    name = "rlmkg",
    version,
    about = "rlmkg: answer questions over document collections with a recursive language model walking a knowledge graph",
    long_about = None
)]
pub struct Cli {
    /// Options every command takes.
    #[command(flatten)]
    pub global: GlobalArgs,
    /// The command to run.
    #[command(subcommand)]
    pub command: Command,
}

/// Options every command takes.
#[derive(Debug, Clone, Args)]
pub struct GlobalArgs {
    /// The store directory.
    #[arg(long, global = true, env = "RLMKG_STORE", default_value = ".rlmkg")]
    pub store: PathBuf,
    /// Machine-readable JSON on stdout; logs stay on stderr.
    #[arg(long, global = true)]
    pub json: bool,
    /// Print only results and errors.
    #[arg(long, short, global = true)]
    pub quiet: bool,
    /// More detail on stderr (repeat for more).
    #[arg(long, short, global = true, action = clap::ArgAction::Count)]
    pub verbose: u8,
}

/// The commands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Ingest files and directories into the store.
    Ingest(cmd::ingest::IngestArgs),
    /// Ask a question; prints a cited, verified answer.
    Ask(cmd::ask::AskArgs),
    /// Full-text (BM25) search over chunks.
    Search(cmd::search::SearchArgs),
    /// Show an entity and its neighbors.
    Entity(cmd::entity::EntityArgs),
    /// Connecting paths between two entities.
    Path(cmd::path::PathArgs),
    /// Run a read-only SPARQL query against the graph.
    Sparql(cmd::sparql::SparqlArgs),
    /// Check the citations of an answer against the store.
    Verify(cmd::verify::VerifyArgs),
    /// Evaluate on a multi-hop QA dataset.
    Eval(cmd::eval::EvalArgs),
    /// Show or export trajectories.
    Trace(cmd::trace::TraceArgs),
    /// Install and list embedded models.
    Model(cmd::model::ModelArgs),
    /// Show effective configuration.
    Config(cmd::config::ConfigArgs),
    /// Store statistics.
    Stats(cmd::stats::StatsArgs),
    /// Remove files (or directories) from the store.
    Rm(cmd::rm::RmArgs),
    /// Export the graph as RDF.
    Export(cmd::export::ExportArgs),
    /// Run the benchmark suite.
    Bench(cmd::bench::BenchArgs),
    /// Write a generated evaluation set (documents and questions with answers).
    Generate(cmd::generate::GenerateArgs),
    /// How much of what a corpus says the graph knows (title pairs, MuSiQue hops).
    GraphCheck(cmd::graph_check::GraphCheckArgs),
    /// Serve the store over HTTP: an API, MCP at /mcp and a web page.
    Serve(cmd::serve::ServeArgs),
    /// Serve the store as an MCP server over standard input and output.
    Mcp(cmd::mcp::McpArgs),
}

/// Run a parsed command line and map the outcome to an exit code.
pub fn run(cli: Cli) -> ExitCode {
    let global = cli.global;
    let result = match cli.command {
        Command::Ingest(a) => cmd::ingest::run(a, &global),
        Command::Ask(a) => cmd::ask::run(a, &global),
        Command::Search(a) => cmd::search::run(a, &global),
        Command::Entity(a) => cmd::entity::run(a, &global),
        Command::Path(a) => cmd::path::run(a, &global),
        Command::Sparql(a) => cmd::sparql::run(a, &global),
        Command::Verify(a) => cmd::verify::run(a, &global),
        Command::Eval(a) => cmd::eval::run(a, &global),
        Command::Trace(a) => cmd::trace::run(a, &global),
        Command::Model(a) => cmd::model::run(a, &global),
        Command::Config(a) => cmd::config::run(a, &global),
        Command::Stats(a) => cmd::stats::run(a, &global),
        Command::Rm(a) => cmd::rm::run(a, &global),
        Command::Export(a) => cmd::export::run(a, &global),
        Command::Bench(a) => cmd::bench::run(a, &global),
        Command::Generate(a) => cmd::generate::run(a, &global),
        Command::GraphCheck(a) => cmd::graph_check::run(a, &global),
        Command::Serve(a) => cmd::serve::run(a, &global),
        Command::Mcp(a) => cmd::mcp::run(a, &global),
    };
    match result {
        Ok(code) => ExitCode::from(code),
        Err(err) => {
            if is_broken_pipe(&err) {
                return ExitCode::from(exit::OK);
            }
            eprintln!("error: {}", crate::out::error_chain(err.as_ref()));
            ExitCode::from(crate::cmd::classify_error(&err))
        }
    }
}

fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|e| {
        e.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}
