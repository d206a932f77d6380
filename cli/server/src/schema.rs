//! The JSON schemas of the MCP tools: what each takes (`inputSchema`) and
//! what its structured content holds (`outputSchema`). Written by hand from
//! the serde types in `ops.rs` and the library (which derive no schemas);
//! the tests check real results against them, and MCP clients check every
//! result they get.

use serde_json::{Map, Value, json};

/// A JSON object schema: `props` (name, schema), the names `required`.
fn object(props: &[(&str, Value)], required: &[&str]) -> Value {
    let mut p = Map::new();
    for (name, schema) in props {
        p.insert((*name).to_string(), schema.clone());
    }
    json!({ "type": "object", "properties": p, "required": required })
}

fn string(description: &str) -> Value {
    json!({ "type": "string", "description": description })
}

fn integer(description: &str) -> Value {
    json!({ "type": "integer", "minimum": 0, "description": description })
}

fn number(description: &str) -> Value {
    json!({ "type": "number", "description": description })
}

fn boolean(description: &str) -> Value {
    json!({ "type": "boolean", "description": description })
}

fn array(items: Value) -> Value {
    json!({ "type": "array", "items": items })
}

fn strings() -> Value {
    array(json!({ "type": "string" }))
}

/// `schema` or null.
fn nullable(schema: Value) -> Value {
    json!({ "anyOf": [schema, { "type": "null" }] })
}

/// An open object (its fields are documented elsewhere).
fn any_object(description: &str) -> Value {
    json!({ "type": "object", "description": description })
}

fn k(default: usize) -> Value {
    json!({ "type": "integer", "minimum": 1, "maximum": crate::ops::MAX_K, "default": default,
            "description": "how many results" })
}

/// The input schema of a tool.
pub fn input(tool: &str) -> Value {
    match tool {
        "search" => object(
            &[
                (
                    "query",
                    string("words to look for (BM25 over chunk titles and texts)"),
                ),
                ("k", k(10)),
            ],
            &["query"],
        ),
        "read" => object(
            &[(
                "id",
                string("a chunk 'c12', a sentence 'c12.s3' or a sentence range 'c12.s2-s4'"),
            )],
            &["id"],
        ),
        "entity" => object(
            &[
                ("name", string("entity name, alias or id")),
                ("k", k(15)),
                (
                    "relation",
                    string("only neighbors across this relation label"),
                ),
            ],
            &["name"],
        ),
        "facts" => object(
            &[("entity", string("entity name, alias or id")), ("k", k(20))],
            &["entity"],
        ),
        "neighbors" => object(
            &[
                ("entity", string("entity name, alias or id")),
                ("k", k(20)),
                (
                    "relation",
                    string("only neighbors across this relation label"),
                ),
            ],
            &["entity"],
        ),
        "path" => object(
            &[
                (
                    "from",
                    string("the entity the paths start from (name, alias or id)"),
                ),
                (
                    "to",
                    string("the entity the paths lead to (name, alias or id)"),
                ),
                (
                    "max_hops",
                    json!({ "type": "integer", "minimum": 1, "maximum": crate::ops::MAX_HOPS,
                            "default": 3, "description": "longest path in relation steps" }),
                ),
            ],
            &["from", "to"],
        ),
        "related" => object(
            &[
                (
                    "query",
                    string("a question or text whose entities and search hits seed the ranking"),
                ),
                (
                    "entities",
                    json!({ "type": "array", "items": { "type": "string" },
                                     "description": "entity names or ids to start from" }),
                ),
                ("k", k(10)),
            ],
            &[],
        ),
        "ask" => object(
            &[
                ("question", string("the question, in natural language")),
                (
                    "strategy",
                    json!({ "type": "string", "enum": ["auto", "rlm", "heuristic"],
                            "description": "rlm: the recursive language model (needs a model on the server); heuristic: model-free and fast; auto: rlm when the server has a model" }),
                ),
                (
                    "strict",
                    boolean("give the model one repair turn for claims that fail verification"),
                ),
                (
                    "max_iterations",
                    json!({ "type": "integer", "minimum": 1, "description": "root model turns (capped by the server)" }),
                ),
                (
                    "max_seconds",
                    json!({ "type": "number", "exclusiveMinimum": 0, "description": "wall time of the run (capped by the server)" }),
                ),
                (
                    "max_sub_calls",
                    json!({ "type": "integer", "minimum": 0, "description": "sub-model calls (capped by the server)" }),
                ),
            ],
            &["question"],
        ),
        "verify" => object(
            &[(
                "answer",
                string(
                    "answer text citing source sentences inline: [c12.s3], [c12.s2-s4], [c12] or [c12.s3, c40.s1]",
                ),
            )],
            &["answer"],
        ),
        "ingest" => object(
            &[(
                "paths",
                json!({ "type": "array", "items": { "type": "string" }, "minItems": 1,
                                "description": "files and folders on the server's machine" }),
            )],
            &["paths"],
        ),
        _ => object(&[], &[]),
    }
}

