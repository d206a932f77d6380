//! A SPARQL 1.1 endpoint as the graph's home at scale (issue 31).
//!
//! [`Endpoint`] speaks the standard protocols only, so any SPARQL 1.1 server
//! will do (the tests use Virtuoso):
//! - queries go out with the SPARQL 1.1 Protocol (`POST` of `query=`,
//!   `Accept: application/sparql-results+json`, N-Triples for graphs) and
//!   come back in the shape of the in-memory engine ([`SparqlOutput`]); it is
//!   the store's [`SparqlRemote`];
//! - [`Endpoint::push`] sends one named graph per document with SPARQL 1.1
//!   Update (`DROP SILENT GRAPH` then `INSERT DATA`, in requests of at most
//!   [`BATCH_TRIPLES`] triples: small graphs share one, a big one is split) and keeps the endpoint in step with the store: a
//!   record graph on the endpoint holds each pushed graph's content hash, so
//!   a document whose RDF did not change is skipped, a changed one is
//!   replaced and the graph of one no longer in the store is dropped.
//!
//! Credentials are HTTP Basic ([`Auth`]). Every request runs on a thread of
//! its own, so the blocking client is safe to call from inside an async
//! runtime (the REPL's `context.sparql`).

use std::collections::HashMap;
use std::fmt::Write as _;
use std::time::Duration;

use oxigraph::io::{RdfFormat, RdfParser};
use oxigraph::sparql::results::{
    QueryResultsFormat, QueryResultsParser, SliceQueryResultsParserOutput,
};
use rlmkg_graph::{DocGraph, GraphError, SparqlOutput, SparqlRemote, quads_of};

/// Triples sent in one `INSERT DATA` request at most.
pub const BATCH_TRIPLES: usize = 2000;

/// The record graph [`Endpoint::push`] uses when the caller names none.
pub const DEFAULT_RECORD_GRAPH: &str = "urn:rlmkg:export";

/// The predicate of a record: `<doc graph> <EXPORT_HASH> "blake3 hex"`.
const EXPORT_HASH: &str = "https://rlmkg.invalid/ns#exportHash";

/// Time limit of one update request of a push.
const UPDATE_TIMEOUT: Duration = Duration::from_secs(300);

/// HTTP Basic credentials for an endpoint.
#[derive(Clone)]
pub struct Auth {
    /// User name.
    pub user: String,
    /// Password.
    pub password: String,
}

impl std::fmt::Debug for Auth {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Auth")
            .field("user", &self.user)
            .finish_non_exhaustive()
    }
}

/// Errors of talking to an endpoint.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum EndpointError {
    /// Nothing answered at the URL (refused, unresolvable, reset).
    #[error("the SPARQL endpoint {url} is unreachable (is it running?): {message}")]
    Unreachable {
        /// The endpoint.
        url: String,
        /// What the client said.
        message: String,
    },
    /// The endpoint refused the credentials (401/403).
    #[error(
        "the SPARQL endpoint {url} refused the request with HTTP {status}: give a user and password allowed to {what}"
    )]
    Unauthorized {
        /// The endpoint.
        url: String,
        /// The status.
        status: u16,
        /// Query or update.
        what: &'static str,
    },
    /// Any other error status.
    #[error("the SPARQL endpoint {url} answered HTTP {status}: {body}")]
    Status {
        /// The endpoint.
        url: String,
        /// The status.
        status: u16,
        /// The start of the body.
        body: String,
    },
    /// The request ran past its time limit.
    #[error("the SPARQL endpoint did not answer within {0:?}")]
    Timeout(Duration),
    /// The answer did not parse as SPARQL results or RDF.
    #[error("the SPARQL endpoint's answer does not parse: {0}")]
    Results(String),
    /// A bad URL or a client that could not be built.
    #[error("SPARQL endpoint client: {0}")]
    Client(String),
    /// A document's RDF could not be built.
    #[error(transparent)]
    Graph(#[from] GraphError),
    /// Pushing a document's graph (or a request of several small ones) failed.
    #[error("pushing graph {graph}: {source}")]
    Push {
        /// The named graph (or graphs, comma-separated).
        graph: String,
        /// Why.
        #[source]
        source: Box<EndpointError>,
    },
}

