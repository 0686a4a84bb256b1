use leptos::prelude::*;

use crate::ui::chat::Chat;
use crate::ui::connection::Connection;
use crate::ui::css::{FOCUS, focus};
use crate::ui::i18n::Key;
use crate::ui::prefs::Prefs;
use crate::ui::state::{ChatState, Verification};

const CHOICE: &str = "min-h-11 rounded-full border px-3 py-1.5 text-sm font-medium";

/// The verification questions asked before the report, with their quick answers as buttons
/// under the agent's message, by the questions' numbers. One question: a button sends its
/// answer. Several: the inspector picks an answer per question and sends them together, each
/// numbered ("2. Horeca") so the agent knows which question it answers. "Genereer toch" sends
/// at once. Gone as soon as anything follows (an answer typed, a run).
#[component]
pub fn QuickAnswers() -> impl IntoView {
    let chat = expect_context::<Chat>();
    let verification = Memo::new(move |_| {
        chat.items.track();
        chat.run.track();
        chat.tools_version.track();
        chat.with_state(ChatState::verification)
    });
    move || {
        verification
            .get()
            .map(|v| view! { <Questions verification=v /> })
    }
}

#[component]
fn Questions(verification: Verification) -> impl IntoView {
    let prefs = expect_context::<Prefs>();
    let connection = expect_context::<Connection>();
    let count = verification.questions.len();
    let picked = RwSignal::new(vec![None::<String>; count]);
    let send = move |text: String| {
        connection.send_text(text);
        #[cfg(feature = "hydrate")]
        crate::ui::scroll::to_bottom();
    };
    let questions = verification
        .questions
        .into_iter()
        .enumerate()
        .map(|(i, (question, answers))| {
            let buttons = answers
                .into_iter()
                .map(|answer| {
                    let chosen = {
                        let answer = answer.clone();
                        move || picked.with(|p| p[i].as_deref() == Some(answer.as_str()))
                    };
                    let on_click = {
                        let answer = answer.clone();
                        move |_| {
                            if count == 1 {
                                send(answer.clone());
                            } else {
                                picked.update(|p| p[i] = Some(answer.clone()));
                            }
                        }
                    };
                    let chosen_class = chosen.clone();
                    view! {
                        <button
                            type="button"
                            aria-pressed=move || (count > 1).then(|| chosen().to_string())
                            class=move || {
                                let tone = if chosen_class() {
                                    "border-emerald-800 bg-emerald-800 text-white"
                                } else {
                                    "border-emerald-800 text-emerald-900 hover:bg-emerald-50 dark:border-emerald-300 dark:text-emerald-200 dark:hover:bg-emerald-950"
                                };
                                format!("{CHOICE} {tone} {FOCUS}")
                            }
                            on:click=on_click
                        >
                            {answer}
                        </button>
                    }
                })
                .collect_view();
            // The agent's message right above has the questions, numbered: here their number,
            // and the whole question for a screen reader.
            view! {
                <li class="flex items-start gap-2">
                    <span aria-hidden="true" class="mt-2.5 w-5 shrink-0 text-sm font-semibold">
                        {format!("{}.", i + 1)}
                    </span>
                    <span class="sr-only">{question}</span>
                    <div class="flex flex-wrap gap-2">{buttons}</div>
                </li>
            }
        })
        .collect_view();
    let send_picked = move |_| {
        let lines: Vec<String> = picked.with_untracked(|p| {
            p.iter()
                .enumerate()
                .filter_map(|(i, a)| a.as_ref().map(|a| format!("{}. {a}", i + 1)))
                .collect()
        });
        if !lines.is_empty() {
            send(lines.join("\n"));
        }
    };
    let skip = verification.skip;
    let send_button = (count > 1).then(|| {
        view! {
            <button
                type="button"
                class=concat!("min-h-11 rounded-lg bg-emerald-800 px-4 py-2 text-sm font-medium text-white hover:bg-emerald-900 disabled:opacity-50 ", focus!())
                disabled=move || picked.with(|p| p.iter().all(Option::is_none))
                on:click=send_picked
            >
                {prefs.text(Key::SendAnswers)}
            </button>
        }
    });
    view! {
        <section
            data-testid="quick-answers"
            aria-label=prefs.text(Key::QuickAnswers)
            class="mx-auto mt-3 w-full max-w-3xl rounded-lg border border-emerald-300 p-3 dark:border-emerald-700"
        >
            <ol class="space-y-2">{questions}</ol>
            <div class="mt-3 flex flex-wrap justify-end gap-2">
                <button
                    type="button"
                    class=concat!("min-h-11 rounded-lg border border-slate-400 px-4 py-2 text-sm font-medium hover:bg-slate-100 dark:border-slate-500 dark:hover:bg-slate-800 ", focus!())
                    on:click=move |_| send(skip.clone())
                >
                    {skip.clone()}
                </button>
                {send_button}
            </div>
        </section>
    }
}
