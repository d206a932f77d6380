//! Tool calls written as text: the Hermes / Qwen 2.5 layout that models trained
//! on tool use write (`<tool_call>{"name": …, "arguments": {…}}</tool_call>`),
//! rendered into a prompt for backends that template chats themselves, and read
//! back out of a reply — also when a server returned it as plain content
//! instead of `tool_calls`, or the model wrote the call as a bare JSON object
//! or a ```json block.

use serde_json::Value;

use crate::model::{ToolCall, ToolSpec};

/// The opening tag of a call.
pub const CALL_OPEN: &str = "<tool_call>";
/// The closing tag of a call.
pub const CALL_CLOSE: &str = "</tool_call>";

/// The reply start that forces a tool call: the call is opened for the model,
/// which writes the tool's name next.
pub const FORCED_CALL_PREFIX: &str = "<tool_call>\n{\"name\": \"";

/// The system-prompt section describing `tools` (appended to the system
/// message, as Qwen 2.5's chat template does).
pub fn system_section(tools: &[ToolSpec]) -> String {
    let mut s = String::from(
        "\n\n# Tools\n\nYou may call one or more functions to assist with the user query.\n\n\
         You are provided with function signatures within <tools></tools> XML tags:\n<tools>",
    );
    for t in tools {
        let spec = serde_json::json!({
            "type": "function",
            "function": {
                "name": t.name,
                "description": t.description,
                "parameters": t.parameters,
            }
        });
        s.push('\n');
        s.push_str(&spec.to_string());
    }
    s.push_str(
        "\n</tools>\n\nFor each function call, return a json object with function name and \
         arguments within <tool_call></tool_call> XML tags:\n<tool_call>\n\
         {\"name\": <function-name>, \"arguments\": <args-json-object>}\n</tool_call>",
    );
    s
}

/// One call as the model writes it.
pub fn render_call(call: &ToolCall) -> String {
    let args: Value = serde_json::from_str(&call.arguments)
        .unwrap_or_else(|_| Value::String(call.arguments.clone()));
    let body = serde_json::json!({ "name": call.name, "arguments": args });
    format!("{CALL_OPEN}\n{body}\n{CALL_CLOSE}")
}

/// The tool calls in `text` and the text around them.
///
/// Reads `<tool_call>…</tool_call>` blocks (an unclosed last one too); failing
/// those, ```json blocks and bare top-level JSON objects that have a `name` and
/// `arguments` (or `parameters`). Doubled braces (`{{"name": …}}`, which some
/// chat templates teach) are read as single ones. Ids are `call_<n>` in order.
pub fn parse_calls(text: &str) -> (String, Vec<ToolCall>) {
    let mut calls = Vec::new();
    let mut rest = String::new();
    let mut tail = text;
    while let Some(open) = tail.find(CALL_OPEN) {
        rest.push_str(&tail[..open]);
        let after = &tail[open + CALL_OPEN.len()..];
        let (body, next) = match after.find(CALL_CLOSE) {
            Some(close) => (&after[..close], &after[close + CALL_CLOSE.len()..]),
            None => (after, ""),
        };
        if let Some(call) = call_of(body, calls.len()) {
            calls.push(call);
        }
        tail = next;
    }
    rest.push_str(tail);
    if calls.is_empty() {
        for obj in json_objects(text) {
            if let Some(call) = call_of(obj, calls.len()) {
                calls.push(call);
            }
        }
        if !calls.is_empty() {
            return (String::new(), calls);
        }
    }
    (rest.trim().to_owned(), calls)
}

/// A call from the JSON text of one object (`{"name": …, "arguments": …}`).
fn call_of(body: &str, index: usize) -> Option<ToolCall> {
    let body = body.trim();
    let value: Value = serde_json::from_str(body)
        .ok()
        .or_else(|| serde_json::from_str(&undouble(body)).ok())
        .or_else(|| first_object(body).and_then(|o| serde_json::from_str(o).ok()))?;
    let obj = value.as_object()?;
    let name = obj.get("name")?.as_str()?.trim();
    if name.is_empty() {
        return None;
    }
    let args = obj
        .get("arguments")
        .or_else(|| obj.get("parameters"))
        .cloned()
        .unwrap_or(Value::Object(Default::default()));
    // Arguments given as a JSON string of an object are read as that object.
    let args = match args {
        Value::String(s) => serde_json::from_str::<Value>(&s)
            .ok()
            .filter(Value::is_object)
            .unwrap_or(Value::String(s)),
        other => other,
    };
    Some(ToolCall {
        id: format!("call_{index}"),
        name: name.to_owned(),
        arguments: args.to_string(),
    })
}

/// Where a character-by-character scan of JSON-like text stands with
/// respect to strings: inside one or not, and after an escaping backslash.
#[derive(Default)]
struct Strings {
    inside: bool,
    escaped: bool,
}

