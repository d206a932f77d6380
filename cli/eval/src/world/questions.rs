//! The questions: for each kind, several templates, each with its own
//! subjects drawn from the cast; the templates take turns, so a kind mixes
//! them. Every hop of a chain is a fact an article states; a candidate whose
//! answer [`super::check`] does not find unambiguous is dropped.

use std::collections::{BTreeMap, BTreeSet};

use super::cast::{Cast, Deed, OrgKind, file_of};
use super::{Fact, Kind, PER_KIND, Predicate, Question, Rule, World};
use crate::rng::Rng;

use Predicate as P;

/// A question before it is numbered.
struct Candidate {
    question: String,
    answer: String,
    aliases: Vec<String>,
    chain: Vec<Fact>,
    rule: Rule,
}

/// The facts of a world by subject and predicate.
pub(super) struct Facts<'w> {
    facts: &'w [Fact],
    by: BTreeMap<Predicate, BTreeMap<&'w str, Vec<&'w Fact>>>,
}

impl<'w> Facts<'w> {
    pub(super) fn new(facts: &'w [Fact]) -> Self {
        let mut by: BTreeMap<Predicate, BTreeMap<&str, Vec<&Fact>>> = BTreeMap::new();
        for f in facts {
            by.entry(f.predicate)
                .or_default()
                .entry(f.subject.as_str())
                .or_default()
                .push(f);
        }
        Self { facts, by }
    }

    /// Every fact with this predicate.
    pub(super) fn with(&self, predicate: Predicate) -> impl Iterator<Item = &'w Fact> + use<'w> {
        let facts: &'w [Fact] = self.facts;
        facts.iter().filter(move |f| f.predicate == predicate)
    }

    /// Every fact with this subject and predicate.
    pub(super) fn all(&self, subject: &str, predicate: Predicate) -> &[&'w Fact] {
        self.by
            .get(&predicate)
            .and_then(|m| m.get(subject))
            .map_or(&[], Vec::as_slice)
    }

    /// The fact a chain cites for `subject` and `predicate`: the one in the
    /// subject's own article when there is one, else the first.
    fn hop(&self, subject: &str, predicate: Predicate) -> Option<Fact> {
        let all = self.all(subject, predicate);
        let own = file_of(subject);
        all.iter()
            .find(|f| f.file == own)
            .or_else(|| all.first())
            .map(|f| (*f).clone())
    }

    /// The chain from `start` through `predicates`, each hop's object the
    /// next hop's subject.
    fn walk(&self, start: &str, predicates: &[Predicate]) -> Option<Vec<Fact>> {
        let mut at = start.to_owned();
        let mut chain = Vec::new();
        for p in predicates {
            let f = self.hop(&at, *p)?;
            at.clone_from(&f.object);
            chain.push(f);
        }
        Some(chain)
    }
}

/// A candidate whose answer is the chain's last object.
fn linear(question: String, chain: Option<Vec<Fact>>) -> Option<Candidate> {
    let chain = chain?;
    let answer = chain.last()?.object.clone();
    Some(Candidate {
        question,
        answer,
        aliases: Vec::new(),
        chain,
        rule: Rule::Last,
    })
}

/// The questions of a world, [`PER_KIND`] of each kind where the world allows.
pub(super) fn ask(cast: &Cast, world: &World, rng: &mut Rng) -> Vec<Question> {
    let facts = Facts::new(&world.facts);
    let texts: BTreeMap<&str, &str> = world
        .articles
        .iter()
        .map(|a| (a.file.as_str(), a.text.as_str()))
        .collect();
    let mut out = Vec::new();
    for kind in Kind::ALL {
        let mut templates = match kind {
            Kind::TwoHop => two_hop(cast, &facts),
            Kind::ThreeHop => three_hop(cast, &facts),
            Kind::Comparison => comparison(cast, &facts, rng),
            Kind::Count => count(cast, &facts, rng),
            Kind::Date => date(cast, &facts),
        };
        for t in &mut templates {
            rng.shuffle(t);
        }
        let mut seen = BTreeSet::new();
        let mut taken = 0;
        let longest = templates.iter().map(Vec::len).max().unwrap_or(0);
        'turns: for turn in 0..longest {
            for t in &mut templates {
                let Some(c) = t.get_mut(turn).and_then(Option::take) else {
                    continue;
                };
                if taken >= PER_KIND {
                    break 'turns;
                }
                let gold_titles = c.chain.iter().fold(Vec::new(), |mut v: Vec<String>, f| {
                    if !v.contains(&f.file) {
                        v.push(f.file.clone());
                    }
                    v
                });
                let q = Question {
                    gold: crate::gold::GoldQuestion {
                        id: format!("{}-{:02}", kind.name(), taken + 1),
                        question: c.question,
                        answer: c.answer,
                        answer_aliases: c.aliases,
                        gold_titles,
                    },
                    kind,
                    chain: c.chain,
                    rule: c.rule,
                };
                if !seen.contains(&q.gold.question)
                    && super::check::question_problems(&q, &facts, &texts).is_empty()
                {
                    seen.insert(q.gold.question.clone());
                    out.push(q);
                    taken += 1;
                }
            }
        }
    }
    out
}

