//! The MCP server (the official Rust SDK, `rmcp`): the tools, their schemas
//! and descriptions written for a model, and the two transports, stdio
//! ([`serve_io`], `rlmkg mcp`) and streamable HTTP ([`http_service`],
//! nested at `/mcp` by `rlmkg serve`).
//!
//! Every tool result carries structured content (the serde types of
//! `ops.rs`, described by the tool's output schema) and a short text
//! rendering. A tool that ran and failed (an unknown id, an entity not
//! found, a busy server) is a tool error the model can read; arguments
//! that do not fit the tool's schema, and unknown tools, are protocol
//! errors (`invalid_params`). Read-only unless the server allows `ingest`.

use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    JsonObject, ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
    ToolAnnotations,
};
use rmcp::service::RequestContext;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::ops::{Ops, OpsError, blocking};
use crate::{schema, text};

/// One tool: its name, what a model is told about it, whether it only reads.
struct ToolDef {
    name: &'static str,
    title: &'static str,
    description: &'static str,
    read_only: bool,
}

/// The tools, in the order a client lists them.
const TOOLS: &[ToolDef] = &[
    ToolDef {
        name: "search",
        title: "Search the documents",
        description: "Full-text (BM25) search over the chunks of the document collection. Returns \
            the best chunks, each with its id (c12), document, title, path, score and text. Use it \
            to find where something is discussed, then `read` a chunk id to get its sentences with \
            the ids to cite.",
        read_only: true,
    },
    ToolDef {
        name: "read",
        title: "Read a passage",
        description: "Read a chunk ('c12'), one sentence ('c12.s3') or a sentence range \
            ('c12.s2-s4'). The text comes back with each sentence prefixed by its id, \
            [c12.s3]; cite those ids inline in an answer so that `verify` can check it.",
        read_only: true,
    },
    ToolDef {
        name: "entity",
        title: "Look up an entity",
        description: "Look up an entity of the knowledge graph by name, alias or id: its type, \
            aliases and mention count, its neighbors across relations (each with evidence chunk \
            ids) and the chunks that mention it. When no entity has that name, the error lists \
            similar names.",
        read_only: true,
    },
    ToolDef {
        name: "neighbors",
        title: "Neighbors of an entity",
        description: "Entities adjacent to an entity in the knowledge graph: the relation label \
            (a '<-' prefix when the neighbor is the subject), a weight and the chunk ids of the \
            evidence. Optionally only across one relation label.",
        read_only: true,
    },
    ToolDef {
        name: "facts",
        title: "Facts about an entity",
        description: "What the documents state of an entity: each fact's subject, predicate \
            (born in, founded, located in, author of, … or other: <verb>), object and the \
            sentence id that says it, to read and cite. Co-occurrence is not a fact.",
        read_only: true,
    },
    ToolDef {
        name: "path",
        title: "Paths between two entities",
        description: "The shortest connecting paths between two entities, up to max_hops \
            relation steps, each step with its relation and evidence chunk ids. Use it for \
            multi-hop questions that link two named things.",
        read_only: true,
    },
    ToolDef {
        name: "related",
        title: "Related chunks",
        description: "Chunks ranked by personalized PageRank over the knowledge graph, seeded \
            from a question's entities and search hits (query) or from given entities. It finds \
            the bridge documents of multi-hop questions that plain search misses.",
        read_only: true,
    },
    ToolDef {
        name: "ask",
        title: "Ask a question",
        description: "Answer a question over the collection: a cited answer (inline [c12.s3] \
            citations), its short answer, and every claim checked against the sentences it \
            cites, with a verdict (supported, partial, overreach, unsupported, uncited, broken) \
            and the reasons. `verified` is true only when every factual claim is supported. \
            Slower than the other tools; strategy and budgets are capped by the server.",
        read_only: true,
    },
    ToolDef {
        name: "verify",
        title: "Verify cited claims",
        description: "Check an answer you wrote against the collection: it is split into claims, \
            and each is checked against the sentences it cites inline ([c12.s3], [c12.s2-s4], \
            [c12] or [c12.s3, c40.s1]). Returns each claim's verdict (supported, partial, \
            overreach, unsupported, uncited, broken) with reasons (missing words, numbers, \
            dates, entities, negation, certainty) and the quoted source sentences. Use it to \
            check your own claims before you state them.",
        read_only: true,
    },
    ToolDef {
        name: "stats",
        title: "Collection statistics",
        description: "Counts of the collection: files, documents, chunks, entities, relations, \
            mentions and bytes of text.",
        read_only: true,
    },
    ToolDef {
        name: "ingest",
        title: "Add documents",
        description: "Add files or folders on the server's machine to the collection (txt, md, \
            html, pdf, jsonl, json). Additive: nothing already ingested is removed; changed files \
            are ingested again.",
        read_only: false,
    },
];

