//! Text analysis shared by claims and sources: unicode-aware word tokens, stems,
//! stopwords, numbers by value, normalized dates, and the marker words the
//! checker compares (negation, quantifiers, hedges, causal connectives). The
//! stemmer, the stop words and the number words are `rlmkg-text`'s, the ones
//! ingest and the heuristic read by.

use rlmkg_text::{NumberKind, irregular_base, is_stopword, stem};
use unicode_segmentation::UnicodeSegmentation;

/// A calendar date with the parts the text states.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct DateFact {
    pub year: Option<i32>,
    pub month: Option<u8>,
    pub day: Option<u8>,
}

impl DateFact {
    /// Normalized form: `2004-11-02`, `2004-11`, `--11-02`, `2004`.
    pub fn normalized(&self) -> String {
        let y = self
            .year
            .map(|y| format!("{y:04}"))
            .unwrap_or_else(|| "-".into());
        match (self.month, self.day) {
            (Some(m), Some(d)) => format!("{y}-{m:02}-{d:02}"),
            (Some(m), None) => format!("{y}-{m:02}"),
            _ => y,
        }
    }

    /// Whether `other` (a source date) carries every part this (claim) date states.
    pub fn carried_by(&self, other: &DateFact) -> bool {
        let part = |a: Option<i64>, b: Option<i64>| a.is_none() || a == b;
        part(self.year.map(i64::from), other.year.map(i64::from))
            && part(self.month.map(i64::from), other.month.map(i64::from))
            && part(self.day.map(i64::from), other.day.map(i64::from))
    }
}

/// What a token is.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Kind {
    /// An ordinary word.
    Word,
    /// A number (by value).
    Number(f64),
    /// Part of a date (consumed into [`Analysis::dates`]).
    DatePart,
}

/// One word token.
#[derive(Debug, Clone)]
pub(crate) struct Token {
    /// Lowercased text with curly apostrophes straightened and a possessive `'s` removed.
    pub lower: String,
    /// Snowball stem of `lower`.
    pub stem: String,
    /// Starts with an uppercase letter.
    pub capitalized: bool,
    /// Two letters or more, all uppercase (an acronym: `DNC`, `U.S.`).
    pub upper: bool,
    /// Number, date part or word.
    pub kind: Kind,
    /// Byte offset in the analysed text.
    pub start: usize,
}

impl Token {
    /// A content word: not a stopword, not a number or date part, not a marker word.
    pub fn is_content(&self) -> bool {
        matches!(self.kind, Kind::Word)
            && !is_stopword(&self.lower)
            && self.lower.chars().any(char::is_alphanumeric)
            && (self.lower.chars().count() > 1 || self.lower.chars().all(|c| c.is_ascii_digit()))
    }

    /// A content word written with a capital (a name, most of the time).
    pub fn is_entity(&self) -> bool {
        self.is_content() && self.capitalized && month_number(&self.lower).is_none()
    }
}

/// The analysis of one sentence or claim.
#[derive(Debug, Clone, Default)]
pub(crate) struct Analysis {
    /// Word tokens in order.
    pub tokens: Vec<Token>,
    /// Numbers by value (dates excluded).
    pub numbers: Vec<f64>,
    /// Dates (including bare years).
    pub dates: Vec<DateFact>,
    /// Count of negation markers.
    pub negations: usize,
    /// Token index of each negation marker.
    pub negation_at: Vec<usize>,
    /// Strongest quantifier level (0 none, 1 some/few, 2 many/often, 3 most/usually, 4 all/always).
    pub quantifier: u8,
    /// Hedge words present (may, might, suggests, …).
    pub hedges: Vec<String>,
    /// Causal connectives present (because, due to, led to, …).
    pub causal: Vec<String>,
}

/// Nationality adjectives whose country's name does not share a long prefix with
/// them (those that do, "Canadian"/"Canada", already match as near-identical stems).
const DEMONYMS: &[(&str, &str)] = &[
    ("british", "britain"),
    ("english", "england"),
    ("scottish", "scotland"),
    ("irish", "ireland"),
    ("welsh", "wales"),
    ("french", "france"),
    ("dutch", "netherlands"),
    ("spanish", "spain"),
    ("italian", "italy"),
    ("chinese", "china"),
    ("swedish", "sweden"),
    ("danish", "denmark"),
    ("polish", "poland"),
    ("turkish", "turkey"),
    ("greek", "greece"),
    ("finnish", "finland"),
    ("norwegian", "norway"),
    ("swiss", "switzerland"),
    ("thai", "thailand"),
    ("filipino", "philippines"),
    ("cuban", "cuba"),
    ("peruvian", "peru"),
    ("iranian", "iran"),
    ("iraqi", "iraq"),
    ("lebanese", "lebanon"),
    ("icelandic", "iceland"),
    ("maltese", "malta"),
    ("cypriot", "cyprus"),
    ("czech", "czechia"),
];

