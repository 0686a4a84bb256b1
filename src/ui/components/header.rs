use leptos::prelude::*;

use super::connection_badge::ConnectionBadge;
use super::language_switch::LanguageSwitch;
use super::theme_switch::ThemeSwitch;
use super::user_badge::UserBadge;
use crate::ui::connection::Connection;
use crate::ui::i18n::{Key, nl};
use crate::ui::prefs::Prefs;

/// Product name, user, connection, language, theme, and the toggles of the side panels.
/// Texts carry `data-t` keys; a language switch rewrites them in place.
#[component]
pub fn Header() -> impl IntoView {
    let prefs = expect_context::<Prefs>();
    let connection = expect_context::<Connection>();
    view! {
        <header class="flex flex-wrap items-center gap-x-3 gap-y-2 border-b border-slate-200 bg-white px-3 py-2 dark:border-slate-800 dark:bg-slate-900">
            <button
                type="button"
                class="rounded-md border border-slate-300 px-2 py-1 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-emerald-600 md:hidden dark:border-slate-600"
                aria-controls="threads"
                aria-expanded=move || prefs.sidebar.get().to_string()
                aria-label=nl(Key::ShowThreads)
                data-t-label="ShowThreads"
                on:click=move |_| prefs.sidebar.update(|open| *open = !*open)
            >
                <span aria-hidden="true">"☰"</span>
            </button>
            <div class="flex items-center gap-2">
                <span class="rounded bg-emerald-800 px-2 py-0.5 text-sm font-bold text-white">"NVWA"</span>
                <h1 class="text-lg font-semibold">"AGORA HAI"</h1>
            </div>
            <div class="ml-auto flex flex-wrap items-center justify-end gap-2">
                <UserBadge />
                <ConnectionBadge
                    status=connection.status.into()
                    on_retry=Callback::new(move |()| connection.retry())
                />
                <LanguageSwitch />
                <ThemeSwitch />
                <button
                    type="button"
                    class="rounded-md border border-slate-300 px-2 py-1 text-sm focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-emerald-600 aria-pressed:bg-emerald-800 aria-pressed:text-white dark:border-slate-600"
                    aria-controls=move || prefs.hood.get().then_some("hood")
                    aria-pressed=move || prefs.hood.get().to_string()
                    on:click=move |_| prefs.hood.update(|open| *open = !*open)
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
