//! The articles: one per person with a deed, organisation, book, ship,
//! film, medal, town and country, each sentence recorded with the facts it
//! states.

use super::cast::{Cast, Deed, OrgKind, file_of};
use super::{Article, Fact, Predicate};
use crate::rng::Rng;

use Predicate as P;

/// An article being written.
struct Page {
    title: String,
    file: String,
    paragraphs: Vec<Vec<String>>,
    facts: Vec<Fact>,
}

impl Page {
    fn new(title: &str) -> Self {
        Self {
            title: title.to_owned(),
            file: file_of(title),
            paragraphs: vec![Vec::new()],
            facts: Vec::new(),
        }
    }

    /// Add `sentence`, which states `facts` (subject, predicate, object).
    fn say(&mut self, sentence: String, facts: &[(&str, Predicate, &str)]) {
        for (subject, predicate, object) in facts {
            self.facts.push(Fact {
                subject: (*subject).to_owned(),
                predicate: *predicate,
                object: (*object).to_owned(),
                file: self.file.clone(),
                sentence: sentence.clone(),
            });
        }
        if let Some(p) = self.paragraphs.last_mut() {
            p.push(sentence);
        }
    }

    /// Start a new paragraph.
    fn paragraph(&mut self) {
        self.paragraphs.push(Vec::new());
    }

    fn finish(self, out: &mut (Vec<Article>, Vec<Fact>)) {
        let mut text = format!("# {}\n", self.title);
        for p in self.paragraphs.iter().filter(|p| !p.is_empty()) {
            text.push('\n');
            text.push_str(&p.join(" "));
            text.push('\n');
        }
        out.0.push(Article {
            file: self.file,
            title: self.title,
            text,
        });
        out.1.extend(self.facts);
    }
}

/// Pronouns of a person.
struct Pro {
    he: &'static str,
    his: &'static str,
    him: &'static str,
}

fn pro(he: bool) -> Pro {
    if he {
        Pro {
            he: "he",
            his: "his",
            him: "him",
        }
    } else {
        Pro {
            he: "she",
            his: "her",
            him: "her",
        }
    }
}

/// `s` with its first letter in upper case.
fn cap(s: &str) -> String {
    let mut c = s.chars();
    c.next()
        .map(|f| f.to_uppercase().chain(c).collect())
        .unwrap_or_default()
}

/// "a" or "an" before `word`.
fn a(word: &str) -> String {
    let an = word
        .chars()
        .next()
        .is_some_and(|c| "aeiouAEIOU".contains(c));
    format!("{} {word}", if an { "an" } else { "a" })
}

/// What writes the article of one member of a kind (its index) and its facts.
type Writer = fn(&Cast, usize, &mut Rng, &mut (Vec<Article>, Vec<Fact>));

/// Every article of `cast` and the facts they state, in file order.
pub(super) fn articles(cast: &Cast, rng: &mut Rng) -> (Vec<Article>, Vec<Fact>) {
    let mut out = (Vec::new(), Vec::new());
    // Each kind's writer over its members, in this order (the draws of the
    // random stream follow it).
    let writers: [(usize, Writer); 7] = [
        (cast.people.len(), person),
        (cast.orgs.len(), org),
        (cast.books.len(), book),
        (cast.ships.len(), ship),
        (cast.films.len(), film),
        (cast.medals.len(), medal),
        (cast.towns.len(), town),
    ];
    for (n, write) in writers {
        for i in 0..n {
            write(cast, i, rng, &mut out);
        }
    }
    for c in 0..cast.countries.len() {
        country(cast, c, &mut out);
    }
    out.0.sort_by(|x, y| x.file.cmp(&y.file));
    out
}

