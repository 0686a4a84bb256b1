//! The compiled site (wasm, js, css) and `public/`, embedded in the release binary so that
//! the binary alone is the whole app. Debug builds read the same folder from disk.
//!
//! `make build` writes a Brotli `<file>.br` and a zopfli `<file>.gz` beside the wasm, js and
//! css (scripts/precompress.mjs); a client that accepts `br` gets the Brotli bytes, else one
//! that accepts gzip the gzip bytes, with their `Content-Encoding`, which the router's
//! CompressionLayer leaves alone. Any other file, or any other client, gets the plain file
//! (compressed on the fly where the layer sees fit).

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
    let brotli = precompressed(path, &file, "br");
    let gzipped = precompressed(path, &file, "gz");
    let has_variant = brotli.is_some() || gzipped.is_some();
    let (body, etag, encoding) = match (brotli, gzipped) {
        (Some(br), _) if accepts(&headers, "br") => {
            let etag = format!("\"{}-br\"", hex(&br.metadata.sha256_hash()[..16]));
            (br.data, etag, Some(HeaderValue::from_static("br")))
        }
        (_, Some(gz)) if accepts(&headers, "gzip") => {
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

/// The `<path>.<extension>` beside `file` (`gz`, `br`), unless it is older than `file`:
/// cargo-leptos rewrites the site on every frontend build (`cargo leptos watch` too), and a
/// stale variant must never be sent in place of the new file.
fn precompressed(path: &str, file: &EmbeddedFile, extension: &str) -> Option<EmbeddedFile> {
    if path.ends_with(".gz") || path.ends_with(".br") {
        return None;
    }
    let variant = Site::get(&format!("{path}.{extension}"))?;
    match (
        variant.metadata.last_modified(),
        file.metadata.last_modified(),
    ) {
        (Some(variant_time), Some(file_time)) if variant_time < file_time => None,
        _ => Some(variant),
    }
}

/// Whether `Accept-Encoding` allows `coding`: listed (or, failing that, `*`) with a weight
/// above zero. `x-gzip` counts as gzip.
fn accepts(headers: &HeaderMap, coding: &str) -> bool {
    let mut named = None;
    let mut any = None;
    for (listed, weight) in super::http::weighted(headers, header::ACCEPT_ENCODING) {
        if listed == coding || (coding == "gzip" && listed == "x-gzip") {
            named = Some(weight);
        } else if listed == "*" {
            any = Some(weight);
        }
    }
    named.or(any).is_some_and(|weight| weight > 0.0)
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

    fn accepts_gzip(headers: &HeaderMap) -> bool {
        accepts(headers, "gzip")
    }

    #[test]
    fn brotli_is_chosen_only_when_the_client_lists_it() {
        assert!(accepts(&accept("gzip, deflate, br, zstd"), "br"));
        assert!(accepts(&accept("BR;q=0.4"), "br"));
        assert!(!accepts(&accept("gzip, deflate"), "br"));
        assert!(!accepts(&accept("br;q=0, gzip"), "br"));
        assert!(accepts(&accept("x-gzip"), "gzip"));
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
