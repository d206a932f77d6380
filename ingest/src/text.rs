//! Text normalization, sentence segmentation, the token approximation and line numbers.
//!
//! Segmentation is a pure function of a text and a [`SegmentMode`]: the same
//! function cuts chunks at ingest and numbers sentences (`c12.s3`) at read time.

use rlmkg_text::{continues_sentence, ends_with_abbreviation};
use unicode_normalization::UnicodeNormalization;

/// How a text is split into sentences.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SegmentMode {
    /// Prose: Unicode sentence boundaries, blank lines as hard breaks, common
    /// abbreviations and initials do not end a sentence.
    Prose,
    /// One sentence per line (corpora given as lists of sentences).
    Lines,
}

impl SegmentMode {
    /// The mode used for a document format.
    pub fn for_format(format: &str) -> Self {
        if format == "json-sentences" {
            SegmentMode::Lines
        } else {
            SegmentMode::Prose
        }
    }
}

/// Normalize raw text: strip a BOM, unify line ends to `\n`, NFC, drop control
/// characters other than newline and tab.
pub fn normalize(raw: &str) -> String {
    let s = raw.strip_prefix('\u{feff}').unwrap_or(raw);
    let s = if memchr::memchr(b'\r', s.as_bytes()).is_some() {
        s.replace("\r\n", "\n").replace('\r', "\n")
    } else {
        s.to_string()
    };
    // Text the quick check proves NFC is NFC already (ASCII always is).
    let needs_nfc = !s.is_ascii()
        && unicode_normalization::is_nfc_quick(s.chars())
            != unicode_normalization::IsNormalized::Yes;
    let s: String = if needs_nfc { s.nfc().collect() } else { s };
    if has_stray_control(&s) {
        s.chars()
            .filter(|c| !c.is_control() || *c == '\n' || *c == '\t')
            .collect()
    } else {
        s
    }
}

/// Whether `s` holds a control character other than newline and tab
/// (`char::is_control`: U+0000–U+001F, U+007F–U+009F), found by a byte scan:
/// U+0080–U+009F are the UTF-8 pairs `C2 80`–`C2 9F`.
fn has_stray_control(s: &str) -> bool {
    let b = s.as_bytes();
    // Suspects are found by a screened byte search; `C2` opens Latin-1
    // letters too, so it counts only before `80`–`9F`.
    let suspect = |c: u8| ((c < 0x20) & (c != b'\n') & (c != b'\t')) | (c == 0x7f) | (c == 0xc2);
    let mut i = 0;
    while let Some(p) = b
        .get(i..)
        .and_then(|r| crate::bounds::position_screened(r, suspect))
    {
        let k = i + p;
        if b[k] != 0xc2 || b.get(k + 1).is_some_and(|n| (0x80..0xa0).contains(n)) {
            return true;
        }
        i = k + 1;
    }
    false
}

/// Approximate token count: one token per four bytes, rounded up (documented in
/// the README; the default of [`crate::TokenCounter`] when no tokenizer is configured).
pub fn approx_tokens(text: &str) -> usize {
    text.len().div_ceil(4)
}

/// Longest sentence in bytes before it is cut at a space (huge single lines).
const MAX_SENTENCE: usize = 4000;

/// Sentence spans `(start, end)` in bytes of `text`, trimmed of surrounding whitespace,
/// in order, non-empty.
pub fn sentences(text: &str, mode: SegmentMode) -> Vec<(usize, usize)> {
    segment(text, mode).spans
}

/// A text's sentences, as [`sentences`] gives them, and which of them begin at
/// a forced cut of an over-long sentence.
#[derive(Debug, Default)]
pub(crate) struct Segmentation {
    /// Sentence spans.
    pub spans: Vec<(usize, usize)>,
    /// Indexes (ascending) of the spans that continue an over-long sentence cut
    /// at [`MAX_SENTENCE`] bytes.
    pub forced: Vec<usize>,
    /// Byte offsets (ascending) of the text's newlines, in `Prose` mode.
    newlines: Vec<usize>,
}

impl Segmentation {
    /// Whether sentence `k` continues an over-long sentence cut at a forced place.
    fn cut_at(&self, k: usize) -> bool {
        self.forced.binary_search(&k).is_ok()
    }
}

