//! Shared test support: an in-memory corpus handle.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::sync::Arc;

use rlm_core::{ContextHandle, CorpusMetadata, HandleError, HandleFunction, HandleReply};
use serde_json::{Map, Value, json};

/// A handle over a few chunks held in memory; `search` is a case-insensitive
/// substring match, `read` returns the chunk text with sentence ids.
#[derive(Debug, Clone)]
pub struct MemHandle {
    pub chunks: Vec<(String, String, String)>, // (id, doc title, text)
}

impl MemHandle {
    pub fn sample() -> Self {
        Self {
            chunks: vec![
                (
                    "c1".into(),
                    "Marie Curie".into(),
                    "Marie Curie was born in Warsaw. She studied in Paris.".into(),
                ),
                (
                    "c2".into(),
                    "Pierre Curie".into(),
                    "Pierre Curie married Marie Curie in 1895.".into(),
                ),
                (
                    "c3".into(),
                    "Warsaw".into(),
                    "Warsaw is the capital of Poland.".into(),
                ),
            ],
        }
    }
}

impl ContextHandle for MemHandle {
    fn functions(&self) -> Vec<HandleFunction> {
        vec![
            HandleFunction {
                name: "search".into(),
                signature: "search(query, k=10)".into(),
                doc: "substring search".into(),
            },
            HandleFunction {
                name: "read".into(),
                signature: "read(id)".into(),
                doc: "chunk text".into(),
            },
            HandleFunction {
                name: "docs".into(),
                signature: "docs()".into(),
                doc: "document titles".into(),
            },
        ]
    }

    fn call(
        &self,
        name: &str,
        args: &[Value],
        kwargs: &Map<String, Value>,
    ) -> Result<HandleReply, HandleError> {
        match name {
            "search" => {
                let q = args
                    .first()
                    .and_then(Value::as_str)
                    .ok_or_else(|| {
                        HandleError::BadArgument("search(query): query must be a str".into())
                    })?
                    .to_lowercase();
                let k = args
                    .get(1)
                    .or_else(|| kwargs.get("k"))
                    .and_then(Value::as_u64)
                    .unwrap_or(10) as usize;
                let hits: Vec<Value> = self
                    .chunks
                    .iter()
                    .filter(|(_, _, t)| q.split_whitespace().any(|w| t.to_lowercase().contains(w)))
                    .take(k)
                    .map(|(id, title, t)| json!({"id": id, "doc": title, "score": 1.0, "text": t, "title": title}))
                    .collect();
                let shown = hits
                    .iter()
                    .filter_map(|h| h.get("id").and_then(Value::as_str).map(str::to_owned))
                    .collect();
                Ok(HandleReply::showing(Value::Array(hits), shown))
            }
            "read" => {
                let id = args.first().and_then(Value::as_str).unwrap_or_default();
                self.chunks
                    .iter()
                    .find(|(cid, _, _)| cid == id)
                    .map(|(cid, _, t)| {
                        HandleReply::showing(
                            Value::String(format!("[{cid}.s1] {t}")),
                            vec![id.to_owned()],
                        )
                    })
                    .ok_or_else(|| HandleError::NotFound(format!("no chunk {id}")))
            }
            "docs" => Ok(Value::Array(
                self.chunks
                    .iter()
                    .map(|(_, t, _)| Value::String(t.clone()))
                    .collect(),
            )
            .into()),
            other => Err(HandleError::UnknownFunction(other.into())),
        }
    }

    fn metadata(&self) -> CorpusMetadata {
        CorpusMetadata {
            documents: self.chunks.len(),
            chunks: self.chunks.len(),
            characters: self.chunks.iter().map(|c| c.2.len() as u64).sum(),
            sample_titles: self.chunks.iter().map(|c| c.1.clone()).collect(),
            ..Default::default()
        }
    }

    fn corpus_text(&self, max_chars: usize) -> Option<String> {
        let t: String = self.chunks.iter().map(|c| format!("{}\n", c.2)).collect();
        (t.len() <= max_chars).then_some(t)
    }

    fn scoped(&self, ids: &[String]) -> Result<Arc<dyn ContextHandle>, HandleError> {
        Ok(Arc::new(Self {
            chunks: self
                .chunks
                .iter()
                .filter(|c| ids.contains(&c.0))
                .cloned()
                .collect(),
        }))
    }
}
