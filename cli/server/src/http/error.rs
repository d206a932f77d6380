//! Errors as HTTP responses: a status and `{"error": {"status", "message"}}`.

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::json;

use crate::ops::OpsError;

/// Seconds a client is told to wait when the server is busy.
pub const RETRY_AFTER_SECS: u32 = 1;

/// An error response.
#[derive(Debug)]
pub struct ApiError {
    /// The status.
    pub status: StatusCode,
    /// What went wrong, for a person.
    pub message: String,
}

impl ApiError {
    /// An error with `status` and `message`.
    pub fn new(status: StatusCode, message: impl Into<String>) -> ApiError {
        ApiError {
            status,
            message: message.into(),
        }
    }

    /// 400: the request is malformed.
    pub fn bad_request(message: impl Into<String>) -> ApiError {
        Self::new(StatusCode::BAD_REQUEST, message)
    }

    /// The error as a JSON value (also an NDJSON event's payload).
    pub fn body(&self) -> serde_json::Value {
        json!({ "error": { "status": self.status.as_u16(), "message": self.message } })
    }
}

impl From<OpsError> for ApiError {
    fn from(e: OpsError) -> Self {
        let status = match &e {
            OpsError::BadRequest(_) => StatusCode::BAD_REQUEST,
            OpsError::NotFound(_) => StatusCode::NOT_FOUND,
            OpsError::Forbidden(_) => StatusCode::FORBIDDEN,
            OpsError::Busy(_) => StatusCode::SERVICE_UNAVAILABLE,
            OpsError::Conflict(_) => StatusCode::CONFLICT,
            OpsError::Backend(_) => StatusCode::BAD_GATEWAY,
            _ => StatusCode::INTERNAL_SERVER_ERROR,
        };
        Self::new(status, e.to_string())
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let mut response = (self.status, axum::Json(self.body())).into_response();
        if self.status == StatusCode::SERVICE_UNAVAILABLE {
            response
                .headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from(RETRY_AFTER_SECS));
        }
        response
    }
}
