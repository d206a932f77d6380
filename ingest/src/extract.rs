//! Rule-based entities and relations (no LLM): candidate mentions from
//! capitalized spans, acronyms, quoted terms, dates and the document title;
//! normalization and alias merging; a type guess; sentence co-occurrence and
//! simple verb-phrase pattern relations, each with its evidence span.

use std::collections::{BTreeMap, HashMap};

use rlmkg_graph::{EntityDecl, entity_key};

/// One sentence to extract from, with its byte span in the document.
#[derive(Debug, Clone, Copy)]
pub struct SentenceRef {
    /// The index of the chunk holding the sentence, in its document.
    pub chunk: usize,
    /// Byte start in the document.
    pub start: usize,
    /// Byte end.
    pub end: usize,
}

/// One mention, in a chunk given by its index in the document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LocalMention {
    /// Entity key.
    pub entity: String,
    /// Chunk index in the document.
    pub chunk: usize,
    /// Byte start in the document text.
    pub start: u64,
    /// Byte end (exclusive).
    pub end: u64,
}

/// An evidence span, in a chunk given by its index in the document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LocalEvidence {
    /// Chunk index in the document.
    pub chunk: usize,
    /// Byte start in the document text.
    pub start: u64,
    /// Byte end (exclusive).
    pub end: u64,
}

/// A relation whose evidence names chunks by their index in the document.
#[derive(Debug, Clone, PartialEq)]
pub struct LocalRelation {
    /// Subject entity key.
    pub subject: String,
    /// Object entity key.
    pub object: String,
    /// Label: `co-occurs` or a verb phrase.
    pub label: String,
    /// Weight (number of supporting sentences).
    pub weight: f64,
    /// Evidence spans (at least one).
    pub evidence: Vec<LocalEvidence>,
}

/// What the rules found in one document (chunks named by their index; the
/// store gives them ids).
#[derive(Debug, Default)]
pub struct Extraction {
    /// Entities (merged).
    pub entities: Vec<EntityDecl>,
    /// Mentions.
    pub mentions: Vec<LocalMention>,
    /// Relations.
    pub relations: Vec<LocalRelation>,
    /// Key of the entity the document's title names (also declared in `entities`).
    pub about: Option<String>,
}

const STOP_STARTERS: &[&str] = &[
    "the",
    "a",
    "an",
    "in",
    "on",
    "at",
    "it",
    "its",
    "he",
    "she",
    "they",
    "we",
    "i",
    "you",
    "this",
    "that",
    "these",
    "those",
    "there",
    "here",
    "his",
    "her",
    "their",
    "our",
    "my",
    "your",
    "after",
    "before",
    "during",
    "when",
    "while",
    "however",
    "but",
    "and",
    "or",
    "so",
    "if",
    "as",
    "for",
    "from",
    "with",
    "by",
    "of",
    "to",
    "also",
    "although",
    "because",
    "since",
    "then",
    "thus",
    "yet",
    "what",
    "which",
    "who",
    "whom",
    "where",
    "why",
    "how",
    "all",
    "some",
    "many",
    "most",
    "each",
    "every",
    "both",
    "one",
    "two",
    "three",
    "first",
    "later",
    "today",
    "now",
    "once",
    "not",
    "no",
    "yes",
    "many",
    "several",
    "such",
    "other",
    "another",
    "born",
    "following",
    "despite",
    "unlike",
    "like",
    "according",
    "until",
    "among",
    "between",
    "over",
    "under",
    "about",
    "into",
    "is",
    "was",
    "are",
    "were",
    "be",
    "been",
    "has",
    "had",
    "have",
    "do",
    "does",
    "did",
    "can",
    "could",
    "will",
    "would",
    "should",
    "may",
    "might",
    "must",
    "let",
    "please",
    "note",
    "see",
    "chapter",
    "section",
    "mr",
    "mrs",
    "ms",
    "dr",
    "prof",
    "sir",
    "st",
    "mt",
    "de",
    "la",
    "le",
    "von",
    "van",
    "der",
    "den",
    "du",
    "del",
];

