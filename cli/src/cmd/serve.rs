//! `rlmkg serve`: the HTTP API, the MCP service at `/mcp` and the web page,
//! over one store (`rlmkg-server`).

use std::io::Write as _;
use std::net::IpAddr;
use std::path::PathBuf;
use std::sync::Arc;

use anyhow::Context as _;
use clap::Args;
use rlmkg::Strategy;
use rlmkg_server::http::{ApiKey, Bound, HttpConfig};
use rlmkg_server::ops::{Ops, OpsConfig};
use rlmkg_settings::ModelArgs;

use crate::cli::GlobalArgs;
use crate::cmd::ExitError;

/// The environment variable that may hold the API key.
const KEY_ENV: &str = "RLMKG_SERVE_API_KEY";

/// What `serve` and `mcp` share: the strategy, the run bounds, ingest, models.
#[derive(Debug, Args)]
pub struct RunArgs {
    /// The strategy of `ask` when a request names none [possible values: auto, rlm, heuristic].
    #[arg(long, default_value_t = Strategy::Auto)]
    pub strategy: Strategy,
    /// Runs (`ask`, `ingest`) at once.
    #[arg(long, default_value_t = 4)]
    pub max_runs: usize,
    /// Runs waiting for a slot; past that a run is refused (HTTP 503 with Retry-After).
    #[arg(long, default_value_t = 16)]
    pub run_queue: usize,
    /// Offer `ingest` (files on this machine into the store); read-only without it.
    #[arg(long)]
    pub allow_ingest: bool,
    /// Model and run settings (as for `ask`; their budgets cap what a request may ask).
    #[command(flatten)]
    pub model: ModelArgs,
}

/// Arguments of `rlmkg serve`.
#[derive(Debug, Args)]
pub struct ServeArgs {
    /// The address to listen on; anything but loopback needs an API key.
    #[arg(long, default_value = "127.0.0.1")]
    pub bind: IpAddr,
    /// The port (0: any free port; the address is printed).
    #[arg(long, default_value_t = 8765)]
    pub port: u16,
    /// A file holding the API key requests must carry (`Authorization: Bearer KEY`
    /// or `x-api-key`); else the RLMKG_SERVE_API_KEY environment variable.
    #[arg(long, value_name = "FILE")]
    pub api_key_file: Option<PathBuf>,
    /// The largest request body, in bytes.
    #[arg(long, value_name = "BYTES", default_value_t = 1 << 20)]
    pub max_body: usize,
    /// Seconds a request may take before its response starts (503 after).
    #[arg(long, value_name = "SECONDS", default_value_t = 300)]
    pub request_timeout: u64,
    /// Strategy, run bounds, ingest and models.
    #[command(flatten)]
    pub run: RunArgs,
}

/// The operations over the store as the flags say; a run's wall time is at
/// most `max_wall` when given (a request's time limit).
pub(crate) fn open_ops(
    run: &RunArgs,
    global: &GlobalArgs,
    max_wall: Option<std::time::Duration>,
) -> anyhow::Result<Arc<Ops>> {
    if run.allow_ingest && !global.store.join("manifest.json").exists() {
        // An empty store to ingest into.
        drop(rlmkg::Store::create_or_open(&global.store)?);
    }
    let settings = crate::cmd::settings(&run.model, &global.store)?;
    let backends = rlmkg_settings::build_backends(&settings)
        .map_err(|e| ExitError::backend(crate::out::error_chain(&e)))?;
    if global.verbose > 0 {
        eprintln!("models: {}", backends.description);
    }
    let mut rlm = rlmkg_settings::rlm_config(&settings, &global.store, None)?;
    if let Some(max) = max_wall {
        let wall = &mut rlm.budgets.max_wall_time;
        *wall = Some(wall.map_or(max, |w| w.min(max)));
    }
    let config = OpsConfig {
        store: global.store.clone(),
        models: backends.models,
        strategy: run.strategy,
        rlm,
        check: rlmkg::CheckOptions::default(),
        max_runs: run.max_runs,
        run_queue: run.run_queue,
        allow_ingest: run.allow_ingest,
    };
    let ops = Ops::open(config)
        .with_context(|| format!("opening the store at {}", global.store.display()))?;
    Ok(Arc::new(ops))
}

/// The API key from `--api-key-file`, else the environment; never printed.
fn api_key(file: Option<&PathBuf>) -> anyhow::Result<Option<ApiKey>> {
    let secret = match file {
        Some(f) => std::fs::read_to_string(f)
            .with_context(|| format!("reading the API key file {}", f.display()))?,
        None => match std::env::var(KEY_ENV) {
            Ok(s) => s,
            Err(std::env::VarError::NotPresent) => return Ok(None),
            Err(e) => anyhow::bail!("{KEY_ENV}: {e}"),
        },
    };
    let from = file.map_or_else(|| KEY_ENV.to_string(), |f| f.display().to_string());
    ApiKey::new(&secret)
        .map(Some)
        .with_context(|| format!("the API key from {from}"))
}

/// Until Ctrl-C or SIGTERM.
pub(crate) async fn shutdown() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => {}
        () = term => {}
    }
}

/// Run `rlmkg serve`.
pub fn run(args: ServeArgs, global: &GlobalArgs) -> anyhow::Result<u8> {
    let key = api_key(args.api_key_file.as_ref())?;
    if !args.bind.is_loopback() && key.is_none() {
        // Refused before the store is opened or a port taken.
        anyhow::bail!(rlmkg_server::http::ServeError::KeyRequired(args.bind));
    }
    if args.request_timeout == 0 {
        anyhow::bail!("--request-timeout must be at least 1 second");
    }
    let timeout = std::time::Duration::from_secs(args.request_timeout);
    // A run ends within a request's time limit rather than outliving it.
    let ops = open_ops(&args.run, global, Some(timeout))?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("starting the async runtime")?;
    let keyed = key.is_some();
    let config = HttpConfig {
        bind: args.bind,
        port: args.port,
        api_key: key,
        max_body: args.max_body,
        request_timeout: timeout,
    };
    runtime.block_on(async move {
        let bound = Bound::bind(ops, config).await?;
        let addr = bound.local_addr();
        {
            let mut stdout = crate::out::stdout();
            writeln!(stdout, "listening on http://{addr}")?;
            stdout.flush()?;
        }
        if !global.quiet {
            eprintln!(
                "rlmkg serve: the page at http://{addr}/, the API under /v1, MCP at /mcp; store {}; {}",
                global.store.display(),
                if keyed {
                    "requests need the API key"
                } else {
                    "no API key (loopback only)"
                }
            );
        }
        bound.run(shutdown()).await?;
        anyhow::Ok(())
    })?;
    Ok(0)
}
