//! Rendering a [`Report`]: the answer with numbered footnotes and inline verdict
//! marks, the footnotes (`path:line-line`, page for PDF, the quoted source
//! sentence), the per-claim verdicts with their reasons, and the totals. The JSON
//! form is the report itself ([`to_json`]).

use std::collections::HashMap;
use std::fmt::Write as _;

use crate::check::{Report, Verdict};
use crate::id::find_groups;

/// The inline mark of a verdict.
pub fn mark(v: Verdict) -> &'static str {
    match v {
        Verdict::Supported => "✓",
        Verdict::Partial => "◐ partial",
        Verdict::Overreach => "✗ overreach",
        Verdict::Unsupported => "✗ unsupported",
        Verdict::Uncited => "? uncited",
        Verdict::Broken => "! broken",
        Verdict::Exempt => "",
    }
}

fn pct(x: Option<f64>) -> String {
    x.map_or_else(|| "n/a".to_string(), |v| format!("{:.0}%", v * 100.0))
}

/// The answer with citation ids replaced by footnote numbers and a verdict mark after each claim.
pub fn render_answer(report: &Report) -> String {
    let answer = &report.answer;
    let mut numbers: HashMap<&str, Option<usize>> = HashMap::new();
    for c in &report.claims {
        for x in &c.citations {
            numbers.entry(x.raw.as_str()).or_insert(x.footnote);
        }
    }
    // Edits: (position, remove-until, text), applied in order.
    let mut edits: Vec<(usize, usize, String)> = Vec::new();
    for g in find_groups(answer) {
        let items: Vec<String> = g
            .citations
            .iter()
            .map(|c| match numbers.get(c.raw.as_str()).copied().flatten() {
                Some(n) => n.to_string(),
                None => format!("{}?", c.raw),
            })
            .collect();
        edits.push((g.span.start, g.span.end, format!("[{}]", items.join(", "))));
    }
    for c in &report.claims {
        let m = mark(c.verdict);
        if !m.is_empty() {
            edits.push((c.span.1, c.span.1, format!(" ⟨{m}⟩")));
        }
    }
    edits.sort_by_key(|e| (e.0, e.1));
    let mut out = String::with_capacity(answer.len() + 64);
    let mut at = 0;
    for (start, end, text) in edits {
        if start < at {
            continue;
        }
        out.push_str(&answer[at..start]);
        out.push_str(&text);
        at = end;
    }
    out.push_str(&answer[at..]);
    out
}

/// The full human-readable report: answer, sources, claims with reasons, totals.
pub fn render_text(report: &Report) -> String {
    let mut out = render_answer(report);
    if !out.ends_with('\n') {
        out.push('\n');
    }
    if !report.footnotes.is_empty() {
        out.push_str("\nSources\n");
        for f in &report.footnotes {
            let lines = format!("{}-{}", f.line_start, f.line_end);
            let page = f.page.map(|p| format!(", p. {p}")).unwrap_or_default();
            let _ = writeln!(
                out,
                "[{}] {}:{}{} ({}) “{}”",
                f.number,
                f.path,
                lines,
                page,
                f.sentence,
                f.quote.trim()
            );
        }
    }
    out.push_str("\nClaims\n");
    for c in report
        .claims
        .iter()
        .filter(|c| c.verdict != Verdict::Exempt)
    {
        let _ = writeln!(
            out,
            "{:>2}. {:<11} {:.2}  {}",
            c.index + 1,
            c.verdict.as_str(),
            c.score,
            c.text
        );
        for r in &c.reasons {
            let _ = writeln!(out, "      - {}", r.detail);
        }
    }
    let t = &report.totals;
    let counts: Vec<String> = t
        .verdicts
        .iter()
        .filter(|(v, _)| **v != Verdict::Exempt)
        .map(|(v, n)| format!("{} {n}", v.as_str()))
        .collect();
    let _ = writeln!(
        out,
        "\nTotals: {} factual claim{} ({}); support rate {}, citation precision {}, citation recall {}",
        t.factual,
        if t.factual == 1 { "" } else { "s" },
        counts.join(", "),
        pct(t.support_rate),
        pct(t.citation_precision),
        pct(t.citation_recall)
    );
    out
}

/// The report as pretty JSON (every field, see [`Report`]).
pub fn to_json(report: &Report) -> String {
    serde_json::to_string_pretty(report).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"))
}
