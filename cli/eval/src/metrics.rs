//! Answer and retrieval metrics: SQuAD-normalized exact match and token F1,
//! supporting-passage recall@k, and citation precision/recall against gold sentences.

use std::collections::{BTreeSet, HashMap};

/// SQuAD answer normalization: lower case, drop ASCII punctuation, drop the
/// articles "a", "an", "the", and collapse white space.
pub fn normalize_answer(s: &str) -> String {
    let lower = s.to_lowercase();
    let no_punct: String = lower
        .chars()
        .filter(|c| !c.is_ascii_punctuation())
        .collect();
    no_punct
        .split_whitespace()
        .filter(|w| !matches!(*w, "a" | "an" | "the"))
        .collect::<Vec<_>>()
        .join(" ")
}

/// 1.0 when the normalized prediction equals the normalized gold answer, else 0.0.
pub fn exact_match(prediction: &str, gold: &str) -> f64 {
    if normalize_answer(prediction) == normalize_answer(gold) {
        1.0
    } else {
        0.0
    }
}

/// SQuAD token-level F1 between a prediction and one gold answer.
///
/// When either side normalizes to no tokens, F1 is 1.0 if both are empty, else 0.0.
pub fn f1_score(prediction: &str, gold: &str) -> f64 {
    let pred = normalize_answer(prediction);
    let gold = normalize_answer(gold);
    let p: Vec<&str> = pred.split_whitespace().collect();
    let g: Vec<&str> = gold.split_whitespace().collect();
    if p.is_empty() || g.is_empty() {
        return if p == g { 1.0 } else { 0.0 };
    }
    let mut counts: HashMap<&str, usize> = HashMap::new();
    for t in &g {
        *counts.entry(t).or_default() += 1;
    }
    let mut same = 0usize;
    for t in &p {
        if let Some(c) = counts.get_mut(t)
            && *c > 0
        {
            *c -= 1;
            same += 1;
        }
    }
    if same == 0 {
        return 0.0;
    }
    let precision = same as f64 / p.len() as f64;
    let recall = same as f64 / g.len() as f64;
    2.0 * precision * recall / (precision + recall)
}

/// Best exact match and best F1 of a prediction over several acceptable answers
/// (the answer and its aliases). `(0.0, 0.0)` when there are none.
pub fn best_em_f1(prediction: &str, answers: &[String]) -> (f64, f64) {
    answers.iter().fold((0.0f64, 0.0f64), |(em, f1), a| {
        (
            em.max(exact_match(prediction, a)),
            f1.max(f1_score(prediction, a)),
        )
    })
}

/// Recall@k of gold items in a ranked list.
///
/// `ranked[i]` holds the indices of the gold items that the i-th retrieved
/// passage matches (empty when it matches none). Returns the share of the
/// `n_gold` gold items matched by the first `k` retrieved passages, or `None`
/// when there is no gold item to find.
pub fn recall_at_k(ranked: &[Vec<usize>], n_gold: usize, k: usize) -> Option<f64> {
    if n_gold == 0 {
        return None;
    }
    let found: BTreeSet<usize> = ranked
        .iter()
        .take(k)
        .flatten()
        .copied()
        .filter(|g| *g < n_gold)
        .collect();
    Some(found.len() as f64 / n_gold as f64)
}

/// Whether two sentences are the same for citation scoring: equal after
/// normalization, or one contains the other and the shorter has at least four tokens.
pub fn same_sentence(a: &str, b: &str) -> bool {
    let a = normalize_answer(a);
    let b = normalize_answer(b);
    if a.is_empty() || b.is_empty() {
        return false;
    }
    if a == b {
        return true;
    }
    let (short, long) = if a.len() <= b.len() {
        (&a, &b)
    } else {
        (&b, &a)
    };
    short.split_whitespace().count() >= 4 && long.contains(short.as_str())
}

