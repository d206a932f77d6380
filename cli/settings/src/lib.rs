//! Model flags shared by `ask`, `eval`, `verify --judge` and `ingest --extract llm`
//! (SPEC §6), and building backends from them.
//!
//! Every setting resolves as flags > environment (`RLMKG_<NAME>`; the API key also
//! falls back to `OPENAI_API_KEY`) > `rlmkg.toml` in the store > the user config file
//! (`$RLMKG_CONFIG`, else `$XDG_CONFIG_HOME/rlmkg/config.toml`, else
//! `~/.config/rlmkg/config.toml`) > built-in default. Config files use the flag names
//! with underscores as top-level keys, e.g.
//!
//! ```toml
//! base_url = "http://127.0.0.1:8000/v1"
//! model = "mit-oasys/rlm-qwen3-8b-v0.1"
//! sub_model = "Qwen/Qwen3-8B"
//! temperature = 0.6
//! top_k = 20
//! ```
//!
//! **Several servers of one model.** `--base-url` and `--sub-base-url` may be
//! given more than once (or as a comma-separated list: `RLMKG_SUB_BASE_URL=
//! http://a:8000/v1,http://b:8000/v1`, or a TOML array), and an entry
//! `@FILE` stands for the URLs in FILE, one a line (blank lines and lines
//! starting with `#` are skipped). Calls then go to the least busy healthy
//! server, and a failing one is skipped for a while (`rlm_core::PoolModel`).
//!
//! **Trust rule for a store's `rlmkg.toml`.** A store directory may come from
//! someone else (a shared or downloaded store), so its file may say how to run
//! (model names, sampling, budgets, profile, context windows) but not where
//! requests go, which credentials go with them, or which local files are read:
//! [`UNTRUSTED_IN_STORE`] keys found there are ignored with a warning unless the
//! user trusts the store's config with `--trust-store-config` or
//! `RLMKG_TRUST_STORE_CONFIG=1`. Flags, the environment and the user config file
//! are the user's own and always count.
//!
//! Backend choice ([`build_backends`], through the library's `BackendConfig`): an explicit base URL and model select the
//! OpenAI-compatible HTTP backend; else `--model-path` or an installed default model
//! selects the embedded model (as the sub-model; as the root model too only with
//! `--embedded-root`); else there is no model and the caller says so.
// Only the binary prints (ARCHITECTURE.md): a library reports through return values and traits.
#![deny(clippy::print_stdout, clippy::print_stderr)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use clap::Args;
use rlm_core::{Budgets, Profile, Protocol, RlmConfig, Sampling, ServerKind};
use rlmkg::backends::{BackendConfig, Backends, EmbeddedChoice, HttpModel};

/// Errors of resolving settings: a bad value, an unreadable or malformed
/// config file, or backends the settings cannot build.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SettingsError {
    /// A setting has a value it cannot take, or settings disagree.
    #[error("{0}")]
    Invalid(String),
    /// A config or prompt file could not be read.
    #[error("reading {}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// A config file is not valid TOML.
    #[error("parsing {}", path.display())]
    Parse {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: toml::de::Error,
    },
    /// The selected backends could not be built.
    #[error(transparent)]
    Backend(#[from] rlmkg::backends::BackendError),
}

/// The result of settings calls.
pub type Result<T, E = SettingsError> = std::result::Result<T, E>;

fn invalid(msg: impl Into<String>) -> SettingsError {
    SettingsError::Invalid(msg.into())
}

