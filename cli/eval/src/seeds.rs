//! Candidate entity names in a question (seeds for graph ranking): quoted
//! phrases, runs of capitalized words (with lower-case connectors inside), acronyms
//! and years. Lookup in the store happens elsewhere; this is pure text work.

use rlmkg_text::{TITLE_JOINERS, is_name_joiner, is_year};

/// Whether a word (as written) joins the capitalized words around it into one
/// name: rlmkg-text's name joiners and, in a question, its title joiners
/// ("Newcastle upon Tyne", "Marks & Spencer").
fn is_connector(word: &str) -> bool {
    is_name_joiner(word) || TITLE_JOINERS.contains(&word)
}

/// Capitalized words that start questions and are not names.
const QUESTION_WORDS: &[&str] = &[
    "who", "whom", "whose", "what", "which", "where", "when", "why", "how", "in", "on", "at", "of",
    "the", "a", "an", "is", "was", "were", "are", "did", "does", "do", "has", "have", "had", "can",
    "could", "would", "will", "for", "from", "by", "to", "and", "or", "if", "name", "this", "that",
    "these", "those", "after", "before", "during", "since", "between", "as", "both", "give",
    "list", "find", "tell", "there", "it", "its",
];

fn is_capitalized(word: &str) -> bool {
    word.chars()
        .next()
        .is_some_and(|c| c.is_uppercase() || c.is_ascii_digit())
}

fn trim_word(w: &str) -> &str {
    w.trim_matches(|c: char| {
        !(c.is_alphanumeric() || c == '&' || c == '.' || c == '-' || c == '\'')
    })
    .trim_end_matches(['.', '\''])
    .trim_end_matches("'s")
}

fn push(out: &mut Vec<String>, s: &str) {
    let s = s.trim();
    if s.chars().any(char::is_alphanumeric) && !out.iter().any(|o| o.eq_ignore_ascii_case(s)) {
        out.push(s.to_string());
    }
}

/// Candidate entity names in `question`, most specific first within each name:
/// a whole capitalized run, then the run without a leading article, then the
/// part after its last connector.
pub fn candidates(question: &str) -> Vec<String> {
    let mut out = Vec::new();
    // Quoted phrases.
    for quote in ['"', '\u{201c}'] {
        let close = if quote == '"' { '"' } else { '\u{201d}' };
        let mut rest = question;
        while let Some(a) = rest.find(quote) {
            let after = &rest[a + quote.len_utf8()..];
            let Some(b) = after.find(close) else { break };
            push(&mut out, &after[..b]);
            rest = &after[b + close.len_utf8()..];
        }
    }
    let words: Vec<&str> = question.split_whitespace().collect();
    let mut i = 0;
    while i < words.len() {
        let w = trim_word(words[i]);
        let starts_sentence = i == 0 || words[i - 1].ends_with(['.', '?', '!', ':']);
        let skip = !is_capitalized(w)
            || (starts_sentence && QUESTION_WORDS.contains(&w.to_lowercase().as_str()));
        if skip || w.is_empty() {
            i += 1;
            continue;
        }
        // Extend the run.
        let mut run = vec![w];
        let mut j = i + 1;
        while j < words.len() {
            // A word ending in a comma or other clause punctuation closes the run after it.
            if words[j - 1].ends_with([',', ';', '?', '!', ':', ')']) {
                break;
            }
            let next = trim_word(words[j]);
            let capital = is_capitalized(next) && !is_year(next);
            let connector = is_connector(next)
                && j + 1 < words.len()
                && is_capitalized(trim_word(words[j + 1]))
                && !words[j].ends_with(',');
            if capital || connector {
                run.push(next);
                j += 1;
            } else {
                break;
            }
        }
        if is_year(w) && run.len() == 1 {
            push(&mut out, w);
        } else {
            let phrase = run.join(" ");
            push(&mut out, &phrase);
            let lower = phrase.to_lowercase();
            for article in ["the ", "a ", "an "] {
                if lower.starts_with(article) {
                    push(&mut out, &phrase[article.len()..]);
                }
            }
            // "A and B" usually names two things: each side too.
            if run.contains(&"and") {
                for side in run.split(|w| *w == "and") {
                    push(&mut out, &side.join(" "));
                }
            }
            // The part after the last connector ("University of Oslo" -> "Oslo").
            if let Some(pos) = run.iter().rposition(|w| is_connector(w))
                && pos + 1 < run.len()
            {
                push(&mut out, &run[pos + 1..].join(" "));
            }
        }
        i = j;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_in_questions() {
        let cases: &[(&str, &[&str])] = &[
            (
                "Which institute did the author of The Salt Atlas join in 2019?",
                &["The Salt Atlas", "Salt Atlas", "2019"],
            ),
            (
                "In which city is the institute that organised the Skarvik Expedition located?",
                &["Skarvik Expedition"],
            ),
            (
                "Who was the first president of the association which published Journal of Psychotherapy Integration?",
                &[
                    "Journal of Psychotherapy Integration",
                    "Psychotherapy Integration",
                ],
            ),
            (
                "What year was KICS founded by Ivar Lindqvist's father?",
                &["KICS", "Ivar Lindqvist"],
            ),
            (
                "Is \"Tides of Iron\" older than Paris, France?",
                &["Tides of Iron", "Iron", "Paris", "France"],
            ),
            ("who wrote it?", &[]),
            (
                "Are Christopher Nolan and Sathish Kalathil both film directors?",
                &[
                    "Christopher Nolan and Sathish Kalathil",
                    "Christopher Nolan",
                    "Sathish Kalathil",
                ],
            ),
        ];
        for (q, want) in cases {
            let got = candidates(q);
            let want: Vec<String> = want.iter().map(|s| s.to_string()).collect();
            assert_eq!(got, want, "{q}");
        }
    }
}