/// What a push reports as it goes (the binary draws a bar from it).
pub trait PushProgress {
    /// The number of document graphs to look at.
    fn start(&self, graphs: u64);
    /// One document graph looked at (pushed or skipped).
    fn graph_done(&self, graph: &str, pushed: bool);
}

/// A [`PushProgress`] that ignores everything.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoPushProgress;

impl PushProgress for NoPushProgress {
    fn start(&self, _: u64) {}
    fn graph_done(&self, _: &str, _: bool) {}
}

/// What a push did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PushSummary {
    /// Document graphs sent (new or changed).
    pub pushed: u64,
    /// Document graphs whose RDF the endpoint already held.
    pub unchanged: u64,
    /// Graphs dropped: their document is no longer in the store.
    pub dropped: u64,
    /// Triples sent.
    pub triples: u64,
}

/// A SPARQL 1.1 endpoint (one URL for queries and updates).
#[derive(Debug, Clone)]
pub struct Endpoint {
    url: String,
    auth: Option<Auth>,
    batch: usize,
}

impl Endpoint {
    /// The endpoint at `url` (`http://host:port/sparql`), with optional
    /// credentials.
    pub fn new(url: &str, auth: Option<Auth>) -> Result<Self, EndpointError> {
        if !(url.starts_with("http://") || url.starts_with("https://")) {
            return Err(EndpointError::Client(format!(
                "{url} is not an http:// or https:// URL"
            )));
        }
        Ok(Self {
            url: url.to_string(),
            auth,
            batch: BATCH_TRIPLES,
        })
    }

    /// Send at most `triples` triples in one update request (at least 1;
    /// [`BATCH_TRIPLES`] by default).
    pub fn with_batch(mut self, triples: usize) -> Self {
        self.batch = triples.max(1);
        self
    }

    /// The endpoint's URL.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// Run a query (checked read-only first) and read its results.
    pub fn query(&self, query: &str, timeout: Duration) -> Result<SparqlOutput, EndpointError> {
        rlmkg_graph::check_read_only(query)?;
        let is_ask = matches!(
            spargebra::SparqlParser::new().parse_query(query),
            Ok(spargebra::Query::Ask { .. })
        );
        let (content_type, body) = self.post(
            "query",
            query,
            "application/sparql-results+json, application/n-triples;q=0.9, text/turtle;q=0.8",
            timeout,
            "query",
        )?;
        let out = parse_answer(&content_type, &body)?;
        Ok(if is_ask { as_ask(out)? } else { out })
    }

    /// Run a SPARQL 1.1 Update.
    fn update(&self, update: &str) -> Result<(), EndpointError> {
        self.post("update", update, "*/*", UPDATE_TIMEOUT, "update")
            .map(|_| ())
    }

