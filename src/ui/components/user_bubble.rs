use leptos::prelude::*;

use crate::ui::i18n::Key;
use crate::ui::prefs::Prefs;

/// The inspector's own message, as plain text; marked while it waits for the connection.
#[component]
pub fn UserBubble(text: String, queued: ArcRwSignal<bool>) -> impl IntoView {
    let prefs = expect_context::<Prefs>();
    view! {
        <article class="ml-auto max-w-[85%] rounded-2xl rounded-br-sm bg-emerald-800 px-4 py-2 text-white shadow-sm">
            <h3 class="sr-only">{prefs.text(Key::You)}</h3>
            <p class="break-words whitespace-pre-wrap">{text}</p>
            <Show when=move || queued.get()>
                <p class="mt-1 text-xs text-emerald-50">"◔ " {prefs.text(Key::Queued)}</p>
            </Show>
        </article>
    }
}
