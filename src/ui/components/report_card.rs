use leptos::prelude::*;

use crate::ui::i18n::Key;
use crate::ui::prefs::Prefs;

/// The generated inspection report with its download link.
#[component]
pub fn ReportCard(url: String, report_id: Option<String>) -> impl IntoView {
    let prefs = expect_context::<Prefs>();
    let id_line = report_id.clone().map(|id| {
        view! { <p class="truncate text-sm text-slate-700 dark:text-slate-300">{id}</p> }
    });
    let id_spoken = report_id.map(|id| view! { <span class="sr-only">{format!(" {id}")}</span> });
    view! {
        <div class="flex flex-wrap items-center gap-3 rounded-lg border border-emerald-300 bg-emerald-50 p-3 dark:border-emerald-700 dark:bg-emerald-950">
            <span
                aria-hidden="true"
                class="rounded border-2 border-emerald-800 px-1.5 py-2 text-xs font-bold text-emerald-800 dark:border-emerald-300 dark:text-emerald-300"
            >
                "PDF"
            </span>
            <div class="min-w-0 flex-1">
                <p class="font-semibold">{prefs.text(Key::ReportReady)}</p>
                {id_line}
            </div>
            <a
                href=url
                download=""
                class="rounded-lg bg-emerald-800 px-3 py-2 text-sm font-medium text-white hover:bg-emerald-900 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-emerald-600"
            >
                {prefs.text(Key::DownloadPdf)}
                {id_spoken}
            </a>
        </div>
    }
}
