/// Enter sends, Shift+Enter makes a new line. While a run is active sending waits and a Stop
/// button cancels the run.
#[cfg(not(feature = "hydrate"))]
#[leptos::component]
pub fn Composer() -> impl leptos::IntoView {
    use leptos::prelude::*;

    use crate::ui::i18n::{Key, nl};
    view! {
        <form
            id="composer-form"
            class="mx-auto flex w-full max-w-3xl items-end gap-2 border-t border-slate-200 p-3 dark:border-slate-800"
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
            ></textarea>
            <button id="composer-stop" type="button" class=stop_class(false) data-t="Stop">
                {nl(Key::Stop)}
            </button>
            <button
                id="composer-send"
                type="submit"
                class="rounded-lg bg-emerald-800 px-4 py-2 font-medium text-white hover:bg-emerald-900 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-emerald-600 disabled:cursor-not-allowed disabled:bg-slate-500"
                disabled
                data-t="Send"
            >
                {nl(Key::Send)}
            </button>
        </form>
    }
}

fn stop_class(running: bool) -> &'static str {
    if running {
        "rounded-lg border border-red-700 px-4 py-2 font-medium text-red-800 hover:bg-red-50 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-red-700 dark:border-red-400 dark:text-red-200 dark:hover:bg-red-950"
    } else {
        "hidden"
    }
}

#[cfg(feature = "hydrate")]
pub fn bind() {
    use leptos::prelude::*;
    use wasm_bindgen::JsCast;

    use crate::ui::chat::Chat;
    use crate::ui::connection::Connection;
    use crate::ui::dom::{by_id, effect, flag, listen};

    let chat = expect_context::<Chat>();
    let connection = expect_context::<Connection>();
    let form = by_id("composer-form");
    let input: web_sys::HtmlTextAreaElement = by_id("composer").unchecked_into();
    let stop = by_id("composer-stop");
    let send = by_id("composer-send");
    let running = move || chat.run.with_untracked(|run| run.running);
    // Sending waits while a run is active or nothing is typed.
    let refresh = {
        let (input, send) = (input.clone(), send.clone());
        move || {
            flag(
                &send,
                "disabled",
                input.value().trim().is_empty() || running(),
            )
        }
    };
    let submit = {
        let (input, refresh) = (input.clone(), refresh.clone());
        move || {
            let text = input.value();
            if !text.trim().is_empty() && !running() {
                connection.send_text(text);
                crate::ui::scroll::to_bottom();
                input.set_value("");
                refresh();
            }
        }
    };
    listen(&form, "submit", {
        let submit = submit.clone();
        move |ev| {
            ev.prevent_default();
            submit();
        }
    });
    listen(&input, "keydown", move |ev| {
        if let Some(key) = ev.dyn_ref::<web_sys::KeyboardEvent>()
            && key.key() == "Enter"
            && !key.shift_key()
            && !key.is_composing()
        {
            ev.prevent_default();
            submit();
        }
    });
    listen(&input, "input", {
        let refresh = refresh.clone();
        move |_| refresh()
    });
    listen(&stop, "click", move |_| connection.stop());
    effect(move || {
        let active = chat.run.with(|run| run.running);
        stop.set_class_name(stop_class(active));
        refresh();
    });
}