fn person(cast: &Cast, i: usize, rng: &mut Rng, out: &mut (Vec<Article>, Vec<Fact>)) {
    let Some(p) = cast.people.get(i) else { return };
    let Some(deed) = p.deed else { return };
    let n = p.name.as_str();
    let x = pro(p.he);
    let town = cast.town(p.town);
    let born = p.born.to_string();
    let mut page = Page::new(n);
    let life = match p.died {
        Some(d) => format!("{}–{d}", p.born),
        None => format!("born {}", p.born),
    };
    let was = if p.died.is_some() { "was" } else { "is" };
    match rng.below(3) {
        0 => {
            page.say(
                format!("{n} ({life}) {was} {}.", a(p.role)),
                &[(n, P::BirthYear, born.as_str())],
            );
            page.say(
                format!(
                    "{} was born in {town}, where {} father {}.",
                    cap(x.he),
                    x.his,
                    p.trade
                ),
                &[(n, P::BornIn, town)],
            );
        }
        1 => page.say(
            format!("{n} {was} {} born in {town} in {born}.", a(p.role)),
            &[(n, P::BornIn, town), (n, P::BirthYear, born.as_str())],
        ),
        _ => page.say(
            format!("Born in {town} in {born}, {n} worked as {}.", a(p.role)),
            &[(n, P::BornIn, town), (n, P::BirthYear, born.as_str())],
        ),
    }
    match deed {
        Deed::Founded(o) => founder(cast, o, &x, rng, &mut page),
        Deed::Directed(o, nth, from, to) => {
            let org = cast.orgs.get(o);
            let name = org.map(|o| o.the_name()).unwrap_or_default();
            let ord = if nth == 1 { "first" } else { "second" };
            page.say(
                format!(
                    "In {from} {} became the {ord} director of {name}, which {} led until {to}.",
                    x.he, x.he
                ),
                &[(n, P::Directed, cast.org(o))],
            );
        }
        Deed::Wrote(b) => {
            let Some(book) = cast.books.get(b) else {
                return;
            };
            let s = if rng.chance(50) {
                format!(
                    "{} wrote {}, which appeared in {}.",
                    cap(x.he),
                    book.name,
                    book.year
                )
            } else {
                format!(
                    "{} best-known book, {}, appeared in {}.",
                    cap(x.his),
                    book.name,
                    book.year
                )
            };
            page.say(s, &[(n, P::AuthorOf, book.name.as_str())]);
        }
        Deed::MadeFilm(f) => {
            let Some(film) = cast.films.get(f) else {
                return;
            };
            page.say(
                format!(
                    "{} directed the film {}, released in {}.",
                    cap(x.he),
                    film.name,
                    film.year
                ),
                &[(n, P::DirectorOf, film.name.as_str())],
            );
        }
        Deed::Won(m, year) => {
            let Some(medal) = cast.medals.get(m) else {
                return;
            };
            page.say(
                format!("{} received the {} in {year}.", cap(x.he), medal.name),
                &[(n, P::Won, medal.name.as_str())],
            );
        }
    }
    if let Some(d) = p.died {
        let place = cast.town(p.died_in);
        page.say(
            format!("{} died in {place} in {d}.", cap(x.he)),
            &[(n, P::DiedIn, place)],
        );
    }
    page.finish(out);
}

