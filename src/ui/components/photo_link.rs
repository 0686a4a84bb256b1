use leptos::prelude::*;

use crate::ui::i18n::Key;
use crate::ui::prefs::Prefs;

/// One evidence photo as a thumbnail in a list, opening at full size in a new tab (issue 37):
/// the inspector's message and the report card show the same link, each at its own size.
#[component]
pub fn PhotoLink(url: String, class: &'static str) -> impl IntoView {
    let prefs = expect_context::<Prefs>();
    let full = url.clone();
    view! {
        <li>
            <a href=full target="_blank" rel="noopener">
                <img src=url alt=prefs.text(Key::Photo) loading="lazy" class=class />
            </a>
        </li>
    }
}