/// Citation precision and recall of cited sentences against gold supporting sentences.
///
/// Precision: share of cited sentences that match some gold sentence. Recall: share
/// of gold sentences matched by some cited sentence. Each is `None` when its
/// denominator is zero.
pub fn citation_precision_recall(cited: &[String], gold: &[String]) -> (Option<f64>, Option<f64>) {
    let hit_cited = cited
        .iter()
        .filter(|c| gold.iter().any(|g| same_sentence(c, g)))
        .count();
    let hit_gold = gold
        .iter()
        .filter(|g| cited.iter().any(|c| same_sentence(c, g)))
        .count();
    let p = (!cited.is_empty()).then(|| hit_cited as f64 / cited.len() as f64);
    let r = (!gold.is_empty()).then(|| hit_gold as f64 / gold.len() as f64);
    (p, r)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalization_follows_squad() {
        let cases = [
            ("The Kestrel Institute!", "kestrel institute"),
            ("  an  Apple, a day ", "apple day"),
            ("Tromsø.", "tromsø"),
            ("G. Stanley Hall", "g stanley hall"),
            ("theatre", "theatre"),
            ("", ""),
        ];
        for (input, want) in cases {
            assert_eq!(normalize_answer(input), want, "{input:?}");
        }
    }

    #[test]
    fn em_and_f1() {
        let cases: [(&str, &str, f64, f64); 6] = [
            ("Bergen", "bergen", 1.0, 1.0),
            ("the city of Bergen", "Bergen", 0.0, 0.5),
            ("Catherine Moray", "Moray", 0.0, 2.0 / 3.0),
            ("Olaf", "Olaf Haugen", 0.0, 2.0 / 3.0),
            ("Oslo", "Bergen", 0.0, 0.0),
            ("the", "a", 1.0, 1.0),
        ];
        for (pred, gold, em, f1) in cases {
            assert_eq!(exact_match(pred, gold), em, "EM {pred:?} vs {gold:?}");
            assert!(
                (f1_score(pred, gold) - f1).abs() < 1e-9,
                "F1 {pred:?} vs {gold:?}"
            );
        }
    }

    #[test]
    fn f1_counts_repeated_tokens_once_each() {
        // pred "new new york" vs gold "new york": same = 2, p = 2/3, r = 1, f1 = 0.8
        assert!((f1_score("new new york", "new york") - 0.8).abs() < 1e-9);
    }

    #[test]
    fn best_over_aliases() {
        let answers = vec!["G. Stanley Hall".to_string(), "Stanley Hall".to_string()];
        assert_eq!(best_em_f1("stanley hall", &answers), (1.0, 1.0));
        assert_eq!(best_em_f1("x", &[]), (0.0, 0.0));
    }

    #[test]
    fn recall_at_k_counts_distinct_gold() {
        let ranked = vec![vec![], vec![1], vec![1], vec![], vec![0], vec![]];
        assert_eq!(recall_at_k(&ranked, 2, 2), Some(0.5));
        assert_eq!(recall_at_k(&ranked, 2, 4), Some(0.5));
        assert_eq!(recall_at_k(&ranked, 2, 5), Some(1.0));
        assert_eq!(recall_at_k(&ranked, 2, 100), Some(1.0));
        assert_eq!(recall_at_k(&ranked, 0, 5), None);
        assert_eq!(recall_at_k(&[], 3, 5), Some(0.0));
    }

    #[test]
    fn citation_scores() {
        let gold = vec![
            "The Kestrel Institute is in Tromsø, Norway.".to_string(),
            "It was founded in 1998 by Ivar Lindqvist.".to_string(),
        ];
        let cited = vec![
            "The Kestrel Institute is in Tromsø, Norway".to_string(),
            "Visitors are welcome on weekdays.".to_string(),
        ];
        assert_eq!(
            citation_precision_recall(&cited, &gold),
            (Some(0.5), Some(0.5))
        );
        assert_eq!(citation_precision_recall(&[], &gold), (None, Some(0.0)));
        assert!(same_sentence("founded in 1998 by Ivar Lindqvist", &gold[1]));
        assert!(!same_sentence("in 1998", &gold[1]));
    }
}
