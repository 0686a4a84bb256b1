use leptos::prelude::*;

use crate::ui::connection::Connection;
use crate::ui::css::focus;
use crate::ui::i18n::{Key, error_text};
use crate::ui::prefs::Prefs;
use crate::ui::state::ErrorItem;

/// `RUN_ERROR` and `agora:error`: an error box, never an answer. A moderation refusal says
/// why; a run the inspector stopped is told without alarm.
#[component]
pub fn ErrorNotice(error: ErrorItem) -> impl IntoView {
    let prefs = expect_context::<Prefs>();
    let (title, icon, class) = if error.is_moderation() {
        (
            Key::ModerationTitle,
            "⚠ ",
            "border-amber-400 bg-amber-50 text-amber-950 dark:border-amber-700 dark:bg-amber-950 dark:text-amber-50",
        )
    } else if error.is_cancel() {
        (
            Key::StoppedTitle,
            "■ ",
            "border-slate-300 bg-slate-100 text-slate-800 dark:border-slate-600 dark:bg-slate-800 dark:text-slate-100",
        )
    } else {
        (
            Key::ErrorTitle,
            "⚠ ",
            "border-red-300 bg-red-50 text-red-950 dark:border-red-800 dark:bg-red-950 dark:text-red-50",
        )
    };
    let explain = error
        .is_moderation()
        .then(|| view! { <p class="mt-1">{prefs.text(Key::ModerationExplain)}</p> });
    let code = error.code.clone().map(|code| {
        let details = error.details.clone().map(|d| format!(" · {d}"));
        view! {
            <p class="mt-1 text-xs">
                {prefs.text(Key::ErrorCode)} ": " <code>{code}</code> {details}
            </p>
        }
    });
    let resend = error.resend.clone().map(|text| {
        let connection = expect_context::<Connection>();
        view! {
            <button
                type="button"
                class=concat!("mt-2 min-h-11 rounded-lg border border-current px-3 font-medium ", focus!())
                on:click=move |_| connection.submit(text.clone())
            >
                {prefs.text(Key::SendAgain)}
            </button>
        }
    });
    view! {
        <div role="alert" class=format!("rounded-lg border border-l-4 p-3 text-sm {class}")>
            <p class="font-semibold">
                <span aria-hidden="true">{icon}</span>
                {move || prefs.t(title)}
            </p>
            {explain}
            <p class="mt-1">{move || error_text(error.code.as_deref(), &error.message, prefs.lang.get())}</p>
            {code}
            {resend}
        </div>
    }
}
