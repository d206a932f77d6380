//! The ids of the store, written once: documents (`d17`), chunks (`c12`) and
//! passages — a chunk, optionally narrowed to a sentence range (`c12`,
//! `c12.s3`, `c12.s2-s4`). Chunk numbers are global to a store; sentences are
//! numbered from 1 within their chunk.
//!
//! [`FromStr`] is the strict parser of the canonical forms (surrounding
//! whitespace allowed, and `c12.s2-4` for a range); the citation checker's
//! tolerant reading of what models write builds the same types. Every id
//! serializes as its text.
// Only the binary prints (ARCHITECTURE.md): a library reports through return values and traits.
#![deny(clippy::print_stdout, clippy::print_stderr)]

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A string that is not an id of the expected kind.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("not a {kind} id: {text:?}")]
pub struct ParseIdError {
    /// What was expected ("document", "chunk", "passage").
    pub kind: &'static str,
    /// The text given.
    pub text: String,
}

fn bad(kind: &'static str, s: &str) -> ParseIdError {
    ParseIdError {
        kind,
        text: s.to_string(),
    }
}

/// `<prefix><digits>`, nothing else.
fn number(s: &str, prefix: char) -> Option<u64> {
    let digits = s.strip_prefix(prefix)?;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

/// An id written as a letter and a number: the type, its letter, and the
/// kind named in its parse error.
macro_rules! numbered_id {
    ($(#[$meta:meta])* $name:ident, $prefix:literal, $kind:literal) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub struct $name(pub u64);

        impl $name {
            /// The letter the id is written with.
            pub const PREFIX: char = $prefix;
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "{}{}", Self::PREFIX, self.0)
            }
        }

        impl FromStr for $name {
            type Err = ParseIdError;

            fn from_str(s: &str) -> Result<Self, Self::Err> {
                number(s.trim(), Self::PREFIX)
                    .map(Self)
                    .ok_or_else(|| bad($kind, s))
            }
        }
    };
}

numbered_id!(
    /// A document (`d17`).
    DocId,
    'd',
    "document"
);

numbered_id!(
    /// A chunk (`c12`).
    ChunkId,
    'c',
    "chunk"
);

impl ChunkId {
    /// The whole chunk as a passage.
    pub fn passage(self) -> PassageId {
        PassageId {
            chunk: self,
            sentences: None,
        }
    }

    /// Sentence `k` (1-based) of this chunk; `None` for 0.
    pub fn sentence(self, k: u32) -> Option<PassageId> {
        Some(PassageId {
            chunk: self,
            sentences: Some(SentenceRange::new(k, k)?),
        })
    }
}

/// Sentences `first..=last` of a chunk, 1-based, never empty.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SentenceRange {
    first: u32,
    last: u32,
}

impl SentenceRange {
    /// The range `first..=last`; `None` unless `1 <= first <= last`.
    pub fn new(first: u32, last: u32) -> Option<Self> {
        (first >= 1 && first <= last).then_some(Self { first, last })
    }

    /// The first sentence (1-based).
    pub fn first(self) -> u32 {
        self.first
    }

    /// The last sentence (1-based, inclusive).
    pub fn last(self) -> u32 {
        self.last
    }
}

/// A chunk, or a sentence range of it: what a citation names and `read` reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PassageId {
    /// The chunk.
    pub chunk: ChunkId,
    /// The sentences, when narrowed.
    pub sentences: Option<SentenceRange>,
}

impl fmt::Display for PassageId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.sentences {
            None => write!(f, "{}", self.chunk),
            Some(r) if r.first == r.last => write!(f, "{}.s{}", self.chunk, r.first),
            Some(r) => write!(f, "{}.s{}-s{}", self.chunk, r.first, r.last),
        }
    }
}

impl FromStr for PassageId {
    type Err = ParseIdError;

    /// `c12`, `c12.s3`, `c12.s2-s4` or `c12.s2-4`.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let err = || bad("passage", s);
        let t = s.trim();
        let (chunk, range) = match t.split_once('.') {
            None => (t, None),
            Some((c, r)) => (c, Some(r)),
        };
        let chunk = ChunkId(number(chunk, ChunkId::PREFIX).ok_or_else(err)?);
        let sentences = match range {
            None => None,
            Some(r) => {
                let r = r.strip_prefix('s').ok_or_else(err)?;
                let (a, b) = match r.split_once('-') {
                    Some((a, b)) => (a, b.strip_prefix('s').unwrap_or(b)),
                    None => (r, r),
                };
                let num = |x: &str| -> Result<u32, ParseIdError> {
                    if x.is_empty() || !x.bytes().all(|b| b.is_ascii_digit()) {
                        return Err(err());
                    }
                    x.parse().map_err(|_| err())
                };
                Some(SentenceRange::new(num(a)?, num(b)?).ok_or_else(err)?)
            }
        };
        Ok(Self { chunk, sentences })
    }
}

