//! Token counting for chunk sizes (SPEC §4.2): a `tokenizers` tokenizer when
//! one is configured, else the documented approximation of one token per four
//! bytes, rounded up.
//!
//! A tokenizer is named by a path to a `tokenizer.json`, a path to a `.gguf`
//! model (its folder must hold a `tokenizer.json`), a folder holding a
//! `tokenizer.json`, or a Hugging Face repo id (`Qwen/Qwen2.5-0.5B-Instruct`)
//! looked up in the local Hugging Face cache only — never the network.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use tokenizers::Tokenizer;

use crate::manifest::{APPROX_IDENTITY, Settings};
use crate::text::approx_tokens;

/// The `--tokenizer` value that selects the approximation.
pub const APPROX_SPEC: &str = "approx";

/// Why a tokenizer cannot be used.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TokenizerError {
    /// No file, folder or cached repo by that name.
    #[error(
        "tokenizer {spec}: no such file or folder (give a tokenizer.json, a .gguf beside a \
         tokenizer.json, a folder holding one, or a Hugging Face repo id like Org/Name)"
    )]
    NotFound {
        /// What was asked for.
        spec: String,
    },
    /// A GGUF model or a folder without a `tokenizer.json` beside it.
    #[error("tokenizer {spec}: no tokenizer.json found at {expected}")]
    NoTokenizerJson {
        /// What was asked for.
        spec: String,
        /// Where it was looked for.
        expected: PathBuf,
    },
    /// A repo id that is not in the local Hugging Face cache.
    #[error(
        "tokenizer {repo}: not a file, and no tokenizer.json for that repo in the local Hugging \
         Face cache ({looked}); download it there first (rlmkg never fetches tokenizers) or give a path"
    )]
    NotInCache {
        /// The repo id.
        repo: String,
        /// The snapshots folder looked in.
        looked: String,
    },
    /// The file exists but is not a tokenizer.
    #[error("tokenizer {path}: not a valid tokenizer.json: {message}")]
    Invalid {
        /// The file.
        path: PathBuf,
        /// The parser's message.
        message: String,
    },
    /// The file cannot be read.
    #[error("tokenizer {path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The store was chunked with a tokenizer that cannot be loaded any more.
    #[error(
        "the store was chunked with {identity} from {source_spec}, which cannot be loaded ({cause}); \
         pass --tokenizer PATH|REPO to use a tokenizer (or --tokenizer approx for the bytes/4 \
         approximation) and the files are re-chunked"
    )]
    Recorded {
        /// The recorded tokenizer identity.
        identity: String,
        /// Where it was loaded from.
        source_spec: String,
        /// Why loading it failed now.
        cause: Box<TokenizerError>,
    },
}

/// Counts tokens of sentences: the approximation or a loaded tokenizer. Cheap
/// to clone (the tokenizer is shared).
#[derive(Clone, Default)]
pub struct TokenCounter {
    inner: Option<Arc<Loaded>>,
}

struct Loaded {
    tokenizer: Tokenizer,
    identity: String,
    source: String,
}

impl std::fmt::Debug for TokenCounter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TokenCounter")
            .field("identity", &self.identity())
            .field("source", &self.source())
            .finish()
    }
}

impl TokenCounter {
    /// The approximation: one token per four bytes, rounded up.
    pub fn approx() -> Self {
        Self::default()
    }

    /// Load a `tokenizer.json` file.
    pub fn from_file(path: &Path) -> Result<Self, TokenizerError> {
        Self::load(path, absolute(path))
    }

    fn load(path: &Path, source: String) -> Result<Self, TokenizerError> {
        let bytes = std::fs::read(path).map_err(|e| TokenizerError::Io {
            path: path.to_path_buf(),
            source: e,
        })?;
        let tokenizer = Tokenizer::from_bytes(&bytes).map_err(|e| TokenizerError::Invalid {
            path: path.to_path_buf(),
            message: e.to_string(),
        })?;
        let hash = blake3::hash(&bytes).to_hex();
        let name = path.file_name().map_or_else(
            || path.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        );
        Ok(Self {
            inner: Some(Arc::new(Loaded {
                tokenizer,
                identity: format!("tokenizers: {name} blake3:{}", &hash.as_str()[..16]),
                source,
            })),
        })
    }

