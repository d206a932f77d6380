//! Month names: the full names (a capitalized month is a date, not a name)
//! and every written form with its number.

/// English month names, lower case, in order (written as in a date with
/// [`capitalized`](crate::capitalized), as eval's incident reports and the
/// bench's generated corpora do).
pub const MONTHS: &[&str] = &[
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
];

/// Abbreviations read as months, with their numbers.
const ABBREVIATED: &[(&str, u8)] = &[
    ("jan", 1),
    ("feb", 2),
    ("mar", 3),
    ("apr", 4),
    ("jun", 6),
    ("jul", 7),
    ("aug", 8),
    ("sep", 9),
    ("sept", 9),
    ("oct", 10),
    ("nov", 11),
    ("dec", 12),
];

/// The number (1–12) of a lower-case month name or abbreviation.
pub fn month_number(lower: &str) -> Option<u8> {
    let full = MONTHS.iter().position(|m| *m == lower);
    full.and_then(|i| u8::try_from(i + 1).ok()).or_else(|| {
        ABBREVIATED
            .iter()
            .find(|(a, _)| *a == lower)
            .map(|(_, n)| *n)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_abbreviations_have_their_numbers() {
        for (w, n) in [
            ("january", 1),
            ("may", 5),
            ("sept", 9),
            ("sep", 9),
            ("december", 12),
            ("dec", 12),
        ] {
            assert_eq!(month_number(w), Some(n), "{w}");
        }
        for w in ["", "janu", "mayday", "January", "ma"] {
            assert_eq!(month_number(w), None, "{w}");
        }
        assert_eq!(MONTHS.len(), 12);
    }
}
