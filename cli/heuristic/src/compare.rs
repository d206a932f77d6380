//! Evidence for comparison questions ("Are A and B both …?", "Which is older,
//! A or B?"): one sentence per compared item, read from the item's own
//! document where the corpus has one (its lead sentence says what it is), else
//! from a sentence naming it.

use std::collections::{BTreeMap, HashSet};

use rlmkg_corpus::{Corpus, EntityInfo};

use super::{Candidate, Evidence, Question, collect_sentences, hops::Hops, short, terms};

/// What a comparison of items asks about each of them.
pub struct Comparison<'a> {
    /// The question.
    pub question: &'a Question,
    /// The compared items (option texts or entity names), in question order.
    pub items: Vec<String>,
}

/// A name as compared: without a leading article or a leading "the forming of".
fn core_name(item: &str) -> String {
    let t = item.trim();
    let t = t
        .split_once(" of ")
        .filter(|(head, _)| head.chars().all(|c| c.is_lowercase() || c == ' '))
        .map_or(t, |(_, rest)| rest);
    let lower = t.to_lowercase();
    for a in ["the ", "a ", "an "] {
        if lower.starts_with(a) {
            return t.get(a.len()..).unwrap_or(t).trim().to_owned();
        }
    }
    t.to_owned()
}

/// Whether a document title is about `name` (equal up to case and a trailing
/// parenthetical, or one holding the other as a whole).
fn title_is(title: &str, name: &str) -> bool {
    let t = short::strip_parenthetical(title).to_lowercase();
    let n = name.to_lowercase();
    t == n || (n.len() > 3 && t.len() > 3 && (t.contains(&n) || n.contains(&t)))
}

impl Comparison<'_> {
    /// One or two sentences per item, each tagged with the item (`about`);
    /// `None` when fewer than two items have any.
    pub fn evidence<C: Corpus + ?Sized>(
        &self,
        store: &C,
    ) -> Result<Option<Vec<Evidence>>, C::Error> {
        let names: Vec<String> = self.items.iter().map(|i| core_name(i)).collect();
        let name_terms: HashSet<String> = names.iter().flat_map(|n| terms(n)).collect();
        let hops = Hops::of(self.question.words(), &name_terms);
        let compared = self.question.compared();
        let (dates, amounts) = (compared.by_date, compared.by_amount());
        let mut out: Vec<Evidence> = Vec::new();
        let mut found = 0;
        for (item, name) in self.items.iter().zip(&names) {
            let mut chunks: Vec<String> = store
                .search(name, 6)?
                .into_iter()
                .map(|h| h.id.to_string())
                .collect();
            if let Some(e) = store.entity(name)? {
                chunks.extend(
                    store
                        .chunks_of_entity(&e.id)?
                        .into_iter()
                        .take(50)
                        .map(|c| c.to_string()),
                );
            }
            chunks.dedup();
            let prior: BTreeMap<String, f64> = chunks.iter().map(|c| (c.clone(), 0.0)).collect();
            let cands = collect_sentences(store, &chunks, &prior)?;
            let lower = name.to_lowercase();
            let own: Vec<&Candidate> = cands
                .iter()
                .filter(|c| title_is(&c.ev.title, name))
                .collect();
            let pool: Vec<&Candidate> = if own.is_empty() {
                cands.iter().filter(|c| c.lower.contains(&lower)).collect()
            } else {
                own
            };
            let score = |c: &Candidate| {
                let lead = if c.lead { 1.0 } else { 0.0 };
                let dated = if dates && !short::dates(&c.ev.text).is_empty() {
                    1.5
                } else {
                    0.0
                };
                let counted = if amounts && !short::numbers(&c.ev.text).is_empty() {
                    1.0
                } else {
                    0.0
                };
                hops.relation_fit(&c.lower) + lead + dated + counted
            };
            let mut ranked: Vec<(f64, &Candidate)> = pool.iter().map(|c| (score(c), *c)).collect();
            ranked.sort_by(|a, b| b.0.total_cmp(&a.0));
            let Some((_, best)) = ranked.first() else {
                continue;
            };
            found += 1;
            let mut ev = best.ev.clone();
            ev.about = Some(item.clone());
            out.push(ev);
        }
        Ok((found >= 2).then_some(out))
    }
}

/// The items a question compares: a choice's options, or (for yes/no) the two
/// longest names of entities it names that are not dates, numbers or parts of a
/// longer name, in question order.
pub fn items(question: &Question, entities: &[EntityInfo]) -> Vec<String> {
    match question.answer_type() {
        short::AnswerType::Choice(opts) => opts.clone(),
        short::AnswerType::YesNo => {
            let q = question.lower();
            let names: Vec<&String> = entities
                .iter()
                .filter(|e| !matches!(e.kind.as_str(), "date" | "number"))
                .map(|e| &e.name)
                .filter(|n| q.contains(&n.to_lowercase()))
                .collect();
            let mut out: Vec<String> = Vec::new();
            for n in &names {
                let l = n.to_lowercase();
                let inside = names
                    .iter()
                    .any(|m| m.len() > n.len() && m.to_lowercase().contains(&l));
                if !inside && !out.iter().any(|o| o.to_lowercase() == l) {
                    out.push((*n).clone());
                }
            }
            out.sort_by_key(|n| std::cmp::Reverse(n.len()));
            out.truncate(2);
            out.sort_by_key(|n| q.find(&n.to_lowercase()).unwrap_or(usize::MAX));
            out
        }
        _ => Vec::new(),
    }
}
