use leptos::prelude::*;

use crate::ui::css::focus;
use crate::ui::i18n::Key;
use crate::ui::prefs::Prefs;

/// "Sluiten": closes a card or a panel.
#[component]
pub fn CloseButton(on_click: impl Fn() + 'static) -> impl IntoView {
    let prefs = expect_context::<Prefs>();
    view! {
        <button
            type="button"
            class=concat!("rounded px-2 py-1 text-xs hover:bg-slate-100 dark:hover:bg-slate-800 ", focus!())
            on:click=move |_| on_click()
        >
            {prefs.text(Key::Close)}
        </button>
    }
}