const CONNECTORS: &[&str] = &[
    "of", "the", "de", "da", "van", "von", "der", "del", "la", "le", "du", "for", "and", "y", "di",
    "bin",
];

const ORG_WORDS: &[&str] = &[
    "inc",
    "corp",
    "corporation",
    "company",
    "co",
    "ltd",
    "llc",
    "university",
    "college",
    "institute",
    "school",
    "party",
    "association",
    "society",
    "bank",
    "group",
    "agency",
    "council",
    "committee",
    "club",
    "fc",
    "museum",
    "foundation",
    "department",
    "ministry",
    "office",
    "commission",
    "union",
    "league",
    "federation",
    "army",
    "navy",
    "church",
    "records",
    "press",
    "studios",
    "academy",
    "labs",
    "laboratory",
    "hospital",
    "court",
    "parliament",
    "senate",
    "congress",
    "band",
    "orchestra",
    "team",
    "airlines",
    "railway",
    "trust",
    "board",
    "guild",
    "collective",
    "cooperative",
    "network",
    "service",
    "authority",
    "organization",
    "organisation",
];

const PLACE_WORDS: &[&str] = &[
    "city",
    "river",
    "mountain",
    "mountains",
    "county",
    "state",
    "island",
    "islands",
    "lake",
    "street",
    "road",
    "valley",
    "bay",
    "sea",
    "ocean",
    "province",
    "region",
    "district",
    "village",
    "town",
    "kingdom",
    "republic",
    "park",
    "bridge",
    "harbor",
    "harbour",
    "coast",
    "forest",
    "desert",
    "peninsula",
    "fjord",
    "square",
    "avenue",
    "station",
    "airport",
    "port",
    "hill",
    "hills",
    "castle",
    "abbey",
    "cathedral",
    "palace",
    "tower",
];

const PERSON_TITLES: &[&str] = &[
    "mr",
    "mrs",
    "ms",
    "dr",
    "prof",
    "professor",
    "sir",
    "lady",
    "lord",
    "king",
    "queen",
    "prince",
    "princess",
    "president",
    "senator",
    "governor",
    "mayor",
    "bishop",
    "pope",
    "saint",
    "general",
    "captain",
    "judge",
    "chancellor",
    "minister",
    "emperor",
    "duke",
    "duchess",
    "count",
    "countess",
    "director",
    "dean",
];

pub use rlmkg_text::MONTHS;

const VERB_HINTS: &[&str] = &[
    "is",
    "was",
    "are",
    "were",
    "has",
    "had",
    "born",
    "married",
    "founded",
    "joined",
    "led",
    "leads",
    "won",
    "wrote",
    "directed",
    "produced",
    "became",
    "created",
    "built",
    "owns",
    "owned",
    "acquired",
    "succeeded",
    "replaced",
    "met",
    "studied",
    "taught",
    "works",
    "worked",
    "lives",
    "lived",
    "died",
    "moved",
    "visited",
    "signed",
    "played",
    "plays",
    "released",
    "published",
    "received",
    "awarded",
    "funded",
    "hosted",
    "chairs",
    "chaired",
    "manages",
    "managed",
    "heads",
    "headed",
    "employs",
    "employed",
    "discovered",
    "designed",
    "invented",
    "composed",
    "painted",
    "starred",
    "represents",
    "represented",
    "attended",
    "graduated",
];

#[derive(Debug, Clone)]
struct Cand {
    start: usize,
    end: usize,
    name: String,
    kind: &'static str,
}

fn lower(s: &str) -> String {
    s.to_lowercase()
}

/// Where `needle_lc` (lower-case) first occurs in `s` lower-cased
/// (`lower(s).find(needle_lc)`), with ASCII lower-casing for ASCII text.
fn find_lower(s: &str, needle_lc: &str) -> Option<usize> {
    if s.is_ascii() {
        s.to_ascii_lowercase().find(needle_lc)
    } else {
        lower(s).find(needle_lc)
    }
}

