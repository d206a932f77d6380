//! A question read once (issue 45): what it asks for, the relations it goes
//! through, the names and years it gives, whether it is about the whole
//! collection, what it compares by and the words that matter. The answering
//! code — the heuristic, the review, the REPL handle's hints and the map
//! recipe — reads these, never the question's text again; the text stays
//! here for prompts and searches.

use std::collections::HashSet;

use crate::short::AnswerType;

mod read;

/// Words that ask for the earlier of two things.
const EARLIER: &[&str] = &["first", "earlier", "older", "oldest", "before", "earliest"];
/// Words that ask for the later of two things ("last" is read apart: see
/// [`Compared::by_date`]).
const LATER: &[&str] = &["later", "younger", "youngest", "recent", "newer", "latest"];
/// Words that ask for the larger of two amounts.
const MORE: &[&str] = &[
    "more", "most", "larger", "largest", "bigger", "higher", "taller", "longer", "greater",
];
/// Words that ask for the smaller of two amounts.
const FEWER: &[&str] = &["fewer", "less", "smaller", "smallest", "shorter", "lower"];

/// What a question compares two things by, from its words.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Compared {
    /// It asks for the earlier ("first", "older").
    pub earlier: bool,
    /// It asks for the later ("younger", "latest", "last").
    pub later: bool,
    /// It asks for the larger amount ("more", "taller").
    pub more: bool,
    /// It asks for the smaller amount ("fewer", "shorter").
    pub fewer: bool,
    /// It compares times by a word other than "last": the comparison's
    /// evidence then prefers dated sentences.
    pub by_date: bool,
}

impl Compared {
    pub(super) fn of(words: &[String]) -> Self {
        let has = |list: &[&str]| words.iter().any(|w| list.contains(&w.as_str()));
        let earlier = has(EARLIER);
        let later = has(LATER);
        Self {
            earlier,
            later: later || has(&["last"]),
            more: has(MORE),
            fewer: has(FEWER),
            by_date: earlier || later,
        }
    }

    /// Whether it compares amounts.
    pub fn by_amount(&self) -> bool {
        self.more || self.fewer
    }
}

/// A question, read once.
#[derive(Debug, Clone)]
pub struct Question {
    text: String,
    lower: String,
    words: Vec<String>,
    capitals: Vec<bool>,
    alnum_words: Vec<String>,
    answer_type: AnswerType,
    answer_relation: Option<String>,
    relations: Vec<String>,
    main_relation: Option<String>,
    names: Vec<String>,
    name_words: String,
    years: Vec<String>,
    asked_noun: Option<String>,
    which_noun: Option<String>,
    whole_collection: bool,
    compared: Compared,
    content_words: Vec<String>,
    content_keys: Vec<String>,
    terms: HashSet<String>,
    key: String,
}

impl Question {
    /// The question as asked (for prompts, searches and the answer's record).
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The question lowercased.
    pub fn lower(&self) -> &str {
        &self.lower
    }

    /// Its words, lowercased (apostrophes kept inside a word).
    pub fn words(&self) -> &[String] {
        &self.words
    }

    /// Its words, lowercased, each with whether it is written with a capital
    /// past the question's first word (a name's word).
    pub fn words_with_capitals(&self) -> impl Iterator<Item = (&str, bool)> {
        self.words
            .iter()
            .map(String::as_str)
            .zip(self.capitals.iter().copied())
    }

    /// Its runs of letters and digits, as written.
    pub fn alnum_words(&self) -> &[String] {
        &self.alnum_words
    }

    /// What it asks for (person, place, date, number, yes/no, one of its options, …).
    pub fn answer_type(&self) -> &AnswerType {
        &self.answer_type
    }

    /// The relation its answer stands in, when its shape says which word
    /// names it ("…was X *born*?", "Who *founded*…"; see
    /// [`crate::hops`]'s `answer_relation`).
    pub fn answer_relation(&self) -> Option<&str> {
        self.answer_relation.as_deref()
    }

    /// Its relation words in order ("founder", "organised", "born"), the
    /// words of the names it spells with capitals left out.
    pub fn relations(&self) -> &[String] {
        &self.relations
    }

