//! The photos of messages waiting for a connection, in IndexedDB (issue 37): a camera's few
//! shrunk photos are more than `localStorage` holds in all, and IndexedDB keeps them over a
//! reload. One object store, `photos`, of JSON texts ([`offline::encode_photos`]) keyed by
//! [`offline::photo_key`]; the queue itself stays in `localStorage` and says how many photos a
//! message has there.
//!
//! Written with `web-sys`'s bindings: each request is awaited as a promise whose resolve and
//! reject are its success and error handlers, so no closure of ours outlives a call.

use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use web_sys::{IdbDatabase, IdbRequest, IdbTransactionMode};

use super::offline::{self, OutgoingPhoto};

const DATABASE: &str = "hai";
const STORE: &str = "photos";

/// Waits for a request's success (its result) or error.
async fn done(request: &IdbRequest) -> Result<JsValue, JsValue> {
    let promise = js_sys::Promise::new(&mut |resolve, reject| {
        request.set_onsuccess(Some(&resolve));
        request.set_onerror(Some(&reject));
    });
    JsFuture::from(promise).await?;
    request.result()
}

/// The database, its store created on first use.
async fn open() -> Result<IdbDatabase, JsValue> {
    let factory = web_sys::window()
        .ok_or(JsValue::NULL)?
        .indexed_db()?
        .ok_or(JsValue::NULL)?;
    let request = factory.open_with_u32(DATABASE, 1)?;
    let upgrade = wasm_bindgen::closure::Closure::once_into_js({
        let request = request.clone();
        move || {
            if let Ok(db) = request.result().and_then(|db| db.dyn_into::<IdbDatabase>()) {
                let _ = db.create_object_store(STORE);
            }
        }
    });
    request.set_onupgradeneeded(Some(upgrade.unchecked_ref()));
    done(&request).await?.dyn_into()
}

async fn write(key: String, value: Option<String>) -> Result<(), JsValue> {
    let db = open().await?;
    let store = db
        .transaction_with_str_and_mode(STORE, IdbTransactionMode::Readwrite)?
        .object_store(STORE)?;
    let key = JsValue::from_str(&key);
    let request = match value {
        Some(value) => store.put_with_key(&JsValue::from_str(&value), &key)?,
        None => store.delete(&key)?,
    };
    done(&request).await?;
    db.close();
    Ok(())
}

/// Keeps a queued message's photos.
pub async fn keep(user: &str, message_id: &str, photos: &[OutgoingPhoto]) {
    let value = offline::encode_photos(photos);
    if let Err(e) = write(offline::photo_key(user, message_id), Some(value)).await {
        web_sys::console::warn_2(&"the photos could not be kept offline:".into(), &e);
    }
}

/// A queued message's photos, as kept (none when there are none, or IndexedDB cannot be read).
pub async fn load(user: &str, message_id: &str) -> Vec<OutgoingPhoto> {
    let read = async {
        let db = open().await?;
        let request = db
            .transaction_with_str(STORE)?
            .object_store(STORE)?
            .get(&JsValue::from_str(&offline::photo_key(user, message_id)))?;
        let value = done(&request).await?;
        db.close();
        Ok::<_, JsValue>(value.as_string())
    };
    match read.await {
        Ok(stored) => stored
            .map(|s| offline::decode_photos(&s))
            .unwrap_or_default(),
        Err(_) => Vec::new(),
    }
}

/// Forgets a message's photos once it is sent.
pub async fn forget(user: &str, message_id: &str) {
    let _ = write(offline::photo_key(user, message_id), None).await;
}
