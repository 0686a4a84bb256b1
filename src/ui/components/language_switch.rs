/// NL / EN, as two toggle buttons.
#[cfg(not(feature = "hydrate"))]
#[leptos::component]
pub fn LanguageSwitch() -> impl leptos::IntoView {
    use leptos::prelude::*;

    use crate::ui::i18n::{Key, nl};
    const CLASS: &str = "px-2 py-1 text-xs font-semibold focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-emerald-600 aria-pressed:bg-emerald-800 aria-pressed:text-white";
    view! {
        <div
            id="language-switch"
            role="group"
            aria-label=nl(Key::Language)
            data-t-label="Language"
            class="flex overflow-hidden rounded-md border border-slate-300 dark:border-slate-600"
        >
            <button type="button" lang="nl" title="Nederlands" class=CLASS aria-pressed="true">
                "NL"
            </button>
            <button type="button" lang="en" title="English" class=CLASS aria-pressed="false">
                "EN"
            </button>
        </div>
    }
}

/// Each button carries its language in `lang`.
#[cfg(feature = "hydrate")]
pub fn bind() {
    use leptos::prelude::*;
    use wasm_bindgen::JsCast;

    use crate::ui::dom::{attr, bool_text, by_id, effect, listen};
    use crate::ui::i18n::Lang;
    use crate::ui::prefs::Prefs;

    let prefs = expect_context::<Prefs>();
    let group = by_id("language-switch");
    listen(&group, "click", move |ev| {
        if let Some(button) = ev
            .target()
            .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
            .and_then(|t| t.closest("button").ok().flatten())
        {
            prefs.lang.set(Lang::parse(
                &button.get_attribute("lang").unwrap_or_default(),
            ));
        }
    });
    effect(move || {
        let lang = prefs.lang.get();
        let buttons = group.children();
        for i in 0..buttons.length() {
            if let Some(button) = buttons.item(i) {
                let pressed = button.get_attribute("lang").as_deref() == Some(lang.code());
                attr(&button, "aria-pressed", bool_text(pressed));
            }
        }
    });
}