/// The one list of settings. Each entry gives the flag (its doc is the help
/// text), and from the same entry come the config-file and environment key
/// ([`KEYS`]), the flag layer of resolution and the typed value ([`Typed`]).
/// A new setting is one entry here plus its use.
macro_rules! settings {
    ($( $(#[$meta:meta])* $name:ident : $ty:ty, )*) => {
        /// Model and run settings (flags). Every flag can also come from the
        /// environment or a config file; see the module documentation.
        #[derive(Debug, Clone, Default, Args)]
        pub struct ModelArgs {
            $( $(#[$meta])* pub $name: Option<$ty>, )*
            /// Honour endpoint, key and file settings from the store's own rlmkg.toml
            /// (or RLMKG_TRUST_STORE_CONFIG=1); without it they are ignored.
            #[arg(long, help_heading = "Run")]
            pub trust_store_config: bool,
        }

        /// Every setting key, in display order.
        pub const KEYS: &[&str] = &[$(stringify!($name)),*];

        /// The settings given as flags, as text.
        fn flag_values(a: &ModelArgs) -> BTreeMap<&'static str, String> {
            let mut m = BTreeMap::new();
            $(
                if let Some(v) = &a.$name {
                    m.insert(stringify!($name), SettingValue::to_text(v));
                }
            )*
            m
        }

        /// Every setting parsed to its type (unset ones are `None`).
        #[derive(Debug, Clone, Default)]
        pub struct Typed {
            $( #[doc = concat!("`", stringify!($name), "`.")] pub $name: Option<$ty>, )*
        }

        impl Settings {
            /// Every setting parsed to its type; a bad value is an error naming
            /// its key and where it came from.
            pub fn typed(&self) -> Result<Typed> {
                Ok(Typed {
                    $( $name: self.parse(stringify!($name))?, )*
                })
            }
        }
    };
}

/// A value a setting can hold: written as text (flags, files, the environment
/// all meet as text) and read back.
trait SettingValue: Sized {
    fn to_text(&self) -> String;
    fn from_text(text: &str) -> Result<Self, String>;
}

macro_rules! setting_value_from_str {
    ($($t:ty),*) => {$(
        impl SettingValue for $t {
            fn to_text(&self) -> String {
                self.to_string()
            }
            fn from_text(text: &str) -> Result<Self, String> {
                text.parse().map_err(|e: <$t as std::str::FromStr>::Err| e.to_string())
            }
        }
    )*};
}

setting_value_from_str!(String, f32, f64, u32, u64, usize);

/// A list: comma-separated text (repeated flags are joined so), empty
/// entries dropped.
impl SettingValue for Vec<String> {
    fn to_text(&self) -> String {
        self.join(",")
    }
    fn from_text(text: &str) -> Result<Self, String> {
        let items: Vec<String> = text
            .split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_owned)
            .collect();
        if items.is_empty() {
            return Err("the list is empty".into());
        }
        Ok(items)
    }
}

impl SettingValue for PathBuf {
    fn to_text(&self) -> String {
        self.display().to_string()
    }
    fn from_text(text: &str) -> Result<Self, String> {
        Ok(PathBuf::from(text))
    }
}

impl SettingValue for bool {
    fn to_text(&self) -> String {
        self.to_string()
    }
    fn from_text(text: &str) -> Result<Self, String> {
        match text.to_ascii_lowercase().as_str() {
            "true" | "1" | "yes" | "on" => Ok(true),
            "false" | "0" | "no" | "off" => Ok(false),
            other => Err(format!("{other:?} is not a yes/no value (true or false)")),
        }
    }
}

settings! {
    /// Base URL of an OpenAI-compatible server (e.g. http://127.0.0.1:8000/v1); repeat it (or give a,b, or @FILE with one URL a line) for several servers of the model: calls go to the least busy healthy one.
    #[arg(long, help_heading = "Model", value_delimiter = ',')]
    base_url: Vec<String>,
    /// Model name on that server (root model).
    #[arg(long, help_heading = "Model")]
    model: String,
    /// API key (or RLMKG_API_KEY, then OPENAI_API_KEY).
    #[arg(long, help_heading = "Model")]
    api_key: String,
    /// Model for sub-calls (default: the root model).
    #[arg(long, help_heading = "Model")]
    sub_model: String,
    /// Base URL for sub-calls (default: the root base URLs); repeat it (or give a,b, or @FILE with one URL a line) to spread sub-calls over several servers.
    #[arg(long, help_heading = "Model", value_delimiter = ',')]
    sub_base_url: Vec<String>,
    /// API key for sub-calls (default: the root key).
    #[arg(long, help_heading = "Model")]
    sub_api_key: String,
    /// Sampling temperature.
    #[arg(long, help_heading = "Model")]
    temperature: f32,
    /// Nucleus sampling mass.
    #[arg(long, help_heading = "Model")]
    top_p: f32,
    /// Top-k (sent as an extra body field).
    #[arg(long, help_heading = "Model")]
    top_k: u32,
    /// Maximum tokens per reply.
    #[arg(long, help_heading = "Model")]
    max_tokens: u32,
    /// Sampling seed.
    #[arg(long, help_heading = "Model")]
    seed: u64,
    /// Context window of the root model in tokens (when the server does not say).
    #[arg(long, help_heading = "Model")]
    context_window: usize,
    /// Context window of the sub-model in tokens.
    #[arg(long, help_heading = "Model")]
    sub_context_window: usize,
    /// The kind of OpenAI-compatible server (openai, vllm, llama-cpp, llama-cpp-python, ollama); asked of the server when not set.
    #[arg(long, help_heading = "Model")]
    server: String,
    /// HTTP request timeout in seconds.
    #[arg(long, help_heading = "Model")]
    timeout: f64,
    /// A GGUF file for the embedded model.
    #[arg(long, help_heading = "Embedded model")]
    model_path: PathBuf,
    /// CPU threads for the embedded model.
    #[arg(long, help_heading = "Embedded model")]
    threads: usize,
    /// Context window of the embedded model in tokens.
    #[arg(long, help_heading = "Embedded model")]
    ctx: usize,
    /// Use the embedded model as the root model too (it is the sub-model by default).
    #[arg(long, help_heading = "Embedded model", num_args = 0, default_missing_value = "true")]
    embedded_root: bool,
    /// Concurrent sub-calls per backend.
    #[arg(long, help_heading = "Run")]
    concurrency: usize,
    /// Do not read or write the model-call cache.
    #[arg(long, help_heading = "Run", num_args = 0, default_missing_value = "true")]
    no_cache: bool,
    /// Prompt profile: kg, paper, dict or small (default: small for root models under 10B parameters, else kg).
    #[arg(long, help_heading = "Run")]
    profile: String,
    /// How the root model acts: code (its reply is started as a ```repl block), tools (OpenAI tool calls), free (it writes ```repl blocks unprompted) or auto.
    #[arg(long, help_heading = "Run")]
    protocol: String,
    /// A file whose text replaces the profile's system prompt.
    #[arg(long, help_heading = "Run")]
    system_prompt: PathBuf,
    /// Maximum root turns.
    #[arg(long, help_heading = "Budgets")]
    max_iterations: u32,
    /// Maximum rlm_query depth.
    #[arg(long, help_heading = "Budgets")]
    max_depth: u32,
    /// Maximum sub-calls.
    #[arg(long, help_heading = "Budgets")]
    max_sub_calls: u64,
    /// Maximum total tokens (prompt + completion).
    #[arg(long, help_heading = "Budgets")]
    max_total_tokens: u64,
    /// Maximum wall time in seconds.
    #[arg(long, help_heading = "Budgets")]
    max_seconds: f64,
    /// Maximum cost (needs prices).
    #[arg(long, help_heading = "Budgets")]
    max_cost: f64,
    /// A SPARQL 1.1 endpoint the store's RDF was exported to (`rlmkg export --to-endpoint`): `rlmkg sparql` and `context.sparql` query it instead of building the RDF in memory.
    #[arg(long, help_heading = "SPARQL endpoint")]
    sparql_endpoint: String,
    /// User for the SPARQL endpoint (HTTP Basic).
    #[arg(long, help_heading = "SPARQL endpoint")]
    endpoint_user: String,
    /// Password for the SPARQL endpoint (better: RLMKG_ENDPOINT_PASSWORD or --endpoint-auth-file).
    #[arg(long, help_heading = "SPARQL endpoint")]
    endpoint_password: String,
    /// A file holding `user:password` for the SPARQL endpoint (its first line).
    #[arg(long, help_heading = "SPARQL endpoint")]
    endpoint_auth_file: PathBuf,
}

/// Settings a store's `rlmkg.toml` may not make without the user's trust: where
/// requests go, the keys sent with them, and local files read (see the module
/// documentation).
pub const UNTRUSTED_IN_STORE: &[&str] = &[
    "base_url",
    "sub_base_url",
    "api_key",
    "sub_api_key",
    "model_path",
    "system_prompt",
    "sparql_endpoint",
    "endpoint_user",
    "endpoint_password",
    "endpoint_auth_file",
];

/// Where a setting came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// A command-line flag.
    Flag,
    /// An environment variable.
    Env(String),
    /// `rlmkg.toml` in the store.
    StoreFile(PathBuf),
    /// The user config file.
    UserFile(PathBuf),
}

impl std::fmt::Display for Source {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Flag => write!(f, "flag"),
            Self::Env(v) => write!(f, "env {v}"),
            Self::StoreFile(p) | Self::UserFile(p) => write!(f, "{}", p.display()),
        }
    }
}

