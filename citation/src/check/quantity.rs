//! Quantities a claim changes while keeping their numbers (issue 32): the
//! direction of a change reversed ("rose from 40 to 55" → "fell from 40 to 55")
//! and a unit swapped ("48 metres" → "48 feet").

use std::collections::HashMap;
use std::sync::OnceLock;

use super::{Reason, ReasonKind, SentenceView, fmt_number, same_number};
use crate::text::{Analysis, Kind, Token};

/// Verbs saying a quantity went up.
const RISE: &[&str] = &[
    "rise", "rose", "risen", "increase", "grow", "grew", "grown", "gain", "climb", "expand",
    "surge", "soar", "double", "triple",
];

/// Verbs saying a quantity went down.
const FALL: &[&str] = &[
    "fall", "fell", "fallen", "decrease", "shrink", "shrank", "shrunk", "drop", "decline",
    "reduce", "halve", "slump", "plunge",
];

/// Comparatives saying one quantity is the larger.
const MORE: &[&str] = &["more", "higher", "larger", "bigger", "greater"];

/// Comparatives saying one quantity is the smaller.
const LESS: &[&str] = &["fewer", "less", "lower", "smaller"];

/// Units, each with the ways it is written (symbols included).
const UNITS: &[(&str, &[&str])] = &[
    ("metre", &["m", "metre", "metres", "meter", "meters"]),
    (
        "kilometre",
        &["km", "kilometre", "kilometres", "kilometer", "kilometers"],
    ),
    (
        "centimetre",
        &[
            "cm",
            "centimetre",
            "centimetres",
            "centimeter",
            "centimeters",
        ],
    ),
    (
        "millimetre",
        &[
            "mm",
            "millimetre",
            "millimetres",
            "millimeter",
            "millimeters",
        ],
    ),
    ("mile", &["mile", "miles", "mi"]),
    ("foot", &["foot", "feet", "ft"]),
    ("yard", &["yard", "yards", "yd"]),
    ("inch", &["inch", "inches"]),
    (
        "kilogram",
        &["kg", "kilogram", "kilograms", "kilo", "kilos"],
    ),
    ("gram", &["g", "gram", "grams"]),
    ("tonne", &["tonne", "tonnes", "ton", "tons"]),
    (
        "pound",
        &["pound", "pounds", "lb", "lbs", "£", "gbp", "sterling"],
    ),
    ("ounce", &["ounce", "ounces", "oz"]),
    ("litre", &["litre", "litres", "liter", "liters"]),
    ("gallon", &["gallon", "gallons"]),
    ("hectare", &["hectare", "hectares", "ha"]),
    ("acre", &["acre", "acres"]),
    ("dollar", &["dollar", "dollars", "usd", "$"]),
    ("euro", &["euro", "euros", "eur", "€"]),
    ("krone", &["krone", "kroner", "nok", "dkk"]),
    ("krona", &["krona", "kronor", "sek"]),
    ("yen", &["yen", "jpy", "¥"]),
    ("franc", &["franc", "francs", "chf"]),
    ("rupee", &["rupee", "rupees"]),
    ("yuan", &["yuan", "renminbi", "rmb"]),
    ("rouble", &["rouble", "roubles", "ruble", "rubles"]),
    ("percent", &["percent", "%"]),
    ("minute", &["minute", "minutes"]),
    ("hour", &["hour", "hours"]),
    ("day", &["day", "days"]),
    ("week", &["week", "weeks"]),
    ("month", &["month", "months"]),
    ("year", &["year", "years"]),
    ("decade", &["decade", "decades"]),
    ("century", &["century", "centuries"]),
    ("celsius", &["celsius"]),
    ("fahrenheit", &["fahrenheit"]),
    ("kilowatt", &["kw", "kilowatt", "kilowatts"]),
    ("megawatt", &["mw", "megawatt", "megawatts"]),
];

/// Which way a direction word points.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Direction {
    Up,
    Down,
}

/// What a direction word says: a change over time ("rose") or a comparison
/// ("more … than"). A claim is compared with words of its own kind only: "lower
/// in 2001 than in 2010" paraphrases "rose between 2001 and 2010".
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Sense {
    Change,
    Comparison,
}

