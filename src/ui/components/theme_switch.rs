use leptos::prelude::*;

use crate::ui::i18n::Key;
use crate::ui::prefs::{Prefs, Theme};

/// Light, dark or the system's choice.
#[component]
pub fn ThemeSwitch() -> impl IntoView {
    let prefs = expect_context::<Prefs>();
    let option = move |theme: Theme| {
        view! {
            <option value=theme.as_str() selected=move || prefs.theme.get() == theme>
                {move || prefs.t(theme.label())}
            </option>
        }
    };
    view! {
        <label class="sr-only" for="theme-select">{prefs.text(Key::Theme)}</label>
        <select
            id="theme-select"
            class="min-h-11 rounded-md border border-slate-300 bg-white px-1 py-1 text-xs focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-emerald-600 dark:border-slate-600 dark:bg-slate-900"
            prop:value=move || prefs.theme.get().as_str()
            on:change=move |ev| prefs.theme.set(Theme::parse(&event_target_value(&ev)).unwrap_or_default())
        >
            {option(Theme::System)}
            {option(Theme::Light)}
            {option(Theme::Dark)}
        </select>
    }
}
