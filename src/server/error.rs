use axum::Json;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};

/// The one error type of the HTTP layer: clients get `{"detail": …}` (the AGORA REST contract),
/// internals are logged and never shown.
#[derive(Debug, thiserror::Error)]
pub enum AppError {
    #[error("{0}")]
    NotFound(String),
    #[error("{0}")]
    BadRequest(String),
    #[error("{0}")]
    Unprocessable(String),
    #[error("{0}")]
    Conflict(String),
    #[error("{0}")]
    Unauthorized(String),
    #[error("{0}")]
    Forbidden(String),
    #[error("{0}")]
    PayloadTooLarge(String),
    #[error("{0}")]
    UnsupportedMediaType(String),
    /// A service behind this one (the transcription API) failed or could not be reached.
    #[error("{0}")]
    BadGateway(String),
    /// A service behind this one did not answer in time.
    #[error("{0}")]
    GatewayTimeout(String),
    /// With `Retry-After`: when the client may try again.
    #[error("{detail}")]
    TooManyRequests {
        detail: String,
        retry_after_secs: u64,
    },
    #[error("internal error: {0}")]
    Internal(#[from] anyhow::Error),
}

impl IntoResponse for AppError {
    fn into_response(self) -> Response {
        let (status, detail) = match &self {
            Self::NotFound(m) => (StatusCode::NOT_FOUND, m.clone()),
            Self::BadRequest(m) => (StatusCode::BAD_REQUEST, m.clone()),
            Self::Unprocessable(m) => (StatusCode::UNPROCESSABLE_ENTITY, m.clone()),
            Self::Conflict(m) => (StatusCode::CONFLICT, m.clone()),
            Self::Unauthorized(m) => (StatusCode::UNAUTHORIZED, m.clone()),
            Self::Forbidden(m) => (StatusCode::FORBIDDEN, m.clone()),
            Self::PayloadTooLarge(m) => (StatusCode::PAYLOAD_TOO_LARGE, m.clone()),
            Self::UnsupportedMediaType(m) => (StatusCode::UNSUPPORTED_MEDIA_TYPE, m.clone()),
            Self::BadGateway(m) => (StatusCode::BAD_GATEWAY, m.clone()),
            Self::GatewayTimeout(m) => (StatusCode::GATEWAY_TIMEOUT, m.clone()),
            Self::TooManyRequests {
                detail,
                retry_after_secs,
            } => {
                let body =
                    serde_json::json!({ "detail": detail, "retryAfterSeconds": retry_after_secs });
                let retry = [(
                    axum::http::header::RETRY_AFTER,
                    retry_after_secs.to_string(),
                )];
                return (StatusCode::TOO_MANY_REQUESTS, retry, Json(body)).into_response();
            }
            Self::Internal(e) => {
                tracing::error!(error = ?e, "internal error");
                (
                    StatusCode::INTERNAL_SERVER_ERROR,
                    "Internal server error".to_owned(),
                )
            }
        };
        (status, Json(serde_json::json!({ "detail": detail }))).into_response()
    }
}

impl From<crate::orchestrator::store::StoreError> for AppError {
    fn from(e: crate::orchestrator::store::StoreError) -> Self {
        use crate::orchestrator::store::StoreError;
        match e {
            StoreError::NotFound(m) => Self::NotFound(m),
            StoreError::Conflict(m) => Self::Conflict(m),
            StoreError::Backend(m) => Self::Internal(anyhow::anyhow!("store: {m}")),
        }
    }
}