/// The country of a nationality adjective (`british` → `britain`).
fn country_of(lower: &str) -> Option<&'static str> {
    DEMONYMS
        .iter()
        .find(|(adjective, _)| *adjective == lower)
        .map(|(_, country)| *country)
}

/// Normalize quote characters, apostrophes, dashes and whitespace for verbatim comparison.
pub(crate) fn normalize_for_quote(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut space = false;
    for c in text.chars() {
        let c = match c {
            '\u{2018}' | '\u{2019}' | '\u{201A}' | '\u{2032}' | '`' | '\u{00B4}' => '\'',
            '\u{201C}' | '\u{201D}' | '\u{201E}' | '\u{00AB}' | '\u{00BB}' | '\u{2033}' => '"',
            '\u{2010}' | '\u{2011}' | '\u{2012}' | '\u{2013}' | '\u{2014}' => '-',
            c => c,
        };
        if c.is_whitespace() {
            space = true;
            continue;
        }
        if space && !out.is_empty() {
            out.push(' ');
        }
        space = false;
        out.push(c);
    }
    out
}

/// Analyse a text: tokens, numbers, dates, markers.
pub(crate) fn analyse(text: &str) -> Analysis {
    let mut tokens: Vec<Token> = Vec::new();
    for (start, word) in text.unicode_word_indices() {
        let mut lower: String = word
            .chars()
            .map(|c| {
                if c == '\u{2019}' || c == '\u{2018}' {
                    '\''
                } else {
                    c
                }
            })
            .flat_map(char::to_lowercase)
            .collect();
        if let Some(stripped) = lower.strip_suffix("'s") {
            lower = stripped.to_string();
        } else if let Some(stripped) = lower.strip_suffix('\'') {
            lower = stripped.to_string();
        }
        let capitalized = word.chars().next().is_some_and(char::is_uppercase);
        let upper = word.chars().filter(|c| c.is_alphabetic()).count() >= 2
            && word
                .chars()
                .filter(|c| c.is_alphabetic())
                .all(char::is_uppercase);
        let kind = match parse_number(&lower) {
            Some(v) => Kind::Number(v),
            None => Kind::Word,
        };
        let stem = if matches!(kind, Kind::Word) {
            // Irregular verb forms are stemmed as their base form ("won" as "win");
            // a capitalized one may be a name ("Rose").
            let base = if capitalized {
                None
            } else {
                irregular_base(&lower)
            };
            // A nationality adjective stems as its country ("British" as "Britain").
            stem(base.or_else(|| country_of(&lower)).unwrap_or(&lower))
        } else {
            lower.clone()
        };
        tokens.push(Token {
            lower,
            stem,
            capitalized,
            upper,
            kind,
            start,
        });
    }
    combine_number_words(&mut tokens);
    let dates = extract_dates(text, &mut tokens);
    let numbers = tokens
        .iter()
        .filter_map(|t| match t.kind {
            Kind::Number(v) => Some(v),
            _ => None,
        })
        .collect();
    let mut a = Analysis {
        tokens,
        numbers,
        dates,
        ..Analysis::default()
    };
    markers(&mut a);
    a
}

/// A number token: digits with optional thousands separators and decimals, ordinals
/// (`3rd`), decades (`1990s`), and number words up to ninety (`twelve` = 12).
fn parse_number(lower: &str) -> Option<f64> {
    if let Some(v) = number_word(lower) {
        return Some(v);
    }
    let first = lower.chars().next()?;
    if !first.is_ascii_digit() {
        return None;
    }
    let digits_end = lower
        .find(|c: char| !(c.is_ascii_digit() || c == ',' || c == '.'))
        .unwrap_or(lower.len());
    let (num, suffix) = lower.split_at(digits_end);
    let suffix_ok = matches!(
        suffix,
        "" | "st" | "nd" | "rd" | "th" | "s" | "m" | "bn" | "k" | "km" | "kg" | "cm" | "mm"
    );
    if !suffix_ok {
        return None;
    }
    let num = num.trim_end_matches(['.', ',']);
    let cleaned: String = if num.contains(',') {
        // 1,200 and 12,000,000: groups of three after the first.
        let mut parts = num.split(',');
        let head = parts.next()?;
        let mut s = head.to_string();
        for p in parts {
            let int_part = p.split('.').next().unwrap_or("");
            if int_part.len() != 3 {
                return None;
            }
            s.push_str(p);
        }
        s
    } else {
        num.to_string()
    };
    let mut v: f64 = cleaned.parse().ok()?;
    match suffix {
        "m" => v *= 1e6,
        "bn" => v *= 1e9,
        "k" => v *= 1e3,
        _ => {}
    }
    Some(v)
}

