//! `rlmkg graph-check`: how much of what a corpus says the graph knows
//! (issue 43). The corpus is ingested into `OUT/store` (incrementally), then:
//! for every passage whose text names another passage's title, is there an
//! edge, and a fact, between the two subjects; with `--musique`, is each hop
//! of the questions' decompositions a fact.

use std::io::Write;
use std::path::PathBuf;

use anyhow::Context;
use clap::Args;

use crate::cli::GlobalArgs;

/// Arguments of `rlmkg graph-check`.
#[derive(Debug, Args)]
pub struct GraphCheckArgs {
    /// The corpus: `[{title, text}]` (2WikiMultiHopQA, MuSiQue) or
    /// `{title: [sentences]}` (HotpotQA).
    pub corpus: PathBuf,
    /// MuSiQue questions (`musique_*.json`) whose decomposition hops to check.
    #[arg(long)]
    pub musique: Option<PathBuf>,
    /// Working directory: the normalized corpus and the store.
    #[arg(long, default_value = "graph-check")]
    pub out: PathBuf,
    /// Read at most this many title pairs (0: all).
    #[arg(long, default_value_t = 0)]
    pub limit: usize,
    /// List this many title pairs (and decomposition hops) with no fact, with
    /// the sentence naming the title (the answer).
    #[arg(long, default_value_t = 0)]
    pub show: usize,
    /// Check `OUT/store` as it is, without bringing it up to date with the
    /// corpus first (a store ingested with `--extract llm`, say).
    #[arg(long)]
    pub no_ingest: bool,
}

/// Run `rlmkg graph-check`.
pub fn run(args: GraphCheckArgs, global: &GlobalArgs) -> anyhow::Result<u8> {
    let mut stdout = crate::out::stdout();
    let read_json = |path: &PathBuf| -> anyhow::Result<serde_json::Value> {
        let bytes = std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
        serde_json::from_slice(&bytes).with_context(|| format!("{} is not JSON", path.display()))
    };
    let passages = rlmkg_eval::graph_check::passages(&read_json(&args.corpus)?);
    if passages.is_empty() {
        anyhow::bail!(
            "{} holds no passages: expected [{{title, text}}] or {{title: [sentences]}}",
            args.corpus.display()
        );
    }
    std::fs::create_dir_all(&args.out)
        .with_context(|| format!("creating {}", args.out.display()))?;
    let corpus = args.out.join("corpus.json");
    let records: Vec<serde_json::Value> = passages
        .iter()
        .map(|p| serde_json::json!({"title": p.title, "text": p.text}))
        .collect();
    std::fs::write(&corpus, serde_json::to_vec(&records)?)
        .with_context(|| format!("writing {}", corpus.display()))?;
    let store_dir = args.out.join("store");
    let store = if args.no_ingest {
        std::sync::Arc::new(
            rlmkg::open_store_read(&store_dir)
                .with_context(|| format!("opening the store at {}", store_dir.display()))?,
        )
    } else {
        let progress = crate::out::IngestProgress::new(false, global.quiet);
        rlmkg_eval::store::open_and_ingest(&store_dir, &[corpus], &progress)?.store()
    };
    let pairs = rlmkg_eval::graph_check::title_pairs(&store, &passages, args.limit, args.show)?;
    let hops = match &args.musique {
        Some(path) => {
            let questions = match read_json(path)? {
                serde_json::Value::Array(v) => v,
                _ => anyhow::bail!("{} is not a list of questions", path.display()),
            };
            Some(rlmkg_eval::graph_check::musique_hops(
                &store, &questions, args.show,
            )?)
        }
        None => None,
    };
    let stats = store.stats()?;
    if global.json {
        let v = serde_json::json!({
            "passages": passages.len(),
            "entities": stats.entities,
            "facts": stats.facts,
            "co_occurrences": stats.relations.saturating_sub(stats.facts),
            "title_pairs": pairs,
            "musique_hops": hops,
        });
        writeln!(stdout, "{}", serde_json::to_string_pretty(&v)?)?;
        return Ok(0);
    }
    writeln!(
        stdout,
        "{} passages; the graph holds {} entities, {} facts, {} co-occurrences",
        passages.len(),
        stats.entities,
        stats.facts,
        stats.relations.saturating_sub(stats.facts)
    )?;
    let (n, no_subject) = (pairs.pairs, pairs.no_subject);
    let edge = format!("an edge between the subjects {}", pct(pairs.edge, n));
    let line = format!("a fact {}, {edge}", pct(pairs.fact, n));
    writeln!(
        stdout,
        "title pairs {n}: {line} ({no_subject} with a subject not in the graph)"
    )?;
    for (p, q, sentence) in &pairs.missed {
        writeln!(stdout, "  no fact: {p} → {q}: {sentence}")?;
    }
    if let Some(h) = hops {
        let line = format!(
            "a fact {}, an edge {}",
            pct(h.fact, h.hops),
            pct(h.edge, h.hops)
        );
        let (n, no_answer) = (h.hops, h.no_answer);
        writeln!(
            stdout,
            "decomposition hops {n}: {line} ({no_answer} answers not in the graph)"
        )?;
        for (question, subjects, answer, sentence) in &h.missed {
            writeln!(
                stdout,
                "  no fact: {question} [{subjects} → {answer}]: {sentence}"
            )?;
        }
    }
    Ok(0)
}

/// `n` of `d` as a percentage with one decimal ("62.9 %").
fn pct(n: usize, d: usize) -> String {
    format!("{:.1} %", 100.0 * n as f64 / d.max(1) as f64)
}
