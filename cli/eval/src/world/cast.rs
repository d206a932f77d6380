//! The world's entities and how they relate, drawn from a seed before any
//! article is written.

use super::WorldError;
use super::names::{self, Namer};
use crate::rng::Rng;

/// Countries.
const COUNTRIES: usize = 4;
/// Towns drawn from the lists (twins come on top).
const TOWNS: usize = 26;
/// Towns that get a near-twin one letter away.
const TWINS: usize = 12;
/// The organisations of each kind.
const ORGS: &[(OrgKind, usize)] = &[
    (OrgKind::Shipyard, 5),
    (OrgKind::Publisher, 5),
    (OrgKind::Institute, 4),
    (OrgKind::Laboratory, 3),
    (OrgKind::Society, 3),
];
/// Books, ships, films.
const BOOKS: usize = 12;
const SHIPS: usize = 8;
const FILMS: usize = 4;
/// The last year any date may be.
pub(super) const NOW: u32 = 2024;

/// A country.
pub(super) struct Country {
    pub name: String,
    pub capital: usize,
    pub river: &'static str,
}

/// A town.
pub(super) struct Town {
    pub name: String,
    pub country: usize,
    /// The town one letter away, if any.
    pub twin: Option<usize>,
    pub river: &'static str,
    /// `town`, `village`, `city`.
    pub size: &'static str,
}

/// What a person with an article is known for.
#[derive(Clone, Copy)]
pub(super) enum Deed {
    /// Founded the organisation.
    Founded(usize),
    /// Directed the organisation: first (1) or second (2), from, to.
    Directed(usize, u8, u32, u32),
    /// Wrote the book.
    Wrote(usize),
    /// Directed the film.
    MadeFilm(usize),
    /// Won the medal, in a year.
    Won(usize, u32),
}

/// A person.
pub(super) struct Person {
    pub name: String,
    pub he: bool,
    pub born: u32,
    pub died: Option<u32>,
    pub town: usize,
    pub died_in: usize,
    pub role: &'static str,
    pub trade: &'static str,
    /// What the article is about; `None`: no article (a relative named in another's).
    pub deed: Option<Deed>,
}

/// Kinds of organisation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum OrgKind {
    Shipyard,
    Publisher,
    Institute,
    Laboratory,
    Society,
}

impl OrgKind {
    /// What the organisation is ("a shipyard").
    pub(super) fn noun(self) -> &'static str {
        match self {
            Self::Shipyard => "shipyard",
            Self::Publisher => "publishing house",
            Self::Institute => "research institute",
            Self::Laboratory => "research laboratory",
            Self::Society => "learned society",
        }
    }

    /// How an article refers back to it ("the company").
    pub(super) fn back(self) -> &'static str {
        match self {
            Self::Shipyard | Self::Publisher => "the company",
            Self::Institute => "the institute",
            Self::Laboratory => "the laboratory",
            Self::Society => "the society",
        }
    }

    /// The noun a question uses ("the institute that X directed").
    pub(super) fn short(self) -> &'static str {
        match self {
            Self::Shipyard => "shipyard",
            Self::Publisher => "publisher",
            Self::Institute => "institute",
            Self::Laboratory => "laboratory",
            Self::Society => "society",
        }
    }

    /// Whether its name takes "the" in running text.
    pub(super) fn takes_the(self) -> bool {
        matches!(self, Self::Institute | Self::Laboratory | Self::Society)
    }

    /// What its founder did for a living.
    fn founder_roles(self) -> &'static [&'static str] {
        match self {
            Self::Shipyard => &["shipwright", "ship owner", "marine engineer"],
            Self::Publisher => &["bookseller", "printer", "journalist"],
            Self::Institute => &["chemist", "physicist", "geologist"],
            Self::Laboratory => &["biologist", "engineer", "physician"],
            Self::Society => &["naturalist", "cartographer", "schoolteacher"],
        }
    }
}