/// The value of a cardinal or ordinal number word from two (`twelve`, `third`,
/// `dozen`); "one", "first" and "zero" are too often pronouns or idioms to count as facts.
fn number_word(w: &str) -> Option<f64> {
    rlmkg_text::number_word(w)
        .filter(|n| matches!(n.kind, NumberKind::Cardinal | NumberKind::Ordinal) && n.value >= 2.0)
        .map(|n| n.value)
}

/// The factor of a scale word (`hundred`, `million`, …).
fn multiplier(w: &str) -> Option<f64> {
    rlmkg_text::number_word(w)
        .filter(|n| n.kind == NumberKind::Scale)
        .map(|n| n.value)
}

/// `twenty five` → 25, `1.5 million` → 1500000, `a dozen` stays 12.
fn combine_number_words(tokens: &mut Vec<Token>) {
    let mut i = 0;
    while i < tokens.len() {
        if let Kind::Number(v) = tokens[i].kind
            && i + 1 < tokens.len()
        {
            let next_lower = tokens[i + 1].lower.clone();
            if (20.0..100.0).contains(&v)
                && v % 10.0 == 0.0
                && let Some(u) = number_word(&next_lower).filter(|u| *u < 10.0)
            {
                tokens[i].kind = Kind::Number(v + u);
                tokens.remove(i + 1);
                continue;
            }
            if let Some(m) = multiplier(&next_lower) {
                tokens[i].kind = Kind::Number(v * m);
                tokens[i].lower = format!("{}", v * m);
                tokens[i].stem = tokens[i].lower.clone();
                tokens.remove(i + 1);
                continue;
            }
        }
        i += 1;
    }
}

pub(crate) use rlmkg_text::month_number;

fn as_int(t: &Token) -> Option<i64> {
    match t.kind {
        Kind::Number(v) if v.fract() == 0.0 && t.lower.chars().all(|c| c.is_ascii_digit()) => {
            Some(v as i64)
        }
        _ => None,
    }
}

/// The day of an ISO date: `02`, or `27t19` (a datetime's day and hour, one word);
/// the flag says a time follows.
fn iso_day(t: &Token) -> Option<(i64, bool)> {
    if let Some(d) = as_int(t) {
        return Some((d, false));
    }
    let (day, hour) = t.lower.split_once('t')?;
    let digits = |s: &str| !s.is_empty() && s.len() <= 2 && s.chars().all(|c| c.is_ascii_digit());
    if !digits(day) || !digits(hour) {
        return None;
    }
    Some((day.parse().ok()?, true))
}

/// A year (rlmkg-text's one rule) in a token still read as a number (not
/// already part of a date).
fn as_year(t: &Token) -> Option<i32> {
    as_int(t).and_then(|_| rlmkg_text::year(&t.lower))
}

/// A token as the date reader reads it: its lower-case form, capitalized
/// when the text capitalizes it (a month is named as a month only then).
fn date_word(t: &Token) -> String {
    if t.capitalized {
        rlmkg_text::capitalized(&t.lower)
    } else {
        t.lower.clone()
    }
}

