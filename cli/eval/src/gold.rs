//! A generated question as a dataset file holds it (`generate incidents`,
//! `generate world`): the one record both generators write, read back by
//! [`crate::dataset`] as any JSONL question.

use serde::Serialize;

/// A question with its gold answer and the documents that carry it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct GoldQuestion {
    /// Its id (`agg1`, `two-hop-01`, …).
    pub id: String,
    /// The question.
    pub question: String,
    /// The gold answer.
    pub answer: String,
    /// Other accepted spellings ("two" for "2").
    pub answer_aliases: Vec<String>,
    /// The documents the answer comes from (a chain's articles in chain
    /// order, without repeats; the reports a count is counted from).
    pub gold_titles: Vec<String>,
}
