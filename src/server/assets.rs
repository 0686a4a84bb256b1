//! The compiled site (wasm, js, css) and `public/`, embedded in the release binary so that
//! the binary alone is the whole app. Debug builds read the same folder from disk.
//!
//! `make build` writes a zopfli-compressed `<file>.gz` beside the wasm, js and css
//! (scripts/precompress.mjs); a client that accepts gzip gets those bytes with
//! `Content-Encoding: gzip`, which the router's CompressionLayer leaves alone. Any other file,
//! or any other client, gets the plain file (compressed on the fly where the layer sees fit).

use axum::http::{HeaderMap, HeaderValue, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use rust_embed::EmbeddedFile;

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
    // The original's type, whichever bytes go out.
    let mime = HeaderValue::from_str(file.metadata.mimetype())
        .unwrap_or(HeaderValue::from_static("application/octet-stream"));
    let gzipped = precompressed(path, &file);
    let has_variant = gzipped.is_some();
    let (body, etag, encoding) = match gzipped {
        Some(gz) if accepts_gzip(&headers) => {
            let etag = format!("\"{}-gz\"", hex(&gz.metadata.sha256_hash()[..16]));
            (gz.data, etag, Some(HeaderValue::from_static("gzip")))
        }
        _ => {
            let etag = format!("\"{}\"", hex(&file.metadata.sha256_hash()[..16]));
            (file.data, etag, None)
        }
    };
    let etag = HeaderValue::from_str(&etag).expect("hex etag is a valid header");
    let mut response = if headers
        .get(header::IF_NONE_MATCH)
        .is_some_and(|v| v.as_bytes() == etag.as_bytes())
    {
        StatusCode::NOT_MODIFIED.into_response()
    } else {
        let mut response = body.into_response();
        response.headers_mut().insert(header::CONTENT_TYPE, mime);
        response
    };
    let out = response.headers_mut();
    out.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    out.insert(header::ETAG, etag);
    if has_variant {
        // Caches must keep the two encodings apart.
        out.insert(header::VARY, HeaderValue::from_static("accept-encoding"));
    }
    if let Some(encoding) = encoding
        && response.status() == StatusCode::OK
    {
        response
            .headers_mut()
            .insert(header::CONTENT_ENCODING, encoding);
    }
    response
}

/// The `<path>.gz` beside `file`, unless it is older than `file`: cargo-leptos rewrites the
/// site on every frontend build (`cargo leptos watch` too), and a stale `.gz` must never be
/// sent in place of the new file.
fn precompressed(path: &str, file: &EmbeddedFile) -> Option<EmbeddedFile> {
    if path.ends_with(".gz") {
        return None;
    }
    let gz = Site::get(&format!("{path}.gz"))?;
    match (gz.metadata.last_modified(), file.metadata.last_modified()) {
        (Some(gz_time), Some(file_time)) if gz_time < file_time => None,
        _ => Some(gz),
    }
}

/// Whether `Accept-Encoding` allows gzip: listed (or, failing that, `*`) with a weight above zero.
fn accepts_gzip(headers: &HeaderMap) -> bool {
    let mut gzip = None;
    let mut any = None;
    for (coding, weight) in super::http::weighted(headers, header::ACCEPT_ENCODING) {
        if coding == "gzip" || coding == "x-gzip" {
            gzip = Some(weight);
        } else if coding == "*" {
            any = Some(weight);
        }
    }
    gzip.or(any).is_some_and(|weight| weight > 0.0)
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn accept(value: &str) -> HeaderMap {
        let mut headers = HeaderMap::new();
        headers.insert(
            header::ACCEPT_ENCODING,
            HeaderValue::from_str(value).unwrap(),
        );
        headers
    }

    #[test]
    fn gzip_is_accepted_when_listed_with_a_weight_above_zero() {
        assert!(accepts_gzip(&accept("gzip")));
        assert!(accepts_gzip(&accept("gzip, deflate, br, zstd")));
        assert!(accepts_gzip(&accept("br;q=1.0, GZIP;q=0.5")));
        assert!(accepts_gzip(&accept("*")));
        assert!(!accepts_gzip(&HeaderMap::new()));
        assert!(!accepts_gzip(&accept("identity")));
        assert!(!accepts_gzip(&accept("br, zstd")));
        assert!(!accepts_gzip(&accept("gzip;q=0, br")));
        assert!(!accepts_gzip(&accept("gzip; q=0.000")));
        assert!(!accepts_gzip(&accept("gzipx")));
        assert!(!accepts_gzip(&accept("gzip;q=0, *")));
        assert!(!accepts_gzip(&accept("*;q=0")));
    }
}
