//! Keeping a root conversation inside the root model's context window: the
//! outputs of old turns are shortened first (the REPL's variables still hold
//! them), then old replies, oldest first; the system prompt, the metadata
//! message and the last turn stay whole.

use crate::model::{Message, Role};

/// Tokens allowed per message for its role and framing.
const PER_MESSAGE: usize = 8;
/// Characters an old message keeps when shortened.
const KEEP_CHARS: usize = 240;
/// Messages at the end of the conversation never shortened (the last reply
/// and what it printed).
const KEEP_LAST: usize = 2;
/// The note that ends a shortened message.
pub const SHORTENED: &str =
    "… [shortened to fit the context window; variables still hold the full values]";

/// Shorten `messages` until their tokens (counted by `count`) fit in
/// `budget`; returns how many were shortened. The first two (system prompt,
/// metadata and question) and the last [`KEEP_LAST`] are kept whole; outputs
/// (user and tool messages) go before replies, oldest first. A conversation
/// that cannot be made to fit is left as short as this makes it, for the
/// backend's own limit to report.
pub fn fit(messages: &mut [Message], budget: usize, count: &dyn Fn(&str) -> usize) -> usize {
    let mut sizes: Vec<usize> = messages
        .iter()
        .map(|m| count(&m.content) + PER_MESSAGE)
        .collect();
    let mut total: usize = sizes.iter().sum();
    if total <= budget || messages.len() <= 2 + KEEP_LAST {
        return 0;
    }
    let middle = 2..messages.len() - KEEP_LAST;
    let outputs = middle
        .clone()
        .filter(|&i| matches!(messages[i].role, Role::User | Role::Tool));
    let replies = middle.filter(|&i| messages[i].role == Role::Assistant);
    let order: Vec<usize> = outputs.chain(replies).collect();
    let mut shortened = 0;
    for i in order {
        if total <= budget {
            break;
        }
        let Some(short) = shorten(&messages[i].content) else {
            continue;
        };
        let size = count(&short) + PER_MESSAGE;
        total = total.saturating_sub(sizes[i]) + size;
        sizes[i] = size;
        messages[i].content = short;
        shortened += 1;
    }
    shortened
}

/// `text` cut to its first [`KEEP_CHARS`] characters (at a character
/// boundary) and the [`SHORTENED`] note; `None` when it is already that short.
fn shorten(text: &str) -> Option<String> {
    if text.ends_with(SHORTENED) {
        return None;
    }
    let cut = text.char_indices().nth(KEEP_CHARS).map(|(i, _)| i)?;
    Some(format!("{}\n{SHORTENED}", &text[..cut]))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(s: &str) -> usize {
        s.split_whitespace().count()
    }

    fn conversation(turns: usize, output_words: usize) -> Vec<Message> {
        let mut m = vec![Message::system("system prompt"), Message::user("question")];
        for t in 0..turns {
            m.push(Message::assistant(format!("print({t})")));
            m.push(Message::user("out ".repeat(output_words)));
        }
        m
    }

    #[test]
    fn a_conversation_that_fits_is_left_alone() {
        let mut m = conversation(3, 10);
        let before = m.clone();
        assert_eq!(fit(&mut m, 10_000, &words), 0);
        assert_eq!(m, before);
    }

    #[test]
    fn old_outputs_are_shortened_first_and_the_last_turn_kept() {
        let mut m = conversation(4, 500);
        let n = fit(&mut m, 1200, &words);
        assert!(n >= 2, "{n}");
        let total: usize = m.iter().map(|x| words(&x.content) + PER_MESSAGE).sum();
        assert!(total <= 1200, "{total}");
        assert_eq!(m[0].content, "system prompt");
        assert_eq!(m[1].content, "question");
        assert!(m[3].content.ends_with(SHORTENED));
        assert!(!m[m.len() - 1].content.ends_with(SHORTENED));
        // Replies are short, so they stay.
        assert_eq!(m[2].content, "print(0)");
    }

    #[test]
    fn shortening_stops_at_a_character_boundary() {
        let s = shorten(&"ø".repeat(KEEP_CHARS + 5)).unwrap_or_default();
        assert!(s.starts_with(&"ø".repeat(KEEP_CHARS)));
        assert!(shorten("short").is_none());
        assert!(shorten(&s).is_none());
    }

    #[test]
    fn a_conversation_too_long_to_fit_is_shortened_as_far_as_it_goes() {
        let mut m = conversation(3, 5000);
        let n = fit(&mut m, 100, &words);
        assert_eq!(n, 2);
        assert!(!m[m.len() - 1].content.ends_with(SHORTENED));
    }
}
