//! Protocols (SPEC §5.4): how the root model's actions reach the loop. All of
//! them end in the same REPL, trajectory and verification; they differ in
//! what the model is asked to write and what the backend is asked to do.
//!
//! - `code` (forced code): every reply is started for the model as a
//!   ```` ```repl ```` block and ends at its closing fence, so the first thing it
//!   writes is code and it cannot write the output it imagines or the turns
//!   after it ([`code_start`]; backends start it by prefill or grammar).
//! - `tools`: the handle's functions, `llm_query`, `rlm_query`, `python` and
//!   `final_answer` offered as tools ([`tool_specs`]); each call becomes the
//!   line of Python that makes it ([`call_code`]) and its output goes back as
//!   the tool's result.
//! - `free`: ```` ```repl ```` blocks anywhere in free text, every one run (strong
//!   models, the `paper` profile).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use crate::handle::HandleFunction;
use crate::model::{ReplyStart, ToolCall, ToolSpec};
use crate::prompts::Profile;
use crate::repl::is_identifier;

/// How the root model's actions reach the loop.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Protocol {
    /// `free` for the `paper` profile and a custom system prompt (their
    /// conventions are free-form), `code` otherwise.
    #[default]
    Auto,
    /// Forced code: each reply is one ```` ```repl ```` block, started for the model.
    Code,
    /// Tool calls.
    Tools,
    /// Free-form text with ```` ```repl ```` blocks.
    Free,
}

impl Protocol {
    /// Every protocol, in the order they are shown.
    pub const ALL: &[Self] = &[Self::Auto, Self::Code, Self::Tools, Self::Free];

    /// Its name in settings and trajectories.
    pub fn name(self) -> &'static str {
        match self {
            Self::Auto => "auto",
            Self::Code => "code",
            Self::Tools => "tools",
            Self::Free => "free",
        }
    }

    /// The protocol a run uses: `Auto` decided by the profile and whether the
    /// user supplied the system prompt.
    pub fn resolve(self, profile: Profile, custom_prompt: bool) -> Self {
        match self {
            Self::Auto if profile == Profile::Paper || custom_prompt => Self::Free,
            Self::Auto => Self::Code,
            other => other,
        }
    }
}

impl std::fmt::Display for Protocol {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Protocol {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        rlmkg_text::one_of(Self::ALL, Self::name, "protocol", s)
    }
}

/// The opening of a forced-code reply.
pub const CODE_PREFIX: &str = "```repl\n";
/// Where a forced-code reply ends: the block's closing fence.
pub const CODE_END: &str = "```";

/// The reply start of the forced-code protocol.
pub fn code_start() -> ReplyStart {
    begun_with("")
}

/// A code block begun for the model with `nudge` (the start of its first
/// line), ending at the block's closing fence.
fn begun_with(nudge: &str) -> ReplyStart {
    ReplyStart {
        prefix: format!("{CODE_PREFIX}{nudge}"),
        end: CODE_END.to_owned(),
    }
}

/// The reply start that has the model write a search, after it repeated
/// itself: the one call every question can begin with.
pub fn search_start() -> ReplyStart {
    begun_with(SEARCH_NUDGE)
}

/// The reply start that has the model make the search the last output's
/// hint suggested ([`NextStep::search`](crate::NextStep::search)),
/// after it repeated itself instead: the search line written for it, the
/// rest of the block (printing the hits) left to it.
pub fn suggested_search_start(query: &str) -> ReplyStart {
    let query: String = query
        .chars()
        .map(|c| {
            if matches!(c, '"' | '\\') || c.is_control() {
                '\''
            } else {
                c
            }
        })
        .collect();
    begun_with(&format!("{SEARCH_NUDGE}{query}\")\n"))
}

