//! Counts over the whole collection: a count answer is checked by counting
//! the documents it cites, and complete only when no more documents say
//! what it counts ([`count_cited`]); [`map_key`] is what a small root is
//! told to read from every document for such a question.

use std::collections::HashSet;

use rlmkg_citation::{ReasonKind, Verdict};
use rlmkg_heuristic::Question;
use rlmkg_heuristic::short::AnswerType;
use rlmkg_ingest::Store;

use super::chunk_of;

/// Most documents [`count_cited`] checks a count against.
const MAX_COUNTED: usize = 500;

/// A count computed in code, checked against the records it was counted
/// from (issue 28: `map` and `tally` cite the chunks each row came from).
/// For a question about the whole collection that asks for a number, the
/// first factual claim holds a number N, its citations name N distinct
/// documents, and every cited chunk says what is counted: the question's
/// words that at least one and at most half of the documents hold ("Ålesund",
/// "power outage"; not "incident" or "report", which every document holds).
/// Then the claim is supported by counting: its verdict set so, its evidence
/// the cited chunks' sentences that say the counted words, and a note of
/// what was counted returned. Counting is also complete: no more documents
/// say the counted words than N. Otherwise the claim is unsupported (whatever
/// the lexical check made of its number), with the reason, and the note
/// says why.
pub(super) fn count_cited(
    store: &Store,
    question: &Question,
    report: &mut rlmkg_citation::Report,
) -> Option<String> {
    if *question.answer_type() != AnswerType::Number || !question.whole_collection() {
        return None;
    }
    let claim = report
        .claims
        .iter_mut()
        .find(|c| c.verdict != Verdict::Exempt)?;
    // A count over the collection is stated by no one document: the lexical
    // check's verdict on it means nothing ("12" found in "Incident report
    // 012"). Counting decides, either way.
    let counted = counted_by(store, question, claim);
    match counted {
        Ok((n, words, evidence)) => {
            claim.verdict = Verdict::Supported;
            claim.score = 1.0;
            claim.reasons.clear();
            claim.evidence = evidence;
            report.recompute_totals();
            Some(format!(
                "count checked: {n} cited documents, each saying {}",
                words.join(" ")
            ))
        }
        Err(why) => {
            if claim.verdict == Verdict::Supported {
                claim.verdict = Verdict::Unsupported;
            }
            claim.reasons.push(rlmkg_citation::Reason {
                kind: ReasonKind::Number,
                detail: format!("a count over the collection is checked by counting: {why}"),
            });
            report.recompute_totals();
            Some(format!("count not checked: {why}"))
        }
    }
}

/// Count the documents `claim` cites that say what `question` counts: the
/// claim's number, the counted words and the sentences that say them when
/// the number equals those documents; why not otherwise.
fn counted_by(
    store: &Store,
    question: &Question,
    claim: &rlmkg_citation::ClaimReport,
) -> Result<(usize, Vec<String>, Vec<rlmkg_citation::Evidence>), String> {
    let n: usize = first_count(&claim.text).ok_or("the answer states no count")?;
    let ids: Vec<String> = claim
        .citations
        .iter()
        .filter_map(|c| c.id.as_deref())
        .map(|id| chunk_of(id).to_owned())
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect();
    if n == 0 || n > MAX_COUNTED {
        return Err(format!("{n} is not a count that can be checked"));
    }
    if ids.len() < n {
        return Err(format!("it cites {} chunks for a count of {n}", ids.len()));
    }
    let docs = store.docs().map_err(|e| e.to_string())?.len();
    let counted = counted_words(store, question, docs);
    if counted.is_empty() {
        return Err("the question names nothing to count".into());
    }
    let mut seen_docs = HashSet::new();
    let mut evidence = Vec::new();
    for id in &ids {
        let p = store.read(id).map_err(|e| e.to_string())?;
        let text = p.text.to_lowercase();
        // The chunk says every counted word; the evidence is its first
        // sentence that says one.
        let says = counted
            .iter()
            .all(|w| text.contains(w.as_str()))
            .then(|| {
                p.sentences.iter().find(|s| {
                    counted
                        .iter()
                        .any(|w| s.text.to_lowercase().contains(w.as_str()))
                })
            })
            .flatten();
        let Some(says) = says else {
            return Err(format!(
                "cited chunk {id} does not say {}",
                counted.join(" ")
            ));
        };
        seen_docs.insert(p.doc.id.clone());
        evidence.push(rlmkg_citation::Evidence {
            id: says.id.clone(),
            text: says.text.clone(),
            path: p.doc.path.clone(),
            line_start: says.line_start,
            line_end: says.line_end,
            page: says.page,
        });
    }
    if seen_docs.len() != n {
        return Err(format!(
            "it cites {} documents for a count of {n}",
            seen_docs.len()
        ));
    }
    let words: Vec<&str> = counted.iter().map(String::as_str).collect();
    if docs_saying(store, &words, MAX_COUNTED)? > n {
        return Err(format!(
            "more documents say {} than the {n} it counts; read every document for it (map \
             over the documents) and count each one that says it",
            counted.join(" ")
        ));
    }
    Ok((n, counted, evidence))
}

