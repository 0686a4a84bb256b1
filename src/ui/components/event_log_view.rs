//! One line of the raw event log: the event type, a short detail, the count of folded
//! deltas, and the verifier's warnings in red.

use web_sys::Element;

use crate::ui::dom::{attr, child, child_text, el, text};
use crate::ui::state::LogEntry;

/// The line, and the element that shows its count.
pub fn row(entry: &LogEntry) -> (Element, Element) {
    let warned = !entry.warnings.is_empty();
    let item = el(
        "li",
        if warned {
            "border-b border-red-200 bg-red-50 px-2 py-1 dark:border-red-900 dark:bg-red-950"
        } else {
            "border-b border-slate-100 px-2 py-1 dark:border-slate-800"
        },
    );
    attr(&item, "data-seq", &entry.seq.to_string());
    child_text(&item, "span", "font-semibold", &entry.kind);
    let count = child(&item, "span", "ml-1 text-slate-600 dark:text-slate-300");
    set_count(&count, entry.count);
    text(&item, " ");
    child_text(
        &item,
        "span",
        "break-all text-slate-700 dark:text-slate-300",
        &entry.detail,
    );
    for warning in &entry.warnings {
        let line = child(&item, "p", "text-red-800 dark:text-red-200");
        attr(&child_text(&line, "span", "", "⚠ "), "aria-hidden", "true");
        text(&line, warning);
    }
    (item, count)
}

pub fn set_count(element: &Element, count: u32) {
    let label = if count > 1 {
        format!("×{count}")
    } else {
        String::new()
    };
    element.set_text_content(Some(&label));
}