/// The sense and direction of a word, by its form or its stem.
fn direction(t: &Token) -> Option<(Sense, Direction)> {
    static MAP: OnceLock<HashMap<String, (Sense, Direction)>> = OnceLock::new();
    let map = MAP.get_or_init(|| {
        let side = |words: &'static [&'static str], v: (Sense, Direction)| {
            words
                .iter()
                .flat_map(move |w| [(w.to_string(), v), (rlmkg_text::stem(w), v)])
        };
        side(RISE, (Sense::Change, Direction::Up))
            .chain(side(FALL, (Sense::Change, Direction::Down)))
            .chain(side(MORE, (Sense::Comparison, Direction::Up)))
            .chain(side(LESS, (Sense::Comparison, Direction::Down)))
            .collect()
    });
    if !matches!(t.kind, Kind::Word) {
        return None;
    }
    map.get(&t.lower).or_else(|| map.get(&t.stem)).copied()
}

/// The first word of `a` with sense and direction `v`.
fn word_pointing(a: &Analysis, v: (Sense, Direction)) -> Option<&Token> {
    a.tokens.iter().find(|t| direction(t) == Some(v))
}

/// The numbers and dates of `a` in order, as written (numbers by value).
fn values(a: &Analysis) -> Vec<String> {
    a.tokens
        .iter()
        .filter_map(|t| match t.kind {
            Kind::Number(v) => Some(fmt_number(v)),
            Kind::DatePart => Some(t.lower.clone()),
            Kind::Word => None,
        })
        .collect()
}

/// Whether the first two values `a` and `b` share come in opposite orders
/// ("fewer in 2019 than in 2021" against "more in 2021 than in 2019").
fn reversed_order(a: &[String], b: &[String]) -> bool {
    let shared: Vec<&String> = a.iter().filter(|v| b.contains(v)).take(2).collect();
    let pos = |v: &String| b.iter().position(|x| x == v);
    match shared.as_slice() {
        [x, y] if x != y => pos(x) > pos(y),
        _ => false,
    }
}

/// A change whose direction the claim reverses: the claim's words of one sense
/// point one way only, the window's words of that sense the other way only (a
/// comparison stated the other way round, its values swapped, is the same
/// statement). Returns the reason and the stem of the claim's direction word.
pub(super) fn reversed_direction(
    claim: &Analysis,
    win: &[&SentenceView],
) -> Option<(Reason, String)> {
    [Sense::Change, Sense::Comparison]
        .into_iter()
        .find_map(|sense| reversed_in(claim, win, sense))
}

/// [`reversed_direction`] for the words of one sense.
fn reversed_in(claim: &Analysis, win: &[&SentenceView], sense: Sense) -> Option<(Reason, String)> {
    let up = word_pointing(claim, (sense, Direction::Up));
    let down = word_pointing(claim, (sense, Direction::Down));
    let (said, d, opposite) = match (up, down) {
        (Some(t), None) => (t, Direction::Up, Direction::Down),
        (None, Some(t)) => (t, Direction::Down, Direction::Up),
        _ => return None,
    };
    if win
        .iter()
        .any(|s| word_pointing(&s.analysis, (sense, d)).is_some())
    {
        return None;
    }
    let claim_values = values(claim);
    let source = win.iter().find_map(|s| {
        let w = word_pointing(&s.analysis, (sense, opposite))?;
        let swapped =
            sense == Sense::Comparison && reversed_order(&claim_values, &values(&s.analysis));
        (!swapped).then_some(w)
    })?;
    Some((
        Reason::new(
            ReasonKind::Direction,
            format!(
                "the claim says \"{}\" where the cited text says \"{}\"",
                said.lower, source.lower
            ),
        ),
        said.stem.clone(),
    ))
}

/// The unit a form writes (`feet` → `foot`).
fn unit_of(form: &str) -> Option<&'static str> {
    UNITS
        .iter()
        .find(|(_, forms)| forms.contains(&form))
        .map(|(unit, _)| *unit)
}

/// A number with its unit, as a text states it.
struct Quantity {
    value: f64,
    unit: &'static str,
    /// The unit as written.
    shown: String,
    /// The stem of the unit's word, when it is a word of its own.
    stem: Option<String>,
}

