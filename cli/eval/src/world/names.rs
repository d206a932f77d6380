//! The word lists the world's names and phrases are composed from, and the
//! composer that keeps every name unique. The lists are fictional on
//! purpose: names are put together from syllables, so no article is about a
//! real person or place.

use std::collections::BTreeSet;

use crate::rng::Rng;

/// Given names of men.
pub(super) const MEN: &[&str] = &[
    "Olaf", "Per", "Tor", "Nils", "Eirik", "Anders", "Halvard", "Sigurd", "Bjarne", "Lars",
    "Henrik", "Emil", "Arvid", "Leif", "Rune", "Oskar", "Torvald", "Edvin", "Magnus", "Gunnar",
    "Aksel", "Ivar", "Hakon", "Jorund", "Ansgar", "Fredrik", "Mathias", "Sverre",
];

/// Given names of women.
pub(super) const WOMEN: &[&str] = &[
    "Ane", "Kari", "Sigrid", "Ingeborg", "Marit", "Solveig", "Astrid", "Hedda", "Liv", "Tove",
    "Ragna", "Elin", "Brita", "Gudrun", "Maren", "Signe", "Vilde", "Thora", "Ylva", "Ronja",
    "Dagny", "Hilde", "Oline", "Borghild", "Jorunn", "Mara", "Edith", "Clara",
];

/// First halves of surnames.
const SURNAME_HEADS: &[&str] = &[
    "Hau", "Brin", "Kel", "Mor", "Lun", "Tor", "Vas", "Eld", "Sund", "Var", "Ost", "Rav", "Hal",
    "Dre", "Fen", "Gar", "Skog", "Lind", "Moss", "Ask", "Berg", "Strand", "Holm", "Dahl", "Brek",
];

/// Second halves of surnames.
const SURNAME_TAILS: &[&str] = &[
    "gen", "de", "vik", "stad", "holm", "berg", "rud", "sen", "ley", "wick", "mark", "dal", "ness",
    "land", "heim", "lie",
];

/// First halves of town names.
const TOWN_HEADS: &[&str] = &[
    "Kettle", "Brind", "Ash", "Mar", "Hol", "Wend", "Thorn", "Rook", "Sal", "Gar", "Elm", "Fal",
    "Ox", "Crow", "Marsh", "Stone", "Ferry", "Haw", "Lark", "Wil", "Tarn", "Quarry", "Bram",
];

/// Second halves of town names.
const TOWN_TAILS: &[&str] = &[
    "by", "vik", "stead", "ham", "ford", "wick", "mouth", "dal", "sund", "thorpe", "ton", "bridge",
    "holm",
];

/// Letters put into a town's name to make its near-twin (Kettleby, Kettlesby).
const TWIN_LETTERS: &[char] = &['s', 'e', 'n', 'r'];

/// First halves of country names.
const COUNTRY_HEADS: &[&str] = &["Nor", "Ves", "Cal", "Ard", "Ost", "Bel", "Tarn", "Sel"];

/// Second halves of country names.
const COUNTRY_TAILS: &[&str] = &["land", "mark", "ia", "avia", "mere"];

/// Rivers.
pub(super) const RIVERS: &[&str] = &[
    "Brenna", "Sulva", "Otra", "Kvina", "Mella", "Tesse", "Aune", "Lagna", "Rilde", "Vesle",
];

/// Words that name publishing houses ("Northlight Press").
#[rustfmt::skip]
const PRESS_WORDS: &[&str] = &[
    "Northlight", "Greywater", "Harrow", "Lantern", "Mistral", "Fernhill", "Stonegate", "Tidewater",
    "Larkspur", "Quillon", "Bramble", "Saltmarsh", "Foxglove", "Wayfarer",
];

/// Fields of institutes and laboratories.
#[rustfmt::skip]
pub(super) const FIELDS: &[&str] = &[
    "Marine Biology", "Geophysics", "Coastal Studies", "Applied Optics", "Soil Science",
    "Polar Research", "Glaciology", "Plant Genetics",
];

/// Fields of learned societies.
#[rustfmt::skip]
const SOCIETY_FIELDS: &[&str] = &[
    "Geographical", "Botanical", "Historical", "Astronomical", "Maritime", "Antiquarian",
];

/// Adjectives of book titles ("The Salt Atlas").
const BOOK_ADJECTIVES: &[&str] = &[
    "Salt", "Winter", "Silent", "Hollow", "Amber", "Iron", "Glass", "Copper", "Paper", "Northern",
    "Drowned", "Quiet", "Last", "Burning",
];

/// Nouns of book titles.
#[rustfmt::skip]
const BOOK_NOUNS: &[&str] = &[
    "Atlas", "Harbour", "Orchard", "Ledger", "Compass", "Tide", "Lighthouse", "Garden", "Archive",
    "Bell", "Meridian", "Almanac", "Ferry", "Glacier",
];

/// Adjectives of ship names ("Grey Heron").
const SHIP_ADJECTIVES: &[&str] = &[
    "Grey", "Swift", "Red", "Northern", "Silver", "Black", "Bold", "Little", "White", "Golden",
];

/// Birds of ship names.
#[rustfmt::skip]
const SHIP_BIRDS: &[&str] = &[
    "Heron", "Petrel", "Kittiwake", "Tern", "Gannet", "Cormorant", "Plover", "Curlew", "Fulmar",
    "Osprey",
];

