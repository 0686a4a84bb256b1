//! An agent's answer with the agent's name. While it streams, each delta is one more text
//! node in the paragraph that grows (O(1) per delta, however long the answer), with a caret;
//! each block is shown as Markdown as soon as it has ended (`markdown::BlockCutter`), parsed
//! once. When the message has ended, the whole text is parsed once more: where its blocks
//! begin with the ones already shown, only the rest is rendered; otherwise (a loose list, whose
//! items the blank lines had cut apart) the whole message is rendered again, so it reads as one.
//!
//! The body is the one imperative part of the screen, on purpose: a reactive text would
//! re-render (and re-parse) the whole answer per delta. The component owns its body element;
//! [`Chat`] hands deltas to its [`Stream`] while it is mounted.

use leptos::prelude::*;

use crate::ui::api::Directory;
use crate::ui::i18n::Key;
use crate::ui::prefs::Prefs;

#[component]
pub fn AssistantMessage(
    key: u64,
    agent: Option<String>,
    finished: ArcRwSignal<Option<String>>,
) -> impl IntoView {
    let prefs = expect_context::<Prefs>();
    let directory = expect_context::<Directory>();
    let body = NodeRef::<leptos::html::Div>::new();
    let name = move || match &agent {
        Some(id) => directory.agent_name(id),
        None => prefs.t(Key::Assistant).to_owned(),
    };
    let streaming = {
        let finished = finished.clone();
        move || finished.with(Option::is_none).then_some("true")
    };
    #[cfg(feature = "hydrate")]
    {
        let chat = expect_context::<crate::ui::chat::Chat>();
        Effect::new(move || {
            let Some(body) = body.get() else { return };
            let body: web_sys::Element = body.into();
            match finished.get() {
                Some(text) => {
                    let blocks = crate::ui::markdown::parse(&text);
                    let kept = chat
                        .detach_stream(key)
                        .is_some_and(|stream| stream.finish(&blocks));
                    if !kept {
                        crate::ui::dom::clear(&body);
                        super::markdown_view::render(&body, &blocks);
                    }
                }
                None => {
                    crate::ui::dom::clear(&body);
                    chat.attach_stream(key, Stream::new(body));
                }
            }
        });
        on_cleanup(move || {
            chat.detach_stream(key);
        });
    }
    #[cfg(not(feature = "hydrate"))]
    let _ = (key, finished);
    view! {
        <article
            aria-busy=streaming
            class="max-w-full rounded-2xl rounded-bl-sm border border-slate-200 bg-white px-4 py-3 shadow-sm dark:border-slate-700 dark:bg-slate-900"
        >
            <h3 class="mb-1 text-sm font-semibold text-emerald-800 dark:text-emerald-300">{name}</h3>
            <div node_ref=body class="flex flex-col gap-2 break-words"></div>
        </article>
    }
}

#[cfg(feature = "hydrate")]
pub use stream::Stream;

#[cfg(feature = "hydrate")]
mod stream {
    use web_sys::Element;

    use super::super::markdown_view;
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
}
