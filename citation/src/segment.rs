//! Splitting an answer into claims (SPEC §7.2): sentences (UAX #29, not ended
//! by an abbreviation or initials: `rlmkg-text`'s rule, the one sources are
//! split by at ingest), then clauses joined by `;`, `, and`, `, but`, ` but `,
//! `, while`, `, whereas` when both sides carry their own facts. Citations attach to the claim they follow; a clause
//! without its own citation takes the next citation later in its sentence.

use std::ops::Range;

use rlmkg_text::{AUXILIARIES, SUBJECT_PRONOUNS, is_irregular_past};
use unicode_segmentation::UnicodeSegmentation;

use crate::id::{CitationRef, find_groups};
use crate::text::{Kind, analyse};

/// One claim of an answer.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Claim {
    /// The claim text without its citations, whitespace collapsed.
    pub text: String,
    /// Byte range of the claim (with its citations) in the answer.
    pub span: Range<usize>,
    /// Index of the sentence it belongs to.
    pub sentence: usize,
    /// Citations attached to it (own or inherited).
    pub citations: Vec<CitationRef>,
    /// No factual content (a connective or heading): exempt from `uncited`.
    pub connective: bool,
}

/// Split `answer` into claims.
pub(crate) fn claims(answer: &str) -> Vec<Claim> {
    let groups = find_groups(answer);
    // Mask citation groups (same byte length) so brackets and dots inside ids never
    // move sentence boundaries, and join hard-wrapped lines of one paragraph.
    let mut masked: Vec<u8> = answer.as_bytes().to_vec();
    for g in &groups {
        for b in &mut masked[g.span.clone()] {
            *b = b' ';
        }
    }
    join_wrapped_lines(&mut masked);
    let masked = String::from_utf8_lossy(&masked).into_owned();
    if masked.len() != answer.len() {
        return Vec::new();
    }

    let sentences = sentence_ranges(&masked);

    let mut out = Vec::new();
    for (si, sent) in sentences.iter().enumerate() {
        if masked[sent.clone()].trim().is_empty() {
            // A sentence that is only citations attaches them to the previous claims.
            let extra: Vec<CitationRef> = groups
                .iter()
                .filter(|g| g.span.start >= sent.start && g.span.end <= sent.end)
                .flat_map(|g| g.citations.clone())
                .collect();
            if !extra.is_empty() {
                let last_sentence = out.last().map(|c: &Claim| c.sentence);
                for c in out.iter_mut().rev() {
                    if Some(c.sentence) != last_sentence {
                        break;
                    }
                    if c.citations.is_empty() {
                        c.citations = extra.clone();
                    }
                }
                if let Some(last) = out.last_mut() {
                    if last.citations != extra {
                        last.citations.extend(extra);
                    }
                    last.span.end = sent.end;
                }
            }
            continue;
        }
        let clauses = split_clauses(&masked, sent.clone());
        let sent_groups: Vec<_> = groups
            .iter()
            .filter(|g| g.span.start >= sent.start && g.span.start < sent.end)
            .collect();
        let mut claims_here: Vec<Claim> = Vec::new();
        for (ci, clause) in clauses.iter().enumerate() {
            let clause_end = clauses.get(ci + 1).map_or(sent.end, |c| c.start);
            let own: Vec<CitationRef> = sent_groups
                .iter()
                .filter(|g| g.span.start >= clause.start && g.span.start < clause_end)
                .flat_map(|g| g.citations.clone())
                .collect();
            let text = clean(&masked[clause.clone()]);
            if text.is_empty() {
                continue;
            }
            claims_here.push(Claim {
                connective: is_connective(&text)
                    || masked[clause.clone()].trim_start().starts_with('#'),
                text,
                span: trim_range(answer, clause.start..clause_end),
                sentence: si,
                citations: own,
            });
        }
        // Clauses without their own citation take the next one later in the sentence.
        for i in (0..claims_here.len()).rev() {
            if claims_here[i].citations.is_empty() {
                let inherited = claims_here[i + 1..]
                    .iter()
                    .find(|c| !c.citations.is_empty())
                    .map(|c| c.citations.clone());
                if let Some(cits) = inherited {
                    claims_here[i].citations = cits;
                }
            }
        }
        out.extend(claims_here);
    }
    out
}

