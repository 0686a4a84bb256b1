use leptos::prelude::*;

use super::photo_picker::{PhotoButton, PhotoThumbs};
use super::push_to_talk::{Mic, MicButton, MicNotice};
use crate::ui::chat::Chat;
use crate::ui::connection::Connection;
use crate::ui::i18n::Key;
use crate::ui::prefs::Prefs;

/// Enter sends, Shift+Enter makes a new line. While a run is active a message sent waits for
/// its end (shown above the box, `HeldMessages`) and a Stop button cancels the run. What is
/// typed and not sent is kept per user and thread over a reload (`offline`).
///
/// The box is server-rendered and takes input from the first paint: hydration adopts what was
/// typed into it before the wasm arrived instead of writing the (empty) signal over it, and an
/// Enter pressed meanwhile (a trailing new line, since nothing could send yet) sends it whole.
#[component]
pub fn Composer() -> impl IntoView {
    let chat = expect_context::<Chat>();
    let prefs = expect_context::<Prefs>();
    let connection = expect_context::<Connection>();
    let text = RwSignal::new(String::new());
    // Photos taken, picked or dropped for the next message (shrunk, as `data:` URLs, with the
    // time taken), and whether the last file chosen could not be read as one.
    let photos = RwSignal::new(Vec::<crate::ui::offline::OutgoingPhoto>::new());
    let unreadable = RwSignal::new(false);
    let running = move || chat.run.with(|run| run.running);
    // Sent, its run not started yet: a message now would stop it at the server, so it waits.
    let sending = move || chat.run.with(|run| run.sending);
    let textarea = NodeRef::<leptos::html::Textarea>::new();
    // The first value hydration would write: skipped, so what was typed stays.
    let hydrating = StoredValue::new(cfg!(feature = "hydrate"));
    let shown_value = move || {
        let value = text.get();
        (!hydrating.get_value()).then_some(value)
    };
    // The draft of the shown thread, once the user is known. Another thread shows its own
    // draft; the user becoming known (`/users/me` answering) never overwrites what was typed
    // meanwhile.
    #[cfg(feature = "hydrate")]
    Effect::new(move |shown: Option<Option<String>>| {
        let thread = chat.thread_id.get();
        let user = connection.user.get()?;
        let switched = shown.flatten().is_some_and(|shown| shown != thread);
        if switched || text.with_untracked(String::is_empty) {
            text.set(crate::ui::offline::load_draft(&user, &thread));
        }
        Some(thread)
    });
    let keep_draft = move |draft: &str| {
        #[cfg(feature = "hydrate")]
        if let Some(user) = connection.user.get_untracked() {
            crate::ui::offline::save_draft(&user, &chat.thread_id.get_untracked(), draft);
        }
        #[cfg(not(feature = "hydrate"))]
        let _ = draft;
    };
    // Photos go with a message only when no answer runs: a message held for the answer's end
    // is text (the photos wait in the box meanwhile).
    let blocked = move || {
        let attached = !photos.with(Vec::is_empty);
        let empty = text.with(|t| t.trim().is_empty());
        (empty && !attached) || (attached && (running() || sending()))
    };
    // Untracked: `submit` also runs inside the hydration Effect below, which must not come to
    // depend on the text, the photos or the run (it would run again on each change, and send
    // again what the box still holds).
    let submit = move || {
        if untrack(blocked) {
            return;
        }
        connection.submit_with_photos(text.get_untracked(), photos.get_untracked());
        photos.set(Vec::new());
        unreadable.set(false);
        text.set(String::new());
        keep_draft("");
    };
    // What was said into the microphone: in listen mode it is sent as it came (the inspector's
    // hands are busy, and each message is only recorded); otherwise it joins what the box holds,
    // to be checked and sent.
    let mic = Mic::new(Callback::new(move |said: String| {
        if chat.run.with_untracked(|run| run.listening) {
            connection.submit(said);
            return;
        }
        text.update(|text| {
            if !text.trim().is_empty() {
                text.push(' ');
            }
            text.push_str(&said);
        });
        keep_draft(&text.get_untracked());
    }));
    // Right after hydration (effects run once it is done): what the box holds is the text.
    #[cfg(feature = "hydrate")]
    Effect::new(move || {
        hydrating.set_value(false);
        let Some(area) = textarea.get_untracked() else {
            return;
        };
        let typed = area.value();
        if typed.is_empty() {
            // Ready to type at once, unless on a touch screen (the keyboard would cover the
            // page) or the inspector already went elsewhere.
            let idle = document().active_element() == document().body().map(Into::into);
            if !prefs.touch.get_untracked() && idle {
                let _ = area.focus();
            }
            return;
        }
        match typed.strip_suffix('\n') {
            Some(whole) => {
                text.set(whole.to_owned());
                submit();
            }
            None => text.set(typed),
        }
    });
    view! {
        <form
            class="relative mx-auto flex w-full max-w-3xl flex-wrap items-end gap-2 border-t border-slate-200 p-3 dark:border-slate-800"
            on:submit=move |ev| {
                ev.prevent_default();
                submit();
            }
            // Image files dropped on the composer (a desktop) are photos like those picked;
            // the browser would otherwise open the file in place of the page.
            on:dragover=move |ev| ev.prevent_default()
            on:drop=move |ev| {
                ev.prevent_default();
                #[cfg(feature = "hydrate")]
                if let Some(files) = ev.data_transfer().and_then(|d| d.files()) {
                    super::photo_picker::add_files(&files, photos, unreadable);
                }
            }
        >
            <label for="composer" class="sr-only">{prefs.text(Key::Message)}</label>
            <HeldMessages text />
            <PhotoThumbs photos unreadable />
            <MicNotice mic />
            <PhotoButton photos unreadable />
            <MicButton mic />
            <textarea
                id="composer"
                node_ref=textarea
                rows="2"
                placeholder=Signal::derive(move || {
                    prefs.t(if prefs.touch.get() { Key::PlaceholderTouch } else { Key::Placeholder })
                })
                class="min-h-12 min-w-0 flex-1 resize-none rounded-lg border border-slate-300 bg-white p-2 placeholder:text-slate-600 focus:outline-2 focus:outline-emerald-700 dark:border-slate-600 dark:bg-slate-900 dark:placeholder:text-slate-400"
                prop:value=shown_value
                on:input=move |ev| {
                    // The inspector types: the answer being read aloud stops.
                    #[cfg(feature = "hydrate")]
                    crate::ui::speech::silence();
                    let draft = event_target_value(&ev);
                    keep_draft(&draft);
                    text.set(draft);
                }
                on:keydown=move |ev| {
                    if ev.key() == "Enter" && !ev.shift_key() && !ev.is_composing() {
                        ev.prevent_default();
                        submit();
                    }
                }
            ></textarea>
            <button
                type="button"
                class=move || {
                    if running() {
                        "rounded-lg border border-red-700 px-4 py-2 font-medium text-red-800 hover:bg-red-50 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-red-700 dark:border-red-400 dark:text-red-200 dark:hover:bg-red-950"
                    } else {
                        "hidden"
                    }
                }
                on:click=move |_| connection.stop()
            >
                {prefs.text(Key::Stop)}
            </button>
            <button
                type="submit"
                class="rounded-lg bg-emerald-800 px-4 py-2 font-medium text-white hover:bg-emerald-900 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-emerald-600 disabled:cursor-not-allowed disabled:bg-slate-500"
                disabled=blocked
            >
                {Signal::derive(move || prefs.t(if running() || sending() { Key::SendAfter } else { Key::Send }))}
            </button>
        </form>
    }
}