fn is_secret(key: &str) -> bool {
    key.ends_with("api_key") || key.ends_with("password")
}

/// Settings after resolution: each key's value (as text) and its source.
#[derive(Debug, Clone, Default)]
pub struct Settings {
    values: BTreeMap<String, (String, Source)>,
    ignored: Vec<(String, PathBuf)>,
}

impl Settings {
    /// Keys the store's own file set but the trust rule ignored, with the file.
    pub fn ignored(&self) -> &[(String, PathBuf)] {
        &self.ignored
    }

    /// A duration setting in seconds (finite, positive, at most 30 days).
    fn duration(&self, key: &str, secs: Option<f64>) -> Result<Option<Duration>> {
        let Some(secs) = secs else {
            return Ok(None);
        };
        let src = self
            .source(key)
            .map(ToString::to_string)
            .unwrap_or_default();
        rlm_core::duration::parse_secs(key, secs)
            .map(Some)
            .map_err(|e| invalid(format!("setting {e} (from {src})")))
    }

    /// The value of `key`, if set anywhere.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.values.get(key).map(|(v, _)| v.as_str())
    }

    /// The source of `key`.
    pub fn source(&self, key: &str) -> Option<&Source> {
        self.values.get(key).map(|(_, s)| s)
    }

    fn parse<T: SettingValue>(&self, key: &str) -> Result<Option<T>> {
        match self.values.get(key) {
            None => Ok(None),
            Some((v, src)) => T::from_text(v)
                .map(Some)
                .map_err(|e| invalid(format!("setting {key} = {v:?} (from {src}): {e}"))),
        }
    }

    /// Rows for `rlmkg config show`: (key, value with secrets masked, source).
    pub fn rows(&self) -> Vec<(String, String, String)> {
        KEYS.iter()
            .map(|k| match self.values.get(*k) {
                Some((v, src)) => {
                    let shown = if is_secret(k) { mask(v) } else { v.clone() };
                    (k.to_string(), shown, src.to_string())
                }
                None => (k.to_string(), "-".to_string(), "unset".to_string()),
            })
            .collect()
    }
}