/// An organisation.
pub(super) struct Org {
    pub name: String,
    pub kind: OrgKind,
    pub town: usize,
    pub founded: u32,
    pub founder: usize,
    /// The founder's relative named in the founder's article, and how related.
    pub relative: usize,
    pub relation: &'static str,
    /// First and second director (institutes and laboratories).
    pub directors: Vec<usize>,
}

impl Org {
    /// Its name as running text writes it ("the Kettleby Institute of Geophysics").
    pub(super) fn the_name(&self) -> String {
        if self.kind.takes_the() {
            format!("the {}", self.name)
        } else {
            self.name.clone()
        }
    }
}

/// A book.
pub(super) struct Book {
    pub name: String,
    pub year: u32,
    pub author: usize,
    pub publisher: usize,
    pub genre: &'static str,
}

/// A ship.
pub(super) struct Ship {
    pub name: String,
    pub year: u32,
    pub yard: usize,
    pub kind: &'static str,
}

/// A film.
pub(super) struct Film {
    pub name: String,
    pub year: u32,
    pub director: usize,
    pub town: usize,
}

/// A medal and its first two winners (person, year).
pub(super) struct Medal {
    pub name: String,
    pub society: usize,
    pub winners: [(usize, u32); 2],
    pub reason: &'static str,
}

/// Everything in the world.
pub(super) struct Cast {
    pub countries: Vec<Country>,
    pub towns: Vec<Town>,
    pub people: Vec<Person>,
    pub orgs: Vec<Org>,
    pub books: Vec<Book>,
    pub ships: Vec<Ship>,
    pub films: Vec<Film>,
    pub medals: Vec<Medal>,
}

const TRADES: &[&str] = &[
    "repaired fishing boats",
    "kept a general store",
    "taught at the village school",
    "ran a sawmill",
    "worked as a ferryman",
    "kept the lighthouse",
    "was a parish clerk",
];
const DIRECTOR_ROLES: &[&str] = &[
    "physicist",
    "chemist",
    "oceanographer",
    "geologist",
    "botanist",
];
const AUTHOR_ROLES: &[&str] = &["novelist", "poet", "writer", "essayist"];
const WINNER_ROLES: &[&str] = &["explorer", "botanist", "surveyor", "astronomer"];
const GENRES: &[&str] = &[
    "novel",
    "memoir",
    "collection of poems",
    "history",
    "travel book",
];
const SHIP_KINDS: &[&str] = &[
    "cargo steamer",
    "ferry",
    "trawler",
    "schooner",
    "coastal liner",
    "research vessel",
];
const MEDAL_REASONS: &[&str] = &[
    "work in the field",
    "a lifetime of surveys",
    "services to science",
    "an outstanding expedition",
];
const RELATIONS: &[&str] = &["cousin", "nephew", "brother", "successor"];

/// Builds a [`Cast`]: the namer and generator shared by every step.
struct Builder<'r> {
    rng: &'r mut Rng,
    namer: Namer,
    towns: Vec<Town>,
    people: Vec<Person>,
}

fn named<T>(v: Option<T>, what: &'static str) -> Result<T, WorldError> {
    v.ok_or(WorldError::NamesUsedUp(what))
}