/// Replace a newline by a space when it only wraps a paragraph (the next line is
/// neither blank, nor a list item, nor a heading, nor a table row, and this line is
/// not a heading or a table row).
fn join_wrapped_lines(masked: &mut [u8]) {
    let n = masked.len();
    for i in 0..n {
        if masked[i] != b'\n' {
            continue;
        }
        let this_line: Vec<u8> = masked[..i]
            .iter()
            .rev()
            .take_while(|b| **b != b'\n')
            .copied()
            .collect::<Vec<u8>>()
            .into_iter()
            .rev()
            .skip_while(|b| *b == b' ' || *b == b'\t')
            .collect();
        // Blank lines, headings and table rows never continue on the next line.
        let prev_blank =
            this_line.is_empty() || this_line.starts_with(b"#") || this_line.starts_with(b"|");
        let rest = &masked[i + 1..];
        let line: &[u8] = rest.split(|b| *b == b'\n').next().unwrap_or(&[]);
        let trimmed = line
            .iter()
            .skip_while(|b| **b == b' ' || **b == b'\t')
            .copied()
            .collect::<Vec<u8>>();
        let structural = trimmed.is_empty()
            || trimmed.starts_with(b"- ")
            || trimmed.starts_with(b"* ")
            || trimmed.starts_with(b"+ ")
            || trimmed.starts_with(b"#")
            || trimmed.starts_with(b"|")
            || trimmed.starts_with(b">")
            || numbered_item(&trimmed);
        if !prev_blank && !structural {
            masked[i] = b' ';
        }
    }
}

fn numbered_item(line: &[u8]) -> bool {
    let digits = line.iter().take_while(|b| b.is_ascii_digit()).count();
    digits > 0
        && matches!(line.get(digits), Some(b'.') | Some(b')'))
        && line.get(digits + 1) == Some(&b' ')
}

/// Claim text: list markers and heading hashes removed, whitespace collapsed,
/// space before punctuation removed (where a citation was masked out).
fn clean(s: &str) -> String {
    let s = s.trim();
    let s = s
        .trim_start_matches(['#', '>', '*', '-', '+', '|'])
        .trim_start();
    let digits = s.chars().take_while(char::is_ascii_digit).count();
    let s = if digits > 0 && s[digits..].starts_with(['.', ')']) && s[digits + 1..].starts_with(' ')
    {
        s[digits + 1..].trim_start()
    } else {
        s
    };
    let mut out = String::with_capacity(s.len());
    for w in s.split_whitespace() {
        if !out.is_empty() && !w.starts_with([',', '.', ';', ':', '!', '?', ')']) {
            out.push(' ');
        }
        out.push_str(w);
    }
    out.trim_end_matches([',', ';']).trim().to_string()
}

fn trim_range(text: &str, r: Range<usize>) -> Range<usize> {
    let s = &text[r.clone()];
    let start = r.start + (s.len() - s.trim_start().len());
    let end = r.end - (s.len() - s.trim_end().len());
    start..end.max(start)
}

/// The clauses of one source sentence, split as claims are (see [`split_clauses`]).
pub(crate) fn clauses_of(text: &str) -> Vec<&str> {
    split_clauses(text, 0..text.len())
        .into_iter()
        .filter_map(|r| text.get(r))
        .collect()
}

/// The sentences of `text` as byte ranges: UAX #29 boundaries, a piece ended by
/// an abbreviation or initials, or going on in lower case, joined to the one
/// before (`rlmkg-text`'s rule, the one sources are split by); a line break ends
/// a sentence.
pub(crate) fn sentence_ranges(text: &str) -> Vec<Range<usize>> {
    let mut sentences: Vec<Range<usize>> = Vec::new();
    for (start, s) in text.split_sentence_bound_indices() {
        let range = start..start + s.len();
        let merge = sentences.last().is_some_and(|prev: &Range<usize>| {
            let prev_text = text[prev.clone()].trim_end();
            // A "sentence" that goes on in lower case (or a digit) continues the
            // previous one (`for the "Kerrang!" release`), as in sources; a line
            // break ends it (answers are not cut into paragraphs first).
            let continues = !text[prev.clone()]
                .trim_end_matches([' ', '\t'])
                .ends_with('\n')
                && rlmkg_text::continues_sentence(prev_text, s);
            // "Dr." and "J.": the rule sources are split by.
            rlmkg_text::ends_with_abbreviation(prev_text) || continues || prev_text.is_empty()
        });
        match sentences.last_mut() {
            Some(prev) if merge => prev.end = range.end,
            _ => sentences.push(range),
        }
    }
    sentences
}

/// The sentences of `text` (see [`sentence_ranges`]).
pub(crate) fn sentences_of(text: &str) -> Vec<&str> {
    sentence_ranges(text)
        .into_iter()
        .filter_map(|r| text.get(r))
        .filter(|s| !s.trim().is_empty())
        .collect()
}

/// Linking verbs that open a coordinated clause as a past tense or one of
/// the [`AUXILIARIES`] does ("… and remains open").
const LINKING: &[&str] = &["remains", "remained"];