/// The founder's deed and the relative beside him, each with a birthplace.
fn founder(cast: &Cast, o: usize, x: &Pro, rng: &mut Rng, page: &mut Page) {
    let Some(org) = cast.orgs.get(o) else { return };
    let n = cast.person(org.founder);
    let r = cast.person(org.relative);
    let r_town = cast.town(cast.people.get(org.relative).map_or(0, |p| p.town));
    let where_ = cast.town(org.town);
    let founded = if rng.chance(50) {
        format!(
            "In {} {} founded {} in {where_}.",
            org.founded,
            x.he,
            org.the_name()
        )
    } else {
        format!(
            "{} founded {} in {}.",
            cap(x.he),
            org.the_name(),
            org.founded
        )
    };
    page.say(founded, &[(n, P::Founded, org.name.as_str())]);
    let (sentence, pred) = match org.relation {
        "nephew" => (
            format!(
                "{} nephew {r} was born in {r_town} and later ran {}.",
                cap(x.his),
                org.kind.back()
            ),
            P::RelativeOf,
        ),
        "brother" => (
            format!(
                "{} younger brother {r}, who was born in {r_town} after the family moved, joined {} in {}.",
                cap(x.his),
                org.kind.back(),
                org.founded + 3
            ),
            P::RelativeOf,
        ),
        "successor" => (
            format!(
                "{} was succeeded at the head of {} by {} cousin {r}, who was born in {r_town}.",
                cap(x.he),
                org.kind.back(),
                x.his
            ),
            P::Succeeded,
        ),
        _ => (
            format!(
                "{} cousin {r}, who was born in {r_town}, worked beside {} for many years.",
                cap(x.his),
                x.him
            ),
            P::RelativeOf,
        ),
    };
    page.say(sentence, &[(r, P::BornIn, r_town), (r, pred, n)]);
}

fn org(cast: &Cast, o: usize, rng: &mut Rng, out: &mut (Vec<Article>, Vec<Fact>)) {
    let Some(org) = cast.orgs.get(o) else { return };
    let n = org.name.as_str();
    let the = cap(&org.the_name());
    let town = cast.town(org.town);
    let founder = cast.person(org.founder);
    let role = cast.people.get(org.founder).map_or("", |p| p.role);
    let year = org.founded.to_string();
    let back = org.kind.back();
    let mut page = Page::new(n);
    if rng.chance(50) {
        page.say(
            format!("{the} is {} in {town}.", a(org.kind.noun())),
            &[(n, P::LocatedIn, town)],
        );
    } else {
        page.say(
            format!(
                "{the} is {} based in {town}, {}.",
                a(org.kind.noun()),
                cast.country_of(org.town)
            ),
            &[(n, P::LocatedIn, town)],
        );
    }
    match rng.below(3) {
        0 => page.say(
            format!("It was founded in {year} by the {role} {founder}."),
            &[
                (n, P::FoundedBy, founder),
                (n, P::FoundingYear, year.as_str()),
            ],
        ),
        1 => {
            page.say(
                format!("{} was established in {year}.", cap(back)),
                &[(n, P::FoundingYear, year.as_str())],
            );
            page.say(
                format!("Its founder was {founder}, {}.", a(role)),
                &[(n, P::FoundedBy, founder)],
            );
        }
        _ => page.say(
            format!("{founder}, {}, founded {back} in {year}.", a(role)),
            &[
                (n, P::FoundedBy, founder),
                (n, P::FoundingYear, year.as_str()),
            ],
        ),
    }
    page.paragraph();
    match org.kind {
        OrgKind::Shipyard => {
            let river = cast.towns.get(org.town).map_or("", |t| t.river);
            page.say(
                format!(
                    "{} moved to larger docks on the {river} in {}.",
                    cap(back),
                    org.founded + rng.range(8, 40)
                ),
                &[],
            );
            if let Some(s) = cast.ships.iter().find(|s| s.yard == o) {
                page.say(
                    format!(
                        "Among the ships it built was the {}, launched in {}.",
                        s.name, s.year
                    ),
                    &[(s.name.as_str(), P::BuiltBy, n)],
                );
            }
        }
        OrgKind::Publisher => {
            if let Some(b) = cast.books.iter().find(|b| b.publisher == o) {
                let author = cast.person(b.author);
                page.say(
                    format!("Its list has included {} by {author}.", b.name),
                    &[(b.name.as_str(), P::PublishedBy, n)],
                );
            }
            page.say(
                format!(
                    "{} opened a second office in {} in {}.",
                    cap(back),
                    cast.town((org.town + 3) % cast.towns.len().max(1)),
                    org.founded + rng.range(10, 50)
                ),
                &[],
            );
        }
        OrgKind::Institute | OrgKind::Laboratory => {
            if let [d1, d2] = org.directors.as_slice() {
                let (d1, d2) = (*d1, *d2);
                let first = cast.people.get(d1);
                let until = first.and_then(|p| match p.deed {
                    Some(Deed::Directed(_, _, _, to)) => Some(to),
                    _ => None,
                });
                let second_until = cast.people.get(d2).and_then(|p| match p.deed {
                    Some(Deed::Directed(_, _, _, to)) => Some(to),
                    _ => None,
                });
                let (n1, n2) = (cast.person(d1), cast.person(d2));
                page.say(
                    format!(
                        "Its first director was {n1}, who led it until {}.",
                        until.unwrap_or(org.founded)
                    ),
                    &[(n, P::FirstDirector, n1)],
                );
                let he1 = pro(first.is_none_or(|p| p.he)).he;
                page.say(
                    format!(
                        "{} was succeeded by {n2}, who directed {back} until {}.",
                        cap(he1),
                        second_until.unwrap_or(org.founded)
                    ),
                    &[(n, P::SecondDirector, n2)],
                );
            }
        }
        OrgKind::Society => {
            if let Some(m) = cast.medals.iter().find(|m| m.society == o) {
                page.say(
                    format!("It awards the {}.", m.name),
                    &[(m.name.as_str(), P::AwardedBy, n)],
                );
            }
        }
    }
    page.finish(out);
}

