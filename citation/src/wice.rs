//! Agreement with human labels on WiCE (SPEC §10): each claim cites the sentences
//! of the web page it was written from; the checker's verdict is compared with the
//! label. `unsupported` (and `broken`) count as `not_supported`; `partial` and
//! `overreach` as `partially_supported`: an overreaching clause paraphrases a cited
//! sentence and alters one specific, which WiCE's annotators call partial support.
//! A claim split into several clauses is `supported` when every clause is,
//! `not_supported` when none is supported and most are not even partly (one
//! partly supported clause among unsupported ones is a side detail, not the
//! claim), else partial.

use std::fmt;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::check::{CheckOptions, Report, Verdict, check};
use crate::source::{MemoryChunk, MemorySource};

/// The three WiCE labels.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WiceLabel {
    /// Fully supported.
    Supported,
    /// Partially supported.
    PartiallySupported,
    /// Not supported.
    NotSupported,
}

impl WiceLabel {
    const ALL: [WiceLabel; 3] = [
        Self::Supported,
        Self::PartiallySupported,
        Self::NotSupported,
    ];

    /// Position in [`WiceReport::confusion`] rows and columns.
    pub fn index(self) -> usize {
        match self {
            Self::Supported => 0,
            Self::PartiallySupported => 1,
            Self::NotSupported => 2,
        }
    }

    /// The label as WiCE writes it.
    pub fn name(self) -> &'static str {
        match self {
            Self::Supported => "supported",
            Self::PartiallySupported => "partially_supported",
            Self::NotSupported => "not_supported",
        }
    }
}

/// Errors reading the WiCE file.
#[derive(Debug, thiserror::Error)]
pub enum WiceError {
    /// The file could not be read.
    #[error("reading {path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// The cause.
        source: std::io::Error,
    },
    /// A line is not a WiCE record.
    #[error("line {line}: {message}")]
    Parse {
        /// 1-based line number.
        line: usize,
        /// What is wrong.
        message: String,
    },
    /// The span source failed.
    #[error(transparent)]
    Source(#[from] crate::source::SourceError),
}

/// One WiCE record: a claim, the sentences of the page it cites, and the label.
#[derive(Debug, Clone, Deserialize)]
pub struct Record {
    /// The gold label.
    pub label: WiceLabel,
    /// The claim (a Wikipedia sentence).
    pub claim: String,
    /// The cited page, one sentence per entry.
    pub evidence: Vec<String>,
    /// Index sets of the evidence sentences that support the claim, per annotator set.
    #[serde(default)]
    pub supporting_sentences: Vec<Vec<usize>>,
}

/// The checker's reading of one record.
#[derive(Debug, Clone)]
pub struct Prediction {
    /// The predicted label.
    pub label: WiceLabel,
    /// The checker's report on the claim citing the page.
    pub report: Report,
}

/// Confusion matrix and macro-F1 of the checker against WiCE labels.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WiceReport {
    /// Claims evaluated.
    pub claims: usize,
    /// `confusion[gold][predicted]` in the order supported, partially_supported, not_supported.
    pub confusion: [[usize; 3]; 3],
    /// F1 per label, same order.
    pub f1: [f64; 3],
    /// Mean of the three F1s.
    pub macro_f1: f64,
    /// Share of claims with the gold label.
    pub accuracy: f64,
}

/// The label the checker gives one claim citing `evidence`.
pub fn predict(
    claim: &str,
    evidence: &[String],
    opts: &CheckOptions,
) -> Result<WiceLabel, WiceError> {
    Ok(explain(claim, evidence, opts)?.label)
}

