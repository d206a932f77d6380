//! The verified answer as Python sees it: [`Answer`], the checker's
//! [`Verification`] and its [`Claim`]s, each with its values as attributes
//! and `to_dict()` for the whole serde form (the same fields as `rlmkg --json
//! ask` and `rlmkg --json verify`).

use pyo3::prelude::*;
use pyo3::types::PyList;
use rlmkg::{Answer as LibAnswer, ClaimReport, Report};

use crate::convert::{repr, to_py};

/// One claim of an answer, checked against the sentences it cites.
#[pyclass(frozen, module = "rlmkg")]
pub struct Claim {
    /// The claim's text, citations removed.
    #[pyo3(get)]
    text: String,
    /// `supported`, `partial`, `overreach`, `unsupported`, `uncited`,
    /// `broken` or `exempt` (a connective sentence, not checked).
    #[pyo3(get)]
    verdict: &'static str,
    /// Weighted share of the claim's terms the cited text carries (0 to 1).
    #[pyo3(get)]
    score: f64,
    /// Why: dicts with `kind` and `detail`.
    #[pyo3(get)]
    reasons: Py<PyAny>,
    /// The citations: dicts with `raw`, `id`, `resolved`, `precise`, `footnote`.
    #[pyo3(get)]
    citations: Py<PyAny>,
    /// The best-matching source sentences, best first.
    #[pyo3(get)]
    evidence: Py<PyAny>,
    /// The whole claim report as a dict (`to_dict`).
    data: Py<PyAny>,
}

impl Claim {
    fn of(py: Python<'_>, c: &ClaimReport) -> PyResult<Self> {
        Ok(Self {
            text: c.text.clone(),
            verdict: c.verdict.as_str(),
            score: c.score,
            reasons: to_py(py, &c.reasons)?,
            citations: to_py(py, &c.citations)?,
            evidence: to_py(py, &c.evidence)?,
            data: to_py(py, c)?,
        })
    }
}

#[pymethods]
impl Claim {
    /// The whole claim report as a dict (index, span, evidence, judge, …).
    fn to_dict(&self, py: Python<'_>) -> Py<PyAny> {
        self.data.clone_ref(py)
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        Ok(format!(
            "Claim(verdict={}, text={})",
            repr(py, self.verdict)?,
            repr(py, &self.text)?
        ))
    }
}

/// The checker's report on an answer's citations: every claim with its
/// verdict, the footnotes and the totals.
#[pyclass(frozen, module = "rlmkg")]
pub struct Verification {
    /// The answer as given.
    #[pyo3(get)]
    answer: String,
    /// The claims, in order.
    #[pyo3(get)]
    claims: Py<PyList>,
    /// Whether every factual claim is supported.
    #[pyo3(get)]
    supported: bool,
    /// The footnotes in order of first citation: dicts with `number`, `id`,
    /// `path`, `title`, `line_start`, `line_end`, `page`.
    #[pyo3(get)]
    footnotes: Py<PyAny>,
    /// The totals: a dict with `claims`, `factual`, `verdicts` (claims per
    /// verdict), `support_rate`, `citation_precision`, `citation_recall`.
    #[pyo3(get)]
    totals: Py<PyAny>,
    /// The whole report as a dict (`to_dict`).
    data: Py<PyAny>,
}

impl Verification {
    /// The Python view of the checker's report.
    pub(crate) fn of(py: Python<'_>, r: &Report) -> PyResult<Self> {
        let claims = r
            .claims
            .iter()
            .map(|c| Py::new(py, Claim::of(py, c)?))
            .collect::<PyResult<Vec<_>>>()?;
        Ok(Self {
            answer: r.answer.clone(),
            claims: PyList::new(py, claims)?.unbind(),
            supported: r.all_supported(),
            footnotes: to_py(py, &r.footnotes)?,
            totals: to_py(py, &r.totals)?,
            data: to_py(py, r)?,
        })
    }
}

#[pymethods]
impl Verification {
    /// The whole report as a dict (the fields of `rlmkg --json verify`).
    fn to_dict(&self, py: Python<'_>) -> Py<PyAny> {
        self.data.clone_ref(py)
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let verdicts = self
            .claims
            .bind(py)
            .iter()
            .map(|c| c.getattr("verdict")?.extract::<String>())
            .collect::<PyResult<Vec<_>>>()?;
        Ok(format!(
            "Verification(supported={}, verdicts=[{}])",
            if self.supported { "True" } else { "False" },
            verdicts.join(", ")
        ))
    }
}

