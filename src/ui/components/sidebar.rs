use leptos::prelude::*;

#[cfg(not(feature = "hydrate"))]
use crate::ui::i18n::{Key, nl};

/// "Nieuwe inspectie" and the threads by last activity. The server sends the frame; the list
/// is drawn in the browser from `GET /sessions` (`thread_item`), its buttons handled here by
/// delegation: open, rename (in place), delete (after a confirmation).
#[cfg(not(feature = "hydrate"))]
#[component]
pub fn Sidebar() -> impl IntoView {
    view! {
        <nav id="threads" aria-labelledby="threads-title" class=frame_class(false)>
            <div class="p-3">
                <button
                    id="new-thread"
                    type="button"
                    class="w-full rounded-lg bg-emerald-800 px-3 py-2 font-medium text-white hover:bg-emerald-900 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-emerald-600"
                >
                    <span aria-hidden="true">"+ "</span>
                    <span data-t="NewInspection">{nl(Key::NewInspection)}</span>
                </button>
            </div>
            <h2
                id="threads-title"
                class="px-4 pb-1 text-xs font-semibold tracking-wide text-slate-600 uppercase dark:text-slate-300"
                data-t="Threads"
            >
                {nl(Key::Threads)}
            </h2>
            <ul id="thread-list" class="min-h-0 flex-1 overflow-y-auto px-2 pb-3"></ul>
            <p id="no-threads" class="hidden" data-t="NoThreads">
                {nl(Key::NoThreads)}
            </p>
        </nav>
    }
}

/// Over the chat on a narrow screen when opened; always beside it from `md` up.
fn frame_class(open: bool) -> &'static str {
    if open {
        "absolute inset-0 z-20 flex w-full flex-col border-r border-slate-200 bg-white md:static md:w-72 md:shrink-0 dark:border-slate-800 dark:bg-slate-900"
    } else {
        "hidden w-72 shrink-0 flex-col border-r border-slate-200 bg-white md:flex dark:border-slate-800 dark:bg-slate-900"
    }
}

#[cfg(feature = "hydrate")]
pub fn bind() {
    use wasm_bindgen::JsCast;

    use super::thread_item::{self, Mode};
    use crate::ui::api::Sessions;
    use crate::ui::browser::now_ms;
    use crate::ui::chat::Chat;
    use crate::ui::connection::Connection;
    use crate::ui::dom;
    use crate::ui::prefs::Prefs;

    let prefs = expect_context::<Prefs>();
    let sessions = expect_context::<Sessions>();
    let chat = expect_context::<Chat>();
    let connection = expect_context::<Connection>();
    let list = dom::by_id("thread-list");

    // Which thread is being renamed or deleted, and where the focus goes after a redraw.
    let mode = RwSignal::new(None::<(String, Mode)>);
    let focus_after = StoredValue::new(None::<String>);
    // A run that starts creates its thread; one that ends moves it to the top.
    let was_running = StoredValue::new(None::<bool>);
    dom::effect(move || {
        let running = chat.run.with(|run| run.running);
        if was_running.get_value() != Some(running) {
            sessions.refresh();
        }
        was_running.set_value(Some(running));
    });
    let ul = list.clone();
    dom::effect(move || {
        prefs.lang.track();
        let current = chat.thread_id.get();
        let mode = mode.get();
        let now = now_ms();
        dom::clear(&ul);
        sessions.list.with(|all| {
            for session in all {
                let item_mode = match &mode {
                    Some((id, m)) if *id == session.session_id => m.clone(),
                    _ => Mode::Show,
                };
                let item =
                    thread_item::render(session, session.session_id == current, &item_mode, now);
                let _ = ul.append_child(&item);
            }
        });
        if let Some(selector) = focus_after.try_update_value(Option::take).flatten() {
            dom::focus_first(&ul, &selector);
        }
    });
    // Relative times move on by themselves.
    let ul = list.clone();
    set_interval(
        move || {
            let Ok(times) = ul.query_selector_all("time[datetime]") else {
                return;
            };
            let now = now_ms();
            for i in 0..times.length() {
                if let Some(time) = times
                    .item(i)
                    .and_then(|n| n.dyn_into::<web_sys::Element>().ok())
                {
                    let at = time.get_attribute("datetime").unwrap_or_default();
                    time.set_text_content(Some(&thread_item::when_text(&at, now)));
                }
            }
        },
        std::time::Duration::from_secs(30),
    );
    let row_id = |element: &web_sys::Element| {
        element
            .closest("li[data-id]")
            .ok()
            .flatten()
            .and_then(|li| li.get_attribute("data-id"))
    };
    let focus_row = move |id: &str, what: &str| {
        focus_after.set_value(Some(format!(
            "li[data-id=\"{id}\"] [data-action=\"{what}\"]"
        )));
    };
    {
        let ul = list;
        dom::listen(&ul, "click", move |ev| {
            let Some((action, element)) = dom::action(&ev) else {
                return;
            };
            let Some(id) = row_id(&element) else { return };
            match action.as_str() {
                "open" => {
                    connection.open_thread(id);
                    prefs.sidebar.set(false);
                }
                "rename" => {
                    focus_after.set_value(Some("#rename-thread".to_owned()));
                    mode.set(Some((id, Mode::Rename)));
                }
                "delete" => {
                    focus_row(&id, "confirm-delete");
                    mode.set(Some((id, Mode::ConfirmDelete)));
                }
                "cancel" => {
                    let back = match mode.get_untracked() {
                        Some((_, Mode::ConfirmDelete)) => "delete",
                        _ => "rename",
                    };
                    focus_row(&id, back);
                    mode.set(None);
                }
                "confirm-delete" => {
                    let was_current = chat.thread_id.get_untracked() == id;
                    mode.set(None);
                    sessions.delete(id);
                    if was_current {
                        connection.new_thread();
                    }
                    focus_after.set_value(Some("[data-action=\"open\"]".to_owned()));
                }
                _ => {}
            }
        });
        dom::listen(&ul, "submit", move |ev| {
            ev.prevent_default();
            let Some((_, form)) = dom::action(&ev) else {
                return;
            };
            let Some(id) = row_id(&form) else { return };
            let title = form
                .query_selector("input")
                .ok()
                .flatten()
                .and_then(|i| i.dyn_into::<web_sys::HtmlInputElement>().ok())
                .map(|i| i.value().trim().to_owned())
                .unwrap_or_default();
            if !title.is_empty() {
                sessions.rename(id.clone(), title);
            }
            focus_row(&id, "rename");
            mode.set(None);
        });
        dom::listen(&ul, "keydown", move |ev| {
            let escape = ev
                .dyn_ref::<web_sys::KeyboardEvent>()
                .is_some_and(|k| k.key() == "Escape");
            if escape && let Some((id, m)) = mode.get_untracked() {
                ev.prevent_default();
                focus_row(
                    &id,
                    if m == Mode::ConfirmDelete {
                        "delete"
                    } else {
                        "rename"
                    },
                );
                mode.set(None);
            }
        });
    }
    let nav = dom::by_id("threads");
    let hint = dom::by_id("no-threads");
    dom::listen(&dom::by_id("new-thread"), "click", move |_| {
        connection.new_thread();
        prefs.sidebar.set(false);
    });
    dom::effect(move || nav.set_class_name(frame_class(prefs.sidebar.get())));
    dom::effect(move || {
        hint.set_class_name(
            if sessions.loaded.get() && sessions.list.with(Vec::is_empty) {
                "px-4 pb-4 text-sm text-slate-600 dark:text-slate-300"
            } else {
                "hidden"
            },
        )
    });
}
