//! A question read as a chain of hops: the relation words each hop is named by
//! ("the *founder* of the institute that *organised* the expedition, *born*
//! when?"), which of them the evidence chosen so far expresses, and how well a
//! candidate bridge entity fits the hop that leads to it.

use std::collections::HashSet;

use super::relations::{expresses, is_relation_form};
use super::short::{noun_class, words};

/// Question words that carry no relation, besides the pronouns
/// ([`rlmkg_text::PRONOUNS`]).
const NOT_RELATIONS: &[&str] = &[
    "what", "which", "who", "whom", "whose", "where", "when", "how", "many", "much", "the", "and",
    "was", "were", "is", "are", "did", "does", "has", "have", "had", "that", "this", "these",
    "those", "with", "from", "into", "for", "also", "both", "same", "name", "named", "called",
    "known", "person", "people", "man", "woman", "one", "two", "other", "there", "than", "then",
    "about", "after", "before", "type", "kind",
];

/// Whether the question word `w` (lower case) carries no relation: one of
/// [`NOT_RELATIONS`] or a pronoun.
pub(crate) fn not_relation(w: &str) -> bool {
    NOT_RELATIONS.contains(&w) || rlmkg_text::PRONOUNS.contains(&w)
}

/// The relation words of a question and what the evidence covers of them.
#[derive(Debug, Clone)]
pub struct Hops {
    /// Relation words (lower-case), in question order.
    relations: Vec<String>,
    /// Type nouns that name a hop's entity ("institute", "shipyard"), with
    /// their class, not counting the noun of the answer itself.
    bridge_nouns: Vec<(String, &'static str)>,
    /// Relation words some chosen sentence expresses.
    covered: HashSet<String>,
    /// The noun of the answer's type ("city" in "In which city…"), if any.
    answer_noun: Option<String>,
}

impl Hops {
    /// Read a question's lowercased words `w`; `name_terms` are the words
    /// of the entities it names (not relation words), as [`super::terms`]
    /// keys them.
    pub fn of(w: &[String], name_terms: &HashSet<String>) -> Self {
        let wh = w.iter().position(|t| {
            matches!(
                t.as_str(),
                "what" | "which" | "whose" | "who" | "where" | "when" | "how"
            )
        });
        // The answer's own noun: the first type noun right after the wh-word.
        let answer_noun = wh.and_then(|i| {
            w.iter()
                .skip(i + 1)
                .take(2)
                .position(|t| noun_class(t).is_some())
                .map(|k| i + 1 + k)
        });
        let mut relations = Vec::new();
        let mut bridge_nouns = Vec::new();
        for (i, t) in w.iter().enumerate() {
            if t.len() < 3
                || not_relation(t)
                || name_terms.contains(&rlmkg_text::match_key(t))
                || t.chars().all(|c| c.is_ascii_digit())
            {
                continue;
            }
            let class = noun_class(t);
            if let Some(class) = class
                && Some(i) != answer_noun
            {
                bridge_nouns.push((t.clone(), class));
            }
            if matches!(class, Some("place" | "date")) || Some(i) == answer_noun {
                continue; // "city", "year": the answer's type, not a relation
            }
            if !relations.contains(t) {
                relations.push(t.clone());
            }
        }
        Self {
            relations,
            bridge_nouns,
            covered: HashSet::new(),
            answer_noun: answer_noun.and_then(|i| w.get(i)).cloned(),
        }
    }

    /// The noun of the answer's type ("city" in "In which city…"), if any: an
    /// answer sentence seldom repeats it, so it says little about one.
    pub fn answer_noun(&self) -> Option<&str> {
        self.answer_noun.as_deref()
    }

    fn expressed_in<'a>(&'a self, sentence: &'a str) -> impl Iterator<Item = &'a String> + 'a {
        let sw = words(sentence);
        self.relations
            .iter()
            .filter(move |r| sw.iter().any(|s| expresses(r, s)))
    }

    /// How many of the question's relation words `sentence` (lower-case) expresses.
    pub fn relation_fit(&self, sentence: &str) -> f64 {
        self.expressed_in(sentence).count() as f64
    }

    /// How many relation words not yet covered `sentence` expresses.
    pub fn fresh_fit(&self, sentence: &str) -> f64 {
        self.expressed_in(sentence)
            .filter(|r| !self.covered.contains(*r))
            .count() as f64
    }

    /// Mark the relation words `sentence` expresses as covered.
    pub fn cover(&mut self, sentence: &str) {
        let found: Vec<String> = self.expressed_in(sentence).cloned().collect();
        self.covered.extend(found);
    }

    /// Whether the chosen sentences express every relation word.
    pub fn all_covered(&self) -> bool {
        self.relations.iter().all(|r| self.covered.contains(r))
    }

    /// How well a bridge named `names` (of store type `kind`) in `sentence`
    /// (lower-case) fits the question: close to a relation word of the sentence
    /// ("*led by* Dr. Tomas Reyes"), and of the kind a hop names ("the
    /// *institute* that…": a name holding "Institute", or an organization).
    pub fn bridge_fit(&self, sentence: &str, names: &[String], kind: &str) -> f64 {
        let sw = words(sentence);
        let at = names.iter().find_map(|n| {
            let nw = words(n);
            (!nw.is_empty())
                .then(|| sw.windows(nw.len()).position(|win| win == nw.as_slice()))
                .flatten()
                .map(|p| (p, p + nw.len()))
        });
        let Some((from, to)) = at else { return 0.0 };
        let near = sw
            .iter()
            .enumerate()
            .filter(|(i, s)| {
                (*i < from || *i >= to) && self.relations.iter().any(|r| expresses(r, s))
            })
            .map(|(i, _)| {
                let d = if i < from { from - i } else { i + 1 - to };
                1.0 / (1.0 + d as f64 / 3.0)
            })
            .fold(0.0, f64::max);
        let lower: Vec<String> = names.iter().flat_map(|n| words(n)).collect();
        let noun = self
            .bridge_nouns
            .iter()
            .map(|(noun, class)| {
                if lower.iter().any(|w| w == noun) {
                    1.0
                } else if *class == kind {
                    0.4
                } else {
                    0.0
                }
            })
            .fold(0.0, f64::max);
        near + noun
    }
}