    /// Resolve a `--tokenizer` value: `approx`, a `tokenizer.json`, a `.gguf`
    /// (the `tokenizer.json` in its folder), a folder holding a `tokenizer.json`,
    /// or a Hugging Face repo id found in the local cache (see [`hf_hub_cache`]).
    pub fn resolve(spec: &str) -> Result<Self, TokenizerError> {
        if spec == APPROX_SPEC {
            return Ok(Self::approx());
        }
        let path = Path::new(spec);
        // Record what was configured (the .gguf or folder), absolute, so a later
        // re-ingest from another directory finds the same tokenizer.
        if path.is_dir() {
            let json = path.join("tokenizer.json");
            if !json.is_file() {
                return Err(TokenizerError::NoTokenizerJson {
                    spec: spec.to_string(),
                    expected: json,
                });
            }
            Self::load(&json, absolute(path))
        } else if path.is_file() {
            let is_gguf = path
                .extension()
                .is_some_and(|e| e.eq_ignore_ascii_case("gguf"));
            if is_gguf {
                let json = path.parent().map_or_else(
                    || PathBuf::from("tokenizer.json"),
                    |p| p.join("tokenizer.json"),
                );
                if !json.is_file() {
                    return Err(TokenizerError::NoTokenizerJson {
                        spec: spec.to_string(),
                        expected: json,
                    });
                }
                Self::load(&json, absolute(path))
            } else {
                Self::from_file(path)
            }
        } else if is_repo_id(spec) {
            let hub = hf_hub_cache();
            match hub.as_deref().and_then(|h| cached_tokenizer(h, spec)) {
                Some(json) => Self::load(&json, spec.to_string()),
                None => Err(TokenizerError::NotInCache {
                    repo: spec.to_string(),
                    looked: hub.map_or_else(
                        || "no cache folder: HF_HUB_CACHE, HF_HOME and HOME are unset".into(),
                        |h| repo_dir(&h, spec).join("snapshots").display().to_string(),
                    ),
                }),
            }
        } else {
            Err(TokenizerError::NotFound {
                spec: spec.to_string(),
            })
        }
    }

    /// The counter a store's recorded settings name: the approximation, or the
    /// tokenizer loaded again from where it was configured.
    pub fn for_settings(settings: &Settings) -> Result<Self, TokenizerError> {
        match &settings.tokenizer_source {
            None => Ok(Self::approx()),
            Some(source) => Self::resolve(source).map_err(|e| TokenizerError::Recorded {
                identity: settings.tokenizer.clone(),
                source_spec: source.clone(),
                cause: Box::new(e),
            }),
        }
    }

    /// Tokens in `text`. With a tokenizer: the number of tokens it encodes to
    /// without special tokens (the approximation should encoding ever fail).
    pub fn count(&self, text: &str) -> usize {
        match &self.inner {
            None => approx_tokens(text),
            Some(l) => l
                .tokenizer
                .encode_fast(text, false)
                .map_or_else(|_| approx_tokens(text), |e| e.len()),
        }
    }

    /// How tokens are counted, as recorded in the store: `approx: bytes/4` or
    /// `tokenizers: <file name> blake3:<first 16 hex digits of the file's hash>`.
    pub fn identity(&self) -> &str {
        self.inner
            .as_ref()
            .map_or(APPROX_IDENTITY, |l| l.identity.as_str())
    }

    /// Where the tokenizer was configured from (an absolute path or a repo id);
    /// None for the approximation.
    pub fn source(&self) -> Option<&str> {
        self.inner.as_ref().map(|l| l.source.as_str())
    }