/// First words of film titles ("Winter of the Gulls").
const FILM_HEADS: &[&str] = &["Winter", "Summer", "Autumn", "Night", "Harvest", "Spring"];

/// Last words of film titles.
#[rustfmt::skip]
const FILM_TAILS: &[&str] = &[
    "Gulls", "Lanterns", "Ferrymen", "Orchards", "Islands", "Wolves", "Bells", "Strangers",
];

/// Hands out names from the lists, each at most once.
pub(super) struct Namer {
    taken: BTreeSet<String>,
}

/// How many draws a name may take before the lists are deemed used up.
const TRIES: usize = 400;

impl Namer {
    /// A namer with no name handed out.
    pub(super) fn new() -> Self {
        Self {
            taken: BTreeSet::new(),
        }
    }

    /// Take `name` if it is free.
    pub(super) fn claim(&mut self, name: &str) -> bool {
        self.taken.insert(name.to_owned())
    }

    /// A free name made by `make`, or `None` when none came in [`TRIES`] draws.
    fn fresh(&mut self, rng: &mut Rng, make: impl Fn(&mut Rng) -> String) -> Option<String> {
        (0..TRIES)
            .map(|_| make(rng))
            .find(|n| self.taken.insert(n.clone()))
    }

    /// A surname (`Haugen`), free as a name.
    pub(super) fn surname(&mut self, rng: &mut Rng) -> Option<String> {
        self.fresh(rng, |rng| {
            let head = rng.pick(SURNAME_HEADS);
            let tail = rng.pick(SURNAME_TAILS);
            join(head, tail)
        })
    }

    /// A full name with this surname (`Olaf Haugen`).
    pub(super) fn person(&mut self, rng: &mut Rng, he: bool, surname: &str) -> Option<String> {
        self.fresh(rng, |rng| {
            let first = rng.pick(if he { MEN } else { WOMEN });
            format!("{first} {surname}")
        })
    }

    /// A town (`Kettleby`), with its stem and ending kept for a twin.
    pub(super) fn town(&mut self, rng: &mut Rng) -> Option<(String, String, String)> {
        for _ in 0..TRIES {
            let head = rng.pick(TOWN_HEADS);
            let tail = rng.pick(TOWN_TAILS);
            let name = join(head, tail);
            if self.taken.insert(name.clone()) {
                return Some((name, head.to_owned(), tail.to_owned()));
            }
        }
        None
    }

    /// A town one letter away from `head` + `tail` (`Kettlesby`).
    pub(super) fn twin(&mut self, head: &str, tail: &str) -> Option<String> {
        TWIN_LETTERS
            .iter()
            .filter(|c| !head.ends_with(**c) && !tail.starts_with(**c))
            .map(|c| format!("{head}{c}{tail}"))
            .find(|n| self.taken.insert(n.clone()))
    }

    /// A country (`Norland`).
    pub(super) fn country(&mut self, rng: &mut Rng) -> Option<String> {
        self.fresh(rng, |rng| {
            format!("{}{}", rng.pick(COUNTRY_HEADS), rng.pick(COUNTRY_TAILS))
        })
    }

    /// A publishing house's first word plus `Press` or `Books`.
    pub(super) fn press(&mut self, rng: &mut Rng) -> Option<String> {
        self.fresh(rng, |rng| {
            let word = rng.pick(PRESS_WORDS);
            let kind = rng.pick(&["Press", "Books", "Publishing"]);
            format!("{word} {kind}")
        })
    }

    /// A learned society of `country`.
    pub(super) fn society(&mut self, rng: &mut Rng, country: &str) -> Option<String> {
        self.fresh(rng, |rng| {
            format!("{country} {} Society", rng.pick(SOCIETY_FIELDS))
        })
    }

    /// A book title.
    pub(super) fn book(&mut self, rng: &mut Rng) -> Option<String> {
        self.fresh(rng, |rng| {
            format!("The {} {}", rng.pick(BOOK_ADJECTIVES), rng.pick(BOOK_NOUNS))
        })
    }

    /// A ship's name.
    pub(super) fn ship(&mut self, rng: &mut Rng) -> Option<String> {
        self.fresh(rng, |rng| {
            format!("{} {}", rng.pick(SHIP_ADJECTIVES), rng.pick(SHIP_BIRDS))
        })
    }

    /// A film title.
    pub(super) fn film(&mut self, rng: &mut Rng) -> Option<String> {
        self.fresh(rng, |rng| {
            format!("{} of the {}", rng.pick(FILM_HEADS), rng.pick(FILM_TAILS))
        })
    }

    /// Any name `make` builds, free.
    pub(super) fn other(
        &mut self,
        rng: &mut Rng,
        make: impl Fn(&mut Rng) -> String,
    ) -> Option<String> {
        self.fresh(rng, make)
    }
}

/// `head` and `tail` as one word, a letter they would double said once
/// (`Moss` + `stad` = `Mosstad`).
fn join(head: &str, tail: &str) -> String {
    let doubled = head.chars().last().is_some_and(|c| tail.starts_with(c));
    let tail = if doubled {
        tail.get(1..).unwrap_or(tail)
    } else {
        tail
    };
    format!("{head}{tail}")
}

/// A file name for an article titled `title`: lower-case ASCII letters and
/// digits, anything else `_`, and `.md`.
pub(super) fn slug(title: &str) -> String {
    let mut s: String = title
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '_'
            }
        })
        .collect();
    s.push_str(".md");
    s
}
