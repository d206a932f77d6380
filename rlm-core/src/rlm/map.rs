//! `context.map` and `context.tally`: the high-level functions a small root
//! uses instead of writing loops (issue 28). The segment plan comes from the
//! handle ([`ContextHandle::segments`]); every segment goes to a sub-model
//! concurrently with a strict line format, and the replies become records that
//! carry the chunk ids they came from, so an aggregate computed in code can be
//! cited.

use std::collections::HashMap;

use serde_json::{Map, Value, json};

use crate::handle::{ContextHandle, HandleFunction, Segment};

/// Largest text of one segment, in characters, unless the call says otherwise.
pub(super) const DEFAULT_SEGMENT_CHARS: usize = 4000;

/// Most segments one `map` call sends (each is a sub-call).
pub(super) const MAX_SEGMENTS: usize = 500;

/// The reply format a `map` call asks the sub-model for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Format {
    /// `key<TAB>value` lines (also read: `key: value`).
    KeyValue,
    /// One JSON object per line.
    Json,
    /// One value per segment, the reply the value alone: what a short
    /// instruction ("category", "the town of the depot") asks for in the
    /// default format. Small sub-models asked for `key<TAB>value` lines copy
    /// the format's words ("key<BR>value", "text") instead of the value.
    Value,
}

/// Most words of an instruction read as asking for one value.
const ONE_VALUE_WORDS: usize = 6;

impl Format {
    /// Reads `"kv"` / `"json"` (anything else is an error for the code).
    pub(super) fn parse(s: &str) -> Result<Self, String> {
        match s.trim().to_ascii_lowercase().as_str() {
            "" | "kv" | "tsv" | "lines" => Ok(Self::KeyValue),
            "json" | "jsonl" => Ok(Self::Json),
            other => Err(format!(
                "map: format must be \"kv\" or \"json\", not {other:?}"
            )),
        }
    }

    /// The format a call's replies are asked in: the default `kv` with a
    /// short instruction that names no format of its own asks for one value
    /// per segment ([`Format::Value`]); anything else as the call said.
    pub(super) fn for_instruction(self, instruction: &str) -> Self {
        let lower = instruction.to_ascii_lowercase();
        let names_format = ["key", "tab", "json", "line"]
            .iter()
            .any(|w| lower.contains(w));
        if self == Self::KeyValue
            && !names_format
            && instruction.split_whitespace().count() <= ONE_VALUE_WORDS
        {
            Self::Value
        } else {
            self
        }
    }
}

/// Whether a `map` instruction is code rather than words: a comparison
/// (`==`, `!=`, `<=`, `>=`) or a dotted name (`incident.city`). A sub-model
/// asked `incident.city == 'Ålesund'` of each document replies with what
/// it makes of the expression (a bare "1" for a few), and the tally counts
/// that, not what the question counts.
pub(super) fn is_code(instruction: &str) -> bool {
    if ["==", "!=", "<=", ">="]
        .iter()
        .any(|op| instruction.contains(op))
    {
        return true;
    }
    // A dotted name's parts are names of two characters or more ("e.g." is
    // not one).
    let name =
        |p: &str| p.chars().count() > 1 && p.chars().all(|c| c.is_alphanumeric() || c == '_');
    instruction.split_whitespace().any(|w| {
        let w = w.trim_matches(|c: char| !c.is_alphanumeric() && c != '_');
        w.split_once('.').is_some_and(|(a, b)| {
            a.starts_with(|c: char| c.is_alphabetic() || c == '_') && name(a) && name(b)
        })
    })
}

/// The functions the loop adds to a handle that can map: listed in the prompt
/// and offered as tools like the handle's own.
pub(super) fn functions() -> Vec<HandleFunction> {
    vec![
        HandleFunction {
            name: "map".into(),
            signature: "map(instruction, over=\"docs\", format=\"kv\")".into(),
            doc: "ask a sub-model the instruction about every document (over=\"docs\"), chunk \
                  (\"chunks\"), search hit (\"search: words\") or listed id, all at once -> list \
                  of records {key, value, chunks, source}; each reply line must be key<TAB>value"
                .into(),
            parameters: json!({
                "type": "object",
                "properties": {
                    "instruction": {"type": "string"},
                    "over": {"type": "string", "default": "docs"},
                    "format": {"type": "string", "enum": ["kv", "json"], "default": "kv"}
                },
                "required": ["instruction"]
            }),
        },
        HandleFunction {
            name: "tally".into(),
            signature: "tally(records, field=\"value\")".into(),
            doc: "count records by a field, most frequent first -> list of {value, count, chunks}"
                .into(),
            parameters: json!({
                "type": "object",
                "properties": {
                    "records": {"type": "array"},
                    "field": {"type": "string", "default": "value"}
                },
                "required": ["records"]
            }),
        },
    ]
}

