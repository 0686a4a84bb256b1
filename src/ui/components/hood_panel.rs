use leptos::prelude::*;

use crate::ui::i18n::{Key, nl};
use crate::ui::prefs::Prefs;

/// "Onder de motorkap": the agents, their tool calls and the raw event stream with the
/// verifier's warnings. It exists only while shown, so a hidden panel costs nothing while
/// an answer streams; shown, a delta costs one counter update in the log.
#[component]
pub fn HoodPanel() -> impl IntoView {
    let prefs = expect_context::<Prefs>();
    view! {
        <Show when=move || prefs.hood.get()>
            <HoodBody />
        </Show>
    }
}

#[component]
fn HoodBody() -> impl IntoView {
    let prefs = expect_context::<Prefs>();
    let agents = NodeRef::<leptos::html::Ul>::new();
    let tools = NodeRef::<leptos::html::Div>::new();
    let log = NodeRef::<leptos::html::Ol>::new();
    let warnings = NodeRef::<leptos::html::Span>::new();

    #[cfg(feature = "hydrate")]
    {
        use super::{agent_list, event_log_view, tool_log};
        use crate::ui::api::Directory;
        use crate::ui::chat::Chat;
        use crate::ui::dom;
        use wasm_bindgen::JsCast;

        let chat = expect_context::<Chat>();
        let directory = expect_context::<Directory>();
        Effect::new(move |_| {
            prefs.lang.track();
            let Some(list) = agents.get() else { return };
            let run = chat.run.get();
            directory
                .agents
                .with(|all| agent_list::render(&list, all, &run));
        });
        Effect::new(move |_| {
            prefs.lang.track();
            chat.tools_version.track();
            let Some(parent) = tools.get() else { return };
            // Keep open what the inspector opened.
            let mut open = Vec::new();
            if let Ok(nodes) = parent.query_selector_all("details[open]") {
                for i in 0..nodes.length() {
                    if let Some(id) = nodes
                        .item(i)
                        .and_then(|n| n.dyn_into::<web_sys::Element>().ok())
                        .and_then(|e| e.get_attribute("data-call-id"))
                    {
                        open.push(id);
                    }
                }
            }
            let calls = chat.with_state(|s| s.tool_calls.clone());
            tool_log::render(&parent, &calls, |id| directory.agent_name(id), &open);
        });
        // The log grows by appending; a folded delta updates one counter.
        let last_seq = StoredValue::new(0_u64);
        let last_count = StoredValue::new_local(None::<web_sys::Element>);
        Effect::new(move |_| {
            chat.log_version.track();
            let Some(list) = log.get() else { return };
            if let Some(badge) = warnings.get() {
                let n = chat.warnings.get_untracked();
                badge.set_text_content(Some(&if n == 0 {
                    String::new()
                } else {
                    format!("{n} {}", dom::t(Key::Warnings))
                }));
                badge.set_class_name(if n == 0 {
                    "hidden"
                } else {
                    "ml-2 rounded-full bg-red-100 px-2 py-0.5 text-xs font-medium text-red-900 dark:bg-red-900 dark:text-red-100"
                });
            }
            chat.with_log(|entries| {
                let seen = last_seq.get_value();
                for entry in entries.entries.iter() {
                    if entry.seq > seen {
                        let (row, count) = event_log_view::row(entry);
                        let _ = list.append_child(&row);
                        last_seq.set_value(entry.seq);
                        last_count.set_value(Some(count));
                    }
                }
                if let (Some(entry), Some(count)) = (entries.entries.back(), last_count.get_value())
                {
                    event_log_view::set_count(&count, entry.count);
                }
                while list.child_element_count() as usize > entries.entries.len() {
                    if let Some(first) = list.first_element_child() {
                        first.remove();
                    }
                }
            });
        });
    }

    view! {
        <aside
            id="hood"
            aria-labelledby="hood-title"
            class="absolute inset-0 z-30 flex w-full flex-col gap-4 overflow-y-auto border-l border-slate-200 bg-white p-3 text-sm lg:static lg:w-96 lg:shrink-0 dark:border-slate-800 dark:bg-slate-900"
        >
            <div class="flex items-center justify-between">
                <h2 id="hood-title" class="text-base font-semibold" data-t="HoodTitle">
                    {nl(Key::HoodTitle)}
                </h2>
                <button
                    type="button"
                    class="rounded px-2 py-1 text-xs hover:bg-slate-100 focus-visible:outline-2 focus-visible:outline-emerald-600 dark:hover:bg-slate-800"
                    on:click=move |_| prefs.hood.set(false)
                    data-t="Close"
                >
                    {nl(Key::Close)}
                </button>
            </div>
            <section aria-labelledby="agents-title">
                <h3 id="agents-title" class="mb-1 font-semibold" data-t="Agents">{nl(Key::Agents)}</h3>
                <ul node_ref=agents class="flex flex-col gap-1"></ul>
            </section>
            <section aria-labelledby="tools-title">
                <h3 id="tools-title" class="mb-1 font-semibold" data-t="ToolCalls">{nl(Key::ToolCalls)}</h3>
                <div node_ref=tools></div>
            </section>
            <section aria-labelledby="log-title">
                <h3 class="mb-1 font-semibold">
                    <span id="log-title" data-t="EventLog">{nl(Key::EventLog)}</span>
                    <span node_ref=warnings class="hidden"></span>
                </h3>
                <ol
                    node_ref=log
                    tabindex="0"
                    aria-labelledby="log-title"
                    class="max-h-96 overflow-y-auto rounded border border-slate-200 font-mono text-xs dark:border-slate-700"
                ></ol>
            </section>
        </aside>
    }
}
