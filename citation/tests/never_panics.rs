//! The checker, the claim splitter and the id parser are fed by models and
//! documents: no input may make them panic (issue 15 item 2), whatever the
//! Unicode (`İ`, `ẞ` change length when lower-cased) or the citation-like brackets.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use proptest::prelude::*;
use rlmkg_citation::{CheckOptions, CitationId, MemorySource, check, render_text};

fn source() -> MemorySource {
    let mut m = MemorySource::new();
    m.insert(
        1,
        "a.md",
        vec![
            "İstanbul ẞtraße was founded in 1987 by Mira Okafor.".into(),
            "It is near the sea, and it was built by hand.".into(),
        ],
    );
    m.insert(2, "b.md", vec!["The institute is based in Tallinn.".into()]);
    m
}

/// Pieces answers are made of: words that change length when lower-cased,
/// joiners the splitter cuts at, and well- and ill-formed citation brackets.
fn piece() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("İ".to_string()),
        Just("ẞ".to_string()),
        Just("ǅ".to_string()),
        Just(", and ".to_string()),
        Just(", which ".to_string()),
        Just(" and was ".to_string()),
        Just("; ".to_string()),
        Just(". ".to_string()),
        Just("\n\n- ".to_string()),
        Just("[c1.s1]".to_string()),
        Just("[c1.s2-s9]".to_string()),
        Just("[C1 . S1, c2]".to_string()),
        Just("[c99999999999999999999.s1]".to_string()),
        Just("[c1.s4294967296]".to_string()),
        Just("[c1.s2–c1.s1]".to_string()),
        Just("[[c2]]".to_string()),
        Just("[c".to_string()),
        Just("\"".to_string()),
        Just("It ".to_string()),
        Just("The institute ".to_string()),
        Just("all ".to_string()),
        "\\PC{0,12}",
    ]
}

fn answer() -> impl Strategy<Value = String> {
    prop::collection::vec(piece(), 0..14).prop_map(|v| v.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn check_never_panics(text in answer()) {
        let report = check(&text, &source(), &CheckOptions::default()).unwrap();
        for c in &report.claims {
            prop_assert!(c.span.0 <= c.span.1 && c.span.1 <= text.len());
            prop_assert!(text.is_char_boundary(c.span.0) && text.is_char_boundary(c.span.1));
        }
        let _ = render_text(&report);
    }

    #[test]
    fn arbitrary_text_never_panics(text in "\\PC{0,200}") {
        let _ = check(&text, &source(), &CheckOptions::default()).unwrap();
    }

    #[test]
    fn id_parser_never_panics(text in "[cCsS0-9 .:\\-–~,;\\[\\]İẞ]{0,30}") {
        let _ = text.parse::<CitationId>();
            let _ = rlmkg_citation::parse_id(&text);
    }
}
