//! A generated aggregation set (issue 28): short incident reports, each with a
//! category and a place written in varied words, and questions whose answers
//! are counts and frequencies over the whole collection ("which … most
//! often", "in how many reports …"), with their ground truth computed here.
//! No single passage answers them: they need every report read, which is what
//! `context.map` is for.

use crate::rng::Rng;

/// Incident categories: the name a question uses, and the phrases reports use.
const CATEGORIES: &[(&str, &[&str])] = &[
    (
        "fire",
        &[
            "a fire broke out",
            "flames were seen",
            "a small fire started",
        ],
    ),
    (
        "flood",
        &[
            "water flooded the floor",
            "a flood reached the basement",
            "flooding closed the entrance",
        ],
    ),
    (
        "power outage",
        &[
            "the power went out",
            "a power outage stopped the lines",
            "the electricity failed",
        ],
    ),
    (
        "chemical spill",
        &[
            "a chemical spill was found",
            "solvent spilled from a drum",
            "a tank leaked chemicals",
        ],
    ),
    (
        "theft",
        &[
            "tools were stolen",
            "a theft was discovered",
            "equipment went missing overnight",
        ],
    ),
];

/// Places of the incidents.
const PLACES: &[&str] = &["Tromsø", "Bergen", "Stavanger", "Bodø", "Ålesund"];

/// Staff names for the reports' signatures (noise the model must skip).
const REPORTERS: &[&str] = &[
    "Ingrid Lund",
    "Mats Berg",
    "Sofie Dahl",
    "Jonas Vik",
    "Hanne Moe",
    "Erik Strand",
];

/// Weights of the categories and places: the most and least frequent are
/// clear, so the questions have one right answer.
const CATEGORY_WEIGHTS: &[u32] = &[9, 5, 4, 3, 2];
const PLACE_WEIGHTS: &[u32] = &[3, 8, 4, 2, 5];

/// One generated report.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Report {
    /// File name (`incident_007.txt`), also its title.
    pub file: String,
    /// Its text.
    pub text: String,
    /// Its category.
    pub category: &'static str,
    /// Its place.
    pub place: &'static str,
}

/// One question with its answer and the reports that carry it.
pub type Question = crate::gold::GoldQuestion;

/// `n` reports from `seed`.
pub fn reports(n: usize, seed: u64) -> Vec<Report> {
    let mut rng = Rng::new(seed);
    (0..n)
        .map(|i| {
            let c = rng.weighted(CATEGORY_WEIGHTS);
            let p = rng.weighted(PLACE_WEIGHTS);
            let (category, phrases) = CATEGORIES.get(c).copied().unwrap_or(CATEGORIES[0]);
            let place = PLACES.get(p).copied().unwrap_or(PLACES[0]);
            let phrase = phrases[rng.below(phrases.len())];
            let reporter = REPORTERS[rng.below(REPORTERS.len())];
            let day = 1 + rng.below(28);
            let month =
                rlmkg_text::capitalized(rlmkg_text::MONTHS[rng.below(rlmkg_text::MONTHS.len())]);
            let hurt = rng.below(3);
            let text = format!(
                "Incident report {num:03}\n\n\
                 On {day} {month} 2024, at the depot in {place}, {phrase}. \
                 The shift lead called the site office at once. \
                 {hurt_line} \
                 Category recorded by the safety desk: {category}.\n\n\
                 Filed by {reporter}.\n",
                num = i + 1,
                hurt_line = match hurt {
                    0 => "Nobody was hurt.",
                    1 => "One worker was checked by a medic.",
                    _ => "Work resumed the next morning.",
                },
            );
            Report {
                file: format!("incident_{:03}.txt", i + 1),
                text,
                category,
                place,
            }
        })
        .collect()
}