/// A verified answer: the text with inline citations (`[c12.s3]`), its short
/// answer, and every claim with its verdict.
#[pyclass(frozen, module = "rlmkg")]
pub struct Answer {
    /// The question.
    #[pyo3(get)]
    question: String,
    /// The short answer the text opens with, when there is one.
    #[pyo3(get)]
    short_answer: Option<String>,
    /// What the question asks for (a dict: `type`, and `options` for a choice).
    #[pyo3(get)]
    answer_type: Py<PyAny>,
    /// The sources carry no answer of the asked type: the text is the closest evidence.
    #[pyo3(get)]
    not_found: bool,
    /// The answer text with inline citations.
    #[pyo3(get)]
    text: String,
    /// What produced it: `rlm`, `heuristic_composed` or `extractive`.
    #[pyo3(get)]
    method: Py<PyAny>,
    /// The claims, in order (the same objects as `verification.claims`).
    #[pyo3(get)]
    claims: Py<PyList>,
    /// The answer checked as an answer (a dict: `verdict` — `answers`,
    /// `about_another` or `not_shown` —, `chain`, `reason`).
    #[pyo3(get)]
    answer_check: Py<PyAny>,
    /// Whether there is an answer, every factual claim of it is supported
    /// and the answer check finds that it answers the question.
    #[pyo3(get)]
    verified: bool,
    /// Whether a strict repair turn was used.
    #[pyo3(get)]
    repaired: bool,
    /// Why the run stopped, in words.
    #[pyo3(get)]
    stop_reason: String,
    /// Model usage (calls, tokens, turns, seconds, …).
    #[pyo3(get)]
    usage: Py<PyAny>,
    /// Chunk and sentence ids the run read.
    #[pyo3(get)]
    read_ids: Vec<String>,
    /// The trajectory file, when one was written.
    #[pyo3(get)]
    trajectory_path: Option<String>,
    /// Why the root model's run was set aside for the heuristic strategy, if it was.
    #[pyo3(get)]
    fallback: Py<PyAny>,
    /// The checker's whole report (claims, footnotes, totals).
    #[pyo3(get)]
    verification: Py<Verification>,
    /// Remarks of the run (which strategy answered, fallbacks, repairs).
    #[pyo3(get)]
    notes: Vec<String>,
    /// The whole answer as a dict (`to_dict`).
    data: Py<PyAny>,
}

impl Answer {
    /// The Python view of a library answer and the remarks its run made.
    pub(crate) fn of(py: Python<'_>, a: &LibAnswer, notes: Vec<String>) -> PyResult<Self> {
        let verification = Verification::of(py, &a.verification)?;
        let claims = verification.claims.clone_ref(py);
        Ok(Self {
            question: a.question.clone(),
            short_answer: a.short_answer.as_ref().map(|s| s.text.clone()),
            answer_type: to_py(py, &a.answer_type)?,
            not_found: a.not_found,
            text: a.text.clone(),
            method: to_py(py, &a.method)?,
            claims,
            answer_check: to_py(py, &a.answer_check)?,
            verified: a.verified,
            repaired: a.repaired,
            stop_reason: a.stop_reason.clone(),
            usage: to_py(py, &a.usage)?,
            read_ids: a.read_ids.clone(),
            trajectory_path: a
                .trajectory
                .as_ref()
                .map(|p| p.to_string_lossy().into_owned()),
            fallback: to_py(py, &a.fallback)?,
            verification: Py::new(py, verification)?,
            notes,
            data: to_py(py, a)?,
        })
    }
}

#[pymethods]
impl Answer {
    /// The whole answer as a dict (the fields of `rlmkg --json ask`).
    fn to_dict(&self, py: Python<'_>) -> Py<PyAny> {
        self.data.clone_ref(py)
    }

    fn __str__(&self) -> &str {
        &self.text
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        Ok(format!(
            "Answer(short_answer={}, method={}, verified={}, not_found={}, claims={})",
            match &self.short_answer {
                Some(s) => repr(py, s)?,
                None => "None".to_owned(),
            },
            self.method.bind(py).repr()?,
            if self.verified { "True" } else { "False" },
            if self.not_found { "True" } else { "False" },
            self.claims.bind(py).len(),
        ))
    }
}
