//! Each agent with what it does now: idle, active or executing tools.

use web_sys::Element;

use crate::ui::api::Agent;
use crate::ui::dom::{attr, child, child_text, clear, t};
use crate::ui::i18n::Key;
use crate::ui::state::{AgentActivity, RunView};

pub fn render(list: &Element, agents: &[Agent], run: &RunView) {
    clear(list);
    for agent in agents {
        let (key, code, class) = match run.activity(&agent.id) {
            AgentActivity::Idle => (
                Key::AgentIdle,
                "idle",
                "bg-slate-100 text-slate-700 dark:bg-slate-800 dark:text-slate-300",
            ),
            AgentActivity::Active => (
                Key::AgentActive,
                "active",
                "bg-emerald-100 text-emerald-900 dark:bg-emerald-900 dark:text-emerald-100",
            ),
            AgentActivity::Executing => (
                Key::AgentExecuting,
                "executing",
                "bg-amber-100 text-amber-900 dark:bg-amber-900 dark:text-amber-100",
            ),
        };
        let item = child(
            list,
            "li",
            "flex items-center justify-between gap-2 rounded border border-slate-200 px-2 py-1 dark:border-slate-700",
        );
        attr(&item, "data-agent", &agent.id);
        child_text(&item, "span", "", &agent.name);
        let badge = child_text(
            &item,
            "span",
            &format!("rounded-full px-2 py-0.5 text-xs font-medium {class}"),
            t(key),
        );
        attr(&badge, "data-activity", code);
    }
}
