//! Small browser helpers (hydrate only): `localStorage` and `fetch`.

use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use web_sys::{RequestInit, Response};

fn storage() -> Option<web_sys::Storage> {
    web_sys::window()?.local_storage().ok().flatten()
}

pub fn storage_get(key: &str) -> Option<String> {
    storage()?.get_item(key).ok().flatten()
}

pub fn storage_set(key: &str, value: &str) {
    if let Some(storage) = storage() {
        let _ = storage.set_item(key, value);
    }
}

pub fn storage_remove(key: &str) {
    if let Some(storage) = storage() {
        let _ = storage.remove_item(key);
    }
}

/// `fetch` with an optional JSON body; the response text, or the failure as text.
pub async fn fetch_text(method: &str, url: &str, body: Option<String>) -> Result<String, String> {
    let body = body.map(|body| JsValue::from_str(&body));
    let (status, text) = fetch(
        method,
        url,
        body.as_ref().map(|body| (body, "application/json")),
    )
    .await?;
    if (200..300).contains(&status) {
        Ok(text)
    } else {
        Err(format!("HTTP {status}: {text}"))
    }
}

/// `fetch` with an optional body of a media type (text, a `Blob`): the status and the response
/// text, whatever the status; `Err` only when no answer came (no network, the server down).
pub async fn fetch(
    method: &str,
    url: &str,
    body: Option<(&JsValue, &str)>,
) -> Result<(u16, String), String> {
    let init = RequestInit::new();
    init.set_method(method);
    if let Some((body, media_type)) = body {
        init.set_body(body);
        let headers = web_sys::Headers::new().map_err(describe)?;
        headers.set("Content-Type", media_type).map_err(describe)?;
        init.set_headers(&headers);
    }
    let window = web_sys::window().ok_or("no window")?;
    let response: Response = JsFuture::from(window.fetch_with_str_and_init(url, &init))
        .await
        .map_err(describe)?
        .dyn_into()
        .map_err(describe)?;
    let text = JsFuture::from(response.text().map_err(describe)?)
        .await
        .map_err(describe)?
        .as_string()
        .unwrap_or_default();
    Ok((response.status(), text))
}

fn describe(value: JsValue) -> String {
    value
        .as_string()
        .or_else(|| {
            value
                .dyn_ref::<js_sys::Error>()
                .map(|e| String::from(e.message()))
        })
        .unwrap_or_else(|| "network error".to_owned())
}