/// Whether `w`, lower-cased, is one of `list` (lower-case words), without
/// allocating for ASCII words.
fn lower_in(w: &str, list: &[&str]) -> bool {
    if w.is_ascii() {
        list.iter().any(|l| w.eq_ignore_ascii_case(l))
    } else {
        list.contains(&lower(w).as_str())
    }
}

fn is_cap(w: &str) -> bool {
    w.chars().next().is_some_and(char::is_uppercase)
}

fn is_acronym(w: &str) -> bool {
    if w.is_ascii() {
        let b = w.as_bytes();
        return (2..=6).contains(&b.len())
            && b.iter()
                .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit())
            && b.iter().filter(|c| c.is_ascii_uppercase()).count() >= 2;
    }
    let n = w.chars().count();
    (2..=6).contains(&n)
        && w.chars().all(|c| c.is_uppercase() || c.is_ascii_digit())
        && w.chars().filter(|c| c.is_uppercase()).count() >= 2
}

fn is_year(w: &str) -> bool {
    w.len() == 4 && w.parse::<u32>().is_ok_and(|y| (1000..2100).contains(&y))
}

/// Candidate mentions in one sentence; offsets relative to the sentence.
fn candidates(s: &str) -> Vec<Cand> {
    let words = crate::bounds::words(s);
    let mut out = Vec::new();
    let mut i = 0;
    while i < words.len() {
        let (ws, w) = words[i];
        // Dates: Month [D,] YYYY | D Month YYYY | YYYY.
        if is_cap(w) && lower_in(w, MONTHS) {
            let mut j = i + 1;
            let mut end = ws + w.len();
            let mut has_year = false;
            while j < words.len() && j <= i + 2 {
                let (js, jw) = words[j];
                let gap = &s[end..js];
                if gap.len() > 2 || !gap.chars().all(|c| c == ' ' || c == ',') {
                    break;
                }
                if jw.chars().all(|c| c.is_ascii_digit()) && jw.len() <= 4 {
                    end = js + jw.len();
                    has_year |= is_year(jw);
                    j += 1;
                } else {
                    break;
                }
            }
            if has_year {
                out.push(Cand {
                    start: ws,
                    end,
                    name: s[ws..end].to_string(),
                    kind: "date",
                });
                i = j;
                continue;
            }
        }
        if is_year(w) {
            out.push(Cand {
                start: ws,
                end: ws + w.len(),
                name: w.to_string(),
                kind: "date",
            });
            i += 1;
            continue;
        }
        if is_acronym(w) {
            out.push(Cand {
                start: ws,
                end: ws + w.len(),
                name: w.to_string(),
                kind: "organization",
            });
            i += 1;
            continue;
        }
        if !is_cap(w) {
            i += 1;
            continue;
        }
        // A run of capitalized words, connectors allowed inside.
        let mut j = i;
        let mut last_cap = i;
        while j + 1 < words.len() {
            let (ps, pw) = words[j];
            let (ns, nw) = words[j + 1];
            let gap = &s[ps + pw.len()..ns];
            let initial_gap = pw.chars().count() == 1 && (gap == ". " || gap == ".");
            if gap != " " && !initial_gap {
                break;
            }
            if is_cap(nw) {
                j += 1;
                last_cap = j;
            } else if lower_in(nw, CONNECTORS) && j + 2 < words.len() {
                j += 1;
            } else {
                break;
            }
        }
        let j = last_cap;
        let run = &words[i..=j];
        let mut first = 0;
        // Drop a sentence-initial stop word ("The", "In", …) unless the run is a name with "The".
        while first < run.len() && lower_in(run[first].1, STOP_STARTERS) {
            if run[first].1 == "The" && run.len() - first > 1 && first == 0 {
                break;
            }
            first += 1;
        }
        let run = &run[first..];
        if run.is_empty() || run.iter().all(|(_, w)| lower_in(w, CONNECTORS)) {
            i = j + 1;
            continue;
        }
        // Trim trailing connectors.
        let mut end_k = run.len();
        while end_k > 0 && lower_in(run[end_k - 1].1, CONNECTORS) {
            end_k -= 1;
        }
        let run = &run[..end_k];
        if run.is_empty() {
            i = j + 1;
            continue;
        }
        let start = run[0].0;
        let last = run[run.len() - 1];
        let end = last.0 + last.1.len();
        let name = s[start..end].to_string();
        let kind = guess_kind(s, start, run);
        if run.len() == 1 && run[0].1.chars().count() < 2 {
            i = j + 1;
            continue;
        }
        out.push(Cand {
            start,
            end,
            name,
            kind,
        });
        i = j + 1;
    }
    // Quoted terms (works).
    for (open, close) in [('"', '"'), ('\u{201c}', '\u{201d}')] {
        let mut from = 0;
        while let Some(a) = s[from..].find(open).map(|p| from + p) {
            let inner_start = a + open.len_utf8();
            let Some(b) = s[inner_start..].find(close).map(|p| inner_start + p) else {
                break;
            };
            let inner = &s[inner_start..b];
            let n = inner.split_whitespace().count();
            if (1..=8).contains(&n) && is_cap(inner.trim()) && inner.trim() == inner {
                out.retain(|c| c.end <= inner_start || c.start >= b);
                out.push(Cand {
                    start: inner_start,
                    end: b,
                    name: inner.to_string(),
                    kind: "work",
                });
            }
            from = b + close.len_utf8();
        }
    }
    out.sort_by_key(|c| c.start);
    out
}

