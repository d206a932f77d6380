//! `rlmkg bench graph`: search / neighbors / read / path / related latencies on a
//! generated store of ≥ 100k chunks (10k with `--quick`).

use std::io::Write;
use std::time::Instant;

use rlmkg_ingest::{IngestOptions, NoProgress, Store};

use crate::{BenchOptions, BenchRow};

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
    /// A uniform number in `[0, 1)`.
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
    /// An index below `n` with Zipf-like odds (rank `i` about `1 / (i + 1)`):
    /// log-uniform, so a few names are everywhere and most are rare, as in text.
    fn zipf(&mut self, n: usize) -> usize {
        let i = ((n as f64 + 1.0).ln() * self.unit()).exp() as usize;
        i.saturating_sub(1).min(n.saturating_sub(1))
    }
}

/// Syllables of generated surnames, organisation and place names.
const SYLLABLES: &[&str] = &[
    "al", "ber", "cas", "dor", "el", "fen", "gar", "hal", "is", "jor", "kel", "lin", "mar", "nor",
    "os", "pel", "quin", "ros", "sten", "tor", "ul", "ven", "wyn", "zar",
];

/// Names of realistic variety: 16 first names stay common, but surnames,
/// organisations and places come from pools of thousands with Zipf-like
/// frequencies. (With 16 surnames, 8 organisations and 10 places, each query
/// word was in 28-42 % of the chunks, which no real corpus does, and no index
/// can prune a search of such words.)
struct Names {
    last: Vec<String>,
    org: Vec<String>,
    place: Vec<String>,
}

impl Names {
    fn new(r: &mut Rng) -> Self {
        let word = |r: &mut Rng, syllables: u64| -> String {
            let mut w = String::new();
            for _ in 0..syllables {
                w.push_str(r.pick(SYLLABLES));
            }
            rlmkg_text::capitalized(&w)
        };
        let kinds = [
            "Institute",
            "University",
            "Company",
            "Museum",
            "Society",
            "Bank",
            "Council",
            "Foundation",
        ];
        Self {
            last: (0..5000).map(|_| word(r, 3)).collect(),
            org: (0..800)
                .map(|i| format!("{} {}", word(r, 2), kinds[i % kinds.len()]))
                .collect(),
            place: (0..1000).map(|_| word(r, 2)).collect(),
        }
    }

    fn last(&self, r: &mut Rng) -> &str {
        &self.last[r.zipf(self.last.len())]
    }
    fn org(&self, r: &mut Rng) -> &str {
        &self.org[r.zipf(self.org.len())]
    }
    fn place(&self, r: &mut Rng) -> &str {
        &self.place[r.zipf(self.place.len())]
    }
}

const FIRST: &[&str] = &[
    "Ada", "Bruno", "Clara", "Dmitri", "Elena", "Farid", "Greta", "Hugo", "Ines", "Jonas", "Kaia",
    "Lars", "Mira", "Nils", "Oona", "Pavel",
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

fn sentence(r: &mut Rng, n: &Names) -> String {
    if !r.next().is_multiple_of(3) {
        return r.pick(PROSE).to_string();
    }
    let p = format!("{} {}", r.pick(FIRST), n.last(r));
    match r.next() % 3 {
        0 => format!("{p} {} the {} in {}.", r.pick(VERB), n.org(r), n.place(r)),
        1 => format!(
            "In {} {}, {p} met {} {} near {}.",
            1900 + r.next() % 120,
            n.place(r),
            r.pick(FIRST),
            n.last(r),
            n.place(r)
        ),
        _ => format!(
            "The {} {} {p} after a long debate about {} and the harbour economy.",
            n.org(r),
            r.pick(VERB),
            n.place(r)
        ),
    }
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v.get(v.len() / 2).copied().unwrap_or(0.0)
}

/// Run the graph benchmarks.
pub fn run(args: &BenchOptions) -> anyhow::Result<Vec<BenchRow>> {
    let chunks_wanted: usize = if args.quick { 10_000 } else { 100_000 };
    // `v2`: names of realistic variety (see [`Names`]).
    let dir = args
        .work_dir
        .join(format!("bench-graph-v2-{chunks_wanted}"));
    let names = Names::new(&mut Rng(0x0005_eed0_f6e7_a3e5));
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
                    text.push_str(&sentence(&mut r, &names));
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
        let q = format!(
            "{} {} {}",
            names.last(&mut r),
            names.org(&mut r),
            names.place(&mut r)
        );
        let t = Instant::now();
        let hits = store.search(&q, 10)?;
        t_search.push(t.elapsed().as_secs_f64() * 1e3);
        let id = format!("c{}", 1 + r.next() % stats.chunks.max(1));
        let t = Instant::now();
        let _ = store.read(&id);
        t_read.push(t.elapsed().as_secs_f64() * 1e3);
        let e = format!("{} {}", r.pick(FIRST), names.last(&mut r));
        let t = Instant::now();
        let _ = store.neighbors(&e, 10, None)?;
        t_nb.push(t.elapsed().as_secs_f64() * 1e3);
        let e2 = names.org(&mut r).to_string();
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