/// Find dates, mark their tokens as date parts, and return them. Bare four-digit
/// numbers between 1000 and 2100 count as years.
fn extract_dates(text: &str, tokens: &mut [Token]) -> Vec<DateFact> {
    let mut dates = Vec::new();
    let n = tokens.len();
    let mut i = 0;
    while i < n {
        // ISO: 2004-11-02, or a datetime 2016-06-27T19:09:17Z whose time parts
        // (joined by `:`, a zone by `-`/`+`) are consumed with it.
        if let Some(y) = as_year(&tokens[i])
            && i + 2 < n
            && gap(text, &tokens[i], &tokens[i + 1]) == "-"
            && gap(text, &tokens[i + 1], &tokens[i + 2]) == "-"
            && let (Some(m), Some((d, timed))) = (as_int(&tokens[i + 1]), iso_day(&tokens[i + 2]))
            && (1..=12).contains(&m)
            && (1..=31).contains(&d)
        {
            dates.push(DateFact {
                year: Some(y),
                month: Some(m as u8),
                day: Some(d as u8),
            });
            let mut end = i + 3;
            if timed {
                while end < n
                    && end < i + 6
                    && matches!(gap(text, &tokens[end - 1], &tokens[end]), ":" | "-" | "+")
                    && tokens[end].lower.starts_with(|c: char| c.is_ascii_digit())
                {
                    end += 1;
                }
            }
            for t in &mut tokens[i..end] {
                t.kind = Kind::DatePart;
            }
            i = end;
            continue;
        }
        // Written dates, rlmkg-text's one reading: Day Month [Year], Month
        // Day[,] [Year], Month Year, a month alone, a year alone. A date opens
        // with a digit (a day or a year) or a capital (a month).
        let opens = &tokens[i];
        let words: Vec<String> =
            if opens.capitalized || opens.lower.starts_with(|c: char| c.is_ascii_digit()) {
                tokens[i..n.min(i + 3)].iter().map(date_word).collect()
            } else {
                Vec::new()
            };
        let words: Vec<&str> = words.iter().map(String::as_str).collect();
        if let Some(p) = rlmkg_text::date_parts_at(&words)
            // A month named alone ("in November") is a date too, except "May"
            // (a modal as often) and a sentence's first word ("March on").
            && !(p.len == 1 && p.month.is_some() && (i == 0 || tokens[i].lower == "may"))
        {
            for t in &mut tokens[i..i + p.len] {
                t.kind = Kind::DatePart;
            }
            dates.push(DateFact {
                year: p.year,
                month: p.month,
                day: p.day,
            });
            let mut used = p.len;
            // A year range with the second year shortened: 2018–19, 1998-99.
            if let (Some(y), None) = (p.year, p.month)
                && i + 1 < n
                && matches!(
                    gap(text, &tokens[i], &tokens[i + 1]),
                    "-" | "\u{2013}" | "/"
                )
                && tokens[i + 1].lower.len() == 2
                && let Some(short) = as_int(&tokens[i + 1])
                && let Some(end) = Some(y - y.rem_euclid(100) + short as i32).filter(|e| *e > y)
            {
                tokens[i + 1].kind = Kind::DatePart;
                dates.push(DateFact {
                    year: Some(end),
                    month: None,
                    day: None,
                });
                used += 1;
            }
            i += used;
            continue;
        }
        i += 1;
    }
    dates
}

/// The text between two tokens.
fn gap<'t>(text: &'t str, a: &Token, b: &Token) -> &'t str {
    let end = a.start + original_len(text, a);
    text.get(end..b.start).unwrap_or(" ")
}

/// Byte length of the original word at a token's start (tokens store lowered text).
fn original_len(text: &str, t: &Token) -> usize {
    text.get(t.start..)
        .and_then(|rest| rest.unicode_words().next().map(str::len))
        .unwrap_or(t.lower.len())
}

