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

/// Ids one after another, separated by spaces (`c3 c17`).
pub(crate) fn id_list<T: std::fmt::Display>(ids: impl IntoIterator<Item = T>) -> String {
    ids.into_iter()
        .map(|id| id.to_string())
        .collect::<Vec<_>>()
        .join(" ")
}

/// A progress bar on standard error drawn with `template` (indicatif syntax),
/// hidden when `hidden` (quiet or JSON output) or when standard error is not a
/// terminal: the one place progress bars are set up.
pub(crate) fn bar(len: u64, template: &str, hidden: bool) -> indicatif::ProgressBar {
    use std::io::IsTerminal as _;
    if hidden || !std::io::stderr().is_terminal() {
        return indicatif::ProgressBar::hidden();
    }
    let bar = indicatif::ProgressBar::new(len);
    if let Ok(style) = indicatif::ProgressStyle::with_template(template) {
        bar.set_style(style.progress_chars("=> "));
    }
    bar
}

/// Ingest progress for the terminal: a bar of files, warnings as lines
/// (unless quiet).
pub(crate) struct IngestProgress {
    bar: indicatif::ProgressBar,
    quiet: bool,
}

impl IngestProgress {
    /// A reporter; the bar is hidden when `hidden` or not on a terminal.
    pub(crate) fn new(quiet: bool, hidden: bool) -> Self {
        Self {
            bar: bar(
                0,
                "{spinner} [{bar:40}] {pos}/{len} files {elapsed} {msg}",
                hidden,
            ),
            quiet,
        }
    }
}

impl rlmkg_ingest::Progress for IngestProgress {
    fn start(&self, total_files: u64) {
        self.bar.set_length(total_files);
    }
    fn file_done(&self, _path: &std::path::Path, bytes: u64) {
        self.bar.inc(1);
        self.bar
            .set_message(format!("{:.1} MB", bytes as f64 / 1e6));
    }
    fn warn(&self, msg: &str) {
        if !self.quiet {
            self.bar.suspend(|| eprintln!("warning: {msg}"));
        }
    }
    fn finish(&self) {
        self.bar.finish_and_clear();
    }
}
