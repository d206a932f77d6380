//! Citation ids (`c12`, `c12.s3`, `c12.s2-s4`) and finding citation groups
//! (`[c12.s3, c40.s1]`) in answer text (SPEC §7.1).
//!
//! The parser is tolerant of what models predictably do to ids: spacing
//! (`[ c12 . s3 ]`), case (`[C12.S3]`), a missing `s` (`[c12.3]`), dashes of any
//! kind and repeated prefixes in ranges (`[c12.s2–c12.s4]`, `[c12.s2-4]`), `;` or
//! `,` between ids, doubled brackets, and the document's id written before the
//! chunk's (`[d3.c5.s1]`, from a search hit's `doc` and `id`: the chunk id is
//! unique on its own). A bracket that starts like a citation
//! but does not parse is kept as a *broken* citation, never an error.

use std::ops::Range;
use std::sync::OnceLock;

use regex::Regex;
use serde::{Deserialize, Serialize};

/// A parsed citation id: a chunk, optionally narrowed to a sentence range — the
/// store's passage id ([`rlmkg_ids`] writes it, and parses its canonical form).
pub use rlmkg_ids::PassageId as CitationId;
pub use rlmkg_ids::{ChunkId, ParseIdError, SentenceRange};

fn bad(s: &str) -> ParseIdError {
    ParseIdError {
        kind: "citation",
        text: s.to_string(),
    }
}

/// Parse one citation id as a model may write it, tolerantly (see the module
/// docs); the canonical forms parse as [`CitationId`]'s `FromStr` does.
pub fn parse_id(s: &str) -> Result<CitationId, ParseIdError> {
    static RE: OnceLock<Option<Regex>> = OnceLock::new();
    let re = RE
        .get_or_init(|| {
            Regex::new(
                r"(?ix)^ \s* (?: d \s* \d+ \s* [.:/] \s* )? c \s* (\d+) \s*
                  (?: [.:]? \s* s? \s* (\d+)
                      (?: \s* [-\x{2010}-\x{2015}~] \s* (?: c \s* \d+ \s* [.:]? \s*)? s? \s* (\d+) )? )?
                  \s* $",
            )
            .ok()
        })
        .as_ref()
        .ok_or_else(|| bad(s))?;
    let caps = re.captures(s).ok_or_else(|| bad(s))?;
    let num = |i: usize| caps.get(i).map(|m| m.as_str().parse::<u64>());
    let chunk = match num(1) {
        Some(Ok(c)) => c,
        _ => return Err(bad(s)),
    };
    // `c12 3` (space, no dot, no s) is too ambiguous; require a separator or an `s`.
    if let Some(m) = caps.get(2) {
        let between = &s[caps.get(1).map_or(0, |c| c.end())..m.start()];
        if !between.contains(['.', ':', 's', 'S']) {
            return Err(bad(s));
        }
    }
    let sentences = match (num(2), num(3)) {
        (None, _) => None,
        (Some(Ok(a)), None) => Some((a, a)),
        (Some(Ok(a)), Some(Ok(b))) => Some((a, b)),
        _ => return Err(bad(s)),
    };
    let sentences = match sentences {
        Some((a, b)) => {
            let range = match (u32::try_from(a), u32::try_from(b)) {
                (Ok(a), Ok(b)) => SentenceRange::new(a, b),
                _ => None,
            };
            Some(range.ok_or_else(|| bad(s))?)
        }
        None => None,
    };
    Ok(CitationId {
        chunk: ChunkId(chunk),
        sentences,
    })
}

/// One citation as written in the answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CitationRef {
    /// The id text as written (trimmed).
    pub raw: String,
    /// The parsed id, or `None` when it does not parse (a broken citation).
    pub id: Option<CitationId>,
}

/// A bracketed group of citations and where it sits in the answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct CitationGroup {
    /// Byte range of the whole bracket group in the answer.
    pub span: Range<usize>,
    /// The citations in it, in order.
    pub citations: Vec<CitationRef>,
}

