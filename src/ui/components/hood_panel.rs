//! "Onder de motorkap": the agents, their tool calls and the raw event stream with the
//! verifier's warnings. Not there until opened, and gone (with its effects) when closed, so
//! a closed panel costs nothing while an answer streams; open, a delta costs one counter
//! update in the log (`event_log_view`).

use leptos::prelude::*;

use super::agent_list::AgentList;
use super::close_button::CloseButton;
use super::event_log_view::EventLog;
use super::tool_log::ToolLog;
use crate::ui::i18n::Key;
use crate::ui::prefs::Prefs;

#[component]
pub fn HoodPanel() -> impl IntoView {
    let prefs = expect_context::<Prefs>();
    view! {
        <Show when=move || prefs.hood.get()>
            <aside
                id="hood"
                aria-labelledby="hood-title"
                class="absolute inset-0 z-30 flex w-full flex-col gap-4 overflow-y-auto border-l border-slate-200 bg-white p-3 text-sm lg:static lg:w-96 lg:shrink-0 dark:border-slate-800 dark:bg-slate-900"
            >
                <div class="flex items-center justify-between">
                    <h2 id="hood-title" class="text-base font-semibold">
                        {prefs.text(Key::HoodTitle)}
                    </h2>
                    <CloseButton on_click=move || prefs.hood.set(false) />
                </div>
                <section aria-labelledby="agents-title">
                    <h3 class="mb-1 font-semibold">
                        <span id="agents-title">{prefs.text(Key::Agents)}</span>
                    </h3>
                    <AgentList />
                </section>
                <section aria-labelledby="tools-title">
                    <h3 class="mb-1 font-semibold">
                        <span id="tools-title">{prefs.text(Key::ToolCalls)}</span>
                    </h3>
                    <ToolLog />
                </section>
                <EventLog />
            </aside>
        </Show>
    }
}
