use leptos::prelude::*;

use crate::ui::api::Directory;
use crate::ui::i18n::{Key, nl};

/// The signed-in user: initials, and the name from `sm` up.
#[component]
pub fn UserBadge() -> impl IntoView {
    let directory = expect_context::<Directory>();
    let name = move || directory.user.get().unwrap_or_default();
    let initials = move || {
        directory.user.with(|name| {
            name.as_deref()
                .unwrap_or("")
                .split_whitespace()
                .filter_map(|w| w.chars().next())
                .take(2)
                .collect::<String>()
        })
    };
    view! {
        <span class=move || {
            if directory.user.with(Option::is_some) {
                "flex items-center gap-2 text-sm text-slate-700 dark:text-slate-200"
            } else {
                "hidden"
            }
        }>
            <span
                aria-hidden="true"
                class="flex size-7 items-center justify-center rounded-full bg-slate-200 text-xs font-semibold dark:bg-slate-700"
            >
                {initials}
            </span>
            <span class="sr-only sm:not-sr-only">
                <span class="sr-only" data-t="CurrentUser">{nl(Key::CurrentUser)}</span>
                " "
                {name}
            </span>
        </span>
    }
}
