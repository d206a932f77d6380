//! The small words a name is read with: the lower-case words allowed inside a
//! capitalized name, and the pronouns that stand for a name given before.

/// Lower-case words allowed inside a capitalized name, between two capitalized
/// words ("Bank of England", "Kestrel Institute for Coastal Studies",
/// "Alexander the Great", "Ludwig van Beethoven", "José Ortega y Gasset",
/// "Mohammed bin Salman"). Used by ingest's entity rules (a run of capitalized
/// words; a name's initials skip them), eval's question seeds, the heuristic's
/// last-resort names (`capitalized_runs`) and the checker's name readers
/// (`refer.rs`, `check.rs`). The union of the lists those four kept apart.
pub const NAME_JOINERS: &[&str] = &[
    "of", "for", "and", "the", "de", "da", "di", "du", "des", "del", "der", "den", "la", "le",
    "van", "von", "y", "bin",
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_are_lower_case_and_apart() {
        for w in NAME_JOINERS.iter().chain(TITLE_JOINERS).chain(PRONOUNS) {
            assert_eq!(*w, w.to_lowercase(), "{w}");
        }
        assert!(is_name_joiner("van") && is_name_joiner("of") && !is_name_joiner("on"));
        assert!(TITLE_JOINERS.iter().all(|w| !is_name_joiner(w)));
    }
}
