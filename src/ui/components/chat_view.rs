/// The conversation. The server sends it empty; in the browser `ui::timeline` renders the
/// items into the log and updates exactly the ones that change (a delta: one text node).
/// Clicks on chips and card buttons are handled here, by delegation.
#[cfg(not(feature = "hydrate"))]
#[leptos::component]
pub fn ChatView() -> impl leptos::IntoView {
    use leptos::prelude::*;

    use crate::ui::i18n::{Key, nl};
    view! {
        <section aria-labelledby="chat-title" class="flex min-h-0 flex-1 flex-col">
            <h2 id="chat-title" class="sr-only" data-t="Conversation">
                {nl(Key::Conversation)}
            </h2>
            <div
                id="chat-scroll"
                tabindex="0"
                aria-labelledby="chat-title"
                class="min-h-0 flex-1 overflow-y-auto px-3 py-4 focus-visible:outline-2 focus-visible:outline-offset-[-2px] focus-visible:outline-emerald-600 sm:px-6"
            >
                <div id="chat-empty" class=EMPTY_HINT>
                    <p class="font-medium" data-t="EmptyTitle">{nl(Key::EmptyTitle)}</p>
                    <p class="mt-1 text-sm" data-t="EmptyHint">{nl(Key::EmptyHint)}</p>
                </div>
                <div
                    id="chat-log"
                    role="log"
                    aria-live="polite"
                    aria-labelledby="chat-title"
                    class="mx-auto flex max-w-3xl flex-col gap-4"
                ></div>
            </div>
        </section>
    }
}

const EMPTY_HINT: &str = "mx-auto mb-4 max-w-3xl rounded-lg border border-dashed border-slate-300 p-6 text-center text-slate-700 dark:border-slate-700 dark:text-slate-300";

#[cfg(feature = "hydrate")]
pub fn bind() {
    use leptos::prelude::*;

    use crate::ui::api::Directory;
    use crate::ui::chat::Chat;
    use crate::ui::dom::{self, by_id, effect};
    use crate::ui::prefs::Prefs;
    use crate::ui::scroll;
    use crate::ui::timeline::Timeline;

    let chat = expect_context::<Chat>();
    let directory = expect_context::<Directory>();
    let prefs = expect_context::<Prefs>();
    let root = by_id("chat-log");
    chat.attach(Timeline::new(root.clone()));
    dom::listen(&root, "click", move |ev| {
        let Some((action, element)) = dom::action(&ev) else {
            return;
        };
        if action != "tool" {
            return;
        }
        let Some(call) = dom::data_usize(&element, "data-call") else {
            return;
        };
        // The card's own close button goes away with the card: focus its chip.
        let from_card = element.get_attribute("aria-expanded").is_none();
        chat.with_timeline(|timeline, state| {
            timeline.toggle(call, state);
            if from_card && let Some(chip) = timeline.chip(call) {
                dom::focus(&chip);
            }
        });
    });
    dom::listen(&by_id(scroll::CHAT_SCROLL_ID), "scroll", |_| {
        scroll::scrolled()
    });
    // Agent names arrive from /agents; the language can change: draw again.
    effect(move || {
        prefs.lang.track();
        let agents = directory.agents.get();
        chat.with_timeline(|timeline, _| timeline.set_agents(agents));
        chat.redraw();
    });
    let hint = by_id("chat-empty");
    effect(move || {
        hint.set_class_name(if chat.empty.get() {
            EMPTY_HINT
        } else {
            "hidden"
        })
    });
}
