/// Light, dark or the system's choice.
#[cfg(not(feature = "hydrate"))]
#[leptos::component]
pub fn ThemeSwitch() -> impl leptos::IntoView {
    use leptos::prelude::*;

    use crate::ui::i18n::{Key, nl};
    view! {
        <label class="sr-only" for="theme-select" data-t="Theme">
            {nl(Key::Theme)}
        </label>
        <select
            id="theme-select"
            class="rounded-md border border-slate-300 bg-white px-1 py-1 text-xs focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-emerald-600 dark:border-slate-600 dark:bg-slate-900"
        >
            <option value="system" data-t="ThemeSystem" selected>{nl(Key::ThemeSystem)}</option>
            <option value="light" data-t="ThemeLight">{nl(Key::ThemeLight)}</option>
            <option value="dark" data-t="ThemeDark">{nl(Key::ThemeDark)}</option>
        </select>
    }
}

#[cfg(feature = "hydrate")]
pub fn bind() {
    use leptos::prelude::*;
    use wasm_bindgen::JsCast;

    use crate::ui::dom::{by_id, effect, listen};
    use crate::ui::prefs::{Prefs, Theme};

    let prefs = expect_context::<Prefs>();
    let select: web_sys::HtmlSelectElement = by_id("theme-select").unchecked_into();
    listen(&select, "change", {
        let select = select.clone();
        move |_| prefs.theme.set(Theme::parse(&select.value()))
    });
    effect(move || select.set_value(prefs.theme.get().code()));
}