impl Strings {
    /// Whether `c` belongs to the string the scan is in (its closing quote
    /// included); the state moves past `c`. An opening quote is the caller's
    /// to see ([`Strings::open`]): where one opens a string differs.
    fn take(&mut self, c: char) -> bool {
        if !self.inside {
            return false;
        }
        match (self.escaped, c) {
            (true, _) => self.escaped = false,
            (false, '\\') => self.escaped = true,
            (false, '"') => self.inside = false,
            _ => {}
        }
        true
    }

    /// A string opens at the quote just read.
    fn open(&mut self) {
        self.inside = true;
    }
}

/// `{{` and `}}` read as `{` and `}` outside strings.
fn undouble(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    let mut strings = Strings::default();
    while let Some(c) = chars.next() {
        if strings.take(c) {
            out.push(c);
            continue;
        }
        match c {
            '"' => {
                strings.open();
                out.push(c);
            }
            '{' | '}' if chars.peek() == Some(&c) => {
                chars.next();
                out.push(c);
            }
            _ => out.push(c),
        }
    }
    out
}

/// The first balanced `{…}` in `text` (strings respected).
fn first_object(text: &str) -> Option<&str> {
    json_objects(text).into_iter().next()
}

/// Every top-level balanced `{…}` span of `text`, in order (one linear scan;
/// strings and escapes respected).
fn json_objects(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut depth = 0usize;
    let mut start = 0usize;
    let mut strings = Strings::default();
    for (i, c) in text.char_indices() {
        if strings.take(c) {
            continue;
        }
        match c {
            '"' if depth > 0 => strings.open(),
            '{' => {
                if depth == 0 {
                    start = i;
                }
                depth += 1;
            }
            '}' if depth > 0 => {
                depth -= 1;
                if depth == 0 {
                    out.push(&text[start..=i]);
                }
            }
            _ => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(text: &str) -> Vec<(String, String)> {
        parse_calls(text)
            .1
            .into_iter()
            .map(|c| (c.name, c.arguments))
            .collect()
    }

    #[test]
    fn tagged_calls_and_the_text_around_them() {
        let (rest, calls) = parse_calls(
            "Let me look.\n<tool_call>\n{\"name\": \"search\", \"arguments\": {\"query\": \"Salt Atlas\"}}\n</tool_call>",
        );
        assert_eq!(rest, "Let me look.");
        assert_eq!(calls.len(), 1);
        assert_eq!(calls[0].name, "search");
        assert_eq!(calls[0].arguments, r#"{"query":"Salt Atlas"}"#);
        assert_eq!(calls[0].id, "call_0");
    }

    #[test]
    fn what_small_models_write_instead() {
        // Doubled braces copied from a template, arguments as a JSON string.
        assert_eq!(
            names(r#"{{"name": "read", "arguments": {"id": "c12"}}}"#),
            vec![("read".into(), r#"{"id":"c12"}"#.into())]
        );
        assert_eq!(
            names(
                r#"<tool_call>{"name": "search", "arguments": "{\"query\": \"x\"}"}</tool_call>"#
            ),
            vec![("search".into(), r#"{"query":"x"}"#.into())]
        );
        // ```json blocks, one after the other.
        let two = "```json\n{\"name\": \"search\", \"arguments\": {\"query\": \"a\"}}\n```\n\
                   ```json\n{\"name\": \"final_answer\", \"arguments\": {\"answer\": \"b {c}\"}}\n```";
        assert_eq!(
            names(two),
            vec![
                ("search".into(), r#"{"query":"a"}"#.into()),
                ("final_answer".into(), r#"{"answer":"b {c}"}"#.into())
            ]
        );
        // An unclosed last call still counts.
        assert_eq!(
            names("<tool_call>\n{\"name\": \"stats\", \"arguments\": {}}"),
            vec![("stats".into(), "{}".into())]
        );
    }

    #[test]
    fn prose_is_no_call() {
        assert!(names("The answer is Tromsø [c4.s1].").is_empty());
        assert!(names("{not json} and {\"x\": 1}").is_empty());
        assert!(names("<tool_call>garbage</tool_call>").is_empty());
    }

    #[test]
    fn rendered_calls_read_back() {
        let call = ToolCall {
            id: "call_0".into(),
            name: "search".into(),
            // Keys in the order a JSON map keeps them (sorted).
            arguments: r#"{"k":3,"query":"q"}"#.into(),
        };
        let (_, back) = parse_calls(&render_call(&call));
        assert_eq!(back, vec![call]);
        let spec = ToolSpec {
            name: "search".into(),
            description: "BM25".into(),
            parameters: serde_json::json!({"type": "object"}),
        };
        let s = system_section(&[spec]);
        assert!(s.contains("<tools>\n{\"function\":") || s.contains("\"name\":\"search\""));
    }

    proptest::proptest! {
        #[test]
        fn never_panics(text in "\\PC{0,200}") {
            let _ = parse_calls(&text);
            let _ = undouble(&text);
        }
    }
}