/// Mask a secret, keeping only its last four characters when it is long enough.
pub fn mask(secret: &str) -> String {
    let n = secret.chars().count();
    if n <= 8 {
        "****".to_string()
    } else {
        let tail: String = secret.chars().skip(n - 4).collect();
        format!("****{tail}")
    }
}

/// The user config file path.
pub fn user_config_path() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("RLMKG_CONFIG") {
        return Some(PathBuf::from(p));
    }
    if let Some(x) = std::env::var_os("XDG_CONFIG_HOME").filter(|x| !x.is_empty()) {
        return Some(PathBuf::from(x).join("rlmkg").join("config.toml"));
    }
    std::env::var_os("HOME").map(|h| {
        PathBuf::from(h)
            .join(".config")
            .join("rlmkg")
            .join("config.toml")
    })
}

fn toml_text(v: &toml::Value) -> String {
    match v {
        toml::Value::String(s) => s.clone(),
        // A list setting (`base_url = ["http://a/v1", "http://b/v1"]`) is
        // read as the comma-separated text the flags and environment give.
        toml::Value::Array(items) => items.iter().map(toml_text).collect::<Vec<_>>().join(","),
        other => other.to_string(),
    }
}

fn read_file_layer(path: &Path) -> Result<BTreeMap<String, String>> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(BTreeMap::new()),
        Err(source) => {
            return Err(SettingsError::Read {
                path: path.to_path_buf(),
                source,
            });
        }
    };
    let table: toml::Table = text.parse().map_err(|source| SettingsError::Parse {
        path: path.to_path_buf(),
        source,
    })?;
    let mut out = BTreeMap::new();
    for (k, v) in table {
        // A [model] table is accepted too, its keys read as top-level ones
        // (and checked like them).
        let entries: Vec<(String, toml::Value)> = match v {
            toml::Value::Table(inner) => {
                if k != "model" {
                    return Err(invalid(format!(
                        "{}: unknown table [{k}] (settings go at the top level or in [model])",
                        path.display()
                    )));
                }
                inner.into_iter().collect()
            }
            v => vec![(k, v)],
        };
        for (k, v) in entries {
            let key = k.replace('-', "_");
            if !KEYS.contains(&key.as_str()) {
                return Err(invalid(format!(
                    "{}: unknown setting {k:?} (known: {})",
                    path.display(),
                    KEYS.join(", ")
                )));
            }
            out.insert(key, toml_text(&v));
        }
    }
    Ok(out)
}

/// Resolve settings: flags > environment > `<store>/rlmkg.toml` > user config file.
/// Keys the trust rule set aside are in [`Settings::ignored`], for the caller to warn about.
pub fn resolve(args: &ModelArgs, store: &Path) -> Result<Settings> {
    resolve_with(args, store, |k| std::env::var(k).ok(), user_config_path())
}

