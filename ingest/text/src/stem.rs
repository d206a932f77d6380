//! The stemmer: Snowball English, with British spellings read as American.

use std::sync::OnceLock;

use rust_stemmers::{Algorithm, Stemmer};

use crate::stopwords::is_stopword;

fn stemmer() -> &'static Stemmer {
    static STEMMER: OnceLock<Stemmer> = OnceLock::new();
    STEMMER.get_or_init(|| Stemmer::create(Algorithm::English))
}

/// The stem of one lowercased word (Snowball English, after [`american_spelling`]),
/// so that `organised` and `organized`, `colour` and `color` stem alike.
pub fn stem(word: &str) -> String {
    let american = american_spelling(word);
    stemmer()
        .stem(american.as_deref().unwrap_or(word))
        .into_owned()
}

/// British spellings in the American form, so both stem alike: `-ise`/`-isation`
/// as `-ize`/`-ization`, `-yse` as `-yze`, `-our` as `-or`, `-tre` as `-ter`,
/// `-ogue` as `-og`. Applied to every word that is stemmed, so a word that merely
/// ends that way ("promise") is changed wherever it is read.
fn american_spelling(word: &str) -> Option<String> {
    const ENDINGS: &[(&str, &str)] = &[
        ("isation", "ization"),
        ("isations", "izations"),
        ("ise", "ize"),
        ("ised", "ized"),
        ("ises", "izes"),
        ("ising", "izing"),
        ("yse", "yze"),
        ("ysed", "yzed"),
        ("ysing", "yzing"),
        ("our", "or"),
        ("ours", "ors"),
        ("oured", "ored"),
        ("ouring", "oring"),
        ("ourite", "orite"),
        ("tre", "ter"),
        ("tres", "ters"),
        ("ogue", "og"),
        ("ogues", "ogs"),
    ];
    if word.chars().count() < 5 || is_stopword(word) {
        return None;
    }
    ENDINGS.iter().find_map(|(gb, us)| {
        word.strip_suffix(gb)
            .filter(|stem| stem.chars().count() >= 2)
            .map(|stem| format!("{stem}{us}"))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn british_spellings_stem_as_american() {
        for (gb, us) in [
            ("organised", "organized"),
            ("colour", "color"),
            ("centre", "center"),
            ("analyse", "analyze"),
            ("catalogue", "catalog"),
            ("metres", "meters"),
        ] {
            assert_eq!(stem(gb), stem(us), "{gb}");
        }
    }

    #[test]
    fn short_words_and_stop_words_keep_their_spelling() {
        // "your" ends in -our but is a stop word; "tour" is too short to change.
        assert_eq!(stem("your"), "your");
        assert_eq!(stem("tour"), "tour");
    }

    proptest::proptest! {
        #[test]
        fn never_panics(word in "\\PC{0,24}") {
            let _ = stem(&word.to_lowercase());
        }
    }
}