    /// Its main relation for picking a short answer: the first content word
    /// after the wh-word that is no type noun ("Who *founded* …"), or the
    /// closing verb of a question opening with a preposition ("In which city
    /// was the vessel *built*?").
    pub fn main_relation(&self) -> Option<&str> {
        self.main_relation.as_deref()
    }

    /// The names it gives: runs of capitalized words after its first word.
    pub fn names(&self) -> &[String] {
        &self.names
    }

    /// The words written with a capital after its first word, joined by
    /// spaces ("The Salt Atlas" of "Who founded the publisher of The Salt
    /// Atlas?"): the names a suggested search starts from.
    pub fn name_words(&self) -> &str {
        &self.name_words
    }

    /// Whether it names `name` as a name: as written, or in another case
    /// where its text there opens with a capital or a digit ("research" in
    /// "the research vessel" is no mention of an entity "Research").
    pub fn writes_name(&self, name: &str) -> bool {
        if self.text.contains(name) {
            return true;
        }
        let n = name.to_lowercase();
        if self.lower.len() != self.text.len() {
            return false; // offsets would not line up
        }
        self.lower.match_indices(&n).any(|(at, _)| {
            self.text
                .get(at..)
                .and_then(|rest| rest.chars().next())
                .is_some_and(|c| c.is_uppercase() || c.is_ascii_digit())
        })
    }

    /// The years it names ("in 2019", "the 2018 Halvorsen Medal").
    pub fn years(&self) -> &[String] {
        &self.years
    }

    /// The type noun it asks for after "which"/"what"/"whose" ("In which
    /// *city* …"), when it names one.
    pub fn asked_noun(&self) -> Option<&str> {
        self.asked_noun.as_deref()
    }

    /// The noun it asks for after "which"/"what"/"whose", whatever it is
    /// ("Which *category* of incident …").
    pub fn which_noun(&self) -> Option<&str> {
        self.which_noun.as_deref()
    }

    /// Whether it asks about the whole collection (counts and frequencies
    /// over documents) rather than one fact.
    pub fn whole_collection(&self) -> bool {
        self.whole_collection
    }

    /// What it compares by ("older", "more").
    pub fn compared(&self) -> Compared {
        self.compared
    }

    /// Its content words, lowercased ([`rlmkg_text::content_words`]).
    pub fn content_words(&self) -> &[String] {
        &self.content_words
    }

    /// The [`rlmkg_text::match_key`] of each of its content words, in order.
    pub fn content_keys(&self) -> &[String] {
        &self.content_keys
    }

    /// Its terms as the heuristic matches sentences by: content words
    /// (besides "year") as match keys.
    pub fn terms(&self) -> &HashSet<String> {
        &self.terms
    }

    /// Its [`rlmkg_text::word_key`]: its words lowercased, space-separated.
    pub fn key(&self) -> &str {
        &self.key
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whole_collection_questions_are_told_apart() {
        let whole = |q: &str| Question::read(q).whole_collection();
        assert!(whole("Which category of incident is reported most often?"));
        assert!(whole("In how many reports is Oslo mentioned?"));
        assert!(!whole(
            "How many children did the founder of the institute have?"
        ));
        assert!(!whole("Who designed the Pellan Bridge?"));
    }

    #[test]
    fn a_question_is_read_into_its_pieces() {
        let q = Question::read("Which institute did the author of The Salt Atlas join in 2019?");
        assert_eq!(q.answer_type(), &AnswerType::Organization);
        assert_eq!(q.answer_relation(), Some("join"));
        assert_eq!(q.relations(), ["author", "join"]);
        assert_eq!(q.years(), ["2019"]);
        assert_eq!(q.asked_noun(), Some("institute"));
        assert_eq!(q.names(), ["The Salt Atlas"]);
        assert_eq!(q.name_words(), "The Salt Atlas");
        assert_eq!(
            q.content_words(),
            ["institute", "author", "salt", "atlas", "join", "2019"]
        );
        assert!(q.writes_name("Salt Atlas") && !q.writes_name("Author"));
        let q = Question::read("Which opened last, the Pellan Bridge or the Oran Tunnel?");
        assert!(q.compared().later && !q.compared().by_date);
    }
}
