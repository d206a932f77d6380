//! Unicode word and sentence boundaries (UAX #29) with an ASCII fast path.
//!
//! Segmentation and extraction spend a fifth of ingest's CPU looking up
//! Unicode break properties, although most text is ASCII. For an ASCII text
//! the rules reduce to a few byte classes, so the boundaries are computed from
//! those directly; anything else goes to `unicode-segmentation`. Both paths give
//! the same boundaries (property-tested below against the crate), so the fast
//! path changes no chunk, sentence number or mention.

use unicode_segmentation::UnicodeSegmentation;

/// The words of `s` with their byte offsets (see [`words_into`]).
#[cfg(test)]
pub(crate) fn words(s: &str) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    words_into(s, &mut out);
    out
}

/// The words of `s` with their byte offsets, into `out` (cleared first): the
/// word-bound segments that hold a letter or digit
/// (`split_word_bound_indices`, filtered). Extraction splits every sentence
/// into one reused buffer.
pub(crate) fn words_into<'a>(s: &'a str, out: &mut Vec<(usize, &'a str)>) {
    out.clear();
    if !s.is_ascii() {
        out.extend(
            s.split_word_bound_indices()
                .filter(|(_, w)| w.chars().any(char::is_alphanumeric)),
        );
        return;
    }
    let b = s.as_bytes();
    let mut i = 0;
    while let Some((start, end)) = next_ascii_word(b, i) {
        out.push((start, &s[start..end]));
        i = end;
    }
}

/// The next word of the ASCII text `b` at or after `from` (a word boundary:
/// 0 or the end of a word), as `(start, end)`: the rules of [`words_into`].
pub(crate) fn next_ascii_word(b: &[u8], from: usize) -> Option<(usize, usize)> {
    let mut i = from;
    // Runs of word bytes and of other bytes are skipped by `position` over
    // the rest of the slice (no per-byte bounds checks).
    loop {
        let start = i + b.get(i..)?.iter().position(|&c| is_word_byte(c))?;
        let end = ascii_word_end(b, start);
        // A word byte other than `_` is a letter or digit.
        if b[start] != b'_' || b[start..end].iter().any(u8::is_ascii_alphanumeric) {
            return Some((start, end));
        }
        i = end;
    }
}

/// The next word of the ASCII text `b` at or after `from` (a word boundary)
/// whose first byte `first` accepts (a letter or digit test), as
/// `(start, end)`, found by a byte search: the words before it are not
/// split. A byte is a word's first where no word byte precedes it and it
/// does not continue a word across a middle character.
pub(crate) fn next_ascii_word_where(
    b: &[u8],
    from: usize,
    first: impl Fn(u8) -> bool,
) -> Option<(usize, usize)> {
    let mut q = from;
    loop {
        q += position_screened(b.get(q..)?, &first)?;
        let starts = match q.checked_sub(1).and_then(|p| b.get(p)) {
            None => true,
            Some(&prev) => {
                !is_word_byte(prev)
                    && !q
                        .checked_sub(2)
                        .and_then(|p| b.get(p))
                        .is_some_and(|&before| joins(before, prev, b[q]))
            }
        };
        if starts && is_word_byte(b[q]) {
            return Some((q, ascii_word_end(b, q)));
        }
        q += 1;
    }
}

/// The first byte of `b` that `hit` accepts (`iter().position`), with blocks
/// of 16 bytes screened branch-free first (the compiler vectorizes the fold):
/// for a test most bytes fail, such as a capital or a control character.
pub(crate) fn position_screened(b: &[u8], hit: impl Fn(u8) -> bool) -> Option<usize> {
    let skip: usize = b
        .chunks(16)
        .take_while(|block| !block.iter().fold(false, |any, &c| any | hit(c)))
        .map(<[u8]>::len)
        .sum();
    Some(skip + b.get(skip..)?.iter().position(|&c| hit(c))?)
}

/// Where the ASCII word that starts at `start` (a word byte) ends: UAX #29
/// keeps word bytes in it, and a single middle character between two letters
/// or two digits.
fn ascii_word_end(b: &[u8], start: usize) -> usize {
    let n = b.len();
    let mut i = start + 1;
    loop {
        i += b
            .get(i..)
            .and_then(|r| r.iter().position(|&c| !is_word_byte(c)))
            .unwrap_or(n.saturating_sub(i));
        match (b.get(i - 1), b.get(i), b.get(i + 1)) {
            (Some(&p), Some(&c), Some(&next)) if joins(p, c, next) => i += 2,
            _ => return i,
        }
    }
}

