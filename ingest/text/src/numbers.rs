//! Number words and their values, one table for every reader.

use NumberKind::{Cardinal, Ordinal, Scale, Times};

/// What kind of number a word names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NumberKind {
    /// A count: `twelve`, `ninety`, `dozen`.
    Cardinal,
    /// A rank: `third`, `twentieth`.
    Ordinal,
    /// A multiplier of the number before it: `hundred`, `million`.
    Scale,
    /// A count of times: `once`, `twice`, `thrice`.
    Times,
}

/// A number word: the word, its value and its kind.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct NumberWord {
    /// The lowercased word.
    pub word: &'static str,
    /// What it counts (for a scale, what it multiplies by).
    pub value: f64,
    /// Cardinal, ordinal, scale or count of times.
    pub kind: NumberKind,
}

const fn n(word: &'static str, value: f64, kind: NumberKind) -> NumberWord {
    NumberWord { word, value, kind }
}

/// Every number word, in order of kind and value: cardinals from zero to
/// ninety and `dozen`, ordinals from first to twentieth, scales from hundred to
/// trillion (with the plurals that follow a number: "two millions"), and the
/// counts of times. Readers that must not count a word ("one" is as often a
/// pronoun) filter by value, by name, where they read.
pub const NUMBER_WORDS: &[NumberWord] = &[
    n("zero", 0.0, Cardinal),
    n("one", 1.0, Cardinal),
    n("two", 2.0, Cardinal),
    n("three", 3.0, Cardinal),
    n("four", 4.0, Cardinal),
    n("five", 5.0, Cardinal),
    n("six", 6.0, Cardinal),
    n("seven", 7.0, Cardinal),
    n("eight", 8.0, Cardinal),
    n("nine", 9.0, Cardinal),
    n("ten", 10.0, Cardinal),
    n("eleven", 11.0, Cardinal),
    n("twelve", 12.0, Cardinal),
    n("thirteen", 13.0, Cardinal),
    n("fourteen", 14.0, Cardinal),
    n("fifteen", 15.0, Cardinal),
    n("sixteen", 16.0, Cardinal),
    n("seventeen", 17.0, Cardinal),
    n("eighteen", 18.0, Cardinal),
    n("nineteen", 19.0, Cardinal),
    n("twenty", 20.0, Cardinal),
    n("thirty", 30.0, Cardinal),
    n("forty", 40.0, Cardinal),
    n("fifty", 50.0, Cardinal),
    n("sixty", 60.0, Cardinal),
    n("seventy", 70.0, Cardinal),
    n("eighty", 80.0, Cardinal),
    n("ninety", 90.0, Cardinal),
    n("dozen", 12.0, Cardinal),
    n("first", 1.0, Ordinal),
    n("second", 2.0, Ordinal),
    n("third", 3.0, Ordinal),
    n("fourth", 4.0, Ordinal),
    n("fifth", 5.0, Ordinal),
    n("sixth", 6.0, Ordinal),
    n("seventh", 7.0, Ordinal),
    n("eighth", 8.0, Ordinal),
    n("ninth", 9.0, Ordinal),
    n("tenth", 10.0, Ordinal),
    n("eleventh", 11.0, Ordinal),
    n("twelfth", 12.0, Ordinal),
    n("thirteenth", 13.0, Ordinal),
    n("fourteenth", 14.0, Ordinal),
    n("fifteenth", 15.0, Ordinal),
    n("sixteenth", 16.0, Ordinal),
    n("seventeenth", 17.0, Ordinal),
    n("eighteenth", 18.0, Ordinal),
    n("nineteenth", 19.0, Ordinal),
    n("twentieth", 20.0, Ordinal),
    n("hundred", 1e2, Scale),
    n("thousand", 1e3, Scale),
    n("million", 1e6, Scale),
    n("millions", 1e6, Scale),
    n("billion", 1e9, Scale),
    n("billions", 1e9, Scale),
    n("trillion", 1e12, Scale),
    n("once", 1.0, Times),
    n("twice", 2.0, Times),
    n("thrice", 3.0, Times),
];

/// The number word `word` (lowercased) names, if any.
pub fn number_word(word: &str) -> Option<&'static NumberWord> {
    NUMBER_WORDS.iter().find(|n| n.word == word)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_read_as_their_values() {
        let value = |w: &str| number_word(w).map(|n| (n.value, n.kind));
        assert_eq!(value("twelve"), Some((12.0, Cardinal)));
        assert_eq!(value("ninety"), Some((90.0, Cardinal)));
        assert_eq!(value("third"), Some((3.0, Ordinal)));
        assert_eq!(value("million"), Some((1e6, Scale)));
        assert_eq!(value("twice"), Some((2.0, Times)));
        assert_eq!(value("Twelve"), None, "lowercased words only");
        assert_eq!(value("twelves"), None);
    }

    #[test]
    fn each_word_once() {
        let mut words: Vec<&str> = NUMBER_WORDS.iter().map(|n| n.word).collect();
        words.sort_unstable();
        let all = words.len();
        words.dedup();
        assert_eq!(words.len(), all);
    }
}
