//! An agent's answer with the agent's name. While it streams, each delta is one more text
//! node in the paragraph that grows (O(1) per delta, however long the answer), with a caret;
//! each block that is complete (a blank line outside a code fence) is shown as Markdown at
//! once, parsed once. When the message has ended it is rendered once more as a whole, so
//! blocks that span blank lines (loose lists) read as one.

use web_sys::Element;

use super::markdown_view;
use crate::ui::dom::{attr, child, child_text, el, text};
use crate::ui::markdown;

/// A paragraph longer than this is cut at its next line end, so the browser lays out only the
/// part that grows, not the whole paragraph, on every frame.
const LONG: usize = 1500;

/// Where deltas go while the message streams.
pub struct Stream {
    body: Element,
    /// The growing paragraph's text element, and its text.
    text: Element,
    paragraph: String,
    caret: Element,
    /// Finished paragraphs still shown as plain text: the block they belong to has not
    /// ended (an open code fence, or a paragraph cut only for its length).
    pending: String,
    pending_nodes: Vec<Element>,
    /// Inside a code fence that has not closed yet.
    in_fence: bool,
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
        paragraph: String::new(),
        caret,
        pending: String::new(),
        pending_nodes: Vec::new(),
        in_fence: false,
    };
    stream.push(message);
    (article, Some(stream))
}

impl Stream {
    /// Appends a delta in O(delta), plus one parse of each block that it completes.
    pub fn push(&mut self, delta: &str) {
        let mut rest = delta;
        loop {
            let cut = match rest.find("\n\n") {
                Some(at) => Some((at, true)),
                None if self.paragraph.len() + rest.len() > LONG => {
                    rest.find('\n').map(|at| (at, false))
                }
                None => None,
            };
            let Some((at, block_end)) = cut else { break };
            self.append(&rest[..at]);
            self.finish_paragraph(block_end);
            rest = &rest[at + if block_end { 2 } else { 1 }..];
        }
        self.append(rest);
    }

    fn append(&mut self, s: &str) {
        if !s.is_empty() {
            text(&self.text, s);
            self.paragraph.push_str(s);
        }
    }

    /// The growing paragraph is done: a new one takes the caret, and when a block has ended
    /// the paragraphs since the last one are replaced by their Markdown.
    fn finish_paragraph(&mut self, block_end: bool) {
        for line in self.paragraph.lines() {
            let line = line.trim_start();
            if line.starts_with("```") || line.starts_with("~~~") {
                self.in_fence = !self.in_fence;
            }
        }
        self.pending.push_str(&self.paragraph);
        self.pending.push_str(if block_end { "\n\n" } else { "\n" });
        self.paragraph.clear();
        if let Some(paragraph) = self.text.parent_element() {
            self.pending_nodes.push(paragraph);
        }
        self.text = new_paragraph(&self.body, &self.caret);
        if block_end && !self.in_fence {
            let shown = el("div", "contents");
            markdown_view::render(&shown, &markdown::parse(&self.pending));
            if let Some(first) = self.pending_nodes.first() {
                let _ = self.body.insert_before(&shown, Some(first));
            }
            for node in self.pending_nodes.drain(..) {
                node.remove();
            }
            self.pending.clear();
        }
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