/// [`resolve`] with the environment and user file given (for tests).
pub fn resolve_with(
    args: &ModelArgs,
    store: &Path,
    env: impl Fn(&str) -> Option<String>,
    user_file: Option<PathBuf>,
) -> Result<Settings> {
    let flags = flag_values(args);
    let store_file = store.join("rlmkg.toml");
    let store_layer = read_file_layer(&store_file)?;
    let user_layer = match &user_file {
        Some(p) => read_file_layer(p)?,
        None => BTreeMap::new(),
    };
    let trusted = args.trust_store_config
        || env("RLMKG_TRUST_STORE_CONFIG")
            .is_some_and(|v| matches!(v.as_str(), "1" | "true" | "yes"));
    let mut s = Settings::default();
    for key in KEYS {
        let var = format!("RLMKG_{}", key.to_ascii_uppercase());
        let env_val = env(&var)
            .filter(|v| !v.is_empty())
            .map(|v| (v, Source::Env(var.clone())))
            .or_else(|| {
                (*key == "api_key")
                    .then(|| env("OPENAI_API_KEY").filter(|v| !v.is_empty()))
                    .flatten()
                    .map(|v| (v, Source::Env("OPENAI_API_KEY".into())))
            });
        let mut found = flags
            .get(key)
            .map(|v| (v.clone(), Source::Flag))
            .or(env_val);
        if found.is_none()
            && let Some(v) = store_layer.get(*key)
        {
            if trusted || !UNTRUSTED_IN_STORE.contains(key) {
                found = Some((v.clone(), Source::StoreFile(store_file.clone())));
            } else {
                s.ignored.push((key.to_string(), store_file.clone()));
            }
        }
        let found = found.or_else(|| {
            user_layer
                .get(*key)
                .zip(user_file.clone())
                .map(|(v, p)| (v.clone(), Source::UserFile(p)))
        });
        if let Some(v) = found {
            s.values.insert(key.to_string(), v);
        }
    }
    // Bad durations are usage errors here, before any backend is built.
    for key in ["timeout", "max_seconds"] {
        s.duration(key, s.parse(key)?)?;
    }
    Ok(s)
}

/// The endpoints a list setting names, each once in the order given: its
/// URLs, with `@FILE` entries read (one URL a line; blank lines and `#`
/// comments skipped). `None` when the setting is unset.
fn endpoints(key: &str, entries: Option<&[String]>) -> Result<Option<Vec<String>>> {
    let Some(entries) = entries else {
        return Ok(None);
    };
    fn add(urls: &mut Vec<String>, url: &str) {
        if !urls.iter().any(|u| u == url) {
            urls.push(url.to_owned());
        }
    }
    let mut urls: Vec<String> = Vec::new();
    for entry in entries {
        let Some(file) = entry.strip_prefix('@') else {
            add(&mut urls, entry);
            continue;
        };
        let path = PathBuf::from(file);
        let text = std::fs::read_to_string(&path).map_err(|source| SettingsError::Read {
            path: path.clone(),
            source,
        })?;
        let named: Vec<&str> = text
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty() && !l.starts_with('#'))
            .collect();
        if named.is_empty() {
            return Err(invalid(format!(
                "setting {key}: {} names no server (one URL a line)",
                path.display()
            )));
        }
        for url in named {
            add(&mut urls, url);
        }
    }
    Ok(Some(urls))
}

fn sampling(t: &Typed) -> Sampling {
    Sampling {
        temperature: t.temperature,
        top_p: t.top_p,
        top_k: t.top_k,
        max_tokens: t.max_tokens,
        seed: t.seed,
        stop: Vec::new(),
    }
}