/// Segment a text (see [`sentences`]).
pub(crate) fn segment(text: &str, mode: SegmentMode) -> Segmentation {
    let mut out = Segmentation::default();
    match mode {
        SegmentMode::Lines => {
            let mut pos = 0;
            for line in text.split('\n') {
                push_trimmed(text, pos, pos + line.len(), &mut out.spans);
                pos += line.len() + 1;
            }
        }
        SegmentMode::Prose => {
            // Single newlines inside a paragraph are line wraps: segment a copy where
            // they are spaces (same byte length, so offsets carry over).
            let mut paragraph_start = 0;
            let bytes = text.as_bytes();
            let mut cut_points = Vec::new();
            // The newlines, found by a fast byte search rather than a byte loop.
            for i in memchr::memchr_iter(b'\n', bytes) {
                out.newlines.push(i);
                let mut j = i + 1;
                while j < bytes.len() && (bytes[j] == b' ' || bytes[j] == b'\t') {
                    j += 1;
                }
                let heading_next = j < bytes.len() && bytes[j] == b'#';
                if (j < bytes.len() && bytes[j] == b'\n')
                    || heading_next
                    || line_is_heading(text, paragraph_start, i)
                {
                    cut_points.push((paragraph_start, i));
                    paragraph_start = i + 1;
                }
            }
            cut_points.push((paragraph_start, text.len()));
            for (a, b) in cut_points {
                segment_paragraph(text, a, b, &mut out);
            }
        }
    }
    out
}

fn line_is_heading(text: &str, para_start: usize, nl: usize) -> bool {
    // A markdown heading line ends its paragraph.
    let line_start = text[..nl].rfind('\n').map_or(0, |p| p + 1).max(para_start);
    text[line_start..nl].trim_start().starts_with('#')
}

fn segment_paragraph(text: &str, a: usize, b: usize, out: &mut Segmentation) {
    let para = &text[a..b];
    if para.trim().is_empty() {
        return;
    }
    // Copied only when it has a line wrap to flatten.
    let flat: std::borrow::Cow<'_, str> = if memchr::memchr(b'\n', para.as_bytes()).is_some() {
        para.replace('\n', " ").into()
    } else {
        para.into()
    };
    let mut pieces: Vec<(usize, usize)> = Vec::new();
    for (off, s) in crate::bounds::sentences(&flat) {
        let start = off;
        let end = off + s.len();
        let merge = match pieces.last() {
            Some(&(ps, pe)) => {
                let prev = &flat[ps..pe];
                ends_with_abbreviation(prev) || continues_sentence(prev, s)
            }
            None => false,
        };
        if merge {
            if let Some(last) = pieces.last_mut() {
                last.1 = end;
            }
        } else {
            pieces.push((start, end));
        }
    }
    for (s, e) in pieces {
        let (s, e) = (a + s, a + e);
        if e - s > MAX_SENTENCE {
            let mut pos = s;
            while pos < e {
                let mut cut = (pos + MAX_SENTENCE).min(e);
                while cut < e && !text.is_char_boundary(cut) {
                    cut -= 1;
                }
                if cut < e
                    && let Some(sp) = text[pos..cut].rfind(char::is_whitespace)
                    && sp > 0
                {
                    cut = pos + sp;
                }
                if cut <= pos {
                    cut = (pos + 1..=e)
                        .find(|&c| text.is_char_boundary(c))
                        .unwrap_or(e);
                }
                let n = out.spans.len();
                push_trimmed(text, pos, cut, &mut out.spans);
                if pos > s && out.spans.len() > n {
                    out.forced.push(n);
                }
                pos = cut;
            }
        } else {
            push_trimmed(text, s, e, &mut out.spans);
        }
    }
}

/// The sentences of the chunk made of the document's sentences `i..j`, in
/// document offsets: exactly what [`sentences`] gives for the chunk's own text
/// (read-time numbering, `c12.s3`, segments the chunk text).
///
/// They are the document's sentences `i..j` except in two cases, where the chunk
/// is segmented again: in `Lines` mode always equal; in `Prose` mode a chunk
/// that starts inside a line whose heading status (`#` at its start) differs
/// from the chunk's first sentence may cut its first line differently, and a
/// chunk that starts on a piece of an over-long sentence cut at
/// [`MAX_SENTENCE`] bytes counts those bytes from another place. Elsewhere Unicode sentence boundaries and the
/// merge rules only look inside a sentence and at its predecessor in the
/// chunk, which are the same in both readings (tested against re-segmentation
/// on the fixture corpora and on generated adversarial text).
pub(crate) fn chunk_sentences(
    text: &str,
    seg: &Segmentation,
    i: usize,
    j: usize,
    mode: SegmentMode,
) -> Vec<(usize, usize)> {
    let (cs, ce) = (seg.spans[i].0, seg.spans[j - 1].1);
    if mode == SegmentMode::Prose
        && (seg.cut_at(i) || seg.cut_at(i + 1) || first_line_heading_differs(text, seg, cs))
    {
        return sentences(&text[cs..ce], mode)
            .into_iter()
            .map(|(a, b)| (cs + a, cs + b))
            .collect();
    }
    seg.spans[i..j].to_vec()
}

