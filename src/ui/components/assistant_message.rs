//! An agent's answer with the agent's name. While it streams, each delta is one more text
//! node in the paragraph that grows (O(1) per delta, however long the answer), with a caret;
//! each block is shown as Markdown as soon as it has ended (`markdown::BlockCutter`), parsed
//! once. When the message has ended, the whole text is parsed once more: where its blocks
//! begin with the ones already shown, only the rest is rendered; otherwise (a loose list, whose
//! items the blank lines had cut apart) the whole message is rendered again, so it reads as one.
//!
//! The body is the one imperative part of the screen, on purpose: a reactive text would
//! re-render (and re-parse) the whole answer per delta. The component owns its body element;
//! [`Chat`] hands deltas to its [`Stream`](crate::ui::stream::Stream) while it is mounted.

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
        Some(id) => directory.agent_name(id, prefs.lang.get()),
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
                    chat.attach_stream(key, crate::ui::stream::Stream::new(body));
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