fn search_hit() -> Value {
    object(
        &[
            ("id", string("chunk id, c12")),
            ("doc", string("document id, d3")),
            ("title", string("document title")),
            ("path", string("source path")),
            ("score", number("BM25 score")),
            ("text", string("chunk text")),
        ],
        &["id", "doc", "title", "path", "score", "text"],
    )
}

fn sentence() -> Value {
    object(
        &[
            ("id", string("sentence id, c12.s3")),
            ("text", string("exactly the document bytes start..end")),
            ("start", integer("byte start in the document text")),
            ("end", integer("byte end")),
            ("line_start", integer("first line")),
            ("line_end", integer("last line")),
            ("page", nullable(integer("PDF page"))),
            ("heading", nullable(string("enclosing heading"))),
        ],
        &["id", "text", "start", "end", "line_start", "line_end"],
    )
}

fn entity_info() -> Value {
    object(
        &[
            ("id", string("entity id")),
            ("name", string("display name")),
            ("type", string("type guess")),
            ("aliases", strings()),
            ("mentions", integer("number of mentions")),
        ],
        &["id", "name", "type", "aliases", "mentions"],
    )
}

fn neighbor() -> Value {
    object(
        &[
            ("id", string("entity id")),
            ("name", string("name")),
            ("type", string("type guess")),
            (
                "relation",
                string("relation label; '<-' prefix when the neighbor is the subject"),
            ),
            ("weight", number("weight")),
            ("evidence", strings()),
        ],
        &["id", "name", "type", "relation", "weight", "evidence"],
    )
}

fn report() -> Value {
    let verdict = json!({ "type": "string",
        "enum": ["supported", "partial", "overreach", "unsupported", "uncited", "broken", "exempt"] });
    let citation = object(
        &[
            ("raw", string("the id as written")),
            ("id", nullable(string("the canonical id"))),
            ("resolved", boolean("whether it names source text")),
            (
                "precise",
                boolean("whether the cited text is needed for the claim"),
            ),
            ("footnote", nullable(integer("footnote number"))),
        ],
        &["raw", "resolved", "precise"],
    );
    let evidence = object(
        &[
            ("id", string("sentence id")),
            ("text", string("sentence text")),
            ("path", string("document path")),
            ("line_start", integer("first line")),
            ("line_end", integer("last line")),
        ],
        &["id", "text", "path"],
    );
    let reason = object(
        &[
            (
                "kind",
                string("missing_words, entity, number, date, negation, …"),
            ),
            ("detail", string("what exactly")),
        ],
        &["kind", "detail"],
    );
    let claim = object(
        &[
            ("index", integer("position in the answer")),
            ("text", string("the claim, citations removed")),
            ("span", array(json!({ "type": "integer" }))),
            ("verdict", verdict),
            (
                "score",
                number("share of the claim's terms the evidence carries, 0-1"),
            ),
            ("citations", array(citation)),
            ("evidence", array(evidence)),
            ("reasons", array(reason)),
        ],
        &[
            "index",
            "text",
            "verdict",
            "score",
            "citations",
            "evidence",
            "reasons",
        ],
    );
    let footnote = object(
        &[
            ("number", integer("footnote number")),
            ("id", string("citation id")),
            ("path", string("document path")),
            ("title", nullable(string("document title"))),
            ("sentence", string("id of the quoted sentence")),
            ("quote", string("the quoted source sentence")),
        ],
        &["number", "id", "path", "sentence", "quote"],
    );
    object(
        &[
            ("answer", string("the answer as given")),
            ("claims", array(claim)),
            ("footnotes", array(footnote)),
            (
                "totals",
                any_object(
                    "claims, factual claims, verdict counts, support rate, citation precision and recall",
                ),
            ),
        ],
        &["answer", "claims", "footnotes", "totals"],
    )
}

