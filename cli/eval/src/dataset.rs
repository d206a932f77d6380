//! Evaluation datasets: converters from HotpotQA, MuSiQue and plain JSONL into one
//! shape ([`Dataset`]), and the pooled corpus written once for ingest.

use std::collections::{BTreeSet, HashMap};
use std::path::Path;

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The input shapes `rlmkg eval` understands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum DatasetFormat {
    /// HotpotQA: `{_id, question, answer, supporting_facts: [[title, sent]], context: [[title, [sentences]]]}`.
    Hotpotqa,
    /// MuSiQue: `{id, question, answer, answer_aliases, paragraphs: [{title, paragraph_text, is_supporting}]}`.
    Musique,
    /// Plain JSONL: `{id?, question, answer, answer_aliases?, gold_titles}`; the corpus comes from `--corpus`.
    Jsonl,
    /// WiCE claims `{label, claim, evidence, supporting_sentences}`: scores the
    /// citation checker against human labels (no store, no questions).
    Wice,
}

impl rlmkg::named::Named for DatasetFormat {
    const ALL: &'static [Self] = &[Self::Hotpotqa, Self::Musique, Self::Jsonl, Self::Wice];
    const WHAT: &'static str = "format";

    fn name(self) -> &'static str {
        match self {
            Self::Hotpotqa => "hotpotqa",
            Self::Musique => "musique",
            Self::Jsonl => "jsonl",
            Self::Wice => "wice",
        }
    }
}

rlmkg::named_display_from_str!(DatasetFormat);

/// One passage of the pooled corpus (unique by title and text).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CorpusPassage {
    /// The passage title (the document title after ingest).
    pub title: String,
    /// The passage text.
    pub text: String,
}

/// A gold supporting passage of a question.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GoldRef {
    /// Index into [`Dataset::passages`].
    Passage(usize),
    /// A document named by title, file name, path suffix or `file#record`
    /// (plain JSONL datasets over an external corpus).
    Name(String),
}

/// A gold supporting sentence (for citation precision/recall).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct GoldSentence {
    /// Title of the passage holding it.
    pub title: String,
    /// The sentence text.
    pub text: String,
}

/// One question in the common shape.
#[derive(Debug, Clone, PartialEq)]
pub struct EvalQuestion {
    /// Stable id (from the dataset, else the 1-based line or record number).
    pub id: String,
    /// The question text.
    pub question: String,
    /// Acceptable answers: the answer first, then its aliases.
    pub answers: Vec<String>,
    /// Gold supporting passages, deduplicated, in dataset order.
    pub gold: Vec<GoldRef>,
    /// Gold supporting sentences, when the dataset has them.
    pub gold_sentences: Vec<GoldSentence>,
    /// The question's kind, when the dataset says it (`two-hop`, `count`, …
    /// in a generated world; HotpotQA's `type`): results are reported per kind.
    pub kind: Option<String>,
}

impl EvalQuestion {
    /// A question whose gold is passages only (no gold sentences).
    fn by_passages(id: String, question: String, answers: Vec<String>, gold: Vec<GoldRef>) -> Self {
        Self {
            id,
            question,
            answers,
            gold,
            gold_sentences: Vec::new(),
            kind: None,
        }
    }
}

/// A converted dataset.
#[derive(Debug, Clone, Default)]
pub struct Dataset {
    /// The questions, in file order.
    pub questions: Vec<EvalQuestion>,
    /// The pooled corpus (empty for plain JSONL, whose corpus is external).
    pub passages: Vec<CorpusPassage>,
}

impl Dataset {
    /// The display name of a gold passage (its title, or the name given).
    pub fn gold_name(&self, gold: &GoldRef) -> String {
        match gold {
            GoldRef::Passage(i) => self
                .passages
                .get(*i)
                .map(|p| p.title.clone())
                .unwrap_or_default(),
            GoldRef::Name(n) => n.clone(),
        }
    }

