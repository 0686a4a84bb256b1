/// The signed-in user: initials, and the name from `sm` up. Hidden until `/users/me` answers.
#[cfg(not(feature = "hydrate"))]
#[leptos::component]
pub fn UserBadge() -> impl leptos::IntoView {
    use leptos::prelude::*;

    use crate::ui::i18n::{Key, nl};
    view! {
        <span id="user-badge" class="hidden">
            <span
                id="user-initials"
                aria-hidden="true"
                class="flex size-7 items-center justify-center rounded-full bg-slate-200 text-xs font-semibold dark:bg-slate-700"
            ></span>
            <span class="sr-only sm:not-sr-only">
                <span class="sr-only" data-t="CurrentUser">{nl(Key::CurrentUser)}</span>
                " "
                <span id="user-name"></span>
            </span>
        </span>
    }
}

#[cfg(feature = "hydrate")]
pub fn bind() {
    use leptos::prelude::*;

    use crate::ui::api::Directory;
    use crate::ui::dom::{by_id, effect};

    let directory = expect_context::<Directory>();
    let (badge, initials, name) = (
        by_id("user-badge"),
        by_id("user-initials"),
        by_id("user-name"),
    );
    effect(move || {
        directory.user.with(|user| {
            let user = user.as_deref().unwrap_or("");
            badge.set_class_name(if user.is_empty() {
                "hidden"
            } else {
                "flex items-center gap-2 text-sm text-slate-700 dark:text-slate-200"
            });
            let letters: String = user
                .split_whitespace()
                .filter_map(|w| w.chars().next())
                .take(2)
                .collect();
            initials.set_text_content(Some(&letters));
            name.set_text_content(Some(user));
        })
    });
}