    /// Bring the endpoint in step with `docs`: each document's named graph
    /// whose content hash differs from the one `record_graph` holds is
    /// replaced, graphs the record names that no document has any more are
    /// dropped, the rest skipped.
    pub fn push(
        &self,
        docs: &[DocGraph],
        record_graph: &str,
        progress: &dyn PushProgress,
    ) -> Result<PushSummary, EndpointError> {
        let record = iri(record_graph)?;
        let pushed = self.pushed(&record)?;
        let mut summary = PushSummary::default();
        let mut present = std::collections::HashSet::new();
        let mut small = Pending::default();
        progress.start(docs.len() as u64);
        for doc in docs {
            let quads = quads_of(doc)?;
            let Some(graph) = quads.first().map(|q| q.graph_name.to_string()) else {
                continue;
            };
            let lines: Vec<String> = quads
                .iter()
                .map(|q| format!("{} {} {} .", q.subject, q.predicate, q.object))
                .collect();
            let hash = blake3::hash(lines.join("\n").as_bytes())
                .to_hex()
                .to_string();
            present.insert(graph.clone());
            if pushed.get(&graph) == Some(&hash) {
                summary.unchanged += 1;
                progress.graph_done(&graph, false);
                continue;
            }
            if lines.len() > self.batch {
                // A big graph: its own requests, its triples in batches.
                self.flush(&mut small)?;
                self.replace_graph(&record, &graph, &lines, &hash)
                    .map_err(|e| push_err(std::slice::from_ref(&graph), e))?;
            } else {
                // Small graphs share one request of a few operations each,
                // up to a batch of triples.
                if small.triples + lines.len() > self.batch {
                    self.flush(&mut small)?;
                }
                small.add(&record, &graph, &lines, &hash);
            }
            summary.pushed += 1;
            summary.triples += lines.len() as u64;
            progress.graph_done(&graph, true);
        }
        self.flush(&mut small)?;
        for graph in pushed.keys().filter(|g| !present.contains(*g)) {
            self.update(&format!(
                "DROP SILENT GRAPH {graph} ;\nDELETE WHERE {{ GRAPH {record} {{ {graph} <{EXPORT_HASH}> ?h }} }}"
            ))
            .map_err(|e| push_err(std::slice::from_ref(graph), e))?;
            summary.dropped += 1;
        }
        Ok(summary)
    }

    /// Send the pending small graphs' request, if any.
    fn flush(&self, p: &mut Pending) -> Result<(), EndpointError> {
        if p.graphs.is_empty() {
            return Ok(());
        }
        let taken = std::mem::take(p);
        self.update(&taken.body)
            .map_err(|e| push_err(&taken.graphs, e))
    }

    /// The record: each pushed graph (as `<iri>`) with its content hash.
    fn pushed(&self, record: &str) -> Result<HashMap<String, String>, EndpointError> {
        let out = self.query(
            &format!("SELECT ?g ?h WHERE {{ GRAPH {record} {{ ?g <{EXPORT_HASH}> ?h }} }}"),
            UPDATE_TIMEOUT,
        )?;
        let mut map = HashMap::new();
        if let SparqlOutput::Select { rows, .. } = out {
            for row in rows {
                if let [Some(g), Some(h)] = row.as_slice() {
                    let h = h.trim_matches('"');
                    map.insert(g.clone(), h.to_string());
                }
            }
        }
        Ok(map)
    }

    /// Replace one graph: forget its record, drop it, insert its triples in
    /// batches, then record its hash (a push cut short leaves a graph with
    /// no record, which the next push sends again).
    fn replace_graph(
        &self,
        record: &str,
        graph: &str,
        lines: &[String],
        hash: &str,
    ) -> Result<(), EndpointError> {
        self.update(&format!(
            "DELETE WHERE {{ GRAPH {record} {{ {graph} <{EXPORT_HASH}> ?h }} }} ;\nDROP SILENT GRAPH {graph}"
        ))?;
        for batch in lines.chunks(self.batch) {
            let mut body = format!("INSERT DATA {{ GRAPH {graph} {{\n");
            for l in batch {
                body.push_str(l);
                body.push('\n');
            }
            body.push_str("} }");
            self.update(&body)?;
        }
        self.update(&format!(
            "INSERT DATA {{ GRAPH {record} {{ {graph} <{EXPORT_HASH}> \"{hash}\" }} }}"
        ))
    }

