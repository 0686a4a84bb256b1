//! The microphone, in the browser only (issue 38): one recording at a time with `MediaRecorder`,
//! in the format the browser makes (WebM or Ogg with Opus, MP4 on Safari), and the recording
//! sent to `POST /transcriptions`. The state the screen shows is the composer's `Mic`
//! (`components::push_to_talk`); this is the browser's half.

use std::cell::RefCell;

use wasm_bindgen::JsCast;
use wasm_bindgen::closure::Closure;
use wasm_bindgen_futures::JsFuture;
use web_sys::{Blob, BlobEvent, MediaRecorder, MediaStream, MediaStreamConstraints};

/// The recording under way: the recorder and the handler that receives it. Kept until the next
/// recording replaces it, so the handler outlives its last call.
struct Live {
    recorder: MediaRecorder,
    _data: Closure<dyn FnMut(BlobEvent)>,
}

thread_local! {
    static LIVE: RefCell<Option<Live>> = const { RefCell::new(None) };
    /// The last recording that could not be transcribed, to send again.
    static KEPT: RefCell<Option<Blob>> = const { RefCell::new(None) };
}

/// Opens the microphone and records until [`stop`]; `done` then gets the recording and how
/// long it ran, in milliseconds. `Err` when there is no microphone or no permission.
pub async fn start(done: impl FnOnce(Blob, f64) + 'static) -> Result<(), ()> {
    let devices = leptos::prelude::window()
        .navigator()
        .media_devices()
        .map_err(drop)?;
    let constraints = MediaStreamConstraints::new();
    constraints.set_audio_bool(true);
    let asked = devices
        .get_user_media_with_constraints(&constraints)
        .map_err(drop)?;
    let stream: MediaStream = JsFuture::from(asked)
        .await
        .map_err(drop)?
        .dyn_into()
        .map_err(drop)?;
    let Ok(recorder) = MediaRecorder::new_with_media_stream(&stream) else {
        let_go(&stream);
        return Err(());
    };
    let started = js_sys::Date::now();
    let mut done = Some(done);
    let held = stream.clone();
    // Without a time slice the whole recording comes in one piece, after `stop`.
    let data = Closure::<dyn FnMut(BlobEvent)>::new(move |event: BlobEvent| {
        let_go(&held);
        if let (Some(blob), Some(done)) = (event.data(), done.take()) {
            done(blob, js_sys::Date::now() - started);
        }
    });
    recorder.set_ondataavailable(Some(data.as_ref().unchecked_ref()));
    if recorder.start().is_err() {
        let_go(&stream);
        return Err(());
    }
    LIVE.set(Some(Live {
        recorder,
        _data: data,
    }));
    Ok(())
}

/// Lets the microphone go (the browser's recording light goes out).
fn let_go(stream: &MediaStream) {
    for track in stream.get_tracks().iter() {
        if let Ok(track) = track.dyn_into::<web_sys::MediaStreamTrack>() {
            track.stop();
        }
    }
}

/// Ends the recording under way, if any: its handler gets it.
pub fn stop() {
    LIVE.with_borrow(|live| {
        // A recorder already stopped throws, which changes nothing.
        if let Some(live) = live {
            let _ = live.recorder.stop();
        }
    });
}

/// Keeps `recording` to be sent again (or `None`: forgets it).
pub fn keep(recording: Option<Blob>) {
    KEPT.set(recording);
}

/// The recording kept, if any.
pub fn kept() -> Option<Blob> {
    KEPT.with_borrow(Clone::clone)
}

/// Sends `recording` to `POST /transcriptions`: the status and the body, or `Err` when no
/// answer came (the network, the server down).
pub async fn transcribe(recording: &Blob) -> Result<(u16, String), String> {
    let media_type = recording.type_();
    let media_type = if media_type.is_empty() {
        "audio/webm"
    } else {
        media_type.as_str()
    };
    let body: &wasm_bindgen::JsValue = recording.as_ref();
    super::browser::fetch("POST", "/transcriptions", Some((body, media_type))).await
}