    /// The pooled corpus as a JSON array of `{title, text}` (the shape `ingest` reads).
    pub fn corpus_json(&self) -> Result<String, serde_json::Error> {
        serde_json::to_string_pretty(&self.passages)
    }
}

/// Errors reading or converting a dataset.
#[derive(Debug, thiserror::Error)]
pub enum DatasetError {
    /// The file is neither a JSON array nor JSON lines.
    #[error("line {line}: not valid JSON: {source}")]
    Json {
        /// 1-based line (1 for a whole-file JSON array).
        line: usize,
        /// The parser error.
        source: serde_json::Error,
    },
    /// A record lacks a field or has the wrong shape.
    #[error("record {record}: {message}")]
    Record {
        /// 1-based record number.
        record: usize,
        /// What is wrong.
        message: String,
    },
    /// The format could not be recognised from the first record.
    #[error("cannot tell the dataset format from its first record (keys: {0})")]
    UnknownFormat(String),
    /// The file holds no records.
    #[error("the dataset holds no questions")]
    Empty,
    /// The file holds claims to check (WiCE), not questions to answer.
    #[error("a WiCE file holds claims, not questions: it is scored by the citation checker")]
    NotQuestions,
}

/// Parse the records of a file that is either one JSON array or JSON lines.
pub fn parse_records(text: &str) -> Result<Vec<Value>, DatasetError> {
    let trimmed = text.trim_start_matches('\u{feff}').trim_start();
    if trimmed.starts_with('[') {
        let v: Vec<Value> = serde_json::from_str(trimmed)
            .map_err(|source| DatasetError::Json { line: 1, source })?;
        return Ok(v);
    }
    let mut out = Vec::new();
    for (i, line) in trimmed.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let v = serde_json::from_str(line).map_err(|source| DatasetError::Json {
            line: i + 1,
            source,
        })?;
        out.push(v);
    }
    Ok(out)
}

/// Guess the format from the first record's keys.
pub fn detect_format(first: &Value) -> Result<DatasetFormat, DatasetError> {
    let has = |k: &str| first.get(k).is_some();
    if rlmkg_citation::wice::is_record(first) {
        Ok(DatasetFormat::Wice)
    } else if has("supporting_facts") && has("context") {
        Ok(DatasetFormat::Hotpotqa)
    } else if has("paragraphs") {
        Ok(DatasetFormat::Musique)
    } else if has("question") && has("answer") {
        Ok(DatasetFormat::Jsonl)
    } else {
        let keys = first
            .as_object()
            .map(|o| o.keys().cloned().collect::<Vec<_>>().join(", "))
            .unwrap_or_else(|| "not an object".into());
        Err(DatasetError::UnknownFormat(keys))
    }
}

/// Read and convert a dataset file; `format` `None` detects it.
pub fn load(
    path: &Path,
    format: Option<DatasetFormat>,
) -> std::io::Result<Result<(DatasetFormat, Dataset), DatasetError>> {
    let bytes = std::fs::read(path)?;
    let text = String::from_utf8_lossy(&bytes);
    Ok(convert_text(&text, format))
}

/// Convert the text of a dataset file; `format` `None` detects it.
pub fn convert_text(
    text: &str,
    format: Option<DatasetFormat>,
) -> Result<(DatasetFormat, Dataset), DatasetError> {
    let records = parse_records(text)?;
    let first = records.first().ok_or(DatasetError::Empty)?;
    let format = match format {
        Some(f) => f,
        None => detect_format(first)?,
    };
    let ds = match format {
        DatasetFormat::Hotpotqa => from_hotpotqa(&records)?,
        DatasetFormat::Musique => from_musique(&records)?,
        DatasetFormat::Jsonl => from_jsonl(&records)?,
        DatasetFormat::Wice => return Err(DatasetError::NotQuestions),
    };
    Ok((format, ds))
}