fn markers(a: &mut Analysis) {
    let toks = &a.tokens;
    for (i, t) in toks.iter().enumerate() {
        let w = t.lower.as_str();
        let next = toks.get(i + 1).map(|t| t.lower.as_str()).unwrap_or("");
        let is_neg = match w {
            "not" | "never" | "none" | "nobody" | "nothing" | "neither" | "nor" | "without"
            | "cannot" | "nowhere" => true,
            // "No. 5" is a number sign, not a negation.
            "no" => !matches!(toks.get(i + 1).map(|t| t.kind), Some(Kind::Number(_))),
            _ => w.ends_with("n't"),
        };
        if is_neg {
            a.negations += 1;
            a.negation_at.push(i);
        }
        let q = match w {
            "all" | "every" | "always" | "each" | "entire" | "entirely" | "everyone"
            | "everything" | "universally" | "invariably" => 4,
            "most" | "usually" | "majority" | "generally" | "mostly" => 3,
            "many" | "often" | "frequently" | "numerous" | "commonly" => 2,
            "some" | "several" | "few" | "sometimes" | "occasionally" | "certain" | "partly"
            | "partially" | "minority" => 1,
            _ => 0,
        };
        a.quantifier = a.quantifier.max(q);
        let hedge = matches!(
            w,
            "may"
                | "might"
                | "could"
                | "possibly"
                | "possible"
                | "perhaps"
                | "likely"
                | "unlikely"
                | "probably"
                | "potentially"
                | "potential"
                | "reportedly"
                | "allegedly"
                | "presumably"
                | "hypothesis"
                | "hypothesized"
                | "speculated"
                | "uncertain"
                | "preliminary"
        ) || t.stem == "suggest"
            || t.stem == "seem"
            || (t.stem == "appear" && next == "to");
        if hedge && !(w == "may" && t.capitalized) {
            a.hedges.push(t.lower.clone());
        }
        let causal = match w {
            "because" | "therefore" | "thus" | "hence" | "consequently" | "owing" | "thereby" => {
                true
            }
            "due" | "thanks" => next == "to",
            "result" | "results" | "resulted" | "resulting" => next == "in" || next == "of",
            "led" | "leads" | "leading" => next == "to",
            "cause" | "caused" | "causes" | "causing" => true,
            _ => false,
        };
        if causal {
            a.causal.push(t.lower.clone());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_by_value() {
        assert_eq!(analyse("about 1,200 people").numbers, vec![1200.0]);
        assert_eq!(analyse("twelve people").numbers, vec![12.0]);
        assert_eq!(analyse("twenty five people").numbers, vec![25.0]);
        assert_eq!(analyse("1.5 million people").numbers, vec![1_500_000.0]);
        assert_eq!(analyse("rose by 12 %").numbers, vec![12.0]);
        assert_eq!(analyse("the 3rd album").numbers, vec![3.0]);
        assert_eq!(analyse("the third album").numbers, vec![3.0]);
    }

    /// The stems of `s`'s tokens, in order.
    fn stems(s: &str) -> Vec<String> {
        analyse(s).tokens.into_iter().map(|t| t.stem).collect()
    }

    #[test]
    fn irregular_verbs_stem_as_their_base() {
        assert_eq!(stems("won took written"), stems("win take write"));
        assert_ne!(stems("Won"), stems("win"));
    }

    #[test]
    fn nationalities_stem_as_their_country() {
        assert_eq!(stems("British Irish"), stems("Britain Ireland"));
    }

    #[test]
    fn iso_datetime_is_one_date() {
        let a = analyse("DATETIME: 2016-06-27T19:09:17Z and 2018-09-06T02:35:38-0400");
        assert!(a.numbers.is_empty(), "{:?}", a.numbers);
        assert_eq!(a.dates.len(), 2);
    }

    #[test]
    fn dates_normalized() {
        let norm = |s: &str| {
            analyse(s)
                .dates
                .iter()
                .map(DateFact::normalized)
                .collect::<Vec<_>>()
        };
        assert_eq!(norm("released on November 2, 2004."), vec!["2004-11-02"]);
        assert_eq!(norm("released on 2 November 2004."), vec!["2004-11-02"]);
        assert_eq!(norm("released on 2004-11-02."), vec!["2004-11-02"]);
        assert_eq!(
            norm("PUBLISHED DATETIME: 2016-06-27T19:09:17Z"),
            vec!["2016-06-27"]
        );
        assert_eq!(
            norm("PUBLISHED: 2018-09-06T02:35:38-0400"),
            vec!["2018-09-06"]
        );
        assert_eq!(norm("in December 2012"), vec!["2012-12"]);
        assert_eq!(norm("founded in 1998"), vec!["1998"]);
        assert_eq!(norm("the 2018–19 season"), vec!["2018", "2019"]);
        assert_eq!(norm("in 1998-99"), vec!["1998", "1999"]);
        assert!(norm("it may rain").is_empty());
        assert_eq!(norm("debates begin in June."), vec!["--06"]);
        assert!(norm("March on, they said in May.").is_empty());
    }

    #[test]
    fn markers_found() {
        let a = analyse("Coffee may not reduce the risk in all cases because of caffeine.");
        assert_eq!(a.negations, 1);
        assert_eq!(a.quantifier, 4);
        assert_eq!(a.hedges, vec!["may"]);
        assert_eq!(a.causal, vec!["because"]);
        assert_eq!(analyse("It doesn't work.").negations, 1);
    }

    #[test]
    fn quote_normalization() {
        assert_eq!(normalize_for_quote("“a  b’s”\n c"), "\"a b's\" c");
    }
}