/// Whether the line holding byte `cs` counts as a markdown heading differently
/// when read from its start (whole document) and from `cs` (a chunk's text).
fn first_line_heading_differs(text: &str, seg: &Segmentation, cs: usize) -> bool {
    let before = seg.newlines.partition_point(|&p| p < cs);
    let ls = before
        .checked_sub(1)
        .and_then(|k| seg.newlines.get(k))
        .map_or(0, |p| p + 1);
    text[ls..].trim_start().starts_with('#') != text[cs..].trim_start().starts_with('#')
}

fn push_trimmed(text: &str, s: usize, e: usize, out: &mut Vec<(usize, usize)>) {
    let piece = &text[s..e];
    let lead = piece.len() - piece.trim_start().len();
    let trail = piece.len() - piece.trim_end().len();
    if lead + trail < piece.len() {
        out.push((s + lead, e - trail));
    }
}

/// 1-based line number of byte `pos` given the line number of byte `base` (≤ pos).
pub fn line_at(text: &str, base: usize, base_line: u32, pos: usize) -> u32 {
    let end = pos.min(text.len());
    let start = base.min(end);
    base_line
        + text.as_bytes()[start..end]
            .iter()
            .filter(|&&b| b == b'\n')
            .count() as u32
}

/// Largest char boundary ≤ `i`.
pub fn floor_boundary(s: &str, i: usize) -> usize {
    let mut i = i.min(s.len());
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Skipping NFC where the quick check proves it changes nothing.
        #[test]
        fn normalize_equals_full_nfc(s in "[a-zA-Z \r\n\t\u{1}\u{7f}\u{feff}éeÅA\u{301}\u{30a}\u{327}\u{212b}\u{2019}ﬁ한\u{1100}\u{1161}]{0,24}") {
            let s = s.as_str();
            let t = s.strip_prefix('\u{feff}').unwrap_or(s).replace("\r\n", "\n").replace('\r', "\n");
            let want: String = t
                .nfc()
                .filter(|c| !c.is_control() || *c == '\n' || *c == '\t')
                .collect();
            prop_assert_eq!(normalize(s), want);
        }

        /// The byte scan finds exactly the control characters the char scan does.
        #[test]
        fn stray_control_by_bytes_equals_by_chars(s in "[a-z \n\t\u{0}-\u{1f}\u{7f}-\u{a0}\u{c2}\u{100}\u{2080}\u{1f600}]{0,24}") {
            let by_chars = s.chars().any(|c| c.is_control() && c != '\n' && c != '\t');
            prop_assert_eq!(has_stray_control(&s), by_chars);
        }
    }

    fn sents(t: &str) -> Vec<&str> {
        sentences(t, SegmentMode::Prose)
            .into_iter()
            .map(|(a, b)| &t[a..b])
            .collect()
    }

    #[test]
    fn abbreviations_and_initials_do_not_split() {
        assert_eq!(
            sents("Dr. Ada Lovelace met J. R. Smith in the U.S. yesterday. They talked."),
            vec![
                "Dr. Ada Lovelace met J. R. Smith in the U.S. yesterday.",
                "They talked."
            ]
        );
    }

    #[test]
    fn wrapped_lines_join_and_blank_lines_split() {
        assert_eq!(
            sents("One line\nwraps here. Two.\n\n# Head\nBody"),
            vec!["One line\nwraps here.", "Two.", "# Head", "Body"]
        );
    }

    #[test]
    fn lines_mode() {
        let t = "First one.\n Second  \n\nThird";
        let v: Vec<&str> = sentences(t, SegmentMode::Lines)
            .into_iter()
            .map(|(a, b)| &t[a..b])
            .collect();
        assert_eq!(v, vec!["First one.", "Second", "Third"]);
    }

    #[test]
    fn huge_line_is_cut() {
        let t = "word ".repeat(3000);
        let s = sentences(&t, SegmentMode::Prose);
        assert!(s.len() >= 3);
        assert!(s.iter().all(|(a, b)| b - a <= MAX_SENTENCE));
    }
}

/// Chunk sentences derived from the document segmentation must equal what
/// read-time numbering computes by segmenting the chunk text again.
#[cfg(test)]
mod chunk_sentences_tests {
    use super::*;