/// Pools passages, giving each distinct (title, text) one index.
#[derive(Default)]
struct Pool {
    passages: Vec<CorpusPassage>,
    index: HashMap<(String, String), usize>,
}

impl Pool {
    fn add(&mut self, title: &str, text: &str) -> usize {
        let key = (title.trim().to_string(), text.trim().to_string());
        if let Some(i) = self.index.get(&key) {
            return *i;
        }
        let i = self.passages.len();
        self.passages.push(CorpusPassage {
            title: key.0.clone(),
            text: key.1.clone(),
        });
        self.index.insert(key, i);
        i
    }
}

fn field_str(v: &Value, keys: &[&str]) -> Option<String> {
    keys.iter().find_map(|k| match v.get(*k)? {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    })
}

fn required_str(v: &Value, key: &str, record: usize) -> Result<String, DatasetError> {
    field_str(v, &[key]).ok_or_else(|| DatasetError::Record {
        record,
        message: format!("missing string field `{key}`"),
    })
}

fn string_list(v: Option<&Value>) -> Vec<String> {
    match v {
        Some(Value::Array(a)) => a
            .iter()
            .filter_map(|x| x.as_str().map(str::to_string))
            .collect(),
        Some(Value::String(s)) => vec![s.clone()],
        _ => Vec::new(),
    }
}

fn answers(main: String, aliases: Vec<String>) -> Vec<String> {
    let mut out = vec![main];
    for a in aliases {
        if !out.contains(&a) {
            out.push(a);
        }
    }
    out
}

/// A HotpotQA `[title, …]` pair: its title and its second element; else
/// `not_pair` (it is not a list) or `not_title` (its title is not a string).
fn titled<'v>(
    entry: &'v Value,
    not_pair: &'static str,
    not_title: &'static str,
) -> Result<(&'v str, Option<&'v Value>), &'static str> {
    let pair = entry.as_array().ok_or(not_pair)?;
    let title = pair.first().and_then(Value::as_str).ok_or(not_title)?;
    Ok((title, pair.get(1)))
}

/// Convert HotpotQA records (`context` as `[[title, [sentences]]]`).
pub fn from_hotpotqa(records: &[Value]) -> Result<Dataset, DatasetError> {
    let mut pool = Pool::default();
    let mut questions = Vec::with_capacity(records.len());
    for (n, r) in records.iter().enumerate() {
        let record = n + 1;
        let bad = |message: &str| DatasetError::Record {
            record,
            message: message.to_string(),
        };
        let id = field_str(r, &["_id", "id"]).unwrap_or_else(|| record.to_string());
        let question = required_str(r, "question", record)?;
        let answer = required_str(r, "answer", record)?;
        let context = r
            .get("context")
            .and_then(Value::as_array)
            .ok_or_else(|| bad("`context` is not a list"))?;
        // title -> (passage index, sentences)
        let mut by_title: HashMap<String, (usize, Vec<String>)> = HashMap::new();
        for entry in context {
            let (title, sentences) = titled(
                entry,
                "a `context` entry is not [title, sentences]",
                "a `context` title is not a string",
            )
            .map_err(bad)?;
            let sentences = string_list(sentences);
            let text = sentences.concat();
            let idx = pool.add(title, &text);
            by_title.insert(title.trim().to_string(), (idx, sentences));
        }
        let facts = r
            .get("supporting_facts")
            .and_then(Value::as_array)
            .ok_or_else(|| bad("`supporting_facts` is not a list"))?;
        let mut gold = Vec::new();
        let mut gold_sentences = Vec::new();
        for f in facts {
            let (title, sent) = titled(
                f,
                "a supporting fact is not [title, sentence]",
                "a supporting fact title is not a string",
            )
            .map_err(bad)?;
            let sent = sent.and_then(Value::as_u64);
            let Some((idx, sentences)) = by_title.get(title.trim()) else {
                // A fact about a passage missing from the context: keep it by name.
                let g = GoldRef::Name(title.trim().to_string());
                if !gold.contains(&g) {
                    gold.push(g);
                }
                continue;
            };
            let g = GoldRef::Passage(*idx);
            if !gold.contains(&g) {
                gold.push(g);
            }
            if let Some(text) = sent
                .and_then(|s| usize::try_from(s).ok())
                .and_then(|s| sentences.get(s))
            {
                gold_sentences.push(GoldSentence {
                    title: title.trim().to_string(),
                    text: text.trim().to_string(),
                });
            }
        }
        questions.push(EvalQuestion {
            id,
            question,
            answers: answers(answer, Vec::new()),
            gold,
            gold_sentences,
            kind: field_str(r, &["type"]),
        });
    }
    Ok(Dataset {
        questions,
        passages: pool.passages,
    })
}