/// What the server tells a client about itself.
const INSTRUCTIONS: &str = "rlmkg answers questions over a document collection with citations \
    and checks every claim against the sentences it cites. Find evidence with search, related, \
    entity, neighbors and path; read passages with read (sentence ids such as c12.s3); cite them \
    inline as [c12.s3]; check what you wrote with verify; or let ask write a verified answer.";

/// The MCP server over one store's operations.
#[derive(Clone)]
pub struct McpServer {
    ops: Arc<Ops>,
}

impl std::fmt::Debug for McpServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpServer").field("ops", &self.ops).finish()
    }
}

/// A schema as the object MCP wants.
fn as_object(v: Value) -> Arc<JsonObject> {
    Arc::new(match v {
        Value::Object(m) => m,
        _ => JsonObject::new(),
    })
}

impl McpServer {
    /// A server over `ops`.
    pub fn new(ops: Arc<Ops>) -> McpServer {
        McpServer { ops }
    }

    fn offered(&self, def: &ToolDef) -> bool {
        def.read_only || self.ops.allows_ingest()
    }

    fn tool(def: &ToolDef) -> Tool {
        let mut annotations = ToolAnnotations::with_title(def.title).read_only(def.read_only);
        if !def.read_only {
            annotations = annotations.destructive(false);
        }
        Tool::new(
            def.name,
            def.description,
            as_object(schema::input(def.name)),
        )
        .with_title(def.title)
        .with_raw_output_schema(as_object(schema::output(def.name)))
        .with_annotations(annotations)
    }

    /// The tools this server offers (`ingest` only when allowed).
    pub fn tools(&self) -> Vec<Tool> {
        TOOLS
            .iter()
            .filter(|d| self.offered(d))
            .map(Self::tool)
            .collect()
    }

    /// Call a tool by name with its arguments.
    pub async fn call(
        &self,
        name: &str,
        args: Option<JsonObject>,
    ) -> Result<CallToolResult, ErrorData> {
        let Some(def) = TOOLS.iter().find(|d| d.name == name && self.offered(d)) else {
            return Err(ErrorData::invalid_params(
                format!("unknown tool {name:?}; tools: {}", self.names()),
                None,
            ));
        };
        let args = Value::Object(args.unwrap_or_default());
        let ops = Arc::clone(&self.ops);
        match def.name {
            "search" => on_store(name, args, ops, Ops::search, text::search).await,
            "read" => on_store(name, args, ops, Ops::read, text::read).await,
            "entity" => on_store(name, args, ops, Ops::entity, text::entity).await,
            "neighbors" => on_store(name, args, ops, Ops::neighbors, text::neighbors).await,
            "facts" => on_store(name, args, ops, Ops::facts, text::facts).await,
            "path" => on_store(name, args, ops, Ops::path, text::path).await,
            "related" => on_store(name, args, ops, Ops::related, text::related).await,
            "verify" => on_store(name, args, ops, Ops::verify, text::report).await,
            "stats" => {
                let stats = |ops: &Ops, _: &NoArgs| ops.stats();
                on_store(name, args, ops, stats, text::stats).await
            }
            "ask" => {
                let a = parse(name, args)?;
                done(ops.ask(a, rlmkg::Events::default()).await, text::answer)
            }
            "ingest" => {
                let a = parse(name, args)?;
                done(ops.ingest(a).await, text::ingest)
            }
            _ => Err(ErrorData::invalid_params(
                format!("unknown tool {name:?}"),
                None,
            )),
        }
    }

