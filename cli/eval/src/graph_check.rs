//! How much of what a corpus says the graph knows (issue 43): for every
//! passage whose text names another passage's title, is there an edge — and
//! a fact — between the two passages' subjects; and for MuSiQue questions,
//! is each hop of `question_decomposition` a fact of the graph.

use std::collections::HashSet;

use aho_corasick::{AhoCorasick, MatchKind};
use rlmkg_ingest::{Store, is_fact};
use serde::Serialize;
use serde_json::Value;

use crate::EvalError;

/// A passage of a corpus: its title and text.
#[derive(Debug, Clone)]
pub struct Passage {
    /// Title.
    pub title: String,
    /// Text.
    pub text: String,
}

/// Read a corpus file's passages: `[{title, text}]` (2WikiMultiHopQA,
/// MuSiQue) or `{title: [sentences]}` (HotpotQA).
pub fn passages(json: &Value) -> Vec<Passage> {
    match json {
        Value::Array(items) => items
            .iter()
            .filter_map(|v| {
                Some(Passage {
                    title: v.get("title")?.as_str()?.to_string(),
                    text: v.get("text")?.as_str()?.to_string(),
                })
            })
            .collect(),
        Value::Object(map) => map
            .iter()
            .map(|(title, v)| Passage {
                title: title.clone(),
                text: match v {
                    Value::Array(s) => s
                        .iter()
                        .filter_map(Value::as_str)
                        .collect::<Vec<_>>()
                        .join(""),
                    Value::String(s) => s.clone(),
                    _ => String::new(),
                },
            })
            .collect(),
        _ => Vec::new(),
    }
}

/// How two entities are linked in the graph, weakest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Link {
    None,
    CoOccurs,
    Fact,
}

impl Link {
    /// Count the link: any relation is an edge, a fact is also a fact.
    fn count(self, edge: &mut usize, fact: &mut usize) {
        *edge += usize::from(self >= Link::CoOccurs);
        *fact += usize::from(self == Link::Fact);
    }
}

/// The link between entities `a` and `b` (ids), read from either side.
fn link(store: &Store, a: &str, b: &str) -> Result<Link, EvalError> {
    let mut best = Link::None;
    for (from, to) in [(a, b), (b, a)] {
        for n in store.neighbors(from, rlmkg_ingest::MAX_K, None)? {
            if n.id == to {
                if is_fact(&n.relation) {
                    return Ok(Link::Fact);
                }
                best = Link::CoOccurs;
            }
        }
    }
    Ok(best)
}

/// Coverage of the pairs of passages where one names the other's title.
#[derive(Debug, Clone, Default, Serialize, PartialEq)]
pub struct PairCoverage {
    /// Pairs (passage, another passage whose title its text names).
    pub pairs: usize,
    /// Pairs whose subjects are linked by any relation.
    pub edge: usize,
    /// Pairs whose subjects are linked by a fact.
    pub fact: usize,
    /// Pairs where one subject is not an entity of the graph.
    pub no_subject: usize,
    /// The first pairs with no fact: (passage title, the title it names, the
    /// sentence that names it), as many as asked.
    pub missed: Vec<(String, String, String)>,
}

/// Titles too short or too common to count as naming a passage: fewer than
/// four characters.
const MIN_TITLE_CHARS: usize = 4;

/// Measure [`PairCoverage`] of `passages` ingested into `store`; `limit`
/// caps the pairs read (in corpus order), 0 for all.
pub fn title_pairs(
    store: &Store,
    passages: &[Passage],
    limit: usize,
    show: usize,
) -> Result<PairCoverage, EvalError> {
    let titles: Vec<&str> = passages.iter().map(|p| p.title.trim()).collect();
    let wanted: Vec<usize> = (0..titles.len())
        .filter(|&i| titles[i].chars().count() >= MIN_TITLE_CHARS)
        .collect();
    let ac = AhoCorasick::builder()
        .match_kind(MatchKind::LeftmostLongest)
        .build(wanted.iter().map(|&i| titles[i]))
        .map_err(|e| EvalError::Failed(format!("title matcher: {e}")))?;
    let mut out = PairCoverage::default();
    let mut subject = std::collections::HashMap::<String, Option<String>>::new();
    let mut id_of = |store: &Store, title: &str| -> Result<Option<String>, EvalError> {
        if let Some(id) = subject.get(title) {
            return Ok(id.clone());
        }
        let id = store.entity(title)?.map(|e| e.id);
        subject.insert(title.to_string(), id.clone());
        Ok(id)
    };
    'passages: for p in passages {
        let mut seen: HashSet<usize> = HashSet::new();
        let bytes = p.text.as_bytes();
        for m in ac.find_iter(&p.text) {
            let Some(&q) = wanted.get(m.pattern().as_usize()) else {
                continue;
            };
            let word_start = m.start() == 0
                || !bytes
                    .get(m.start() - 1)
                    .is_some_and(|b| b.is_ascii_alphanumeric());
            let word_end = !bytes
                .get(m.end())
                .is_some_and(|b| b.is_ascii_alphanumeric());
            if !word_start
                || !word_end
                || inside_longer_name(&p.text, m.start(), m.end())
                || titles[q] == p.title.trim()
                || !seen.insert(q)
            {
                continue;
            }
            if limit > 0 && out.pairs >= limit {
                break 'passages;
            }
            out.pairs += 1;
            let (Some(a), Some(b)) = (id_of(store, p.title.trim())?, id_of(store, titles[q])?)
            else {
                out.no_subject += 1;
                continue;
            };
            let l = link(store, &a, &b)?;
            l.count(&mut out.edge, &mut out.fact);
            if l != Link::Fact && out.missed.len() < show {
                out.missed.push((
                    p.title.clone(),
                    titles[q].to_string(),
                    sentence_around(&p.text, m.start()).to_string(),
                ));
            }
        }
    }
    Ok(out)
}

