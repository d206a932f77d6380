//! Years, days and dates read off words: one rule for each, so ingest, the
//! heuristic, eval and the checker agree on what a year and a date are.

use crate::months::month_number;

/// The year a word names: four ASCII digits from 1000 to 2100 ("1998",
/// "2021"; not "0800", "2500", "19"). Used by ingest's date mentions, eval's
/// question seeds, the heuristic's dates and numbers (a year is not a count)
/// and the checker's dates.
pub fn year(word: &str) -> Option<i32> {
    if word.len() != 4 || !word.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    word.parse::<i32>()
        .ok()
        .filter(|y| (1000..=2100).contains(y))
}

/// Whether a word is a [`year`].
pub fn is_year(word: &str) -> bool {
    year(word).is_some()
}

/// The day of the month a word names: one or two ASCII digits from 1 to 31,
/// with an ordinal ending or none ("3", "03", "21st", "3rd"). Used by
/// [`date_at`] and the checker's dates.
pub fn day_of_month(word: &str) -> Option<u8> {
    let digits = word.trim_end_matches(|c: char| c.is_ascii_alphabetic());
    let suffix = &word[digits.len()..];
    if digits.is_empty()
        || digits.len() > 2
        || !digits.bytes().all(|b| b.is_ascii_digit())
        || !matches!(
            suffix.to_ascii_lowercase().as_str(),
            "" | "st" | "nd" | "rd" | "th"
        )
    {
        return None;
    }
    digits.parse::<u8>().ok().filter(|d| (1..=31).contains(d))
}

/// The month a word names as a month: capitalized ("may" and "march" are
/// words too), a full name or an abbreviation ("June", "Sept").
pub fn month_name(word: &str) -> Option<u8> {
    // Every month name is ASCII and at most nine letters: lower-cased on the stack.
    let mut buf = [0u8; 9];
    let lower = buf.get_mut(..word.len())?;
    if !word.starts_with(|c: char| c.is_ascii_uppercase()) || !word.is_ascii() {
        return None;
    }
    lower.copy_from_slice(word.as_bytes());
    lower.make_ascii_lowercase();
    month_number(std::str::from_utf8(lower).ok()?)
}

/// A date read off words by [`date_at`]: how many words it takes and the
/// parts it states.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DateWords {
    /// How many words the date takes, from the first one given.
    pub len: usize,
    /// The year.
    pub year: i32,
    /// The month (1–12), if stated.
    pub month: Option<u8>,
    /// The day of the month, if stated.
    pub day: Option<u8>,
}

/// The date the words open with, if any: "3 June 2021", "June 3 2021"
/// (commas already dropped), "June 2021" or "2021". A date here always has a
/// year: the [`date_parts_at`] that state one. Used by ingest's date mentions
/// and the heuristic's dates (`short::dates`).
pub fn date_at(words: &[&str]) -> Option<DateWords> {
    let p = date_parts_at(words)?;
    Some(DateWords {
        len: p.len,
        year: p.year?,
        month: p.month,
        day: p.day,
    })
}

/// A date read off words by [`date_parts_at`]: how many words it takes and
/// the parts it states (a year or a month at least).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DateParts {
    /// How many words the date takes, from the first one given.
    pub len: usize,
    /// The year, if stated.
    pub year: Option<i32>,
    /// The month (1–12), if stated.
    pub month: Option<u8>,
    /// The day of the month, if stated.
    pub day: Option<u8>,
}

/// The date the words open with, its year stated or not: "3 June 2021",
/// "3 June", "June 3 2021", "June 3" (commas already dropped), "June 2021",
/// "June" or "2021"; a day needs its month. The one reading of written dates:
/// [`date_at`] keeps those with a year, and the checker reads these (with ISO
/// dates and year ranges of its own) and decides when a month alone is a date.
pub fn date_parts_at(words: &[&str]) -> Option<DateParts> {
    let at = |k: usize| words.get(k).copied();
    let y = |k: usize| at(k).and_then(year);
    let d = |k: usize| at(k).and_then(day_of_month);
    let m = |k: usize| at(k).and_then(month_name);
    let date = |len: usize, year: Option<i32>, month, day| {
        Some(DateParts {
            len: len + usize::from(year.is_some()),
            year,
            month: Some(month),
            day,
        })
    };
    if let (Some(day), Some(month)) = (d(0), m(1)) {
        return date(2, y(2), month, Some(day));
    }
    if let Some(month) = m(0) {
        if let Some(day) = d(1) {
            return date(2, y(2), month, Some(day));
        }
        return date(1, y(1), month, None);
    }
    y(0).map(|year| DateParts {
        len: 1,
        year: Some(year),
        month: None,
        day: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn years_days_and_months() {
        for (w, want) in [
            ("1998", Some(1998)),
            ("2100", Some(2100)),
            ("1000", Some(1000)),
            ("0999", None),
            ("2500", None),
            ("199", None),
            ("19988", None),
            ("19a8", None),
            ("", None),
        ] {
            assert_eq!(year(w), want, "{w}");
        }
        for (w, want) in [
            ("3", Some(3)),
            ("03", Some(3)),
            ("21st", Some(21)),
            ("3rd", Some(3)),
            ("31", Some(31)),
            ("32", None),
            ("0", None),
            ("123", None),
            ("3x", None),
            ("", None),
        ] {
            assert_eq!(day_of_month(w), want, "{w}");
        }
        assert_eq!(month_name("June"), Some(6));
        assert_eq!(month_name("Sept"), Some(9));
        assert_eq!(month_name("may"), None);
        assert_eq!(month_name("Mayday"), None);
    }

    #[test]
    fn dates_with_their_parts() {
        let read = |s: &str| date_at(&s.split_whitespace().collect::<Vec<_>>());
        let date = |len, year, month, day| {
            Some(DateWords {
                len,
                year,
                month,
                day,
            })
        };
        assert_eq!(read("3 June 2021 x"), date(3, 2021, Some(6), Some(3)));
        assert_eq!(read("June 3 2021"), date(3, 2021, Some(6), Some(3)));
        assert_eq!(read("June 2021"), date(2, 2021, Some(6), None));
        assert_eq!(read("2021 was"), date(1, 2021, None, None));
        assert_eq!(read("June 3"), None);
        assert_eq!(read("may 2021"), None);
        assert_eq!(read("3 June"), None);
        assert_eq!(read(""), None);
    }

    #[test]
    fn date_parts_with_or_without_a_year() {
        let read = |s: &str| date_parts_at(&s.split_whitespace().collect::<Vec<_>>());
        let parts = |len, year, month, day| {
            Some(DateParts {
                len,
                year,
                month,
                day,
            })
        };
        for (text, want) in [
            ("3 June 2021 x", parts(3, Some(2021), Some(6), Some(3))),
            ("3 June x", parts(2, None, Some(6), Some(3))),
            ("June 3 2021", parts(3, Some(2021), Some(6), Some(3))),
            ("June 3", parts(2, None, Some(6), Some(3))),
            ("June 2021", parts(2, Some(2021), Some(6), None)),
            ("June was", parts(1, None, Some(6), None)),
            ("2021 June", parts(1, Some(2021), None, None)),
            ("3 2021", None),
            ("may 2021", None),
            ("", None),
        ] {
            assert_eq!(read(text), want, "{text}");
        }
    }
}