/// Words before a name that make it a place ("in Paris").
const PLACE_PREPOSITIONS: &[&str] = &[
    "in", "at", "near", "from", "to", "across", "outside", "inside",
];

fn guess_kind(s: &str, start: usize, run: &[(usize, &str)]) -> &'static str {
    // Lower-case comparisons without allocating (one candidate per name).
    if run.iter().any(|(_, w)| lower_in(w, ORG_WORDS)) {
        return "organization";
    }
    if run.iter().any(|(_, w)| lower_in(w, PLACE_WORDS)) {
        return "place";
    }
    let prev = s
        .get(..start)
        .and_then(|b| b.split_whitespace().next_back())
        .map_or("", |w| w.trim_matches(|c: char| !c.is_alphanumeric()));
    if lower_in(prev, PERSON_TITLES) || run.first().is_some_and(|(_, w)| lower_in(w, PERSON_TITLES))
    {
        return "person";
    }
    if lower_in(prev, PLACE_PREPOSITIONS) {
        return "place";
    }
    let caps = run.iter().filter(|(_, w)| is_cap(w)).count();
    if (2..=4).contains(&caps) && caps == run.len() {
        return "person";
    }
    "other"
}

fn initials(name: &str) -> String {
    name.split_whitespace()
        .filter(|w| !lower_in(w, CONNECTORS))
        .filter_map(|w| w.chars().next())
        .filter(|c| c.is_uppercase())
        .collect()
}

struct Ent {
    name: String,
    kind: &'static str,
    aliases: Vec<String>,
    count: usize,
}

/// The subject a title names: the title without a trailing disambiguation in
/// parentheses ("In Love and War (1987 film)" → "In Love and War").
fn title_subject(title: &str) -> &str {
    let t = title.trim();
    if t.ends_with(')')
        && let Some(open) = t.rfind(" (")
        && open > 0
    {
        return t[..open].trim_end();
    }
    t
}

/// Whether a title is short enough to name one thing (not a sentence or a page
/// banner) and has a name in it.
fn is_subject_title(title: &str) -> bool {
    let words = title.split_whitespace().count();
    (1..=8).contains(&words)
        && title.chars().count() >= 3
        && !entity_key(title).is_empty()
        && title.chars().any(char::is_alphabetic)
}

