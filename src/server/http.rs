//! Small pieces of HTTP shared by the handlers.

use axum::http::{HeaderMap, HeaderName};

/// The items of a weighted list header (`Accept`, `Accept-Encoding`, …): every
/// comma-separated item of every `name` header, as its lower-cased token and its `q` weight
/// (1.0 when absent or unreadable). Empty items are skipped.
pub fn weighted(headers: &HeaderMap, name: HeaderName) -> impl Iterator<Item = (String, f32)> {
    headers
        .get_all(name)
        .into_iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .filter_map(|item| {
            let mut params = item.split(';');
            let token = params.next()?.trim().to_ascii_lowercase();
            if token.is_empty() {
                return None;
            }
            let q = params
                .filter_map(|p| {
                    let (key, value) = p.split_once('=')?;
                    key.trim()
                        .eq_ignore_ascii_case("q")
                        .then(|| value.trim().parse::<f32>().ok())?
                })
                .next()
                .unwrap_or(1.0);
            Some((token, q))
        })
}

/// Unix milliseconds as the contract's `date-time` (RFC 3339, UTC).
pub(crate) fn timestamp(ms: i64) -> String {
    time::OffsetDateTime::from_unix_timestamp_nanos(i128::from(ms) * 1_000_000)
        .ok()
        .and_then(|t| {
            t.format(&time::format_description::well_known::Rfc3339)
                .ok()
        })
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use axum::http::{HeaderValue, header};

    use super::*;

    #[test]
    fn items_of_every_value_with_their_weights() {
        let mut headers = HeaderMap::new();
        headers.append(
            header::ACCEPT,
            HeaderValue::from_static("Text/HTML, application/json;Q=0.5;level=1"),
        );
        headers.append(
            header::ACCEPT,
            HeaderValue::from_static(" , */*; q = 0.1 ,image/png;q=x;charset=a"),
        );
        headers.insert(header::ACCEPT_ENCODING, HeaderValue::from_static("gzip"));
        let items: Vec<_> = weighted(&headers, header::ACCEPT).collect();
        assert_eq!(
            items,
            [
                ("text/html".to_owned(), 1.0),
                ("application/json".to_owned(), 0.5),
                ("*/*".to_owned(), 0.1),
                ("image/png".to_owned(), 1.0),
            ]
        );
        assert_eq!(weighted(&HeaderMap::new(), header::ACCEPT).count(), 0);
    }
}
