//! `rlmkg entity`: an entity, its aliases and its neighbors.

use clap::Args;
use std::io::Write;

use crate::cli::GlobalArgs;

/// Arguments of `rlmkg entity`.
#[derive(Debug, Args)]
pub struct EntityArgs {
    /// Entity id, name or alias.
    #[arg(required = true)]
    pub name: Vec<String>,
    /// Number of neighbors.
    #[arg(long, short = 'k', default_value_t = 15)]
    pub k: usize,
    /// Only neighbors across this relation label.
    #[arg(long)]
    pub relation: Option<String>,
}

/// Run `rlmkg entity`.
pub fn run(args: EntityArgs, global: &GlobalArgs) -> anyhow::Result<u8> {
    let mut stdout = crate::out::stdout();
    let store = super::ingest::open_read(global)?;
    let name = args.name.join(" ");
    let Some(e) = store.entity(&name)? else {
        let similar = store.entities(&name, 5)?;
        let mut list: Vec<String> = similar
            .iter()
            .map(|e| format!("{} ({})", e.name, e.id))
            .collect();
        // Names near by meaning (dense retrieval on): "Lindqvist" → Ivar Lindqvist.
        for (e, score) in store.similar_entities(&name, 5)? {
            let shown = format!("{} ({})", e.name, e.id);
            if !list.contains(&shown) {
                list.push(format!("{shown} [by meaning {score:.2}]"));
            }
        }
        if list.is_empty() {
            anyhow::bail!("no entity named {name:?}");
        }
        anyhow::bail!("no entity named {name:?}; similar: {}", list.join(", "));
    };
    let neighbors = store.neighbors(&e.id, args.k, args.relation.as_deref())?;
    let chunks = store.chunks_of_entity(&e.id)?;
    if global.json {
        let v = crate::json::Entity::new(&e, &neighbors, &chunks);
        writeln!(stdout, "{}", serde_json::to_string_pretty(&v)?)?;
        return Ok(0);
    }
    writeln!(
        stdout,
        "{} [{}] id={} mentions={}",
        e.name, e.kind, e.id, e.mentions
    )?;
    if !e.aliases.is_empty() {
        writeln!(stdout, "aliases: {}", e.aliases.join(", "))?;
    }
    writeln!(
        stdout,
        "chunks: {}",
        crate::out::id_list(chunks.iter().take(20))
    )?;
    // Facts first, grouped by predicate; co-occurrence after, as weak evidence.
    let (mut facts, cooccurs): (Vec<_>, Vec<_>) = neighbors
        .iter()
        .partition(|n| rlmkg_ingest::is_fact(&n.relation));
    facts.sort_by(|a, b| a.relation.cmp(&b.relation));
    for (title, list) in [("facts", facts), ("co-occurs (weak evidence)", cooccurs)] {
        if list.is_empty() {
            continue;
        }
        writeln!(stdout, "{title}:")?;
        for n in list {
            writeln!(
                stdout,
                "  {:<24} {:<32} w={:<4} evidence: {}",
                n.relation,
                format!("{} [{}]", n.name, n.kind),
                n.weight,
                crate::out::id_list(&n.evidence)
            )?;
        }
    }
    Ok(0)
}
