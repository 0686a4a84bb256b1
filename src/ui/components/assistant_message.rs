//! An agent's answer with the agent's name. While it streams the text is plain and each
//! delta is one more text node in `stream` (O(1) per delta, however long the answer), with
//! a caret; once it has ended it is rendered once as Markdown.

use web_sys::Element;

use super::markdown_view;
use crate::ui::dom::{attr, child, child_text, el, text};
use crate::ui::markdown;

/// The article, and while streaming the element deltas are appended to.
pub fn render(agent_name: &str, message: &str, streaming: bool) -> (Element, Option<Element>) {
    let article = el(
        "article",
        "max-w-full rounded-2xl rounded-bl-sm border border-slate-200 bg-white px-4 py-3 shadow-sm dark:border-slate-700 dark:bg-slate-900",
    );
    child_text(
        &article,
        "h3",
        "mb-1 text-sm font-semibold text-emerald-800 dark:text-emerald-300",
        agent_name,
    );
    if streaming {
        attr(&article, "aria-busy", "true");
        let body = child(&article, "p", "break-words whitespace-pre-wrap");
        let stream = child(&body, "span", "");
        if !message.is_empty() {
            text(&stream, message);
        }
        let caret = child_text(
            &body,
            "span",
            "ml-0.5 animate-pulse text-emerald-700 dark:text-emerald-400",
            "▍",
        );
        attr(&caret, "aria-hidden", "true");
        (article, Some(stream))
    } else {
        let body = child(&article, "div", "flex flex-col gap-2 break-words");
        markdown_view::render(&body, &markdown::parse(message));
        (article, None)
    }
}
