//! The segment plan of `context.map` over a store: documents (split at chunk
//! bounds), chunks, the hits of a search, or listed ids (issue 28).

use std::collections::HashSet;

use rlm_core::{HandleError, Segment};
use rlmkg_ids::ChunkId;
use rlmkg_ingest::{Store, StoreError};
use serde_json::Value;

/// Hits a `"search: words"` plan takes.
const SEARCH_SEGMENTS: usize = 50;

/// What a plan names.
enum Plan<'a> {
    /// Every document.
    Docs,
    /// Every chunk.
    Chunks,
    /// The hits of a search.
    Search(&'a str),
    /// Listed chunk or document ids.
    Ids(Vec<String>),
}

fn plan(over: &Value) -> Result<Plan<'_>, HandleError> {
    match over {
        Value::Null => Ok(Plan::Docs),
        Value::String(s) => {
            let t = s.trim();
            let lower = t.to_ascii_lowercase();
            if let Some((head, rest)) = t.split_once(':')
                && head.trim().eq_ignore_ascii_case("search")
            {
                return Ok(Plan::Search(rest.trim()));
            }
            match lower.as_str() {
                "" | "docs" | "documents" | "doc" | "all" => Ok(Plan::Docs),
                "chunks" | "chunk" => Ok(Plan::Chunks),
                _ => Ok(Plan::Ids(vec![t.to_string()])),
            }
        }
        Value::Array(items) => Ok(Plan::Ids(
            items
                .iter()
                .map(|v| match v {
                    Value::String(s) => s.trim().to_string(),
                    Value::Object(m) => m
                        .get("id")
                        .and_then(Value::as_str)
                        .unwrap_or_default()
                        .to_string(),
                    other => other.to_string(),
                })
                .filter(|s| !s.is_empty())
                .collect(),
        )),
        other => Err(HandleError::BadArgument(format!(
            "map: over must be \"docs\", \"chunks\", \"search: words\" or a list of ids, not {other}"
        ))),
    }
}

fn store_err(e: StoreError) -> HandleError {
    HandleError::Failed(e.to_string())
}

/// The segments of `over` in `store`, only chunks `keep` allows, each at most
/// about `max_chars` characters.
pub(crate) fn segments(
    store: &Store,
    over: &Value,
    max_chars: usize,
    keep: &dyn Fn(ChunkId) -> bool,
) -> Result<Vec<Segment>, HandleError> {
    let mut out = Vec::new();
    match plan(over)? {
        Plan::Docs => {
            for d in store.docs().map_err(store_err)? {
                doc_segments(store, &d.id, &d.title, max_chars, keep, &mut out)?;
            }
        }
        Plan::Chunks => {
            for d in store.docs().map_err(store_err)? {
                for c in store.chunk_ids_of_doc(&d.id).map_err(store_err)? {
                    if keep(c) {
                        push_chunk(store, c, &d.title, max_chars, &mut out)?;
                    }
                }
            }
        }
        Plan::Search(words) => {
            if words.is_empty() {
                return Err(HandleError::BadArgument(
                    "map: \"search:\" needs words after it".into(),
                ));
            }
            for hit in store
                .search(words, SEARCH_SEGMENTS)
                .map_err(store_err)?
                .into_iter()
                .filter(|h| keep(h.id))
            {
                out.push(Segment {
                    ids: vec![hit.id.to_string()],
                    label: hit.title,
                    text: clip(&hit.text, max_chars),
                });
            }
        }
        Plan::Ids(ids) => {
            let mut seen = HashSet::new();
            for id in ids {
                if !seen.insert(id.clone()) {
                    continue;
                }
                if let Ok(c) = rlmkg_citation::parse_id(&id) {
                    if keep(c.chunk) {
                        push_chunk(store, c.chunk, "", max_chars, &mut out)?;
                    }
                    continue;
                }
                let chunks = store.chunk_ids_of_doc(&id).map_err(|e| match e {
                    StoreError::UnknownId(_) | StoreError::Invalid(_) => HandleError::NotFound(
                        format!("map: {id:?} is neither a chunk id (c12) nor a document id"),
                    ),
                    other => store_err(other),
                })?;
                if chunks.is_empty() {
                    return Err(HandleError::NotFound(format!(
                        "map: {id:?} is neither a chunk id (c12) nor a document id"
                    )));
                }
                doc_segments(store, &id, &id, max_chars, keep, &mut out)?;
            }
        }
    }
    Ok(out)
}

/// A document's chunks joined into segments of at most about `max_chars`.
fn doc_segments(
    store: &Store,
    doc: &str,
    title: &str,
    max_chars: usize,
    keep: &dyn Fn(ChunkId) -> bool,
    out: &mut Vec<Segment>,
) -> Result<(), HandleError> {
    let mut cur = Segment {
        ids: Vec::new(),
        label: title.to_string(),
        text: String::new(),
    };
    for c in store.chunk_ids_of_doc(doc).map_err(store_err)? {
        if !keep(c) {
            continue;
        }
        let text = store.read(&c.to_string()).map_err(store_err)?.text;
        if !cur.ids.is_empty() && cur.text.chars().count() + text.chars().count() > max_chars {
            out.push(std::mem::replace(
                &mut cur,
                Segment {
                    ids: Vec::new(),
                    label: title.to_string(),
                    text: String::new(),
                },
            ));
        }
        if !cur.text.is_empty() {
            cur.text.push('\n');
        }
        cur.text.push_str(&clip(&text, max_chars));
        cur.ids.push(c.to_string());
    }
    if !cur.ids.is_empty() {
        out.push(cur);
    }
    Ok(())
}

fn push_chunk(
    store: &Store,
    c: ChunkId,
    title: &str,
    max_chars: usize,
    out: &mut Vec<Segment>,
) -> Result<(), HandleError> {
    let p = store.read(&c.to_string()).map_err(store_err)?;
    let label = if title.is_empty() {
        p.doc.title.clone()
    } else {
        title.to_string()
    };
    out.push(Segment {
        ids: vec![c.to_string()],
        label,
        text: clip(&p.text, max_chars),
    });
    Ok(())
}

/// At most `max` characters of `s`.
fn clip(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        Some((at, _)) => s[..at].to_string(),
        None => s.to_string(),
    }
}