/// The label the checker gives one claim citing `evidence`, with its report.
pub fn explain(
    claim: &str,
    evidence: &[String],
    opts: &CheckOptions,
) -> Result<Prediction, WiceError> {
    let mut source = MemorySource::new();
    source.chunks.insert(
        1,
        MemoryChunk {
            path: "evidence".into(),
            // WiCE pages carry their title as a metadata line.
            title: evidence
                .iter()
                .find_map(|e| e.strip_prefix("(meta data) TITLE:"))
                .map(|t| t.trim().to_string()),
            first_line: 1,
            page: None,
            sentences: evidence.to_vec(),
        },
    );
    // The claim cites the whole page; citation groups inside the claim text are not expected.
    let answer = format!("{} [c1]", claim.trim());
    let mut report = check(&answer, &source, opts)?;
    // A claim the segmenter cut into sentences cites the page with each of them.
    if report.claims.iter().any(|c| c.verdict == Verdict::Uncited) {
        let mut claims = Vec::new();
        for c in std::mem::take(&mut report.claims) {
            if c.verdict == Verdict::Uncited {
                claims.extend(check(&format!("{} [c1]", c.text), &source, opts)?.claims);
            } else {
                claims.push(c);
            }
        }
        report.claims = claims;
        report.recompute_totals();
    }
    let label = label_of(&report);
    Ok(Prediction { label, report })
}

/// The WiCE label of a checked claim (see the module docs): `supported` when every
/// clause is, `not_supported` when none is supported and more than half are not
/// even partly, else partial. Call it again after a judge changed verdicts.
pub fn label_of(report: &Report) -> WiceLabel {
    let verdicts: Vec<Verdict> = report
        .claims
        .iter()
        .map(|c| c.verdict)
        .filter(|v| !matches!(v, Verdict::Exempt | Verdict::Uncited))
        .collect();
    let all = |f: fn(&Verdict) -> bool| !verdicts.is_empty() && verdicts.iter().all(f);
    let unsupported = verdicts
        .iter()
        .filter(|v| matches!(v, Verdict::Unsupported | Verdict::Broken))
        .count();
    if all(|v| *v == Verdict::Supported) {
        WiceLabel::Supported
    } else if verdicts.is_empty()
        || (2 * unsupported > verdicts.len() && !verdicts.contains(&Verdict::Supported))
    {
        WiceLabel::NotSupported
    } else {
        WiceLabel::PartiallySupported
    }
}

/// Whether a parsed JSON record has the WiCE shape (`label`, `claim`, `evidence`).
pub fn is_record(value: &serde_json::Value) -> bool {
    ["label", "claim", "evidence"]
        .iter()
        .all(|k| value.get(k).is_some())
}

/// Evaluate the default checker on a WiCE JSONL file.
pub fn evaluate(path: &Path) -> Result<WiceReport, WiceError> {
    evaluate_with(path, &CheckOptions::default())
}

/// Evaluate with explicit options.
pub fn evaluate_with(path: &Path, opts: &CheckOptions) -> Result<WiceReport, WiceError> {
    let mut pairs = Vec::new();
    for r in read(path)? {
        pairs.push((r.label, predict(&r.claim, &r.evidence, opts)?));
    }
    Ok(score(&pairs))
}

/// Read a WiCE JSONL file.
pub fn read(path: &Path) -> Result<Vec<Record>, WiceError> {
    let text = std::fs::read_to_string(path).map_err(|source| WiceError::Io {
        path: path.display().to_string(),
        source,
    })?;
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let r: Record = serde_json::from_str(line).map_err(|e| WiceError::Parse {
            line: i + 1,
            message: e.to_string(),
        })?;
        out.push(r);
    }
    Ok(out)
}

/// Confusion matrix, F1s and accuracy of (gold, predicted) pairs.
pub fn score(pairs: &[(WiceLabel, WiceLabel)]) -> WiceReport {
    let mut confusion = [[0usize; 3]; 3];
    for (g, p) in pairs {
        confusion[g.index()][p.index()] += 1;
    }
    let mut f1 = [0.0; 3];
    for k in 0..3 {
        let tp = confusion[k][k] as f64;
        let predicted: usize = (0..3).map(|g| confusion[g][k]).sum();
        let gold: usize = confusion[k].iter().sum();
        let p = if predicted > 0 {
            tp / predicted as f64
        } else {
            0.0
        };
        let r = if gold > 0 { tp / gold as f64 } else { 0.0 };
        f1[k] = if p + r > 0.0 {
            2.0 * p * r / (p + r)
        } else {
            0.0
        };
    }
    let correct: usize = (0..3).map(|k| confusion[k][k]).sum();
    WiceReport {
        claims: pairs.len(),
        confusion,
        f1,
        macro_f1: f1.iter().sum::<f64>() / 3.0,
        accuracy: if pairs.is_empty() {
            0.0
        } else {
            correct as f64 / pairs.len() as f64
        },
    }
}

