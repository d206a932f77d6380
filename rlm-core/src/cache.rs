//! The content-addressed on-disk cache of model calls (SPEC §5.3.4).
//!
//! The key is the BLAKE3 hash of the backend id, the sampling settings and the
//! messages, so any change to any of them misses. Entries are JSON files
//! `<dir>/<first two hex digits>/<hash>.json`, written to a temporary name and
//! renamed, so a crash never leaves a half-written entry that later reads as valid.

use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::model::{ChatRequest, ChatResponse};

/// An on-disk cache of chat completions.
#[derive(Debug, Clone)]
pub struct CallCache {
    dir: PathBuf,
}

#[derive(Serialize)]
struct KeyMaterial<'a> {
    backend: &'a str,
    request: &'a ChatRequest,
}

/// Largest cache entry read; a reply is capped well below this when it arrives.
pub const MAX_ENTRY_BYTES: u64 = 64 * 1024 * 1024;

impl CallCache {
    /// A cache rooted at `dir` (created on first write).
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        Self { dir: dir.into() }
    }

    /// The directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The key of a request to the backend with id `backend`.
    pub fn key(backend: &str, request: &ChatRequest) -> String {
        let material = serde_json::to_vec(&KeyMaterial { backend, request }).unwrap_or_default();
        blake3::hash(&material).to_hex().to_string()
    }

    fn path(&self, key: &str) -> PathBuf {
        let prefix = key.get(..2).unwrap_or("00");
        self.dir.join(prefix).join(format!("{key}.json"))
    }

    /// A cached response, if present, a regular file (not a link to `/dev/zero` or
    /// elsewhere: the store may come from someone else) and at most
    /// [`MAX_ENTRY_BYTES`].
    pub fn get(&self, key: &str) -> Option<ChatResponse> {
        use std::io::Read as _;
        let path = self.path(key);
        let meta = std::fs::symlink_metadata(&path).ok()?;
        if !meta.is_file() || meta.len() > MAX_ENTRY_BYTES {
            return None;
        }
        let mut bytes = Vec::new();
        std::fs::File::open(&path)
            .ok()?
            .take(MAX_ENTRY_BYTES)
            .read_to_end(&mut bytes)
            .ok()?;
        serde_json::from_slice(&bytes).ok()
    }

    /// Store a response. Failures are returned, never fatal for the caller.
    pub fn put(&self, key: &str, response: &ChatResponse) -> std::io::Result<()> {
        let path = self.path(key);
        let Some(parent) = path.parent() else {
            return Ok(());
        };
        std::fs::create_dir_all(parent)?;
        let tmp = parent.join(format!(".{key}.{}.tmp", std::process::id()));
        let bytes = serde_json::to_vec(response).map_err(std::io::Error::other)?;
        std::fs::write(&tmp, bytes)?;
        std::fs::rename(&tmp, &path)
    }
}

/// BLAKE3 of a text, hex, shortened to 16 digits (for trajectories).
pub fn short_hash(text: &str) -> String {
    let mut h = blake3::hash(text.as_bytes()).to_hex().to_string();
    h.truncate(16);
    h
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{FinishReason, Message, Usage};

    #[cfg(unix)]
    #[test]
    fn an_entry_that_links_elsewhere_is_not_read() {
        let dir = std::env::temp_dir().join(format!("rlmkg-cache-link-{}", std::process::id()));
        let c = CallCache::new(&dir);
        let key = CallCache::key("b", &ChatRequest::default());
        let path = c.path(&key);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::os::unix::fs::symlink("/dev/zero", &path).unwrap();
        assert!(c.get(&key).is_none());
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn roundtrip_and_key_sensitivity() {
        let dir = tempfile::tempdir().unwrap();
        let cache = CallCache::new(dir.path());
        let mut req = ChatRequest {
            messages: vec![Message::user("hi")],
            ..Default::default()
        };
        let k1 = CallCache::key("a", &req);
        assert_ne!(k1, CallCache::key("b", &req));
        req.sampling.temperature = Some(0.5);
        let k2 = CallCache::key("a", &req);
        assert_ne!(k1, k2);
        assert!(cache.get(&k1).is_none());
        let resp = ChatResponse {
            content: "hello".into(),
            reasoning: None,
            usage: Usage {
                prompt_tokens: 3,
                completion_tokens: 1,
            },
            finish: FinishReason::Stop,
            model: "m".into(),
            tool_calls: Vec::new(),
            started: false,
            server: None,
        };
        cache.put(&k1, &resp).unwrap();
        assert_eq!(cache.get(&k1), Some(resp));
        assert!(cache.get(&k2).is_none());
    }
}
