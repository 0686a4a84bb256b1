use leptos::prelude::*;

use crate::ui::api::Directory;
use crate::ui::chat::Chat;
use crate::ui::i18n::{Key, format};
use crate::ui::prefs::Prefs;

/// What the agents are doing, from the run's steps: routing, thinking, a tool.
#[component]
pub fn StatusLine() -> impl IntoView {
    let chat = expect_context::<Chat>();
    let prefs = expect_context::<Prefs>();
    let directory = expect_context::<Directory>();
    let text = move || {
        let run = chat.run.get();
        let lang = prefs.lang.get();
        if !run.running {
            String::new()
        } else if run.awaiting_approval {
            Key::AwaitingApproval.text(lang).to_owned()
        } else {
            match run.step.as_deref() {
                Some("routing") => Key::StepRouting.text(lang).to_owned(),
                Some("thinking") => {
                    let agent = run
                        .agent
                        .as_deref()
                        .map(|id| directory.agent_name(id, lang))
                        .unwrap_or_else(|| Key::Assistant.text(lang).to_owned());
                    format(Key::StepThinking, lang, &[&agent])
                }
                Some("executing_tools") => match run.tool {
                    Some(tool) => format!("{tool}..."),
                    None => Key::StepTools.text(lang).to_owned(),
                },
                _ => Key::StepWorking.text(lang).to_owned(),
            }
        }
    };
    view! {
        <div
            role="status"
            aria-label=prefs.text(Key::RunStatus)
            class="mx-auto flex min-h-7 w-full max-w-3xl items-center gap-2 px-4 text-sm text-slate-700 dark:text-slate-300"
        >
            <span
                aria-hidden="true"
                class=move || {
                    if chat.run.with(|run| run.running) {
                        "inline-block size-3 animate-spin rounded-full border-2 border-emerald-700 border-t-transparent"
                    } else {
                        "hidden"
                    }
                }
            ></span>
            <span>{text}</span>
        </div>
    }
}
