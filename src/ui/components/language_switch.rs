use leptos::prelude::*;

use crate::ui::i18n::{Key, Lang, nl};
use crate::ui::prefs::Prefs;

/// NL / EN, as two toggle buttons.
#[component]
pub fn LanguageSwitch() -> impl IntoView {
    let prefs = expect_context::<Prefs>();
    const CLASS: &str = "px-2 py-1 text-xs font-semibold focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-emerald-600 aria-pressed:bg-emerald-800 aria-pressed:text-white";
    view! {
        <div
            role="group"
            aria-label=nl(Key::Language)
            data-t-label="Language"
            class="flex overflow-hidden rounded-md border border-slate-300 dark:border-slate-600"
        >
            <button
                type="button"
                lang="nl"
                title="Nederlands"
                class=CLASS
                aria-pressed=move || (prefs.lang.get() == Lang::Nl).to_string()
                on:click=move |_| prefs.lang.set(Lang::Nl)
            >
                "NL"
            </button>
            <button
                type="button"
                lang="en"
                title="English"
                class=CLASS
                aria-pressed=move || (prefs.lang.get() == Lang::En).to_string()
                on:click=move |_| prefs.lang.set(Lang::En)
            >
                "EN"
            </button>
        </div>
    }
}
