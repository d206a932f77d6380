//! Cite a claim the model copied word for word from a sentence the run read.
//!
//! Small roots read a sentence that answers, then write it into `FINAL`
//! without its `[id]`. The evidence repair ([`super::recite`]) deliberately
//! leaves uncited claims uncited: searching the reads for *some* support of a
//! claim would let text in the corpus lend a citation to an answer it led the
//! model to. A verbatim copy is different: the claim *is* the source's words,
//! so citing the sentence it was copied from only says where it came from;
//! the reader sees the source, and every other rule of the review (the answer
//! relation, the asked type, the question's year) still judges it.
//!
//! Only a claim of at least [`MIN_WORDS`] words whose words appear in the same
//! order, contiguously, in one sentence the run read is cited, and only in an
//! answer of at most [`MAX_CLAIMS`] claims; a paraphrase, a merger of two
//! sentences, a claim with a word of its own or a copied page stays uncited.

use rlmkg_citation::{Report, Verdict};
use rlmkg_ingest::Store;

/// Fewest words a claim must have to be cited as a verbatim copy: a short
/// run ("in 2019", "Bergen") appears in too many sentences to say which one
/// it was copied from.
pub const MIN_WORDS: usize = 4;

/// Most factual claims an answer may have for its copies to be cited: a root
/// that copies the sentence that answers writes one or two (a sentence may be
/// two claims, "…, where she had taught…"); a copied page is not an answer,
/// and citing it would let its first name of the asked kind pass for one.
pub const MAX_CLAIMS: usize = 4;

/// Most read ids whose sentences are compared (the run's first reads: ids are
/// kept first seen first).
pub const MAX_READS: usize = 64;

/// The words of `text`, lowercased, each followed by one space and the whole
/// preceded by one, so that containment of the strings is containment of
/// contiguous word runs (linear with `str::contains`).
pub(super) fn word_key(text: &str) -> (String, usize) {
    let mut key = String::from(" ");
    let mut words = 0;
    for word in text
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
    {
        key.extend(word.chars().flat_map(char::to_lowercase));
        key.push(' ');
        words += 1;
    }
    (key, words)
}

/// For each uncited claim of `report` that copies a run of one sentence the
/// run read (`read`: the ids the run's handle calls showed), the sentence's
/// `[id]` written after it, before its closing punctuation. Returns the
/// answer with the ids written in and how many claims were cited; `None`
/// when nothing changed.
pub(crate) fn cite_verbatim(
    store: &Store,
    answer: &str,
    report: &Report,
    read: &[String],
) -> Option<(String, usize)> {
    let factual = report
        .claims
        .iter()
        .filter(|c| c.verdict != Verdict::Exempt)
        .count();
    if factual > MAX_CLAIMS {
        return None;
    }
    let uncited: Vec<_> = report
        .claims
        .iter()
        .filter(|c| c.verdict == Verdict::Uncited)
        .filter_map(|c| {
            let (key, words) = word_key(&super::without_brackets(&c.text));
            (words >= MIN_WORDS).then_some((c, key))
        })
        .collect();
    if uncited.is_empty() {
        return None;
    }
    let mut sentences: Vec<(String, String)> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for id in read.iter().take(MAX_READS) {
        let Ok(passage) = store.read(id) else {
            continue;
        };
        for s in passage.sentences {
            if seen.insert(s.id.clone()) {
                sentences.push((s.id, word_key(&s.text).0));
            }
        }
    }
    let mut inserts: Vec<(usize, String)> = Vec::new();
    for (claim, key) in uncited {
        let Some((id, _)) = sentences.iter().find(|(_, s)| s.contains(key.as_str())) else {
            continue;
        };
        let Some(at) = rlmkg_heuristic::citation_point(answer, claim.span) else {
            continue;
        };
        inserts.push((at, format!(" [{id}]")));
    }
    if inserts.is_empty() {
        return None;
    }
    let cited = inserts.len();
    let out = rlmkg_heuristic::insert_marks(answer, inserts);
    Some((out, cited))
}

#[cfg(test)]
mod tests {
    use super::word_key;

    #[test]
    fn a_copied_run_is_contained_and_a_paraphrase_is_not() {
        let (sentence, _) = word_key(
            "Dr. Mara Ellison joined the Kestrel Institute for Coastal Studies (KICS) in September 2019.",
        );
        let (copy, n) = word_key("Mara Ellison joined the Kestrel Institute");
        assert_eq!(n, 6);
        assert!(sentence.contains(&copy));
        let (paraphrase, _) = word_key("Mara Ellison joined the Kestrel Institute in 2019");
        assert!(!sentence.contains(&paraphrase));
        // Whole words only: "Ellis" is not "Ellison".
        let (part, _) = word_key("Dr. Mara Ellis");
        assert!(!sentence.contains(&part));
    }
}
