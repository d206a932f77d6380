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

use super::reads::{Reads, word_key};

/// Fewest words a claim must have to be cited as a verbatim copy: a short
/// run ("in 2019", "Bergen") appears in too many sentences to say which one
/// it was copied from.
pub const MIN_WORDS: usize = 4;

/// Most factual claims an answer may have for its copies to be cited: a root
/// that copies the sentence that answers writes one or two (a sentence may be
/// two claims, "…, where she had taught…"); a copied page is not an answer,
/// and citing it would let its first name of the asked kind pass for one.
pub const MAX_CLAIMS: usize = 4;

/// For each uncited claim of `report` that copies a run of one sentence the
/// run read (`reads`: what the run's handle calls showed), the sentence's
/// `[id]` written after it, before its closing punctuation. Returns the
/// answer with the ids written in and how many claims were cited; `None`
/// when nothing changed.
pub(super) fn cite_verbatim(
    answer: &str,
    report: &Report,
    reads: &Reads,
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
    let mut inserts: Vec<(usize, String)> = Vec::new();
    for (claim, key) in uncited {
        let Some(read) = reads
            .sentences()
            .iter()
            .find(|s| s.key.contains(key.as_str()))
        else {
            continue;
        };
        let Some(at) = rlmkg_heuristic::citation_point(answer, claim.span) else {
            continue;
        };
        inserts.push((at, format!(" [{}]", read.id)));
    }
    if inserts.is_empty() {
        return None;
    }
    let cited = inserts.len();
    let out = rlmkg_heuristic::insert_marks(answer, inserts);
    Some((out, cited))
}
