//! The read routes and `verify`: each reads its arguments strictly (a
//! malformed one is 400), runs its operation on the blocking pool and
//! answers with the operation's JSON.

use std::sync::Arc;

use axum::Json;
use axum::body::Bytes;
use axum::extract::rejection::QueryRejection;
use axum::extract::{Path, Query, State};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use super::error::ApiError;
use crate::ops::{
    EntityArgs, FactsArgs, NeighborsArgs, Ops, OpsError, PathArgs, ReadArgs, RelatedArgs,
    SearchArgs, VerifyArgs, blocking,
};

/// A route's answer.
pub type Answer = Result<Json<Value>, ApiError>;

/// Run `f` on the blocking pool and answer with its JSON.
async fn run<T: Serialize + Send + 'static>(
    f: impl FnOnce() -> Result<T, OpsError> + Send + 'static,
) -> Answer {
    let value = blocking(f).await?;
    serde_json::to_value(value)
        .map(Json)
        .map_err(|e| ApiError::from(OpsError::Internal(e.to_string())))
}

/// Query parameters, or 400 naming what is wrong with them.
fn query<T>(q: Result<Query<T>, QueryRejection>) -> Result<T, ApiError> {
    q.map(|Query(t)| t)
        .map_err(|e| ApiError::bad_request(format!("query parameters: {}", e.body_text())))
}

/// A JSON body, or 400 naming what is wrong with it. Any content type is
/// read as JSON (a client sending `text/plain` still means JSON here).
pub fn json_body<T: DeserializeOwned>(body: &Bytes) -> Result<T, ApiError> {
    serde_json::from_slice(body)
        .map_err(|e| ApiError::bad_request(format!("the body is not the JSON expected: {e}")))
}

/// `GET /healthz`.
pub async fn healthz() -> Json<Value> {
    Json(json!({ "status": "ok", "version": env!("CARGO_PKG_VERSION") }))
}

/// The query of `GET /v1/search` (`q` or `query`).
#[derive(Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SearchQuery {
    #[serde(default)]
    q: Option<String>,
    #[serde(default)]
    query: Option<String>,
    #[serde(default)]
    k: Option<usize>,
}

/// `GET /v1/search?q=…&k=…`.
pub async fn search(
    State(ops): State<Arc<Ops>>,
    q: Result<Query<SearchQuery>, QueryRejection>,
) -> Answer {
    let q = query(q)?;
    let Some(text) = q.q.or(q.query) else {
        return Err(ApiError::bad_request("give the query as ?q=…"));
    };
    let args = SearchArgs {
        query: text,
        k: q.k,
    };
    run(move || ops.search(&args)).await
}

/// `GET /v1/read/{id}`.
pub async fn read(State(ops): State<Arc<Ops>>, Path(id): Path<String>) -> Answer {
    run(move || ops.read(&ReadArgs { id })).await
}

/// The query of `GET /v1/entity/{name}`.
#[derive(Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EntityQuery {
    #[serde(default)]
    k: Option<usize>,
    #[serde(default)]
    relation: Option<String>,
}

/// `GET /v1/entity/{name}?k=…&relation=…`.
pub async fn entity(
    State(ops): State<Arc<Ops>>,
    Path(name): Path<String>,
    q: Result<Query<EntityQuery>, QueryRejection>,
) -> Answer {
    let q = query(q)?;
    let args = EntityArgs {
        name,
        k: q.k,
        relation: q.relation,
    };
    run(move || ops.entity(&args)).await
}

/// `GET /v1/neighbors/{entity}?k=…&relation=…`.
pub async fn neighbors(
    State(ops): State<Arc<Ops>>,
    Path(entity): Path<String>,
    q: Result<Query<EntityQuery>, QueryRejection>,
) -> Answer {
    let q = query(q)?;
    let args = NeighborsArgs {
        entity,
        k: q.k,
        relation: q.relation,
    };
    run(move || ops.neighbors(&args)).await
}

/// `GET /v1/facts/{entity}?k=…`.
pub async fn facts(
    State(ops): State<Arc<Ops>>,
    Path(entity): Path<String>,
    q: Result<Query<EntityQuery>, QueryRejection>,
) -> Answer {
    let q = query(q)?;
    let args = FactsArgs { entity, k: q.k };
    run(move || ops.facts(&args)).await
}

/// `GET /v1/path?from=…&to=…&max_hops=…`.
pub async fn path(
    State(ops): State<Arc<Ops>>,
    q: Result<Query<PathArgs>, QueryRejection>,
) -> Answer {
    let args = query(q)?;
    run(move || ops.path(&args)).await
}

/// The query of `GET /v1/related` (`q` or `query`, and `entity` repeated).
#[derive(Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RelatedQuery {
    #[serde(default)]
    q: Option<String>,
    #[serde(default)]
    query: Option<String>,
    #[serde(default)]
    entity: Option<String>,
    #[serde(default)]
    k: Option<usize>,
}

/// `GET /v1/related?q=…&entity=…&k=…`.
pub async fn related(
    State(ops): State<Arc<Ops>>,
    q: Result<Query<RelatedQuery>, QueryRejection>,
) -> Answer {
    let q = query(q)?;
    let args = RelatedArgs {
        query: q.q.or(q.query),
        entities: q.entity.map(|e| vec![e]),
        k: q.k,
    };
    run(move || ops.related(&args)).await
}

/// `GET /v1/stats`.
pub async fn stats(State(ops): State<Arc<Ops>>) -> Answer {
    run(move || ops.stats()).await
}

/// `POST /v1/verify` with `{"answer": "… [c12.s3] …"}`: the checker's report.
pub async fn verify(State(ops): State<Arc<Ops>>, body: Bytes) -> Answer {
    let args: VerifyArgs = json_body(&body)?;
    run(move || ops.verify(&args)).await
}

/// Anything else: 404 in JSON.
pub async fn not_found() -> ApiError {
    ApiError::new(
        axum::http::StatusCode::NOT_FOUND,
        "no such route; see GET /healthz, /v1/search, /v1/read/{id}, /v1/entity/{name}, \
         POST /v1/ask, /v1/verify, and /mcp",
    )
}