impl Builder<'_> {
    /// A new person with a fresh surname, or `surname` when given; a man
    /// when `he` says so, else drawn (three in five are men).
    fn person(
        &mut self,
        surname: Option<&str>,
        born: u32,
        town: usize,
        role: &'static str,
        deed: Option<Deed>,
        he: Option<bool>,
    ) -> Result<usize, WorldError> {
        let he = he.unwrap_or_else(|| self.rng.chance(60));
        let surname = match surname {
            Some(s) => s.to_owned(),
            None => named(self.namer.surname(self.rng), "surname")?,
        };
        let name = named(self.namer.person(self.rng, he, &surname), "person")?;
        let life = self.rng.range(58, 93);
        let died = Some(born + life).filter(|d| *d < NOW);
        let died_in = self.other_town(&[town]);
        let trade = self.rng.pick(TRADES);
        self.people.push(Person {
            name,
            he,
            born,
            died,
            town,
            died_in,
            role,
            trade,
            deed,
        });
        Ok(self.people.len() - 1)
    }

    /// A town not among `not`.
    fn other_town(&mut self, not: &[usize]) -> usize {
        let n = self.towns.len();
        let start = self.rng.below(n);
        (0..n)
            .map(|k| (start + k) % n)
            .find(|t| !not.contains(t))
            .unwrap_or(start)
    }

    /// Two people in turn (an institute's two directors, a medal's two
    /// winners), each `age` years old (drawn from the range) in the year
    /// given with their deed; the second from another town and, half the
    /// time, of the first's surname.
    fn two_in_turn(
        &mut self,
        roles: &[&'static str],
        (young, old): (u32, u32),
        (year1, deed1): (u32, Deed),
        (year2, deed2): (u32, Deed),
    ) -> Result<(usize, usize), WorldError> {
        let t1 = self.other_town(&[]);
        let role = self.rng.pick(roles);
        let born = year1.saturating_sub(self.rng.range(young, old));
        let p1 = self.person(None, born, t1, role, Some(deed1), None)?;
        let same = self.rng.chance(50).then(|| self.surname_of(p1));
        let t2 = self.other_town(&[t1]);
        let role = self.rng.pick(roles);
        let born = year2.saturating_sub(self.rng.range(young, old));
        let p2 = self.person(same.as_deref(), born, t2, role, Some(deed2), None)?;
        Ok((p1, p2))
    }

    /// Up to `n` things `make` makes, the `i`-th by the `i`-th of `owners`
    /// taken in turn (a book by its publisher, a ship by its yard) in a year
    /// drawn from `after` to `span` years after the owner's founding (at
    /// most `last`); none when there is no owner.
    fn in_turn<T>(
        &mut self,
        orgs: &[Org],
        owners: &[usize],
        n: usize,
        (after, span, last): (u32, u32, u32),
        mut make: impl FnMut(&mut Self, usize, usize, u32) -> Result<T, WorldError>,
    ) -> Result<Vec<T>, WorldError> {
        let mut made = Vec::new();
        for i in 0..n {
            let Some(owner) = owners.get(i % owners.len().max(1)).copied() else {
                break;
            };
            let since = orgs.get(owner).map_or(1900, |o| o.founded);
            let year = self.rng.range(since + after, (since + span).min(last));
            made.push(make(self, i, owner, year)?);
        }
        Ok(made)
    }

    /// The surname of person `p`.
    fn surname_of(&self, p: usize) -> String {
        self.people
            .get(p)
            .and_then(|x| x.name.split_once(' '))
            .map(|(_, s)| s.to_owned())
            .unwrap_or_default()
    }
}

