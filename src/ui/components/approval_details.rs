use leptos::prelude::*;
use serde_json::Value;

use crate::protocol::ToolApprovalRequest;
use crate::ui::chat::Chat;
use crate::ui::details::{Entry, FindingEdit, field_entries, report_entries, severity_in};
use crate::ui::i18n::{Key, format};
use crate::ui::prefs::Prefs;
use crate::ui::present::pretty_json;
use crate::ui::state::ChatState;

const LABEL: &str =
    "mt-2 text-xs font-semibold tracking-wide uppercase text-slate-600 dark:text-slate-300";

/// What the approval would do, for a person: for the report, the company, the form's summary
/// and the findings, each to correct or leave out (`edits`, which the dialog sends as the
/// approval's edited arguments); for any other tool its arguments as labelled fields
/// (`ui::details`). Every entry is drawn by the one `entry` view below (a view shape per
/// entry cost 20 KB of bundle). The raw JSON only under "technical details", wrapped so
/// nothing is cut at the edge of a phone.
#[component]
pub fn ApprovalDetails(
    request: Memo<Option<ToolApprovalRequest>>,
    edits: RwSignal<Vec<FindingEdit>>,
) -> impl IntoView {
    let chat = expect_context::<Chat>();
    let prefs = expect_context::<Prefs>();
    let entries = move || {
        let lang = prefs.lang.get();
        request.with(|request| {
            let Some(request) = request else {
                return Vec::new();
            };
            let params = Value::Object(request.parameters.clone());
            if request.tool_name == "generate_final_report" {
                let form = chat.with_state(ChatState::form);
                report_entries(&params, form.as_ref(), lang)
            } else {
                field_entries(&params)
            }
        })
    };
    let json = move || {
        request.with(|r| {
            r.as_ref()
                .map(|r| pretty_json(&Value::Object(r.parameters.clone())))
                .unwrap_or_default()
        })
    };
    view! {
        <div data-testid="approval-details">
            <dl>
                {move || entries().into_iter().map(entry).collect_view()}
                <Findings edits />
            </dl>
            <details class="mt-3">
                <summary class="cursor-pointer text-sm">{prefs.text(Key::TechnicalDetails)}</summary>
                <pre
                    tabindex="0"
                    class="mt-1 max-h-56 overflow-y-auto rounded bg-slate-100 p-2 text-xs break-all whitespace-pre-wrap dark:bg-slate-800"
                >
                    {json}
                </pre>
            </details>
        </div>
    }
}

/// The report's findings: each a sentence with its severity, to correct (its words and
/// severity) or leave out, and to put back. One row shape whatever its state (what does not
/// apply is `hidden`). Typing changes the words without drawing the row again, so the box
/// keeps its focus.
#[component]
fn Findings(edits: RwSignal<Vec<FindingEdit>>) -> impl IntoView {
    let prefs = expect_context::<Prefs>();
    let rows = move || {
        let lang = prefs.lang.get();
        edits
            .get()
            .into_iter()
            .enumerate()
            .map(|(i, edit)| {
                let n = i + 1;
                let label = |key: Key| format(key, lang, &[&n]);
                let set = move |f: &dyn Fn(&mut FindingEdit)| edits.update(|all| f(&mut all[i]));
                let (main_key, main_icon) = match (edit.removed, edit.editing) {
                    (true, _) => (Key::RestoreFinding, "↺"),
                    (false, true) => (Key::FindingDone, "✓"),
                    (false, false) => (Key::EditFinding, "✎"),
                };
                let option = |value: &'static str| {
                    view! {
                        <option value=value selected=edit.severity == value>
                            {severity_in(value, lang)}
                        </option>
                    }
                };
                view! {
                    <li class="flex flex-wrap items-center gap-x-2">
                        <span
                            hidden=edit.editing
                            class=if edit.removed {
                                "min-w-0 flex-1 break-words text-slate-500 line-through"
                            } else {
                                "min-w-0 flex-1 break-words"
                            }
                        >
                            {format!("{n}. {}", edit.description)}
                            <span class="ml-1 text-slate-600 dark:text-slate-300">
                                {if edit.severity.is_empty() {
                                    String::new()
                                } else {
                                    format!("({})", severity_in(&edit.severity, lang))
                                }}
                            </span>
                        </span>
                        <input
                            hidden=!edit.editing
                            aria-label=label(Key::FindingWords)
                            // The report tool's limit: longer words would be refused.
                            maxlength="2000"
                            value=edit.description.clone()
                            class="min-w-0 flex-1 rounded border border-slate-300 bg-white px-2 py-1 dark:border-slate-600 dark:bg-slate-950"
                            on:input=move |ev| {
                                let text = event_target_value(&ev);
                                edits.update_untracked(|all| all[i].description = text);
                            }
                        />
                        <select
                            hidden=!edit.editing
                            aria-label=label(Key::FindingSeverity)
                            class="rounded border border-slate-300 bg-white px-1 py-1 dark:border-slate-600 dark:bg-slate-950"
                            on:change=move |ev| {
                                let value = event_target_value(&ev);
                                set(&|e| e.severity = value.clone());
                            }
                        >
                            {option("licht")}
                            {option("matig")}
                            {option("ernstig")}
                        </select>
                        <button
                            type="button"
                            aria-label=label(main_key)
                            title=label(main_key)
                            class=ICON
                            on:click=move |_| {
                                set(&|e| {
                                    if e.removed {
                                        e.removed = false;
                                    } else {
                                        e.editing = !e.editing;
                                    }
                                })
                            }
                        >
                            {main_icon}
                        </button>
                        <button
                            type="button"
                            hidden=edit.removed || edit.editing
                            aria-label=label(Key::LeaveOutFinding)
                            title=label(Key::LeaveOutFinding)
                            class=ICON
                            on:click=move |_| set(&|e| e.removed = true)
                        >
                            "✕"
                        </button>
                    </li>
                }
            })
            .collect_view()
    };
    view! {
        <dt hidden=move || edits.with(Vec::is_empty) class=LABEL>
            {prefs.text(Key::FindingsList)}
        </dt>
        <dd data-testid="findings">
            <ol class="space-y-1 text-sm">{rows}</ol>
        </dd>
    }
}

/// A finding's small square button, 44 px to touch.
const ICON: &str = "min-h-11 min-w-11 rounded border border-slate-300 text-base hover:bg-slate-100 dark:border-slate-600 dark:hover:bg-slate-800 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-emerald-600";

/// One entry: its label, then its lines, each with its status at the end.
fn entry(entry: Entry) -> impl IntoView {
    let lines = entry
        .lines
        .into_iter()
        .map(|line| {
            view! {
                <li class="flex justify-between gap-3">
                    <span class="min-w-0 break-words">{line.text}</span>
                    <span class=line.tone>{line.aside}</span>
                </li>
            }
        })
        .collect_view();
    view! {
        <dt class=LABEL>{entry.label}</dt>
        <dd data-testid=entry.test_id>
            <ul class="space-y-0.5 text-sm">{lines}</ul>
        </dd>
    }
}
