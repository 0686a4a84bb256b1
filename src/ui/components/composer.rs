use leptos::prelude::*;

use crate::ui::i18n::{Key, nl};

/// Enter sends, Shift+Enter makes a new line. While a run is active sending waits and a Stop
/// button cancels the run.
#[component]
pub fn Composer(
    draft: RwSignal<String>,
    running: Signal<bool>,
    on_send: Callback<String>,
    on_stop: Callback<()>,
) -> impl IntoView {
    let empty = move || draft.with(|text| text.trim().is_empty());
    let submit = move || {
        let text = draft.get_untracked();
        if !text.trim().is_empty() && !running.get_untracked() {
            on_send.run(text);
            draft.set(String::new());
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
            <label for="composer" class="sr-only" data-t="Message">
                {nl(Key::Message)}
            </label>
            <textarea
                id="composer"
                rows="2"
                placeholder=nl(Key::Placeholder)
                data-t-placeholder="Placeholder"
                class="min-h-12 flex-1 resize-none rounded-lg border border-slate-300 bg-white p-2 placeholder:text-slate-600 focus:outline-2 focus:outline-emerald-700 dark:border-slate-600 dark:bg-slate-900 dark:placeholder:text-slate-400"
                prop:value=move || draft.get()
                on:input=move |ev| draft.set(event_target_value(&ev))
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
                    if running.get() {
                        "rounded-lg border border-red-700 px-4 py-2 font-medium text-red-800 hover:bg-red-50 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-red-700 dark:border-red-400 dark:text-red-200 dark:hover:bg-red-950"
                    } else {
                        "hidden"
                    }
                }
                on:click=move |_| on_stop.run(())
                data-t="Stop"
            >
                {nl(Key::Stop)}
            </button>
            <button
                type="submit"
                class="rounded-lg bg-emerald-800 px-4 py-2 font-medium text-white hover:bg-emerald-900 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-emerald-600 disabled:cursor-not-allowed disabled:bg-slate-500"
                disabled=move || empty() || running.get()
                data-t="Send"
            >
                {nl(Key::Send)}
            </button>
        </form>
    }
}