    /// POST `name=text` as a form; the answer's content type and body.
    fn post(
        &self,
        name: &str,
        text: &str,
        accept: &str,
        timeout: Duration,
        what: &'static str,
    ) -> Result<(String, Vec<u8>), EndpointError> {
        let body = format!("{name}={}", form_encode(text));
        let url = self.url.clone();
        let auth = self.auth.clone();
        let accept = accept.to_string();
        // A thread of its own: the blocking client may not live inside an
        // async runtime, and a handle call may come from one.
        let run = move || -> Result<(String, Vec<u8>), EndpointError> {
            // reqwest is built without a bundled TLS provider; install ring once.
            let _ = rustls::crypto::ring::default_provider().install_default();
            let client = reqwest::blocking::Client::builder()
                .timeout(timeout)
                .build()
                .map_err(|e| EndpointError::Client(e.to_string()))?;
            let mut req = client
                .post(&url)
                .header("Content-Type", "application/x-www-form-urlencoded")
                .header("Accept", accept)
                .body(body);
            if let Some(a) = &auth {
                req = req.basic_auth(&a.user, Some(&a.password));
            }
            let resp = req.send().map_err(|e| {
                if e.is_timeout() {
                    EndpointError::Timeout(timeout)
                } else {
                    EndpointError::Unreachable {
                        url: url.clone(),
                        message: error_chain(&e),
                    }
                }
            })?;
            let status = resp.status().as_u16();
            let content_type = resp
                .headers()
                .get("content-type")
                .and_then(|v| v.to_str().ok())
                .unwrap_or("")
                .to_string();
            let bytes = resp.bytes().map_err(|e| {
                if e.is_timeout() {
                    EndpointError::Timeout(timeout)
                } else {
                    EndpointError::Results(error_chain(&e))
                }
            })?;
            match status {
                200..=299 => Ok((content_type, bytes.to_vec())),
                401 | 403 => Err(EndpointError::Unauthorized { url, status, what }),
                _ => Err(EndpointError::Status {
                    url,
                    status,
                    body: String::from_utf8_lossy(&bytes).chars().take(500).collect(),
                }),
            }
        };
        std::thread::scope(|s| s.spawn(run).join())
            .map_err(|_| EndpointError::Client("the request thread panicked".into()))?
    }
}

impl SparqlRemote for Endpoint {
    fn sparql(&self, query: &str, timeout: Duration) -> Result<SparqlOutput, GraphError> {
        self.query(query, timeout).map_err(|e| match e {
            EndpointError::Timeout(t) => GraphError::Timeout(t),
            EndpointError::Graph(g) => g,
            e => GraphError::Remote(e.to_string()),
        })
    }
}

/// Small graphs waiting to be sent in one update request: per graph, its
/// record forgotten, the graph dropped, its triples inserted and its hash
/// recorded, in that order (a request cut short leaves graphs without a
/// record, which the next push sends again).
#[derive(Debug, Default)]
struct Pending {
    body: String,
    graphs: Vec<String>,
    triples: usize,
}

impl Pending {
    fn add(&mut self, record: &str, graph: &str, lines: &[String], hash: &str) {
        if !self.body.is_empty() {
            self.body.push_str(" ;\n");
        }
        let _ = write!(
            self.body,
            "DELETE WHERE {{ GRAPH {record} {{ {graph} <{EXPORT_HASH}> ?h }} }} ;\nDROP SILENT GRAPH {graph} ;\nINSERT DATA {{ GRAPH {graph} {{\n"
        );
        for l in lines {
            self.body.push_str(l);
            self.body.push('\n');
        }
        let _ = write!(
            self.body,
            "}} }} ;\nINSERT DATA {{ GRAPH {record} {{ {graph} <{EXPORT_HASH}> \"{hash}\" }} }}"
        );
        self.graphs.push(graph.to_string());
        self.triples += lines.len();
    }
}

/// A failed request of a push, naming the graphs it carried.
fn push_err(graphs: &[String], e: EndpointError) -> EndpointError {
    EndpointError::Push {
        graph: graphs
            .iter()
            .map(|g| g.trim_matches(['<', '>']))
            .collect::<Vec<_>>()
            .join(", "),
        source: Box::new(e),
    }
}

/// `<iri>` after checking it is one.
fn iri(s: &str) -> Result<String, EndpointError> {
    oxigraph::model::NamedNode::new(s)
        .map(|n| n.to_string())
        .map_err(|e| EndpointError::Client(format!("bad graph IRI {s}: {e}")))
}