/// How many documents have a chunk that says every one of `words` (lower
/// case), of the first `k` chunks the index ranks for them: the least a
/// count of the documents saying them can be.
fn docs_saying(store: &Store, words: &[&str], k: usize) -> Result<usize, String> {
    let hits = store
        .search(&words.join(" "), k)
        .map_err(|e| e.to_string())?;
    let docs: HashSet<_> = hits
        .iter()
        .filter(|h| {
            let text = h.text.to_lowercase();
            words.iter().all(|w| text.contains(w))
        })
        .map(|h| h.doc)
        .collect();
    Ok(docs.len())
}

/// The first count `text` states ("7", "1,200", "seven"), as a whole number:
/// what a "how many" answer says.
fn first_count(text: &str) -> Option<usize> {
    text.split(|c: char| c.is_whitespace() || matches!(c, '[' | ']' | '(' | ')' | ';' | ':'))
        .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric()))
        .filter(|w| !w.is_empty())
        .find_map(|w| {
            if w.chars().all(|c| c.is_ascii_digit() || c == ',') {
                w.replace(',', "").parse().ok()
            } else {
                let n = rlmkg_text::number_word(&w.to_lowercase())?;
                let whole = n.value >= 0.0 && n.value.fract() == 0.0 && n.value < 1e9;
                whole.then_some(n.value as usize)
            }
        })
}

/// The question's words that at least one and at most half of the store's
/// `docs` documents hold (lower-case): what a count question counts.
fn counted_words(store: &Store, question: &Question, docs: usize) -> Vec<String> {
    question
        .content_words()
        .iter()
        .filter(|w| {
            let n = holding(store, w, docs);
            n > 0 && n * 2 <= docs
        })
        .cloned()
        .collect()
}

/// How many of the store's `docs` documents hold the lower-case word `w`
/// ([`docs_saying`] it, of as many chunks as there are documents, at most
/// [`MAX_COUNTED`]); none when the index cannot be searched.
fn holding(store: &Store, w: &str, docs: usize) -> usize {
    docs_saying(store, &[w], docs.clamp(1, MAX_COUNTED)).unwrap_or(0)
}

/// What to read from every document to answer a question about the whole
/// collection, as a small root's `map` instruction ("the category"), when
/// the question says it: the noun it asks for ("Which *category* …", "In
/// which *town* …"); for a count of the documents saying a value ("… happen
/// in Ålesund?", "… is the category power outage?"), the kind of the
/// graph's entity of that name ("the place") or else the word before the
/// value that most documents hold ("category"). `None` for any other
/// question, or when the question says none of these.
pub(crate) fn map_key(store: &Store, question: &Question) -> Option<String> {
    if !question.whole_collection() {
        return None;
    }
    if let Some(noun) = question.which_noun()
        && noun.chars().all(char::is_alphabetic)
    {
        return Some(format!("the {noun}"));
    }
    if *question.answer_type() != AnswerType::Number {
        return None;
    }
    let docs = store.docs().ok()?.len();
    let counted = counted_words(store, question, docs);
    let words = question.alnum_words();
    let is_counted = |w: &String| counted.contains(&w.to_lowercase());
    let first = words.iter().position(is_counted)?;
    let len = words
        .iter()
        .skip(first)
        .take_while(|w| is_counted(w))
        .count();
    let value = words.get(first..first + len)?.join(" ");
    let kind = [value.clone(), value.to_lowercase()]
        .iter()
        .find_map(|v| store.entity(v).ok().flatten())
        .map(|e| e.kind);
    if let Some(kind) = kind.filter(|k| matches!(k.as_str(), "place" | "person" | "organization")) {
        return Some(format!("the {kind}"));
    }
    let before = words.get(..first)?.last()?.to_lowercase();
    (before.chars().all(char::is_alphabetic)
        && !rlmkg_text::is_stopword(&before)
        && holding(store, &before, docs) * 2 > docs)
        .then(|| format!("the {before}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_are_read_from_digits_and_words() {
        assert_eq!(first_count("7 [c1] [c2]"), Some(7));
        assert_eq!(first_count("Seven reports say so"), Some(7));
        assert_eq!(first_count("1,200 of them"), Some(1200));
        assert_eq!(first_count("none"), None);
        assert_eq!(first_count("[c12] and"), None);
    }
}