/// The Python methods of the handle object that call the loop's `_map` and
/// `_tally` (indented for the class body).
pub(super) const PRELUDE_METHODS: &str = "    def map(self, instruction, over=\"docs\", format=\"kv\", max_chars=4000):
        r = _map(instruction, over, format, max_chars)
        print(\"map: \" + str(r[\"segments\"]) + \" segments, \" + str(len(r[\"records\"])) + \" records, \" + str(r[\"unparsed\"]) + \" unparsed lines, \" + str(r[\"failed\"]) + \" failed calls\")
        return r[\"records\"]
    def tally(self, records, field=\"value\"):
        return _tally(records, field)
";

/// The prompt one segment is sent with. `question` is the run's question:
/// with it a sub-model reads a terse instruction ("title", "category") as
/// what the question needs from the text.
pub(super) fn segment_prompt(
    question: &str,
    instruction: &str,
    format: Format,
    segment: &Segment,
) -> String {
    let rule = match format {
        Format::KeyValue => {
            "Reply only with lines of the form key<TAB>value (a tab between them), one line per \
             finding, nothing else. If the text has nothing for the instruction, reply NONE."
        }
        Format::Json => {
            "Reply only with JSON objects, one per line, one per finding, nothing else. If the \
             text has nothing for the instruction, reply NONE."
        }
        Format::Value => {
            "Reply with the value alone, in the text's own words (a word or a short phrase), on \
             one line, nothing else. If the text does not say, reply NONE."
        }
    };
    format!(
        "This text is one of many read to answer the question: {question}\n\
         Do not answer that question here (the texts are counted and compared elsewhere); \
         from this one text give only: {instruction}\n\n{rule}\n\nText ({}):\n{}",
        segment.label, segment.text
    )
}

/// What the replies to one `map` call came to.
#[derive(Debug, Default)]
pub(super) struct Parsed {
    /// The records, in segment order.
    pub(super) records: Vec<Value>,
    /// Reply lines that were neither a record nor `NONE`, and values (of
    /// [`Format::Value`]) their segment's text does not hold.
    pub(super) unparsed: usize,
}

/// Read one segment's reply into records (each carries the segment's ids and
/// label); lines that do not parse are counted.
pub(super) fn parse_reply(reply: &str, format: Format, segment: &Segment, into: &mut Parsed) {
    // A reply of one short bare line ("fire") is that line as the value: small
    // sub-models answer a one-key instruction so.
    let content: Vec<&str> = reply
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with("```"))
        .collect();
    if format == Format::Value {
        // The first line is the value; a `key<TAB>value` line its value.
        let Some(first) = content.first() else { return };
        if is_none(first) {
            return;
        }
        let line = first.trim_start_matches(['-', '*', '•']).trim();
        let v = key_value(line).map_or_else(|| line.to_owned(), |(_, v)| v);
        let v = v.trim().trim_end_matches('.').trim();
        if is_none(v) {
            return;
        }
        // The value is asked for in the text's own words: one the text does
        // not hold is the sub-model's, not the text's (a small sub-model
        // answers with the question's own value, "power outage", for a
        // report of a fire), and is not counted.
        if v.is_empty() || v.split_whitespace().count() > BARE_WORDS || !in_text(v, &segment.text) {
            into.unparsed += 1;
            return;
        }
        into.records.push(value_record(v, segment));
        return;
    }
    let bare = match content.as_slice() {
        [one] if format == Format::KeyValue && !is_none(one) && key_value(one).is_none() => {
            let v = one
                .trim_start_matches(['-', '*', '•'])
                .trim()
                .trim_end_matches('.');
            (!v.is_empty() && v.split_whitespace().count() <= BARE_WORDS).then_some(v)
        }
        _ => None,
    };
    if let Some(v) = bare {
        into.records.push(value_record(v, segment));
        return;
    }
    for raw in reply.lines() {
        let line = raw.trim().trim_start_matches(['-', '*', '•']).trim();
        if line.is_empty() || line.starts_with("```") || is_none(line) {
            continue;
        }
        let fields = match format {
            Format::KeyValue | Format::Value => match key_value(line) {
                // `category<TAB>None`: the text has nothing for it.
                Some((_, v)) if is_none(&v) => continue,
                kv => kv.map(|(k, v)| {
                    let mut m = Map::new();
                    m.insert("key".into(), Value::from(k));
                    m.insert("value".into(), Value::from(v));
                    m
                }),
            },
            Format::Json => match serde_json::from_str::<Value>(line) {
                Ok(Value::Object(m)) => Some(m),
                _ => None,
            },
        };
        match fields {
            Some(mut m) => {
                m.insert("chunks".into(), json!(segment.ids));
                m.insert("source".into(), Value::from(segment.label.clone()));
                into.records.push(Value::Object(m));
            }
            None => into.unparsed += 1,
        }
    }
}

/// Whether `text` holds `value`, up to case, accents and spacing.
fn in_text(value: &str, text: &str) -> bool {
    let norm = |s: &str| {
        rlmkg_text::fold_key(s)
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
    };
    norm(text).contains(&norm(value))
}

/// The record of a reply that is a value alone.
fn value_record(value: &str, segment: &Segment) -> Value {
    json!({"key": "value", "value": value, "chunks": segment.ids, "source": segment.label})
}

fn is_none(line: &str) -> bool {
    let l = line.trim_matches(|c: char| !c.is_alphanumeric());
    l.eq_ignore_ascii_case("none") || l.eq_ignore_ascii_case("n/a")
}

/// Most words of a bare one-line reply read as a value.
const BARE_WORDS: usize = 6;

/// `key<TAB>value`, or `key: value` as small models often write it, or the
/// format's own words copied (`key<TAB>value` with the letters `<TAB>`).
fn key_value(line: &str) -> Option<(String, String)> {
    let literal = || {
        let at = line.to_ascii_lowercase().find("<tab>")?;
        Some((line.get(..at)?, line.get(at + "<tab>".len()..)?))
    };
    // The tab written as the escape `\t`, as in the code the model knows.
    let escaped = || line.split_once("\\t");
    let (k, v) = line
        .split_once('\t')
        .or_else(literal)
        .or_else(escaped)
        .or_else(|| line.split_once(": "))?;
    let (k, v) = (k.trim(), v.trim());
    if k.is_empty() || v.is_empty() || k.chars().count() > 80 {
        return None;
    }
    Some((k.to_string(), v.to_string()))
}

/// A tallied value as the sub-model meant it: surrounding space, quotes,
/// emphasis and a closing full stop dropped, and a value the sub-model wrapped
/// in its key (`category<Fire>`, `category: fire`, `category=fire`) read as
/// the part inside. Empty when nothing is left.
fn clean_value(raw: &str) -> &str {
    fn trim(s: &str) -> &str {
        s.trim()
            .trim_matches(|c: char| matches!(c, '"' | '\'' | '`' | '*' | '_'))
            .trim()
            .trim_end_matches(['.', ',', ';', '!'])
            .trim()
    }
    let mut v = trim(raw);
    // A second `key<TAB>value` inside the value (a tab, or its escape `\t`):
    // the last part.
    if let Some((_, last)) = v.rsplit_once('\t').or_else(|| v.rsplit_once("\\t"))
        && !last.trim().is_empty()
    {
        v = trim(last);
    }
    // `key<inner>`: the inner part.
    if let Some(inner) = v
        .strip_suffix('>')
        .and_then(|s| s.split_once('<'))
        .map(|(_, inner)| inner)
        .filter(|inner| !inner.trim().is_empty())
    {
        v = trim(inner);
    }
    // `key: value` or `key=value` inside the value: the value.
    if let Some((k, rest)) = v.rsplit_once(": ")
        && !rest.trim().is_empty()
        && k.split_whitespace().count() <= 3
    {
        v = trim(rest);
    }
    if let Some((k, rest)) = v.split_once('=')
        && !rest.trim().is_empty()
        && !k.is_empty()
        && k.chars().all(|c| c.is_alphabetic() || c == '_')
    {
        v = trim(rest);
    }
    v
}

/// Count `records` by `field` (case, accents, quotes and surrounding space ignored, a
/// value wrapped in its key read as the part inside; the first spelling seen
/// is kept), most frequent first, ties by first appearance (by `value` when no
/// record has `field`). A value counts
/// once per source (a document saying "fire" twice is one fire report); each
/// row keeps the chunk ids of the records it counts.
pub(super) fn tally(records: &[Value], field: &str) -> Value {
    // A field no record has is a value the model meant to count
    // (`tally(records, field="power outage")`): count by value, so the row it
    // meant is among the rows.
    let field = if records.iter().any(|r| r.get(field).is_some()) {
        field
    } else {
        "value"
    };
    struct Row {
        value: String,
        count: usize,
        chunks: Vec<String>,
        sources: std::collections::HashSet<String>,
        first: usize,
    }
    let mut rows: Vec<Row> = Vec::new();
    let mut index: HashMap<String, usize> = HashMap::new();
    for (i, r) in records.iter().enumerate() {
        let Some(v) = r.get(field) else { continue };
        let value = match v {
            // "power outage." and "power outage" are one value.
            Value::String(s) => clean_value(s).to_string(),
            Value::Null => continue,
            other => other.to_string(),
        };
        if value.is_empty() {
            continue;
        }
        let key = rlmkg_text::fold_key(&value);
        let at = *index.entry(key).or_insert_with(|| {
            rows.push(Row {
                value: value.clone(),
                count: 0,
                chunks: Vec::new(),
                sources: std::collections::HashSet::new(),
                first: i,
            });
            rows.len() - 1
        });
        let Some(row) = rows.get_mut(at) else {
            continue;
        };
        let source = r.get("source").and_then(Value::as_str);
        if source.is_none_or(|s| row.sources.insert(s.to_owned())) {
            row.count += 1;
        }
        if let Some(Value::Array(ids)) = r.get("chunks") {
            for id in ids.iter().filter_map(Value::as_str) {
                if !row.chunks.iter().any(|c| c == id) {
                    row.chunks.push(id.to_string());
                }
            }
        }
    }
    rows.sort_by(|a, b| b.count.cmp(&a.count).then(a.first.cmp(&b.first)));
    Value::Array(
        rows.into_iter()
            .map(|r| json!({"value": r.value, "count": r.count, "chunks": r.chunks}))
            .collect(),
    )
}

/// Least share of a `map`'s segments that must give a record for its tally
/// to answer a question about the whole collection (the review's
/// coverage share of documents read, applied to documents answered).
const MIN_GIVEN: f64 = 0.8;

/// How much of the collection a `map` call's replies covered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Coverage {
    /// Segments sent.
    pub(super) segments: usize,
    /// Segments whose reply gave at least one record.
    pub(super) gave: usize,
    /// The call's instruction.
    pub(super) instruction: String,
}

impl Coverage {
    /// Why a tally of this map cannot answer a question about the whole
    /// collection (fewer than [`MIN_GIVEN`] of its segments gave a value),
    /// with the map to make instead: the same thing in other words; `None`
    /// when it covered enough.
    pub(super) fn partial(&self) -> Option<String> {
        if self.segments == 0 || self.gave as f64 >= MIN_GIVEN * self.segments as f64 {
            return None;
        }
        let instruction = self.instruction.trim();
        let other = match instruction.strip_prefix("the ") {
            Some(bare) => bare.to_owned(),
            None => format!("the {instruction}"),
        };
        Some(format!(
            "Only {} of {} documents gave a value for \"{instruction}\", so the tally is \
             partial and cannot answer a question about every document. Map again with other \
             words for the same thing: {}.",
            self.gave,
            self.segments,
            crate::prompts::map_and_tally(&other)
        ))
    }
}

/// Most chunk ids a tally hint writes for one row.
const HINT_IDS: usize = 24;

/// What a small root is shown after a `tally` for `question`: the one `FINAL`
/// call that answers from its rows, citing the row's chunks (a small root
/// copies the first call it is shown, so only the one the question's shape
/// asks for): for "how many …", the count of the row whose value the question
/// names (else of the first row); for "… least often", the last row; else
/// ("which … most often") the first row. `None` for an empty tally.
pub(super) fn tally_hint(rows: &Value, question: &str) -> Option<String> {
    let rows = rows.as_array()?;
    let call = |row: &Value, count: bool| -> Option<String> {
        let value = row.get("value")?.as_str()?.replace(['"', '\\'], "'");
        let n = row.get("count")?.as_u64()?;
        let ids: Vec<String> = row
            .get("chunks")?
            .as_array()?
            .iter()
            .filter_map(Value::as_str)
            .take(HINT_IDS)
            .map(|id| format!("[{id}]"))
            .collect();
        let ids = ids.join(" ");
        Some(if count {
            format!("FINAL(\"{n} {ids}\")")
        } else {
            format!("FINAL(\"{value} {ids}\")")
        })
    };
    let first = rows.first()?;
    let q = rlmkg_text::fold_key(question);
    let has = |words: &[&str]| words.iter().any(|w| q.contains(w));
    let hint = if has(&["how many", "how often", "number of"]) {
        // The row the question names: the longest value it holds.
        let named = rows
            .iter()
            .filter_map(|r| {
                let v = rlmkg_text::fold_key(r.get("value")?.as_str()?);
                (v.chars().count() > 1 && q.contains(v.as_str())).then_some((v.len(), r))
            })
            .max_by_key(|(len, _)| *len)
            .map(|(_, r)| r);
        match named {
            Some(row) => format!(
                "The tally's row for {} counts {} documents. End now: {}",
                row.get("value")?.as_str()?,
                row.get("count")?.as_u64()?,
                call(row, true)?
            ),
            None => format!(
                "The tally counted {} values; the first row's count: {}",
                rows.len(),
                call(first, true)?
            ),
        }
    } else if has(&["least", "fewest", "rarest", "less often"]) {
        format!(
            "The tally counted {} values; the least frequent is its last row. End now: {}",
            rows.len(),
            call(rows.last()?, false)?
        )
    } else {
        format!(
            "The tally counted {} values; the most frequent is its first row. End now: {}",
            rows.len(),
            call(first, false)?
        )
    };
    Some(hint)
}

/// Whether `handle` offers the loop's map functions.
pub(super) fn offered(handle: &dyn ContextHandle) -> bool {
    handle.can_map()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn seg(id: &str) -> Segment {
        Segment {
            ids: vec![id.into()],
            label: format!("doc {id}"),
            text: "t".into(),
        }
    }

    #[test]
    fn a_map_most_documents_gave_no_value_for_is_partial() {
        let cov = |gave, instruction: &str| Coverage {
            segments: 20,
            gave,
            instruction: instruction.into(),
        };
        assert_eq!(cov(16, "the category").partial(), None);
        let half = cov(10, "the category").partial().unwrap();
        assert!(half.contains("Only 10 of 20"), "{half}");
        assert!(half.contains("context.map(\"category\""), "{half}");
        let bare = cov(3, "category").partial().unwrap();
        assert!(bare.contains("context.map(\"the category\""), "{bare}");
        assert_eq!(
            Coverage {
                segments: 0,
                gave: 0,
                instruction: "x".into()
            }
            .partial(),
            None
        );
    }

    #[test]
    fn code_is_told_from_words() {
        for code in [
            "incident.city == 'Ålesund'",
            "category != 'fire'",
            "doc.category",
            "count >= 2",
        ] {
            assert!(is_code(code), "{code}");
        }
        for words in [
            "the city",
            "category",
            "the town of the depot, e.g. Bergen",
            "year (e.g. 2019)",
            "a price over 12.50",
            "Is it in Ålesund? yes or no.",
        ] {
            assert!(!is_code(words), "{words}");
        }
    }

    #[test]
    fn key_value_lines_become_records_with_their_chunks() {
        let mut p = Parsed::default();
        parse_reply(
            "category\tfire\nplace: Oslo\nNONE\nrambling prose here\n- category\tflood",
            Format::KeyValue,
            &seg("c3"),
            &mut p,
        );
        assert_eq!(p.records.len(), 3);
        assert_eq!(p.unparsed, 1);
        assert_eq!(p.records[0]["key"], "category");
        assert_eq!(p.records[0]["value"], "fire");
        assert_eq!(p.records[1]["value"], "Oslo");
        assert_eq!(p.records[2]["value"], "flood");
        assert_eq!(p.records[0]["chunks"], json!(["c3"]));
    }

    #[test]
    fn a_bare_one_line_reply_is_its_value() {
        let mut p = Parsed::default();
        parse_reply("Fire.\n", Format::KeyValue, &seg("c3"), &mut p);
        assert_eq!(p.records.len(), 1);
        assert_eq!(p.records[0]["value"], "Fire");
        assert_eq!(p.unparsed, 0);
        // Prose, two bare lines, NONE: not a value.
        for reply in [
            "The text describes a fire at the depot in Tromsø that week.",
            "fire\nflood",
            "NONE",
        ] {
            let mut p = Parsed::default();
            parse_reply(reply, Format::KeyValue, &seg("c3"), &mut p);
            assert!(p.records.is_empty(), "{reply}");
        }
    }

    #[test]
    fn json_lines_become_records() {
        let mut p = Parsed::default();
        parse_reply(
            "{\"category\": \"fire\"}\nnot json",
            Format::Json,
            &seg("c1"),
            &mut p,
        );
        assert_eq!(p.records.len(), 1);
        assert_eq!(p.records[0]["category"], "fire");
        assert_eq!(p.unparsed, 1);
    }

    #[test]
    fn a_copied_tab_placeholder_separates_key_and_value() {
        let mut into = Parsed::default();
        parse_reply(
            "category<TAB>power outage\nCategory<tab>fire",
            Format::KeyValue,
            &seg("c1"),
            &mut into,
        );
        let values: Vec<&str> = into
            .records
            .iter()
            .filter_map(|r| r["value"].as_str())
            .collect();
        assert_eq!(values, ["power outage", "fire"]);
        let mut into = Parsed::default();
        parse_reply("category\\tflood", Format::KeyValue, &seg("c1"), &mut into);
        assert_eq!(into.records[0]["key"], "category");
        assert_eq!(into.records[0]["value"], "flood");
        assert_eq!(into.unparsed, 0);
    }

    #[test]
    fn the_tally_hint_writes_the_call_the_question_asks_for() {
        let rows = json!([
            {"value": "fire", "count": 2, "chunks": ["c16", "c20"]},
            {"value": "Ålesund", "count": 2, "chunks": ["c4", "c9"]},
            {"value": "flood \"x\"", "count": 1, "chunks": ["c3"]},
        ]);
        let hint = |q: &str| tally_hint(&rows, q).unwrap_or_default();
        let most = hint("Which category is reported most often?");
        assert!(most.contains("FINAL(\"fire [c16] [c20]\")"), "{most}");
        assert!(!most.contains("flood"), "{most}");
        let least = hint("Which category is reported least often?");
        assert!(least.contains("FINAL(\"flood 'x' [c3]\")"), "{least}");
        assert!(!least.contains("fire ["), "{least}");
        // The row the question names, matched without its accent.
        let count = hint("In how many reports did it happen in Alesund?");
        assert!(count.contains("FINAL(\"2 [c4] [c9]\")"), "{count}");
        let other = hint("How many reports mention Oslo?");
        assert!(other.contains("FINAL(\"2 [c16] [c20]\")"), "{other}");
        assert!(tally_hint(&json!([]), "q").is_none());
        assert!(tally_hint(&json!("x"), "q").is_none());
    }

    #[test]
    fn tally_counts_case_blind_most_first_with_chunks() {
        let records = vec![
            json!({"value": "Fire", "chunks": ["c1"]}),
            json!({"value": "flood", "chunks": ["c2"]}),
            json!({"value": "fire ", "chunks": ["c3"]}),
            json!({"other": 1}),
        ];
        let t = tally(&records, "value");
        assert_eq!(
            t,
            json!([
                {"value": "Fire", "count": 2, "chunks": ["c1", "c3"]},
                {"value": "flood", "count": 1, "chunks": ["c2"]}
            ])
        );
    }

    #[test]
    fn tally_reads_wrapped_values_and_counts_a_source_once() {
        let records = vec![
            json!({"value": "category<Fire>", "chunks": ["c1"], "source": "d1"}),
            json!({"value": "fire", "chunks": ["c1"], "source": "d1"}),
            json!({"value": "Category: fire.", "chunks": ["c2"], "source": "d2"}),
            json!({"value": "\"flood\"", "chunks": ["c3"], "source": "d3"}),
            json!({"value": "`**`", "chunks": ["c4"], "source": "d4"}),
            json!({"value": "FIRE", "chunks": ["c5"], "source": "d5"}),
        ];
        let t = tally(&records, "value");
        assert_eq!(
            t,
            json!([
                {"value": "Fire", "count": 3, "chunks": ["c1", "c2", "c5"]},
                {"value": "flood", "count": 1, "chunks": ["c3"]}
            ])
        );
        assert_eq!(
            tally(&records, "fire"),
            t,
            "a field no record has counts by value"
        );
        assert_eq!(clean_value("power outage"), "power outage");
        assert_eq!(clean_value("Incident 018\\tFire"), "Fire");
        assert_eq!(clean_value("Category\tchemical spill"), "chemical spill");
        assert_eq!(clean_value("a < b"), "a < b");
        assert_eq!(
            clean_value("ratio 3=4 in the long text here"),
            "ratio 3=4 in the long text here"
        );
    }

    #[test]
    fn a_short_instruction_asks_for_one_value_per_segment() {
        assert_eq!(Format::KeyValue.for_instruction("category"), Format::Value);
        assert_eq!(
            Format::KeyValue.for_instruction("the town of the depot"),
            Format::Value
        );
        // An instruction naming its own format, a long one, or JSON: as asked.
        for (format, instruction) in [
            (Format::KeyValue, "category and town as key<TAB>value lines"),
            (
                Format::KeyValue,
                "list every person named in the text with the role they had",
            ),
            (Format::Json, "category"),
        ] {
            assert_eq!(format.for_instruction(instruction), format, "{instruction}");
        }
        let prompt = segment_prompt("Which town?", "town", Format::Value, &seg("c1"));
        assert!(prompt.contains("value alone"), "{prompt}");
        assert!(!prompt.contains("<TAB>"), "{prompt}");
    }

    #[test]
    fn a_one_value_reply_is_its_first_line_or_its_lines_value() {
        let report = Segment {
            text: "A FIRE broke out at the depot in\nBergen. Category: power   outage.".into(),
            ..seg("c1")
        };
        let values = |reply: &str| {
            let mut p = Parsed::default();
            parse_reply(reply, Format::Value, &report, &mut p);
            let v: Vec<String> = p
                .records
                .iter()
                .filter_map(|r| r["value"].as_str().map(str::to_owned))
                .collect();
            (v, p.unparsed)
        };
        assert_eq!(values("Fire.\n"), (vec!["Fire".to_owned()], 0));
        assert_eq!(
            values("category\tpower outage"),
            (vec!["power outage".to_owned()], 0)
        );
        assert_eq!(
            values("- Bergen\nmore words"),
            (vec!["Bergen".to_owned()], 0)
        );
        assert_eq!(values("NONE"), (vec![], 0));
        assert_eq!(values("type: None"), (vec![], 0));
        assert_eq!(values(""), (vec![], 0));
        let prose = "The text describes a fire at the depot in Tromsø that week.";
        assert_eq!(values(prose), (vec![], 1));
        // A value the text does not hold is the sub-model's own.
        assert_eq!(values("flood"), (vec![], 1));
        assert_eq!(values("Ålesund"), (vec![], 1));
    }

    #[test]
    fn a_line_whose_value_is_none_says_nothing() {
        let mut p = Parsed::default();
        parse_reply(
            "type\tNone\ncategory\tfire",
            Format::KeyValue,
            &seg("c1"),
            &mut p,
        );
        assert_eq!(p.records.len(), 1);
        assert_eq!(p.unparsed, 0);
    }

    #[test]
    fn formats_parse() {
        assert_eq!(Format::parse("kv"), Ok(Format::KeyValue));
        assert_eq!(Format::parse("JSON"), Ok(Format::Json));
        assert!(Format::parse("xml").is_err());
    }

    proptest! {
        #[test]
        fn any_reply_parses_without_panic(reply in ".{0,400}") {
            let mut p = Parsed::default();
            parse_reply(&reply, Format::KeyValue, &seg("c1"), &mut p);
            parse_reply(&reply, Format::Json, &seg("c1"), &mut p);
            parse_reply(&reply, Format::Value, &seg("c1"), &mut p);
            prop_assert!(p.records.len() + p.unparsed <= 3 * reply.lines().count().max(1));
        }

        #[test]
        fn a_cleaned_value_is_part_of_the_raw_one(raw in ".{0,200}") {
            prop_assert!(raw.contains(clean_value(&raw)));
        }
    }
}
