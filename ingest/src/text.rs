//! Text normalization, sentence segmentation, token estimates and line numbers.
//!
//! Segmentation is a pure function of a text and a [`SegmentMode`]: the same
//! function cuts chunks at ingest and numbers sentences (`c12.s3`) at read time.

use unicode_normalization::UnicodeNormalization;
use unicode_segmentation::UnicodeSegmentation;

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
    let s = if s.contains('\r') {
        s.replace("\r\n", "\n").replace('\r', "\n")
    } else {
        s.to_string()
    };
    let needs_nfc = !s.is_ascii();
    let s: String = if needs_nfc { s.nfc().collect() } else { s };
    if s.chars().any(|c| c.is_control() && c != '\n' && c != '\t') {
        s.chars()
            .filter(|c| !c.is_control() || *c == '\n' || *c == '\t')
            .collect()
    } else {
        s
    }
}

/// Approximate token count: one token per four bytes, rounded up (documented in
/// the README; a configured tokenizer would replace it).
pub fn approx_tokens(text: &str) -> usize {
    text.len().div_ceil(4)
}

const ABBREVIATIONS: &[&str] = &[
    "mr", "mrs", "ms", "dr", "prof", "sr", "jr", "st", "mt", "vs", "etc", "e.g", "i.e", "no",
    "fig", "inc", "ltd", "co", "corp", "gen", "col", "lt", "sgt", "capt", "rev", "hon", "gov",
    "sen", "rep", "jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov",
    "dec", "approx", "ca", "cf", "al", "u.s", "u.k", "u.n", "d.c", "a.m", "p.m",
];

/// Longest sentence in bytes before it is cut at a space (huge single lines).
const MAX_SENTENCE: usize = 4000;

fn ends_with_abbreviation(piece: &str) -> bool {
    let t = piece.trim_end();
    let Some(body) = t.strip_suffix('.') else {
        return false;
    };
    let last = body
        .rsplit(|c: char| c.is_whitespace() || c == '(' || c == '"')
        .next()
        .unwrap_or("");
    if last.is_empty() {
        return false;
    }
    // A single capital letter is an initial ("J. R. R. Tolkien").
    let mut chars = last.chars();
    if let (Some(c), None) = (chars.next(), chars.next())
        && c.is_uppercase()
    {
        return true;
    }
    ABBREVIATIONS.contains(&last.to_lowercase().as_str())
}

/// Sentence spans `(start, end)` in bytes of `text`, trimmed of surrounding whitespace,
/// in order, non-empty.
pub fn sentences(text: &str, mode: SegmentMode) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    match mode {
        SegmentMode::Lines => {
            let mut pos = 0;
            for line in text.split('\n') {
                push_trimmed(text, pos, pos + line.len(), &mut out);
                pos += line.len() + 1;
            }
        }
        SegmentMode::Prose => {
            // Single newlines inside a paragraph are line wraps: segment a copy where
            // they are spaces (same byte length, so offsets carry over).
            let mut paragraph_start = 0;
            let bytes = text.as_bytes();
            let mut i = 0;
            let mut cut_points = Vec::new();
            while i < bytes.len() {
                if bytes[i] == b'\n' {
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
                i += 1;
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

fn segment_paragraph(text: &str, a: usize, b: usize, out: &mut Vec<(usize, usize)>) {
    let para = &text[a..b];
    if para.trim().is_empty() {
        return;
    }
    let flat = para.replace('\n', " ");
    let mut pieces: Vec<(usize, usize)> = Vec::new();
    for (off, s) in flat.split_sentence_bound_indices() {
        let start = off;
        let end = off + s.len();
        let merge = match pieces.last() {
            Some(&(ps, pe)) => {
                let prev = &flat[ps..pe];
                let next_lower = s
                    .trim_start()
                    .chars()
                    .next()
                    .is_some_and(|c| c.is_lowercase() || c.is_ascii_digit());
                ends_with_abbreviation(prev) || next_lower && !prev.trim_end().ends_with(['?', '!'])
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
                push_trimmed(text, pos, cut, out);
                pos = cut;
            }
        } else {
            push_trimmed(text, s, e, out);
        }
    }
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
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
    use super::*;

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
