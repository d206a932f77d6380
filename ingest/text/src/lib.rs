//! The one text analysis of rlmkg, shared by ingest (chunking), citation
//! (claims and sources) and the model-free heuristic, so that answers and
//! sources are read by the same rules:
//!
//! - [`stem`]: the Snowball English stemmer, with British spellings read as
//!   American ones, and [`match_key`], the stem under which the heuristic
//!   matches a question's words to a sentence's (agent nouns meet their verbs,
//!   nouns in `-ity` stay apart from their base);
//! - [`is_stopword`]: the one stop-word set ([`STOPWORDS`]); a user that needs a
//!   few more words adds them by name beside it;
//! - [`number_word`]: number words and their values ([`NUMBER_WORDS`]);
//! - [`MONTHS`] and [`month_number`]: month names and their written forms;
//! - [`year`], [`is_year`], [`day_of_month`], [`month_name`],
//!   [`date_parts_at`] and [`date_at`]: the one rule for a year, a day, a
//!   month named as a month, and a date (with its year or without);
//! - [`NAME_JOINERS`] (and [`TITLE_JOINERS`]): the lower-case words allowed
//!   inside a name; [`PRONOUNS`] (and [`NEAR_DEMONSTRATIVES`], [`refers_back`]):
//!   the words that stand for a name; [`SUBJECT_PRONOUNS`]: the words that give
//!   a clause its own subject; [`capitalized`]: a word written as a name;
//! - [`ends_with_abbreviation`]: the sentence-boundary rule (one
//!   [`ABBREVIATIONS`] list and one initials rule), versioned by
//!   [`SENTENCE_RULES_VERSION`];
//! - [`AUXILIARIES`]; [`IRREGULAR_VERBS`] (with [`irregular_base`], [`is_irregular_past`],
//!   [`is_irregular_participle`]) and [`HOMOGRAPHS`]: irregular verb forms,
//!   and the past forms that are words of another sense;
//! - [`PLACE_WORDS`]: the words that make a name a place, and
//!   [`place_kind_clash`]: a place of another kind than a question asks for;
//! - [`one_of`]: a word naming one of a closed set of values (settings and
//!   command-line names), any case;
//! - [`content_words`] and [`word_key`]: a question's words that matter, and
//!   the key under which a run of words is found in a sentence.
//!
//! It depends on nothing of rlmkg's.
//!
//! ```
//! use rlmkg_text::{ends_with_abbreviation, is_name_joiner, is_stopword, is_year, match_key, number_word, stem};
//!
//! assert_eq!(stem("organised"), stem("organized"));
//! assert_eq!(match_key("founder"), match_key("founded"));
//! assert_ne!(match_key("authority"), match_key("author"));
//! assert!(is_stopword("the") && !is_stopword("rocket"));
//! assert_eq!(number_word("twelve").map(|n| n.value), Some(12.0));
//! assert!(ends_with_abbreviation("He met Dr."));
//! assert!(!ends_with_abbreviation("He met the doctor."));
//! assert!(is_year("1998") && !is_year("2500"));
//! assert!(is_name_joiner("van"));
//! ```
// Only the binary prints (ARCHITECTURE.md): a library reports through return values and traits.
#![deny(clippy::print_stdout, clippy::print_stderr)]

mod closed;
mod dates;
mod fold;
mod months;
mod names;
mod numbers;
mod places;
mod sentence;
mod stem;
mod stopwords;
mod verbs;
mod words;

pub use closed::one_of;
pub use dates::{
    DateParts, DateWords, date_at, date_parts_at, day_of_month, is_year, month_name, year,
};
pub use fold::fold_key;
pub use months::{MONTHS, month_number};
pub use names::{
    NAME_JOINERS, NEAR_DEMONSTRATIVES, PRONOUNS, SUBJECT_PRONOUNS, TITLE_JOINERS, capitalized,
    is_name_joiner, refers_back,
};
pub use numbers::{NUMBER_WORDS, NumberKind, NumberWord, number_word};
pub use places::{PLACE_WORDS, asks_for_country, asks_for_settlement, place_kind_clash};
pub use sentence::{
    ABBREVIATIONS, SENTENCE_RULES_VERSION, continues_sentence, ends_with_abbreviation, is_initials,
};
pub use stem::{match_key, stem};
pub use stopwords::{STOPWORDS, is_stopword};
pub use verbs::{
    AUXILIARIES, HOMOGRAPHS, IRREGULAR_VERBS, irregular_base, is_irregular_participle,
    is_irregular_past,
};
pub use words::{content_words, word_key};
