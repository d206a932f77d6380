//! Short text renderings of results, beside the structured content of an
//! MCP tool result (for clients and models that read only text).

use std::fmt::Write as _;

use rlmkg::{Answer, Report};
use rlmkg_ingest::{IngestSummary, StoreStats};

use crate::ops::{
    EntityResult, FactsResult, NeighborsResult, PathResult, ReadResult, RelatedResult, SearchResult,
};

/// Characters of a chunk shown in a list.
const SNIPPET: usize = 240;

/// `text` on one line (white space folded), cut to `max` characters with
/// "…" after the cut: how a chunk is shown in a list (MCP's text results,
/// `rlmkg search`).
pub fn snippet(text: &str, max: usize) -> String {
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    match flat.char_indices().nth(max) {
        Some((cut, _)) => format!("{}…", &flat[..cut]),
        None => flat,
    }
}

/// Search hits, one per line with a snippet.
pub fn search(r: &SearchResult) -> String {
    if r.hits.is_empty() {
        return format!("no chunk matches {:?}", r.query);
    }
    let mut out = String::new();
    for h in &r.hits {
        let score = format!("{:.2}", h.score);
        chunk_line(&mut out, &h.id, &score, &h.title, &h.path, &h.text);
    }
    out
}

/// One ranked chunk as a line: `id (score) title [path]: snippet`.
fn chunk_line(
    out: &mut String,
    id: &dyn std::fmt::Display,
    score: &str,
    title: &str,
    path: &str,
    text: &str,
) {
    let _ = writeln!(
        out,
        "{id} ({score}) {title} [{path}]: {}",
        snippet(text, SNIPPET)
    );
}

/// A passage with its sentence ids.
pub fn read(r: &ReadResult) -> String {
    format!(
        "{} in {} ({}):\n{}",
        r.passage.id, r.passage.doc.title, r.passage.doc.path, r.marked
    )
}

/// An entity, its neighbors and chunks.
pub fn entity(r: &EntityResult) -> String {
    let e = &r.entity;
    let mut out = format!(
        "{} [{}] id={} mentions={}\n",
        e.name, e.kind, e.id, e.mentions
    );
    if !e.aliases.is_empty() {
        let _ = writeln!(out, "aliases: {}", e.aliases.join(", "));
    }
    let _ = writeln!(
        out,
        "chunks ({}): {}",
        r.chunk_count,
        r.chunks
            .iter()
            .take(20)
            .cloned()
            .collect::<Vec<_>>()
            .join(" ")
    );
    out.push_str(&neighbor_lines(&r.neighbors));
    out
}

fn neighbor_lines(neighbors: &[rlmkg_ingest::Neighbor]) -> String {
    let mut out = String::new();
    for n in neighbors {
        let evidence: Vec<String> = n.evidence.iter().map(ToString::to_string).collect();
        let _ = writeln!(
            out,
            "  {} {} [{}] evidence: {}",
            n.relation,
            n.name,
            n.kind,
            evidence.join(" ")
        );
    }
    out
}

/// Neighbors, one per line.
pub fn neighbors(r: &NeighborsResult) -> String {
    if r.neighbors.is_empty() {
        return format!("{} has no neighbors", r.entity);
    }
    format!(
        "neighbors of {}:\n{}",
        r.entity,
        neighbor_lines(&r.neighbors)
    )
}

/// Facts, one per line, each with the sentence that says it.
pub fn facts(r: &FactsResult) -> String {
    if r.facts.is_empty() {
        return format!("no facts of {}", r.entity);
    }
    let mut out = format!("facts of {}:\n", r.entity);
    for f in &r.facts {
        let _ = writeln!(
            out,
            "  {} —{}→ {}  [{}]",
            f.subject_name,
            f.predicate,
            f.object_name,
            f.sentence.as_deref().unwrap_or("-")
        );
    }
    out
}

/// Paths, one per line.
pub fn path(r: &PathResult) -> String {
    if r.paths.is_empty() {
        return "no path within the hops asked".into();
    }
    let mut out = String::new();
    for p in &r.paths {
        let _ = writeln!(out, "{} ({} hops)", p.names.join(" → "), p.steps.len());
        for s in &p.steps {
            let evidence: Vec<String> = s.evidence.iter().map(ToString::to_string).collect();
            let _ = writeln!(
                out,
                "  {} —{}→ {}  evidence: {}",
                s.from,
                s.relation,
                s.to,
                evidence.join(" ")
            );
        }
    }
    out
}

/// Ranked chunks, one per line with a snippet.
pub fn related(r: &RelatedResult) -> String {
    if r.chunks.is_empty() {
        return "no related chunks".into();
    }
    let mut out = String::new();
    for c in &r.chunks {
        let score = format!("{:.4}", c.score);
        chunk_line(&mut out, &c.id, &score, &c.title, &c.path, &c.text);
    }
    out
}

/// Each claim with its verdict and reasons.
pub fn report(r: &Report) -> String {
    let mut out = String::new();
    for c in &r.claims {
        let _ = write!(out, "[{}] {}", c.verdict.as_str(), c.text.trim());
        if !c.reasons.is_empty() {
            let why: Vec<&str> = c.reasons.iter().map(|r| r.detail.as_str()).collect();
            let _ = write!(out, " — {}", why.join("; "));
        }
        out.push('\n');
    }
    let t = &r.totals;
    let _ = write!(
        out,
        "{} claims, {} factual; all supported: {}",
        t.claims,
        t.factual,
        r.all_supported()
    );
    out
}

/// The short answer, the cited text and the verdicts.
pub fn answer(a: &Answer) -> String {
    let mut out = String::new();
    match &a.short_answer {
        Some(s) => {
            let _ = writeln!(out, "Short answer: {} [{}]", s.text, s.citation);
        }
        None => out.push_str("Not found: no evidence answers this question.\n"),
    }
    let _ = writeln!(out, "\n{}\n", a.text.trim());
    out.push_str(&report(&a.verification));
    let _ = write!(out, "\nverified: {}", a.verified);
    out
}

/// Store counts on one line.
pub fn stats(s: &StoreStats) -> String {
    format!(
        "{} files, {} documents, {} chunks, {} entities, {} relations, {} mentions, {} bytes",
        s.files, s.docs, s.chunks, s.entities, s.relations, s.mentions, s.chars
    )
}

/// An ingest summary on one line.
pub fn ingest(s: &IngestSummary) -> String {
    format!(
        "{} files: {} ingested, {} unchanged, {} skipped; {} documents, {} chunks added",
        s.files, s.ingested, s.unchanged, s.skipped, s.docs, s.chunks
    )
}

#[cfg(test)]
mod tests {
    #[test]
    fn snippets_are_cut_on_characters_not_bytes() {
        assert_eq!(super::snippet("Tromsø  is\nnorth", 6), "Tromsø…");
        assert_eq!(super::snippet("short", 10), "short");
    }
}