/// The typed backend configuration the settings give (see the module
/// documentation): the binary's one mapping onto the library's [`BackendConfig`].
pub fn backend_config(s: &Settings) -> Result<BackendConfig> {
    let t = s.typed()?;
    if t.base_url.is_some() != t.model.is_some() {
        return Err(invalid("an HTTP model needs both --base-url and --model"));
    }
    let root_window = t.context_window;
    let server = t
        .server
        .as_deref()
        .map(str::parse::<ServerKind>)
        .transpose()
        .map_err(invalid)?;
    let roots = endpoints("base_url", t.base_url.as_deref())?;
    let subs = endpoints("sub_base_url", t.sub_base_url.as_deref())?;
    let http = match (roots.as_deref(), t.model.clone()) {
        (Some([base_url, replicas @ ..]), Some(model)) => Some(HttpModel {
            base_url: base_url.clone(),
            replicas: replicas.to_vec(),
            model,
            api_key: t.api_key.clone(),
            context_window: root_window,
            server,
        }),
        _ => None,
    };
    let sub_http = http.as_ref().map(|root| {
        let (base_url, replicas) = match subs.as_deref() {
            Some([first, rest @ ..]) => (first.clone(), rest.to_vec()),
            _ => (root.base_url.clone(), root.replicas.clone()),
        };
        HttpModel {
            base_url,
            replicas,
            model: t.sub_model.clone().unwrap_or_else(|| root.model.clone()),
            api_key: t.sub_api_key.clone().or_else(|| root.api_key.clone()),
            context_window: t.sub_context_window.or(root_window),
            // The sub-model's server is the root's only when it has the root's URL.
            server: if t.sub_base_url.is_none() {
                server
            } else {
                None
            },
        }
    });
    Ok(BackendConfig {
        http,
        sub_http,
        embedded: Some(EmbeddedChoice {
            path: t.model_path.clone(),
            options: rlm_core::embedded::EmbeddedOptions {
                threads: t.threads,
                ctx: t.ctx,
                ..Default::default()
            },
            as_root: t.embedded_root.unwrap_or(false),
        }),
        sampling: sampling(&t),
        timeout: s.duration("timeout", t.timeout)?,
    })
}

/// Build the backends the settings select.
pub fn build_backends(s: &Settings) -> Result<Backends> {
    Ok(backend_config(s)?.build()?)
}

