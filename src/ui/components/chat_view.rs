use leptos::prelude::*;

use super::conversation_item::ConversationItem;
use super::quick_answers::QuickAnswers;
use crate::ui::chat::Chat;
use crate::ui::i18n::Key;
use crate::ui::prefs::Prefs;

const EMPTY_HINT: &str = "mx-auto mb-4 max-w-3xl rounded-lg border border-dashed border-slate-300 p-6 text-center text-slate-700 dark:border-slate-700 dark:text-slate-300";

/// The conversation: a keyed list of items, each its own component, so an item that changes
/// re-renders alone and a streamed delta re-renders nothing (see `assistant_message`).
///
/// The log is `aria-live="off"`: a screen reader would otherwise read every streamed token.
/// A finished answer is announced once, through the polite region below it.
#[component]
pub fn ChatView() -> impl IntoView {
    let chat = expect_context::<Chat>();
    let prefs = expect_context::<Prefs>();
    let scroller = NodeRef::<leptos::html::Div>::new();
    #[cfg(feature = "hydrate")]
    Effect::new(move || {
        if let Some(element) = scroller.get() {
            crate::ui::scroll::attach(element.into());
        }
    });
    view! {
        <section aria-labelledby="chat-title" class="flex min-h-0 flex-1 flex-col">
            <h2 id="chat-title" class="sr-only">{prefs.text(Key::Conversation)}</h2>
            <div
                node_ref=scroller
                tabindex="0"
                aria-labelledby="chat-title"
                class="min-h-0 flex-1 overflow-y-auto px-3 py-4 focus-visible:outline-2 focus-visible:outline-offset-[-2px] focus-visible:outline-emerald-600 sm:px-6"
                on:scroll=move |_| {
                    #[cfg(feature = "hydrate")]
                    crate::ui::scroll::scrolled();
                }
            >
                <div class=move || if chat.items.with(Vec::is_empty) { EMPTY_HINT } else { "hidden" }>
                    <p class="font-medium">{prefs.text(Key::EmptyTitle)}</p>
                    <p class="mt-1 text-sm">{prefs.text(Key::EmptyHint)}</p>
                </div>
                <div
                    role="log"
                    aria-live="off"
                    aria-labelledby="chat-title"
                    class="mx-auto flex max-w-3xl flex-col gap-4"
                >
                    <For
                        each=move || chat.items.get()
                        key=|item| item.key
                        children=|item| view! { <ConversationItem item /> }
                    />
                </div>
                <QuickAnswers />
                <p class="sr-only" aria-live="polite">
                    {move || chat.announcement.get()}
                </p>
            </div>
        </section>
    }
}