/// Line starts at which a model under the code protocol has begun writing the
/// output it imagines its code prints: generation stops there.
pub const IMAGINED_OUTPUT: &[&str] = &[
    "\n# Output",
    "\n# output",
    "\nREPL output",
    "\nOutput:",
    // A printed list, dict or tuple written as a comment.
    "\n# [",
    "\n# {",
    "\n# (",
];

/// The code of a begun block cut at the token limit: the lines after the
/// fence but the last (which the limit cut), `None` when none is left.
pub fn whole_lines(content: &str) -> Option<String> {
    let body = content.strip_prefix(CODE_PREFIX)?;
    let (whole, _cut) = body.rsplit_once('\n')?;
    (!whole.trim().is_empty()).then(|| whole.to_owned())
}

/// The reply start of a code run's last turn: the answer begun for the model.
pub fn final_start() -> ReplyStart {
    begun_with(FINAL_NUDGE)
}

/// Whether the first handle call `code` makes is a read (`context.read(`
/// before any `context.search(`): what a repeated reply did, so that the
/// next turn is begun on the other step.
pub fn reads_first(code: &str) -> bool {
    match (code.find("context.read("), code.find("context.search(")) {
        (Some(read), Some(search)) => read < search,
        (Some(_), None) => true,
        _ => false,
    }
}

/// The reply start that has the model read an id: the step after a search,
/// for a model that repeated its search.
pub fn read_start() -> ReplyStart {
    begun_with(READ_NUDGE)
}

/// The reply start that has the model map every document: the first step of
/// a question about the whole collection.
pub fn map_start() -> ReplyStart {
    begun_with(MAP_NUDGE)
}

/// What [`map_start`] writes for the model after the code fence: the
/// recipe's first line, the instruction left to the model.
pub const MAP_NUDGE: &str = "records = context.map(\"";

/// What [`read_start`] writes for the model after the code fence.
pub const READ_NUDGE: &str = "print(context.read(\"";

/// What [`final_start`] writes for the model after the code fence.
pub const FINAL_NUDGE: &str = "FINAL(\"";

/// What [`search_start`] writes for the model after the code fence: an
/// assignment, as the prompts' worked runs begin (`hits = …` then
/// `print(hits[:3])`); a begun `print(context.search(` had small models
/// close the print before slicing its result.
pub const SEARCH_NUDGE: &str = "hits = context.search(\"";

/// The tool that runs Python in the REPL.
pub const PYTHON_TOOL: &str = "python";
/// The tool that ends the run with an answer.
pub const FINAL_TOOL: &str = "final_answer";

/// A JSON schema of an object with these string properties, all required.
fn strings(props: &[(&str, &str)]) -> Value {
    let mut properties = Map::new();
    for (name, doc) in props {
        properties.insert(
            (*name).to_owned(),
            json!({"type": "string", "description": doc}),
        );
    }
    let required: Vec<&str> = props.iter().map(|(n, _)| *n).collect();
    json!({"type": "object", "properties": properties, "required": required})
}

/// The tools of the tool-call protocol: every handle function (as
/// `search`, `read`, …, schemas from [`HandleFunction::parameters`]), then
/// `llm_query`, `rlm_query`, `python` and `final_answer`. A handle function
/// whose name one of those takes is left out.
pub fn tool_specs(functions: &[HandleFunction]) -> Vec<ToolSpec> {
    let own = ["llm_query", "rlm_query", PYTHON_TOOL, FINAL_TOOL];
    let mut out: Vec<ToolSpec> = functions
        .iter()
        .filter(|f| is_identifier(&f.name) && !own.contains(&f.name.as_str()))
        .map(|f| ToolSpec {
            name: f.name.clone(),
            description: format!("context.{} — {}", f.signature, f.doc),
            parameters: match &f.parameters {
                Value::Null => json!({"type": "object"}),
                schema => schema.clone(),
            },
        })
        .collect();
    out.push(ToolSpec {
        name: "llm_query".into(),
        description: "Ask a language model one self-contained question about text you pass in; returns its answer.".into(),
        parameters: strings(&[("prompt", "the whole question, with the text it is about")]),
    });
    out.push(ToolSpec {
        name: "rlm_query".into(),
        description:
            "Hand a sub-question to a fresh copy of this whole setup; returns its cited answer."
                .into(),
        parameters: strings(&[("question", "the sub-question")]),
    });
    out.push(ToolSpec {
        name: PYTHON_TOOL.into(),
        description: "Run Python in the sandbox (variables persist; `context` and the other functions are there); returns what it prints.".into(),
        parameters: strings(&[("code", "Python code")]),
    });
    out.push(ToolSpec {
        name: FINAL_TOOL.into(),
        description: "End the run with the answer: the short answer first, then the explanation, each fact followed by the ids of the sentences that say it, like [c12.s3].".into(),
        parameters: strings(&[("answer", "the cited answer")]),
    });
    out
}

