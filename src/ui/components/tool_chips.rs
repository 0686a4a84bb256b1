//! A row of tool chips. A chip is a button that opens its card below the row; its status
//! (arguments arriving, running, done, failed, rejected) changes in place, so a chip keeps
//! the keyboard focus while its call progresses.

use web_sys::Element;

use crate::ui::dom::{attr, child, child_text, clear, css, el, t};
use crate::ui::i18n::Key;
use crate::ui::present::{status_style, tool_label};
use crate::ui::state::ToolCall;

/// The row, its list of chips and the slot its open card goes in.
pub fn render_row() -> (Element, Element, Element) {
    let row = el("div", "flex flex-col gap-2");
    let list = child(&row, "ul", "flex flex-wrap gap-2");
    attr(&list, "aria-label", t(Key::ToolCalls));
    let slot = child(&row, "div", "");
    (row, list, slot)
}

/// One chip in `list`; returns its button.
pub fn add_chip(list: &Element, index: usize, call: &ToolCall) -> Element {
    let item = child(list, "li", "");
    let button = child(&item, "button", "");
    attr(&button, "type", "button");
    attr(&button, "data-action", "tool");
    attr(&button, "data-call", &index.to_string());
    attr(&button, "aria-expanded", "false");
    attr(&button, "aria-controls", &format!("tool-card-{index}"));
    update(&button, call);
    button
}

/// Redraws a chip's content after its call changed.
pub fn update(button: &Element, call: &ToolCall) {
    let (icon, status, colours) = status_style(call.status);
    button.set_class_name(&format!(
        "flex items-center gap-1.5 rounded-full border px-3 py-1 text-sm {} {colours}",
        css::FOCUS
    ));
    clear(button);
    let label = tool_label(call, crate::ui::dom::lang());
    // The status is part of the name; the icon is not read.
    attr(button, "aria-label", &format!("{label}, {}", t(status)));
    attr(&child_text(button, "span", "", icon), "aria-hidden", "true");
    child_text(button, "span", "", &label);
}