/// Whether the words after " and " start a clause of their own: a past-tense
/// verb or auxiliary (a second predicate of the same subject) or a subject pronoun.
fn opens_clause(rest: &str) -> bool {
    let mut words = rest
        .split(|c: char| !(c.is_alphabetic() || c == '.' || c == '\''))
        .filter(|w| !w.is_empty());
    let Some(word) = words.next() else {
        return false;
    };
    if word.chars().next().is_some_and(char::is_uppercase) {
        // A name of its own followed by its verb: "… and Dennis Whitted took over …".
        return words
            .find(|w| !w.chars().next().is_some_and(char::is_uppercase))
            .is_some_and(|w| is_past_or_aux(w.trim_end_matches('.')));
    }
    let w = word.to_lowercase();
    is_past_or_aux(&w) || SUBJECT_PRONOUNS.contains(&w.as_str())
}

/// A lower-case past-tense verb (`-ed`, or an irregular one: "… and led by
/// Dr. Reyes", "… and won the prize") or an auxiliary.
pub(crate) fn is_past_or_aux(w: &str) -> bool {
    (w.len() > 4 && w.ends_with("ed"))
        || is_irregular_past(w)
        || AUXILIARIES.contains(&w)
        || LINKING.contains(&w)
}

/// Split one sentence into clauses that carry separate facts: at `;`, `, and`,
/// `, but`, ` but `, `, while`, `, whereas`, `, yet`, before a non-restrictive
/// relative clause (`, which`, `, who`, `, where`) and at ` and ` when a second
/// predicate or subject follows. Joiners are ASCII, so matching them in the
/// ASCII-lowercased text keeps every byte offset valid in the original.
fn split_clauses(masked: &str, sent: Range<usize>) -> Vec<Range<usize>> {
    let Some(s) = masked.get(sent.clone()) else {
        return vec![sent];
    };
    let lower = s.to_ascii_lowercase();
    const JOINERS: &[&str] = &[
        "; ",
        ", and ",
        ", but ",
        " but ",
        ", while ",
        ", whereas ",
        ", yet ",
        ", which ",
        ", who ",
        ", where ",
        " and ",
    ];
    let mut cuts: Vec<(usize, usize)> = Vec::new(); // (end of left, start of right)
    for j in JOINERS {
        let mut from = 0;
        while let Some(pos) = lower.get(from..).and_then(|rest| rest.find(j)) {
            let at = from + pos;
            let right_start = match *j {
                "; " => at + 2,
                // The relative pronoun stays with its clause ("which was founded…").
                ", which " | ", who " | ", where " => at + 2,
                _ => at + j.len(),
            };
            let keep = *j != " and " || s.get(at + j.len()..).is_some_and(opens_clause);
            if keep {
                cuts.push((at, right_start));
            }
            from = at + j.len();
        }
    }
    cuts.sort_unstable();
    cuts.dedup_by(|b, a| b.0 < a.1); // drop overlapping matches (", but" vs " but")
    let mut pieces = Vec::new();
    let mut start = 0;
    for (left_end, right_start) in cuts {
        let (Some(left), Some(right)) = (s.get(start..left_end), s.get(right_start..)) else {
            continue;
        };
        if carries_fact(left) && carries_fact(right) {
            pieces.push(sent.start + start..sent.start + left_end);
            start = right_start;
        }
    }
    pieces.push(sent.start + start..sent.end);
    pieces
}

/// Enough content for a separate fact: at least three words, two of them content words or numbers.
fn carries_fact(s: &str) -> bool {
    let a = analyse(s);
    let content = a
        .tokens
        .iter()
        .filter(|t| t.is_content() || !matches!(t.kind, Kind::Word))
        .count();
    a.tokens.len() >= 3 && content >= 2
}

/// Words that talk about the answer rather than the world.
const DISCOURSE: &[&str] = &[
    "summary",
    "summarize",
    "summarized",
    "conclusion",
    "overall",
    "following",
    "follows",
    "source",
    "sources",
    "answer",
    "answers",
    "question",
    "questions",
    "note",
    "notes",
    "detail",
    "details",
    "below",
    "above",
    "evidence",
    "information",
    "context",
    "document",
    "documents",
    "based",
    "mention",
    "mentioned",
    "discuss",
    "discussed",
    "describe",
    "described",
    "explain",
    "explained",
    "let",
    "look",
    "see",
    "points",
    "point",
    "key",
    "findings",
    "short",
    "brief",
    "briefly",
    "finally",
    "first",
    "second",
    "next",
    "additionally",
    "moreover",
    "furthermore",
    "addition",
    "regarding",
    "regards",
    "respect",
    "passage",
    "passages",
    "text",
    "texts",
    "cited",
    "citation",
    "citations",
    "here",
    "there",
    "let's",
    "important",
    "notably",
    "words",
    "put",
    "simply",
    "thus",
    "together",
    "taken",
];