/// The unit stated with the number token `k` of `a` (analysed from `text`):
/// a word after it (`48 metres`, `30 per cent`), a suffix (`12km`), a symbol
/// before it (`$12`) or a percent sign after it.
fn unit_at(text: &str, a: &Analysis, k: usize) -> Option<(&'static str, String, Option<String>)> {
    let t = a.tokens.get(k)?;
    let suffix = t
        .lower
        .trim_start_matches(|c: char| c.is_ascii_digit() || c == ',' || c == '.');
    // "m" after a number is read as millions (`5m`), not metres.
    if let Some(u) = (!suffix.is_empty() && suffix != "m")
        .then(|| unit_of(suffix))
        .flatten()
    {
        return Some((u, suffix.to_string(), None));
    }
    if let Some(n) = a.tokens.get(k + 1).filter(|n| matches!(n.kind, Kind::Word)) {
        let cent = n.lower == "per" && a.tokens.get(k + 2).is_some_and(|c| c.lower == "cent");
        let form = if cent { "percent" } else { n.lower.as_str() };
        if let Some(u) = unit_of(form) {
            return Some((u, form.to_string(), Some(n.stem.clone())));
        }
    }
    let before = text.get(..t.start)?.chars().last().map(String::from);
    if let Some(u) = before.as_deref().and_then(unit_of) {
        return Some((u, before.unwrap_or_default(), None));
    }
    let after = text
        .get(t.start..)?
        .trim_start_matches(|c: char| c.is_ascii_digit() || c == ',' || c == '.')
        .trim_start();
    after
        .starts_with('%')
        .then(|| ("percent", "%".to_string(), None))
}

/// The numbers of `a` (analysed from `text`) that state a unit.
fn quantities(text: &str, a: &Analysis) -> Vec<Quantity> {
    a.tokens
        .iter()
        .enumerate()
        .filter_map(|(k, t)| match t.kind {
            Kind::Number(value) => unit_at(text, a, k).map(|(unit, shown, stem)| Quantity {
                value,
                unit,
                shown,
                stem,
            }),
            _ => None,
        })
        .collect()
}

/// Numbers the claim gives in another unit than the window gives the same
/// number in (and in no window sentence in the claim's unit). Returns each
/// reason with the stem of the claim's unit word, when it is a word.
pub(super) fn changed_units(
    claim_text: &str,
    claim: &Analysis,
    win: &[&SentenceView],
) -> Vec<(Reason, Option<String>)> {
    let source: Vec<Quantity> = win
        .iter()
        .flat_map(|s| quantities(&s.text, &s.analysis))
        .collect();
    let mut out = Vec::new();
    for q in quantities(claim_text, claim) {
        let same: Vec<&Quantity> = source
            .iter()
            .filter(|s| same_number(s.value, q.value))
            .collect();
        if same.iter().any(|s| s.unit == q.unit) {
            continue;
        }
        if let Some(s) = same.first() {
            let n = fmt_number(q.value);
            out.push((
                Reason::new(
                    ReasonKind::Unit,
                    format!(
                        "the claim gives {n} {} where the cited text has {n} {}",
                        q.shown, s.shown
                    ),
                ),
                q.stem,
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::analyse;

    fn units(text: &str) -> Vec<(f64, &'static str)> {
        quantities(text, &analyse(text))
            .into_iter()
            .map(|q| (q.value, q.unit))
            .collect()
    }

    #[test]
    fn units_read_by_word_suffix_symbol_and_sign() {
        assert_eq!(units("a 48 metres tower"), vec![(48.0, "metre")]);
        assert_eq!(units("a 12km trail"), vec![(12.0, "kilometre")]);
        assert_eq!(units("it cost $12"), vec![(12.0, "dollar")]);
        assert_eq!(
            units("up 30% and 4 per cent"),
            vec![(30.0, "percent"), (4.0, "percent")]
        );
        assert_eq!(units("1.5 million kroner"), vec![(1_500_000.0, "krone")]);
        assert!(units("40 members and a 5m budget").is_empty());
    }

    #[test]
    fn directions_by_form_and_stem() {
        let d = |w: &str| {
            analyse(w)
                .tokens
                .first()
                .and_then(direction)
                .map(|(_, d)| d)
        };
        assert_eq!(d("rose"), Some(Direction::Up));
        assert_eq!(d("increased"), Some(Direction::Up));
        assert_eq!(d("fewer"), Some(Direction::Down));
        assert_eq!(d("shrank"), Some(Direction::Down));
        assert_eq!(d("declining"), Some(Direction::Down));
        assert_eq!(d("opened"), None);
    }

    #[test]
    fn a_comparison_turned_round_is_the_same_statement() {
        let view = |t: &str| SentenceView::new(t, None);
        let source = view("More ships called in 2021 than in 2019.");
        let flip = |claim: &str| reversed_direction(&analyse(claim), &[&source]).is_some();
        assert!(flip("Fewer ships called in 2021 than in 2019."));
        assert!(!flip("Fewer ships called in 2019 than in 2021."));
        let source = view("The population rose from 40 to 55 between 2001 and 2010.");
        let flip = |claim: &str| reversed_direction(&analyse(claim), &[&source]).is_some();
        assert!(flip(
            "The population fell from 40 to 55 between 2001 and 2010."
        ));
        assert!(!flip("The population was lower in 2001 than in 2010."));
    }
}