/// Whether the middle character `c` joins `p` and `next` into one word
/// (MidLetter or MidNumLet between letters, MidNum or MidNumLet between digits).
fn joins(p: u8, c: u8, next: u8) -> bool {
    (p.is_ascii_alphabetic() && next.is_ascii_alphabetic() && matches!(c, b':' | b'.' | b'\''))
        || (p.is_ascii_digit() && next.is_ascii_digit() && matches!(c, b',' | b';' | b'.' | b'\''))
}

/// Which bytes are ASCII letters, digits or the connector `_` (ALetter,
/// Numeric, ExtendNumLet), looked up per byte of a word scan.
const WORD_BYTE: [bool; 256] = {
    let mut t = [false; 256];
    let mut c = 0;
    while c < 256 {
        let b = c as u8;
        t[c] = b.is_ascii_alphanumeric() || b == b'_';
        c += 1;
    }
    t
};

/// Letters, digits and the connector `_` (ALetter, Numeric, ExtendNumLet).
fn is_word_byte(c: u8) -> bool {
    WORD_BYTE[usize::from(c)]
}

/// Sentence-bound segments of `s` with their byte offsets
/// (`split_sentence_bound_indices`).
pub(crate) fn sentences(s: &str) -> Vec<(usize, &str)> {
    if s.is_ascii() {
        return ascii_sentences(s, s.as_bytes());
    }
    match sentence_stand_in(s) {
        Some(b) => ascii_sentences(s, &b),
        None => s.split_sentence_bound_indices().collect(),
    }
}

/// The bytes of `s` with each non-ASCII character replaced by as many ASCII
/// bytes of its sentence-break class as it takes bytes (curly quotes are
/// Close, en and em dashes SContinue, the no-break space Sp, Latin-1 letters
/// Upper or Lower, the degree sign Other); `None` when `s` holds any other
/// non-ASCII character. The rules read a run of one class as they read one
/// character of it (`Close*`, `Sp*`, and the skipped run of SB8), and they
/// never break inside such a run, so the ASCII scan of the stand-in breaks
/// where the full rules break `s` (property-tested against the crate).
fn sentence_stand_in(s: &str) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(s.len());
    let mut rest = s;
    while let Some(p) = rest.bytes().position(|c| !c.is_ascii()) {
        out.extend_from_slice(&rest.as_bytes()[..p]);
        let c = rest[p..].chars().next()?;
        let stand = match c {
            '\u{2018}'..='\u{201f}' => b'\'',
            '\u{2013}' | '\u{2014}' => b',',
            '\u{a0}' => b' ',
            '\u{b0}' => b'#',
            '\u{c0}'..='\u{ff}' if c.is_uppercase() => b'A',
            '\u{c0}'..='\u{ff}' if c.is_lowercase() => b'a',
            _ => return None,
        };
        out.extend(std::iter::repeat_n(stand, c.len_utf8()));
        rest = &rest[p + c.len_utf8()..];
    }
    out.extend_from_slice(rest.as_bytes());
    Some(out)
}

/// [`sentences`] of `s` read off `b`: `s` itself when it is ASCII, else its
/// ASCII stand-in of the same length.
fn ascii_sentences<'a>(s: &'a str, b: &[u8]) -> Vec<(usize, &'a str)> {
    let mut cuts = Vec::new();
    // A break needs a paragraph separator or `SATerm Close* Sp*` right before
    // it, so only the places after those are tested; each byte is read a
    // bounded number of times (no rescans of long runs of spaces).
    // Only terminators and separators start a test: the scan jumps between
    // them (`memchr`), and the next separator's place is kept until passed.
    let mut next_sep = 0;
    let mut t = 0;
    while t < b.len() {
        if next_sep < t {
            next_sep = memchr::memchr2(b'\n', b'\r', &b[t..]).map_or(b.len(), |p| t + p);
        }
        let next_term = memchr::memchr3(b'.', b'?', b'!', &b[t..]).map_or(b.len(), |p| t + p);
        t = next_term.min(next_sep);
        let Some(&byte) = b.get(t) else {
            break;
        };
        let c = sb(byte);
        if is_para_sep(c) {
            // SB3: CR × LF; SB4: ParaSep ÷.
            if t + 1 < b.len() && !(c == Sb::Cr && sb(b[t + 1]) == Sb::Lf) {
                cuts.push(t + 1);
            }
            t += 1;
        } else if is_saterm(c) {
            let mut close_end = t + 1;
            while close_end < b.len() && sb(b[close_end]) == Sb::Close {
                close_end += 1;
            }
            let mut e = close_end;
            while e < b.len() && sb(b[e]) == Sb::Sp {
                e += 1;
            }
            // Inside the run the next byte is a Close or Sp, which never
            // breaks (SB9, SB10): only its end is tested.
            if e < b.len() && breaks_after_term(b, t, close_end, e) {
                cuts.push(e);
            }
            t = e;
        } else {
            t += 1;
        }
    }
    let mut out = Vec::with_capacity(cuts.len() + 1);
    let mut start = 0;
    for i in cuts {
        out.push((start, &s[start..i]));
        start = i;
    }
    if start < b.len() {
        out.push((start, &s[start..]));
    }
    out
}