/// Convert MuSiQue records (paragraphs flagged `is_supporting`).
pub fn from_musique(records: &[Value]) -> Result<Dataset, DatasetError> {
    let mut pool = Pool::default();
    let mut questions = Vec::with_capacity(records.len());
    for (n, r) in records.iter().enumerate() {
        let record = n + 1;
        let id = field_str(r, &["id", "_id"]).unwrap_or_else(|| record.to_string());
        let question = required_str(r, "question", record)?;
        let answer = required_str(r, "answer", record)?;
        let aliases = string_list(r.get("answer_aliases"));
        let paragraphs = r
            .get("paragraphs")
            .and_then(Value::as_array)
            .ok_or_else(|| DatasetError::Record {
                record,
                message: "`paragraphs` is not a list".into(),
            })?;
        let mut gold = Vec::new();
        for p in paragraphs {
            let title = field_str(p, &["title"]).unwrap_or_default();
            let text =
                field_str(p, &["paragraph_text", "text"]).ok_or_else(|| DatasetError::Record {
                    record,
                    message: "a paragraph has no `paragraph_text`".into(),
                })?;
            let idx = pool.add(&title, &text);
            let supporting = match p.get("is_supporting") {
                Some(Value::Bool(b)) => *b,
                Some(Value::String(s)) => s.eq_ignore_ascii_case("true"),
                _ => false,
            };
            if supporting && !gold.contains(&GoldRef::Passage(idx)) {
                gold.push(GoldRef::Passage(idx));
            }
        }
        questions.push(EvalQuestion::by_passages(
            id,
            question,
            answers(answer, aliases),
            gold,
        ));
    }
    Ok(Dataset {
        questions,
        passages: pool.passages,
    })
}

/// The gold sentences of a record's `chain` (a generated world's hops
/// `{file, sentence, …}`), titled by their file.
fn chain_sentences(r: &Value) -> Vec<GoldSentence> {
    let Some(Value::Array(hops)) = r.get("chain") else {
        return Vec::new();
    };
    let mut out: Vec<GoldSentence> = Vec::new();
    for hop in hops {
        let (Some(title), Some(text)) = (field_str(hop, &["file"]), field_str(hop, &["sentence"]))
        else {
            continue;
        };
        let s = GoldSentence {
            title,
            text: text.trim().to_string(),
        };
        if !out.contains(&s) {
            out.push(s);
        }
    }
    out
}