    fn names(&self) -> String {
        TOOLS
            .iter()
            .filter(|d| self.offered(d))
            .map(|d| d.name)
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// The arguments of a tool that takes none.
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct NoArgs {}

/// A tool's arguments read strictly: what does not fit its schema is a
/// protocol error naming the problem.
fn parse<T: DeserializeOwned>(tool: &str, args: Value) -> Result<T, ErrorData> {
    serde_json::from_value(args)
        .map_err(|e| ErrorData::invalid_params(format!("arguments of {tool}: {e}"), None))
}

/// A tool that reads the store: its arguments read strictly ([`parse`]), the
/// operation run on the blocking pool, its outcome shown ([`done`]).
async fn on_store<A, T>(
    tool: &str,
    args: Value,
    ops: Arc<Ops>,
    op: fn(&Ops, &A) -> Result<T, OpsError>,
    render: fn(&T) -> String,
) -> Result<CallToolResult, ErrorData>
where
    A: DeserializeOwned + Send + 'static,
    T: Serialize + Send + 'static,
{
    let a: A = parse(tool, args)?;
    done(blocking(move || op(&ops, &a)).await, render)
}

/// A tool's outcome as a result: structured content and its text, or a
/// tool error the model can read.
fn done<T: Serialize>(
    outcome: Result<T, OpsError>,
    render: fn(&T) -> String,
) -> Result<CallToolResult, ErrorData> {
    match outcome {
        Ok(value) => {
            let structured = serde_json::to_value(&value)
                .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
            let mut result = CallToolResult::structured(structured);
            result.content = vec![ContentBlock::text(render(&value))];
            Ok(result)
        }
        Err(e) => Ok(CallToolResult::error(vec![ContentBlock::text(
            e.to_string(),
        )])),
    }
}

impl ServerHandler for McpServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("rlmkg", env!("CARGO_PKG_VERSION")))
            .with_instructions(INSTRUCTIONS)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(self.tools()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        Ok(self.call(&request.name, request.arguments).await?.into())
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        TOOLS
            .iter()
            .find(|d| d.name == name && self.offered(d))
            .map(Self::tool)
    }
}

/// Errors of serving MCP.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum McpError {
    /// The session could not start (the client's `initialize` failed).
    #[error("the MCP session did not start: {0}")]
    Start(String),
    /// The session ended abnormally.
    #[error("the MCP session failed: {0}")]
    Run(String),
}

/// Serve MCP over a byte stream pair (`rlmkg mcp` gives standard input and
/// output) until the client closes it.
pub async fn serve_io<R, W>(ops: Arc<Ops>, read: R, write: W) -> Result<(), McpError>
where
    R: tokio::io::AsyncRead + Send + Unpin + 'static,
    W: tokio::io::AsyncWrite + Send + Unpin + 'static,
{
    let running = McpServer::new(ops)
        .serve((read, write))
        .await
        .map_err(|e| McpError::Start(e.to_string()))?;
    running
        .waiting()
        .await
        .map_err(|e| McpError::Run(e.to_string()))?;
    Ok(())
}

