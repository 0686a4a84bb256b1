use leptos::prelude::*;

use super::{
    connection_badge::ConnectionBadge, language_switch::LanguageSwitch,
    listen_switch::ListenSwitch, speaker_switch::SpeakerSwitch, theme_switch::ThemeSwitch,
    user_badge::UserBadge,
};
use crate::ui::css::focus;
use crate::ui::i18n::Key;
use crate::ui::prefs::Prefs;

/// 44 px to touch, as every control of the header (a gloved finger on a tablet). The display is
/// each control's own: `inline-flex` beside `hidden` in one class list is decided by the
/// stylesheet's order, not by the list (at 390 px both thread toggles showed).
macro_rules! toggle {
    () => {
        "min-h-11 min-w-11 items-center justify-center rounded-md border border-slate-300 px-2 py-1 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-emerald-600 dark:border-slate-600"
    };
}

/// Product name, user, connection, language, theme, and the toggles of the side panels.
#[component]
pub fn Header() -> impl IntoView {
    let prefs = expect_context::<Prefs>();
    view! {
        <header class="flex flex-wrap items-center gap-x-3 gap-y-2 border-b border-slate-200 bg-white px-3 py-2 dark:border-slate-800 dark:bg-slate-900">
            <button
                type="button"
                class=concat!(toggle!(), " inline-flex md:hidden")
                aria-controls="threads"
                aria-expanded=move || prefs.sidebar.get().to_string()
                aria-label=prefs.text(Key::ShowThreads)
                on:click=move |_| prefs.sidebar.update(|open| *open = !*open)
            >
                <span aria-hidden="true">"☰"</span>
            </button>
            // From `md` up the list sits beside the chat; folding it gives a tablet the width.
            <button
                type="button"
                class=concat!(toggle!(), " hidden md:inline-flex")
                aria-controls="threads"
                aria-expanded=move || (!prefs.threads_folded.get()).to_string()
                aria-label=Signal::derive(move || {
                    prefs.t(if prefs.threads_folded.get() { Key::ShowThreads } else { Key::HideThreads })
                })
                on:click=move |_| prefs.threads_folded.update(|folded| *folded = !*folded)
            >
                <span aria-hidden="true">"☰"</span>
            </button>
            <div class="flex items-center gap-2">
                <span class="rounded bg-emerald-800 px-2 py-0.5 text-sm font-bold text-white">"NVWA"</span>
                <h1 class="text-lg font-semibold">"AGORA HAI"</h1>
            </div>
            <div class="ml-auto flex flex-wrap items-center justify-end gap-2">
                <UserBadge />
                // Away from the settings button, and it asks first: signing out also deletes
                // what waits for a connection. A plain form in a <details>, so it works without
                // the wasm and ends the server session.
                <details class="relative">
                    <summary class=concat!(toggle!(), " inline-flex cursor-pointer list-none text-sm [&::-webkit-details-marker]:hidden ", focus!())>
                        // An arrow on narrow screens, the word from `sm` up; the name is the word.
                        <span aria-hidden="true" class="sm:hidden">"↪"</span>
                        <span class="sr-only sm:not-sr-only">{prefs.text(Key::SignOut)}</span>
                    </summary>
                    <form
                        method="post"
                        action="/logout"
                        class="absolute left-0 z-30 mt-1 w-64 rounded-lg sm:right-0 sm:left-auto border border-slate-300 bg-white p-3 text-sm shadow-lg dark:border-slate-600 dark:bg-slate-900"
                    >
                        <p>{prefs.text(Key::SignOutAsk)}</p>
                        <button type="submit" class=concat!(toggle!(), " inline-flex mt-2 border-red-700 px-3 font-medium text-red-800 dark:border-red-400 dark:text-red-200 ", focus!())>
                            {prefs.text(Key::SignOutConfirm)}
                        </button>
                    </form>
                </details>
                <ConnectionBadge />
                <ListenSwitch />
                <SpeakerSwitch />
                <LanguageSwitch />
                <ThemeSwitch />
                <button
                    type="button"
                    class=concat!(toggle!(), " inline-flex text-sm aria-pressed:bg-emerald-800 aria-pressed:text-white")
                    aria-pressed=move || prefs.hood.get().to_string()
                    aria-controls=move || prefs.hood.get().then_some("hood")
                    on:click=move |_| prefs.hood.update(|open| *open = !*open)
                >
                    <span aria-hidden="true">"⚙"</span>
                    <span class="sr-only lg:not-sr-only lg:ml-1">{prefs.text(Key::HoodTitle)}</span>
                </button>
            </div>
        </header>
    }
}