/// The messages sent during the running answer: "wordt verstuurd na dit antwoord", and a
/// button that takes them back into the box to change them. (A class toggle and one text node
/// rather than `<Show>` and a list: each of those is its own code in the bundle.)
#[component]
fn HeldMessages(text: RwSignal<String>) -> impl IntoView {
    let chat = expect_context::<Chat>();
    let prefs = expect_context::<Prefs>();
    view! {
        <div
            role="status"
            class=move || {
                if chat.run.with(|run| run.held.is_empty()) {
                    "hidden"
                } else {
                    "absolute inset-x-3 bottom-full mb-1 rounded-lg border border-amber-300 bg-amber-50 p-2 text-sm text-amber-950 shadow-sm dark:border-amber-700 dark:bg-amber-950 dark:text-amber-50"
                }
            }
        >
            <p class="font-medium">"◔ " {prefs.text(Key::HeldTitle)}</p>
            <p class="my-1 max-h-24 overflow-y-auto break-words whitespace-pre-wrap">
                {move || chat.run.with(|run| run.held.join("\n"))}
            </p>
            <button
                type="button"
                class="min-h-11 rounded-md px-2 underline focus-visible:outline-2 focus-visible:outline-amber-700"
                on:click=move |_| {
                    let mut parts = chat.take_held();
                    let typed = text.get_untracked();
                    if !typed.trim().is_empty() {
                        parts.push(typed);
                    }
                    text.set(parts.join("\n\n"));
                }
            >
                {prefs.text(Key::HeldEdit)}
            </button>
        </div>
    }
}