/// Whether `s` is a citation id written bare, as small models pass them
/// (`c20`, `c20.s4`, `c4.s2-s4`): the one reading of that shape in the loop.
pub(super) fn is_bare_id(s: &str) -> bool {
    s.strip_prefix('c').is_some_and(|rest| {
        rest.starts_with(|c: char| c.is_ascii_digit())
            && rest
                .chars()
                .all(|c| c.is_ascii_digit() || matches!(c, '.' | 's' | '-'))
    })
}

/// The answer of a `final_answer` call: a citation a small model put in an
/// argument of its own (`"id": "c4.s1"`) is added to an answer that has none.
fn final_text(answer: &str, args: &Map<String, Value>) -> String {
    if answer.contains('[') {
        return answer.to_owned();
    }
    let ids: Vec<String> = ["id", "ids", "citation", "citations", "source"]
        .iter()
        .filter_map(|k| args.get(*k))
        .flat_map(|v| match v {
            Value::Array(items) => items
                .iter()
                .map(|i| i.as_str().unwrap_or_default().to_owned())
                .collect(),
            other => vec![other.as_str().unwrap_or_default().to_owned()],
        })
        .map(|id| id.trim().trim_matches(['[', ']']).to_owned())
        .filter(|id| is_bare_id(id))
        .collect();
    if ids.is_empty() {
        answer.to_owned()
    } else {
        format!("{} [{}]", answer.trim_end(), ids.join(", "))
    }
}

/// The Python that makes `call`: `print(context.search(query="…"))` for a
/// handle function, `FINAL("…")` for `final_answer`, the code itself for
/// `python`. `Err` says, for the model, what is wrong with the call.
pub fn call_code(call: &ToolCall, functions: &[HandleFunction]) -> Result<String, String> {
    let args: Map<String, Value> = match serde_json::from_str::<Value>(&call.arguments) {
        Ok(Value::Object(m)) => m,
        Ok(Value::Null) | Err(_) if call.arguments.trim().is_empty() => Map::new(),
        Ok(other) => {
            return Err(format!(
                "the arguments of {} must be a JSON object, not {other}",
                call.name
            ));
        }
        Err(e) => {
            return Err(format!(
                "the arguments of {} are not valid JSON ({e}): {}",
                call.name, call.arguments
            ));
        }
    };
    let one = |key: &str| -> Result<String, String> {
        match args.get(key).or_else(|| args.values().next()) {
            Some(Value::String(s)) => Ok(s.clone()),
            Some(other) => Ok(other.to_string()),
            None => Err(format!("{} needs its {key} argument", call.name)),
        }
    };
    match call.name.as_str() {
        FINAL_TOOL => Ok(format!(
            "FINAL({})",
            py_literal(&Value::String(final_text(&one("answer")?, &args)))
        )),
        PYTHON_TOOL => one("code"),
        "llm_query" => Ok(format!(
            "print(llm_query({}))",
            py_literal(&Value::String(one("prompt")?))
        )),
        "rlm_query" => Ok(format!(
            "print(rlm_query({}))",
            py_literal(&Value::String(one("question")?))
        )),
        name => {
            if !functions.iter().any(|f| f.name == name) || !is_identifier(name) {
                let mut known: Vec<String> = functions.iter().map(|f| f.name.clone()).collect();
                known.extend(["llm_query", "rlm_query", PYTHON_TOOL, FINAL_TOOL].map(String::from));
                return Err(format!(
                    "there is no tool named {name:?}; the tools are {}",
                    known.join(", ")
                ));
            }
            let mut kwargs = Vec::new();
            for (k, v) in &args {
                if !is_identifier(k) {
                    return Err(format!("{k:?} is not an argument name of {name}"));
                }
                kwargs.push(format!("{k}={}", py_literal(v)));
            }
            Ok(format!("print(context.{name}({}))", kwargs.join(", ")))
        }
    }
}

