//! An agent's answer with the agent's name. While it streams the text is plain and each
//! delta is one more text node in `stream` (O(1) per delta, however long the answer), with
//! a caret; once it has ended it is rendered once as Markdown.

use web_sys::Element;

use super::markdown_view;
use crate::ui::dom::{attr, child, child_text, el, text};
use crate::ui::markdown;

/// While streaming: the paragraph the text goes into, its text element and the caret.
pub struct Stream {
    pub body: Element,
    pub text: Element,
    pub caret: Element,
}

/// The article, and while streaming where deltas go.
pub fn render(agent_name: &str, message: &str, streaming: bool) -> (Element, Option<Stream>) {
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
        let body = child(&article, "div", "flex flex-col gap-2 break-words");
        let caret = el(
            "span",
            "ml-0.5 animate-pulse text-emerald-700 dark:text-emerald-400",
        );
        text(&caret, "▍");
        attr(&caret, "aria-hidden", "true");
        let stream = Stream {
            text: new_paragraph(&body, &caret),
            body,
            caret,
        };
        if !message.is_empty() {
            text(&stream.text, message);
        }
        (article, Some(stream))
    } else {
        let body = child(&article, "div", "flex flex-col gap-2 break-words");
        markdown_view::render(&body, &markdown::parse(message));
        (article, None)
    }
}

/// A new paragraph for streamed text, with the caret moved to its end; returns its text
/// element. Finished paragraphs are not laid out again while the answer grows.
pub fn new_paragraph(body: &Element, caret: &Element) -> Element {
    let paragraph = child(body, "p", "whitespace-pre-wrap");
    let text = child(&paragraph, "span", "");
    let _ = paragraph.append_child(caret);
    text
}
