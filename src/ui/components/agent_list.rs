use leptos::prelude::*;

use crate::ui::api::Directory;
use crate::ui::chat::Chat;
use crate::ui::i18n::Key;
use crate::ui::prefs::Prefs;
use crate::ui::state::AgentActivity;

/// Each agent with what it does now: idle, active or executing tools.
#[component]
pub fn AgentList() -> impl IntoView {
    let directory = expect_context::<Directory>();
    view! {
        <ul class="flex flex-col gap-1">
            <For
                each=move || directory.agents.with(|agents| agents.active_agents.clone())
                key=|agent| agent.id.clone()
                children=|agent| view! { <AgentRow id=agent.id name=agent.name /> }
            />
        </ul>
    }
}

#[component]
fn AgentRow(id: String, name: String) -> impl IntoView {
    let chat = expect_context::<Chat>();
    let prefs = expect_context::<Prefs>();
    let activity = {
        let id = id.clone();
        move || chat.run.with(|run| run.activity(&id))
    };
    let badge = move || match activity() {
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
    let badge = Memo::new(move |_| badge());
    // In the page's language for the agents it knows; the server's name otherwise.
    let shown_name = {
        let key = crate::ui::i18n::agent_key(&id);
        move || key.map_or_else(|| name.clone(), |key| prefs.t(key).to_owned())
    };
    view! {
        <li
            data-agent=id
            class="flex items-center justify-between gap-2 rounded border border-slate-200 px-2 py-1 dark:border-slate-700"
        >
            <span>{shown_name}</span>
            <span
                data-activity=move || badge.get().1
                class=move || format!("rounded-full px-2 py-0.5 text-xs font-medium {}", badge.get().2)
            >
                {move || prefs.t(badge.get().0)}
            </span>
        </li>
    }
}