/// The MCP streamable-HTTP service, for `rlmkg serve` to nest at `/mcp`.
/// The HTTP layer checks hosts and keys; `max_body` bounds a request.
pub fn http_service(
    ops: Arc<Ops>,
    max_body: usize,
) -> StreamableHttpService<McpServer, LocalSessionManager> {
    let config = StreamableHttpServerConfig::default()
        .disable_allowed_hosts()
        .with_max_request_body_bytes(max_body);
    StreamableHttpService::new(
        move || Ok(McpServer::new(Arc::clone(&ops))),
        Arc::new(LocalSessionManager::default()),
        config,
    )
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use rmcp::model::ErrorCode;
    use serde_json::json;

    use super::*;
    use crate::ops::OpsConfig;
    use crate::schema::check::violation;

    /// A store of the sample corpus in a temp dir, and operations over it.
    fn sample(allow_ingest: bool) -> (tempfile::TempDir, McpServer) {
        let dir = tempfile::tempdir().expect("a temp dir");
        let store_dir = dir.path().join("store");
        let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/corpus");
        let mut store = rlmkg::Store::create_or_open(&store_dir).expect("a store");
        store
            .ingest(
                &[corpus],
                &rlmkg::IngestOptions::default(),
                &rlmkg::NoProgress,
            )
            .expect("ingest");
        drop(store);
        let ops = Ops::open(OpsConfig {
            store: store_dir,
            models: rlmkg::Models::default(),
            strategy: rlmkg::Strategy::Heuristic,
            rlm: rlmkg::RlmConfig::default(),
            check: rlmkg::CheckOptions::default(),
            max_runs: 2,
            run_queue: 2,
            allow_ingest,
        })
        .expect("ops");
        (dir, McpServer::new(Arc::new(ops)))
    }

    fn args(v: Value) -> Option<JsonObject> {
        match v {
            Value::Object(m) => Some(m),
            _ => None,
        }
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn real_results_fit_their_output_schemas() {
        let (_dir, server) = sample(false);
        let question =
            "In which city is the institute that organised the Skarvik Expedition located?";
        let calls = [
            ("search", json!({ "query": "Skarvik Expedition", "k": 3 })),
            ("read", json!({ "id": "c5.s1-s3" })),
            ("entity", json!({ "name": "Tomas Reyes" })),
            ("neighbors", json!({ "entity": "Tomas Reyes", "k": 5 })),
            (
                "path",
                json!({ "from": "Tomas Reyes", "to": "Kestrel Institute for Coastal Studies" }),
            ),
            ("related", json!({ "query": question, "k": 3 })),
            (
                "verify",
                json!({ "answer": "KICS is in Tromsø [c5.s2]. It was founded in 1802 [c5.s5]." }),
            ),
            (
                "ask",
                json!({ "question": question, "strategy": "heuristic" }),
            ),
            ("stats", json!({})),
        ];
        for (tool, a) in calls {
            let r = server.call(tool, args(a)).await.expect("a result");
            assert_eq!(r.is_error, Some(false), "{tool}: {:?}", r.content);
            let structured = r.structured_content.expect("structured content");
            let schema = schema::output(tool);
            assert_eq!(
                violation(&schema, &structured, tool),
                None,
                "{tool}: {structured}"
            );
            // The text is a rendering, not the JSON again.
            let text = r.content[0]
                .as_text()
                .map(|t| t.text.clone())
                .unwrap_or_default();
            assert!(!text.is_empty() && !text.starts_with('{'), "{tool}: {text}");
        }
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn errors_are_told_apart_from_results() {
        let (_dir, server) = sample(false);
        // An unknown tool and arguments that do not fit: protocol errors.
        let e = server.call("drop_tables", None).await.expect_err("unknown");
        assert_eq!(e.code, ErrorCode::INVALID_PARAMS);
        let e = server
            .call("search", args(json!({ "query": "x", "limit": 3 })))
            .await
            .expect_err("unknown argument");
        assert!(e.message.contains("limit"), "{}", e.message);
        // Not offered without --allow-ingest.
        assert!(server.tools().iter().all(|t| t.name != "ingest"));
        assert!(
            server
                .call("ingest", args(json!({ "paths": ["."] })))
                .await
                .is_err()
        );
        // A tool that ran and found nothing: a tool error the model reads.
        let r = server
            .call("read", args(json!({ "id": "c99999" })))
            .await
            .expect("a result");
        assert_eq!(r.is_error, Some(true));
        assert!(r.structured_content.is_none());
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn ingest_is_offered_with_the_flag_and_adds_documents() {
        let (dir, server) = sample(true);
        assert!(server.tools().iter().any(|t| t.name == "ingest"));
        let more = dir.path().join("more");
        std::fs::create_dir_all(&more).expect("a folder");
        std::fs::write(
            more.join("a.md"),
            "# Zyx\n\nThe Zyx Tower stands in Aldergate.\n",
        )
        .expect("a file");
        let before = server.call("stats", None).await.expect("stats");
        let r = server
            .call("ingest", args(json!({ "paths": [more] })))
            .await
            .expect("a result");
        assert_eq!(r.is_error, Some(false), "{:?}", r.content);
        let s = r.structured_content.expect("structured");
        assert_eq!(violation(&schema::output("ingest"), &s, "ingest"), None);
        let after = server.call("stats", None).await.expect("stats");
        let docs = |r: &CallToolResult| r.structured_content.as_ref().map(|s| s["docs"].clone());
        assert_eq!(
            docs(&after).and_then(|d| d.as_u64()),
            docs(&before).and_then(|d| d.as_u64()).map(|d| d + 1)
        );
    }
}