/// Templates as lists of candidates (`None` where a chain could not be walked).
type Templates = Vec<Vec<Option<Candidate>>>;

/// Where a template's starts come from: each with the name the question
/// writes and its name in the facts, where the walk begins.
type Starts<'c> = Vec<(String, &'c str)>;

/// The starts of a cast, one list for each kind of thing a question starts
/// from.
struct StartsOf<'c>(&'c Cast);

impl<'c> StartsOf<'c> {
    /// Every organisation, written "the Marsh Shipyard".
    fn orgs(&self) -> Starts<'c> {
        let orgs = self.0.orgs.iter();
        orgs.map(|o| (o.the_name(), o.name.as_str())).collect()
    }

    /// The organisations somebody directed.
    fn directed_orgs(&self) -> Starts<'c> {
        let orgs = self.0.orgs.iter().filter(|o| !o.directors.is_empty());
        orgs.map(|o| (o.the_name(), o.name.as_str())).collect()
    }

    /// Every book, by its title.
    fn books(&self) -> Starts<'c> {
        named(self.0.books.iter().map(|b| &b.name))
    }

    /// Every book's author, once a book.
    fn authors(&self) -> Starts<'c> {
        let cast = self.0;
        let authors = cast.books.iter().map(|b| cast.person(b.author));
        authors.map(|a| (a.to_owned(), a)).collect()
    }

    /// Every ship, by its name.
    fn ships(&self) -> Starts<'c> {
        named(self.0.ships.iter().map(|s| &s.name))
    }

    /// Every medal, by its name.
    fn medals(&self) -> Starts<'c> {
        named(self.0.medals.iter().map(|m| &m.name))
    }

    /// Every film, by its title.
    fn films(&self) -> Starts<'c> {
        named(self.0.films.iter().map(|f| &f.name))
    }

    /// Every director, written "the institute that X": the kind of what
    /// they directed and their name; the walk starts from them.
    fn directors(&self) -> Starts<'c> {
        let cast = self.0;
        let directed = cast.people.iter().filter_map(|p| match p.deed {
            Some(Deed::Directed(o, ..)) => Some((p, cast.orgs.get(o)?)),
            _ => None,
        });
        directed
            .map(|(p, o)| {
                (
                    format!("{} that {}", o.kind.short(), p.name),
                    p.name.as_str(),
                )
            })
            .collect()
    }
}

/// Names written as they stand, each the start of its own walk.
fn named<'c>(names: impl Iterator<Item = &'c String>) -> Starts<'c> {
    names.map(|n| (n.clone(), n.as_str())).collect()
}

