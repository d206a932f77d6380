//! `rlmkg bench graph`: search / neighbors / read / path / related latencies on a
//! generated store of ≥ 100k chunks (10k with `--quick`).

use std::io::Write;
use std::time::Instant;

use rlmkg_ingest::{IngestOptions, NoProgress, Store};

use super::{BenchArgs, BenchRow};

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn pick<'a>(&mut self, xs: &[&'a str]) -> &'a str {
        xs[(self.next() % xs.len() as u64) as usize]
    }
}

const FIRST: &[&str] = &[
    "Ada", "Bruno", "Clara", "Dmitri", "Elena", "Farid", "Greta", "Hugo", "Ines", "Jonas", "Kaia",
    "Lars", "Mira", "Nils", "Oona", "Pavel",
];
const LAST: &[&str] = &[
    "Lindqvist",
    "Okafor",
    "Marchetti",
    "Haugen",
    "Novak",
    "Ferreira",
    "Tanaka",
    "Brennan",
    "Kowalski",
    "Aalto",
    "Moreau",
    "Quist",
    "Ruiz",
    "Sato",
    "Varga",
    "Weiss",
];
const ORG: &[&str] = &[
    "Kestrel Institute",
    "Halden University",
    "Northwind Company",
    "Aldergate Museum",
    "Fjord Society",
    "Borealis Bank",
    "Meridian Council",
    "Skarvik Foundation",
];
const PLACE: &[&str] = &[
    "Oslo", "Bergen", "Lisbon", "Kraków", "Tromsø", "Geneva", "Porto", "Turku", "Aarhus", "Riga",
];
const VERB: &[&str] = &[
    "joined",
    "founded",
    "visited",
    "funded",
    "led",
    "studied at",
    "worked for",
    "met",
];

/// Plain sentences without names: real prose names something in about one sentence
/// of three (the State of the Union corpus gives ~58 graph quads per chunk; all-name
/// sentences gave ~1,000, which no real corpus does).
const PROSE: &[&str] = &[
    "The report was read aloud and discussed for most of the afternoon.",
    "Several members asked for more time to study the figures before a vote.",
    "The weather turned cold early that year, and the harbour froze for a week.",
    "Most of the work was done by small teams that met once a month.",
    "The budget grew slowly, and much of it went to repairs and salaries.",
    "Nobody expected the survey to take as long as it finally did.",
];

fn sentence(r: &mut Rng) -> String {
    if !r.next().is_multiple_of(3) {
        return r.pick(PROSE).to_string();
    }
    let p = format!("{} {}", r.pick(FIRST), r.pick(LAST));
    match r.next() % 3 {
        0 => format!(
            "{p} {} the {} in {}.",
            r.pick(VERB),
            r.pick(ORG),
            r.pick(PLACE)
        ),
        1 => format!(
            "In {} {}, {p} met {} {} near {}.",
            1900 + r.next() % 120,
            r.pick(PLACE),
            r.pick(FIRST),
            r.pick(LAST),
            r.pick(PLACE)
        ),
        _ => format!(
            "The {} {} {p} after a long debate about {} and the harbour economy.",
            r.pick(ORG),
            r.pick(VERB),
            r.pick(PLACE)
        ),
    }
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v.get(v.len() / 2).copied().unwrap_or(0.0)
}

/// Run the graph benchmarks.
pub fn run(args: &BenchArgs) -> anyhow::Result<Vec<BenchRow>> {
    let chunks_wanted: usize = if args.quick { 10_000 } else { 100_000 };
    let dir = args.work_dir.join(format!("bench-graph-{chunks_wanted}"));
    let store_dir = dir.join("store");
    // A store of an older format (or a broken one) is generated again.
    if Store::open_read(&store_dir).is_err() {
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir)?;
        // Documents of ~5 chunks (about 200 tokens each) in JSONL files.
        let mut r = Rng(0x9e3779b97f4a7c15);
        let docs = chunks_wanted / 5 + 1;
        let per_file = 2000;
        for f in 0..docs.div_ceil(per_file) {
            let mut w = std::io::BufWriter::new(std::fs::File::create(
                dir.join(format!("part{f:03}.jsonl")),
            )?);
            for d in 0..per_file.min(docs - f * per_file) {
                let mut text = String::new();
                while text.len() < 4000 {
                    text.push_str(&sentence(&mut r));
                    text.push(' ');
                }
                let v = serde_json::json!({"title": format!("Record {}", f * per_file + d), "text": text});
                writeln!(w, "{v}")?;
            }
        }
        let mut store = Store::create_or_open(&store_dir)?;
        let opts = IngestOptions {
            overlap_sentences: 0,
            ..IngestOptions::default()
        };
        store.ingest(std::slice::from_ref(&dir), &opts, &NoProgress)?;
    }
    let store = Store::open_read(&store_dir)?;
    let stats = store.stats()?; // also loads the graph view
    let mut r = Rng(42);
    let n = if args.quick { 50 } else { 200 };
    let mut t_search = Vec::new();
    let mut t_read = Vec::new();
    let mut t_nb = Vec::new();
    let mut t_path = Vec::new();
    let mut t_rel = Vec::new();
    for _ in 0..n {
        let q = format!("{} {} {}", r.pick(LAST), r.pick(ORG), r.pick(PLACE));
        let t = Instant::now();
        let hits = store.search(&q, 10)?;
        t_search.push(t.elapsed().as_secs_f64() * 1e3);
        let id = format!("c{}", 1 + r.next() % stats.chunks.max(1));
        let t = Instant::now();
        let _ = store.read(&id);
        t_read.push(t.elapsed().as_secs_f64() * 1e3);
        let e = format!("{} {}", r.pick(FIRST), r.pick(LAST));
        let t = Instant::now();
        let _ = store.neighbors(&e, 10, None)?;
        t_nb.push(t.elapsed().as_secs_f64() * 1e3);
        let e2 = r.pick(ORG).to_string();
        let t = Instant::now();
        let _ = store.path(&e, &e2, 3)?;
        t_path.push(t.elapsed().as_secs_f64() * 1e3);
        let t = Instant::now();
        let _ = store.related(&[e.clone(), e2], None, 10)?;
        t_rel.push(t.elapsed().as_secs_f64() * 1e3);
        drop(hits);
    }
    let note = format!(
        "{} chunks, {} entities, {} relations; median of {n}",
        stats.chunks, stats.entities, stats.relations
    );
    let row = |name: &str, v: Vec<f64>, target: Option<&str>| BenchRow {
        area: "graph".into(),
        name: name.into(),
        value: median(v),
        unit: "ms".into(),
        target: target.map(str::to_string),
        note: note.clone(),
    };
    Ok(vec![
        row("search (BM25, k=10)", t_search, Some("< 1 ms")),
        row("read (chunk)", t_read, Some("< 1 ms")),
        row("neighbors (k=10)", t_nb, Some("< 1 ms")),
        row("path (<= 3 hops)", t_path, None),
        row("related (PPR, 2 seeds)", t_rel, Some("< 50 ms")),
    ])
}