/// The run configuration the settings give, with the cache in `<store>/cache/calls`
/// and the trajectory at `trace_path`.
pub fn rlm_config(s: &Settings, store: &Path, trace_path: Option<PathBuf>) -> Result<RlmConfig> {
    let t = s.typed()?;
    let mut cfg = RlmConfig::default();
    if let Some(p) = &t.profile {
        cfg.profile = Some(p.parse::<Profile>().map_err(invalid)?);
    }
    if let Some(p) = &t.protocol {
        cfg.protocol = p.parse::<Protocol>().map_err(invalid)?;
    }
    if let Some(p) = &t.system_prompt {
        cfg.system_prompt =
            Some(
                std::fs::read_to_string(p).map_err(|source| SettingsError::Read {
                    path: p.clone(),
                    source,
                })?,
            );
    }
    let d = Budgets::default();
    cfg.budgets = Budgets {
        max_iterations: t.max_iterations.unwrap_or(d.max_iterations),
        max_depth: t.max_depth.unwrap_or(d.max_depth),
        max_sub_calls: t.max_sub_calls.or(d.max_sub_calls),
        max_total_tokens: t.max_total_tokens,
        max_wall_time: s
            .duration("max_seconds", t.max_seconds)?
            .or(d.max_wall_time),
        max_cost: match t.max_cost {
            Some(c) if !(c.is_finite() && c >= 0.0) => {
                return Err(invalid(format!(
                    "setting max_cost = {c}: it must be a finite number >= 0"
                )));
            }
            other => other,
        },
    };
    let sm = sampling(&t);
    cfg.root_sampling = sm.clone();
    cfg.sub_sampling = sm;
    if let Some(c) = t.concurrency {
        if !(1..=rlm_core::MAX_CONCURRENCY).contains(&c) {
            return Err(invalid(format!(
                "setting concurrency = {c}: it must be between 1 and {}",
                rlm_core::MAX_CONCURRENCY
            )));
        }
        cfg.concurrency = Some(c);
    }
    cfg.cache_dir = (!t.no_cache.unwrap_or(false)).then(|| store.join("cache").join("calls"));
    cfg.trace_path = trace_path;
    Ok(cfg)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn precedence_flags_env_store_user() {
        let dir = tempfile_dir();
        std::fs::write(
            dir.join("rlmkg.toml"),
            "model = \"store-model\"\nbase_url = \"http://store/v1\"\ntop_k = 20\n",
        )
        .unwrap();
        let user = dir.join("user.toml");
        std::fs::write(
            &user,
            "model = \"user-model\"\nseed = 7\ntemperature = 0.1\n",
        )
        .unwrap();
        let env = |k: &str| match k {
            "RLMKG_TEMPERATURE" => Some("0.5".to_string()),
            "OPENAI_API_KEY" => Some("sk-secret-123456".to_string()),
            _ => None,
        };
        let args = ModelArgs {
            base_url: Some(vec!["http://flag/v1".into()]),
            ..Default::default()
        };
        let s = resolve_with(&args, &dir, env, Some(user.clone())).unwrap();
        assert_eq!(s.get("base_url"), Some("http://flag/v1"));
        assert_eq!(s.source("base_url"), Some(&Source::Flag));
        assert_eq!(s.get("temperature"), Some("0.5"));
        assert_eq!(s.get("model"), Some("store-model"));
        assert_eq!(s.get("top_k"), Some("20"));
        assert_eq!(s.get("seed"), Some("7"));
        assert_eq!(s.source("seed"), Some(&Source::UserFile(user)));
        assert_eq!(
            s.source("api_key"),
            Some(&Source::Env("OPENAI_API_KEY".into()))
        );
        let rows = s.rows();
        let key_row = rows.iter().find(|r| r.0 == "api_key").unwrap();
        assert_eq!(key_row.1, "****3456");
        assert!(!format!("{rows:?}").contains("secret"));
        let cfg = rlm_config(&s, &dir, None).unwrap();
        assert_eq!(cfg.root_sampling.top_k, Some(20));
        assert!(cfg.cache_dir.is_some());
        let b = build_backends(&s).unwrap();
        assert_eq!(
            b.models.root.unwrap().id(),
            "openai:http://flag/v1:store-model"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn store_config_may_not_choose_endpoints_keys_or_files_unless_trusted() {
        let dir = tempfile_dir();
        std::fs::write(
            dir.join("rlmkg.toml"),
            "base_url = \"http://evil.example/v1\"\napi_key = \"sk-stolen\"\nmodel = \"m\"\ntop_k = 5\nsystem_prompt = \"/etc/passwd\"\n",
        )
        .unwrap();
        let s = resolve_with(&ModelArgs::default(), &dir, |_| None, None).unwrap();
        assert_eq!(s.get("base_url"), None);
        assert_eq!(s.get("api_key"), None);
        assert_eq!(s.get("system_prompt"), None);
        assert_eq!(s.get("model"), Some("m"));
        assert_eq!(s.get("top_k"), Some("5"));
        let ignored: Vec<&str> = s.ignored().iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(ignored, ["base_url", "api_key", "system_prompt"]);
        let env = |k: &str| (k == "RLMKG_TRUST_STORE_CONFIG").then(|| "1".to_string());
        let s = resolve_with(&ModelArgs::default(), &dir, env, None).unwrap();
        assert_eq!(s.get("base_url"), Some("http://evil.example/v1"));
        let args = ModelArgs {
            trust_store_config: true,
            ..Default::default()
        };
        let s = resolve_with(&args, &dir, |_| None, None).unwrap();
        assert_eq!(s.get("api_key"), Some("sk-stolen"));
        assert!(s.ignored().is_empty());
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn durations_negative_nan_or_infinite_are_usage_errors() {
        let dir = tempfile_dir();
        for bad in ["-1", "NaN", "inf", "1e20", "0"] {
            for key in ["timeout", "max_seconds"] {
                let var = format!("RLMKG_{}", key.to_uppercase());
                let env = |k: &str| (k == var).then(|| bad.to_string());
                let err = resolve_with(&ModelArgs::default(), &dir, env, None)
                    .err()
                    .unwrap_or_else(|| panic!("{key} = {bad} accepted"));
                let msg = err.to_string();
                assert!(msg.contains(key) && msg.contains("not a duration"), "{msg}");
            }
        }
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn unknown_keys_and_bad_values_are_errors() {
        let dir = tempfile_dir();
        for bad in [
            "modle = \"x\"\n",
            "[model]\nmodle = \"x\"\n",
            "[modle]\nmodel = \"x\"\n",
        ] {
            std::fs::write(dir.join("rlmkg.toml"), bad).unwrap();
            assert!(
                resolve_with(&ModelArgs::default(), &dir, |_| None, None).is_err(),
                "{bad}"
            );
        }
        std::fs::write(dir.join("rlmkg.toml"), "[model]\nmodel = \"x\"\n").unwrap();
        let s = resolve_with(&ModelArgs::default(), &dir, |_| None, None).unwrap();
        assert_eq!(s.get("model"), Some("x"));
        std::fs::write(dir.join("rlmkg.toml"), "top_k = \"many\"\n").unwrap();
        let s = resolve_with(&ModelArgs::default(), &dir, |_| None, None).unwrap();
        assert!(rlm_config(&s, &dir, None).is_err());
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn switches_and_values_parse_from_flags_env_and_files() {
        use clap::Parser as _;
        #[derive(clap::Parser)]
        struct Cli {
            #[command(flatten)]
            m: ModelArgs,
        }
        let c = Cli::try_parse_from(["x", "--no-cache", "--max-depth", "2"]).unwrap();
        assert_eq!(
            (c.m.no_cache, c.m.max_depth, c.m.embedded_root),
            (Some(true), Some(2), None)
        );
        let dir = tempfile_dir();
        let env = |k: &str| (k == "RLMKG_EMBEDDED_ROOT").then(|| "yes".to_string());
        let t = resolve_with(&c.m, &dir, env, None)
            .unwrap()
            .typed()
            .unwrap();
        assert_eq!(
            (t.no_cache, t.embedded_root, t.max_depth),
            (Some(true), Some(true), Some(2))
        );
        let env = |k: &str| (k == "RLMKG_NO_CACHE").then(|| "maybe".to_string());
        let err = resolve_with(&ModelArgs::default(), &dir, env, None)
            .unwrap()
            .typed()
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("no_cache") && err.contains("RLMKG_NO_CACHE"),
            "{err}"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn several_servers_from_repeated_flags_lists_files_env_and_toml_arrays() {
        use clap::Parser as _;
        #[derive(clap::Parser)]
        struct Cli {
            #[command(flatten)]
            m: ModelArgs,
        }
        let dir = tempfile_dir();
        let list = dir.join("servers.txt");
        std::fs::write(
            &list,
            "# the sub-model's servers\nhttp://c/v1\n\n  http://d/v1  \nhttp://a/v1\n",
        )
        .unwrap();
        let at = format!("@{}", list.display());
        let c = Cli::try_parse_from([
            "x",
            "--model",
            "m",
            "--base-url",
            "http://a/v1",
            "--base-url",
            "http://b/v1,http://a/v1",
            "--sub-base-url",
            &at,
        ])
        .unwrap();
        let s = resolve_with(&c.m, &dir, |_| None, None).unwrap();
        assert_eq!(
            s.get("base_url"),
            Some("http://a/v1,http://b/v1,http://a/v1")
        );
        let b = backend_config(&s).unwrap();
        let root = b.http.unwrap();
        assert_eq!(
            (root.base_url.as_str(), root.replicas.as_slice()),
            ("http://a/v1", &["http://b/v1".to_owned()][..])
        );
        let sub = b.sub_http.unwrap();
        assert_eq!(sub.base_url, "http://c/v1");
        assert_eq!(sub.replicas, ["http://d/v1", "http://a/v1"]);
        // The sub-model defaults to the root's servers, all of them.
        let env = |k: &str| match k {
            "RLMKG_BASE_URL" => Some("http://a/v1, http://b/v1".to_string()),
            "RLMKG_MODEL" => Some("m".to_string()),
            _ => None,
        };
        let s = resolve_with(&ModelArgs::default(), &dir, env, None).unwrap();
        let b = backend_config(&s).unwrap();
        assert_eq!(b.sub_http.unwrap().replicas, ["http://b/v1"]);
        // A user config file may list them as a TOML array.
        let user = dir.join("user.toml");
        std::fs::write(
            &user,
            "model = \"m\"\nsub_base_url = [\"http://e/v1\", \"http://f/v1\"]\nbase_url = \"http://a/v1\"\n",
        )
        .unwrap();
        let s = resolve_with(&ModelArgs::default(), &dir, |_| None, Some(user)).unwrap();
        let b = backend_config(&s).unwrap();
        assert!(b.http.unwrap().replicas.is_empty());
        assert_eq!(b.sub_http.unwrap().replicas, ["http://f/v1"]);
        // A file that names no server, or none at all, is an error.
        std::fs::write(&list, "# nothing yet\n").unwrap();
        let c = Cli::try_parse_from(["x", "--model", "m", "--base-url", &at]).unwrap();
        let s = resolve_with(&c.m, &dir, |_| None, None).unwrap();
        let err = backend_config(&s).unwrap_err().to_string();
        assert!(err.contains("names no server"), "{err}");
        let missing = format!("@{}", dir.join("absent.txt").display());
        let c = Cli::try_parse_from(["x", "--model", "m", "--base-url", &missing]).unwrap();
        let s = resolve_with(&c.m, &dir, |_| None, None).unwrap();
        assert!(matches!(
            backend_config(&s),
            Err(SettingsError::Read { .. })
        ));
        let _ = std::fs::remove_dir_all(&dir);
    }

    fn tempfile_dir() -> PathBuf {
        let d = std::env::temp_dir().join(format!(
            "rlmkg-model-args-{}-{}",
            std::process::id(),
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_nanos())
                .unwrap_or(0)
        ));
        std::fs::create_dir_all(&d).unwrap();
        d
    }
}
