use leptos::prelude::*;

use crate::ui::chat::Chat;
use crate::ui::connection::Connection;
use crate::ui::i18n::Key;
use crate::ui::prefs::Prefs;

/// Enter sends, Shift+Enter makes a new line. While a run is active sending waits and a Stop
/// button cancels the run. What is typed and not sent is kept per user and thread over a
/// reload (`offline`).
#[component]
pub fn Composer() -> impl IntoView {
    let chat = expect_context::<Chat>();
    let prefs = expect_context::<Prefs>();
    let connection = expect_context::<Connection>();
    let text = RwSignal::new(String::new());
    let running = move || chat.run.with(|run| run.running);
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
    let submit = move || {
        let message = text.get_untracked();
        if !message.trim().is_empty() && !chat.run.with_untracked(|run| run.running) {
            connection.send_text(message);
            #[cfg(feature = "hydrate")]
            crate::ui::scroll::to_bottom();
            text.set(String::new());
            keep_draft("");
        }
    };
    view! {
        <form
            class="mx-auto flex w-full max-w-3xl items-end gap-2 border-t border-slate-200 p-3 dark:border-slate-800"
            on:submit=move |ev| {
                ev.prevent_default();
                submit();
            }
        >
            <label for="composer" class="sr-only">{prefs.text(Key::Message)}</label>
            <textarea
                id="composer"
                rows="2"
                placeholder=prefs.text(Key::Placeholder)
                class="min-h-12 flex-1 resize-none rounded-lg border border-slate-300 bg-white p-2 placeholder:text-slate-600 focus:outline-2 focus:outline-emerald-700 dark:border-slate-600 dark:bg-slate-900 dark:placeholder:text-slate-400"
                prop:value=move || text.get()
                on:input=move |ev| {
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
                disabled=move || text.with(|t| t.trim().is_empty()) || running()
            >
                {prefs.text(Key::Send)}
            </button>
        </form>
    }
}
