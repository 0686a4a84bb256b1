use leptos::prelude::*;

use crate::ui::chat::Chat;
use crate::ui::connection::{Connection, ConnectionStatus};
use crate::ui::i18n::Key;
use crate::ui::prefs::Prefs;

/// verbonden / bijwerken / verbinden / opnieuw verbinden / offline / fout, with a retry
/// button when not connected.
#[component]
pub fn ConnectionBadge() -> impl IntoView {
    let prefs = expect_context::<Prefs>();
    let connection = expect_context::<Connection>();
    let chat = expect_context::<Chat>();
    let status = connection.status;
    let catching_up = move || chat.run.with(|run| run.catching_up);
    view! {
        <span class="flex items-center gap-1">
            <span
                role="status"
                aria-label=prefs.text(Key::ConnectionStatus)
                class=move || badge_class(status.get())
            >
                {move || {
                    let status = status.get();
                    if status == ConnectionStatus::Connected && catching_up() {
                        prefs.t(Key::CatchingUp)
                    } else {
                        prefs.t(label(status))
                    }
                }}
            </span>
            <button
                type="button"
                class=move || retry_class(status.get())
                on:click=move |_| connection.retry()
            >
                {prefs.text(Key::Retry)}
            </button>
        </span>
    }
}

fn label(status: ConnectionStatus) -> Key {
    match status {
        ConnectionStatus::Connecting => Key::Connecting,
        ConnectionStatus::Connected => Key::Connected,
        ConnectionStatus::Reconnecting => Key::Reconnecting,
        ConnectionStatus::Offline => Key::Offline,
        ConnectionStatus::Failed => Key::Failed,
    }
}

fn badge_class(status: ConnectionStatus) -> &'static str {
    match status {
        ConnectionStatus::Connecting
        | ConnectionStatus::Reconnecting
        | ConnectionStatus::Offline => {
            "rounded-full px-3 py-1 text-xs font-medium bg-amber-100 text-amber-900 dark:bg-amber-900 dark:text-amber-100"
        }
        ConnectionStatus::Connected => {
            "rounded-full px-3 py-1 text-xs font-medium bg-emerald-100 text-emerald-900 dark:bg-emerald-900 dark:text-emerald-100"
        }
        ConnectionStatus::Failed => {
            "rounded-full px-3 py-1 text-xs font-medium bg-red-100 text-red-900 dark:bg-red-900 dark:text-red-100"
        }
    }
}

fn retry_class(status: ConnectionStatus) -> &'static str {
    match status {
        ConnectionStatus::Reconnecting | ConnectionStatus::Failed => {
            "rounded-full border border-slate-300 px-2 py-0.5 text-xs hover:bg-slate-100 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-emerald-600 dark:border-slate-600 dark:hover:bg-slate-800"
        }
        ConnectionStatus::Connecting | ConnectionStatus::Connected | ConnectionStatus::Offline => {
            "hidden"
        }
    }
}
