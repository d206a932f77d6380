//! Standard output: the one place the binary writes results to.
//!
//! Every command writes through [`stdout`] with `write!`/`writeln!` and `?`, so
//! a reader that goes away (`rlmkg search … | head -1`) surfaces as an
//! `ErrorKind::BrokenPipe` error, which `cli::run` ends with exit 0, instead of
//! `println!`'s panic.

/// Locked standard output (line-buffered; re-entrant within a thread).
pub(crate) fn stdout() -> std::io::StdoutLock<'static> {
    std::io::stdout().lock()
}
