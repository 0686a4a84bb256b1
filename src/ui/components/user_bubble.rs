use leptos::prelude::*;

use super::photo_link::PhotoLink;
use crate::ui::i18n::Key;
use crate::ui::prefs::Prefs;

/// The inspector's own message, as plain text, with its photos (issue 37); marked while it
/// waits for the connection. A photo opens at full size in a new tab.
#[component]
pub fn UserBubble(text: String, queued: ArcRwSignal<bool>, photos: Vec<String>) -> impl IntoView {
    let prefs = expect_context::<Prefs>();
    let has_text = !text.trim().is_empty();
    let no_photos = photos.is_empty();
    view! {
        <article class="ml-auto max-w-[85%] rounded-2xl rounded-br-sm bg-emerald-800 px-4 py-2 text-white shadow-sm">
            <h3 class="sr-only">{prefs.text(Key::You)}</h3>
            <p class="break-words whitespace-pre-wrap" class:hidden=!has_text>{text}</p>
            <ul class="mt-1 flex flex-wrap gap-2" class:hidden=no_photos>
                {photos
                    .into_iter()
                    .map(|url| {
                        view! { <PhotoLink url class="h-32 w-32 rounded-lg object-cover sm:h-40 sm:w-40" /> }
                    })
                    .collect_view()}
            </ul>
            <Show when=move || queued.get()>
                <p class="mt-1 text-xs text-emerald-50">"◔ " {prefs.text(Key::Queued)}</p>
            </Show>
        </article>
    }
}