fn book(cast: &Cast, b: usize, rng: &mut Rng, out: &mut (Vec<Article>, Vec<Fact>)) {
    let Some(bk) = cast.books.get(b) else { return };
    let n = bk.name.as_str();
    let author = cast.person(bk.author);
    let publisher = cast.org(bk.publisher);
    let year = bk.year.to_string();
    let mut page = Page::new(n);
    match rng.below(3) {
        0 => {
            page.say(
                format!("{n} is a {year} {} by {author}.", bk.genre),
                &[
                    (n, P::WrittenBy, author),
                    (n, P::PublicationYear, year.as_str()),
                ],
            );
            page.say(
                format!("It was published by {publisher}."),
                &[(n, P::PublishedBy, publisher)],
            );
        }
        1 => page.say(
            format!(
                "{n} is {} written by {author} and published by {publisher} in {year}.",
                a(bk.genre)
            ),
            &[
                (n, P::WrittenBy, author),
                (n, P::PublishedBy, publisher),
                (n, P::PublicationYear, year.as_str()),
            ],
        ),
        _ => {
            page.say(
                format!("{n} is {} by {author}.", a(bk.genre)),
                &[(n, P::WrittenBy, author)],
            );
            page.say(
                format!("The book was published in {year} by {publisher}."),
                &[
                    (n, P::PublicationYear, year.as_str()),
                    (n, P::PublishedBy, publisher),
                ],
            );
        }
    }
    let setting = cast.town(rng.below(cast.towns.len()));
    page.say(
        format!(
            "It follows {} family in {setting} over three generations.",
            a(rng.pick(&["fishing", "farming", "merchant", "seafaring"]))
        ),
        &[],
    );
    page.say(
        format!(
            "A second edition appeared in {}.",
            bk.year + rng.range(3, 25)
        ),
        &[],
    );
    page.finish(out);
}

fn ship(cast: &Cast, s: usize, rng: &mut Rng, out: &mut (Vec<Article>, Vec<Fact>)) {
    let Some(sh) = cast.ships.get(s) else { return };
    let n = sh.name.as_str();
    let yard = cast.org(sh.yard);
    let year = sh.year.to_string();
    let port = cast.town(rng.below(cast.towns.len()));
    let mut page = Page::new(n);
    page.say(
        format!("The {n} was {} launched in {year}.", a(sh.kind)),
        &[(n, P::LaunchYear, year.as_str())],
    );
    if rng.chance(50) {
        page.say(
            format!("She was built by {yard} for a company in {port}."),
            &[(n, P::BuiltBy, yard)],
        );
    } else {
        page.say(
            format!("Built by {yard}, the ship served the route to {port}."),
            &[(n, P::BuiltBy, yard)],
        );
    }
    page.say(
        format!("She was sold for scrap in {}.", sh.year + rng.range(20, 45)),
        &[],
    );
    page.finish(out);
}

