//! What an output (a REPL call's printed result) shows that a question does
//! not ask: the chunks it shows and the names in them — the bridges a
//! multi-hop question may go through next. The handle's hints and the
//! review's messages both name them.

use rlmkg_corpus::Corpus;
use rlmkg_ids::ChunkId;

use crate::{Question, expresses_relation};

/// Most names [`unasked_names`] lists.
const MAX_NEXT_NAMES: usize = 6;
/// Most chunks of an output [`unasked_names`] looks up.
pub const MAX_NEXT_CHUNKS: usize = 6;
/// Entity kinds a question goes through.
const BRIDGE_KINDS: &[&str] = &["person", "organization", "place", "work"];

/// The chunk ids an output shows (`[c12.s3]`, `'id': 'c12'`), in order, once each.
pub fn chunk_ids_in(output: &str) -> Vec<ChunkId> {
    let mut out: Vec<ChunkId> = Vec::new();
    let bytes = output.as_bytes();
    let mut i = 0;
    while let Some(at) = output.get(i..).and_then(|r| r.find('c')) {
        let start = i + at;
        i = start + 1;
        let before = start.checked_sub(1).and_then(|b| bytes.get(b)).copied();
        if !matches!(before, Some(b'[' | b'\'' | b'"')) {
            continue;
        }
        let digits = bytes
            .get(start + 1..)
            .unwrap_or_default()
            .iter()
            .take_while(|b| b.is_ascii_digit())
            .count();
        if digits == 0 {
            continue;
        }
        if let Some(Ok(id)) = output
            .get(start..start + 1 + digits)
            .map(str::parse::<ChunkId>)
            && !out.contains(&id)
        {
            out.push(id);
        }
    }
    out
}

/// The names of people, organizations, places and works in the chunks an
/// output shows that the output spells out and the question does not, in the
/// order the output shows them: names in a sentence that expresses one of
/// the question's relations other than its answer relation first, then
/// names in a sentence holding one of its content words.
pub fn unasked_names<C: Corpus + ?Sized>(
    store: &C,
    question: &Question,
    output: &str,
) -> Vec<String> {
    let q = question.lower();
    let mut found: Vec<(usize, String)> = Vec::new();
    for chunk in chunk_ids_in(output).into_iter().take(MAX_NEXT_CHUNKS) {
        let Ok(entities) = store.entities_of_chunk(chunk) else {
            continue;
        };
        for e in entities {
            if !BRIDGE_KINDS.contains(&e.kind.as_str())
                || q.contains(&e.name.to_lowercase())
                || found.iter().any(|(_, n)| n == &e.name)
            {
                continue;
            }
            if let Some(at) = output.find(&e.name) {
                found.push((at, e.name));
            }
        }
    }
    // Names in a sentence that expresses a relation of the question ("founded
    // by X" for "the founder of …") first, then names in a sentence that holds
    // a word of the question: the likeliest bridges.
    let lower = output.to_lowercase();
    let words = question.content_words();
    let answer = question.answer_relation();
    let relations: Vec<&String> = question
        .relations()
        .iter()
        .filter(|r| Some(r.as_str()) != answer)
        .collect();
    let sentence_at = |at: usize| {
        let at = at.min(lower.len());
        let from = lower
            .get(..at)
            .and_then(|h| h.rfind(['.', ']']))
            .map_or(0, |i| i + 1);
        let to = lower
            .get(at..)
            .and_then(|t| t.find(['.', '[']))
            .map_or(lower.len(), |i| at + i);
        lower.get(from..to).unwrap_or_default()
    };
    let rank = |at: usize| {
        let s = sentence_at(at);
        if relations.iter().any(|r| expresses_relation(r, s)) {
            0
        } else if words.iter().any(|w| s.contains(w.as_str())) {
            1
        } else {
            2
        }
    };
    found.sort_by_key(|(at, _)| (rank(*at), *at));
    found
        .into_iter()
        .take(MAX_NEXT_NAMES)
        .map(|(_, n)| n)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::chunk_ids_in;

    #[test]
    fn chunk_ids_are_read_from_outputs() {
        let out = "[{'id': 'c22', 'text': '[c22.s1] x [c7.s3] y'}] cat c9 [c22.s2] \"c40\" [cx] [c";
        let ids: Vec<String> = chunk_ids_in(out).iter().map(|c| c.to_string()).collect();
        assert_eq!(ids, ["c22", "c7", "c40"]);
    }
}
