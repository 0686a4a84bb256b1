use leptos::prelude::*;

use crate::ui::i18n::Key;
use crate::ui::offline::OutgoingPhoto;
use crate::ui::prefs::Prefs;

/// The longest side, in pixels, of a photo as it is sent (issue 37): sharp enough to read a
/// thermometer or a label, a few hundred KB as JPEG instead of a camera's 4 to 12 MB.
#[cfg(feature = "hydrate")]
const MAX_SIDE: u32 = 2048;
/// The JPEG quality of a shrunk photo (the canvas's encoder, 0 to 1).
#[cfg(feature = "hydrate")]
const JPEG_QUALITY: f64 = 0.85;

/// The camera button of the composer: takes a photo on a tablet or phone (the back camera,
/// `capture="environment"`), picks files on a desktop; several at once. Each is shrunk in the
/// browser (longest side at most 2048 px, JPEG) before it joins `photos`, as a `data:` URL
/// with the time it was taken ([`add_files`]).
#[component]
pub fn PhotoButton(
    photos: RwSignal<Vec<OutgoingPhoto>>,
    unreadable: RwSignal<bool>,
) -> impl IntoView {
    let prefs = expect_context::<Prefs>();
    let label = prefs.text(Key::AddPhoto);
    view! {
        <label
            class="flex min-h-12 min-w-12 cursor-pointer items-center justify-center rounded-lg border border-slate-300 hover:bg-slate-100 focus-within:outline-2 focus-within:outline-emerald-700 dark:border-slate-600 dark:hover:bg-slate-800"
            title=label
        >
            // A drawn camera: an emoji is a blank box where the device has no emoji font.
            <svg aria-hidden="true" viewBox="0 0 24 24" class="h-6 w-6 fill-none stroke-current stroke-2">
                <path d="M3 8h4l2-3h6l2 3h4v11H3z" />
                <circle cx="12" cy="13" r="3.5" />
            </svg>
            <span class="sr-only">{label}</span>
            <input
                type="file"
                accept="image/*"
                capture="environment"
                multiple
                class="sr-only"
                data-testid="photo-input"
                on:change=move |ev| {
                    #[cfg(feature = "hydrate")]
                    {
                        use wasm_bindgen::JsCast;
                        let Some(input) = ev
                            .target()
                            .and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok())
                        else {
                            return;
                        };
                        if let Some(files) = input.files() {
                            add_files(&files, photos, unreadable);
                        }
                        // The same photo can be chosen again after it was removed.
                        input.set_value("");
                    }
                    #[cfg(not(feature = "hydrate"))]
                    let _ = (ev, photos, unreadable);
                }
            />
        </label>
    }
}

/// The photos waiting to go with the next message, each with a button that takes it out.
/// (A class toggle rather than `<Show>`, and the few thumbnails drawn again when one changes
/// rather than a keyed `<For>`: each of those is its own code in the bundle.)
#[component]
pub fn PhotoThumbs(
    photos: RwSignal<Vec<OutgoingPhoto>>,
    unreadable: RwSignal<bool>,
) -> impl IntoView {
    let prefs = expect_context::<Prefs>();
    let (photo, remove) = (prefs.text(Key::Photo), prefs.text(Key::RemovePhoto));
    view! {
        <p role="alert" class="w-full text-sm text-red-800 dark:text-red-300" class:hidden=move || !unreadable.get()>
            {prefs.text(Key::PhotoUnreadable)}
        </p>
        <ul class="flex w-full flex-wrap gap-2" class:hidden=move || photos.with(Vec::is_empty)>
            {move || {
                photos
                    .get()
                    .into_iter()
                    .enumerate()
                    .map(|(index, shot)| {
                        view! {
                            <li class="relative">
                                <img
                                    src=shot.url
                                    alt=photo
                                    class="h-16 w-16 rounded-md border border-slate-300 object-cover dark:border-slate-600"
                                />
                                <button
                                    type="button"
                                    class="absolute -top-2 -right-2 flex h-7 w-7 items-center justify-center rounded-full bg-slate-800 text-sm text-white focus-visible:outline-2 focus-visible:outline-emerald-600 dark:bg-slate-200 dark:text-slate-900"
                                    aria-label=remove
                                    on:click=move |_| {
                                        photos.update(|p| {
                                            if index < p.len() {
                                                p.remove(index);
                                            }
                                        })
                                    }
                                >
                                    "✕"
                                </button>
                            </li>
                        }
                    })
                    .collect_view()
            }}
        </ul>
    }
}