/// The output schema of a tool (its structured content).
pub fn output(tool: &str) -> Value {
    match tool {
        "search" => object(
            &[
                ("query", string("the query")),
                ("hits", array(search_hit())),
            ],
            &["query", "hits"],
        ),
        "read" => object(
            &[
                ("id", string("the id read")),
                ("chunk", string("chunk id")),
                (
                    "doc",
                    object(
                        &[
                            ("id", string("document id")),
                            ("path", string("source path")),
                            ("title", string("title")),
                            ("format", string("format")),
                        ],
                        &["id", "path", "title", "format"],
                    ),
                ),
                ("text", string("the text read")),
                ("start", integer("byte start in the document")),
                ("end", integer("byte end")),
                ("sentences", array(sentence())),
                (
                    "marked",
                    string("the text with each sentence prefixed by its [id]"),
                ),
            ],
            &[
                "id",
                "chunk",
                "doc",
                "text",
                "start",
                "end",
                "sentences",
                "marked",
            ],
        ),
        "entity" => object(
            &[
                ("entity", entity_info()),
                ("neighbors", array(neighbor())),
                ("chunks", strings()),
                ("chunk_count", integer("chunks mentioning the entity")),
            ],
            &["entity", "neighbors", "chunks", "chunk_count"],
        ),
        "neighbors" => object(
            &[
                ("entity", string("entity id")),
                ("neighbors", array(neighbor())),
            ],
            &["entity", "neighbors"],
        ),
        "facts" => object(
            &[
                ("entity", string("entity id")),
                (
                    "facts",
                    array(object(
                        &[
                            ("subject", string("entity id")),
                            ("subject_name", string("name")),
                            ("predicate", string("predicate label")),
                            ("object", string("entity id")),
                            ("object_name", string("name")),
                            ("object_type", string("type")),
                            ("sentence", string("the sentence id to cite")),
                            ("evidence", strings()),
                        ],
                        &["subject", "predicate", "object", "evidence"],
                    )),
                ),
            ],
            &["entity", "facts"],
        ),
        "path" => object(
            &[(
                "paths",
                array(object(
                    &[
                        ("entities", strings()),
                        ("names", strings()),
                        (
                            "steps",
                            array(object(
                                &[
                                    ("from", string("entity id")),
                                    ("to", string("entity id")),
                                    ("relation", string("relation label")),
                                    ("evidence", strings()),
                                ],
                                &["from", "to", "relation", "evidence"],
                            )),
                        ),
                    ],
                    &["entities", "names", "steps"],
                )),
            )],
            &["paths"],
        ),
        "related" => object(&[("chunks", array(search_hit()))], &["chunks"]),
        "verify" => report(),
        "ask" => object(
            &[
                ("question", string("the question")),
                (
                    "short_answer",
                    nullable(object(
                        &[
                            ("text", string("the short answer")),
                            ("kind", any_object("what the question asked for")),
                            ("citation", string("the sentence id that carries it")),
                        ],
                        &["text", "citation"],
                    )),
                ),
                (
                    "answer_type",
                    any_object("what the question asks for: {type, options}"),
                ),
                (
                    "not_found",
                    boolean("the sources carry no answer of the asked type"),
                ),
                ("text", string("the answer with inline citations")),
                ("method", string("rlm, heuristic_composed or extractive")),
                ("verification", report()),
                (
                    "answer_check",
                    object(
                        &[
                            ("verdict", string("answers, about_another or not_shown")),
                            (
                                "chain",
                                array(object(
                                    &[
                                        ("from", string("the entity the hop starts from")),
                                        ("relation", string("the predicate as read from it")),
                                        ("to", string("the entity it reaches")),
                                        ("sentence", string("the cited sentence that says it")),
                                    ],
                                    &["from", "relation", "to", "sentence"],
                                )),
                            ),
                            ("reason", string("why, in one sentence")),
                        ],
                        &["verdict", "chain", "reason"],
                    ),
                ),
                (
                    "verified",
                    boolean(
                        "every factual claim is supported and the answer check finds that it answers the question",
                    ),
                ),
                ("repaired", boolean("a repair turn was used")),
                ("stop_reason", string("why the run stopped")),
                (
                    "usage",
                    any_object("model calls, tokens, cost, seconds, iterations"),
                ),
                ("read_ids", strings()),
            ],
            &[
                "question",
                "text",
                "method",
                "verification",
                "verified",
                "stop_reason",
            ],
        ),
        "stats" => object(
            &[
                ("files", integer("files")),
                ("docs", integer("documents")),
                ("chunks", integer("chunks")),
                ("entities", integer("entities")),
                ("relations", integer("relations")),
                ("mentions", integer("mentions")),
                ("chars", integer("bytes of normalized text")),
                ("entity_types", any_object("entities per type guess")),
                ("quads", integer("RDF quads")),
            ],
            &["files", "docs", "chunks", "entities", "relations"],
        ),
        "ingest" => object(
            &[
                ("files", integer("files seen")),
                ("ingested", integer("files ingested")),
                ("unchanged", integer("files unchanged")),
                ("skipped", integer("files skipped")),
                ("docs", integer("documents added")),
                ("chunks", integer("chunks added")),
            ],
            &["files", "ingested", "docs", "chunks"],
        ),
        _ => object(&[], &[]),
    }
}

