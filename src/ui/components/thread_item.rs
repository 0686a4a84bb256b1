//! One thread in the list: open it, rename it in place, or delete it after a confirmation.
//! One row at a time is being renamed or deleted ([`ThreadList::editing`]); where the focus
//! goes after a change is [`ThreadList::focus`], taken by the row it names once it is drawn.

use leptos::either::EitherOf3;
use leptos::html::{Button, Input};
use leptos::prelude::*;

use crate::ui::api::SessionMetadata;
use crate::ui::api::Sessions;
use crate::ui::chat::Chat;
use crate::ui::connection::Connection;
use crate::ui::css::{FOCUS, focus, muted};
use crate::ui::i18n::{Key, Lang};
use crate::ui::prefs::Prefs;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Show,
    Rename,
    ConfirmDelete,
}

/// The element of a row that should have the focus.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Focus {
    Open,
    Rename,
    Delete,
    Input,
    Confirm,
}

/// What the rows share, from the sidebar.
#[derive(Clone, Copy)]
pub struct ThreadList {
    /// The row being renamed or deleted, by thread id.
    pub editing: RwSignal<Option<(String, Mode)>>,
    /// Where the focus goes next: a thread id and which of its elements.
    pub focus: RwSignal<Option<(String, Focus)>>,
    /// Unix milliseconds, moved on every 30 s for the relative times.
    pub now: RwSignal<f64>,
}

impl ThreadList {
    pub fn provide() -> ThreadList {
        let list = ThreadList {
            editing: RwSignal::new(None),
            focus: RwSignal::new(None),
            now: RwSignal::new(0.0),
        };
        provide_context(list);
        list
    }

    /// Back to showing `id`, the focus on `to`.
    fn done(&self, id: &str, to: Focus) {
        self.focus.set(Some((id.to_owned(), to)));
        self.editing.set(None);
    }
}

const SMALL: &str = "rounded px-2 py-1 text-xs";