    /// True for the bytes/4 approximation.
    pub fn is_approx(&self) -> bool {
        self.inner.is_none()
    }
}

fn absolute(path: &Path) -> String {
    std::fs::canonicalize(path)
        .unwrap_or_else(|_| path.to_path_buf())
        .to_string_lossy()
        .into_owned()
}

/// `Org/Name`: one slash, both parts made of letters, digits, `-`, `_`, `.`,
/// neither starting with a dot, and not a file name ending `.json` / `.gguf`.
fn is_repo_id(spec: &str) -> bool {
    let Some((org, name)) = spec.split_once('/') else {
        return false;
    };
    let lower = name.to_ascii_lowercase();
    if lower.ends_with(".json") || lower.ends_with(".gguf") {
        return false;
    }
    let ok = |s: &str| {
        !s.is_empty()
            && !s.starts_with('.')
            && s.chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
    };
    ok(org) && ok(name)
}

/// The local Hugging Face hub cache: `$HF_HUB_CACHE`, else `$HF_HOME/hub`, else
/// `$XDG_CACHE_HOME/huggingface/hub`, else `~/.cache/huggingface/hub`.
pub fn hf_hub_cache() -> Option<PathBuf> {
    let var = |k: &str| std::env::var_os(k).filter(|v| !v.is_empty());
    if let Some(p) = var("HF_HUB_CACHE") {
        return Some(PathBuf::from(p));
    }
    if let Some(p) = var("HF_HOME") {
        return Some(PathBuf::from(p).join("hub"));
    }
    if let Some(p) = var("XDG_CACHE_HOME") {
        return Some(PathBuf::from(p).join("huggingface").join("hub"));
    }
    var("HOME").map(|h| {
        PathBuf::from(h)
            .join(".cache")
            .join("huggingface")
            .join("hub")
    })
}

fn repo_dir(hub: &Path, repo: &str) -> PathBuf {
    hub.join(format!("models--{}", repo.replace('/', "--")))
}

