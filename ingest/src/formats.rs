//! Reading files into normalized documents: txt, md, html, pdf, jsonl and json corpora.

use std::path::Path;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::text::normalize;

mod html;

use html::html_text;

/// Positional metadata kept with a document so citations can name pages and headings.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DocMeta {
    /// Byte offsets where PDF pages 1, 2, … start.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pages: Vec<u64>,
    /// Headings as (byte offset where the section starts, heading text).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub headings: Vec<(u64, String)>,
    /// Index of the record inside a JSONL / JSON corpus file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub record: Option<u64>,
}

impl DocMeta {
    /// Page holding byte `pos`, if the document has pages.
    pub fn page_at(&self, pos: u64) -> Option<u32> {
        if self.pages.is_empty() {
            return None;
        }
        let n = self.pages.partition_point(|&p| p <= pos);
        u32::try_from(n.max(1)).ok()
    }

    /// Heading of the section holding byte `pos`.
    pub fn heading_at(&self, pos: u64) -> Option<String> {
        let n = self.headings.partition_point(|(p, _)| *p <= pos);
        n.checked_sub(1)
            .and_then(|i| self.headings.get(i))
            .map(|(_, h)| h.clone())
    }
}

/// A document read from a file, before chunking.
#[derive(Debug, Clone)]
pub struct RawDoc {
    /// Title.
    pub title: String,
    /// Normalized text.
    pub text: String,
    /// Format name.
    pub format: &'static str,
    /// Positional metadata.
    pub meta: DocMeta,
}

/// Options for reading files.
#[derive(Debug, Clone)]
pub struct ReadOptions {
    /// JSONL / JSON field holding the text.
    pub text_field: String,
    /// JSONL / JSON field holding the title.
    pub title_field: String,
}

/// The outcome of reading one file.
#[derive(Debug, Default)]
pub struct ReadOutcome {
    /// Documents found.
    pub docs: Vec<RawDoc>,
    /// Warnings (one per problem), e.g. a malformed JSONL line.
    pub warnings: Vec<String>,
    /// Set when the whole file is skipped, with the reason.
    pub skipped: Option<String>,
}

/// The format of a path from its extension, or None when unsupported.
pub fn format_of(path: &Path) -> Option<&'static str> {
    let ext = path.extension()?.to_str()?.to_ascii_lowercase();
    Some(match ext.as_str() {
        "txt" | "text" => "txt",
        "md" | "markdown" => "md",
        "html" | "htm" | "xhtml" => "html",
        "pdf" => "pdf",
        "jsonl" | "ndjson" => "jsonl",
        "json" => "json",
        _ => return None,
    })
}

fn stem_title(path: &Path) -> String {
    path.file_stem()
        .map(|s| s.to_string_lossy().replace(['_', '-'], " "))
        .unwrap_or_default()
}

fn looks_binary(bytes: &[u8]) -> bool {
    bytes.iter().take(8192).any(|&b| b == 0)
}

fn decode(bytes: &[u8], path: &Path, out: &mut ReadOutcome) -> Option<String> {
    if looks_binary(bytes) {
        out.skipped = Some(format!("{}: binary file skipped", path.display()));
        return None;
    }
    match std::str::from_utf8(bytes) {
        Ok(s) => Some(normalize(s)),
        Err(_) => {
            let lossy = String::from_utf8_lossy(bytes);
            let bad = lossy.chars().filter(|&c| c == '\u{fffd}').count();
            if bad * 10 > lossy.chars().count().max(1) {
                out.skipped = Some(format!("{}: not UTF-8 text, skipped", path.display()));
                return None;
            }
            out.warnings.push(format!(
                "{}: invalid UTF-8 decoded lossily ({bad} bad sequences)",
                path.display()
            ));
            Some(normalize(&lossy))
        }
    }
}

/// Read one file's bytes into documents.
pub fn read_file(
    path: &Path,
    bytes: &[u8],
    format: &'static str,
    opts: &ReadOptions,
) -> ReadOutcome {
    let mut out = ReadOutcome::default();
    match format {
        "txt" => {
            if let Some(text) = decode(bytes, path, &mut out) {
                out.docs.push(RawDoc {
                    title: stem_title(path),
                    text,
                    format,
                    meta: DocMeta::default(),
                });
            }
        }
        "md" => {
            if let Some(text) = decode(bytes, path, &mut out) {
                let meta = markdown_meta(&text);
                let title = meta
                    .headings
                    .first()
                    .map(|(_, h)| h.clone())
                    .unwrap_or_else(|| stem_title(path));
                out.docs.push(RawDoc {
                    title,
                    text,
                    format,
                    meta,
                });
            }
        }
        "html" => {
            if let Some(raw) = decode(bytes, path, &mut out) {
                let (title, text, meta) = html_text(&raw);
                let title = title.unwrap_or_else(|| stem_title(path));
                out.docs.push(RawDoc {
                    title,
                    text,
                    format,
                    meta,
                });
            }
        }
        "pdf" => read_pdf(path, bytes, &mut out),
        "jsonl" => {
            if let Some(text) = decode(bytes, path, &mut out) {
                for (i, line) in text.lines().enumerate() {
                    if line.trim().is_empty() {
                        continue;
                    }
                    match serde_json::from_str::<Value>(line) {
                        Ok(v) => {
                            if let Some(d) = record_doc(&v, i as u64, opts) {
                                out.docs.push(d);
                            } else {
                                out.warnings.push(format!(
                                    "{}:{}: no `{}` text field, line skipped",
                                    path.display(),
                                    i + 1,
                                    opts.text_field
                                ));
                            }
                        }
                        Err(e) => out.warnings.push(format!(
                            "{}:{}: malformed JSON line skipped: {e}",
                            path.display(),
                            i + 1
                        )),
                    }
                }
            }
        }
        "json" => {
            if let Some(text) = decode(bytes, path, &mut out) {
                match serde_json::from_str::<Value>(&text) {
                    Ok(v) => json_corpus(&v, path, opts, &mut out),
                    Err(e) => {
                        out.skipped =
                            Some(format!("{}: malformed JSON, skipped: {e}", path.display()))
                    }
                }
            }
        }
        _ => out.skipped = Some(format!("{}: unsupported format", path.display())),
    }
    out
}

