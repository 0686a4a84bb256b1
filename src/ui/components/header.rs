use leptos::prelude::*;

use super::connection_badge::ConnectionBadge;
use crate::ui::connection::ConnectionStatus;

#[component]
pub fn Header(status: Signal<ConnectionStatus>) -> impl IntoView {
    view! {
        <header class="flex items-center justify-between border-b border-slate-200 bg-white px-4 py-3 dark:border-slate-800 dark:bg-slate-900">
            <div class="flex items-center gap-2">
                <span class="rounded bg-emerald-700 px-2 py-0.5 text-sm font-bold text-white">"NVWA"</span>
                <h1 class="text-lg font-semibold">"AGORA HAI"</h1>
            </div>
            <ConnectionBadge status />
        </header>
    }
}