macro_rules! serde_as_text {
    ($($t:ty),*) => {$(
        impl Serialize for $t {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.collect_str(self)
            }
        }

        impl<'de> Deserialize<'de> for $t {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let text = std::borrow::Cow::<'de, str>::deserialize(d)?;
                text.parse().map_err(serde::de::Error::custom)
            }
        }
    )*};
}

/// Numbered ids as their text (`d17`) in human-readable formats (JSON) and
/// as their number in binary ones (the store's records and view snapshot).
macro_rules! serde_as_text_or_number {
    ($($t:ident),*) => {$(
        impl Serialize for $t {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                if s.is_human_readable() {
                    s.collect_str(self)
                } else {
                    s.serialize_u64(self.0)
                }
            }
        }

        impl<'de> Deserialize<'de> for $t {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                if d.is_human_readable() {
                    let text = std::borrow::Cow::<'de, str>::deserialize(d)?;
                    text.parse().map_err(serde::de::Error::custom)
                } else {
                    u64::deserialize(d).map($t)
                }
            }
        }
    )*};
}

serde_as_text_or_number!(DocId, ChunkId);
serde_as_text!(PassageId);

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn numbered_ids_are_text_in_json_and_numbers_in_binary() {
        assert_eq!(serde_json::to_string(&ChunkId(12)).unwrap(), "\"c12\"");
        assert_eq!(serde_json::from_str::<DocId>("\"d17\"").unwrap(), DocId(17));
        let bytes = postcard::to_allocvec(&(DocId(17), ChunkId(300))).unwrap();
        assert_eq!(bytes, postcard::to_allocvec(&(17u64, 300u64)).unwrap());
        assert_eq!(
            postcard::from_bytes::<(DocId, ChunkId)>(&bytes).unwrap(),
            (DocId(17), ChunkId(300))
        );
    }

    #[test]
    fn canonical_forms_parse_and_print_back() {
        for s in ["c12", "c12.s3", "c12.s2-s4", "c0"] {
            assert_eq!(s.parse::<PassageId>().unwrap().to_string(), s);
        }
        assert_eq!(
            " c12.s2-4 ".parse::<PassageId>().unwrap().to_string(),
            "c12.s2-s4"
        );
        assert_eq!("d17".parse::<DocId>().unwrap(), DocId(17));
        assert_eq!(
            "c5".parse::<ChunkId>()
                .unwrap()
                .sentence(2)
                .unwrap()
                .to_string(),
            "c5.s2"
        );
        assert!(ChunkId(5).sentence(0).is_none());
    }

    #[test]
    fn malformed_ids_are_errors_never_chunk_zero() {
        for s in [
            "",
            "c",
            "c-1",
            "c1x",
            "x1",
            "c1.",
            "c1.s",
            "c1.s0",
            "c1.s3-2",
            "c1.3",
            "c1.s2-",
            "c+1",
            "d1",
            "c99999999999999999999",
            "c1.s1-s2-s3",
        ] {
            assert!(s.parse::<PassageId>().is_err(), "{s:?} parsed");
        }
        for s in ["", "d", "dx", "c1", "d-2", "d1.s1"] {
            assert!(s.parse::<DocId>().is_err(), "{s:?} parsed");
        }
        let e = "c1x".parse::<ChunkId>().unwrap_err();
        assert_eq!(e.to_string(), "not a chunk id: \"c1x\"");
    }

    #[test]
    fn ids_serialize_as_their_text() {
        let p: PassageId = "c3.s1-s2".parse().unwrap();
        assert_eq!(serde_json::to_string(&p).unwrap(), "\"c3.s1-s2\"");
        assert_eq!(
            serde_json::from_str::<PassageId>("\"c3.s1-s2\"").unwrap(),
            p
        );
        assert!(serde_json::from_str::<DocId>("\"c3\"").is_err());
    }

    proptest! {
        #[test]
        fn any_passage_round_trips(chunk in any::<u64>(), a in 1u32.., len in 0u32..5, narrowed in any::<bool>()) {
            let sentences = if narrowed { SentenceRange::new(a, a.saturating_add(len)) } else { None };
            let p = PassageId { chunk: ChunkId(chunk), sentences };
            prop_assert_eq!(p.to_string().parse::<PassageId>().unwrap(), p);
        }

        #[test]
        fn arbitrary_text_never_panics(s in "\\PC{0,24}") {
            let _ = s.parse::<PassageId>();
            let _ = s.parse::<DocId>();
            let _ = s.parse::<ChunkId>();
        }
    }
}
