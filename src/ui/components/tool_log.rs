//! The thread's tool calls under the agent that made them; each opens (a native
//! `<details>`) to its arguments, status, result and duration.

use web_sys::Element;

use super::tool_card;
use crate::ui::dom::{attr, child, child_text, clear, css, t, text};
use crate::ui::i18n::Key;
use crate::ui::present::{duration_text, status_style, tool_label};
use crate::ui::state::ToolCall;

/// Draws the list; calls whose ids are in `open` stay open.
pub fn render(
    parent: &Element,
    calls: &[ToolCall],
    agent_name: impl Fn(&str) -> String,
    open: &[String],
) {
    clear(parent);
    if calls.is_empty() {
        child_text(parent, "p", css::MUTED, t(Key::NoToolCalls));
        return;
    }
    // Agents in the order of their first call.
    let mut agents: Vec<&str> = Vec::new();
    for call in calls {
        let agent = call.agent.as_deref().unwrap_or("");
        if !agents.contains(&agent) {
            agents.push(agent);
        }
    }
    let lang = crate::ui::dom::lang();
    for agent in agents {
        let group = child(parent, "div", "mb-2");
        let name = if agent.is_empty() {
            t(Key::Assistant).to_owned()
        } else {
            agent_name(agent)
        };
        child_text(
            &group,
            "h4",
            &format!(
                "text-xs font-semibold tracking-wide uppercase {}",
                css::MUTED
            ),
            &name,
        );
        let list = child(&group, "ul", "flex flex-col gap-1");
        for call in calls
            .iter()
            .filter(|c| c.agent.as_deref().unwrap_or("") == agent)
        {
            let details = child(
                &child(&list, "li", ""),
                "details",
                "rounded border border-slate-200 px-2 py-1 dark:border-slate-700",
            );
            attr(&details, "data-call-id", &call.id);
            if open.contains(&call.id) {
                attr(&details, "open", "");
            }
            let summary = child(&details, "summary", "cursor-pointer");
            let (icon, status, _) = status_style(call.status);
            attr(
                &child_text(&summary, "span", "", &format!("{icon} ")),
                "aria-hidden",
                "true",
            );
            text(&summary, &tool_label(call, lang));
            let meta = child(&summary, "span", &format!("text-xs {}", css::MUTED));
            text(&meta, " · ");
            text(&meta, t(status));
            if let Some(ms) = call.duration_ms() {
                text(&meta, " · ");
                text(&meta, &duration_text(ms));
            }
            tool_card::details(&child(&details, "div", "mt-1"), call);
        }
    }
}
