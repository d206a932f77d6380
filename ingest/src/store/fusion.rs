//! How a search ranks (issue 46): BM25, dense vectors, or both fused by
//! reciprocal rank. The fusion's constants are written here once (and listed
//! under "Fitted constants" in BENCHMARKS.md).

use std::collections::HashMap;

use rlmkg_ids::ChunkId;
use serde::{Deserialize, Serialize};

/// The RRF constant `k`: a hit at rank `r` (from 1) adds `weight / (k + r)`.
/// 60 is the value of Cormack et al. (2009); re-fusing the development sets'
/// top-10 document lists at 10, 30 and 60 gave the same recall@5
/// (BENCHMARKS.md, "Fitted constants").
pub const RRF_K: f64 = 60.0;
/// The weight of the BM25 ranking in the fusion.
pub const BM25_WEIGHT: f64 = 1.0;
/// The weight of the dense ranking in the fusion.
pub const DENSE_WEIGHT: f64 = 1.0;
/// Hits taken from each ranking before fusing (at least the `k` asked for).
pub const FUSION_DEPTH: usize = 50;

/// How a search ranks chunks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SearchMode {
    /// BM25 over titles and texts (tantivy).
    Bm25,
    /// The dot product of the query's vector with each chunk's (exact).
    Dense,
    /// BM25 and dense fused by reciprocal rank ([`fuse`]).
    Hybrid,
}

impl SearchMode {
    /// The modes by name, as `--mode` takes them.
    pub const ALL: [SearchMode; 3] = [SearchMode::Bm25, SearchMode::Dense, SearchMode::Hybrid];

    /// The mode's name.
    pub fn name(self) -> &'static str {
        match self {
            SearchMode::Bm25 => "bm25",
            SearchMode::Dense => "dense",
            SearchMode::Hybrid => "hybrid",
        }
    }
}

impl std::fmt::Display for SearchMode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for SearchMode {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let s = s.trim();
        Self::ALL
            .into_iter()
            .find(|m| m.name().eq_ignore_ascii_case(s))
            .ok_or_else(|| {
                format!("unknown search mode {s:?}: the modes are bm25, dense and hybrid")
            })
    }
}

/// Reciprocal-rank fusion of rankings (best first), each with its weight:
/// a chunk's score is the sum over the rankings holding it of
/// `weight / (RRF_K + rank)`. Best first; ties by chunk number.
pub fn fuse(rankings: &[(&[ChunkId], f64)]) -> Vec<(ChunkId, f64)> {
    let mut score: HashMap<ChunkId, f64> = HashMap::new();
    for (ranking, weight) in rankings {
        for (rank, id) in ranking.iter().enumerate() {
            *score.entry(*id).or_default() += weight / (RRF_K + rank as f64 + 1.0);
        }
    }
    let mut out: Vec<(ChunkId, f64)> = score.into_iter().collect();
    out.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(v: &[u64]) -> Vec<ChunkId> {
        v.iter().copied().map(ChunkId).collect()
    }

    struct Case {
        what: &'static str,
        bm25: &'static [u64],
        dense: &'static [u64],
        weights: (f64, f64),
        expected: &'static [u64],
    }

    const CASES: &[Case] = &[
        Case {
            what: "a chunk both rankings hold beats one only one holds, even ranked first there",
            bm25: &[1, 2, 3],
            dense: &[4, 2, 5],
            weights: (1.0, 1.0),
            expected: &[2, 1, 4, 3, 5],
        },
        Case {
            what: "equal ranks in the two rankings tie, broken by chunk number",
            bm25: &[9],
            dense: &[8],
            weights: (1.0, 1.0),
            expected: &[8, 9],
        },
        Case {
            what: "a heavier ranking wins ties of rank",
            bm25: &[9],
            dense: &[8],
            weights: (2.0, 1.0),
            expected: &[9, 8],
        },
        Case {
            what: "an empty ranking leaves the other's order",
            bm25: &[3, 1, 2],
            dense: &[],
            weights: (1.0, 1.0),
            expected: &[3, 1, 2],
        },
    ];

    #[test]
    fn fusion_cases() {
        for case in CASES {
            let (b, d) = (ids(case.bm25), ids(case.dense));
            let got: Vec<u64> = fuse(&[(&b, case.weights.0), (&d, case.weights.1)])
                .into_iter()
                .map(|(id, _)| id.0)
                .collect();
            assert_eq!(got, case.expected, "{}", case.what);
        }
    }

    #[test]
    fn scores_are_the_sum_of_reciprocal_ranks() {
        let (b, d) = (ids(&[1, 2]), ids(&[2]));
        let fused = fuse(&[(&b, 1.0), (&d, 1.0)]);
        let two = 1.0 / (RRF_K + 2.0) + 1.0 / (RRF_K + 1.0);
        assert!((fused[0].1 - two).abs() < 1e-12, "{fused:?}");
    }

    #[test]
    fn modes_parse_by_name() {
        for m in SearchMode::ALL {
            assert_eq!(m.name().to_uppercase().parse::<SearchMode>(), Ok(m));
        }
        assert!("vector".parse::<SearchMode>().is_err());
    }
}
