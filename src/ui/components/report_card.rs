//! The generated inspection report with its download link.

use web_sys::Element;

use crate::ui::dom::{attr, child, child_text, el, sr, t};
use crate::ui::i18n::Key;

pub fn render(url: &str, report_id: Option<&str>) -> Element {
    let card = el(
        "div",
        "flex flex-wrap items-center gap-3 rounded-lg border border-emerald-300 bg-emerald-50 p-3 dark:border-emerald-700 dark:bg-emerald-950",
    );
    let icon = child_text(
        &card,
        "span",
        "rounded border-2 border-emerald-800 px-1.5 py-2 text-xs font-bold text-emerald-800 dark:border-emerald-300 dark:text-emerald-300",
        "PDF",
    );
    attr(&icon, "aria-hidden", "true");
    let body = child(&card, "div", "min-w-0 flex-1");
    child_text(&body, "p", "font-semibold", t(Key::ReportReady));
    if let Some(id) = report_id {
        child_text(
            &body,
            "p",
            "truncate text-sm text-slate-700 dark:text-slate-300",
            id,
        );
    }
    let link = child_text(
        &card,
        "a",
        "rounded-lg bg-emerald-800 px-3 py-2 text-sm font-medium text-white hover:bg-emerald-900 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-emerald-600",
        t(Key::DownloadPdf),
    );
    attr(&link, "href", url);
    attr(&link, "download", "");
    if let Some(id) = report_id {
        sr(&link, &format!(" {id}"));
    }
    card
}
