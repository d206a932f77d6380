//! The inputs of `bench scale`: the benchmark corpus copied `n` times (each
//! copy's names made its own, so a copy adds documents and entities rather
//! than more mentions of the same ones) and an entity-dense text generated
//! from a seed.

use std::path::{Path, PathBuf};

use anyhow::Context;

/// Syllables that make a copy's names its own (`Congress` → `Congressford`).
const COPY_SYLLABLES: [&str; 10] = [
    "ton", "ville", "berg", "stad", "mont", "ford", "ham", "wick", "dale", "mere",
];

/// The suffix of copy `i` (empty for the first copy, 0): the bijective
/// base-10 numeral of `i` in [`COPY_SYLLABLES`], so every copy differs.
pub fn copy_suffix(i: u32) -> String {
    let mut s = String::new();
    let mut n = i as usize;
    while n > 0 {
        s.push_str(COPY_SYLLABLES[(n - 1) % COPY_SYLLABLES.len()]);
        n = (n - 1) / COPY_SYLLABLES.len();
    }
    s
}

/// `text` with `suffix` after every capitalised ASCII word of four letters or
/// more (`[A-Z][a-z]{3,}`) that is not a stop word: the names of a copy
/// become new names; its sentences, function words and abbreviations
/// (`Mr.`, `Gen.`) stay.
pub fn rename(text: &str, suffix: &str) -> String {
    if suffix.is_empty() {
        return text.to_string();
    }
    let b = text.as_bytes();
    let mut out = String::with_capacity(text.len() + text.len() / 16);
    let mut last = 0;
    let mut i = 0;
    while i < b.len() {
        let starts_word =
            b[i].is_ascii_uppercase() && (i == 0 || !b[i - 1].is_ascii_alphanumeric());
        if !starts_word {
            i += 1;
            continue;
        }
        let mut j = i + 1;
        while j < b.len() && b[j].is_ascii_lowercase() {
            j += 1;
        }
        // Whole ASCII words only: not `USA`, not `Zoë` (ASCII bytes are char
        // boundaries, so the slices below are sound).
        let whole = j >= i + 4 && (j == b.len() || !b[j].is_ascii_alphanumeric() && b[j] < 0x80);
        if whole && !rlmkg_text::is_stopword(&text[i..j].to_ascii_lowercase()) {
            out.push_str(&text[last..j]);
            out.push_str(suffix);
            last = j;
        }
        i = j;
    }
    out.push_str(&text[last..]);
    out
}

/// The `.txt` files directly in `data`, sorted by name.
fn texts_of(data: &Path) -> anyhow::Result<Vec<PathBuf>> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(data)
        .with_context(|| format!("reading {}", data.display()))?
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "txt"))
        .collect();
    files.sort();
    anyhow::ensure!(!files.is_empty(), "no .txt files in {}", data.display());
    Ok(files)
}

/// `n` copies of the `.txt` files of `data` under `work/sotu-scale-<n>/c<i>/`
/// (built once; copy `i` renamed by [`copy_suffix`]`(i)`).
pub fn copies(data: &Path, work: &Path, n: u32) -> anyhow::Result<PathBuf> {
    let root = work.join(format!("sotu-scale-{n}"));
    let done = root.join(".complete");
    if done.exists() {
        return Ok(root);
    }
    let _ = std::fs::remove_dir_all(&root);
    let files = texts_of(data)?;
    for i in 0..n {
        let dir = root.join(format!("c{i}"));
        std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
        let suffix = copy_suffix(i);
        for p in &files {
            let text =
                std::fs::read_to_string(p).with_context(|| format!("reading {}", p.display()))?;
            let Some(name) = p.file_name() else { continue };
            let to = dir.join(name);
            std::fs::write(&to, rename(&text, &suffix))
                .with_context(|| format!("writing {}", to.display()))?;
        }
    }
    std::fs::write(&done, b"")?;
    Ok(root)
}

/// SplitMix64: a small, fixed pseudo-random sequence (the dense text must be
/// the same on every machine and version, so no library generator).
pub struct SplitMix(u64);

impl SplitMix {
    /// The sequence of `seed`.
    pub fn new(seed: u64) -> Self {
        Self(seed)
    }

    /// The next number.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number below `n` (0 for `n == 0`).
    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            return 0;
        }
        (self.next_u64() % n as u64) as usize
    }

    /// One of `items` (which must not be empty).
    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

/// Syllables of generated names.
const NAME_SYLLABLES: [&str; 24] = [
    "ka", "lo", "ren", "mar", "vel", "tor", "si", "an", "bel", "dro", "mi", "gan", "ost", "ul",
    "fen", "ria", "cas", "por", "lin", "da", "bre", "tho", "ne", "sul",
];

/// A capitalised name of two or three syllables.
fn name(rng: &mut SplitMix) -> String {
    let n = 2 + rng.below(2);
    let mut s: String = (0..n).map(|_| *rng.pick(&NAME_SYLLABLES)).collect();
    if let Some(first) = s.get(..1) {
        let up = first.to_ascii_uppercase();
        s.replace_range(..1, &up);
    }
    s
}

/// The names the dense text draws from.
struct Pools {
    people: Vec<String>,
    places: Vec<String>,
    orgs: Vec<String>,
}