fn film(cast: &Cast, f: usize, rng: &mut Rng, out: &mut (Vec<Article>, Vec<Fact>)) {
    let Some(fm) = cast.films.get(f) else { return };
    let n = fm.name.as_str();
    let director = cast.person(fm.director);
    let year = fm.year.to_string();
    let mut page = Page::new(n);
    page.say(
        format!("{n} is a {year} film directed by {director}."),
        &[
            (n, P::DirectedBy, director),
            (n, P::ReleaseYear, year.as_str()),
        ],
    );
    page.say(format!("It was shot in {}.", cast.town(fm.town)), &[]);
    page.say(
        format!(
            "The film won a prize at a festival in {} in {}.",
            cast.town(rng.below(cast.towns.len())),
            fm.year + 1
        ),
        &[],
    );
    page.finish(out);
}

fn medal(cast: &Cast, m: usize, rng: &mut Rng, out: &mut (Vec<Article>, Vec<Fact>)) {
    let Some(md) = cast.medals.get(m) else { return };
    let n = md.name.as_str();
    let society = cast.org(md.society);
    let [(w1, y1), (w2, y2)] = md.winners;
    let (n1, n2) = (cast.person(w1), cast.person(w2));
    let t2 = cast.town(cast.people.get(w2).map_or(0, |p| p.town));
    let mut page = Page::new(n);
    page.say(
        format!("The {n} is awarded by the {society} for {}.", md.reason),
        &[(n, P::AwardedBy, society)],
    );
    page.say(
        format!("It was first awarded in {y1} to {n1}."),
        &[(n, P::FirstAwardedTo, n1)],
    );
    if rng.chance(50) {
        page.say(
            format!("In {y2} it went to {n2}, who was born in {t2}."),
            &[(n, P::SecondAwardedTo, n2), (n2, P::BornIn, t2)],
        );
    } else {
        page.say(
            format!("The second winner, {n2}, who was born in {t2}, received it in {y2}."),
            &[(n, P::SecondAwardedTo, n2), (n2, P::BornIn, t2)],
        );
    }
    page.finish(out);
}

fn town(cast: &Cast, t: usize, rng: &mut Rng, out: &mut (Vec<Article>, Vec<Fact>)) {
    let Some(tw) = cast.towns.get(t) else { return };
    let n = tw.name.as_str();
    let country = cast.country_of(t);
    let mut page = Page::new(n);
    page.say(
        format!("{n} is {} in {country}.", a(tw.size)),
        &[(n, P::LocatedIn, country)],
    );
    page.say(format!("It lies on the {}.", tw.river), &[]);
    if let Some(twin) = tw.twin {
        page.say(
            format!("It is not to be confused with {}.", cast.town(twin)),
            &[],
        );
    }
    page.say(
        format!(
            "In {} it had {} inhabitants.",
            rng.range(1950, 2021),
            rng.range(300, 90_000)
        ),
        &[],
    );
    page.finish(out);
}

fn country(cast: &Cast, c: usize, out: &mut (Vec<Article>, Vec<Fact>)) {
    let Some(ct) = cast.countries.get(c) else {
        return;
    };
    let n = ct.name.as_str();
    let capital = cast.town(ct.capital);
    let mut page = Page::new(n);
    page.say(format!("{n} is a country on the northern sea."), &[]);
    page.say(
        format!("Its capital is {capital}."),
        &[(n, P::Capital, capital)],
    );
    page.say(format!("Its longest river is the {}.", ct.river), &[]);
    page.finish(out);
}