    /// Pieces of adversarial prose: abbreviations, initials, quotes, closing
    /// punctuation, headings and `#` inside lines, list items, blank lines,
    /// lowercase and digit starts, CJK and combining text.
    const PIECES: &[&str] = &[
        "Dr.",
        "Mr. Smith",
        "the U.S.",
        "J. R. Tolkien",
        "e.g.",
        "etc.",
        "No. 5",
        "Fig. 3",
        "he",
        "said",
        "\"Stop.\"",
        "\"Go!\"",
        "(see below)",
        "(Ibid.)",
        "?",
        "!",
        ".",
        "...",
        "3.5",
        "1990.",
        "\n",
        "\n\n",
        "\n# Heading",
        "#3",
        "# ",
        "x",
        "Word",
        "word",
        "words.",
        "Paris",
        "and",
        "lowercase start.",
        "i.e.",
        "a.m.",
        "'quoted.'",
        ")",
        "(",
        ":",
        ";",
        "  ",
        "\t",
        "A.",
        "b.",
        "vs.",
        "St. Louis",
        "Inc.",
        "½",
        "Ünïcödé.",
        "日本語。",
        "“Curly.”",
        "-",
        "—",
        "*",
        "1.",
        "2)",
        "- item",
        "\n- item",
        "\n1. item",
        "\n  ",
        "«Bonjour.»",
    ];

    /// xorshift64: deterministic text without a dependency.
    fn next(seed: &mut u64) -> u64 {
        *seed ^= *seed << 13;
        *seed ^= *seed >> 7;
        *seed ^= *seed << 17;
        *seed
    }

    fn generate(seed: &mut u64, n: usize) -> String {
        let mut s = String::new();
        for _ in 0..n {
            let r = next(seed);
            s.push_str(PIECES[(r % PIECES.len() as u64) as usize]);
            if !r.is_multiple_of(3) {
                s.push(' ');
            }
        }
        s
    }

    /// Compare derived and re-segmented sentences for every window of up to
    /// `width` consecutive sentences; returns (windows checked, mismatches).
    pub(crate) fn check_windows(
        text: &str,
        mode: SegmentMode,
        width: usize,
    ) -> (usize, Vec<String>) {
        let seg = segment(text, mode);
        let n = seg.spans.len();
        let mut checked = 0;
        let mut bad = Vec::new();
        for i in 0..n {
            for j in i + 1..=(i + width).min(n) {
                checked += 1;
                let (cs, ce) = (seg.spans[i].0, seg.spans[j - 1].1);
                let again: Vec<(usize, usize)> = sentences(&text[cs..ce], mode)
                    .into_iter()
                    .map(|(a, b)| (a + cs, b + cs))
                    .collect();
                let derived = chunk_sentences(text, &seg, i, j, mode);
                if derived != again {
                    bad.push(format!(
                        "chunk {:?}\n derived {derived:?}\n again   {again:?}",
                        &text[cs..ce]
                    ));
                }
            }
        }
        (checked, bad)
    }

    #[test]
    fn adversarial_prose() {
        let mut seed = 0x9e37_79b9_7f4a_7c15;
        let mut checked = 0;
        for _ in 0..400 {
            let t = generate(&mut seed, 60);
            for mode in [SegmentMode::Prose, SegmentMode::Lines] {
                let (n, bad) = check_windows(&t, mode, 4);
                assert!(bad.is_empty(), "{}", bad.join("\n"));
                checked += n;
            }
        }
        assert!(checked > 10_000, "{checked}");
    }

    #[test]
    fn over_long_sentences() {
        let mut seed = 0x1234_5678_9abc_def1;
        for round in 0..40 {
            let mut t = String::new();
            for _ in 0..6 {
                let r = next(&mut seed);
                let word =
                    ["word ", "wörd ", "a ", "longerword ", "x\n", "日本 "][(r >> 20) as usize % 6];
                t.push_str(&word.repeat((r % 3000) as usize));
                t.push_str(&generate(&mut seed, 5 + round % 7));
                t.push_str(". ");
            }
            let (_, bad) = check_windows(&t, SegmentMode::Prose, 3);
            assert!(bad.is_empty(), "{}", bad.len());
        }
    }

    #[test]
    fn heading_status_of_the_first_line() {
        // The document's line starts with `#`; a chunk starting mid-line does not.
        let t = "# Title. Second part\nwraps here. Next.";
        let (_, bad) = check_windows(t, SegmentMode::Prose, 3);
        assert!(bad.is_empty(), "{bad:?}");
        // A sentence starting with `#` inside an ordinary line.
        let t = "Price? #3 costs\nfive dollars. More.";
        let (_, bad) = check_windows(t, SegmentMode::Prose, 3);
        assert!(bad.is_empty(), "{bad:?}");
        let seg = segment(t, SegmentMode::Prose);
        assert!(first_line_heading_differs(t, &seg, seg.spans[1].0));
        // The whole document reads one sentence; the chunk from `#3` reads two.
        assert_eq!(seg.spans.len(), 3);
        assert_eq!(chunk_sentences(t, &seg, 1, 2, SegmentMode::Prose).len(), 2);
    }
}
