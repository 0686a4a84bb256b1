//! An agent's answer with the agent's name. While it streams, each delta is one more text
//! node in the paragraph that grows (O(1) per delta, however long the answer), with a caret;
//! each block is shown as Markdown as soon as it has ended (`markdown::BlockCutter`), parsed
//! once. When the message has ended it is rendered once more as a whole, so blocks that span
//! blank lines (loose lists) read as one.
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
            crate::ui::dom::clear(&body);
            match finished.get() {
                Some(text) => {
                    chat.detach_stream(key);
                    super::markdown_view::render(&body, &crate::ui::markdown::parse(&text));
                }
                None => chat.attach_stream(key, Stream::new(body)),
            }
        });
        on_cleanup(move || chat.detach_stream(key));
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
            }
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
}
