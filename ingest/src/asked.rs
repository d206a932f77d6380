//! The words that say a predicate, read from the extraction's one lexicon:
//! what a question asking for that predicate writes ("born", "founder",
//! "written"). The answer check (issue 44) reads a fact as asked for when
//! the question carries one of them.

use rlmkg_graph::{LabelKind, label_kind};

use rlmkg_graph::Predicate;

use crate::facts::lexicon::{CUES, Cue, Frame, ROLES, Slot};

/// The words that say the predicate of relation `label` (a label of the
/// vocabulary, its inverse, or `other: <verb phrase>`): the verb forms whose
/// frames give it, the role nouns that name it, and the words of its label;
/// for an `other:` label, the words of its phrase. Lower case, in lexicon
/// order, possibly repeated; empty for `co-occurs`.
pub fn predicate_words(label: &str) -> Vec<&str> {
    match label_kind(label) {
        LabelKind::CoOccurs => Vec::new(),
        LabelKind::Other(phrase) => phrase.split_whitespace().collect(),
        LabelKind::Fact(p) => {
            let cues = CUES
                .iter()
                .filter(|c| says(c, p))
                .flat_map(|c| c.forms.iter().copied());
            let roles = ROLES
                .iter()
                .filter(|r| r.pred == p)
                .flat_map(|r| r.nouns.iter().copied());
            cues.chain(roles)
                .chain(p.label().split_whitespace())
                .chain(p.inverse().split_whitespace())
                .collect()
        }
    }
}

/// The predicate a fact of `p` becomes when its object is a date, as the
/// lexicon's frames read it ("born in 1908" is a date of birth): the date
/// frame of a cue whose own fact is `p`.
pub(crate) fn date_predicate_of(p: Predicate) -> Option<Predicate> {
    CUES.iter()
        .filter(|c| {
            c.active
                .iter()
                .find(|f| f.slot == Slot::Thing)
                .map(|f| f.pred)
                == Some(p)
        })
        .flat_map(|c| c.active.iter().chain(c.passive))
        .find(|f| f.slot == Slot::Date)
        .map(|f| f.pred)
}

/// The prepositions before a place that say where something is ("a town
/// *in* Vesland"), from the lexicon's frames of "located".
pub(crate) fn location_prepositions() -> impl Iterator<Item = &'static str> {
    crate::facts::lexicon::LOCATED.iter().map(|f| f.prep)
}

/// Whether cue `c` says predicate `p`: a date frame of `p`, or `p` is the
/// first thing frame of its active or its passive voice (the verb's own
/// fact: "founded" says who founded, not where — "founded in Bergen" is a
/// later frame, read as the place).
fn says(c: &Cue, p: Predicate) -> bool {
    let first_thing = |frames: &[Frame]| {
        frames
            .iter()
            .find(|f| f.slot == Slot::Thing)
            .map(|f| f.pred)
    };
    c.active
        .iter()
        .chain(c.passive)
        .any(|f| f.slot == Slot::Date && f.pred == p)
        || first_thing(c.active) == Some(p)
        || first_thing(c.passive) == Some(p)
}

#[cfg(test)]
mod tests {
    use super::predicate_words;

    #[test]
    fn the_words_of_a_predicate_come_from_the_lexicon_and_its_label() {
        for (label, word) in [
            ("born in", "born"),
            ("founded", "founder"),
            ("founded by", "established"),
            ("date of founding", "founded"),
            ("date of birth", "born"),
            ("author of", "author"),
            ("led", "director"),
            ("other: launched in", "launched"),
        ] {
            assert!(
                predicate_words(label).contains(&word),
                "{label}: {:?}",
                predicate_words(label)
            );
        }
        assert!(predicate_words("co-occurs").is_empty());
        assert!(!predicate_words("born in").contains(&"founder"));
        // "founded in Bergen" is read as a place, but "founded" asks for a founder.
        assert!(!predicate_words("located in").contains(&"founded"));
    }
}
