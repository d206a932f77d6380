//! `rlmkg config show`: the effective model and run settings, each with its source
//! (flag, environment variable, store or user config file), secrets masked.

use clap::{Args, Subcommand};
use std::io::Write;

use crate::cli::GlobalArgs;
use rlmkg_settings::{ModelArgs, user_config_path};

/// Arguments of `rlmkg config`.
#[derive(Debug, Args)]
pub struct ConfigArgs {
    /// What to do.
    #[command(subcommand)]
    pub action: ConfigAction,
}

/// `rlmkg config` actions.
#[derive(Debug, Subcommand)]
pub enum ConfigAction {
    /// Print the effective settings with their sources.
    Show(ShowArgs),
}

/// Arguments of `rlmkg config show`.
#[derive(Debug, Args)]
pub struct ShowArgs {
    /// The flags, as `ask` would take them.
    #[command(flatten)]
    pub model: ModelArgs,
}

/// Run `rlmkg config`.
pub fn run(args: ConfigArgs, global: &GlobalArgs) -> anyhow::Result<u8> {
    let mut stdout = crate::out::stdout();
    let ConfigAction::Show(show) = args.action;
    let settings = crate::cmd::settings(&show.model, &global.store)?;
    let rows = settings.rows();
    let store_file = global.store.join("rlmkg.toml");
    let user_file = user_config_path();
    if global.json {
        let settings: Vec<serde_json::Value> = rows
            .iter()
            .map(|(k, v, s)| serde_json::json!({"key": k, "value": if v == "-" { None } else { Some(v) }, "source": s}))
            .collect();
        let out = serde_json::json!({
            "store_file": store_file,
            "user_file": user_file,
            "settings": settings,
        });
        writeln!(stdout, "{}", serde_json::to_string_pretty(&out)?)?;
        return Ok(0);
    }
    writeln!(stdout, "store config: {}", store_file.display())?;
    match &user_file {
        Some(p) => writeln!(stdout, "user config:  {}", p.display())?,
        None => writeln!(stdout, "user config:  (none: HOME is not set)")?,
    }
    writeln!(stdout)?;
    writeln!(stdout, "{:<20} {:<40} source", "setting", "value")?;
    for (k, v, s) in rows {
        writeln!(stdout, "{k:<20} {v:<40} {s}")?;
    }
    Ok(0)
}
