//! Which fenced blocks of a root reply run as code, the correction sent when
//! none did, and unsubstituted placeholders in an answer.

use crate::HandleFunction;

/// One fenced block of a reply.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Fence {
    /// The info string's first word, lower-cased (empty for a bare fence).
    label: String,
    /// The lines between the fences.
    code: String,
    /// Whether a closing fence was seen.
    closed: bool,
}

/// Every fenced block of `reply`, in order.
fn fences(reply: &str) -> Vec<Fence> {
    let mut out = Vec::new();
    let mut current: Option<(String, Vec<&str>)> = None;
    for line in reply.lines() {
        let t = line.trim();
        match current.as_mut() {
            None => {
                if let Some(info) = t.strip_prefix("```") {
                    let label = info
                        .trim()
                        .trim_start_matches('{')
                        .split(|c: char| c.is_whitespace() || c == '}' || c == ',')
                        .next()
                        .unwrap_or_default()
                        .to_lowercase();
                    current = Some((label, Vec::new()));
                }
            }
            Some((label, lines)) => {
                if let Some(code) = closing(line) {
                    if !code.trim().is_empty() {
                        lines.push(code);
                    }
                    out.push(Fence {
                        label: std::mem::take(label),
                        code: lines.join("\n"),
                        closed: true,
                    });
                    current = None;
                } else {
                    lines.push(line);
                }
            }
        }
    }
    if let Some((label, lines)) = current {
        out.push(Fence {
            label,
            code: lines.join("\n"),
            closed: false,
        });
    }
    out
}

/// Whether `line`, inside a block, closes it: a fence alone, or a fence
/// written at the end of the block's last line of code (`print(x) ```, as
/// small models write it). The code before the fence, if any.
fn closing(line: &str) -> Option<&str> {
    let t = line.trim_end();
    let code = t.strip_suffix("```")?;
    // Four or more backticks, or a fence inside a string, is not a close.
    (!code.ends_with('`')).then_some(code)
}

/// Labels of fences that run as code.
const CODE_LABELS: &[&str] = &["repl", "python", "py", "python3"];

/// Names whose call marks a bare fence as sandbox code.
const SANDBOX_CALLS: &[&str] = &[
    "context.",
    "kg.",
    "print(",
    "FINAL(",
    "FINAL_VAR(",
    "llm_query(",
    "llm_query_batched(",
    "rlm_query(",
    "answer[",
];

/// Whether a fence runs: a ```` ```repl ````/```` ```python ````/```` ```py ```` block,
/// or a bare ```` ``` ```` block whose text calls into the sandbox (the handle, `print`,
/// `FINAL`, the sub-model helpers, the `answer` dict). Bare fences holding prose,
/// sample output or a quoted answer stay text; fences with any other label never run.
fn runs(f: &Fence) -> bool {
    if CODE_LABELS.contains(&f.label.as_str()) {
        return true;
    }
    f.label.is_empty() && SANDBOX_CALLS.iter().any(|c| f.code.contains(c))
}

/// Extract the code of every block that runs (see the rule on [`runs`]): ```` ```repl ````,
/// ```` ```python ````/```` ```py ````, and bare fences whose text calls into the sandbox.
/// An unclosed last block counts unless `closed_only`.
pub fn extract_blocks(reply: &str, closed_only: bool) -> Vec<String> {
    fences(reply)
        .into_iter()
        .filter(|f| runs(f) && (f.closed || !closed_only))
        .map(|f| without_full_stops(&f.code))
        .filter(|b| !b.trim().is_empty())
        .collect()
}

