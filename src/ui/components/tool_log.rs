use leptos::prelude::*;

use super::tool_details::ToolDetails;
use crate::ui::api::Directory;
use crate::ui::chat::Chat;
use crate::ui::css::{MUTED, muted};
use crate::ui::i18n::Key;
use crate::ui::prefs::Prefs;
use crate::ui::present::{duration_text, status_style, tool_label};
use crate::ui::state::ToolCall;

/// The thread's tool calls under the agent that made them, agents in the order of their
/// first call; each opens (a native `<details>`, which stays open as the call updates: the
/// rows are keyed) to its arguments, status, result and duration.
#[component]
pub fn ToolLog() -> impl IntoView {
    let chat = expect_context::<Chat>();
    let prefs = expect_context::<Prefs>();
    // (agent id, indexes of its calls), re-read when a call starts or the thread changes.
    let groups = Memo::new(move |_| {
        chat.tools_version.track();
        chat.with_state(|state| {
            let mut groups: Vec<(String, Vec<usize>)> = Vec::new();
            for (index, call) in state.tool_calls.iter().enumerate() {
                let agent = call.agent.clone().unwrap_or_default();
                match groups.iter_mut().find(|(a, _)| *a == agent) {
                    Some((_, calls)) => calls.push(index),
                    None => groups.push((agent, vec![index])),
                }
            }
            groups
        })
    });
    view! {
        <Show
            when=move || chat.calls.with(|calls| !calls.is_empty())
            fallback=move || view! { <p class=MUTED>{prefs.text(Key::NoToolCalls)}</p> }
        >
            <For
                each=move || { groups.with(|g| g.iter().map(|(agent, _)| agent.clone()).collect::<Vec<_>>()) }
                key=|agent| agent.clone()
                children=move |agent| {
                    let calls = {
                        let agent = agent.clone();
                        Signal::derive(move || {
                            groups.with(|g| {
                                g.iter().find(|(a, _)| *a == agent).map(|(_, c)| c.clone()).unwrap_or_default()
                            })
                        })
                    };
                    view! { <AgentCalls agent calls /> }
                }
            />
        </Show>
    }
}

#[component]
fn AgentCalls(agent: String, calls: Signal<Vec<usize>>) -> impl IntoView {
    let chat = expect_context::<Chat>();
    let prefs = expect_context::<Prefs>();
    let directory = expect_context::<Directory>();
    let name = move || {
        if agent.is_empty() {
            prefs.t(Key::Assistant).to_owned()
        } else {
            directory.agent_name(&agent, prefs.lang.get())
        }
    };
    view! {
        <div class="mb-2">
            <h4 class=concat!("text-xs font-semibold tracking-wide uppercase ", muted!())>{name}</h4>
            <ul class="flex flex-col gap-1">
                <For
                    each=move || calls.get()
                    key=|index| *index
                    children=move |index| {
                        chat.call(index).map(|call| view! { <li><CallDetails call=call.into() /></li> })
                    }
                />
            </ul>
        </div>
    }
}

#[component]
fn CallDetails(call: Signal<ToolCall>) -> impl IntoView {
    let prefs = expect_context::<Prefs>();
    let style = move || status_style(call.with(|c| c.status));
    view! {
        <details
            data-call-id=move || call.with(|c| c.id.clone())
            class="rounded border border-slate-200 px-2 py-1 dark:border-slate-700"
        >
            <summary class="cursor-pointer">
                <span aria-hidden="true">{move || format!("{} ", style().0)}</span>
                {move || call.with(|c| tool_label(c, prefs.lang.get()))}
                <span class=concat!("text-xs ", muted!())>
                    " · "
                    {move || prefs.t(style().1)}
                    {move || call.with(|c| c.duration_ms()).map(|ms| format!(" · {}", duration_text(ms)))}
                </span>
            </summary>
            <div class="mt-1">
                <ToolDetails call />
            </div>
        </details>
    }
}
