//! The sentence encoder with its real weights (issue 46): vectors of unit
//! length, paraphrases nearer than unrelated sentences, batching that does not
//! change a text's vector, and long texts cut rather than refused.
//!
//! These tests need the encoder (`rlmkg model pull encoder`; `.ci/run` installs
//! it) and skip with a message when it is absent.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::sync::OnceLock;

use rlm_core::embedded;
use rlmkg_embed::Encoder;

/// The installed encoder loaded once per test binary, or `None` (with a message) when absent.
fn encoder() -> Option<&'static Encoder> {
    static ENCODER: OnceLock<Option<Encoder>> = OnceLock::new();
    ENCODER
        .get_or_init(|| {
            let Some(dir) = embedded::installed_encoder() else {
                eprintln!(
                    "skipping: the sentence encoder is not installed in {} (run `rlmkg model pull encoder`)",
                    embedded::model_cache_dir().display()
                );
                return None;
            };
            Some(Encoder::load(&dir).expect("the installed encoder loads"))
        })
        .as_ref()
}

fn dot(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// (a sentence, its paraphrase, an unrelated sentence)
const TRIPLES: &[(&str, &str, &str)] = &[
    (
        "The Maineiacs played their home games at the Androscoggin Bank Colisée.",
        "The Androscoggin Bank Colisée was the home arena of the Lewiston Maineiacs.",
        "Photosynthesis turns light, water and carbon dioxide into sugar.",
    ),
    (
        "Mara Ellison joined the institute in September 2019.",
        "In autumn 2019 Ellison became a member of the institute's staff.",
        "The river floods its valley every spring.",
    ),
    (
        "How many people live in Paris?",
        "What is the population of Paris?",
        "Who painted the ceiling of the Sistine Chapel?",
    ),
];

#[test]
fn vectors_have_unit_length_and_the_model_dimension() {
    let Some(enc) = encoder() else { return };
    assert_eq!(enc.dim(), 384);
    let texts = [
        "A short sentence.",
        "",
        "Another, somewhat longer sentence about rivers.",
    ];
    let vectors = enc.encode(&texts).unwrap();
    assert_eq!(vectors.len(), texts.len());
    for (text, v) in texts.iter().zip(&vectors) {
        assert_eq!(v.len(), enc.dim(), "{text:?}");
        let norm = dot(v, v).sqrt();
        assert!((norm - 1.0).abs() < 1e-4, "{text:?}: norm {norm}");
    }
    assert!(enc.encode(&[]).unwrap().is_empty());
}

#[test]
fn a_paraphrase_is_nearer_than_an_unrelated_sentence() {
    let Some(enc) = encoder() else { return };
    for (text, paraphrase, unrelated) in TRIPLES {
        let v = enc.encode(&[text, paraphrase, unrelated]).unwrap();
        let (near, far) = (dot(&v[0], &v[1]), dot(&v[0], &v[2]));
        assert!(
            near > far + 0.2,
            "{text:?}: paraphrase {near:.3}, unrelated {far:.3}"
        );
    }
}

#[test]
fn a_text_gets_the_same_vector_alone_or_in_a_batch() {
    let Some(enc) = encoder() else { return };
    // Texts of different lengths, more than one batch, out of length order.
    let texts: Vec<String> = (0..40)
        .map(|i| format!("Sentence {i} says {}.", "something ".repeat(i % 7 + 1)))
        .collect();
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    let together = enc.encode(&refs).unwrap();
    for (i, text) in refs.iter().enumerate().step_by(9) {
        let alone = enc.encode(&[text]).unwrap();
        let cos = dot(&alone[0], &together[i]);
        assert!(
            cos > 0.9999,
            "{text:?}: cosine {cos} between alone and batched"
        );
    }
}

#[test]
fn a_long_text_is_cut_not_refused() {
    let Some(enc) = encoder() else { return };
    let head = "The lighthouse keeper wrote about storms and ships. ".repeat(60);
    let long = format!(
        "{head}{}",
        "Unrelated words about cooking pasta. ".repeat(200)
    );
    let v = enc.encode(&[&long, &head]).unwrap();
    // Only the first max_tokens tokens are read, and they are the head's.
    assert!(dot(&v[0], &v[1]) > 0.99, "cosine {}", dot(&v[0], &v[1]));
}