/// Counts of `key` over `reports`, in the order of `names`.
fn counts(reports: &[Report], names: &[&'static str], key: fn(&Report) -> &str) -> Vec<usize> {
    names
        .iter()
        .map(|n| reports.iter().filter(|r| key(r) == *n).count())
        .collect()
}

fn files(reports: &[Report], pred: impl Fn(&Report) -> bool) -> Vec<String> {
    reports
        .iter()
        .filter(|r| pred(r))
        .map(|r| r.file.clone())
        .collect()
}

/// The questions over `reports`, with answers counted from them. A "most" or
/// "least" question is asked only when its answer is unique.
pub fn questions(reports: &[Report]) -> Vec<Question> {
    let cats: Vec<&'static str> = CATEGORIES.iter().map(|(c, _)| *c).collect();
    let cat_counts = counts(reports, &cats, |r| r.category);
    let place_counts = counts(reports, PLACES, |r| r.place);
    let mut out = Vec::new();
    let mut push = |question: String, answer: String, gold: Vec<String>| {
        out.push(Question {
            id: format!("agg{}", out.len() + 1),
            question,
            answer,
            answer_aliases: Vec::new(),
            gold_titles: gold,
        });
    };
    if let Some(top) = unique_extreme(&cat_counts, true) {
        let c = cats[top];
        push(
            "Which category of incident is reported most often in the incident reports?".into(),
            c.into(),
            files(reports, |r| r.category == c),
        );
    }
    if let Some(top) = unique_extreme(&place_counts, true) {
        let p = PLACES[top];
        push(
            "In which town were incidents reported most often in the incident reports?".into(),
            p.into(),
            files(reports, |r| r.place == p),
        );
    }
    if let Some(low) = unique_extreme(&cat_counts, false) {
        let c = cats[low];
        push(
            "Which category of incident is reported least often in the incident reports?".into(),
            c.into(),
            files(reports, |r| r.category == c),
        );
    }
    // Counts: the second most frequent place and category (not the easy top).
    if let Some(p) = second(&place_counts) {
        let place = PLACES[p];
        push(
            format!("In how many of the incident reports did the incident happen in {place}?"),
            place_counts[p].to_string(),
            files(reports, |r| r.place == place),
        );
    }
    if let Some(c) = second(&cat_counts) {
        let cat = cats[c];
        push(
            format!("In how many of the incident reports is the category {cat}?"),
            cat_counts[c].to_string(),
            files(reports, |r| r.category == cat),
        );
    }
    out
}

/// The index of the unique largest (or smallest non-zero) count: a category
/// no report has is not "reported least often".
fn unique_extreme(counts: &[usize], largest: bool) -> Option<usize> {
    let best = if largest {
        *counts.iter().max()?
    } else {
        *counts.iter().filter(|c| **c > 0).min()?
    };
    let mut at = counts.iter().enumerate().filter(|(_, c)| **c == best);
    let (i, _) = at.next()?;
    at.next().is_none().then_some(i)
}

/// The index of the second largest count.
fn second(counts: &[usize]) -> Option<usize> {
    let top = unique_extreme(counts, true)?;
    counts
        .iter()
        .enumerate()
        .filter(|(i, _)| *i != top)
        .max_by_key(|(_, c)| **c)
        .map(|(i, _)| i)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_seed_gives_the_same_set() {
        assert_eq!(reports(30, 7), reports(30, 7));
        assert_ne!(reports(30, 7), reports(30, 8));
    }

    #[test]
    fn answers_are_counted_from_the_reports() {
        let rs = reports(60, 1);
        let qs = questions(&rs);
        assert_eq!(qs.len(), 5, "{qs:#?}");
        for q in &qs {
            assert!(!q.gold_titles.is_empty(), "{q:?}");
            if let Ok(n) = q.answer.parse::<usize>() {
                assert_eq!(n, q.gold_titles.len());
            }
        }
        // Every report names its category and place in its text.
        for r in &rs {
            assert!(r.text.contains(r.place) && r.text.contains(r.category));
        }
    }
}
