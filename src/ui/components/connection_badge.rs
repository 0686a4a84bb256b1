use leptos::prelude::*;

use crate::ui::connection::ConnectionStatus;
use crate::ui::i18n::{Key, nl};
use crate::ui::prefs::Prefs;

/// verbonden / verbinden / opnieuw verbinden / fout, with a retry button when not connected.
#[component]
pub fn ConnectionBadge(status: Signal<ConnectionStatus>, on_retry: Callback<()>) -> impl IntoView {
    let prefs = expect_context::<Prefs>();
    let label = move || {
        prefs.t(match status.get() {
            ConnectionStatus::Connecting => Key::Connecting,
            ConnectionStatus::Connected => Key::Connected,
            ConnectionStatus::Reconnecting => Key::Reconnecting,
            ConnectionStatus::Failed => Key::Failed,
        })
    };
    let class = move || {
        let colours = match status.get() {
            ConnectionStatus::Connecting | ConnectionStatus::Reconnecting => {
                "bg-amber-100 text-amber-900 dark:bg-amber-900 dark:text-amber-100"
            }
            ConnectionStatus::Connected => {
                "bg-emerald-100 text-emerald-900 dark:bg-emerald-900 dark:text-emerald-100"
            }
            ConnectionStatus::Failed => "bg-red-100 text-red-900 dark:bg-red-900 dark:text-red-100",
        };
        format!("rounded-full px-3 py-1 text-xs font-medium {colours}")
    };
    let retry_class = move || match status.get() {
        ConnectionStatus::Reconnecting | ConnectionStatus::Failed => {
            "rounded-full border border-slate-300 px-2 py-0.5 text-xs hover:bg-slate-100 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-emerald-600 dark:border-slate-600 dark:hover:bg-slate-800"
        }
        ConnectionStatus::Connecting | ConnectionStatus::Connected => "hidden",
    };
    view! {
        <span class="flex items-center gap-1">
            <span
                role="status"
                aria-label=nl(Key::ConnectionStatus)
                data-t-label="ConnectionStatus"
                class=class
            >
                {label}
            </span>
            <button type="button" class=retry_class on:click=move |_| on_retry.run(()) data-t="Retry">
                {nl(Key::Retry)}
            </button>
        </span>
    }
}