/// A sentence with no factual content: a question, a lead-in ending in `:`, a heading
/// made of discourse words, or a sentence whose only content words are discourse words.
fn is_connective(text: &str) -> bool {
    let t = text.trim();
    if t.ends_with('?') || t.ends_with(':') {
        return true;
    }
    let a = analyse(t);
    if !a.numbers.is_empty() || !a.dates.is_empty() {
        return false;
    }
    let facts = a
        .tokens
        .iter()
        .filter(|t| t.is_content() && !DISCOURSE.contains(&t.lower.as_str()))
        .count();
    facts == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn show(answer: &str) -> Vec<(String, Vec<String>, bool)> {
        claims(answer)
            .into_iter()
            .map(|c| {
                (
                    c.text,
                    c.citations.into_iter().map(|r| r.raw).collect(),
                    c.connective,
                )
            })
            .collect()
    }

    #[test]
    fn sentences_and_citations() {
        let got = show(
            "In summary, here is what the sources say. Acme was founded in 1998 by Jane Doe [c1.s1]. It makes rockets. [c1.s2]\nDr. Smith joined later [c2].",
        );
        assert_eq!(
            got,
            vec![
                (
                    "In summary, here is what the sources say.".into(),
                    vec![],
                    true
                ),
                (
                    "Acme was founded in 1998 by Jane Doe.".into(),
                    vec!["c1.s1".into()],
                    false
                ),
                ("It makes rockets.".into(), vec!["c1.s2".into()], false),
                ("Dr. Smith joined later.".into(), vec!["c2".into()], false),
            ]
        );
    }

    #[test]
    fn initials_and_quoted_exclamations_do_not_end_sentences() {
        let got = show(
            "Annie Zaleski of \"The A.V. Club\" praised it [c1]. The band wrote for the \"Kerrang!\" release [c2]. It ended. Then it began [c3].",
        );
        let texts: Vec<&str> = got.iter().map(|g| g.0.as_str()).collect();
        assert_eq!(
            texts,
            vec![
                "Annie Zaleski of \"The A.V. Club\" praised it.",
                "The band wrote for the \"Kerrang!\" release.",
                "It ended.",
                "Then it began."
            ]
        );
    }

    #[test]
    fn headings_are_exempt_and_lists_are_claims() {
        let got = show(
            "## Northlight Press\nIt was founded in 1987 [c1].\n\n- It has eleven\n  staff [c2].\n- It is in Edinburgh.",
        );
        assert_eq!(
            got,
            vec![
                ("Northlight Press".into(), vec![], true),
                ("It was founded in 1987.".into(), vec!["c1".into()], false),
                ("It has eleven staff.".into(), vec!["c2".into()], false),
                ("It is in Edinburgh.".into(), vec![], false),
            ]
        );
    }

    #[test]
    fn clauses_split_when_both_carry_facts() {
        let got = show(
            "Acme was founded in 1998 [c1], and its rockets reached orbit in 2005 [c2]. Alice and Bob founded Acme, Beta, and Gamma [c3].",
        );
        assert_eq!(got.len(), 3);
        assert_eq!(got[0].1, vec!["c1".to_string()]);
        assert_eq!(got[1].0, "its rockets reached orbit in 2005.");
        assert_eq!(got[1].1, vec!["c2".to_string()]);
        let got = show("Acme builds rockets; the rockets reached orbit in 2005 [c2].");
        assert_eq!(got.len(), 2);
        assert_eq!(
            got[0].1,
            vec!["c2".to_string()],
            "inherits the later citation"
        );
    }

    #[test]
    fn and_before_a_named_subject_and_its_verb_opens_a_clause() {
        let got =
            show("Late that year Harris left the band and Dennis Whitted took over on drums [c1].");
        let texts: Vec<&str> = got.iter().map(|g| g.0.as_str()).collect();
        assert_eq!(
            texts,
            [
                "Late that year Harris left the band",
                "Dennis Whitted took over on drums."
            ]
        );
        // Names joined by "and" with no verb of their own stay one claim.
        assert_eq!(
            show("Alice and Bob Stone founded Acme in 1998 [c1].").len(),
            1
        );
        assert_eq!(
            show("The prize went to Mira Okafor and Jonas Berg of Tallinn [c1].").len(),
            1
        );
    }
}
