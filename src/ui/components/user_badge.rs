use leptos::prelude::*;

use crate::ui::api::Directory;
use crate::ui::i18n::Key;
use crate::ui::prefs::Prefs;

/// The signed-in user: initials, and the name from `sm` up. Hidden until `/users/me` answers.
#[component]
pub fn UserBadge() -> impl IntoView {
    let prefs = expect_context::<Prefs>();
    let directory = expect_context::<Directory>();
    let name = move || directory.user.get().unwrap_or_default();
    let initials = move || {
        directory.user.with(|user| {
            user.as_deref()
                .unwrap_or("")
                .split_whitespace()
                .filter_map(|w| w.chars().next())
                .take(2)
                .collect::<String>()
        })
    };
    view! {
        <span class=move || {
            if directory.user.with(|u| u.as_deref().unwrap_or("").is_empty()) {
                "hidden"
            } else {
                "flex items-center gap-2 text-sm text-slate-700 dark:text-slate-200"
            }
        }>
            <span
                aria-hidden="true"
                class="flex size-7 items-center justify-center rounded-full bg-slate-200 text-xs font-semibold dark:bg-slate-700"
            >
                {initials}
            </span>
            <span class="sr-only sm:not-sr-only">
                <span class="sr-only">{prefs.text(Key::CurrentUser)}</span>
                " "
                <span>{name}</span>
            </span>
        </span>
    }
}
