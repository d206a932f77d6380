//! The small words a name is read with: the lower-case words allowed inside a
//! capitalized name, the pronouns that stand for a name given before, and
//! how a name is written ([`capitalized`]).

/// Lower-case words allowed inside a capitalized name, between two capitalized
/// words ("Bank of England", "Kestrel Institute for Coastal Studies",
/// "Alexander the Great", "Ludwig van Beethoven", "José Ortega y Gasset",
/// "Mohammed bin Salman"). Used by ingest's entity rules (a run of capitalized
/// words; a name's initials skip them), eval's question seeds, the heuristic's
/// last-resort names (`capitalized_runs`) and the checker's name readers
/// (`refer.rs`, `check.rs`). The union of the lists those four kept apart.
pub const NAME_JOINERS: &[&str] = &[
    "of", "for", "and", "the", "de", "da", "di", "du", "des", "del", "der", "den", "la", "le",
    "van", "von", "y", "bin", "ibn", "mac",
];

/// Further words that join a title or a firm's name ("Newcastle upon Tyne",
/// "Marks & Spencer", "Stoke on Trent"), read as joiners only where a wrong
/// join costs little: eval's question seeds (a wrong join adds one candidate
/// name beside the parts). Ingest does not use them: "Paris on Monday" would
/// become one entity.
pub const TITLE_JOINERS: &[&str] = &["on", "upon", "&"];

/// Whether `word` (lower case) is one of the [`NAME_JOINERS`].
pub fn is_name_joiner(word: &str) -> bool {
    NAME_JOINERS.contains(&word)
}

/// Third-person pronouns, lower case, that stand for something named before:
/// a sentence opening with one is about it ("It was organised by…"). Used by
/// the checker's referent reader (`refer.rs`) and its role checks
/// (`check/roles.rs`).
pub const PRONOUNS: &[&str] = &[
    "it", "he", "she", "they", "its", "his", "her", "their", "him", "them",
];

/// Pronouns in the subject case, first person included, lower case: the
/// words that give a clause a subject of its own ("… and she joined …").
/// Unlike [`PRONOUNS`] they say nothing of what was named before ("we", "i"
/// are here; the possessive and object forms are not). Used by the checker's
/// clause splitter (`segment.rs`).
pub const SUBJECT_PRONOUNS: &[&str] = &["he", "she", "it", "they", "we", "i"];

/// Demonstratives that, opening a sentence, stand for what the sentence
/// before named as a pronoun does ("This was later…", "These include…").
/// Used with [`PRONOUNS`] by the heuristic (a sentence that refers back) and
/// the checker's referent reader (`refer.rs`, where "this"/"these" before a
/// lower-case word that is not a content noun read as a pronoun).
pub const NEAR_DEMONSTRATIVES: &[&str] = &["this", "these"];

/// Whether a sentence opening with `word` (lower case) is about what was
/// named before: one of [`PRONOUNS`] or [`NEAR_DEMONSTRATIVES`].
pub fn refers_back(word: &str) -> bool {
    PRONOUNS.contains(&word) || NEAR_DEMONSTRATIVES.contains(&word)
}

/// `word` with its first letter in upper case ("january" → "January"), the
/// way a name or a month is written.
pub fn capitalized(word: &str) -> String {
    let mut chars = word.chars();
    chars
        .next()
        .map(|first| first.to_uppercase().chain(chars).collect())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_are_lower_case_and_apart() {
        for w in NAME_JOINERS
            .iter()
            .chain(TITLE_JOINERS)
            .chain(PRONOUNS)
            .chain(SUBJECT_PRONOUNS)
            .chain(NEAR_DEMONSTRATIVES)
        {
            assert_eq!(*w, w.to_lowercase(), "{w}");
        }
        assert!(is_name_joiner("van") && is_name_joiner("of") && !is_name_joiner("on"));
        assert!(TITLE_JOINERS.iter().all(|w| !is_name_joiner(w)));
        assert!(refers_back("she") && refers_back("these") && !refers_back("those"));
    }

    #[test]
    fn capitalized_words() {
        assert_eq!(capitalized("january"), "January");
        assert_eq!(capitalized("ålesund"), "Ålesund");
        assert_eq!(capitalized(""), "");
    }
}
