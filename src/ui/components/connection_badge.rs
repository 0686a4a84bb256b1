use leptos::prelude::*;

use crate::ui::connection::ConnectionStatus;

#[component]
pub fn ConnectionBadge(status: Signal<ConnectionStatus>) -> impl IntoView {
    let label = move || match status.get() {
        ConnectionStatus::Connecting => "verbinden",
        ConnectionStatus::Connected => "verbonden",
        ConnectionStatus::Reconnecting => "opnieuw verbinden",
        ConnectionStatus::Failed => "fout",
    };
    let colour = move || match status.get() {
        ConnectionStatus::Connecting | ConnectionStatus::Reconnecting => {
            "bg-amber-100 text-amber-900"
        }
        ConnectionStatus::Connected => "bg-emerald-100 text-emerald-900",
        ConnectionStatus::Failed => "bg-red-100 text-red-900",
    };
    view! {
        <span
            role="status"
            aria-label="Verbindingsstatus"
            class=move || format!("rounded-full px-3 py-1 text-xs font-medium {}", colour())
        >
            {label}
        </span>
    }
}