/// `v` as a Python literal (JSON strings are valid Python string literals).
pub fn py_literal(v: &Value) -> String {
    match v {
        Value::Null => "None".into(),
        Value::Bool(true) => "True".into(),
        Value::Bool(false) => "False".into(),
        Value::Number(n) => n.to_string(),
        Value::String(s) => serde_json::to_string(s).unwrap_or_else(|_| "''".into()),
        Value::Array(items) => {
            let parts: Vec<String> = items.iter().map(py_literal).collect();
            format!("[{}]", parts.join(", "))
        }
        Value::Object(m) => {
            let parts: Vec<String> = m
                .iter()
                .map(|(k, v)| {
                    format!(
                        "{}: {}",
                        py_literal(&Value::String(k.clone())),
                        py_literal(v)
                    )
                })
                .collect();
            format!("{{{}}}", parts.join(", "))
        }
    }
}

/// The normalized text of a reply for spotting a verbatim repeat: its words
/// and its calls, whitespace folded.
pub fn reply_key(content: &str, calls: &[ToolCall]) -> String {
    // A reply stopped at its closing fence and one that wrote it are the same.
    let body = content.trim_end();
    let body = body.strip_suffix("```").unwrap_or(body);
    let mut key: String = body.split_whitespace().collect::<Vec<_>>().join(" ");
    for c in calls {
        key.push('\u{1}');
        key.push_str(&c.name);
        key.push('\u{1}');
        key.push_str(&c.arguments.split_whitespace().collect::<Vec<_>>().join(" "));
    }
    key
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(name: &str) -> HandleFunction {
        HandleFunction {
            name: name.into(),
            signature: format!("{name}(query, k=10)"),
            doc: "d".into(),
            parameters: Value::Null,
        }
    }

    fn call(name: &str, args: &str) -> ToolCall {
        ToolCall {
            id: "call_0".into(),
            name: name.into(),
            arguments: args.into(),
        }
    }

    #[test]
    fn a_final_answer_keeps_a_citation_given_apart() {
        let fs = [f("search")];
        assert_eq!(
            call_code(
                &call(
                    "final_answer",
                    r#"{"answer": "Tomas Reyes led it.", "id": "c20.s4", "sentence": "[c20.s4]"}"#
                ),
                &fs
            ),
            Ok(r#"FINAL("Tomas Reyes led it. [c20.s4]")"#.into())
        );
        assert_eq!(
            call_code(
                &call(
                    "final_answer",
                    r#"{"answer": "Warsaw [c1.s1].", "id": "<no id>"}"#
                ),
                &fs
            ),
            Ok(r#"FINAL("Warsaw [c1.s1].")"#.into())
        );
    }

    #[test]
    fn a_cut_block_keeps_its_whole_lines() {
        assert_eq!(
            whole_lines("```repl\nx = 1\nprint(x)\n# Output: [{'id"),
            Some("x = 1\nprint(x)".into())
        );
        assert_eq!(whole_lines("```repl\nprint(context.sea"), None);
        assert_eq!(whole_lines("no fence\nx = 1\n"), None);
    }

    #[test]
    fn calls_become_the_python_that_makes_them() {
        let fs = [f("search"), f("read")];
        assert_eq!(
            call_code(
                &call("search", r#"{"query": "Salt \"Atlas\"", "k": 3}"#),
                &fs
            ),
            Ok(r#"print(context.search(k=3, query="Salt \"Atlas\""))"#.into())
        );
        assert_eq!(
            call_code(
                &call("final_answer", r#"{"answer": "Tromsø [c4.s1]."}"#),
                &fs
            ),
            Ok(r#"FINAL("Tromsø [c4.s1].")"#.into())
        );
        assert_eq!(
            call_code(&call("python", r#"{"code": "x = 1\nprint(x)"}"#), &fs),
            Ok("x = 1\nprint(x)".into())
        );
        // A lone argument under another name still counts.
        assert_eq!(
            call_code(&call("final_answer", r#"{"text": "A."}"#), &fs),
            Ok(r#"FINAL("A.")"#.into())
        );
        assert!(
            call_code(&call("delete_all", "{}"), &fs)
                .unwrap_err()
                .contains("search, read")
        );
        assert!(call_code(&call("search", "[1]"), &fs).is_err());
        assert!(call_code(&call("search", "{oops"), &fs).is_err());
        assert!(call_code(&call("search", r#"{"a b": 1}"#), &fs).is_err());
        assert_eq!(
            py_literal(&json!({"a": [true, null, 1.5], "b": "x"})),
            r#"{"a": [True, None, 1.5], "b": "x"}"#
        );
    }

    #[test]
    fn every_function_is_a_tool_and_the_run_can_end() {
        let specs = tool_specs(&[f("search"), f("python")]);
        let names: Vec<&str> = specs.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(
            names,
            ["search", "llm_query", "rlm_query", "python", "final_answer"]
        );
        assert!(specs.iter().all(|s| s.parameters["type"] == "object"));
    }

    #[test]
    fn auto_is_code_but_for_free_form_conventions() {
        assert_eq!(Protocol::Auto.resolve(Profile::Kg, false), Protocol::Code);
        assert_eq!(
            Protocol::Auto.resolve(Profile::Paper, false),
            Protocol::Free
        );
        assert_eq!(Protocol::Auto.resolve(Profile::Kg, true), Protocol::Free);
        assert_eq!(
            Protocol::Tools.resolve(Profile::Paper, true),
            Protocol::Tools
        );
        assert_eq!("TOOLS".parse::<Protocol>(), Ok(Protocol::Tools));
        assert!("x".parse::<Protocol>().is_err());
    }

    #[test]
    fn a_suggested_search_is_written_as_one_python_line() {
        let start = super::suggested_search_start("Northlight \"Press\" founded\nx");
        assert_eq!(
            start.prefix,
            "```repl\nhits = context.search(\"Northlight 'Press' founded'x\")\n"
        );
    }

    #[test]
    fn a_reply_reads_first_when_its_first_call_is_a_read() {
        assert!(super::reads_first("print(context.read('c1'))"));
        assert!(!super::reads_first(
            "hits = context.search('x')\nprint(context.read(hits[0]['id']))"
        ));
        assert!(super::reads_first(
            "print(context.read('c1'))\nhits = context.search('x')"
        ));
        assert!(!super::reads_first("FINAL('x')"));
    }

    #[test]
    fn repeats_are_spotted_through_whitespace() {
        assert_eq!(reply_key("a  b\n c", &[]), reply_key("a b c", &[]));
        assert_eq!(
            reply_key("```repl\nx = 1", &[]),
            reply_key("```repl\nx = 1\n```\n", &[])
        );
        assert_ne!(
            reply_key("", &[call("search", r#"{"query": "a"}"#)]),
            reply_key("", &[call("search", r#"{"query": "b"}"#)])
        );
    }
}
