#[cfg(not(feature = "hydrate"))]
use leptos::prelude::*;

#[cfg(not(feature = "hydrate"))]
use super::{
    connection_badge::ConnectionBadge, language_switch::LanguageSwitch, theme_switch::ThemeSwitch,
    user_badge::UserBadge,
};
#[cfg(not(feature = "hydrate"))]
use crate::ui::i18n::{Key, nl};

/// Product name, user, connection, language, theme, and the toggles of the side panels.
/// Texts carry `data-t` keys; a language switch rewrites them in place.
#[cfg(not(feature = "hydrate"))]
#[component]
pub fn Header() -> impl IntoView {
    view! {
        <header class="flex flex-wrap items-center gap-x-3 gap-y-2 border-b border-slate-200 bg-white px-3 py-2 dark:border-slate-800 dark:bg-slate-900">
            <button
                id="threads-toggle"
                type="button"
                class="rounded-md border border-slate-300 px-2 py-1 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-emerald-600 md:hidden dark:border-slate-600"
                aria-controls="threads"
                aria-expanded="false"
                aria-label=nl(Key::ShowThreads)
                data-t-label="ShowThreads"
            >
                <span aria-hidden="true">"☰"</span>
            </button>
            <div class="flex items-center gap-2">
                <span class="rounded bg-emerald-800 px-2 py-0.5 text-sm font-bold text-white">"NVWA"</span>
                <h1 class="text-lg font-semibold">"AGORA HAI"</h1>
            </div>
            <div class="ml-auto flex flex-wrap items-center justify-end gap-2">
                <UserBadge />
                <ConnectionBadge />
                <LanguageSwitch />
                <ThemeSwitch />
                <button
                    id="hood-toggle"
                    type="button"
                    class="rounded-md border border-slate-300 px-2 py-1 text-sm focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-emerald-600 aria-pressed:bg-emerald-800 aria-pressed:text-white dark:border-slate-600"
                    aria-pressed="false"
                >
                    <span aria-hidden="true">"⚙"</span>
                    <span class="sr-only lg:not-sr-only lg:ml-1" data-t="HoodTitle">
                        {nl(Key::HoodTitle)}
                    </span>
                </button>
                // A plain form: signing out works without the wasm and ends the server session.
                <form method="post" action="/logout">
                    <button
                        type="submit"
                        class="rounded-md border border-slate-300 px-2 py-1 text-sm focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-emerald-600 dark:border-slate-600"
                    >
                        // An arrow on narrow screens, the word from `sm` up; the name is the word.
                        <span aria-hidden="true" class="sm:hidden">"↪"</span>
                        <span class="sr-only sm:not-sr-only" data-t="SignOut">
                            {nl(Key::SignOut)}
                        </span>
                    </button>
                </form>
            </div>
        </header>
    }
}

/// The two panel toggles, then the header's parts.
#[cfg(feature = "hydrate")]
pub fn bind() {
    use leptos::prelude::*;

    use crate::ui::dom::{attr, bool_text, by_id, effect, listen};
    use crate::ui::prefs::Prefs;

    let prefs = expect_context::<Prefs>();
    let threads = by_id("threads-toggle");
    let hood = by_id("hood-toggle");
    listen(&threads, "click", move |_| {
        prefs.sidebar.update(|open| *open = !*open)
    });
    listen(&hood, "click", move |_| {
        prefs.hood.update(|open| *open = !*open)
    });
    effect(move || {
        attr(&threads, "aria-expanded", bool_text(prefs.sidebar.get()));
        let open = prefs.hood.get();
        attr(&hood, "aria-pressed", bool_text(open));
        if open {
            attr(&hood, "aria-controls", "hood");
        } else {
            let _ = hood.remove_attribute("aria-controls");
        }
    });
    super::user_badge::bind();
    super::connection_badge::bind();
    super::language_switch::bind();
    super::theme_switch::bind();
}
