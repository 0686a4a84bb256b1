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
    // A memo: typing a correction changes `edits` on every key, the count only on a removal.
    let left_out = Memo::new(move |_| edits.with(|all| all.iter().filter(|e| e.removed).count()));
    let entries = move || {
        let lang = prefs.lang.get();
        request.with(|request| {
            let Some(request) = request else {
                return Vec::new();
            };
            let params = Value::Object(request.parameters.clone());
            if request.tool_name == "generate_final_report" {
                let form = chat.with_state(ChatState::form);
                report_entries(&params, form.as_ref(), left_out.get(), lang)
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
/// severity) or leave out, and to put back. A keyed row per finding whose attributes follow
/// its edit, so a change never draws a row again: the box being typed in keeps its focus and
/// the approve button says at once that the approval is one with edits.
#[component]
fn Findings(edits: RwSignal<Vec<FindingEdit>>) -> impl IntoView {
    let prefs = expect_context::<Prefs>();
    view! {
        <dt hidden=move || edits.with(Vec::is_empty) class=LABEL>
            {prefs.text(Key::FindingsList)}
        </dt>
        <dd data-testid="findings">
            <ol class="space-y-1 text-sm">
                <For each=move || 0..edits.with(Vec::len) key=|i| *i let:i>
                    <FindingRow edits i />
                </For>
            </ol>
        </dd>
    }
}

/// Finding `i + 1`: its sentence, or the boxes to correct it; one shape whatever its state
/// (what does not apply is `hidden`). Esc or Enter in it ends the correction (Esc is not the
/// dialog's rejection here: it would throw the report away with the edits).
#[component]
fn FindingRow(edits: RwSignal<Vec<FindingEdit>>, i: usize) -> impl IntoView {
    let prefs = expect_context::<Prefs>();
    let row = Memo::new(move |_| edits.with(|all| all.get(i).cloned()).unwrap_or_default());
    let set = move |change: &dyn Fn(&mut FindingEdit)| {
        edits.update(|all| {
            if let Some(edit) = all.get_mut(i) {
                change(edit);
            }
        })
    };
    let n = i + 1;
    let label = move |key: Key| format(key, prefs.lang.get(), &[&n]);
    let editing = move || row.with(|e| e.editing);
    let removed = move || row.with(|e| e.removed);
    let main_key = move || match (removed(), editing()) {
        (true, _) => Key::RestoreFinding,
        (false, true) => Key::FindingDone,
        (false, false) => Key::EditFinding,
    };
    let sentence = move || row.with(|e| format!("{n}. {}", e.description));
    let severity = move || {
        row.with(|e| {
            if e.severity.is_empty() {
                String::new()
            } else {
                format!("({})", severity_in(&e.severity, prefs.lang.get()))
            }
        })
    };
    let on_keydown = move |ev: leptos::ev::KeyboardEvent| {
        let plain_enter = ev.key() == "Enter" && !ev.ctrl_key() && !ev.meta_key();
        if editing() && (ev.key() == "Escape" || plain_enter) {
            ev.prevent_default();
            ev.stop_propagation();
            set(&|e| e.editing = false);
        }
    };
    let option = move |value: &'static str| {
        view! { <option value=value>{move || severity_in(value, prefs.lang.get())}</option> }
    };
    view! {
        <li class="flex flex-wrap items-center gap-x-2" on:keydown=on_keydown>
            <span
                hidden=editing
                class=move || {
                    if removed() {
                        "min-w-0 flex-1 break-words text-slate-500 line-through"
                    } else {
                        "min-w-0 flex-1 break-words"
                    }
                }
            >
                {sentence}
                " "
                <span class="text-slate-600 dark:text-slate-300">{severity}</span>
                <span class="block text-xs text-slate-600 dark:text-slate-300">
                    {move || row.with(|e| e.articles_in(prefs.lang.get()))}
                </span>
                // Its photos (issue 37), seen before the report is signed.
                <span class="mt-1 flex flex-wrap gap-1" data-testid="finding-photos">
                    {move || {
                        row.with(|e| e.photos.clone())
                            .into_iter()
                            .map(|url| {
                                view! {
                                    <img
                                        src=url
                                        alt=prefs.text(Key::Photo)
                                        class="h-12 w-12 rounded border border-slate-300 object-cover dark:border-slate-600"
                                    />
                                }
                            })
                            .collect_view()
                    }}
                </span>
            </span>
            // Its number stays in sight while its words are corrected.
            <span hidden=move || !editing()>{format!("{n}.")}</span>
            <input
                hidden=move || !editing()
                aria-label=move || label(Key::FindingWords)
                // The report tool's limit: longer words would be refused.
                maxlength="2000"
                prop:value=move || row.with(|e| e.description.clone())
                class="min-w-0 flex-1 rounded border border-slate-300 bg-white px-2 py-1 dark:border-slate-600 dark:bg-slate-950"
                on:input=move |ev| {
                    let text = event_target_value(&ev);
                    set(&|e| e.description.clone_from(&text));
                }
            />
            <select
                hidden=move || !editing()
                aria-label=move || label(Key::FindingSeverity)
                prop:value=move || row.with(|e| e.severity.clone())
                class="rounded border border-slate-300 bg-white px-1 py-1 dark:border-slate-600 dark:bg-slate-950"
                on:change=move |ev| {
                    let value = event_target_value(&ev);
                    set(&|e| e.severity.clone_from(&value));
                }
            >
                {option("licht")}
                {option("matig")}
                {option("ernstig")}
            </select>
            <button
                type="button"
                aria-label=move || label(main_key())
                title=move || label(main_key())
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
                {move || match main_key() {
                    Key::RestoreFinding => "↺",
                    Key::FindingDone => "✓",
                    _ => "✎",
                }}
            </button>
            <button
                type="button"
                hidden=move || removed() || editing()
                aria-label=move || label(Key::LeaveOutFinding)
                title=move || label(Key::LeaveOutFinding)
                class=ICON
                on:click=move |_| set(&|e| e.removed = true)
            >
                "✕"
            </button>
        </li>
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
