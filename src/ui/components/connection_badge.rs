use crate::ui::connection::ConnectionStatus;
use crate::ui::i18n::Key;

/// verbonden / verbinden / opnieuw verbinden / fout, with a retry button when not connected.
#[cfg(not(feature = "hydrate"))]
#[leptos::component]
pub fn ConnectionBadge() -> impl leptos::IntoView {
    use leptos::prelude::*;

    use crate::ui::i18n::nl;
    let status = ConnectionStatus::Connecting;
    view! {
        <span class="flex items-center gap-1">
            <span
                id="connection-status"
                role="status"
                aria-label=nl(Key::ConnectionStatus)
                data-t-label="ConnectionStatus"
                class=badge_class(status)
            >
                {nl(label(status))}
            </span>
            <button id="connection-retry" type="button" class=retry_class(status) data-t="Retry">
                {nl(Key::Retry)}
            </button>
        </span>
    }
}

fn label(status: ConnectionStatus) -> Key {
    match status {
        ConnectionStatus::Connecting => Key::Connecting,
        ConnectionStatus::Connected => Key::Connected,
        ConnectionStatus::Reconnecting => Key::Reconnecting,
        ConnectionStatus::Failed => Key::Failed,
    }
}

fn badge_class(status: ConnectionStatus) -> &'static str {
    match status {
        ConnectionStatus::Connecting | ConnectionStatus::Reconnecting => {
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
        ConnectionStatus::Connecting | ConnectionStatus::Connected => "hidden",
    }
}

#[cfg(feature = "hydrate")]
pub fn bind() {
    use leptos::prelude::*;

    use crate::ui::connection::Connection;
    use crate::ui::dom::{by_id, effect, listen};
    use crate::ui::prefs::Prefs;

    let prefs = expect_context::<Prefs>();
    let connection = expect_context::<Connection>();
    let badge = by_id("connection-status");
    let retry = by_id("connection-retry");
    listen(&retry, "click", move |_| connection.retry());
    effect(move || {
        let status = connection.status.get();
        badge.set_class_name(badge_class(status));
        badge.set_text_content(Some(prefs.t(label(status))));
        retry.set_class_name(retry_class(status));
    });
}
