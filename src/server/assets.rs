//! The compiled site (wasm, js, css) and `public/`, embedded in the release binary so that
//! the binary alone is the whole app. Debug builds read the same folder from disk.

use axum::http::{HeaderMap, HeaderValue, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};

#[derive(rust_embed::Embed)]
#[folder = "target/site"]
#[allow_missing = true]
struct Site;

/// Serves an embedded file, revalidated by ETag so a new build is picked up at once.
pub async fn serve(uri: Uri, headers: HeaderMap) -> Response {
    let path = uri.path().trim_start_matches('/');
    let Some(file) = Site::get(path) else {
        return super::error::AppError::NotFound(format!("no such file: /{path}")).into_response();
    };
    let etag = format!("\"{}\"", hex(&file.metadata.sha256_hash()[..16]));
    if headers
        .get(header::IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok())
        == Some(etag.as_str())
    {
        return StatusCode::NOT_MODIFIED.into_response();
    }
    let mime = file.metadata.mimetype();
    (
        [
            (
                header::CONTENT_TYPE,
                HeaderValue::from_str(mime)
                    .unwrap_or(HeaderValue::from_static("application/octet-stream")),
            ),
            (header::CACHE_CONTROL, HeaderValue::from_static("no-cache")),
            (
                header::ETAG,
                HeaderValue::from_str(&etag).expect("hex etag is a valid header"),
            ),
        ],
        file.data,
    )
        .into_response()
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