/// Sentence break property of an ASCII byte.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Sb {
    Cr,
    Lf,
    Sp,
    Lower,
    Upper,
    Numeric,
    ATerm,
    STerm,
    Close,
    SContinue,
    Other,
}

/// [`sb_of`] of every byte, looked up instead of matched (the sentence scan
/// reads each byte's class).
const SB_TABLE: [Sb; 256] = {
    let mut t = [Sb::Other; 256];
    let mut c = 0;
    while c < 256 {
        t[c] = sb_of(c as u8);
        c += 1;
    }
    t
};

/// Sentence break property of a byte of an ASCII text.
fn sb(c: u8) -> Sb {
    SB_TABLE[usize::from(c)]
}

/// Sentence break property of an ASCII byte (the definition behind [`SB_TABLE`]).
const fn sb_of(c: u8) -> Sb {
    match c {
        b'\r' => Sb::Cr,
        b'\n' => Sb::Lf,
        b' ' | b'\t' | 0x0b | 0x0c => Sb::Sp,
        b'a'..=b'z' => Sb::Lower,
        b'A'..=b'Z' => Sb::Upper,
        b'0'..=b'9' => Sb::Numeric,
        b'.' => Sb::ATerm,
        b'!' | b'?' => Sb::STerm,
        b'"' | b'\'' | b'(' | b')' | b'[' | b']' | b'{' | b'}' => Sb::Close,
        b',' | b'-' | b':' | b';' => Sb::SContinue,
        _ => Sb::Other,
    }
}

fn is_para_sep(c: Sb) -> bool {
    matches!(c, Sb::Cr | Sb::Lf)
}

fn is_saterm(c: Sb) -> bool {
    matches!(c, Sb::ATerm | Sb::STerm)
}