impl Cast {
    /// The cast of one world.
    pub(super) fn new(rng: &mut Rng) -> Result<Self, WorldError> {
        let mut namer = Namer::new();
        let mut countries = Vec::new();
        for _ in 0..COUNTRIES {
            let name = named(namer.country(rng), "country")?;
            let river = rng.pick(names::RIVERS);
            countries.push(Country {
                name,
                capital: 0,
                river,
            });
        }
        let mut towns = Vec::new();
        let mut stems = Vec::new();
        for i in 0..TOWNS {
            let (name, head, tail) = named(namer.town(rng), "town")?;
            stems.push((head, tail));
            let size = rng.pick(&["town", "town", "village", "city"]);
            towns.push(Town {
                name,
                country: i % COUNTRIES,
                twin: None,
                river: rng.pick(names::RIVERS),
                size,
            });
        }
        for (c, country) in countries.iter_mut().enumerate() {
            country.capital = towns.iter().position(|t| t.country == c).unwrap_or(0);
            if let Some(t) = towns.get_mut(country.capital) {
                t.size = "city";
            }
        }
        for (i, (head, tail)) in stems.iter().enumerate().take(TWINS) {
            let Some(name) = namer.twin(head, tail) else {
                continue;
            };
            let country = rng.below(COUNTRIES);
            let twin = towns.len();
            towns.push(Town {
                name,
                country,
                twin: Some(i),
                river: rng.pick(names::RIVERS),
                size: "village",
            });
            if let Some(t) = towns.get_mut(i) {
                t.twin = Some(twin);
            }
        }
        let mut b = Builder {
            rng,
            namer,
            towns,
            people: Vec::new(),
        };

        // Organisations, with distinct founding years.
        let mut kinds: Vec<OrgKind> = ORGS
            .iter()
            .flat_map(|(k, n)| std::iter::repeat_n(*k, *n))
            .collect();
        b.rng.shuffle(&mut kinds);
        let mut years: Vec<u32> = Vec::new();
        while years.len() < kinds.len() {
            let y = b.rng.range(1840, 1976);
            if !years.contains(&y) {
                years.push(y);
            }
        }
        // The towns drawn first are the ones with a twin.
        let twinned: Vec<usize> = (0..TWINS)
            .filter(|t| b.towns.get(*t).is_some_and(|t| t.twin.is_some()))
            .collect();
        let mut orgs = Vec::new();
        for (i, (kind, founded)) in kinds.iter().zip(&years).enumerate() {
            let (kind, founded) = (*kind, *founded);
            // Founders are born in a town with a twin; the relative in the twin.
            let home = match twinned.get(i) {
                Some(t) => *t,
                None => b.other_town(&[]),
            };
            let kin_home = match b.towns.get(home).and_then(|t| t.twin) {
                Some(t) => t,
                None => b.other_town(&[home]),
            };
            let role = b.rng.pick(kind.founder_roles());
            let born = founded - b.rng.range(24, 46);
            let o = orgs.len();
            let founder = b.person(None, born, home, role, Some(Deed::Founded(o)), None)?;
            let surname = b.surname_of(founder);
            let kin_born = born - 8 + b.rng.range(0, 20);
            let relation = b.rng.pick(RELATIONS);
            // A nephew or a brother is a man; a cousin or a successor either.
            let he = matches!(relation, "nephew" | "brother") || b.rng.chance(50);
            let relative = b.person(Some(&surname), kin_born, kin_home, role, None, Some(he))?;
            let town = b.other_town(&[]);
            let town_name = b
                .towns
                .get(town)
                .map(|t| t.name.clone())
                .unwrap_or_default();
            let name = match kind {
                // Named after the town when no other yard there is, else
                // after the founder (whose surname is the founder's own).
                OrgKind::Shipyard => {
                    let by_town = format!("{town_name} Shipbuilding Company");
                    let by_founder = format!("{surname} Shipyard");
                    if !b.rng.chance(50) && b.namer.claim(&by_town) {
                        Some(by_town)
                    } else {
                        b.namer.claim(&by_founder).then_some(by_founder)
                    }
                }
                OrgKind::Publisher => b.namer.press(b.rng),
                OrgKind::Institute if b.rng.chance(50) => {
                    let n = format!("{surname} Institute");
                    b.namer.claim(&n).then_some(n)
                }
                OrgKind::Institute => b.namer.other(b.rng, |rng| {
                    format!("{town_name} Institute of {}", rng.pick(names::FIELDS))
                }),
                OrgKind::Laboratory => b.namer.other(b.rng, |rng| {
                    format!("{town_name} {} Laboratory", rng.pick(names::FIELDS))
                }),
                OrgKind::Society => {
                    let country = b
                        .towns
                        .get(town)
                        .and_then(|t| countries.get(t.country))
                        .map(|c| c.name.clone())
                        .unwrap_or_default();
                    b.namer.society(b.rng, &country)
                }
            };
            let name = named(name, "organisation")?;
            let mut directors = Vec::new();
            if matches!(kind, OrgKind::Institute | OrgKind::Laboratory) {
                let start = founded + b.rng.range(0, 4);
                let handover = start + b.rng.range(12, 30);
                let end = (handover + b.rng.range(10, 25)).min(NOW);
                let (d1, d2) = b.two_in_turn(
                    DIRECTOR_ROLES,
                    (30, 46),
                    (start, Deed::Directed(o, 1, start, handover)),
                    (handover, Deed::Directed(o, 2, handover, end)),
                )?;
                directors = vec![d1, d2];
            }
            orgs.push(Org {
                name,
                kind,
                town,
                founded,
                founder,
                relative,
                relation,
                directors,
            });
        }

        let of_kind = |orgs: &[Org], k: OrgKind| -> Vec<usize> {
            (0..orgs.len())
                .filter(|i| orgs.get(*i).is_some_and(|o| o.kind == k))
                .collect()
        };
        let publishers = of_kind(&orgs, OrgKind::Publisher);
        let yards = of_kind(&orgs, OrgKind::Shipyard);
        let societies = of_kind(&orgs, OrgKind::Society);

        let books = b.in_turn(
            &orgs,
            &publishers,
            BOOKS,
            (2, 70, NOW - 2),
            |b, i, p, year| {
                let name = named(b.namer.book(b.rng), "book")?;
                let town = b.other_town(&[]);
                let role = b.rng.pick(AUTHOR_ROLES);
                let born = year.saturating_sub(b.rng.range(28, 56));
                let author = b.person(None, born, town, role, Some(Deed::Wrote(i)), None)?;
                let genre = b.rng.pick(GENRES);
                Ok(Book {
                    name,
                    year,
                    author,
                    publisher: p,
                    genre,
                })
            },
        )?;
        let ships = b.in_turn(&orgs, &yards, SHIPS, (1, 80, NOW - 5), |b, _, y, year| {
            let name = named(b.namer.ship(b.rng), "ship")?;
            let kind = b.rng.pick(SHIP_KINDS);
            Ok(Ship {
                name,
                year,
                yard: y,
                kind,
            })
        })?;
        let mut films = Vec::new();
        for _ in 0..FILMS {
            let year = b.rng.range(1935, 2013);
            let name = named(b.namer.film(b.rng), "film")?;
            let home = b.other_town(&[]);
            let born = year - b.rng.range(28, 51);
            let director = b.person(
                None,
                born,
                home,
                "film director",
                Some(Deed::MadeFilm(films.len())),
                None,
            )?;
            let town = b.other_town(&[home]);
            films.push(Film {
                name,
                year,
                director,
                town,
            });
        }
        let mut medals = Vec::new();
        for s in societies {
            let since = orgs.get(s).map_or(1900, |o| o.founded);
            let name = named(
                b.namer.surname(b.rng).map(|n| format!("{n} Medal")),
                "medal",
            )?;
            let m = medals.len();
            let y1 = (since + b.rng.range(5, 30)).min(NOW - 12);
            let y2 = (y1 + b.rng.range(10, 40)).min(NOW);
            let (w1, w2) = b.two_in_turn(
                WINNER_ROLES,
                (35, 61),
                (y1, Deed::Won(m, y1)),
                (y2, Deed::Won(m, y2)),
            )?;
            let reason = b.rng.pick(MEDAL_REASONS);
            medals.push(Medal {
                name,
                society: s,
                winners: [(w1, y1), (w2, y2)],
                reason,
            });
        }
        Ok(Self {
            countries,
            towns: b.towns,
            people: b.people,
            orgs,
            books,
            ships,
            films,
            medals,
        })
    }

    /// The name of town `t`.
    pub(super) fn town(&self, t: usize) -> &str {
        self.towns.get(t).map_or("", |t| t.name.as_str())
    }

    /// The name of person `p`.
    pub(super) fn person(&self, p: usize) -> &str {
        self.people.get(p).map_or("", |p| p.name.as_str())
    }

    /// The name of organisation `o`.
    pub(super) fn org(&self, o: usize) -> &str {
        self.orgs.get(o).map_or("", |o| o.name.as_str())
    }

    /// The name of the country town `t` is in.
    pub(super) fn country_of(&self, t: usize) -> &str {
        self.towns
            .get(t)
            .and_then(|t| self.countries.get(t.country))
            .map_or("", |c| c.name.as_str())
    }
}

/// The article file of an entity titled `title`.
pub(super) fn file_of(title: &str) -> String {
    format!("{}/{}", super::ARTICLES_DIR, names::slug(title))
}
