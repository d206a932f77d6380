//! The embedded GGUF model (issue 5): loading, tokenizer round-trips, deterministic
//! generation, prefix reuse and the context-length error class.
//!
//! These tests need the default model (`rlmkg model pull`; `.ci/run` installs it) and
//! skip with a message when it is absent. They generate only a few tokens.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::sync::OnceLock;

use rlm_core::embedded::{self, EmbeddedModel, EmbeddedOptions};
use rlm_core::{ChatRequest, FinishReason, LanguageModel, Message, ModelError, Sampling};

/// The tests share one model and its prefix cache, and some clear the cache
/// and then count what was reused: they run one at a time.
fn serial() -> std::sync::MutexGuard<'static, ()> {
    static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());
    LOCK.lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// The default model loaded once per test binary, or `None` (with a message) when absent.
fn model() -> Option<&'static EmbeddedModel> {
    static MODEL: OnceLock<Option<EmbeddedModel>> = OnceLock::new();
    MODEL
        .get_or_init(|| {
            let Some(path) = embedded::installed_default() else {
                eprintln!(
                    "skipping: the embedded model is not installed in {} (run `rlmkg model pull`)",
                    embedded::model_cache_dir().display()
                );
                return None;
            };
            let opts = EmbeddedOptions {
                ctx: Some(1024),
                ..EmbeddedOptions::default()
            };
            Some(EmbeddedModel::load(&path, opts).expect("the installed model loads"))
        })
        .as_ref()
}

fn request(user: &str, sampling: Sampling) -> ChatRequest {
    ChatRequest {
        messages: vec![
            Message::system("You are a terse assistant."),
            Message::user(user),
        ],
        sampling,
        ..Default::default()
    }
}

#[test]
fn special_tokens_round_trip() {
    let _one_at_a_time = serial();
    let Some(m) = model() else { return };
    let im_start = m.token_id("<|im_start|>").expect("ChatML start token");
    let im_end = m.token_id("<|im_end|>").expect("ChatML end token");
    let user = m.token_id("user").expect("`user` is one token");
    let nl = m.encode("\n").unwrap();

    let text = "<|im_start|>user\nHello there<|im_end|>\n";
    let ids = m.encode(text).unwrap();
    // No space is inserted before `user`: the ids start exactly with <|im_start|> user \n.
    assert_eq!(&ids[..2], &[im_start, user], "{ids:?}");
    assert_eq!(&ids[2..2 + nl.len()], nl.as_slice());
    assert!(ids.contains(&im_end));
    assert_eq!(m.decode(&ids).unwrap(), text);

    // Digits split one by one (SmolLM2's pre-tokenizer) and byte-level text round-trips.
    let tricky = "Ünïcødé 12345  tabs\tand\nnewlines — “quotes”";
    assert_eq!(m.decode(&m.encode(tricky).unwrap()).unwrap(), tricky);
    assert_eq!(m.encode("2024").unwrap().len(), 4);
}

#[test]
fn generation_is_deterministic_with_a_seed() {
    let _one_at_a_time = serial();
    let Some(m) = model() else { return };
    let sampling = Sampling {
        temperature: Some(0.8),
        seed: Some(7),
        max_tokens: Some(8),
        ..Sampling::default()
    };
    let req = request("Name a colour.", sampling);
    let a = m.chat_blocking(&req).unwrap();
    let b = m.chat_blocking(&req).unwrap();
    assert_eq!(a.content, b.content);
    assert!(a.usage.completion_tokens <= 8);
    assert!(a.usage.prompt_tokens > 10);
    assert!(!a.content.trim().is_empty() || a.finish == FinishReason::Stop);
    // The second call found the whole prompt but its last token in the prefix cache.
    let stats = m.last_stats();
    assert_eq!(stats.reused_tokens, stats.prompt_tokens - 1, "{stats:?}");
}

#[test]
fn prefix_reuse_does_not_change_the_output() {
    let _one_at_a_time = serial();
    let Some(m) = model() else { return };
    let greedy = Sampling {
        temperature: Some(0.0),
        max_tokens: Some(6),
        ..Sampling::default()
    };
    let req = request("What is the capital of France?", greedy.clone());
    m.clear_prefix_cache();
    // Warm the cache with a prompt that shares only the system message.
    m.chat_blocking(&request("Say hi.", greedy)).unwrap();
    let reused = m.chat_blocking(&req).unwrap();
    assert!(m.last_stats().reused_tokens > 5, "{:?}", m.last_stats());
    m.clear_prefix_cache();
    let cold = m.chat_blocking(&req).unwrap();
    assert_eq!(m.last_stats().reused_tokens, 0);
    assert_eq!(reused.content, cold.content);
}

#[test]
fn chat_through_the_trait_runs_on_a_blocking_thread() {
    let _one_at_a_time = serial();
    let Some(m) = model() else { return };
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .build()
        .unwrap();
    let greedy = Sampling {
        temperature: Some(0.0),
        max_tokens: Some(4),
        ..Sampling::default()
    };
    let req = request("Count: one, two,", greedy);
    let via_trait = rt.block_on(m.chat(&req)).unwrap();
    assert_eq!(via_trait, m.chat_blocking(&req).unwrap());
    assert!(m.id().starts_with("embedded:"));
    assert_eq!(m.context_window(), Some(1024));
    assert_eq!(m.count_tokens("<|im_start|>"), 1);
}

#[test]
fn over_long_prompt_is_refused_with_the_context_length_class() {
    let Some(path) = embedded::installed_default() else {
        eprintln!("skipping: the embedded model is not installed");
        return;
    };
    let small = EmbeddedModel::load(
        &path,
        EmbeddedOptions {
            ctx: Some(64),
            ..EmbeddedOptions::default()
        },
    )
    .unwrap();
    assert_eq!(small.context_window(), Some(64));
    let long = "word ".repeat(200);
    match small.chat_blocking(&request(&long, Sampling::default())) {
        Err(ModelError::ContextLength {
            prompt_tokens,
            limit,
        }) => {
            assert_eq!(limit, 64);
            assert!(prompt_tokens > 200, "{prompt_tokens}");
        }
        other => panic!("expected a context-length error, got {other:?}"),
    }
    // A prompt that fits still works, and the reply is cut at the window.
    let ok = small
        .chat_blocking(&request(
            "Hi",
            Sampling {
                temperature: Some(0.0),
                max_tokens: Some(100),
                ..Sampling::default()
            },
        ))
        .unwrap();
    assert!(ok.usage.prompt_tokens + ok.usage.completion_tokens <= 64);
}

#[test]
fn stop_strings_cut_the_reply() {
    let _one_at_a_time = serial();
    let Some(m) = model() else { return };
    let greedy = Sampling {
        temperature: Some(0.0),
        max_tokens: Some(12),
        ..Sampling::default()
    };
    let full = m
        .chat_blocking(&request(
            "List three fruits, comma separated.",
            greedy.clone(),
        ))
        .unwrap();
    let Some(first_char) = full.content.chars().nth(2) else {
        return;
    };
    let stop = Sampling {
        stop: vec![first_char.to_string()],
        ..greedy
    };
    let cut = m
        .chat_blocking(&request("List three fruits, comma separated.", stop))
        .unwrap();
    assert_eq!(cut.finish, FinishReason::Stop);
    assert!(
        !cut.content.contains(first_char),
        "{:?} vs {:?}",
        cut.content,
        full.content
    );
    assert!(full.content.starts_with(&cut.content));
}