/// Whether UAX #29 breaks a sentence before `b[e]`, which follows
/// `SATerm Close* Sp*`: the terminator at `t`, its closers up to `close_end`,
/// then spaces up to `e`.
fn breaks_after_term(b: &[u8], t: usize, close_end: usize, e: usize) -> bool {
    let (term, next) = (sb(b[t]), sb(b[e]));
    let closes = close_end > t + 1;
    let spaces = e > close_end;
    if term == Sb::ATerm && !spaces && !closes {
        if next == Sb::Numeric {
            return false; // SB6
        }
        if next == Sb::Upper && t >= 1 && matches!(sb(b[t - 1]), Sb::Upper | Sb::Lower) {
            return false; // SB7
        }
    }
    if term == Sb::ATerm {
        // SB8: a lower-case letter follows before any letter, separator or terminator.
        let lower_follows = b[e..]
            .iter()
            .map(|&c| sb(c))
            .find(|&c| matches!(c, Sb::Lower | Sb::Upper | Sb::Cr | Sb::Lf) || is_saterm(c))
            == Some(Sb::Lower);
        if lower_follows {
            return false;
        }
    }
    if matches!(next, Sb::SContinue) || is_saterm(next) {
        return false; // SB8a
    }
    if !spaces && (matches!(next, Sb::Close | Sb::Sp) || is_para_sep(next)) {
        return false; // SB9
    }
    if matches!(next, Sb::Sp) || is_para_sep(next) {
        return false; // SB10
    }
    true // SB11
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn unicode_words(s: &str) -> Vec<(usize, &str)> {
        s.split_word_bound_indices()
            .filter(|(_, w)| w.chars().any(char::is_alphanumeric))
            .collect()
    }

    /// ASCII text dense in the characters the rules treat specially.
    fn ascii_text() -> impl Strategy<Value = String> {
        proptest::collection::vec(
            prop_oneof![
                4 => proptest::sample::select(b"aZbY09 _.,;:'\"!?()[]{}-\r\n\t\x0b\x0c#$%&*+/<=>@\\^`|~".to_vec()),
                1 => 0u8..0x80,
            ],
            0..80,
        )
        .prop_map(|v| String::from_utf8(v).unwrap())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(4000))]
        #[test]
        fn ascii_words_match_unicode_segmentation(s in ascii_text()) {
            prop_assert_eq!(words(&s), unicode_words(&s));
        }

        /// The byte search finds exactly the words a full split finds that
        /// open with a capital or a digit.
        #[test]
        fn words_found_by_first_byte_match_the_split(s in ascii_text()) {
            let first = |c: u8| c.is_ascii_uppercase() || c.is_ascii_digit();
            let want: Vec<(usize, &str)> = words(&s)
                .into_iter()
                .filter(|(_, w)| first(w.as_bytes()[0]))
                .collect();
            let mut got = Vec::new();
            let mut i = 0;
            while let Some((a, e)) = next_ascii_word_where(s.as_bytes(), i, first) {
                got.push((a, &s[a..e]));
                i = e;
            }
            prop_assert_eq!(got, want);
        }

        #[test]
        fn ascii_sentences_match_unicode_segmentation(s in ascii_text()) {
            let want: Vec<(usize, &str)> = s.split_sentence_bound_indices().collect();
            prop_assert_eq!(sentences(&s), want);
        }

        /// Text with the non-ASCII characters the stand-in replaces (and a
        /// few it does not, which take the crate's path).
        #[test]
        fn stand_in_sentences_match_unicode_segmentation(s in proptest::collection::vec(
            proptest::sample::select(vec![
                'a', 'Z', 'b', '0', ' ', '.', ',', ';', ':', '\'', '"', '!', '?', '(', ')', '-',
                '\n', '\t', '\u{2018}', '\u{2019}', '\u{201a}', '\u{201b}', '\u{201c}',
                '\u{201d}', '\u{201e}', '\u{201f}', '\u{2013}', '\u{2014}', '\u{a0}',
                '\u{b0}', '\u{c0}', '\u{c9}', '\u{d6}', '\u{d7}', '\u{de}', '\u{df}',
                '\u{e9}', '\u{f3}', '\u{f7}', '\u{ef}', '\u{ff}', '\u{2026}', '\u{3002}',
            ]),
            0..60,
        ).prop_map(|v| v.into_iter().collect::<String>())) {
            let want: Vec<(usize, &str)> = s.split_sentence_bound_indices().collect();
            prop_assert_eq!(sentences(&s), want);
        }
    }

    /// Long runs after a terminator are read once, not once per byte: equal to
    /// the crate on runs it handles in time, and linear on runs where the
    /// crate takes quadratic time (seconds at 20k bytes in a debug build).
    #[test]
    fn long_runs_of_spaces_and_closers_stay_linear() {
        let cases = |n: usize| {
            [
                (format!("a.{}b", " ".repeat(n)), 1),
                (format!("a.{}x", ")".repeat(n)), 1),
                (format!("a.{}{}B", ")".repeat(n), " ".repeat(n)), 2),
            ]
        };
        for (s, _) in cases(2_000) {
            let want: Vec<(usize, &str)> = s.split_sentence_bound_indices().collect();
            assert_eq!(sentences(&s), want);
        }
        for (s, pieces) in cases(400_000) {
            assert_eq!(sentences(&s).len(), pieces);
        }
    }

    #[test]
    fn cases_from_prose_match() {
        for s in [
            "Mr. Smith went to Washington. He met the U.S. delegation at 10.30 a.m. today!",
            "It cost $1,000.50 (roughly). \"Really?\" she asked. (Yes.) No; it's fine.",
            "e.g. this. And that... 3.14 is pi. A.B.C. and x:y don't split.\r\nNew line.",
            "",
            " ",
            "end.",
        ] {
            assert_eq!(words(s), unicode_words(s), "{s}");
            let want: Vec<(usize, &str)> = s.split_sentence_bound_indices().collect();
            assert_eq!(sentences(s), want, "{s}");
        }
    }
}
