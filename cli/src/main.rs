//! The `rlmkg` command-line tool. Only this crate prints.

use std::process::ExitCode;

use clap::Parser;

mod cli;
mod cmd;
mod json;
mod out;

fn main() -> ExitCode {
    let parsed = cli::Cli::parse();
    cli::run(parsed)
}
