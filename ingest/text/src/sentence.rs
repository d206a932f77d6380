//! The sentence-boundary rule: where a Unicode (UAX #29) sentence boundary
//! after a dot is not the end of a sentence, because the dot closes an
//! abbreviation or an initial. Ingest (sources) and citation (answers) both
//! split by it, so a claim and the sentence it cites are cut alike.

/// Version of the sentence-boundary rule ([`ABBREVIATIONS`] and
/// [`is_initials`]). A store records the version its chunks were cut with, and
/// chunks cut under another are cut again; bump it with every change of the
/// rule. 1 was the rule before this crate (two lists, two initials rules); 2
/// is one list, the union of both, and one initials rule.
pub const SENTENCE_RULES_VERSION: u32 = 2;

/// Abbreviations whose dot does not end a sentence: lowercased, without the
/// final dot (`e.g` for "e.g.", `u.s` for "U.S."), sorted.
pub const ABBREVIATIONS: &[&str] = &[
    "a.m", "al", "approx", "apr", "aug", "ca", "capt", "cf", "co", "col", "corp", "d.c", "dec",
    "dr", "e.g", "etc", "feb", "fig", "gen", "gov", "hon", "i.e", "inc", "jan", "jr", "jul", "jun",
    "lt", "ltd", "mar", "mr", "mrs", "ms", "mt", "no", "nov", "oct", "p", "p.m", "pp", "prof",
    "rep", "rev", "sen", "sep", "sept", "sgt", "sr", "st", "u.k", "u.n", "u.s", "vol", "vs",
];

/// Characters that open a word without being part of it: a word after them is
/// read on its own (`("Dr.`, `“J.`).
const OPENERS: &[char] = &['(', '[', '"', '\u{201C}', '\u{00AB}'];

/// Whether `word`, without its final dot, is initials: one or more capital
/// letters, each followed by a dot but the last (`J`, `A.V`, `J.R.R`).
pub fn is_initials(word: &str) -> bool {
    !word.is_empty()
        && word.split('.').all(|part| {
            let mut chars = part.chars();
            matches!((chars.next(), chars.next()), (Some(c), None) if c.is_uppercase())
        })
}

/// Whether the text `piece` before a sentence boundary ends with an
/// abbreviation (from [`ABBREVIATIONS`], any case) or initials and their dot,
/// so the boundary does not end a sentence: "Dr.", "(e.g.", "J.", "A.V.",
/// "U.S." do; "end.", "Ph.D.", "(Ibid.)" do not. Trailing whitespace is ignored.
pub fn ends_with_abbreviation(piece: &str) -> bool {
    let Some(body) = piece.trim_end().strip_suffix('.') else {
        return false;
    };
    let word = body
        .rsplit(|c: char| c.is_whitespace() || OPENERS.contains(&c))
        .next()
        .unwrap_or("")
        .trim_start_matches(['\'', '\u{2018}']);
    if word.is_empty() {
        return false;
    }
    is_initials(word) || ABBREVIATIONS.contains(&word.to_lowercase().as_str())
}

/// Whether a sentence piece `next` that follows `prev` across a boundary
/// carries `prev`'s sentence on: it opens with a lower-case letter or a digit
/// ("… the Kerrang! release", "… cost $3. 5 of them"), and `prev` does not end
/// with `?` or `!`. Part of the sentence-boundary rule (with
/// [`ends_with_abbreviation`]).
pub fn continues_sentence(prev: &str, next: &str) -> bool {
    next.trim_start()
        .chars()
        .next()
        .is_some_and(|c| c.is_lowercase() || c.is_ascii_digit())
        && !prev.trim_end().ends_with(['?', '!'])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lower_case_or_digits_carry_the_sentence_on() {
        assert!(continues_sentence("It sold 3.", "5 million copies."));
        assert!(continues_sentence("for the \"Kerrang!\"", " release"));
        assert!(!continues_sentence("Really?", "yes, it did."));
        assert!(!continues_sentence("It ended.", "Then it began."));
        assert!(!continues_sentence("It ended.", ""));
    }

    #[test]
    fn abbreviations_and_initials_hold_the_sentence() {
        for piece in [
            "He met Dr. ",
            "many, e.g.",
            "(e.g.",
            "\"The A.V.",
            "J. ",
            "J.R.R.",
            "in the U.S.",
            "in the u.s.",
            "No.",
            "at 5 p.m.",
            "“Mr.",
            "'St.",
            "see pp.",
            "apples, pears, etc.",
        ] {
            assert!(ends_with_abbreviation(piece), "{piece:?}");
        }
    }

    #[test]
    fn ordinary_ends_end_the_sentence() {
        for piece in [
            "It ended.",
            "It ended. ",
            "a Ph.D.",
            "(Ibid.)",
            "vitamin b.",
            "Why?",
            "Stop!",
            "",
            ".",
            " . ",
            "1990.",
            "Dr",
        ] {
            assert!(!ends_with_abbreviation(piece), "{piece:?}");
        }
    }

    #[test]
    fn initials_are_single_capitals() {
        assert!(is_initials("J"));
        assert!(is_initials("A.V"));
        assert!(is_initials("É"));
        assert!(!is_initials("j"));
        assert!(!is_initials("AV"));
        assert!(!is_initials("A..V"));
        assert!(!is_initials(""));
    }

    #[test]
    fn the_list_is_sorted_lowercase_and_without_final_dots() {
        assert!(ABBREVIATIONS.windows(2).all(|w| w[0] < w[1]));
        assert!(
            ABBREVIATIONS
                .iter()
                .all(|a| a.to_lowercase() == *a && !a.ends_with('.'))
        );
    }

    proptest::proptest! {
        #[test]
        fn never_panics(piece in "\\PC{0,40}") {
            let _ = ends_with_abbreviation(&piece);
        }
    }
}