/// Find every citation group in `text`. A bracket is a citation group when its first
/// item starts with `c` followed by a digit (after a document's id, `d3.`, if any);
/// markdown links (`[text](url)`) are not.
pub(crate) fn find_groups(text: &str) -> Vec<CitationGroup> {
    static RE: OnceLock<Option<Regex>> = OnceLock::new();
    let Some(re) = RE
        .get_or_init(|| {
            Regex::new(
                r"\[\[?\s*((?:[dD]\s*\d+\s*[.:/]\s*)?[cC]\s*\d[^\[\]\n]{0,200}?)\]\]?|【\s*((?:[dD]\s*\d+\s*[.:/]\s*)?[cC]\s*\d[^【】\n]{0,200}?)】",
            )
            .ok()
        })
        .as_ref()
    else {
        return Vec::new();
    };
    let mut groups = Vec::new();
    for caps in re.captures_iter(text) {
        let (Some(whole), Some(inner)) = (caps.get(0), caps.get(1).or_else(|| caps.get(2))) else {
            continue;
        };
        if text[whole.end()..].starts_with('(') {
            continue; // a markdown link
        }
        let citations = inner
            .as_str()
            .split([',', ';', '|'])
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(|raw| CitationRef {
                raw: raw.to_string(),
                id: parse_id(raw).ok(),
            })
            .collect::<Vec<_>>();
        groups.push(CitationGroup {
            span: whole.range(),
            citations,
        });
    }
    merge_adjacent(text, groups)
}

/// `[c1][c2]` and `[c1] [c2]` form one group.
fn merge_adjacent(text: &str, groups: Vec<CitationGroup>) -> Vec<CitationGroup> {
    let mut out: Vec<CitationGroup> = Vec::new();
    for g in groups {
        if let Some(last) = out.last_mut()
            && text[last.span.end..g.span.start].trim().is_empty()
        {
            last.span.end = g.span.end;
            last.citations.extend(g.citations);
            continue;
        }
        out.push(g);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(s: &str) -> Option<String> {
        parse_id(s).ok().map(|c| c.to_string())
    }

    #[test]
    fn parses_tolerantly() {
        let cases = [
            ("c12", Some("c12")),
            ("c12.s3", Some("c12.s3")),
            ("c12.s2-s4", Some("c12.s2-s4")),
            (" C12 . S3 ", Some("c12.s3")),
            ("c12.3", Some("c12.s3")),
            ("c12s3", Some("c12.s3")),
            ("c12.s2–s4", Some("c12.s2-s4")),
            ("c12.s2-4", Some("c12.s2-s4")),
            ("c12.s2-c12.s4", Some("c12.s2-s4")),
            ("c12.s3-s3", Some("c12.s3")),
            ("d3.c5.s1", Some("c5.s1")),
            ("D3 / c5", Some("c5")),
            ("d3.s1", None),
            ("d3", None),
            ("c12.s4-s2", None),
            ("c12 3", None),
            ("c12.sx", None),
            ("chunk", None),
            ("c99999999999999999999999", None),
        ];
        for (input, want) in cases {
            assert_eq!(p(input).as_deref(), want, "{input}");
        }
    }

    #[test]
    fn finds_groups() {
        let text = "A [c1]. B [c2.s1, c3.s2-s4]. C [c4][c5.s1]. See [c6](http://x). D [c7.sx]. E [1]. F [d2.c8.s1]. G [d4].";
        let groups = find_groups(text);
        let raws: Vec<Vec<&str>> = groups
            .iter()
            .map(|g| g.citations.iter().map(|c| c.raw.as_str()).collect())
            .collect();
        assert_eq!(
            raws,
            vec![
                vec!["c1"],
                vec!["c2.s1", "c3.s2-s4"],
                vec!["c4", "c5.s1"],
                vec!["c7.sx"],
                vec!["d2.c8.s1"]
            ]
        );
        assert!(groups[3].citations[0].id.is_none());
        assert_eq!(
            groups[4].citations[0]
                .id
                .map(|id| id.to_string())
                .as_deref(),
            Some("c8.s1")
        );
    }
}
