//! An agent's answer with the agent's name. While it streams, each delta is one more text
//! node in the paragraph that grows (O(1) per delta, however long the answer), with a caret;
//! each block is shown as Markdown as soon as it has ended (`markdown::BlockCutter`), parsed
//! once. When the message has ended it is rendered once more as a whole, so blocks that span
//! blank lines (loose lists) read as one.

use web_sys::Element;

use super::markdown_view;
use crate::ui::dom::{attr, child, child_text, el, text};
use crate::ui::markdown;

/// Where deltas go while the message streams.
pub struct Stream {
    body: Element,
    /// The growing paragraph's text element.
    text: Element,
    caret: Element,
    /// Where the blocks end (a pure state machine, tested natively).
    cutter: markdown::BlockCutter,
    /// Finished paragraphs still shown as plain text: their block has not ended yet (a code
    /// fence still open, or a paragraph that was only cut for its length).
    pending: String,
    pending_nodes: Vec<Element>,
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
    let body = child(&article, "div", "flex flex-col gap-2 break-words");
    if !streaming {
        markdown_view::render(&body, &markdown::parse(message));
        return (article, None);
    }
    attr(&article, "aria-busy", "true");
    let caret = el(
        "span",
        "ml-0.5 animate-pulse text-emerald-700 dark:text-emerald-400",
    );
    text(&caret, "▍");
    attr(&caret, "aria-hidden", "true");
    let mut stream = Stream {
        text: new_paragraph(&body, &caret),
        body,
        caret,
        cutter: markdown::BlockCutter::default(),
        pending: String::new(),
        pending_nodes: Vec::new(),
    };
    stream.push(message);
    (article, Some(stream))
}

impl Stream {
    /// Appends a delta in O(delta), plus one parse of each block that it completes.
    pub fn push(&mut self, delta: &str) {
        let Stream {
            body,
            text: growing,
            caret,
            cutter,
            pending,
            pending_nodes,
        } = self;
        cutter.push(delta, |cut| match cut {
            markdown::Cut::Text(s) => text(growing, s),
            markdown::Cut::Done { text, block } => {
                pending.push_str(&text);
                if let Some(paragraph) = growing.parent_element() {
                    pending_nodes.push(paragraph);
                }
                *growing = new_paragraph(body, caret);
                if block {
                    let shown = el("div", "contents");
                    markdown_view::render(&shown, &markdown::parse(pending));
                    if let Some(first) = pending_nodes.first() {
                        let _ = body.insert_before(&shown, Some(first));
                    }
                    for node in pending_nodes.drain(..) {
                        node.remove();
                    }
                    pending.clear();
                }
            }
        });
    }
}

/// A new paragraph for streamed text, with the caret moved to its end; returns its text
/// element. Finished paragraphs are not laid out again while the answer grows.
fn new_paragraph(body: &Element, caret: &Element) -> Element {
    let paragraph = child(body, "p", "whitespace-pre-wrap");
    let text = child(&paragraph, "span", "");
    let _ = paragraph.append_child(caret);
    text
}
