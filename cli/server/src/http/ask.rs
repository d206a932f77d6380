//! `POST /v1/ask`: the JSON of `rlmkg ask --json`, or with `"stream": true`
//! NDJSON events as the run goes, one JSON object a line:
//!
//! - `{"event": "run", "line": …}`: a line of the RLM run's trajectory (its
//!   header, each root turn with its reply, code, outputs, sub-calls, tokens
//!   and time, its final line), as in a trajectory file;
//! - `{"event": "note", "message": …}`: a remark (a fallback, a repair turn);
//! - `{"event": "draft", "text": …}`: the answer before verification;
//! - then `{"event": "answer", "answer": …}` (the verified answer), or
//!   `{"event": "error", "error": {"status", "message"}}`.
//!
//! A busy server answers 503 before any event (the run slot is taken before
//! the response starts); a malformed request 400.

use std::convert::Infallible;
use std::sync::Arc;

use axum::Json;
use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};
use rlmkg::{AskEvent, Events};
use serde_json::{Value, json};
use tokio::sync::mpsc;

use super::error::ApiError;
use super::routes::json_body;
use crate::ops::{AskArgs, Ops};

/// One NDJSON line.
fn line(v: &Value) -> Bytes {
    let mut s = v.to_string();
    s.push('\n');
    Bytes::from(s)
}

/// The event line of an [`AskEvent`].
fn event_line(e: &AskEvent<'_>) -> Option<Bytes> {
    let v = match e {
        AskEvent::Run(l) => json!({ "event": "run", "line": l }),
        AskEvent::Note(m) => json!({ "event": "note", "message": m }),
        AskEvent::Draft(t) => json!({ "event": "draft", "text": t }),
        _ => return None,
    };
    Some(line(&v))
}

/// `POST /v1/ask`.
pub async fn ask(State(ops): State<Arc<Ops>>, body: Bytes) -> Result<Response, ApiError> {
    let mut v: Value = json_body(&body)?;
    let stream = match v.as_object_mut().and_then(|o| o.remove("stream")) {
        None | Some(Value::Null) => false,
        Some(Value::Bool(b)) => b,
        Some(_) => return Err(ApiError::bad_request("stream must be true or false")),
    };
    let args: AskArgs = serde_json::from_value(v)
        .map_err(|e| ApiError::bad_request(format!("the body is not the JSON expected: {e}")))?;
    if !stream {
        let answer = ops.ask(args, Events::default()).await?;
        return Ok(Json(answer).into_response());
    }
    let (tx, rx) = mpsc::unbounded_channel::<Bytes>();
    let events_tx = tx.clone();
    // A client that went away drops the receiver: sends fail quietly, and
    // the run (bounded by its budgets) ends on its own.
    let events = Events::to(move |e| {
        if let Some(l) = event_line(e) {
            let _ = events_tx.send(l);
        }
    });
    let prepared = ops.prepare_ask(&args, events)?;
    let ticket = ops
        .gate()
        .enter()
        .await
        .map_err(crate::ops::OpsError::from)?;
    tokio::spawn(async move {
        let last = match ops.run_ask(prepared, ticket).await {
            Ok(answer) => json!({ "event": "answer", "answer": answer }),
            Err(e) => {
                let mut body = ApiError::from(e).body();
                body["event"] = json!("error");
                body
            }
        };
        let _ = tx.send(line(&last));
    });
    let lines = futures::stream::unfold(rx, |mut rx| async move {
        rx.recv().await.map(|b| (Ok::<_, Infallible>(b), rx))
    });
    let mut response = Body::from_stream(lines).into_response();
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/x-ndjson"),
    );
    response
        .headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    Ok(response)
}
