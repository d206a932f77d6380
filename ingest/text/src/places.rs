//! The words that make a name a place, and the kinds of place they name.
//!
//! A name ending in (or holding) one of [`PLACE_WORDS`] is a place ("Skarvik
//! Fjord", "Mexico City", "Storgata Street"): ingest types names by them. The
//! same words tell whether a place answers a question that asks for one kind
//! of place: a fjord is a place, but not the city "In which city …" asks for
//! ([`place_kind_clash`]).

/// Words that make a name a place (lower case).
pub const PLACE_WORDS: &[&str] = &[
    "city",
    "river",
    "mountain",
    "mountains",
    "county",
    "state",
    "island",
    "islands",
    "lake",
    "street",
    "road",
    "valley",
    "bay",
    "sea",
    "ocean",
    "province",
    "region",
    "district",
    "village",
    "town",
    "kingdom",
    "republic",
    "park",
    "bridge",
    "harbor",
    "harbour",
    "coast",
    "forest",
    "desert",
    "peninsula",
    "fjord",
    "square",
    "avenue",
    "station",
    "airport",
    "port",
    "hill",
    "hills",
    "castle",
    "abbey",
    "cathedral",
    "palace",
    "tower",
    "creek",
    "dam",
    "channel",
    "canal",
    "reservoir",
    "falls",
    "stadium",
    "arena",
    "glacier",
    "strait",
    "gulf",
    "beach",
    "pass",
    "ridge",
    "canyon",
    "marsh",
    "estuary",
    "lagoon",
    "hotel",
];

/// The nouns a question asks for a country by ("In which *country* …").
const COUNTRY_NOUNS: &[&str] = &["country", "nation"];

/// The nouns a question asks for a settlement by ("In which *town* …").
const SETTLEMENT_NOUNS: &[&str] = &[
    "city",
    "town",
    "village",
    "capital",
    "municipality",
    "borough",
];

/// Whether a question's asked noun asks for a settlement (a town, a city):
/// the most specific place a text gives, not the country it lies in.
pub fn asks_for_settlement(noun: &str) -> bool {
    SETTLEMENT_NOUNS.contains(&noun.to_lowercase().as_str())
}

/// Whether a question's asked noun asks for a country (a place no other
/// place of the text contains).
pub fn asks_for_country(noun: &str) -> bool {
    COUNTRY_NOUNS.contains(&noun.to_lowercase().as_str())
}

/// Kinds of place a question may ask for, each with the [`PLACE_WORDS`] a
/// name of that kind may end in: a settlement ("city") may be "Mexico City"
/// or "Cape Town", never "Skarvik Fjord".
const ASKED_KINDS: &[(&[&str], &[&str])] = &[
    (SETTLEMENT_NOUNS, &["city", "town", "village"]),
    (
        COUNTRY_NOUNS,
        &["kingdom", "republic", "state", "island", "islands"],
    ),
];

/// When a question asks for a kind of place by `asked` (a noun: "city",
/// "country") and `name` ends in a place word of another kind ("Skarvik
/// Fjord"), that word, in lower case; `None` when the name is of the asked
/// kind, says no kind, or the question asks for no kind this knows.
///
/// ```
/// use rlmkg_text::place_kind_clash;
///
/// assert_eq!(place_kind_clash("city", "Skarvik Fjord"), Some("fjord".to_owned()));
/// assert_eq!(place_kind_clash("city", "Mexico City"), None);
/// assert_eq!(place_kind_clash("city", "Tromsø"), None);
/// assert_eq!(place_kind_clash("country", "Lake Geneva"), Some("lake".to_owned()));
/// assert_eq!(place_kind_clash("place", "Skarvik Fjord"), None);
/// ```
pub fn place_kind_clash(asked: &str, name: &str) -> Option<String> {
    let asked = asked.to_lowercase();
    let (_, fitting) = ASKED_KINDS
        .iter()
        .find(|(nouns, _)| nouns.contains(&asked.as_str()))?;
    let words: Vec<String> = name
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect();
    // The kind word of a name is its last ("Skarvik Fjord") or, in "Lake
    // Geneva" and "City of London", its first.
    let head = [words.last(), words.first()]
        .into_iter()
        .flatten()
        .find(|w| PLACE_WORDS.contains(&w.as_str()))?;
    (!fitting.contains(&head.as_str())).then(|| head.clone())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_lists_are_lower_case() {
        for w in PLACE_WORDS.iter().chain(
            ASKED_KINDS
                .iter()
                .flat_map(|(a, f)| a.iter().chain(f.iter())),
        ) {
            assert_eq!(*w, w.to_lowercase());
        }
        for (_, fitting) in ASKED_KINDS {
            assert!(fitting.iter().all(|w| PLACE_WORDS.contains(w)));
        }
    }

    #[test]
    fn a_settlement_is_not_a_feature_of_the_land() {
        for (name, clash) in [
            ("Bergen", None),
            ("Cape Town", None),
            ("City of London", None),
            ("Oslo Airport", Some("airport")),
            ("Storgata Street", Some("street")),
            ("Vestland County", Some("county")),
            ("", None),
        ] {
            assert_eq!(place_kind_clash("town", name).as_deref(), clash, "{name}");
        }
    }
}
