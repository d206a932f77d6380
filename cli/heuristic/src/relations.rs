//! Relation words of a question and the sentence words that express them.
//!
//! A multi-hop question names each hop by a relation word ("the *leader* of the
//! expedition", "the institute that *organised* it", "*born*"); the evidence
//! sentence says it with a related form ("*led* by", "*organised* by", "was
//! *born* in"). Regular forms share a stem ([`same_stem`]); the irregular and
//! derived forms of common English relation words are listed in [`FORMS`] (a
//! general list of English word forms, not of any corpus).

use rlmkg_text::HOMOGRAPHS;

/// Groups of English word forms that express one relation: agent nouns, verbs
/// and their irregular past forms.
const FORMS: &[&[&str]] = &[
    &[
        "leader", "led", "lead", "leads", "leading", "headed", "head",
    ],
    &[
        "founder",
        "founded",
        "founding",
        "cofounder",
        "established",
        "establish",
        "formed",
        "started",
        "created",
    ],
    &["author", "wrote", "written", "writer", "writes", "authored"],
    &["winner", "won", "win", "wins", "awarded", "received"],
    &["born", "birth", "birthplace", "native"],
    &["died", "death", "dead"],
    &["built", "build", "builder", "constructed"],
    &["made", "make", "maker"],
    &["sung", "sang", "sing", "singer", "vocalist", "vocals"],
    &["taught", "teach", "teacher"],
    &["left", "leave", "leaves", "leaving", "departed"],
    &["bought", "buy", "buyer", "acquired"],
    &["sold", "sell", "seller"],
    &["grew", "grown", "grow"],
    &["began", "begun", "begin", "beginning", "started", "start"],
    &["drawn", "drew", "draw"],
    &["flew", "flown", "fly"],
    &["ran", "run", "runs", "running"],
    &[
        "located",
        "based",
        "situated",
        "headquartered",
        "headquarters",
    ],
    &[
        "starred", "star", "stars", "starring", "featured", "features",
    ],
    &["married", "wife", "husband", "spouse"],
    &["owner", "owned", "owns", "own"],
    &["member", "members", "joined", "join"],
    &["published", "publisher", "publishes", "publication"],
    &["directed", "director", "directs"],
    &["produced", "producer", "produces", "production"],
    &["developed", "developer", "develops"],
    &["designed", "designer", "designs"],
    &["composed", "composer", "composes"],
    &["played", "player", "plays", "playing"],
    &["released", "release", "releases"],
    &["located", "location"],
];

/// Same word up to a suffix: "founded"/"founder", "published"/"publisher".
pub fn same_stem(a: &str, b: &str) -> bool {
    if a == b {
        return true;
    }
    // An "-ity" noun is another word than its base ("authority" is not
    // "author"), as `rlmkg_text::match_key` keeps them apart.
    let ity = |w: &str| w.ends_with("ity") || w.ends_with("ities");
    if ity(a) != ity(b) {
        return false;
    }
    let common = a.chars().zip(b.chars()).take_while(|(x, y)| x == y).count();
    common >= 4 && common * 3 >= a.chars().count().min(b.chars().count()) * 2
}

/// Whether `word` is one of the listed forms of a relation ("wrote", "born",
/// "leader"): a verb or agent noun, not a word of any other kind.
pub fn is_relation_form(word: &str) -> bool {
    FORMS.iter().any(|g| g.contains(&word))
}

/// Whether sentence word `s` expresses the relation of question word `q`
/// (both lower-case): the same stem, or forms of one group of [`FORMS`].
pub fn expresses(q: &str, s: &str) -> bool {
    // Past forms that are words of another sense ("she *found* it" is not
    // "founded") express only themselves in a sentence; a question's such
    // word is expressed by the forms listed with it ("left": "leaving"),
    // whose sense is not in doubt.
    if q != s && HOMOGRAPHS.contains(&s) {
        return false;
    }
    if q != s && HOMOGRAPHS.contains(&q) {
        return FORMS.iter().any(|g| g.contains(&q) && g.contains(&s));
    }
    same_stem(q, s)
        || FORMS
            .iter()
            .any(|g| g.iter().any(|w| same_stem(w, q)) && g.contains(&s))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn irregular_past_forms_are_not_another_words_stem() {
        assert!(!expresses("founded", "found"));
        assert!(!expresses("founder", "found"));
        assert!(expresses("founder", "founded"));
        assert!(expresses("left", "left"));
        assert!(!expresses("left", "leftist"));
        // A question's homograph meets its listed forms, not another stem.
        assert!(expresses("left", "leaving"));
        assert!(!expresses("leaving", "left"));
        assert!(!expresses("found", "founded"));
        // An "-ity" noun is no form of its base.
        assert!(!expresses("author", "authority"));
    }

    #[test]
    fn relation_words_meet_their_forms() {
        for (q, s) in [
            ("leader", "led"),
            ("founder", "founded"),
            ("winner", "awarded"),
            ("author", "wrote"),
            ("published", "publisher"),
            ("born", "born"),
        ] {
            assert!(expresses(q, s), "{q} / {s}");
        }
        for (q, s) in [("leader", "born"), ("founder", "fjord"), ("city", "cite")] {
            assert!(!expresses(q, s), "{q} / {s}");
        }
    }
}