/// The `tokenizer.json` of `repo` in the cache: the snapshot `refs/main` names
/// when it has one, else the most recently modified snapshot that has one.
fn cached_tokenizer(hub: &Path, repo: &str) -> Option<PathBuf> {
    let dir = repo_dir(hub, repo);
    let snapshots = dir.join("snapshots");
    if let Ok(main) = std::fs::read_to_string(dir.join("refs").join("main")) {
        let json = snapshots.join(main.trim()).join("tokenizer.json");
        if !main.trim().is_empty() && json.is_file() {
            return Some(json);
        }
    }
    std::fs::read_dir(&snapshots)
        .ok()?
        .filter_map(Result::ok)
        .filter_map(|e| {
            let json = e.path().join("tokenizer.json");
            let modified = e.metadata().and_then(|m| m.modified()).ok()?;
            json.is_file().then_some((modified, json))
        })
        .max()
        .map(|(_, json)| json)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repo_ids() {
        assert!(is_repo_id("Qwen/Qwen2.5-0.5B-Instruct"));
        assert!(is_repo_id("HuggingFaceTB/SmolLM2-135M"));
        assert!(!is_repo_id("tokenizer.json"));
        assert!(!is_repo_id("./a/b"));
        assert!(!is_repo_id("/abs/path"));
        assert!(!is_repo_id("a/b/c"));
        assert!(!is_repo_id("a/"));
        assert!(!is_repo_id("models/tokenizer.json"));
        assert!(!is_repo_id("models/m.Q4_K_M.GGUF"));
    }

    fn fixture() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/tokenizer/tokenizer.json")
    }

    #[test]
    fn word_level_fixture_counts_words_and_punctuation() {
        let c = TokenCounter::from_file(&fixture()).unwrap();
        assert!(!c.is_approx());
        // Whitespace pre-tokenizer: `\w+|[^\w\s]+`, one token each.
        assert_eq!(c.count("The Skarvik expedition (1911) sailed north."), 9);
        assert_eq!(c.count(""), 0);
        let id = c.identity();
        assert!(id.starts_with("tokenizers: tokenizer.json blake3:"), "{id}");
        assert_eq!(id.len(), "tokenizers: tokenizer.json blake3:".len() + 16);
        assert!(Path::new(c.source().unwrap()).is_absolute());
    }

    #[test]
    fn gguf_sibling_folder_and_cache_snapshots() {
        let dir = tempfile::tempdir().unwrap();
        let model = dir.path().join("model");
        std::fs::create_dir_all(&model).unwrap();
        std::fs::write(model.join("m.Q4_K_M.gguf"), b"GGUF").unwrap();
        let gguf = model.join("m.Q4_K_M.gguf");
        let err = TokenCounter::resolve(gguf.to_str().unwrap()).unwrap_err();
        assert!(
            matches!(err, TokenizerError::NoTokenizerJson { .. }),
            "{err}"
        );
        std::fs::copy(fixture(), model.join("tokenizer.json")).unwrap();
        let want = TokenCounter::from_file(&fixture()).unwrap();
        for spec in [&gguf, &model] {
            let c = TokenCounter::resolve(spec.to_str().unwrap()).unwrap();
            assert_eq!(c.identity(), want.identity());
            assert_eq!(Path::new(c.source().unwrap()), spec.canonicalize().unwrap());
        }
        // Cache: refs/main wins over a newer snapshot; without it, the newest.
        let hub = dir.path().join("hub");
        let snaps = repo_dir(&hub, "Org/Tiny").join("snapshots");
        for rev in ["aaa", "bbb"] {
            std::fs::create_dir_all(snaps.join(rev)).unwrap();
            std::fs::copy(fixture(), snaps.join(rev).join("tokenizer.json")).unwrap();
        }
        assert_eq!(
            cached_tokenizer(&hub, "Org/Tiny").unwrap(),
            snaps.join("bbb").join("tokenizer.json")
        );
        let refs = repo_dir(&hub, "Org/Tiny").join("refs");
        std::fs::create_dir_all(&refs).unwrap();
        std::fs::write(refs.join("main"), "aaa\n").unwrap();
        assert_eq!(
            cached_tokenizer(&hub, "Org/Tiny").unwrap(),
            snaps.join("aaa").join("tokenizer.json")
        );
        assert!(cached_tokenizer(&hub, "Org/Other").is_none());
    }

    #[test]
    fn clear_errors() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("nope.json");
        let err = TokenCounter::resolve(missing.to_str().unwrap()).unwrap_err();
        assert!(matches!(err, TokenizerError::NotFound { .. }), "{err}");
        let bad = dir.path().join("tokenizer.json");
        std::fs::write(&bad, "{\"not\": \"a tokenizer\"}").unwrap();
        let err = TokenCounter::resolve(bad.to_str().unwrap()).unwrap_err();
        assert!(matches!(err, TokenizerError::Invalid { .. }), "{err}");
        assert!(
            err.to_string().contains("not a valid tokenizer.json"),
            "{err}"
        );
        let recorded = Settings {
            tokenizer: "tokenizers: tokenizer.json blake3:0123456789abcdef".into(),
            tokenizer_source: Some(missing.to_string_lossy().into_owned()),
            ..Settings::default()
        };
        let err = TokenCounter::for_settings(&recorded).unwrap_err();
        assert!(err.to_string().contains("pass --tokenizer"), "{err}");
        assert!(
            TokenCounter::for_settings(&Settings::default())
                .unwrap()
                .is_approx()
        );
    }

    #[test]
    fn approximation() {
        let c = TokenCounter::resolve("approx").unwrap();
        assert!(c.is_approx());
        assert_eq!(c.identity(), APPROX_IDENTITY);
        assert_eq!(c.count("abcde"), 2);
        assert_eq!(c.count(""), 0);
    }
}
