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

/// The key under which two lowercased words count as the same word when a
/// question's words are matched against a sentence's (the model-free
/// heuristic): the [`stem`], with two changes for what Snowball does to
/// derived nouns.
///
/// - An agent noun meets its verb: a stem ending in `-er` with at least five
///   letters before it keys as the stem of those letters, so `founder`,
///   `founders` and `founded` all key as `found` and `publisher` as
///   `publish` (`former`, `leader` are too short and keep their stem).
/// - A noun in `-ity` stays apart from its base: Snowball takes `authority`
///   to `author`, `university` to `univers` (as `universe`) and `majority` to
///   `major`; here such a noun keys as its stem followed by `iti`, which it
///   shares with its plural (`authorities`) and not with its base.
///
/// Everything else is as [`stem`] has it, so the heuristic reads words by the
/// same rules as the index and the citation checker.
pub fn match_key(word: &str) -> String {
    let stem = stem(word);
    if stem.ends_with("iti") {
        return stem;
    }
    let american = american_spelling(word);
    let spelled = american.as_deref().unwrap_or(word);
    if spelled.ends_with("ity") || spelled.ends_with("ities") {
        return format!("{stem}iti");
    }
    match stem.strip_suffix("er") {
        Some(base) if base.chars().count() >= 5 => self::stem(base),
        _ => stem,
    }
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

    #[test]
    fn agent_nouns_meet_their_verbs() {
        for (noun, verb) in [
            ("founder", "founded"),
            ("founders", "founding"),
            ("publisher", "published"),
            ("designer", "designs"),
            ("manager", "managed"),
        ] {
            assert_eq!(match_key(noun), match_key(verb), "{noun}");
        }
        // Too short to be read as verb + "-er".
        assert_ne!(match_key("former"), match_key("formed"));
    }

    #[test]
    fn nouns_in_ity_stay_apart_from_their_base() {
        for (noun, base) in [
            ("authority", "author"),
            ("university", "universe"),
            ("majority", "major"),
            ("personality", "person"),
        ] {
            assert_eq!(stem(noun), stem(base), "Snowball conflates {noun}");
            assert_ne!(match_key(noun), match_key(base), "{noun}");
        }
        assert_eq!(match_key("authorities"), match_key("authority"));
        assert_eq!(match_key("cities"), match_key("city"));
    }

    #[test]
    fn other_words_key_as_their_stem() {
        for w in [
            "organised",
            "organization",
            "studies",
            "born",
            "institute",
            "joined",
        ] {
            assert_eq!(match_key(w), stem(w), "{w}");
        }
    }

    proptest::proptest! {
        #[test]
        fn never_panics(word in "\\PC{0,24}") {
            let word = word.to_lowercase();
            let _ = stem(&word);
            let _ = match_key(&word);
        }
    }
}
