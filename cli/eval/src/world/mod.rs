//! A generated development world (issue 44): a fictional encyclopaedia of
//! people, organisations, places, works and dates, one article per file, and
//! multi-hop questions over it with their gold answers and gold chains.
//!
//! The articles carry the confusions real corpora hold: a founder and his
//! cousin (nephew, brother, successor) in one article, each with a
//! birthplace; towns one letter apart (Kettleby, Kettlesby); people of one
//! surname; a first and a second director of one institute; two winners of
//! one medal; facts said with pronouns and definite descriptions ("He was
//! born in …", "The company moved …"), relative clauses and appositions.
//!
//! Every sentence that states a fact is recorded with it as a [`Fact`]
//! (subject, predicate, object, file, sentence), so a question's gold chain
//! is a list of facts, each one a sentence of a written file. The questions
//! come in five [`Kind`]s; [`generate`] keeps only questions whose answer
//! [`check`] finds unambiguous in the corpus (every hop's subject and
//! predicate give one object; compared dates differ; the confusion beside the
//! last hop gives another value), and fails when a kind is left with fewer
//! than [`MIN_PER_KIND`]. The same seed gives the same bytes.

mod cast;
mod check;
mod names;
mod questions;
mod write;

use serde::Serialize;

pub use check::check;

/// The folder of the articles inside the directory a world is written to.
pub const ARTICLES_DIR: &str = "articles";

/// Questions asked of each kind when the world allows it.
pub const PER_KIND: usize = 14;

/// The fewest questions of a kind a world may have.
pub const MIN_PER_KIND: usize = 10;

/// The kinds of question.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Kind {
    /// Two facts in a row ("In which town was the founder of X born?").
    TwoHop,
    /// Three facts in a row ("Who founded the publisher of the book written by X?").
    ThreeHop,
    /// Two dates compared ("Which was founded first, A or B?").
    Comparison,
    /// Items named in the question, each in its own article, counted
    /// ("How many of A, B and C were founded before 1950?").
    Count,
    /// A year at the end of a chain ("In which year was the institute that X directed founded?").
    Date,
}

impl Kind {
    /// Every kind, in report order.
    pub const ALL: [Self; 5] = [
        Self::TwoHop,
        Self::ThreeHop,
        Self::Comparison,
        Self::Count,
        Self::Date,
    ];

    /// The kind as written in `questions.jsonl`.
    pub fn name(self) -> &'static str {
        match self {
            Self::TwoHop => "two-hop",
            Self::ThreeHop => "three-hop",
            Self::Comparison => "comparison",
            Self::Count => "count",
            Self::Date => "date",
        }
    }
}

/// The predicates of the world's facts (the names follow the fact
/// vocabulary of issue 43; each is stated in the direction written here).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Predicate {
    /// person → town.
    BornIn,
    /// person → year.
    BirthYear,
    /// person → town.
    DiedIn,
    /// person → organisation.
    Founded,
    /// organisation → person.
    FoundedBy,
    /// organisation → year.
    FoundingYear,
    /// organisation → town, town → country.
    LocatedIn,
    /// country → town.
    Capital,
    /// person → organisation they directed.
    Directed,
    /// organisation → its first director.
    FirstDirector,
    /// organisation → its second director.
    SecondDirector,
    /// person → book.
    AuthorOf,
    /// book → person.
    WrittenBy,
    /// book → publisher.
    PublishedBy,
    /// book → year.
    PublicationYear,
    /// ship → shipyard.
    BuiltBy,
    /// ship → year.
    LaunchYear,
    /// film → person.
    DirectedBy,
    /// person → film.
    DirectorOf,
    /// film → year.
    ReleaseYear,
    /// medal → society.
    AwardedBy,
    /// medal → its first winner.
    FirstAwardedTo,
    /// medal → its second winner.
    SecondAwardedTo,
    /// person → medal.
    Won,
    /// person → the relative named in the same article.
    RelativeOf,
    /// person → the one they succeeded.
    Succeeded,
}

/// One fact as an article states it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Fact {
    /// Who or what the fact is about (the resolved subject, whatever the
    /// sentence calls it: "He", "The company").
    pub subject: String,
    /// What is said.
    pub predicate: Predicate,
    /// The value: a name or a year.
    pub object: String,
    /// The article's path inside the world's directory (`articles/x.md`).
    pub file: String,
    /// The sentence that states it, as it stands in the file.
    pub sentence: String,
}

/// One article.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Article {
    /// Its path inside the world's directory (`articles/olaf_haugen.md`).
    pub file: String,
    /// Its title (the `# ` heading).
    pub title: String,
    /// Its text, heading included.
    pub text: String,
}

/// How a question's answer follows from its chain (what [`check`] verifies).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Rule {
    /// The last hop's object.
    Last,
    /// The subject of the hop with the earliest year.
    Earliest,
    /// How many hops have a year before this one.
    CountBefore(u32),
    /// How many hops have this object.
    CountObject(String),
}

/// One question with its gold answer and gold chain.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Question {
    /// Its id (`two-hop-01`, …), text, answer, other spellings and the
    /// articles of the chain, in chain order, without repeats.
    #[serde(flatten)]
    pub gold: crate::gold::GoldQuestion,
    /// Its kind.
    pub kind: Kind,
    /// The facts from the question to the answer.
    pub chain: Vec<Fact>,
    /// How the answer follows from the chain.
    #[serde(skip)]
    pub(crate) rule: Rule,
}

/// A generated world.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct World {
    /// Its seed.
    pub seed: u64,
    /// The articles, in file order.
    pub articles: Vec<Article>,
    /// Every fact the articles state, in article order.
    pub facts: Vec<Fact>,
    /// The questions, kind by kind.
    pub questions: Vec<Question>,
}

/// Errors of [`generate`].
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum WorldError {
    /// The name lists gave no free name.
    #[error("the name lists ran out of {0} names")]
    NamesUsedUp(&'static str),
    /// A kind has too few questions whose answer is unambiguous.
    #[error(
        "seed {seed}: only {got} {kind} questions with an unambiguous answer (at least {} wanted)",
        MIN_PER_KIND
    )]
    TooFew {
        /// The seed.
        seed: u64,
        /// The kind.
        kind: &'static str,
        /// How many there are.
        got: usize,
    },
    /// The world breaks an invariant (a duplicate name or file).
    #[error("seed {seed}: {problems}")]
    Broken {
        /// The seed.
        seed: u64,
        /// What is wrong, one problem a line.
        problems: String,
    },
}

/// The world of `seed`.
pub fn generate(seed: u64) -> Result<World, WorldError> {
    // Mixed so that world seed n and incidents seed n draw different streams.
    let mut rng = crate::rng::Rng::new(seed ^ 0x776F_726C_6400_0000);
    let cast = cast::Cast::new(&mut rng)?;
    let (articles, facts) = write::articles(&cast, &mut rng);
    let mut world = World {
        seed,
        articles,
        facts,
        questions: Vec::new(),
    };
    let problems = check::world_problems(&world);
    if !problems.is_empty() {
        return Err(WorldError::Broken {
            seed,
            problems: problems.join("\n"),
        });
    }
    world.questions = questions::ask(&cast, &world, &mut rng);
    for kind in Kind::ALL {
        let got = world.questions.iter().filter(|q| q.kind == kind).count();
        if got < MIN_PER_KIND {
            return Err(WorldError::TooFew {
                seed,
                kind: kind.name(),
                got,
            });
        }
    }
    Ok(world)
}

#[cfg(test)]
mod tests;
