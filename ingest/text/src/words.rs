//! A text's words as the answering code compares them: the content words of
//! a question, and the word-run key under which a run of words is found in a
//! sentence by plain string containment.

use crate::is_stopword;

/// The content words of `text`, lowercased: three letters or more, not stop
/// words (wh-words are stop words), once each, in order.
pub fn content_words(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for w in text.split(|c: char| !c.is_alphanumeric()) {
        let w = w.to_lowercase();
        if w.chars().count() >= 3 && !is_stopword(&w) && !out.contains(&w) {
            out.push(w);
        }
    }
    out
}

/// The words of `text`, lowercased, each followed by one space and the whole
/// preceded by one, so that containment of the strings is containment of
/// contiguous word runs (linear with `str::contains`); and how many words.
pub fn word_key(text: &str) -> (String, usize) {
    let mut key = String::from(" ");
    let mut words = 0;
    for word in text
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
    {
        key.extend(word.chars().flat_map(char::to_lowercase));
        key.push(' ');
        words += 1;
    }
    (key, words)
}

#[cfg(test)]
mod tests {
    use super::{content_words, word_key};

    #[test]
    fn content_words_skip_short_and_stop_words_once_each() {
        assert_eq!(
            content_words("Which institute did the author of The Salt Atlas join in 2019?"),
            ["institute", "author", "salt", "atlas", "join", "2019"]
        );
        assert_eq!(content_words("the salt, the SALT"), ["salt"]);
    }

    #[test]
    fn a_copied_run_is_contained_and_a_paraphrase_is_not() {
        let (sentence, _) = word_key(
            "Dr. Mara Ellison joined the Kestrel Institute for Coastal Studies (KICS) in September 2019.",
        );
        let (copy, n) = word_key("Mara Ellison joined the Kestrel Institute");
        assert_eq!(n, 6);
        assert!(sentence.contains(&copy));
        let (paraphrase, _) = word_key("Mara Ellison joined the Kestrel Institute in 2019");
        assert!(!sentence.contains(&paraphrase));
        // Whole words only: "Ellis" is not "Ellison".
        let (part, _) = word_key("Dr. Mara Ellis");
        assert!(!sentence.contains(&part));
    }
}