/// Whether `word` reads as a past participle: regular ("founded") or
/// irregular ([`rlmkg_text::is_irregular_participle`]: a question ends with
/// its verb as "…was X *born*?").
pub(crate) fn participle(word: &str) -> bool {
    (word.len() > 4 && word.ends_with("ed")) || rlmkg_text::is_irregular_participle(word)
}

/// The relation words of a question in order ("founder", "organised",
/// "born"), from its lowercased `words`, the words of the `names` it spells
/// with capitals left out: what a sentence leading from one hop to the next
/// expresses.
pub(crate) fn relation_words(words: &[String], names: &[String]) -> Vec<String> {
    let names: HashSet<String> = names.iter().flat_map(|n| super::terms(n)).collect();
    Hops::of(words, &names).relations
}

/// Whether a word of [`relation_words`] is a verb or agent noun — a listed
/// relation form ("founder", "born", "publisher") or a past participle
/// ("organised", "joined") — not a noun of a thing ("vessel", "research").
pub fn is_relation_verb(word: &str) -> bool {
    is_relation_form(word) || participle(word)
}

/// Whether `sentence` expresses `relation`, a word of [`relation_words`].
pub fn expresses_relation(relation: &str, sentence: &str) -> bool {
    words(sentence).iter().any(|s| expresses(relation, s))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relation_words_and_bridge_fit() {
        let names: HashSet<String> = super::super::terms("Skarvik Expedition")
            .into_iter()
            .collect();
        let mut h = Hops::of(
            &words(
                "In what year was the founder of the institute that organised the Skarvik Expedition born?",
            ),
            &names,
        );
        assert_eq!(h.relations, ["founder", "institute", "organised", "born"]);
        let s = "it was organised by the kestrel institute for coastal studies and led by dr. tomas reyes.";
        let kics = h.bridge_fit(
            s,
            &["Kestrel Institute for Coastal Studies".into()],
            "organization",
        );
        let reyes = h.bridge_fit(s, &["Tomas Reyes".into()], "person");
        assert!(kics > reyes, "{kics} {reyes}");
        h.cover(s);
        assert!(!h.all_covered());
        assert_eq!(h.fresh_fit("she founded it and was born in 1941."), 2.0);
    }

    #[test]
    fn the_answer_relation_follows_the_question_shape() {
        for (q, want) in [
            (
                "Who founded the publisher of The Salt Atlas?",
                Some("founded"),
            ),
            (
                "Which company built the vessel that Reyes used?",
                Some("built"),
            ),
            (
                "In what year was the founder of the Kestrel Institute born?",
                Some("born"),
            ),
            (
                "In which country was the leader of the Skarvik Expedition born?",
                Some("born"),
            ),
            (
                "In which city was the research vessel used on the Skarvik Expedition built?",
                Some("built"),
            ),
            (
                "Which institute did the winner of the 2018 Halvorsen Medal join in 2019?",
                Some("join"),
            ),
            // A name after the verb: not read (the verb may sit in the subject).
            ("When did the author of The Salt Atlas join KICS?", None),
            ("What country was the author of Brand a citizen of?", None),
            (
                "Who was the leader of the Skarvik Expedition?",
                Some("leader"),
            ),
            (
                "Who is the author of the book published by Northlight Press?",
                Some("author"),
            ),
            ("How many people does the institute employ?", Some("employ")),
            ("Where was Tomas Reyes born?", Some("born")),
            // Where something is: said with a preposition, no word to find.
            (
                "In which city is the university that Mara Ellison left in 2019?",
                None,
            ),
            (
                "In which city is the institute that organised the Skarvik Expedition located?",
                None,
            ),
            ("What nationality is the director of Jaws?", None),
            ("What is the population of Tromsø?", None),
            ("", None),
            ("?", None),
            // A verb in a clause or phrase inside the subject is not the answer's.
            (
                "What is the population of the city where Kerry Saxby was born?",
                None,
            ),
            (
                "Who was the DJ of the album produced by a cricketer born in Christchurch, New Zealand?",
                None,
            ),
            (
                "When did the Admiral Twin open in the city where the Philbrook Museum is located?",
                None,
            ),
            (
                "Who was in charge of the country Ceelmakoile is located in?",
                None,
            ),
            ("Who is the spouse of Big Eye's main director?", None),
            (
                "What landlocked country located in Southern Africa is the birth place of Ayesha?",
                None,
            ),
            (
                "Scott Howell is a consultant who has worked with the mayor of what city?",
                None,
            ),
            (
                "What do E. B. White and Dan Masterson have in common?",
                None,
            ),
            (
                "how is Tampa Bay Buccaneers draft history and Lee Roy Selmon connected?",
                None,
            ),
        ] {
            assert_eq!(crate::Question::read(q).answer_relation(), want, "{q}");
        }
        assert!(expresses_relation("born", "Lindqvist was born in 1941."));
        assert!(expresses_relation("founded", "Catherine Moray founded it."));
        assert!(!expresses_relation(
            "born",
            "The institute was founded in 1998."
        ));
        assert_eq!(
            crate::Question::read(
                "In what year was the founder of the Kestrel Institute for Coastal Studies born?"
            )
            .relations(),
            ["founder", "born"]
        );
    }
}