impl Pools {
    fn new(rng: &mut SplitMix) -> Self {
        let people = (0..12_000)
            .map(|_| format!("{} {}", name(rng), name(rng)))
            .collect();
        let places = (0..3_000)
            .map(|_| {
                let n = name(rng);
                match rng.below(3) {
                    0 => format!("{n}ford"),
                    1 => format!("Port {n}"),
                    _ => n,
                }
            })
            .collect();
        let orgs = (0..2_000)
            .map(|_| {
                let n = name(rng);
                match rng.below(4) {
                    0 => format!("{n} Institute"),
                    1 => format!("Bank of {n}"),
                    2 => format!("{n} Company"),
                    _ => format!("University of {n}"),
                }
            })
            .collect();
        Self {
            people,
            places,
            orgs,
        }
    }

    /// The person every file names first.
    fn keeper(&self) -> &str {
        self.people.first().map_or("", String::as_str)
    }
}

/// One generated sentence, dense in names.
fn sentence(rng: &mut SplitMix, p: &Pools) -> String {
    let (a, b) = (rng.pick(&p.people), rng.pick(&p.people));
    let (x, y) = (rng.pick(&p.places), rng.pick(&p.places));
    let o = rng.pick(&p.orgs);
    let year = 1800 + rng.below(220);
    let month = rlmkg_text::capitalized(rng.pick(rlmkg_text::MONTHS));
    match rng.below(6) {
        0 => format!("{a} met {b} in {x} in {month} {year}."),
        1 => format!("{o} was founded by {a} in {x} in {year}."),
        2 => format!("{a} and {b} joined {o} in {month} {year}."),
        3 => format!("In {year}, {a} moved from {x} to {y}."),
        4 => format!("{a} wrote to {b} about {o} and {x}."),
        _ => format!("{a} was born in {x} and studied at {o}."),
    }
}

/// Bytes of one generated file.
const DENSE_FILE_BYTES: usize = 16 * 1024;

/// The files of the entity-dense text: about `bytes` bytes in files of about
/// [`DENSE_FILE_BYTES`], the same for the same seed; each is (name, text).
pub fn dense_files(seed: u64, bytes: usize) -> Vec<(String, String)> {
    let mut rng = SplitMix::new(seed);
    let pools = Pools::new(&mut rng);
    let mut files = Vec::new();
    let mut total = 0;
    while total < bytes {
        let mut text = format!(
            "Records of {}\n\n{} kept these records.\n\n",
            rng.pick(&pools.places),
            pools.keeper()
        );
        while text.len() < DENSE_FILE_BYTES {
            // Paragraphs of four sentences.
            for k in 0..4 {
                if k > 0 {
                    text.push(' ');
                }
                text.push_str(&sentence(&mut rng, &pools));
            }
            text.push_str("\n\n");
        }
        total += text.len();
        files.push((format!("dense-{:05}.txt", files.len()), text));
    }
    files
}

/// The keeper of the records of the dense text of `seed`, whom every file
/// names first: an entity the store must know, and a hub.
pub fn dense_probe(seed: u64) -> String {
    let mut rng = SplitMix::new(seed);
    Pools::new(&mut rng).keeper().to_string()
}

/// The dense text of `seed` and `bytes` under `work/dense-<seed>-<bytes>/`
/// (written once).
pub fn dense(work: &Path, seed: u64, bytes: usize) -> anyhow::Result<PathBuf> {
    let root = work.join(format!("dense-{seed}-{bytes}"));
    let done = root.join(".complete");
    if done.exists() {
        return Ok(root);
    }
    let _ = std::fs::remove_dir_all(&root);
    std::fs::create_dir_all(&root).with_context(|| format!("creating {}", root.display()))?;
    for (name, text) in dense_files(seed, bytes) {
        let to = root.join(name);
        std::fs::write(&to, text).with_context(|| format!("writing {}", to.display()))?;
    }
    std::fs::write(&done, b"")?;
    Ok(root)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn copies_rename_names_and_only_names() {
        assert_eq!(copy_suffix(0), "");
        assert_eq!(copy_suffix(1), "ton");
        assert_eq!(copy_suffix(10), "mere");
        assert_eq!(copy_suffix(11), "tonton");
        let all: std::collections::BTreeSet<String> = (0..200).map(copy_suffix).collect();
        assert_eq!(all.len(), 200, "every copy has its own suffix");
        let text = "The President of the USA met Congress in Zoë's Paris. Mr. Lincoln spoke.";
        assert_eq!(rename(text, ""), text);
        assert_eq!(
            rename(text, "ton"),
            "The Presidentton of the USA met Congresston in Zoë's Pariston. Mr. Lincolnton spoke."
        );
    }

    #[test]
    fn the_dense_text_is_the_same_for_the_same_seed() {
        let a = dense_files(7, 100_000);
        let b = dense_files(7, 100_000);
        let c = dense_files(8, 100_000);
        assert_eq!(a, b);
        assert_ne!(a, c);
        let bytes: usize = a.iter().map(|(_, t)| t.len()).sum();
        assert!((100_000..100_000 + 2 * DENSE_FILE_BYTES).contains(&bytes));
        let probe = dense_probe(7);
        assert!(a.iter().any(|(_, t)| t.contains(&probe)), "{probe}");
    }
}