/// An error with its sources, one line.
fn error_chain(e: &dyn std::error::Error) -> String {
    let mut s = e.to_string();
    let mut src = e.source();
    while let Some(c) = src {
        let _ = write!(s, ": {c}");
        src = c.source();
    }
    s
}

/// `application/x-www-form-urlencoded` encoding of a value.
fn form_encode(s: &str) -> String {
    let mut out = String::with_capacity(s.len() * 3 / 2);
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~') {
            out.push(char::from(b));
        } else {
            let _ = write!(out, "%{b:02X}");
        }
    }
    out
}

/// A term as the in-memory engine writes it. The one normalization of a
/// remote's terms: an `xsd:double` is written in oxigraph's canonical form
/// (Virtuoso writes the weight `1` as `1.0`); everything else, integers and
/// plain strings included, comes back as the local engine writes it.
fn canonical(term: &oxigraph::model::Term) -> String {
    if let oxigraph::model::Term::Literal(l) = term
        && l.datatype() == oxigraph::model::vocab::xsd::DOUBLE
        && let Ok(f) = l.value().parse::<f64>()
    {
        return oxigraph::model::Literal::from(f).to_string();
    }
    term.to_string()
}

/// The answer to an ASK. Virtuoso 7.2 answers one in JSON as a SELECT of
/// one row, `__ASK_RETVAL` bound to `1` or `0`; that is read as the boolean.
fn as_ask(out: SparqlOutput) -> Result<SparqlOutput, EndpointError> {
    match out {
        SparqlOutput::Select { rows, .. } => {
            let value = match rows.as_slice() {
                [] => false,
                [row] => match row.as_slice() {
                    [Some(t)] => {
                        let lex = t.trim_start_matches('"');
                        lex.starts_with("1\"") || lex.starts_with("true\"")
                    }
                    _ => return Err(EndpointError::Results(format!("an ASK answered {row:?}"))),
                },
                _ => {
                    return Err(EndpointError::Results(
                        "an ASK answered several rows".into(),
                    ));
                }
            };
            Ok(SparqlOutput::Ask { value })
        }
        SparqlOutput::Graph { .. } => Err(EndpointError::Results("an ASK answered a graph".into())),
        ask @ SparqlOutput::Ask { .. } => Ok(ask),
    }
}