/// Extract entities, mentions and relations from a document's sentences.
pub fn extract(doc_text: &str, title: &str, sentences: &[SentenceRef]) -> Extraction {
    // 1. Candidates per sentence, in document offsets.
    let mut found: Vec<(usize, Cand)> = Vec::new(); // (sentence index, cand)
    let full_title = title.trim();
    let title = title_subject(full_title);
    let title_key = entity_key(title);
    let title_lc = lower(title);
    for (si, sr) in sentences.iter().enumerate() {
        let Some(s) = doc_text.get(sr.start..sr.end) else {
            continue;
        };
        let mut cands = candidates(s);
        // The document title where it occurs verbatim.
        if title.chars().count() >= 3
            && !title_key.is_empty()
            && let Some(p) = find_lower(s, &title_lc)
            && s.is_char_boundary(p)
            && s.is_char_boundary(p + title.len())
            && s[p..].len() >= title.len()
            // A full name ending in the title ("Ada Lovelace" in a document
            // titled "lovelace") stays whole; the surname merge below ties the
            // title to it.
            && !cands
                .iter()
                .any(|c| c.start < p && c.end == p + title.len() && c.kind == "person")
        {
            cands.retain(|c| c.end <= p || c.start >= p + title.len());
            cands.push(Cand {
                start: p,
                end: p + title.len(),
                name: s[p..p + title.len()].to_string(),
                kind: "other",
            });
            cands.sort_by_key(|c| c.start);
        }
        for mut c in cands {
            c.start += sr.start;
            c.end += sr.start;
            found.push((si, c));
        }
    }
    // 2. Group by key.
    let mut ents: BTreeMap<String, Ent> = BTreeMap::new();
    // Each candidate's key, computed once.
    let found_keys: Vec<String> = found.iter().map(|(_, c)| entity_key(&c.name)).collect();
    for ((_, c), key) in found.iter().zip(&found_keys) {
        if key.is_empty() {
            continue;
        }
        let e = ents.entry(key.clone()).or_insert_with(|| Ent {
            name: c.name.clone(),
            kind: c.kind,
            aliases: Vec::new(),
            count: 0,
        });
        e.count += 1;
        if e.kind == "other" && c.kind != "other" {
            e.kind = c.kind;
        }
        if c.name != e.name && !e.aliases.contains(&c.name) {
            e.aliases.push(c.name.clone());
        }
    }
    // 3. Alias merging: surname → full person name; acronym → expansion.
    // Multi-word keys indexed by their initials and (persons) their last word,
    // so each single-word key looks up its targets instead of scanning.
    let mut by_initials: HashMap<String, Vec<&String>> = HashMap::new();
    let mut by_surname: HashMap<&str, Vec<&String>> = HashMap::new();
    for (o, x) in &ents {
        if let Some((_, last)) = o.rsplit_once('_') {
            by_initials.entry(initials(&x.name)).or_default().push(o);
            if x.kind == "person" {
                by_surname.entry(last).or_default().push(o);
            }
        }
    }
    let mut merge: HashMap<String, String> = HashMap::new();
    for (k, e) in &ents {
        if k.contains('_') || e.kind == "date" {
            continue;
        }
        let targets = if is_acronym(&e.name) {
            by_initials.get(&e.name)
        } else {
            by_surname.get(k.as_str())
        };
        if let Some([only]) = targets.map(Vec::as_slice)
            && *only != k
        {
            merge.insert(k.clone(), (*only).clone());
        }
    }
    for (from, to) in &merge {
        if let Some(src) = ents.remove(from)
            && let Some(dst) = ents.get_mut(to)
        {
            dst.count += src.count;
            for a in std::iter::once(src.name).chain(src.aliases) {
                if a != dst.name && !dst.aliases.contains(&a) {
                    dst.aliases.push(a);
                }
            }
        }
    }
    let resolve = |k: &str| -> String { merge.get(k).cloned().unwrap_or_else(|| k.to_string()) };
    // The title names what the document is about, even where the text never repeats
    // it verbatim ("Helen Hunt" over "Helen Elizabeth Hunt (born 1963) is…").
    let mut ex = Extraction::default();
    if is_subject_title(title) {
        let key = resolve(&title_key);
        let e = ents.entry(key.clone()).or_insert_with(|| Ent {
            name: title.to_string(),
            kind: "other",
            aliases: Vec::new(),
            count: 0,
        });
        for a in [title, full_title] {
            if a != e.name && !e.aliases.iter().any(|x| x == a) {
                e.aliases.push(a.to_string());
            }
        }
        ex.about = Some(key);
    }
    // 4. Mentions.
    let mut per_sentence: Vec<Vec<(String, usize, usize)>> = vec![Vec::new(); sentences.len()];
    for ((si, c), key) in found.iter().zip(&found_keys) {
        let key = resolve(key);
        if !ents.contains_key(&key) {
            continue;
        }
        let chunk = sentences[*si].chunk;
        ex.mentions.push(LocalMention {
            entity: key.clone(),
            chunk,
            start: c.start as u64,
            end: c.end as u64,
        });
        per_sentence[*si].push((key, c.start, c.end));
    }
    // 5. Relations.
    // Keyed by borrowed keys and a label that allocates only when it is a
    // verb phrase (the same order as owned strings).
    type RelKey<'a> = (&'a str, &'a str, std::borrow::Cow<'static, str>);
    let mut rels: BTreeMap<RelKey<'_>, (f64, Vec<LocalEvidence>)> = BTreeMap::new();
    for (si, ms) in per_sentence.iter().enumerate() {
        let sr = sentences[si];
        let ev = LocalEvidence {
            chunk: sr.chunk,
            start: sr.start as u64,
            end: sr.end as u64,
        };
        let mut distinct: Vec<&String> = Vec::new();
        for (k, _, _) in ms {
            if !distinct.contains(&k) {
                distinct.push(k);
            }
        }
        let mut add = |a, b, label: std::borrow::Cow<'static, str>| {
            let entry = rels.entry((a, b, label)).or_insert((0.0, Vec::new()));
            entry.0 += 1.0;
            if entry.1.len() < 3 && !entry.1.contains(&ev) {
                entry.1.push(ev.clone());
            }
        };
        for i in 0..distinct.len() {
            for j in i + 1..distinct.len().min(i + 4) {
                let (a, b) = if distinct[i] < distinct[j] {
                    (distinct[i], distinct[j])
                } else {
                    (distinct[j], distinct[i])
                };
                add(
                    a.as_str(),
                    b.as_str(),
                    std::borrow::Cow::Borrowed("co-occurs"),
                );
            }
        }
        for w in ms.windows(2) {
            let (a, _, ae) = &w[0];
            let (b, bs, _) = &w[1];
            if a == b || bs < ae {
                continue;
            }
            let gap = doc_text.get(*ae..*bs).unwrap_or("").trim();
            let words: Vec<&str> = gap.split_whitespace().collect();
            if words.is_empty() || words.len() > 5 {
                continue;
            }
            if gap.contains([',', ';', ':', '(', ')', '.', '"']) || words.iter().any(|w| is_cap(w))
            {
                continue;
            }
            if words.iter().any(|w| VERB_HINTS.contains(w))
                || words.iter().any(|w| w.ends_with("ed") && w.len() > 3)
            {
                add(
                    a.as_str(),
                    b.as_str(),
                    std::borrow::Cow::Owned(words.join(" ").to_lowercase()),
                );
            }
        }
    }
    for ((s, o, label), (weight, evidence)) in rels {
        ex.relations.push(LocalRelation {
            subject: s.to_string(),
            object: o.to_string(),
            label: label.into_owned(),
            weight,
            evidence,
        });
    }
    for (key, e) in ents {
        ex.entities.push(EntityDecl {
            key,
            name: e.name,
            kind: e.kind.to_string(),
            aliases: e.aliases,
        });
    }
    ex
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn allocation_free_lower_case_helpers_agree_with_to_lowercase(
            s in "[a-zA-Z İK\u{212a}é.]{0,24}",
            t in "[a-zA-Z İKé]{0,4}",
        ) {
            let t = lower(&t);
            prop_assert_eq!(find_lower(&s, &t), lower(&s).find(&t));
            let list = [t.as_str(), "the", "k"];
            prop_assert_eq!(lower_in(&s, &list), list.contains(&lower(&s).as_str()));
        }
    }

    fn run(text: &str) -> Extraction {
        run_titled(text, "")
    }

    fn run_titled(text: &str, title: &str) -> Extraction {
        let sents: Vec<SentenceRef> = crate::text::sentences(text, crate::text::SegmentMode::Prose)
            .into_iter()
            .map(|(a, b)| SentenceRef {
                chunk: 0,
                start: a,
                end: b,
            })
            .collect();
        extract(text, title, &sents)
    }

    #[test]
    fn the_title_names_what_the_document_is_about() {
        // (title, text, about key, a surface form the entity must answer to, mentioned verbatim)
        let cases: &[(&str, &str, Option<&str>, &str, bool)] = &[
            (
                "Helen Hunt",
                "Helen Elizabeth Hunt (born 1963) is an American actress.",
                Some("helen_hunt"),
                "Helen Hunt",
                false,
            ),
            (
                "In Love and War (1987 film)",
                "In Love and War is a 1987 television film starring James Woods.",
                Some("in_love_and_war"),
                "In Love and War (1987 film)",
                true,
            ),
            (
                "lovelace",
                "Ada Lovelace worked with Charles Babbage. Lovelace wrote notes.",
                Some("ada_lovelace"),
                "lovelace",
                true,
            ),
            ("", "Nothing to see here.", None, "", false),
            (
                "A very long page banner that is really a sentence about many things",
                "Some text.",
                None,
                "",
                false,
            ),
        ];
        for (title, text, key, alias, verbatim) in cases {
            let ex = run_titled(text, title);
            assert_eq!(ex.about.as_deref(), *key, "{title}");
            let Some(key) = key else { continue };
            let e = ex.entities.iter().find(|e| e.key == *key).unwrap();
            assert!(
                e.name == *alias || e.aliases.iter().any(|a| a == alias),
                "{title}: {e:?}"
            );
            let mentioned = ex.mentions.iter().any(|m| m.entity == *key);
            assert_eq!(mentioned, *verbatim, "{title}: {:?}", ex.mentions);
        }
    }

    #[test]
    fn names_acronyms_and_surnames_merge() {
        let ex = run(
            "Ada Lovelace joined the Kestrel Research Institute (KRI) in London. Later Lovelace founded the \
                      Analytical Society. The KRI praised her in March 1843.",
        );
        let keys: Vec<&str> = ex.entities.iter().map(|e| e.key.as_str()).collect();
        assert!(keys.contains(&"ada_lovelace"), "{keys:?}");
        assert!(keys.contains(&"kestrel_research_institute"), "{keys:?}");
        assert!(!keys.contains(&"lovelace"), "{keys:?}");
        assert!(!keys.contains(&"kri"), "{keys:?}");
        assert!(keys.contains(&"london"), "{keys:?}");
        assert!(keys.contains(&"march_1843"), "{keys:?}");
        let ada = ex
            .entities
            .iter()
            .find(|e| e.key == "ada_lovelace")
            .unwrap();
        assert_eq!(ada.kind, "person");
        assert!(ada.aliases.contains(&"Lovelace".to_string()));
        let kri = ex
            .entities
            .iter()
            .find(|e| e.key == "kestrel_research_institute")
            .unwrap();
        assert_eq!(kri.kind, "organization");
        assert!(
            ex.relations.iter().any(|r| r.label == "joined the"),
            "{:?}",
            ex.relations
        );
        assert!(ex.relations.iter().all(|r| !r.evidence.is_empty()));
    }
}
