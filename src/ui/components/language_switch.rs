use leptos::prelude::*;

use crate::ui::i18n::{Key, Lang};
use crate::ui::prefs::Prefs;

const CLASS: &str = "min-h-11 min-w-11 px-2 py-1 text-xs font-semibold focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-emerald-600 aria-pressed:bg-emerald-800 aria-pressed:text-white";

/// NL / EN, as two toggle buttons.
#[component]
pub fn LanguageSwitch() -> impl IntoView {
    let prefs = expect_context::<Prefs>();
    let choice = move |lang: Lang, title: &'static str, label: &'static str| {
        view! {
            <button
                type="button"
                lang=lang.code()
                title=title
                class=CLASS
                aria-pressed=move || (prefs.lang.get() == lang).to_string()
                on:click=move |_| prefs.lang.set(lang)
            >
                {label}
            </button>
        }
    };
    view! {
        <div
            role="group"
            aria-label=prefs.text(Key::Language)
            class="flex overflow-hidden rounded-md border border-slate-300 dark:border-slate-600"
        >
            {choice(Lang::Nl, "Nederlands", "NL")}
            {choice(Lang::En, "English", "EN")}
        </div>
    }
}