/// One template: the question's text before and after the start's name, and
/// the predicates walked from the start to the answer.
type Template = (&'static str, &'static str, &'static [Predicate]);

/// `template` asked of each of `starts`.
fn each(
    starts: &Starts<'_>,
    (before, after, path): Template,
    facts: &Facts<'_>,
) -> Vec<Option<Candidate>> {
    starts
        .iter()
        .map(|(shown, name)| linear(format!("{before}{shown}{after}"), facts.walk(name, path)))
        .collect()
}

fn two_hop(cast: &Cast, facts: &Facts<'_>) -> Templates {
    let s = StartsOf(cast);
    let born = " born?";
    vec![
        each(
            &s.orgs(),
            (
                "In which town was the founder of ",
                born,
                &[P::FoundedBy, P::BornIn],
            ),
            facts,
        ),
        each(
            &s.books(),
            (
                "In which town was the author of ",
                born,
                &[P::WrittenBy, P::BornIn],
            ),
            facts,
        ),
        each(
            &s.directed_orgs(),
            (
                "In which town was the first director of ",
                born,
                &[P::FirstDirector, P::BornIn],
            ),
            facts,
        ),
        each(
            &s.ships(),
            (
                "In which town is the shipyard that built the ",
                " located?",
                &[P::BuiltBy, P::LocatedIn],
            ),
            facts,
        ),
        each(
            &s.medals(),
            (
                "In which town was the first winner of the ",
                born,
                &[P::FirstAwardedTo, P::BornIn],
            ),
            facts,
        ),
        each(
            &s.directed_orgs(),
            (
                "In which town was the second director of ",
                born,
                &[P::SecondDirector, P::BornIn],
            ),
            facts,
        ),
        each(
            &s.films(),
            (
                "In which town was the director of ",
                born,
                &[P::DirectedBy, P::BornIn],
            ),
            facts,
        ),
    ]
}

fn three_hop(cast: &Cast, facts: &Facts<'_>) -> Templates {
    let s = StartsOf(cast);
    let born = " born?";
    vec![
        each(
            &s.authors(),
            (
                "Who founded the publisher of the book written by ",
                "?",
                &[P::AuthorOf, P::PublishedBy, P::FoundedBy],
            ),
            facts,
        ),
        each(
            &s.ships(),
            (
                "In which town was the founder of the shipyard that built the ",
                born,
                &[P::BuiltBy, P::FoundedBy, P::BornIn],
            ),
            facts,
        ),
        each(
            &s.orgs(),
            (
                "In which country was the founder of ",
                born,
                &[P::FoundedBy, P::BornIn, P::LocatedIn],
            ),
            facts,
        ),
        each(
            &s.books(),
            (
                "In which country is the publisher of ",
                " based?",
                &[P::PublishedBy, P::LocatedIn, P::LocatedIn],
            ),
            facts,
        ),
        each(
            &s.medals(),
            (
                "In which town was the founder of the society that awards the ",
                born,
                &[P::AwardedBy, P::FoundedBy, P::BornIn],
            ),
            facts,
        ),
        each(
            &s.directed_orgs(),
            (
                "In which country was the first director of ",
                born,
                &[P::FirstDirector, P::BornIn, P::LocatedIn],
            ),
            facts,
        ),
    ]
}

fn date(cast: &Cast, facts: &Facts<'_>) -> Templates {
    let s = StartsOf(cast);
    let founded = " founded?";
    vec![
        each(
            &s.directors(),
            (
                "In which year was the ",
                " directed founded?",
                &[P::Directed, P::FoundingYear],
            ),
            facts,
        ),
        each(
            &s.books(),
            (
                "In which year was the publisher of ",
                founded,
                &[P::PublishedBy, P::FoundingYear],
            ),
            facts,
        ),
        each(
            &s.ships(),
            (
                "In which year was the shipyard that built the ",
                founded,
                &[P::BuiltBy, P::FoundingYear],
            ),
            facts,
        ),
        each(
            &s.orgs(),
            (
                "In which year was the founder of ",
                " born?",
                &[P::FoundedBy, P::BirthYear],
            ),
            facts,
        ),
        each(
            &s.medals(),
            (
                "In which year was the society that awards the ",
                founded,
                &[P::AwardedBy, P::FoundingYear],
            ),
            facts,
        ),
        each(
            &s.authors(),
            (
                "In which year was the book written by ",
                " published?",
                &[P::AuthorOf, P::PublicationYear],
            ),
            facts,
        ),
    ]
}

/// The people with an article.
fn notable(cast: &Cast) -> Vec<(&str, Option<Deed>)> {
    cast.people
        .iter()
        .filter(|p| p.deed.is_some())
        .map(|p| (p.name.as_str(), p.deed))
        .collect()
}

/// Up to `n` distinct pairs of indices below `len`, drawn at random.
fn pairs(len: usize, n: usize, rng: &mut Rng) -> Vec<(usize, usize)> {
    let mut out = BTreeSet::new();
    for _ in 0..n * 4 {
        if out.len() >= n || len < 2 {
            break;
        }
        let (i, j) = (rng.below(len), rng.below(len));
        if i != j {
            out.insert((i.min(j), i.max(j)));
        }
    }
    let mut v: Vec<_> = out.into_iter().collect();
    rng.shuffle(&mut v);
    v
}

/// Up to `n` distinct triples of indices below `len`, drawn at random.
fn triples(len: usize, n: usize, rng: &mut Rng) -> Vec<[usize; 3]> {
    let mut out = BTreeSet::new();
    for _ in 0..n * 4 {
        if out.len() >= n || len < 3 {
            break;
        }
        let mut t = [rng.below(len), rng.below(len), rng.below(len)];
        t.sort_unstable();
        if t[0] != t[1] && t[1] != t[2] {
            out.insert(t);
        }
    }
    let mut v: Vec<_> = out.into_iter().collect();
    rng.shuffle(&mut v);
    v
}

/// "Which … first, A or B?" over the year facts of two subjects.
fn earlier(
    facts: &Facts<'_>,
    (a, b): (&str, &str),
    (a_text, b_text): (&str, &str),
    predicate: Predicate,
    ask: &str,
) -> Option<Candidate> {
    let chain = vec![facts.hop(a, predicate)?, facts.hop(b, predicate)?];
    let ya: u32 = chain.first()?.object.parse().ok()?;
    let yb: u32 = chain.get(1)?.object.parse().ok()?;
    let answer = if ya < yb { a } else { b };
    Some(Candidate {
        question: format!("{ask}, {a_text} or {b_text}?"),
        answer: answer.to_owned(),
        aliases: Vec::new(),
        chain,
        rule: Rule::Earliest,
    })
}

fn comparison(cast: &Cast, facts: &Facts<'_>, rng: &mut Rng) -> Templates {
    let orgs = pairs(cast.orgs.len(), 16, rng)
        .into_iter()
        .map(|(i, j)| {
            let (a, b) = (cast.orgs.get(i)?, cast.orgs.get(j)?);
            earlier(
                facts,
                (&a.name, &b.name),
                (&a.the_name(), &b.the_name()),
                P::FoundingYear,
                "Which was founded first",
            )
        })
        .collect();
    // People: first those of one surname (the directors, the winners), then any two.
    let people = notable(cast);
    let mut same: Vec<(&str, &str)> = cast
        .orgs
        .iter()
        .filter_map(|o| match o.directors.as_slice() {
            [a, b] => Some((cast.person(*a), cast.person(*b))),
            _ => None,
        })
        .chain(cast.medals.iter().map(|m| {
            let [(a, _), (b, _)] = m.winners;
            (cast.person(a), cast.person(b))
        }))
        .filter(|(a, b)| a.rsplit(' ').next() == b.rsplit(' ').next())
        .collect();
    for (i, j) in pairs(people.len(), 16, rng) {
        if let (Some((a, _)), Some((b, _))) = (people.get(i), people.get(j)) {
            same.push((*a, *b));
        }
    }
    let born = same
        .into_iter()
        .map(|(a, b)| {
            let (a, b) = if rng.chance(50) { (a, b) } else { (b, a) };
            earlier(facts, (a, b), (a, b), P::BirthYear, "Who was born first")
        })
        .collect();
    let books = pairs(cast.books.len(), 12, rng)
        .into_iter()
        .map(|(i, j)| {
            let (a, b) = (&cast.books.get(i)?.name, &cast.books.get(j)?.name);
            earlier(
                facts,
                (a, b),
                (a, b),
                P::PublicationYear,
                "Which book was published first",
            )
        })
        .collect();
    let ships = pairs(cast.ships.len(), 10, rng)
        .into_iter()
        .map(|(i, j)| {
            let (a, b) = (&cast.ships.get(i)?.name, &cast.ships.get(j)?.name);
            earlier(
                facts,
                (a, b),
                (&format!("the {a}"), &format!("the {b}")),
                P::LaunchYear,
                "Which ship was launched first",
            )
        })
        .collect();
    vec![orgs, born, books, ships]
}

/// "zero", "one", … for a count.
fn count_word(n: usize) -> Option<String> {
    rlmkg_text::NUMBER_WORDS
        .iter()
        .find(|w| w.kind == rlmkg_text::NumberKind::Cardinal && w.value == n as f64)
        .map(|w| w.word.to_owned())
}

/// A year that `k` of `years` (sorted, distinct) are before and none equals:
/// a round one when the gap allows.
fn threshold(years: &[u32], k: usize, rng: &mut Rng) -> Option<u32> {
    let (lo, hi) = match k {
        0 => (years.first()?.saturating_sub(15), *years.first()?),
        _ if k >= years.len() => (*years.last()? + 1, *years.last()? + 16),
        _ => (*years.get(k - 1)? + 1, *years.get(k)?),
    };
    // lo ..< hi, none of `years` inside.
    if hi <= lo {
        return None;
    }
    (lo..hi)
        .find(|y| y % 10 == 0)
        .or_else(|| (lo..hi).find(|y| y % 5 == 0))
        .or_else(|| Some(rng.range(lo, hi)))
}

/// "How many of A, B and C were … before Y?" over three subjects' years.
fn before(
    facts: &Facts<'_>,
    items: [(&str, String); 3],
    predicate: Predicate,
    verb: &str,
    rng: &mut Rng,
) -> Option<Candidate> {
    let [a, b, c] = &items;
    let chain = vec![
        facts.hop(a.0, predicate)?,
        facts.hop(b.0, predicate)?,
        facts.hop(c.0, predicate)?,
    ];
    let mut years = chain
        .iter()
        .map(|f| f.object.parse::<u32>().ok())
        .collect::<Option<Vec<u32>>>()?;
    years.sort_unstable();
    years.dedup();
    if years.len() != 3 {
        return None;
    }
    let k = [0, 1, 1, 1, 2, 2, 2, 3]
        .get(rng.below(8))
        .copied()
        .unwrap_or(1);
    let y = threshold(&years, k, rng)?;
    let n = years.iter().filter(|v| **v < y).count();
    Some(Candidate {
        question: format!(
            "How many of {}, {} and {} {verb} before {y}?",
            a.1, b.1, c.1
        ),
        answer: n.to_string(),
        aliases: count_word(n).into_iter().collect(),
        chain,
        rule: Rule::CountBefore(y),
    })
}

fn count(cast: &Cast, facts: &Facts<'_>, rng: &mut Rng) -> Templates {
    let orgs = triples(cast.orgs.len(), 12, rng)
        .into_iter()
        .map(|t| {
            let [a, b, c] = t.map(|i| cast.orgs.get(i).map(|o| (o.name.as_str(), o.the_name())));
            before(facts, [a?, b?, c?], P::FoundingYear, "were founded", rng)
        })
        .collect();
    let people = notable(cast);
    let born = triples(people.len(), 12, rng)
        .into_iter()
        .map(|t| {
            let [a, b, c] = t.map(|i| people.get(i).map(|(n, _)| (*n, (*n).to_owned())));
            before(facts, [a?, b?, c?], P::BirthYear, "were born", rng)
        })
        .collect();
    let ships = triples(cast.ships.len(), 8, rng)
        .into_iter()
        .map(|t| {
            let [a, b, c] = t.map(|i| {
                cast.ships
                    .get(i)
                    .map(|s| (s.name.as_str(), format!("the {}", s.name)))
            });
            before(facts, [a?, b?, c?], P::LaunchYear, "were launched", rng)
        })
        .collect();
    let publishers: Vec<usize> = (0..cast.orgs.len())
        .filter(|o| {
            cast.orgs
                .get(*o)
                .is_some_and(|o| o.kind == OrgKind::Publisher)
        })
        .collect();
    let books = triples(cast.books.len(), 10, rng)
        .into_iter()
        .map(|t| {
            let chain = t
                .iter()
                .map(|i| facts.hop(&cast.books.get(*i)?.name, P::PublishedBy))
                .collect::<Option<Vec<Fact>>>()?;
            // The publisher asked about: one of the three's, or another.
            let pick = rng.below(chain.len() + 1);
            let publisher = match chain.get(pick) {
                Some(f) => f.object.clone(),
                None => cast
                    .org(*publishers.get(rng.below(publishers.len()))?)
                    .to_owned(),
            };
            let n = chain.iter().filter(|f| f.object == publisher).count();
            let [a, b, c] = t.map(|i| cast.books.get(i).map(|b| b.name.as_str()));
            Some(Candidate {
                question: format!(
                    "How many of the books {}, {} and {} were published by {publisher}?",
                    a?, b?, c?
                ),
                answer: n.to_string(),
                aliases: count_word(n).into_iter().collect(),
                chain,
                rule: Rule::CountObject(publisher),
            })
        })
        .collect();
    vec![orgs, born, books, ships]
}
