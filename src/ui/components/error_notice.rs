//! `RUN_ERROR` and `agora:error`: an error box, never an answer. A moderation refusal says
//! why; a run the inspector stopped is told without alarm.

use web_sys::Element;

use crate::ui::dom::{attr, child, child_text, el, t, text};
use crate::ui::i18n::Key;
use crate::ui::state::ErrorItem;

pub fn render(error: &ErrorItem) -> Element {
    let (title, icon, class) = if error.is_moderation() {
        (
            Key::ModerationTitle,
            "⚠ ",
            "border-amber-400 bg-amber-50 text-amber-950 dark:border-amber-700 dark:bg-amber-950 dark:text-amber-50",
        )
    } else if error.is_cancel() {
        (
            Key::StoppedTitle,
            "■ ",
            "border-slate-300 bg-slate-100 text-slate-800 dark:border-slate-600 dark:bg-slate-800 dark:text-slate-100",
        )
    } else {
        (
            Key::ErrorTitle,
            "⚠ ",
            "border-red-300 bg-red-50 text-red-950 dark:border-red-800 dark:bg-red-950 dark:text-red-50",
        )
    };
    let notice = el(
        "div",
        &format!("rounded-lg border border-l-4 p-3 text-sm {class}"),
    );
    attr(&notice, "role", "alert");
    let heading = child(&notice, "p", "font-semibold");
    attr(
        &child_text(&heading, "span", "", icon),
        "aria-hidden",
        "true",
    );
    text(&heading, t(title));
    if error.is_moderation() {
        child_text(&notice, "p", "mt-1", t(Key::ModerationExplain));
    }
    child_text(&notice, "p", "mt-1", &error.message);
    if let Some(code) = &error.code {
        let line = child(&notice, "p", "mt-1 text-xs");
        text(&line, t(Key::ErrorCode));
        text(&line, ": ");
        child_text(&line, "code", "", code);
        if let Some(details) = &error.details {
            text(&line, " · ");
            text(&line, details);
        }
    }
    notice
}