/// Files picked, taken or dropped: each that is an image is shrunk ([`shrink`]) and joins
/// `photos` with the time it was taken ([`taken_at`]); one the browser cannot read as an image
/// says so (`unreadable`).
#[cfg(feature = "hydrate")]
pub fn add_files(
    files: &web_sys::FileList,
    photos: RwSignal<Vec<OutgoingPhoto>>,
    unreadable: RwSignal<bool>,
) {
    unreadable.set(false);
    for file in (0..files.length()).filter_map(|i| files.get(i)) {
        leptos::task::spawn_local(async move {
            let taken_at = taken_at(&file).await;
            match shrink(&file).await {
                Some(url) => photos.update(|p| p.push(OutgoingPhoto { url, taken_at })),
                None => unreadable.set(true),
            }
        });
    }
}

/// When the photo was taken, as local time `2026-11-27T10:32:05`: the camera's EXIF
/// DateTimeOriginal when the file has one (read from its first 128 KB: the EXIF comes first),
/// else when the file was last changed (a photo just taken: now).
#[cfg(feature = "hydrate")]
async fn taken_at(file: &web_sys::File) -> Option<String> {
    let head = async {
        let blob = file.slice_with_i32_and_i32(0, 128 * 1024).ok()?;
        let buffer = wasm_bindgen_futures::JsFuture::from(blob.array_buffer())
            .await
            .ok()?;
        crate::ui::exif_time::taken_at(&js_sys::Uint8Array::new(&buffer).to_vec())
    };
    if let Some(taken) = head.await {
        return Some(taken);
    }
    let changed = js_sys::Date::new(&file.last_modified().into());
    let sent = format!(
        "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}",
        changed.get_full_year(),
        changed.get_month() + 1,
        changed.get_date(),
        changed.get_hours(),
        changed.get_minutes(),
        changed.get_seconds()
    );
    crate::protocol::taken_at_stored(&sent).map(|_| sent)
}

/// The photo drawn on a canvas at most [`MAX_SIDE`] on its longest side (turned as its EXIF
/// says: the browser decodes it so), as a JPEG `data:` URL; `None` for a file the browser
/// cannot read as an image. Decoded with `createImageBitmap`, so no `blob:` URL is needed (the
/// page's CSP allows images from the site and `data:` only).
#[cfg(feature = "hydrate")]
async fn shrink(file: &web_sys::File) -> Option<String> {
    use wasm_bindgen::JsCast;
    let decoding = window().create_image_bitmap_with_blob(file).ok()?;
    let image: web_sys::ImageBitmap = wasm_bindgen_futures::JsFuture::from(decoding)
        .await
        .ok()?
        .dyn_into()
        .ok()?;
    let (width, height) = (image.width(), image.height());
    let scale = (f64::from(MAX_SIDE) / f64::from(width.max(height).max(1))).min(1.0);
    let (w, h) = (
        (f64::from(width) * scale).round().max(1.0),
        (f64::from(height) * scale).round().max(1.0),
    );
    let canvas: web_sys::HtmlCanvasElement =
        document().create_element("canvas").ok()?.dyn_into().ok()?;
    canvas.set_width(w as u32);
    canvas.set_height(h as u32);
    let context: web_sys::CanvasRenderingContext2d =
        canvas.get_context("2d").ok()??.dyn_into().ok()?;
    context
        .draw_image_with_image_bitmap_and_dw_and_dh(&image, 0.0, 0.0, w, h)
        .ok()?;
    image.close();
    canvas
        .to_data_url_with_type_and_encoder_options("image/jpeg", &JPEG_QUALITY.into())
        .ok()
}
