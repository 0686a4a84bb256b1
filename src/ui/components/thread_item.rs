//! One thread in the list: open it, rename it in place, or delete it after a confirmation.
//! Buttons carry `data-action` and `data-id`; the sidebar handles them by delegation.

use web_sys::Element;

use crate::ui::api::Session;
use crate::ui::dom::{attr, button, child, child_text, css, el, t, text};
use crate::ui::i18n::{Key, relative_time};

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Mode {
    Show,
    Rename,
    ConfirmDelete,
}

const SMALL: &str = "rounded px-2 py-1 text-xs";

pub fn render(session: &Session, current: bool, mode: &Mode, now_ms: f64) -> Element {
    let id = &session.session_id;
    let title = session
        .label()
        .map(str::to_owned)
        .unwrap_or_else(|| t(Key::Untitled).to_owned());
    let item = el("li", "my-0.5");
    attr(&item, "data-id", id);
    match mode {
        Mode::Show => {
            let row = child(
                &item,
                "div",
                if current {
                    "flex items-center gap-1 rounded-lg bg-emerald-50 dark:bg-emerald-950"
                } else {
                    "flex items-center gap-1 rounded-lg hover:bg-slate-100 dark:hover:bg-slate-800"
                },
            );
            let open = child(
                &row,
                "button",
                &format!(
                    "min-w-0 flex-1 rounded-lg px-2 py-2 text-left {}",
                    css::FOCUS
                ),
            );
            attr(&open, "type", "button");
            attr(&open, "data-action", "open");
            if current {
                attr(&open, "aria-current", "true");
            }
            child_text(&open, "span", "block truncate text-sm font-medium", &title);
            let when = child(&open, "span", &format!("block text-xs {}", css::MUTED));
            let time = child(&when, "time", "");
            attr(&time, "datetime", &session.last_activity);
            text(&time, &when_text(&session.last_activity, now_ms));
            for (action, key, icon) in [("rename", Key::Rename, "✎"), ("delete", Key::Delete, "✕")]
            {
                let b = button(
                    &row,
                    &format!(
                        "rounded-md px-2 py-1 text-slate-700 hover:bg-slate-200 dark:text-slate-300 dark:hover:bg-slate-700 {}",
                        css::FOCUS
                    ),
                    icon,
                );
                attr(&b, "data-action", action);
                attr(&b, "aria-label", &format!("{}: {title}", t(key)));
                attr(&b, "title", t(key));
            }
        }
        Mode::Rename => {
            let form = child(
                &item,
                "form",
                "flex flex-col gap-1 rounded-lg bg-slate-100 p-2 dark:bg-slate-800",
            );
            attr(&form, "data-action", "save");
            let label = child_text(&form, "label", "text-xs font-medium", t(Key::RenameThread));
            attr(&label, "for", "rename-thread");
            let input = child(
                &form,
                "input",
                "rounded border border-slate-300 bg-white px-2 py-1 text-sm dark:border-slate-600 dark:bg-slate-900",
            );
            attr(&input, "id", "rename-thread");
            attr(&input, "maxlength", "200");
            attr(&input, "value", session.title.as_deref().unwrap_or(&title));
            let buttons = child(&form, "div", "flex justify-end gap-1");
            let cancel = button(
                &buttons,
                &format!(
                    "{SMALL} hover:bg-slate-200 dark:hover:bg-slate-700 {}",
                    css::FOCUS
                ),
                t(Key::Cancel),
            );
            attr(&cancel, "data-action", "cancel");
            let save = child_text(
                &buttons,
                "button",
                &format!("{SMALL} bg-emerald-800 text-white {}", css::FOCUS),
                t(Key::Save),
            );
            attr(&save, "type", "submit");
        }
        Mode::ConfirmDelete => {
            let group = child(
                &item,
                "div",
                "rounded-lg border border-red-300 bg-red-50 p-2 text-sm dark:border-red-800 dark:bg-red-950",
            );
            attr(&group, "role", "group");
            attr(&group, "aria-label", t(Key::Delete));
            let question = child(&group, "p", "mb-2");
            child_text(&question, "span", "font-medium", &title);
            text(&question, " — ");
            text(&question, t(Key::ConfirmDelete));
            let buttons = child(&group, "div", "flex justify-end gap-1");
            let cancel = button(
                &buttons,
                &format!(
                    "{SMALL} hover:bg-red-100 dark:hover:bg-red-900 {}",
                    css::FOCUS
                ),
                t(Key::Cancel),
            );
            attr(&cancel, "data-action", "cancel");
            let confirm = button(
                &buttons,
                &format!("{SMALL} bg-red-700 font-medium text-white {}", css::FOCUS),
                t(Key::ConfirmDeleteYes),
            );
            attr(&confirm, "data-action", "confirm-delete");
        }
    }
    item
}

/// "3 min geleden" for an RFC 3339 time; empty when unreadable.
pub fn when_text(rfc3339: &str, now_ms: f64) -> String {
    let then = crate::ui::browser::parse_time(rfc3339);
    if then.is_nan() {
        String::new()
    } else {
        relative_time(crate::ui::dom::lang(), then, now_ms)
    }
}