/// Whether the span `a..b` of `text` is part of a longer name: a
/// capitalised word joined to it by a space on either side ("Virginia" in
/// "West Virginia" names West Virginia, not Virginia).
fn inside_longer_name(text: &str, a: usize, b: usize) -> bool {
    let before = text
        .get(..a)
        .and_then(|t| t.strip_suffix(' '))
        .and_then(|t| t.split(' ').next_back())
        .unwrap_or("");
    let after = text
        .get(b..)
        .and_then(|t| t.strip_prefix(' '))
        .and_then(|t| t.split(' ').next())
        .unwrap_or("");
    let capital = |w: &str| w.chars().next().is_some_and(char::is_uppercase);
    // Sentence-opening and function words written with a capital are not
    // part of a name ("The", "In").
    let joins = |w: &str| {
        capital(w)
            && w.chars().all(char::is_alphanumeric)
            && !rlmkg_text::is_stopword(&w.to_lowercase())
    };
    joins(before) || joins(after)
}

/// The sentence of `text` around byte `at` (cut at ". ").
fn sentence_around(text: &str, at: usize) -> &str {
    let start = text
        .get(..at)
        .and_then(|b| b.rfind(". "))
        .map_or(0, |p| p + 2);
    let end = text
        .get(at..)
        .and_then(|r| r.find(". "))
        .map_or(text.len(), |p| at + p + 1);
    text.get(start..end).unwrap_or("")
}

/// Coverage of MuSiQue's question decompositions.
#[derive(Debug, Clone, Default, Serialize, PartialEq)]
pub struct HopCoverage {
    /// Hops read.
    pub hops: usize,
    /// Hops whose answer and subject are linked by a fact.
    pub fact: usize,
    /// Hops whose answer and subject are linked by any relation.
    pub edge: usize,
    /// Hops whose answer is not an entity of the graph.
    pub no_answer: usize,
    /// The first hops with no fact: (the hop's question, its subjects, its
    /// answer, the supporting paragraph's sentence naming the answer), as
    /// many as asked.
    pub missed: Vec<(String, String, String, String)>,
}

/// Measure [`HopCoverage`] of MuSiQue `questions` (the records of
/// `musique_*.json`) over `store`. A hop's subject is what its question
/// names: an earlier hop's answer (`#1`) or its supporting paragraph's title
/// (the passage the hop reads); its object is its answer. `show` caps the
/// missed hops listed.
pub fn musique_hops(
    store: &Store,
    questions: &[Value],
    show: usize,
) -> Result<HopCoverage, EvalError> {
    let mut out = HopCoverage::default();
    for q in questions {
        let Some(hops) = q.get("question_decomposition").and_then(Value::as_array) else {
            continue;
        };
        let paragraphs = q.get("paragraphs").and_then(Value::as_array);
        let answers: Vec<&str> = hops
            .iter()
            .map(|h| h.get("answer").and_then(Value::as_str).unwrap_or(""))
            .collect();
        for (i, h) in hops.iter().enumerate() {
            out.hops += 1;
            let Some(answer) = store.entity(answers.get(i).copied().unwrap_or(""))? else {
                out.no_answer += 1;
                continue;
            };
            let answer = answer.id;
            let text = h.get("question").and_then(Value::as_str).unwrap_or("");
            let mut subjects: Vec<String> = Vec::new();
            for (k, a) in answers.iter().enumerate().take(i) {
                if text.contains(&format!("#{}", k + 1)) {
                    subjects.push((*a).to_string());
                }
            }
            let support = h
                .get("paragraph_support_idx")
                .and_then(Value::as_u64)
                .and_then(|ix| paragraphs?.get(usize::try_from(ix).ok()?));
            if let Some(title) = support.and_then(|p| p.get("title")?.as_str()) {
                subjects.push(title.to_string());
            }
            let mut best = Link::None;
            for s in &subjects {
                if best == Link::Fact {
                    break;
                }
                if let Some(e) = store.entity(s)? {
                    best = best.max(link(store, &e.id, &answer)?);
                }
            }
            best.count(&mut out.edge, &mut out.fact);
            if best != Link::Fact && out.missed.len() < show {
                let answer_text = answers.get(i).copied().unwrap_or("");
                let paragraph = support
                    .and_then(|p| p.get("paragraph_text")?.as_str())
                    .unwrap_or("");
                let sentence = paragraph
                    .find(answer_text)
                    .map_or("", |at| sentence_around(paragraph, at));
                out.missed.push((
                    text.to_string(),
                    subjects.join(" | "),
                    answer_text.to_string(),
                    sentence.to_string(),
                ));
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_corpus_shapes_read() {
        let a = serde_json::json!([{"title": "A", "text": "x"}]);
        let b = serde_json::json!({"B": ["one. ", "two."]});
        assert_eq!(passages(&a).len(), 1);
        let p = passages(&b);
        assert_eq!(p.len(), 1);
        assert_eq!(p[0].text, "one. two.");
    }
}
