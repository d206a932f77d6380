//! What makes a world usable: unique names and files, every fact's sentence
//! in its article, and every question's answer unambiguous given the corpus.

use std::collections::{BTreeMap, BTreeSet};

use super::questions::Facts;
use super::{Kind, Question, Rule, World};

/// Everything wrong with `world` and its questions, one problem an entry
/// (empty: the world is sound).
pub fn check(world: &World) -> Vec<String> {
    let mut problems = world_problems(world);
    let facts = Facts::new(&world.facts);
    let texts = texts(world);
    for q in &world.questions {
        problems.extend(
            question_problems(q, &facts, &texts)
                .into_iter()
                .map(|p| format!("{}: {p}", q.gold.id)),
        );
    }
    let ids: BTreeSet<&str> = world.questions.iter().map(|q| q.gold.id.as_str()).collect();
    if ids.len() != world.questions.len() {
        problems.push("two questions share an id".into());
    }
    problems
}

fn texts(world: &World) -> BTreeMap<&str, &str> {
    world
        .articles
        .iter()
        .map(|a| (a.file.as_str(), a.text.as_str()))
        .collect()
}

/// Problems of the articles and facts: repeated files or titles, a fact
/// whose sentence is not in its article.
pub(super) fn world_problems(world: &World) -> Vec<String> {
    let mut problems = Vec::new();
    let mut files = BTreeSet::new();
    let mut titles = BTreeSet::new();
    for a in &world.articles {
        if !files.insert(a.file.as_str()) {
            problems.push(format!("two articles are written to {}", a.file));
        }
        if !titles.insert(a.title.as_str()) {
            problems.push(format!("two articles are titled {}", a.title));
        }
        if !a.text.starts_with(&format!("# {}\n", a.title)) {
            problems.push(format!("{} does not open with its title", a.file));
        }
    }
    let texts = texts(world);
    let titles: BTreeMap<&str, &str> = world
        .articles
        .iter()
        .map(|a| (a.file.as_str(), a.title.as_str()))
        .collect();
    for f in &world.facts {
        if !texts
            .get(f.file.as_str())
            .is_some_and(|t| t.contains(&f.sentence))
        {
            problems.push(format!("{:?} is not in {}", f.sentence, f.file));
        }
        // A sentence names its object, unless the object is the article's
        // own subject ("worked beside him").
        let own = titles.get(f.file.as_str()) == Some(&f.object.as_str());
        if !own && !f.sentence.contains(&f.object) {
            problems.push(format!("{:?} does not name {}", f.sentence, f.object));
        }
    }
    problems
}

/// Hops a question of each kind has.
fn hops(kind: Kind) -> usize {
    match kind {
        Kind::TwoHop | Kind::Date | Kind::Comparison => 2,
        Kind::ThreeHop | Kind::Count => 3,
    }
}

/// The years of a chain's objects, if every object is one.
fn years(q: &Question) -> Option<Vec<u32>> {
    q.chain.iter().map(|f| f.object.parse().ok()).collect()
}

/// Why `q`'s answer is not the one its chain gives, or not the only one the
/// corpus gives (empty: it is).
pub(super) fn question_problems(
    q: &Question,
    facts: &Facts<'_>,
    texts: &BTreeMap<&str, &str>,
) -> Vec<String> {
    let mut problems = Vec::new();
    if q.chain.len() != hops(q.kind) {
        problems.push(format!(
            "{} hops for a {} question",
            q.chain.len(),
            q.kind.name()
        ));
    }
    for f in &q.chain {
        if !texts
            .get(f.file.as_str())
            .is_some_and(|t| t.contains(&f.sentence))
        {
            problems.push(format!("{:?} is not in {}", f.sentence, f.file));
        }
        // One subject and predicate give one object, wherever it is said.
        let objects: BTreeSet<&str> = facts
            .all(&f.subject, f.predicate)
            .iter()
            .map(|g| g.object.as_str())
            .collect();
        if objects.len() != 1 || !objects.contains(f.object.as_str()) {
            problems.push(format!(
                "{} {:?} has the values {objects:?}",
                f.subject, f.predicate
            ));
        }
    }
    match &q.rule {
        Rule::Last => {
            for pair in q.chain.windows(2) {
                if let [a, b] = pair
                    && a.object != b.subject
                {
                    problems.push(format!(
                        "the chain breaks between {} and {}",
                        a.object, b.subject
                    ));
                }
            }
            let Some(last) = q.chain.last() else {
                return problems;
            };
            if last.object != q.gold.answer {
                problems.push(format!(
                    "the chain ends at {}, not {}",
                    last.object, q.gold.answer
                ));
            }
            if q.kind == Kind::Date && q.gold.answer.parse::<u32>().is_err() {
                problems.push(format!("a date question answered {}", q.gold.answer));
            }
            // The confusions beside the chain give other values: another
            // subject's fact of the last hop's predicate in a chain file.
            let files: BTreeSet<&str> = q.chain.iter().map(|f| f.file.as_str()).collect();
            for f in &files {
                for g in facts_in(facts, f, last.predicate) {
                    if g.subject != last.subject && g.object == q.gold.answer {
                        problems.push(format!(
                            "{} also has {:?} {} in {f}",
                            g.subject, last.predicate, q.gold.answer
                        ));
                    }
                }
            }
        }
        Rule::Earliest => match years(q).as_deref() {
            Some([a, b]) if a != b => {
                let first = if a < b {
                    q.chain.first()
                } else {
                    q.chain.get(1)
                };
                if first.map(|f| f.subject.as_str()) != Some(q.gold.answer.as_str()) {
                    problems.push(format!("the earlier is not {}", q.gold.answer));
                }
            }
            _ => problems.push("the compared years are not two different years".into()),
        },
        Rule::CountBefore(y) => match years(q) {
            Some(ys) if !ys.contains(y) => {
                let n = ys.iter().filter(|v| *v < y).count();
                if q.gold.answer != n.to_string() {
                    problems.push(format!("{n} are before {y}, not {}", q.gold.answer));
                }
            }
            _ => problems.push(format!("a year of the chain is {y} or not a year")),
        },
        Rule::CountObject(o) => {
            let n = q.chain.iter().filter(|f| &f.object == o).count();
            if q.gold.answer != n.to_string() {
                problems.push(format!("{n} have {o}, not {}", q.gold.answer));
            }
        }
    }
    if matches!(
        q.rule,
        Rule::Earliest | Rule::CountBefore(_) | Rule::CountObject(_)
    ) {
        let subjects: BTreeSet<&str> = q.chain.iter().map(|f| f.subject.as_str()).collect();
        if subjects.len() != q.chain.len() {
            problems.push("an item is named twice".into());
        }
    }
    problems
}

/// The facts stated in `file` with `predicate`.
fn facts_in<'w, 'f>(
    facts: &Facts<'w>,
    file: &'f str,
    predicate: super::Predicate,
) -> impl Iterator<Item = &'w super::Fact> + use<'w, 'f> {
    facts.with(predicate).filter(move |f| f.file == file)
}