#[cfg(test)]
pub(crate) mod check {
    //! A small JSON-schema checker for the subset the schemas above use
    //! (type, properties, required, items, anyOf, enum), to test real
    //! results against them.

    use serde_json::Value;

    /// The first place `value` breaks `schema`, as a path and a reason.
    pub(crate) fn violation(schema: &Value, value: &Value, at: &str) -> Option<String> {
        if let Some(any) = schema.get("anyOf").and_then(Value::as_array) {
            return any
                .iter()
                .all(|s| violation(s, value, at).is_some())
                .then(|| format!("{at}: matches none of anyOf"));
        }
        if let Some(options) = schema.get("enum").and_then(Value::as_array)
            && !options.contains(value)
        {
            return Some(format!("{at}: {value} is not one of {options:?}"));
        }
        let ok = match schema.get("type").and_then(Value::as_str) {
            Some("object") => value.is_object(),
            Some("array") => value.is_array(),
            Some("string") => value.is_string(),
            Some("integer") => value.is_u64() || value.is_i64(),
            Some("number") => value.is_number(),
            Some("boolean") => value.is_boolean(),
            Some("null") => value.is_null(),
            _ => true,
        };
        if !ok {
            return Some(format!("{at}: {value} is not of type {}", schema["type"]));
        }
        if let Some(required) = schema.get("required").and_then(Value::as_array) {
            for r in required.iter().filter_map(Value::as_str) {
                if value.get(r).is_none() {
                    return Some(format!("{at}: missing {r}"));
                }
            }
        }
        if let (Some(props), Some(obj)) = (
            schema.get("properties").and_then(Value::as_object),
            value.as_object(),
        ) {
            for (name, s) in props {
                if let Some(v) = obj.get(name)
                    && let Some(why) = violation(s, v, &format!("{at}.{name}"))
                {
                    return Some(why);
                }
            }
        }
        if let (Some(items), Some(arr)) = (schema.get("items"), value.as_array()) {
            for (i, v) in arr.iter().enumerate() {
                if let Some(why) = violation(items, v, &format!("{at}[{i}]")) {
                    return Some(why);
                }
            }
        }
        None
    }

    #[test]
    fn the_checker_finds_what_breaks_a_schema() {
        let schema = super::output("search");
        let good = serde_json::json!({"query": "q", "hits": [
            {"id": "c1", "doc": "d1", "title": "t", "path": "p", "score": 1.5, "text": "x"}]});
        assert_eq!(violation(&schema, &good, "$"), None);
        let bad = serde_json::json!({"query": "q", "hits": [
            {"id": "c1", "doc": "d1", "title": "t", "path": "p", "score": "high", "text": "x"}]});
        assert!(violation(&schema, &bad, "$").is_some_and(|w| w.contains("score")));
        let missing = serde_json::json!({"query": "q"});
        assert!(violation(&schema, &missing, "$").is_some_and(|w| w.contains("hits")));
    }
}