fn as_text(v: &Value) -> Option<(String, bool)> {
    match v {
        Value::String(s) => Some((normalize(s), false)),
        Value::Array(items) => {
            let sents: Vec<String> = items
                .iter()
                .filter_map(|x| x.as_str())
                .map(|s| normalize(s).replace('\n', " ").trim().to_string())
                .collect();
            Some((sents.join("\n"), true))
        }
        _ => None,
    }
}

fn record_doc(v: &Value, record: u64, opts: &ReadOptions) -> Option<RawDoc> {
    let obj = v.as_object()?;
    let (text, sentences) = obj
        .get(&opts.text_field)
        .or_else(|| obj.get("text"))
        .or_else(|| obj.get("paragraph_text"))
        .or_else(|| obj.get("contents"))
        .or_else(|| obj.get("sentences"))
        .and_then(as_text)?;
    let title = obj
        .get(&opts.title_field)
        .or_else(|| obj.get("title"))
        .and_then(|t| t.as_str())
        .map(|t| normalize(t).trim().to_string())
        .unwrap_or_else(|| format!("record {}", record + 1));
    Some(RawDoc {
        title,
        text,
        format: if sentences { "json-sentences" } else { "jsonl" },
        meta: DocMeta {
            record: Some(record),
            ..DocMeta::default()
        },
    })
}

fn json_corpus(v: &Value, path: &Path, opts: &ReadOptions, out: &mut ReadOutcome) {
    match v {
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                match record_doc(item, i as u64, opts) {
                    Some(mut d) => {
                        if d.format == "jsonl" {
                            d.format = "json";
                        }
                        out.docs.push(d)
                    }
                    None => out.warnings.push(format!(
                        "{}: record {} has no text, skipped",
                        path.display(),
                        i + 1
                    )),
                }
            }
        }
        Value::Object(map) => {
            for (i, (title, value)) in map.iter().enumerate() {
                match as_text(value) {
                    Some((text, sentences)) => out.docs.push(RawDoc {
                        title: normalize(title).trim().to_string(),
                        text,
                        format: if sentences { "json-sentences" } else { "json" },
                        meta: DocMeta {
                            record: Some(i as u64),
                            ..DocMeta::default()
                        },
                    }),
                    None => {
                        if let Some(d) = record_doc(value, i as u64, opts) {
                            out.docs.push(d);
                        } else {
                            out.warnings.push(format!(
                                "{}: entry {title:?} has no text, skipped",
                                path.display()
                            ));
                        }
                    }
                }
            }
        }
        _ => {
            out.skipped = Some(format!(
                "{}: JSON is neither a list nor an object of passages",
                path.display()
            ))
        }
    }
}

fn markdown_meta(text: &str) -> DocMeta {
    let mut meta = DocMeta::default();
    let mut pos = 0usize;
    let mut in_code = false;
    for line in text.split('\n') {
        let t = line.trim_start();
        if t.starts_with("```") {
            in_code = !in_code;
        } else if !in_code && t.starts_with('#') {
            let h = t.trim_start_matches('#').trim();
            if !h.is_empty() {
                meta.headings.push((pos as u64, h.to_string()));
            }
        }
        pos += line.len() + 1;
    }
    meta
}

fn read_pdf(path: &Path, bytes: &[u8], out: &mut ReadOutcome) {
    let owned = bytes.to_vec();
    let result =
        std::panic::catch_unwind(move || pdf_extract::extract_text_from_mem_by_pages(&owned));
    let pages = match result {
        Ok(Ok(pages)) => pages,
        Ok(Err(e)) => {
            out.skipped = Some(format!("{}: unreadable PDF skipped: {e:?}", path.display()));
            return;
        }
        Err(_) => {
            out.skipped = Some(format!(
                "{}: corrupt PDF skipped (the PDF reader failed)",
                path.display()
            ));
            return;
        }
    };
    let mut text = String::new();
    let mut meta = DocMeta::default();
    for page in pages {
        if !text.is_empty() {
            text.push_str("\n\n");
        }
        meta.pages.push(text.len() as u64);
        let p = normalize(&page);
        text.push_str(p.trim_matches('\n'));
    }
    if text.trim().is_empty() {
        out.skipped = Some(format!(
            "{}: PDF has no extractable text, skipped",
            path.display()
        ));
        return;
    }
    let title = text
        .lines()
        .find(|l| !l.trim().is_empty())
        .map(|l| l.trim().chars().take(120).collect());
    out.docs.push(RawDoc {
        title: title.unwrap_or_else(|| stem_title(path)),
        text,
        format: "pdf",
        meta,
    });
}
