//! "Onder de motorkap": the agents, their tool calls and the raw event stream with the
//! verifier's warnings. Closed on every server render; the browser builds it when opened and
//! drops it (with its effects) when closed, so a hidden panel costs nothing while an answer
//! streams; shown, a delta costs one counter update in the log.

use leptos::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::Element;

use super::{agent_list, event_log_view, tool_log};
use crate::ui::api::Directory;
use crate::ui::chat::Chat;
use crate::ui::dom::{self, attr, by_id, child, child_text, effect, t};
use crate::ui::i18n::Key;
use crate::ui::prefs::Prefs;

pub fn bind() {
    let prefs = expect_context::<Prefs>();
    let workspace = by_id("workspace");
    effect(move || {
        if !prefs.hood.get() {
            return;
        }
        let panel = build(&workspace, prefs);
        let aside = panel.aside.clone();
        on_cleanup(move || aside.remove());
        panel.follow();
    });
}

/// The panel's parts that change.
struct Panel {
    aside: Element,
    agents: Element,
    tools: Element,
    log: Element,
    warnings: Element,
}

fn build(workspace: &Element, prefs: Prefs) -> Panel {
    let aside = child(
        workspace,
        "aside",
        "absolute inset-0 z-30 flex w-full flex-col gap-4 overflow-y-auto border-l border-slate-200 bg-white p-3 text-sm lg:static lg:w-96 lg:shrink-0 dark:border-slate-800 dark:bg-slate-900",
    );
    attr(&aside, "id", "hood");
    attr(&aside, "aria-labelledby", "hood-title");
    let head = child(&aside, "div", "flex items-center justify-between");
    let title = keyed(&head, "h2", "text-base font-semibold", Key::HoodTitle);
    attr(&title, "id", "hood-title");
    let close = dom::close_button(&head);
    attr(&close, "data-t", "Close");
    dom::listen(&close, "click", move |_| prefs.hood.set(false));
    let section = |id: &str, key: Key| {
        let section = child(&aside, "section", "");
        attr(&section, "aria-labelledby", id);
        let heading = child(&section, "h3", "mb-1 font-semibold");
        section_title(&heading, id, key);
        (section, heading)
    };
    let (agents_section, _) = section("agents-title", Key::Agents);
    let agents = child(&agents_section, "ul", "flex flex-col gap-1");
    let (tools_section, _) = section("tools-title", Key::ToolCalls);
    let tools = child(&tools_section, "div", "");
    let (log_section, log_heading) = section("log-title", Key::EventLog);
    let warnings = child(&log_heading, "span", "hidden");
    let log = child(
        &log_section,
        "ol",
        "max-h-96 overflow-y-auto rounded border border-slate-200 font-mono text-xs dark:border-slate-700",
    );
    attr(&log, "tabindex", "0");
    attr(&log, "aria-labelledby", "log-title");
    Panel {
        aside,
        agents,
        tools,
        log,
        warnings,
    }
}

/// A text that follows the language switch (`data-t`).
fn keyed(parent: &Element, tag: &str, class: &str, key: Key) -> Element {
    let element = child_text(parent, tag, class, t(key));
    attr(&element, "data-t", key.name());
    element
}

fn section_title(heading: &Element, id: &str, key: Key) {
    let span = keyed(heading, "span", "", key);
    attr(&span, "id", id);
}

impl Panel {
    /// Effects owned by the opening: they end when the panel closes.
    fn follow(self) {
        let prefs = expect_context::<Prefs>();
        let chat = expect_context::<Chat>();
        let directory = expect_context::<Directory>();
        let Panel {
            agents,
            tools,
            log,
            warnings,
            ..
        } = self;
        effect(move || {
            prefs.lang.track();
            let run = chat.run.get();
            directory
                .agents
                .with(|all| agent_list::render(&agents, all, &run));
        });
        effect(move || {
            prefs.lang.track();
            chat.tools_version.track();
            // Keep open what the inspector opened.
            let mut open = Vec::new();
            if let Ok(nodes) = tools.query_selector_all("details[open]") {
                for i in 0..nodes.length() {
                    if let Some(id) = nodes
                        .item(i)
                        .and_then(|n| n.dyn_into::<Element>().ok())
                        .and_then(|e| e.get_attribute("data-call-id"))
                    {
                        open.push(id);
                    }
                }
            }
            let calls = chat.with_state(|s| s.tool_calls.clone());
            tool_log::render(&tools, &calls, |id| directory.agent_name(id), &open);
        });
        // The log grows by appending; a folded delta updates one counter.
        let last_seq = StoredValue::new(0_u64);
        let last_count = StoredValue::new_local(None::<Element>);
        effect(move || {
            chat.log_version.track();
            let n = chat.warnings.get_untracked();
            warnings.set_text_content(Some(&if n == 0 {
                String::new()
            } else {
                format!("{n} {}", t(Key::Warnings))
            }));
            warnings.set_class_name(if n == 0 {
                "hidden"
            } else {
                "ml-2 rounded-full bg-red-100 px-2 py-0.5 text-xs font-medium text-red-900 dark:bg-red-900 dark:text-red-100"
            });
            chat.with_log(|entries| {
                let seen = last_seq.get_value();
                for entry in entries.entries.iter() {
                    if entry.seq > seen {
                        let (row, count) = event_log_view::row(entry);
                        let _ = log.append_child(&row);
                        last_seq.set_value(entry.seq);
                        last_count.set_value(Some(count));
                    }
                }
                if let (Some(entry), Some(count)) = (entries.entries.back(), last_count.get_value())
                {
                    event_log_view::set_count(&count, entry.count);
                }
                while log.child_element_count() as usize > entries.entries.len() {
                    if let Some(first) = log.first_element_child() {
                        first.remove();
                    }
                }
            });
        });
    }
}