/// Convert plain JSONL records `{id?, question, answer, answer_aliases?,
/// gold_titles, kind?, chain?}` (`chain`: the hops of a generated world, whose
/// sentences are the gold sentences).
pub fn from_jsonl(records: &[Value]) -> Result<Dataset, DatasetError> {
    let mut seen = BTreeSet::new();
    let mut one = |n: usize, r: &Value| -> Result<EvalQuestion, DatasetError> {
        let record = n + 1;
        let mut id = field_str(r, &["id", "_id"]).unwrap_or_else(|| record.to_string());
        if !seen.insert(id.clone()) {
            id = format!("{id}#{record}");
        }
        let question = required_str(r, "question", record)?;
        let answer = required_str(r, "answer", record)?;
        let aliases = string_list(r.get("answer_aliases").or_else(|| r.get("aliases")));
        let mut gold = Vec::new();
        for t in string_list(r.get("gold_titles")) {
            let g = GoldRef::Name(t.trim().to_string());
            if !gold.contains(&g) {
                gold.push(g);
            }
        }
        let answers = answers(answer, aliases);
        Ok(EvalQuestion {
            gold_sentences: chain_sentences(r),
            kind: field_str(r, &["kind"]),
            ..EvalQuestion::by_passages(id, question, answers, gold)
        })
    };
    let questions = records
        .iter()
        .enumerate()
        .map(|(n, r)| one(n, r))
        .collect::<Result<Vec<_>, _>>()?;
    // Plain JSONL carries no passages: the corpus comes with `--corpus`.
    Ok(Dataset {
        questions,
        passages: Vec::new(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const HOTPOT: &str = r#"[
      {"_id": "h1", "question": "Where was the author of X born?", "answer": "Oslo",
       "supporting_facts": [["X", 0], ["Ann Lee", 1], ["Ann Lee", 1]],
       "context": [["X", ["X is a book by Ann Lee.", " It has 3 pages."]],
                   ["Ann Lee", ["Ann Lee is a writer.", " She was born in Oslo."]],
                   ["Noise", ["Unrelated."]]]},
      {"_id": "h2", "question": "Q2?", "answer": "yes",
       "supporting_facts": [["X", 1], ["Missing", 0]],
       "context": [["X", ["X is a book by Ann Lee.", " It has 3 pages."]]]}
    ]"#;

    #[test]
    fn hotpotqa_pools_passages_and_keeps_gold_sentences() {
        let (fmt, ds) = convert_text(HOTPOT, None).unwrap();
        assert_eq!(fmt, DatasetFormat::Hotpotqa);
        assert_eq!(ds.passages.len(), 3, "X is shared between questions");
        assert_eq!(
            ds.passages[0],
            CorpusPassage {
                title: "X".into(),
                text: "X is a book by Ann Lee. It has 3 pages.".into()
            }
        );
        let q1 = &ds.questions[0];
        assert_eq!(q1.id, "h1");
        assert_eq!(q1.gold, vec![GoldRef::Passage(0), GoldRef::Passage(1)]);
        assert_eq!(q1.gold_sentences.len(), 3);
        assert_eq!(q1.gold_sentences[1].text, "She was born in Oslo.");
        let q2 = &ds.questions[1];
        assert_eq!(
            q2.gold,
            vec![GoldRef::Passage(0), GoldRef::Name("Missing".into())]
        );
        assert_eq!(ds.gold_name(&q2.gold[1]), "Missing");
    }

    #[test]
    fn musique_uses_is_supporting_and_aliases() {
        let text = concat!(
            r#"{"id": "2hop__1", "question": "Who?", "answer": "G. Stanley Hall", "answer_aliases": ["Stanley Hall"], "#,
            r#""paragraphs": [{"idx": 0, "title": "A", "paragraph_text": "first", "is_supporting": false}, "#,
            r#"{"idx": 1, "title": "B", "paragraph_text": "second", "is_supporting": true}, "#,
            r#"{"idx": 2, "title": "B", "paragraph_text": "other B", "is_supporting": true}]}"#,
            "\n",
            r#"{"id": "2hop__2", "question": "Where?", "answer": "Here", "paragraphs": [{"title": "B", "paragraph_text": "second", "is_supporting": true}]}"#,
        );
        let (fmt, ds) = convert_text(text, None).unwrap();
        assert_eq!(fmt, DatasetFormat::Musique);
        assert_eq!(
            ds.passages.len(),
            3,
            "same title, different text: two passages"
        );
        assert_eq!(
            ds.questions[0].answers,
            vec!["G. Stanley Hall".to_string(), "Stanley Hall".to_string()]
        );
        assert_eq!(
            ds.questions[0].gold,
            vec![GoldRef::Passage(1), GoldRef::Passage(2)]
        );
        assert_eq!(ds.questions[1].gold, vec![GoldRef::Passage(1)]);
    }

    #[test]
    fn jsonl_reads_gold_titles_and_numbers_missing_ids() {
        let text = "{\"question\": \"Q?\", \"answer\": 1941, \"gold_titles\": [\"a.md\", \"b.pdf\"]}\n\n{\"id\": \"x\", \"question\": \"R?\", \"answer\": \"r\", \"gold_titles\": \"c.txt\"}\n";
        let (fmt, ds) = convert_text(text, None).unwrap();
        assert_eq!(fmt, DatasetFormat::Jsonl);
        assert!(ds.passages.is_empty());
        assert_eq!(ds.questions[0].id, "1");
        assert_eq!(ds.questions[0].answers, vec!["1941".to_string()]);
        assert_eq!(
            ds.questions[0].gold,
            vec![GoldRef::Name("a.md".into()), GoldRef::Name("b.pdf".into())]
        );
        assert_eq!(ds.questions[1].gold, vec![GoldRef::Name("c.txt".into())]);
    }

    #[test]
    fn jsonl_reads_the_kind_and_the_chain_sentences() {
        let text = concat!(
            r#"{"id": "two-hop-01", "question": "Q?", "answer": "Vik", "kind": "two-hop", "gold_titles": ["articles/a.md"], "#,
            r#""chain": [{"subject": "A", "predicate": "founded_by", "object": "B", "file": "articles/a.md", "sentence": "It was founded by B."}, "#,
            r#"{"subject": "B", "predicate": "born_in", "object": "Vik", "file": "articles/b.md", "sentence": "He was born in Vik."}, "#,
            r#"{"subject": "B", "predicate": "born_in", "object": "Vik", "file": "articles/b.md", "sentence": "He was born in Vik."}]}"#,
            "\n",
            r#"{"question": "R?", "answer": "r", "gold_titles": []}"#,
        );
        let (_, ds) = convert_text(text, None).unwrap();
        let q = &ds.questions[0];
        assert_eq!(q.kind.as_deref(), Some("two-hop"));
        assert_eq!(
            q.gold_sentences,
            vec![
                GoldSentence {
                    title: "articles/a.md".into(),
                    text: "It was founded by B.".into()
                },
                GoldSentence {
                    title: "articles/b.md".into(),
                    text: "He was born in Vik.".into()
                }
            ]
        );
        assert_eq!(ds.questions[1].kind, None);
        assert!(ds.questions[1].gold_sentences.is_empty());
    }

    #[test]
    fn wice_claims_are_recognised_and_not_converted_to_questions() {
        let line = "{\"label\": \"supported\", \"claim\": \"c\", \"evidence\": [\"e\"]}\n";
        let first = &parse_records(line).unwrap()[0];
        assert_eq!(detect_format(first).unwrap(), DatasetFormat::Wice);
        assert!(matches!(
            convert_text(line, None),
            Err(DatasetError::NotQuestions)
        ));
    }

    #[test]
    fn bad_input_is_an_error_with_a_location() {
        let err =
            convert_text("{\"question\": \"q\", \"answer\": \"a\"}\n{oops\n", None).unwrap_err();
        assert!(err.to_string().starts_with("line 2:"), "{err}");
        assert!(matches!(convert_text("", None), Err(DatasetError::Empty)));
        assert!(matches!(
            convert_text("[{\"foo\": 1}]", None),
            Err(DatasetError::UnknownFormat(_))
        ));
        let err = convert_text(
            "[{\"question\": \"q\", \"answer\": \"a\", \"context\": 3, \"supporting_facts\": []}]",
            None,
        )
        .unwrap_err();
        assert!(err.to_string().contains("record 1"), "{err}");
    }
}