/// `code` without the full stop a small model puts after a call that ends a
/// line, as after a sentence (`FINAL("…").`): Python never allows a `.`
/// after `)` at the end of a line, so only a syntax error is removed.
fn without_full_stops(code: &str) -> String {
    if !code.contains(").") {
        return code.to_owned();
    }
    code.lines()
        .map(|line| {
            let t = line.trim_end();
            match t.strip_suffix(").") {
                Some(call) => format!("{call})"),
                None => line.to_owned(),
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The byte offset just after the closing fence of the first block of `reply`
/// that runs (see [`runs`]); `None` when no closed block runs.
pub(super) fn first_block_end(reply: &str) -> Option<usize> {
    let mut open: Option<(String, usize)> = None;
    let mut offset = 0;
    for line in reply.split_inclusive('\n') {
        let start = offset;
        offset += line.len();
        let t = line.trim();
        match &open {
            None => {
                if t.starts_with("```") {
                    open = Some((String::new(), start));
                }
            }
            Some((_, from)) if closing(line).is_some() => {
                let block = &reply[*from..start + line.trim_end().len()];
                if !extract_blocks(block, true).is_empty() {
                    return Some(start + line.trim_end().len());
                }
                open = None;
            }
            Some(_) => {}
        }
    }
    None
}

/// The one correction sent when a reply ran no code: what it wrote, and what
/// runs, with a call of the handle's first function (`first`) as the example.
pub(super) fn no_code_correction(reply: &str, first: Option<&HandleFunction>) -> String {
    let skipped: Vec<String> = fences(reply)
        .iter()
        .filter(|f| !runs(f))
        .map(|f| {
            if f.label.is_empty() {
                "a bare ``` block with no sandbox call".to_string()
            } else {
                format!("a ```{} block", f.label)
            }
        })
        .collect();
    let what = if skipped.is_empty() {
        "your reply had no code block".to_string()
    } else {
        format!("your reply had {}, which is not run", skipped.join(", "))
    };
    // A call small models copy as it is: the handle's first function with a
    // string argument (for the store's handle, `context.search("your keywords")`).
    let call = first.map_or_else(
        || "context".to_string(),
        |f| format!("context.{}(\"your keywords\")", f.name),
    );
    format!(
        "No code ran: {what}. Only code in a ```repl block runs (```python works too). \
         Write for example:\n```repl\nhits = {call}\nprint(hits)\n```\n\
         and end the run by calling FINAL(\"answer [c12.s3]\") inside such a block; \
         text that merely mentions FINAL does nothing."
    )
}

/// Unsubstituted placeholders in an answer: `{name}`, `[snake_case_name]`, or
/// words in angle brackets (`<the answer>`, `<its id>`), as prompts write them.
pub fn find_placeholder(answer: &str) -> Option<String> {
    let bytes = answer.as_bytes();
    for (i, &b) in bytes.iter().enumerate() {
        let close = match b {
            b'{' => b'}',
            b'[' => b']',
            b'<' => b'>',
            _ => continue,
        };
        if b == b'<' {
            let rest = &answer[i + 1..];
            let inner: &str = rest.split('>').next().unwrap_or_default();
            let words = inner.len() < rest.len()
                && inner.len() <= 60
                && inner.bytes().next().is_some_and(|c| c.is_ascii_lowercase())
                && inner.bytes().all(|c| {
                    c.is_ascii_lowercase() || matches!(c, b' ' | b'_' | b'\'' | b'-' | b'.')
                });
            if words {
                return Some(format!("<{inner}>"));
            }
            continue;
        }
        let rest = &answer[i + 1..];
        let Some(end) = rest.bytes().position(|c| c == close) else {
            continue;
        };
        let inner = &rest[..end];
        let ident = !inner.is_empty()
            && inner
                .bytes()
                .all(|c| c == b'_' || c.is_ascii_alphanumeric())
            && inner
                .bytes()
                .next()
                .is_some_and(|c| c == b'_' || c.is_ascii_alphabetic());
        if !ident {
            continue;
        }
        if b == b'{' || inner.contains('_') {
            return Some(format!("{}{}{}", b as char, inner, close as char));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_running_block_ends_where_its_fence_closes() {
        let reply = "Sure.\n```text\nno\n```\n```repl\nprint(1)\n```\nREPL output: 1\n```repl\nFINAL(1)\n```";
        let end = first_block_end(reply).unwrap();
        assert!(reply[..end].ends_with("print(1)\n```"), "{}", &reply[..end]);
        assert_eq!(first_block_end("```repl\nprint(1)"), None);
        assert_eq!(first_block_end("prose"), None);
    }

    #[test]
    fn a_fence_at_the_end_of_a_code_line_closes_the_block() {
        let reply = "```repl\nhits = context.search(\"x\")\nprint(hits[:3]) ```\nThen I will read.";
        assert_eq!(
            extract_blocks(reply, true),
            ["hits = context.search(\"x\")\nprint(hits[:3]) "]
        );
        assert_eq!(
            first_block_end(reply),
            reply.find("```\nThen").map(|i| i + 3)
        );
        // A full stop after a closing call is dropped.
        assert_eq!(
            extract_blocks("```repl\nFINAL(\"Bergen [c1.s2].\"). ```\n", true),
            ["FINAL(\"Bergen [c1.s2].\")"]
        );
        // Four backticks are not a fence's end.
        assert!(extract_blocks("```repl\nx = 1 ````\n", true).is_empty());
    }

    #[test]
    fn blocks_in_order_and_only_code() {
        let reply = "Let me look.\n```repl\nx = 1\nprint(x)\n```\nThen FINAL(x) maybe.\n```python\nprint(2)\n```\n```text\nnot code\n```\n";
        assert_eq!(
            extract_blocks(reply, false),
            vec!["x = 1\nprint(x)".to_string(), "print(2)".to_string()]
        );
        assert_eq!(
            extract_blocks("```repl\nprint(1)", false),
            vec!["print(1)".to_string()]
        );
        assert!(extract_blocks("```repl\nprint(1)", true).is_empty());
        assert!(extract_blocks("FINAL(42)", false).is_empty());
    }

    #[test]
    fn bare_fences_run_only_when_they_call_the_sandbox() {
        let reply = "Plan:\n```\nhits = context.search('publisher')\nprint(hits)\n```\n```\nThe answer is Warsaw.\n```\n```py\nFINAL('x')\n```\n```json\n{\"print(\": 1}\n```\n";
        assert_eq!(
            extract_blocks(reply, false),
            vec![
                "hits = context.search('publisher')\nprint(hits)".to_string(),
                "FINAL('x')".to_string()
            ]
        );
        assert_eq!(
            extract_blocks("```Python title=\"a\"\nprint(1)\n```", false),
            vec!["print(1)".to_string()]
        );
    }

    #[test]
    fn the_correction_names_the_fences_that_did_not_run() {
        let msg = no_code_correction("```text\nWarsaw\n```\n```\nWarsaw [c1.s1]\n```", None);
        assert!(msg.contains("a ```text block"), "{msg}");
        assert!(msg.contains("bare ``` block"), "{msg}");
        assert!(msg.contains("```repl"), "{msg}");
        assert!(no_code_correction("just prose", None).contains("no code block"));
        let search = HandleFunction {
            name: "search".into(),
            signature: "search(query, k=10)".into(),
            doc: String::new(),
            parameters: serde_json::Value::Null,
        };
        let msg = no_code_correction("just prose", Some(&search));
        assert!(
            msg.contains("hits = context.search(\"your keywords\")"),
            "{msg}"
        );
    }

    #[test]
    fn placeholders() {
        assert_eq!(
            find_placeholder("Label: [least_common_status]"),
            Some("[least_common_status]".into())
        );
        assert_eq!(find_placeholder("It is {answer}."), Some("{answer}".into()));
        assert_eq!(find_placeholder("Paris is the capital [c12.s3]."), None);
        assert_eq!(find_placeholder("See [c12] and [c4.s1-s2]."), None);
        assert_eq!(find_placeholder("A set {1, 2}"), None);
        assert_eq!(
            find_placeholder("<the answer>. <the sentence that says it> [<its id>]"),
            Some("<the answer>".into())
        );
        assert_eq!(
            find_placeholder("x < 5 and y > 3; a<b>"),
            Some("<b>".into())
        );
        assert_eq!(find_placeholder("Tromsø [c4.s1]; 3 < 4 > 2"), None);
    }
}
