//! A tool call's card: status, duration, arguments and result. The details list is shared
//! with the panel's list of tool calls.

use web_sys::Element;

use crate::ui::dom::{attr, child, child_text, close_button, css, el, t, text};
use crate::ui::i18n::Key;
use crate::ui::present::{duration_text, pretty, status_style, tool_label};
use crate::ui::state::ToolCall;

pub fn render(index: usize, call: &ToolCall) -> Element {
    let label = tool_label(call, crate::ui::dom::lang());
    let card = el(
        "section",
        "rounded-lg border border-slate-200 bg-white p-3 text-sm shadow-sm dark:border-slate-700 dark:bg-slate-900",
    );
    attr(&card, "id", &format!("tool-card-{index}"));
    attr(&card, "aria-label", &label);
    let head = child(&card, "div", "mb-2 flex items-start justify-between gap-2");
    let title = child(&head, "div", "");
    child_text(&title, "h4", "font-semibold", &label);
    if let Some(description) = &call.description {
        child_text(&title, "p", &format!("text-xs {}", css::MUTED), description);
    }
    let close = close_button(&head);
    attr(&close, "data-action", "tool");
    attr(&close, "data-call", &index.to_string());
    details(&card, call);
    card
}

/// Status, duration, arguments and result as a definition list.
pub fn details(parent: &Element, call: &ToolCall) {
    let list = child(parent, "dl", "grid grid-cols-[auto_1fr] gap-x-3 gap-y-1");
    let row = |key: Key| {
        child_text(&list, "dt", "font-medium", t(key));
        child(&list, "dd", "min-w-0")
    };
    let code = row(Key::Tool);
    child_text(&code, "code", "text-xs", &call.name);
    text(&row(Key::ToolStatus), t(status_style(call.status).1));
    if let Some(ms) = call.duration_ms() {
        text(&row(Key::ToolDuration), &duration_text(ms));
    }
    let block = |parent: &Element, body: &str| {
        let pre = child_text(
            parent,
            "pre",
            "max-h-64 overflow-auto rounded bg-slate-100 p-2 text-xs dark:bg-slate-800",
            body,
        );
        attr(&pre, "tabindex", "0");
    };
    block(&row(Key::ToolArgs), &pretty(&call.args));
    if let Some(result) = &call.result {
        block(&row(Key::ToolResult), &pretty(result));
    }
}
