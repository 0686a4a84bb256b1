//! The streaming body of an agent's answer: where its deltas go while it streams (see
//! `components::assistant_message` for how it reads). The one imperative part of the screen:
//! [`Chat`](super::chat::Chat) keeps a [`Stream`] per streaming message and the component
//! attaches and detaches it; it lives here, beside `markdown` and `dom`, so that the signal
//! layer depends on a renderer helper and not on a component.

use web_sys::Element;

use crate::ui::components::markdown_view;
use crate::ui::dom::{attr, child, el, text};
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
    /// The blocks shown as Markdown so far, in order: at the end, what the whole text's
    /// blocks must begin with for the shown ones to stay.
    shown: Vec<markdown::Block>,
}

impl Stream {
    /// Streams into `body` (empty): a first paragraph with the caret.
    pub fn new(body: Element) -> Stream {
        let caret = el(
            "span",
            "ml-0.5 animate-pulse text-emerald-700 dark:text-emerald-400",
        );
        text(&caret, "▍");
        attr(&caret, "aria-hidden", "true");
        Stream {
            text: new_paragraph(&body, &caret),
            body,
            caret,
            cutter: markdown::BlockCutter::default(),
            pending: String::new(),
            pending_nodes: Vec::new(),
            shown: Vec::new(),
        }
    }

    /// Ends the stream with the whole message's `blocks`. When they begin with the blocks
    /// already shown, only the rest replaces the plain-text paragraphs (no caret left) and
    /// `true` is returned; otherwise nothing is touched and the caller renders it all.
    pub fn finish(self, blocks: &[markdown::Block]) -> bool {
        let Some(rest) = blocks.strip_prefix(self.shown.as_slice()) else {
            return false;
        };
        let tail = el("div", "contents");
        markdown_view::render(&tail, rest);
        for node in &self.pending_nodes {
            node.remove();
        }
        if let Some(paragraph) = self.text.parent_element() {
            paragraph.remove();
        }
        let _ = self.body.append_child(&tail);
        true
    }

    /// Appends a delta in O(delta), plus one parse of each block that it completes.
    pub fn push(&mut self, delta: &str) {
        let Stream {
            body,
            text: growing,
            caret,
            cutter,
            pending,
            pending_nodes,
            shown: shown_blocks,
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
                    let blocks = markdown::parse(pending);
                    markdown_view::render(&shown, &blocks);
                    shown_blocks.extend(blocks);
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
