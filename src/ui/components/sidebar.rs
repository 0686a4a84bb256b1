use leptos::prelude::*;

use super::thread_item::{ThreadItem, ThreadList};
use crate::ui::api::Sessions;
use crate::ui::chat::Chat;
use crate::ui::connection::Connection;
use crate::ui::css::focus;
use crate::ui::i18n::Key;
use crate::ui::prefs::Prefs;

/// "Nieuwe inspectie" and the threads by last activity, from `GET /sessions`: open one,
/// rename it in place, delete it after a confirmation (`thread_item`).
#[component]
pub fn Sidebar() -> impl IntoView {
    let prefs = expect_context::<Prefs>();
    let sessions = expect_context::<Sessions>();
    let connection = expect_context::<Connection>();
    let chat = expect_context::<Chat>();
    let list = ThreadList::provide();
    #[cfg(feature = "hydrate")]
    {
        // A run that starts creates its thread; one that ends moves it to the top.
        let was_running = StoredValue::new(None::<bool>);
        Effect::new(move || {
            let running = chat.run.with(|run| run.running);
            if was_running.get_value() != Some(running) {
                sessions.refresh();
            }
            was_running.set_value(Some(running));
        });
        // Relative times move on by themselves.
        list.now.set(js_sys::Date::now());
        set_interval(
            move || list.now.set(js_sys::Date::now()),
            std::time::Duration::from_secs(30),
        );
    }
    #[cfg(not(feature = "hydrate"))]
    let _ = (chat, list);
    view! {
        <nav
            id="threads"
            aria-labelledby="threads-title"
            class=move || frame_class(prefs.sidebar.get(), prefs.threads_folded.get())
        >
            <div class="p-3">
                <button
                    type="button"
                    class=concat!("w-full rounded-lg bg-emerald-800 px-3 py-2 font-medium text-white hover:bg-emerald-900 ", focus!())
                    on:click=move |_| {
                        connection.new_thread();
                        prefs.sidebar.set(false);
                    }
                >
                    <span aria-hidden="true">"+ "</span>
                    {prefs.text(Key::NewInspection)}
                </button>
            </div>
            <h2
                id="threads-title"
                class="px-4 pb-1 text-xs font-semibold tracking-wide text-slate-600 uppercase dark:text-slate-300"
            >
                {prefs.text(Key::Threads)}
            </h2>
            <p class=move || {
                if sessions.loaded.get() && sessions.list.with(Vec::is_empty) {
                    "px-4 pb-2 text-sm text-slate-600 dark:text-slate-300"
                } else {
                    "hidden"
                }
            }>{prefs.text(Key::NoThreads)}</p>
            <ul class="min-h-0 flex-1 overflow-y-auto px-2 pb-3">
                // Keyed by what a row shows, so a renamed or moved thread is drawn anew.
                <For
                    each=move || sessions.list.get()
                    key=|s| {
                        (
                            s.session_id.clone(),
                            s.title.clone(),
                            s.first_message_preview.clone(),
                            s.last_activity.clone(),
                        )
                    }
                    children=|session| view! { <ThreadItem session /> }
                />
            </ul>
        </nav>
    }
}

/// Over the chat on a narrow screen when opened; beside it from `md` up unless folded.
fn frame_class(open: bool, folded: bool) -> &'static str {
    match (open, folded) {
        (true, false) => {
            "absolute inset-0 z-20 flex w-full flex-col border-r border-slate-200 bg-white md:static md:w-72 md:shrink-0 dark:border-slate-800 dark:bg-slate-900"
        }
        (true, true) => {
            "absolute inset-0 z-20 flex w-full flex-col border-r border-slate-200 bg-white md:hidden dark:border-slate-800 dark:bg-slate-900"
        }
        (false, false) => {
            "hidden w-72 shrink-0 flex-col border-r border-slate-200 bg-white md:flex dark:border-slate-800 dark:bg-slate-900"
        }
        (false, true) => "hidden",
    }
}