impl fmt::Display for WiceReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "WiCE: {} claims; rows = gold label, columns = checker",
            self.claims
        )?;
        writeln!(
            f,
            "{:<22}{:>12}{:>12}{:>12}{:>8}",
            "", "supported", "partial", "not_supp.", "F1"
        )?;
        for g in WiceLabel::ALL {
            let row = self.confusion[g.index()];
            writeln!(
                f,
                "{:<22}{:>12}{:>12}{:>12}{:>8.3}",
                g.name(),
                row[0],
                row[1],
                row[2],
                self.f1[g.index()]
            )?;
        }
        write!(
            f,
            "macro-F1 {:.3}, accuracy {:.3}",
            self.macro_f1, self.accuracy
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scores_a_confusion_matrix() {
        use WiceLabel::*;
        let r = score(&[
            (Supported, Supported),
            (NotSupported, PartiallySupported),
            (PartiallySupported, PartiallySupported),
        ]);
        assert_eq!(r.confusion, [[1, 0, 0], [0, 1, 0], [0, 1, 0]]);
        assert!((r.f1[0] - 1.0).abs() < 1e-9);
        assert!((r.f1[1] - 2.0 / 3.0).abs() < 1e-9);
        assert!((r.macro_f1 - (1.0 + 2.0 / 3.0) / 3.0).abs() < 1e-9);
    }

    #[test]
    fn predicts_on_a_tiny_page() {
        let ev = vec![
            "I live in Leicestershire with my wife and two children.".to_string(),
            "I am a keen tennis player.".to_string(),
        ];
        let opts = CheckOptions::default();
        assert_eq!(
            predict(
                "A keen tennis player, he lives in Leicestershire with his wife and two children.",
                &ev,
                &opts
            )
            .unwrap(),
            WiceLabel::Supported
        );
        assert_eq!(
            predict(
                "He was born in Uruguay and studied law in Madrid in 1990.",
                &ev,
                &opts
            )
            .unwrap(),
            WiceLabel::NotSupported
        );
    }

    #[test]
    fn labels_a_claim_from_its_clause_verdicts() {
        use Verdict::*;
        let ev = vec!["I am a keen tennis player.".to_string()];
        let base = explain("He is a keen tennis player.", &ev, &CheckOptions::default())
            .unwrap()
            .report;
        let label = |vs: &[Verdict]| {
            let mut r = base.clone();
            let clause = r.claims[0].clone();
            r.claims = vs
                .iter()
                .map(|v| {
                    let mut c = clause.clone();
                    c.verdict = *v;
                    c
                })
                .collect();
            label_of(&r)
        };
        assert_eq!(label(&[Supported, Supported]), WiceLabel::Supported);
        assert_eq!(label(&[Supported, Partial]), WiceLabel::PartiallySupported);
        assert_eq!(label(&[Unsupported, Unsupported]), WiceLabel::NotSupported);
        // One partly supported clause among unsupported ones: not supported.
        assert_eq!(
            label(&[Partial, Unsupported, Unsupported]),
            WiceLabel::NotSupported
        );
        // Half or less unsupported, or any clause supported: partial.
        assert_eq!(
            label(&[Partial, Unsupported]),
            WiceLabel::PartiallySupported
        );
        assert_eq!(
            label(&[Supported, Unsupported, Unsupported]),
            WiceLabel::PartiallySupported
        );
        assert_eq!(label(&[]), WiceLabel::NotSupported);
    }
}
