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
    /// US dollars per million prompt and completion tokens of the model
    /// that reads facts.
    price: (f64, f64),
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
            price: (0.0, 0.0),
        }
    }

    /// The same, pricing the fact reader's tokens at `price` (US dollars per
    /// million prompt and completion tokens).
    pub(crate) fn with_price(self, price: (f64, f64)) -> Self {
        Self { price, ..self }
    }
}

/// US dollars for `prompt` and `completion` tokens at `price` a million.
fn cost(price: (f64, f64), prompt: u64, completion: u64) -> f64 {
    (prompt as f64 * price.0 + completion as f64 * price.1) / 1e6
}

/// The line after an ingest whose model read facts: passages read and
/// cached, facts proposed, added and dropped (by reason), tokens, time, cost.
pub(crate) fn model_facts_line(m: &rlmkg_ingest::ModelFactStats, price: (f64, f64)) -> String {
    let read = m.passages.saturating_sub(m.cached);
    let reasons: Vec<String> = m.dropped.iter().map(|(r, n)| format!("{n} {r}")).collect();
    let per = if read > 0 {
        m.seconds / read as f64
    } else {
        0.0
    };
    format!(
        "facts read by {}: {} passages ({} from the cache{}); {} proposed, {} added, {} known to \
         the rules, {} dropped by the evidence check{}; {} prompt + {} completion tokens, \
         {:.1} s ({:.1} s a passage read), ${:.4}",
        m.reader,
        m.passages,
        m.cached,
        if m.unread > 0 {
            format!(
                ", {} not read: no model at hand, `--extract llm` with it reads them",
                m.unread
            )
        } else {
            String::new()
        },
        m.proposed,
        m.added,
        m.known,
        m.dropped_total(),
        if reasons.is_empty() {
            String::new()
        } else {
            format!(" ({})", reasons.join(", "))
        },
        m.prompt_tokens,
        m.completion_tokens,
        m.seconds,
        per,
        cost(price, m.prompt_tokens, m.completion_tokens)
    )
}

impl rlmkg_ingest::Progress for IngestProgress {
    fn model_facts_estimate(&self, e: &rlmkg_ingest::ModelFactEstimate) {
        if !self.quiet {
            let dollars = cost(self.price, e.prompt_tokens, e.completion_tokens);
            self.bar.suspend(|| {
                eprintln!(
                    "facts will be read by {} from at most {:.2} MB: about {} passages, {} prompt \
                     tokens and up to {} completion tokens (${dollars:.4}); passages read \
                     before come from the cache",
                    e.reader,
                    e.bytes as f64 / 1e6,
                    e.passages,
                    e.prompt_tokens,
                    e.completion_tokens
                )
            });
        }
    }
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

/// An error and its causes on one line, `message: cause: cause`, each said
/// once: a cause whose text the line already ends with is left out.
///
/// The binary prints every error chain through this. Two rules meet in a
/// chain: anyhow's contexts say only the context and leave the cause to the
/// chain, so the chain must be walked; and the library errors (ours, with
/// thiserror's `"store: {0}"` beside `#[from]`, and others', as tantivy's)
/// say their cause in their own message and return it from `source()` too.
/// Those messages stay whole, as every reader that shows only `Display`
/// (the server's JSON errors, the Python package's exceptions) needs them,
/// so the walk skips a cause already said: leaving out text the line ends
/// with loses nothing, for every error type.
pub(crate) fn error_chain(err: &(dyn std::error::Error + 'static)) -> String {
    let mut line = String::new();
    let mut cause = Some(err);
    while let Some(e) = cause {
        let text = e.to_string();
        if !said(&line, &text) {
            if !line.is_empty() {
                line.push_str(": ");
            }
            line.push_str(&text);
        }
        cause = e.source();
    }
    line
}

/// Whether `line` ends with `text` as a whole (not inside a word).
fn said(line: &str, text: &str) -> bool {
    line.strip_suffix(text).is_some_and(|before| {
        text.is_empty()
            || before.is_empty()
            || !before.ends_with(char::is_alphanumeric)
            || !text.starts_with(char::is_alphanumeric)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An error shaped as thiserror makes ours: its message ends with its
    /// cause's (`"{what}: {0}"`), and `source()` returns the cause too.
    #[derive(Debug)]
    struct Says(&'static str, Option<Box<Says>>);

    impl std::fmt::Display for Says {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            match &self.1 {
                Some(inner) if !self.0.is_empty() => write!(f, "{}: {inner}", self.0),
                Some(inner) => write!(f, "{inner}"),
                None => f.write_str(self.0),
            }
        }
    }

    impl std::error::Error for Says {
        fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
            self.1.as_deref().map(|e| e as _)
        }
    }

    fn says(what: &'static str, inner: Says) -> Says {
        Says(what, Some(Box::new(inner)))
    }

    #[test]
    fn each_cause_is_said_once() {
        let cases: Vec<(anyhow::Error, &str)> = vec![
            // `store: {0}` over `{path}: {source}` over an I/O error.
            (
                says(
                    "store",
                    says("/s/texts/p1.txt", Says("Is a directory", None)),
                )
                .into(),
                "store: /s/texts/p1.txt: Is a directory",
            ),
            // A transparent wrapper says exactly its cause.
            (
                says("", says("index", Says("gone", None))).into(),
                "index: gone",
            ),
            // An anyhow context says only itself: its cause follows.
            (
                anyhow::Error::new(says("index", Says("gone", None))).context("opening X"),
                "opening X: index: gone",
            ),
            // A cause not said by its wrapper is printed.
            (
                anyhow::Error::new(Says("bad line", None)).context("reading F"),
                "reading F: bad line",
            ),
            // Only a whole ending counts: `7` is not said by `error 17`.
            (
                anyhow::Error::new(Says("7", None)).context("error 17"),
                "error 17: 7",
            ),
        ];
        for (err, want) in cases {
            assert_eq!(error_chain(err.as_ref()), want);
        }
    }

    /// The shape above is the one the binary printed twice with anyhow's
    /// `{:#}`, which walks the chain and repeats what each message said.
    #[test]
    fn the_fixture_is_the_shape_that_printed_twice() {
        let err: anyhow::Error = says(
            "store",
            says("/s/texts/p1.txt", Says("Is a directory", None)),
        )
        .into();
        assert_eq!(
            format!("{err:#}"),
            "store: /s/texts/p1.txt: Is a directory: /s/texts/p1.txt: Is a directory: Is a directory"
        );
    }
}
