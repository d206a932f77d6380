//! `rlmkg sparql`: a read-only SPARQL query against the graph.

use std::io::Write;
use std::time::Duration;

use anyhow::Context;
use clap::Args;
use rlmkg_ingest::SparqlOutput;

use crate::cli::GlobalArgs;

/// Arguments of `rlmkg sparql`.
#[derive(Debug, Args)]
pub struct SparqlArgs {
    /// The query; `@FILE` reads it from a file, `-` from stdin. Prefix `rk:` is
    /// `https://rlmkg.invalid/ns#`.
    pub query: String,
    /// Time limit in seconds.
    #[arg(long, default_value_t = 30)]
    pub timeout: u64,
    /// Query this SPARQL 1.1 endpoint (the store's RDF exported there with
    /// `rlmkg export --to-endpoint`) instead of building the RDF in memory
    /// (or RLMKG_SPARQL_ENDPOINT, or `sparql_endpoint` in rlmkg.toml).
    #[arg(long)]
    pub sparql_endpoint: Option<String>,
    /// A file holding `user:password` for the endpoint (or
    /// RLMKG_ENDPOINT_USER and RLMKG_ENDPOINT_PASSWORD).
    #[arg(long)]
    pub endpoint_auth_file: Option<std::path::PathBuf>,
}

/// The endpoint settings name (flags given here over the environment and
/// config files), if any: `url` overrides `sparql_endpoint`.
pub(crate) fn endpoint(
    global: &GlobalArgs,
    url: Option<String>,
    auth_file: Option<std::path::PathBuf>,
) -> anyhow::Result<Option<rlmkg_endpoint::Endpoint>> {
    let args = rlmkg_settings::ModelArgs {
        sparql_endpoint: url,
        endpoint_auth_file: auth_file,
        ..Default::default()
    };
    endpoint_of(&super::settings(&args, &global.store)?)
}

/// The endpoint resolved settings name (`sparql_endpoint` with its
/// credentials), if any.
pub(crate) fn endpoint_of(
    settings: &rlmkg_settings::Settings,
) -> anyhow::Result<Option<rlmkg_endpoint::Endpoint>> {
    let t = settings.typed()?;
    let Some(url) = t.sparql_endpoint.filter(|u| !u.is_empty()) else {
        return Ok(None);
    };
    let auth = match (t.endpoint_auth_file, t.endpoint_user) {
        (Some(f), _) => {
            let text = std::fs::read_to_string(&f)
                .with_context(|| format!("reading the endpoint credentials {}", f.display()))?;
            let line = text.lines().next().unwrap_or("").trim();
            let Some((user, password)) = line.split_once(':') else {
                anyhow::bail!("{}: the first line is not user:password", f.display());
            };
            Some(rlmkg_endpoint::Auth {
                user: user.to_string(),
                password: password.to_string(),
            })
        }
        (None, Some(user)) => Some(rlmkg_endpoint::Auth {
            user,
            password: t.endpoint_password.unwrap_or_default(),
        }),
        (None, None) => None,
    };
    Ok(Some(rlmkg_endpoint::Endpoint::new(&url, auth)?))
}

const PREFIXES: &str = "PREFIX rk: <https://rlmkg.invalid/ns#>\nPREFIX rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#>\n";

/// Run `rlmkg sparql`.
pub fn run(args: SparqlArgs, global: &GlobalArgs) -> anyhow::Result<u8> {
    let mut stdout = crate::out::stdout();
    let text = if args.query == "-" {
        std::io::read_to_string(std::io::stdin()).context("reading the query from stdin")?
    } else if let Some(f) = args.query.strip_prefix('@') {
        std::fs::read_to_string(f).with_context(|| format!("reading {f}"))?
    } else {
        args.query
    };
    let query = if text.to_ascii_lowercase().contains("prefix rk:") {
        text
    } else {
        format!("{PREFIXES}{text}")
    };
    let mut store = super::ingest::open_read(global)?;
    if let Some(e) = endpoint(global, args.sparql_endpoint, args.endpoint_auth_file)? {
        store.set_sparql_remote(Some(std::sync::Arc::new(e)));
    }
    let out = store.sparql(&query, Duration::from_secs(args.timeout))?;
    if global.json {
        let json = crate::json::Sparql::from(&out);
        writeln!(stdout, "{}", serde_json::to_string_pretty(&json)?)?;
        return Ok(0);
    }
    match out {
        SparqlOutput::Select { vars, rows } => {
            writeln!(
                stdout,
                "{}",
                vars.iter()
                    .map(|v| format!("?{v}"))
                    .collect::<Vec<_>>()
                    .join("\t")
            )?;
            for r in rows {
                writeln!(
                    stdout,
                    "{}",
                    r.into_iter()
                        .map(|c| c.unwrap_or_default())
                        .collect::<Vec<_>>()
                        .join("\t")
                )?;
            }
        }
        SparqlOutput::Ask { value } => writeln!(stdout, "{value}")?,
        SparqlOutput::Graph { triples } => {
            for t in triples {
                writeln!(stdout, "{t}")?;
            }
        }
    }
    Ok(0)
}
