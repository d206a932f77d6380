//! The analyzer of the index's text fields: tantivy's default analyzer
//! (`SimpleTokenizer`, then `RemoveLongFilter::limit(40)`, then `LowerCaser`)
//! in one pass, registered under tantivy's name for it, `"default"`.
//!
//! Tokenizing was a quarter of the instructions of tantivy's one indexing
//! thread, the critical path of ingest: the three stages copy each token
//! twice, decode every character and reach each other through dynamic
//! calls. This one reads ASCII by byte, copies a token once and lower-cases
//! it in place. It gives the same tokens, offsets and positions
//! (property-tested against tantivy's), so queries and indexed text agree
//! whichever of the two analyzed them.

use tantivy::tokenizer::{TextAnalyzer, Token, TokenStream, Tokenizer};

/// The name tantivy's text fields use for their analyzer.
pub(crate) const NAME: &str = "default";

/// Longest token kept, in bytes, exclusive (`RemoveLongFilter::limit(40)`).
const LIMIT: usize = 40;

/// The analyzer to register under [`NAME`].
pub(crate) fn analyzer() -> TextAnalyzer {
    TextAnalyzer::from(Fused::default())
}

/// tantivy's default analyzer fused into one tokenizer.
#[derive(Clone, Default)]
struct Fused {
    token: Token,
}

/// The tokens of one text.
struct FusedStream<'a> {
    text: &'a str,
    /// Where the search for the next token starts.
    pos: usize,
    token: &'a mut Token,
}

impl Tokenizer for Fused {
    type TokenStream<'a> = FusedStream<'a>;

    fn token_stream<'a>(&'a mut self, text: &'a str) -> FusedStream<'a> {
        self.token.reset();
        FusedStream {
            text,
            pos: 0,
            token: &mut self.token,
        }
    }
}

impl FusedStream<'_> {
    /// Whether the character at byte `i` (a character boundary) is
    /// alphanumeric, and its length in bytes.
    #[inline]
    fn class(&self, i: usize) -> (bool, usize) {
        match self.text.as_bytes().get(i) {
            Some(&b) if b.is_ascii() => (b.is_ascii_alphanumeric(), 1),
            _ => self
                .text
                .get(i..)
                .and_then(|r| r.chars().next())
                .map_or((false, 1), |c| (c.is_alphanumeric(), c.len_utf8())),
        }
    }
}

impl TokenStream for FusedStream<'_> {
    fn advance(&mut self) -> bool {
        let b = self.text.as_bytes();
        let n = b.len();
        loop {
            // The next run of alphanumeric characters: ASCII bytes are
            // skipped by a byte scan, other characters decoded one by one.
            let mut start = self.pos;
            loop {
                start += b.get(start..).map_or(0, |r| {
                    r.iter()
                        .position(|&c| c.is_ascii_alphanumeric() || !c.is_ascii())
                        .unwrap_or(r.len())
                });
                match b.get(start) {
                    None => {
                        self.pos = n;
                        return false;
                    }
                    Some(c) if c.is_ascii() => break,
                    Some(_) => {}
                }
                let (alnum, len) = self.class(start);
                if alnum {
                    break;
                }
                start += len;
            }
            let (mut end, mut ascii) = (start, true);
            loop {
                end += b.get(end..).map_or(0, |r| {
                    r.iter()
                        .position(|&c| !c.is_ascii_alphanumeric())
                        .unwrap_or(r.len())
                });
                if b.get(end).is_none_or(u8::is_ascii) {
                    break;
                }
                let (alnum, len) = self.class(end);
                if !alnum {
                    break;
                }
                ascii = false;
                end += len;
            }
            self.pos = end;
            // Every token takes a position, a removed long one too.
            self.token.position = self.token.position.wrapping_add(1);
            if end - start >= LIMIT {
                continue;
            }
            let Some(raw) = self.text.get(start..end) else {
                continue;
            };
            self.token.offset_from = start;
            self.token.offset_to = end;
            self.token.text.clear();
            if ascii {
                self.token.text.push_str(raw);
                self.token.text.make_ascii_lowercase();
            } else {
                for c in raw.chars() {
                    self.token.text.extend(c.to_lowercase());
                }
            }
            return true;
        }
    }

    fn token(&self) -> &Token {
        self.token
    }

    fn token_mut(&mut self) -> &mut Token {
        self.token
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use tantivy::tokenizer::TokenizerManager;

    fn tokens(mut a: TextAnalyzer, text: &str) -> Vec<(usize, usize, usize, String)> {
        let mut out = Vec::new();
        let mut stream = a.token_stream(text);
        while stream.advance() {
            let t = stream.token();
            out.push((t.offset_from, t.offset_to, t.position, t.text.clone()));
        }
        out
    }

    fn tantivy_default() -> TextAnalyzer {
        TokenizerManager::default()
            .get(NAME)
            .expect("tantivy registers a default analyzer")
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(3000))]
        /// Tokens, offsets and positions equal tantivy's default analyzer's,
        /// on text dense in case, digits, punctuation, long words and
        /// characters whose lower case is longer or not a letter at all.
        #[test]
        fn equals_tantivy_default(parts in proptest::collection::vec(prop_oneof![
            proptest::sample::select(vec![
                "a", "Z", "9", " ", ".", "-", "_", "'", "\n", "é", "É", "İ", "ß", "Σ", "ﬁ", "한",
                "\u{301}", "²", "Ⅻ", "٣", "\u{2019}", "—", "😀",
            ]).prop_map(str::to_string),
            proptest::sample::select(vec!["x".repeat(39), "Y".repeat(40), "ö".repeat(20)]),
            "[a-zA-Z0-9 ]{0,12}",
        ], 0..40)) {
            let text = parts.concat();
            prop_assert_eq!(tokens(analyzer(), &text), tokens(tantivy_default(), &text));
        }
    }
}
