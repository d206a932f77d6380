//! `rlmkg path FROM TO`: shortest connecting paths between two entities.

use clap::Args;
use std::io::Write;

use crate::cli::GlobalArgs;

/// Arguments of `rlmkg path`.
#[derive(Debug, Args)]
pub struct PathArgs {
    /// The entity the paths start from (id, name or alias).
    pub from: String,
    /// The entity the paths lead to (id, name or alias).
    pub to: String,
    /// Longest path, in relation steps.
    #[arg(long, default_value_t = 4)]
    pub max_hops: usize,
}

/// Run `rlmkg path`.
pub fn run(args: PathArgs, global: &GlobalArgs) -> anyhow::Result<u8> {
    let mut stdout = crate::out::stdout();
    let store = super::ingest::open_read(global)?;
    for n in [&args.from, &args.to] {
        if store.entity(n)?.is_none() {
            anyhow::bail!("no entity named {n:?}");
        }
    }
    let paths = store.path(&args.from, &args.to, args.max_hops)?;
    if global.json {
        let out = crate::json::GraphPath::list(&paths);
        writeln!(stdout, "{}", serde_json::to_string_pretty(&out)?)?;
        return Ok(0);
    }
    if paths.is_empty() && !global.quiet {
        eprintln!("no path within {} hops", args.max_hops);
    }
    for (i, p) in paths.iter().enumerate() {
        writeln!(
            stdout,
            "path {} ({} hops): {}",
            i + 1,
            p.steps.len(),
            p.names.join(" → ")
        )?;
        for s in &p.steps {
            writeln!(
                stdout,
                "  {} —{}→ {}   evidence: {}",
                s.from,
                s.relation,
                s.to,
                crate::out::id_list(&s.evidence)
            )?;
        }
    }
    Ok(0)
}
