//! The inspector's own message, as plain text; marked while it waits for the connection.

use web_sys::Element;

use crate::ui::dom::{child, child_text, el, t, text};
use crate::ui::i18n::Key;

pub fn render(message: &str, queued: bool) -> Element {
    let article = el(
        "article",
        "ml-auto max-w-[85%] rounded-2xl rounded-br-sm bg-emerald-800 px-4 py-2 text-white shadow-sm",
    );
    child_text(&article, "h3", "sr-only", t(Key::You));
    child_text(&article, "p", "break-words whitespace-pre-wrap", message);
    if queued {
        let note = child(&article, "p", "mt-1 text-xs text-emerald-50");
        text(&note, "◔ ");
        text(&note, t(Key::Queued));
    }
    article
}