#[component]
pub fn ThreadItem(session: SessionMetadata) -> impl IntoView {
    let list = expect_context::<ThreadList>();
    let prefs = expect_context::<Prefs>();
    let chat = expect_context::<Chat>();
    let sessions = expect_context::<Sessions>();
    let connection = expect_context::<Connection>();
    let id = StoredValue::new(session.session_id.clone());
    let label = session.label().map(str::to_owned);
    let title = StoredValue::new(label);
    let title_text = move || {
        title
            .with_value(|t| t.clone())
            .unwrap_or_else(|| prefs.t(Key::Untitled).to_owned())
    };
    let stored_title = Some(session.title.clone()).filter(|t| !t.trim().is_empty());
    let last_activity = StoredValue::new(session.last_activity.clone());
    let mode = move || {
        list.editing.with(|editing| match editing {
            Some((editing, mode)) if id.with_value(|id| id == editing) => *mode,
            _ => Mode::Show,
        })
    };
    let current = move || {
        chat.thread_id
            .with(|thread| id.with_value(|id| id == thread))
    };

    let (open, rename, delete, confirm) = (
        NodeRef::<Button>::new(),
        NodeRef::<Button>::new(),
        NodeRef::<Button>::new(),
        NodeRef::<Button>::new(),
    );
    let input = NodeRef::<Input>::new();
    // Takes the focus when this row is named, once the element is there.
    Effect::new(move || {
        let Some((target, what)) = list.focus.get() else {
            return;
        };
        if !id.with_value(|id| *id == target) {
            return;
        }
        let element: Option<leptos::web_sys::HtmlElement> = match what {
            Focus::Open => open.get().map(Into::into),
            Focus::Rename => rename.get().map(Into::into),
            Focus::Delete => delete.get().map(Into::into),
            Focus::Confirm => confirm.get().map(Into::into),
            Focus::Input => input.get().map(Into::into),
        };
        // A node ref keeps its element after the branch that drew it is gone: wait for the
        // one on screen (setting the new element re-runs this effect).
        if let Some(element) = element.filter(|e| e.is_connected()) {
            let _ = element.focus();
            list.focus.set(None);
        }
    });
    let start = move |to: Mode, focus: Focus| {
        list.focus.set(Some((id.get_value(), focus)));
        list.editing.set(Some((id.get_value(), to)));
    };
    let cancel = move || {
        let back = if mode() == Mode::ConfirmDelete {
            Focus::Delete
        } else {
            Focus::Rename
        };
        list.done(&id.get_value(), back);
    };
    let save = move || {
        let value = input.get().map(|i| i.value()).unwrap_or_default();
        let value = value.trim();
        if !value.is_empty() {
            sessions.rename(id.get_value(), value.to_owned());
        }
        list.done(&id.get_value(), Focus::Rename);
    };
    let confirm_delete = move || {
        let gone = id.get_value();
        let was_current = chat.thread_id.with_untracked(|t| *t == gone);
        // The focus goes to the first thread that stays.
        let next = sessions.list.with_untracked(|all| {
            all.iter()
                .find(|s| s.session_id != gone)
                .map(|s| s.session_id.clone())
        });
        list.editing.set(None);
        sessions.delete(gone);
        if was_current {
            connection.new_thread();
        }
        list.focus.set(next.map(|next| (next, Focus::Open)));
    };

    let show = move || {
        let row_class = if current() {
            "flex items-center gap-1 rounded-lg bg-emerald-50 dark:bg-emerald-950"
        } else {
            "flex items-center gap-1 rounded-lg hover:bg-slate-100 dark:hover:bg-slate-800"
        };
        let icon_button = concat!(
            "rounded-md px-2 py-1 text-slate-700 hover:bg-slate-200 dark:text-slate-300 dark:hover:bg-slate-700 ",
            focus!()
        );
        view! {
            <div class=row_class>
                <button
                    type="button"
                    node_ref=open
                    data-action="open"
                    aria-current=move || current().then_some("true")
                    class=concat!("min-w-0 flex-1 rounded-lg px-2 py-2 text-left ", focus!())
                    on:click=move |_| {
                        connection.open_thread(id.get_value());
                        prefs.sidebar.set(false);
                    }
                >
                    <span class="block truncate text-sm font-medium">{title_text}</span>
                    <span class=concat!("block text-xs ", muted!())>
                        <time datetime=last_activity.get_value()>
                            {move || when(&last_activity.get_value(), list.now.get(), prefs.lang.get())}
                        </time>
                    </span>
                </button>
                <button
                    type="button"
                    node_ref=rename
                    class=icon_button
                    aria-label=move || format!("{}: {}", prefs.t(Key::Rename), title_text())
                    title=prefs.text(Key::Rename)
                    on:click=move |_| start(Mode::Rename, Focus::Input)
                >
                    "✎"
                </button>
                <button
                    type="button"
                    node_ref=delete
                    class=icon_button
                    aria-label=move || format!("{}: {}", prefs.t(Key::Delete), title_text())
                    title=prefs.text(Key::Delete)
                    on:click=move |_| start(Mode::ConfirmDelete, Focus::Confirm)
                >
                    "✕"
                </button>
            </div>
        }
    };
    let renaming = move || {
        let value = stored_title.clone().unwrap_or_else(title_text);
        view! {
            <form
                class="flex flex-col gap-1 rounded-lg bg-slate-100 p-2 dark:bg-slate-800"
                on:submit=move |ev| {
                    ev.prevent_default();
                    save();
                }
            >
                <label class="text-xs font-medium" for="rename-thread">
                    {prefs.text(Key::RenameThread)}
                </label>
                <input
                    id="rename-thread"
                    node_ref=input
                    maxlength="200"
                    value=value
                    class="rounded border border-slate-300 bg-white px-2 py-1 text-sm dark:border-slate-600 dark:bg-slate-900"
                />
                <div class="flex justify-end gap-1">
                    <button
                        type="button"
                        class=format!("{SMALL} hover:bg-slate-200 dark:hover:bg-slate-700 {FOCUS}")
                        on:click=move |_| cancel()
                    >
                        {prefs.text(Key::Cancel)}
                    </button>
                    <button type="submit" class=format!("{SMALL} bg-emerald-800 text-white {FOCUS}")>
                        {prefs.text(Key::Save)}
                    </button>
                </div>
            </form>
        }
    };
    let deleting = move || {
        view! {
            <div
                role="group"
                aria-label=prefs.text(Key::Delete)
                class="rounded-lg border border-red-300 bg-red-50 p-2 text-sm dark:border-red-800 dark:bg-red-950"
            >
                <p class="mb-2">
                    <span class="font-medium">{title_text}</span>
                    " — "
                    {prefs.text(Key::ConfirmDelete)}
                </p>
                <div class="flex justify-end gap-1">
                    <button
                        type="button"
                        class=format!("{SMALL} hover:bg-red-100 dark:hover:bg-red-900 {FOCUS}")
                        on:click=move |_| cancel()
                    >
                        {prefs.text(Key::Cancel)}
                    </button>
                    <button
                        type="button"
                        node_ref=confirm
                        class=format!("{SMALL} bg-red-700 font-medium text-white {FOCUS}")
                        on:click=move |_| confirm_delete()
                    >
                        {prefs.text(Key::ConfirmDeleteYes)}
                    </button>
                </div>
            </div>
        }
    };
    view! {
        <li
            class="my-0.5"
            on:keydown=move |ev| {
                if ev.key() == "Escape" && mode() != Mode::Show {
                    ev.prevent_default();
                    cancel();
                }
            }
        >
            // `EitherOf3`, not `.into_any()`: see `conversation_item`.
            {move || match mode() {
                Mode::Show => EitherOf3::A(show()),
                Mode::Rename => EitherOf3::B(renaming()),
                Mode::ConfirmDelete => EitherOf3::C(deleting()),
            }}
        </li>
    }
}

/// "3 min geleden" for an RFC 3339 time; empty when unreadable (and on the server, which
/// renders no threads).
fn when(rfc3339: &str, now_ms: f64, lang: Lang) -> String {
    #[cfg(feature = "hydrate")]
    {
        let then = js_sys::Date::parse(rfc3339);
        if !then.is_nan() {
            return crate::ui::i18n::relative_time(lang, then, now_ms);
        }
    }
    let _ = (rfc3339, now_ms, lang);
    String::new()
}