/// Read an answer by its content type: SPARQL JSON results (SELECT, ASK) or
/// RDF (CONSTRUCT, DESCRIBE), as the in-memory engine shapes them.
fn parse_answer(content_type: &str, body: &[u8]) -> Result<SparqlOutput, EndpointError> {
    let media = content_type
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    let bad = |e: &dyn std::fmt::Display| EndpointError::Results(e.to_string());
    if let Some(rdf) = RdfFormat::from_media_type(&media) {
        let mut triples = Vec::new();
        for t in RdfParser::from_format(rdf).for_slice(body) {
            let q = t.map_err(|e| bad(&e))?;
            triples.push(format!("{} {} {} .", q.subject, q.predicate, q.object));
        }
        return Ok(SparqlOutput::Graph { triples });
    }
    let format = QueryResultsFormat::from_media_type(&media).unwrap_or(QueryResultsFormat::Json);
    match QueryResultsParser::from_format(format)
        .for_slice(body)
        .map_err(|e| bad(&e))?
    {
        SliceQueryResultsParserOutput::Boolean(value) => Ok(SparqlOutput::Ask { value }),
        SliceQueryResultsParserOutput::Solutions(solutions) => {
            let vars: Vec<String> = solutions
                .variables()
                .iter()
                .map(|v| v.as_str().to_string())
                .collect();
            let mut rows = Vec::new();
            for s in solutions {
                let s = s.map_err(|e| bad(&e))?;
                rows.push(
                    vars.iter()
                        .map(|v| s.get(v.as_str()).map(canonical))
                        .collect(),
                );
            }
            Ok(SparqlOutput::Select { vars, rows })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_results_read_as_the_local_engine_shapes_them() {
        let body = br#"{"head":{"vars":["s","n"]},"results":{"bindings":[
            {"s":{"type":"uri","value":"urn:rlmkg:doc:d1"},
             "n":{"type":"typed-literal","datatype":"http://www.w3.org/2001/XMLSchema#integer","value":"3"}},
            {"n":{"type":"literal","xml:lang":"en","value":"x"}}]}}"#;
        let out = parse_answer("application/sparql-results+json; charset=UTF-8", body).unwrap();
        assert_eq!(
            out,
            SparqlOutput::Select {
                vars: vec!["s".into(), "n".into()],
                rows: vec![
                    vec![
                        Some("<urn:rlmkg:doc:d1>".into()),
                        Some("\"3\"^^<http://www.w3.org/2001/XMLSchema#integer>".into())
                    ],
                    vec![None, Some("\"x\"@en".into())],
                ]
            }
        );
        let ask = parse_answer(
            "application/sparql-results+json",
            br#"{"head":{},"boolean":true}"#,
        );
        assert_eq!(ask.unwrap(), SparqlOutput::Ask { value: true });
    }

    #[test]
    fn a_double_is_written_as_the_local_engine_writes_it() {
        let body = br#"{"head":{"vars":["w"]},"results":{"bindings":[
            {"w":{"type":"typed-literal","datatype":"http://www.w3.org/2001/XMLSchema#double","value":"1.0"}},
            {"w":{"type":"typed-literal","datatype":"http://www.w3.org/2001/XMLSchema#double","value":"2.5E0"}}]}}"#;
        let SparqlOutput::Select { rows, .. } =
            parse_answer("application/sparql-results+json", body).unwrap()
        else {
            panic!("not a SELECT")
        };
        let want = |f: f64| Some(oxigraph::model::Literal::from(f).to_string());
        assert_eq!(rows, vec![vec![want(1.0)], vec![want(2.5)]]);
    }

    #[test]
    fn virtuosos_ask_as_a_one_row_select_is_read_as_the_boolean() {
        let body = |v: &str| {
            format!(
                r#"{{"head":{{"vars":["__ASK_RETVAL"]}},"results":{{"bindings":[{{"__ASK_RETVAL":{{"type":"typed-literal","datatype":"http://www.w3.org/2001/XMLSchema#integer","value":"{v}"}}}}]}}}}"#
            )
        };
        for (v, want) in [("1", true), ("0", false)] {
            let out = parse_answer("application/sparql-results+json", body(v).as_bytes()).unwrap();
            assert_eq!(as_ask(out).unwrap(), SparqlOutput::Ask { value: want });
        }
    }

    #[test]
    fn an_update_is_rejected_before_anything_is_sent() {
        // Port 9 (discard) on loopback: were it sent, the error would differ.
        let e = Endpoint::new("http://127.0.0.1:9/sparql", None).unwrap();
        let err = e
            .query(
                "INSERT DATA { <urn:a> <urn:b> <urn:c> }",
                Duration::from_secs(1),
            )
            .unwrap_err();
        assert!(
            matches!(err, EndpointError::Graph(GraphError::UpdateRejected)),
            "{err}"
        );
    }

    #[test]
    fn a_down_endpoint_says_so() {
        let e = Endpoint::new("http://127.0.0.1:9/sparql", None).unwrap();
        let err = e.query("ASK {}", Duration::from_secs(2)).unwrap_err();
        assert!(matches!(err, EndpointError::Unreachable { .. }), "{err}");
        assert!(err.to_string().contains("unreachable"), "{err}");
    }

    #[test]
    fn form_encoding_escapes_everything_but_unreserved() {
        assert_eq!(form_encode("a b&c=d\né"), "a%20b%26c%3Dd%0A%C3%A9");
    }
}
