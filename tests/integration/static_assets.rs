//! The browser bundle over real HTTP: a client that accepts gzip gets the zopfli `.gz` that
//! `make build` writes beside each file (scripts/precompress.mjs), once compressed and with the
//! original's type; any other client gets the file itself.
//!
//! Debug builds read target/site from disk, so these tests check whatever the last frontend build
//! (`make site`) left there. They need it: without a bundle, or with a `.gz`/`.br` older than its
//! file, they fail and say so rather than check less. `make test` runs them after the site is
//! built (every other native test runs while it builds).
#![cfg(feature = "ssr")]

use crate::common;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use common::TestServer;
use reqwest::StatusCode;
use reqwest::header::{CONTENT_ENCODING, CONTENT_TYPE, ETAG, HeaderMap, VARY};

const BUNDLE: [(&str, &str); 3] = [
    ("pkg/agora-hai.wasm", "application/wasm"),
    ("pkg/agora-hai.js", "text/javascript"),
    ("pkg/agora-hai.css", "text/css"),
];

fn site(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("target/site")
        .join(path)
}

/// The file as built; a test fails when the bundle was never built.
fn built(path: &str) -> Vec<u8> {
    std::fs::read(site(path)).unwrap_or_else(|e| {
        panic!(
            "{} is not built ({e}): these tests check the bundle `make site` makes",
            site(path).display()
        )
    })
}

/// The precompressed `path.ext` (`gz` or `br`) that `make site` writes beside `path`, which the
/// server should send: present and not older than the file.
fn precompressed(path: &str, ext: &str) -> Vec<u8> {
    let modified = |p: &Path| std::fs::metadata(p).and_then(|m| m.modified()).ok();
    let file = site(&format!("{path}.{ext}"));
    match (modified(&file), modified(&site(path))) {
        (Some(packed), Some(plain)) if packed >= plain => std::fs::read(&file).unwrap(),
        _ => panic!(
            "no fresh {} (`make site` runs scripts/precompress.mjs after the build)",
            file.display()
        ),
    }
}

/// `gzip -dc` of `bytes`: proves they are one complete gzip stream, not two nested ones.
fn gunzip(bytes: &[u8]) -> Vec<u8> {
    let mut child = Command::new("gzip")
        .arg("-dc")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("gzip is installed");
    let mut stdin = child.stdin.take().unwrap();
    let input = bytes.to_vec();
    let writer = std::thread::spawn(move || stdin.write_all(&input));
    let output = child.wait_with_output().unwrap();
    writer.join().unwrap().unwrap();
    assert!(output.status.success(), "gzip -dc failed: {output:?}");
    output.stdout
}

async fn get(server: &TestServer, path: &str, headers: &[(&str, &str)]) -> reqwest::Response {
    let mut request = reqwest::Client::new().get(server.url(&format!("/{path}")));
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    request.send().await.unwrap()
}

fn header(headers: &HeaderMap, name: impl reqwest::header::AsHeaderName) -> &str {
    headers.get(name).map(|v| v.to_str().unwrap()).unwrap_or("")
}

#[tokio::test]
async fn a_client_that_accepts_gzip_gets_the_precompressed_bundle_once_compressed() {
    let server = TestServer::start().await;
    for (path, mime) in BUNDLE {
        let raw = built(path);
        let gz = precompressed(path, "gz");
        let response = get(&server, path, &[("accept-encoding", "gzip, deflate")]).await;
        assert_eq!(response.status(), StatusCode::OK, "{path}");
        let headers = response.headers().clone();
        let body = response.bytes().await.unwrap();
        assert!(
            header(&headers, CONTENT_TYPE).starts_with(mime),
            "{path}: {headers:?}"
        );
        assert_eq!(header(&headers, CONTENT_ENCODING), "gzip", "{path}");
        assert!(
            header(&headers, VARY)
                .to_ascii_lowercase()
                .contains("accept-encoding"),
            "{path}: {headers:?}"
        );
        assert_eq!(&body[..2], &[0x1f, 0x8b], "{path}: gzip magic");
        assert!(body.len() < raw.len(), "{path}: {} bytes", body.len());
        assert!(gunzip(&body) == raw, "{path}: does not gunzip to the file");
        // The zopfli file itself, not the CompressionLayer's own gzip of the file.
        assert!(
            body == gz,
            "{path}: {} bytes sent, the .gz has {}",
            body.len(),
            gz.len()
        );
        let etag = header(&headers, ETAG).to_owned();
        assert!(etag.ends_with("-gz\""), "{path}: etag {etag}");
        let again = get(
            &server,
            path,
            &[("accept-encoding", "gzip"), ("if-none-match", &etag)],
        )
        .await;
        assert_eq!(again.status(), StatusCode::NOT_MODIFIED, "{path}");
        assert_eq!(header(again.headers(), ETAG), etag, "{path}");
    }
}

#[tokio::test]
async fn a_client_that_accepts_brotli_gets_the_brotli_file() {
    let server = TestServer::start().await;
    for (path, mime) in BUNDLE {
        let raw = built(path);
        let br = precompressed(path, "br");
        let response = get(
            &server,
            path,
            &[("accept-encoding", "gzip, deflate, br, zstd")],
        )
        .await;
        assert_eq!(response.status(), StatusCode::OK, "{path}");
        let headers = response.headers().clone();
        let body = response.bytes().await.unwrap();
        assert!(header(&headers, CONTENT_TYPE).starts_with(mime), "{path}");
        assert_eq!(header(&headers, CONTENT_ENCODING), "br", "{path}");
        assert!(header(&headers, ETAG).ends_with("-br\""), "{path}");
        assert!(body == br, "{path}: not the .br file");
        assert!(body.len() < raw.len(), "{path}: {} bytes", body.len());
    }
}

#[tokio::test]
async fn any_other_client_gets_the_file_itself() {
    let server = TestServer::start().await;
    for (path, mime) in BUNDLE {
        let raw = built(path);
        let mut plain_etag = None;
        for accept in [
            None,
            Some("identity"),
            Some("zstd"),
            Some("gzip;q=0, br;q=0"),
        ] {
            let headers: Vec<(&str, &str)> =
                accept.iter().map(|a| ("accept-encoding", *a)).collect();
            let response = get(&server, path, &headers).await;
            assert_eq!(response.status(), StatusCode::OK, "{path} {accept:?}");
            let headers = response.headers().clone();
            assert!(
                header(&headers, CONTENT_TYPE).starts_with(mime),
                "{path}: {headers:?}"
            );
            assert!(
                !headers.contains_key(CONTENT_ENCODING),
                "{path} {accept:?}: {headers:?}"
            );
            let etag = header(&headers, ETAG).to_owned();
            assert!(!etag.ends_with("-gz\""), "{path}: etag {etag}");
            assert!(
                response.bytes().await.unwrap() == raw,
                "{path} {accept:?}: not the file"
            );
            plain_etag.get_or_insert(etag);
        }
        // The plain file's ETag revalidates the plain file only: a gzip client gets a 200.
        let etag = plain_etag.unwrap();
        let plain = get(&server, path, &[("if-none-match", &etag)]).await;
        assert_eq!(plain.status(), StatusCode::NOT_MODIFIED, "{path}");
        precompressed(path, "gz");
        let gzip = get(
            &server,
            path,
            &[("accept-encoding", "gzip"), ("if-none-match", &etag)],
        )
        .await;
        assert_eq!(gzip.status(), StatusCode::OK, "{path}");
        assert_eq!(header(gzip.headers(), CONTENT_ENCODING), "gzip", "{path}");
    }
}
