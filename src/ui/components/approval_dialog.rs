//! The pending tool approvals, one at a time ("1 / n"): tool name and display name,
//! description, risk, reasoning, what it would do (`approval_details`), optional feedback;
//! Approve and Reject.
//! Ctrl/Cmd+Enter approves, Esc rejects. The frame behind is `inert` (the App does that) and
//! Tab wraps inside, so the focus stays in the dialog; it returns where it was when the last
//! approval is done. There while an approval waits; never on the server (no run waits then).

use leptos::html::{Div, Textarea};
use leptos::prelude::*;

use super::approval_details::ApprovalDetails;
use super::risk_badge::RiskBadge;
use serde_json::Value;

use crate::protocol::{RiskLevel, ToolApprovalRequest};
use crate::ui::chat::Chat;
use crate::ui::connection::Connection;
use crate::ui::css::{focus, muted};
use crate::ui::details::{edited_args, finding_edits, with_photos};
use crate::ui::i18n::{Key, agent_key, format, tool_about, tool_display_name};
use crate::ui::prefs::Prefs;

#[component]
pub fn ApprovalDialog() -> impl IntoView {
    let chat = expect_context::<Chat>();
    let open = Memo::new(move |_| chat.approvals.with(|all| !all.is_empty()));
    // Where the focus was before the dialog opened, to give it back when it closes.
    #[cfg(feature = "hydrate")]
    {
        let before = StoredValue::new_local(None::<web_sys::HtmlElement>);
        Effect::new(move |was_open: Option<bool>| {
            let now_open = open.get();
            use wasm_bindgen::JsCast;
            if now_open && was_open != Some(true) {
                before.set_value(
                    document()
                        .active_element()
                        .and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok()),
                );
            } else if !now_open
                && was_open == Some(true)
                && let Some(element) = before.try_update_value(Option::take).flatten()
            {
                request_animation_frame(move || {
                    let _ = element.focus();
                });
            }
            now_open
        });
    }
    view! {
        <Show when=move || open.get()>
            <Dialog />
        </Show>
    }
}

/// The overlay with the dialog, while at least one approval waits.
#[component]
fn Dialog() -> impl IntoView {
    let chat = expect_context::<Chat>();
    let prefs = expect_context::<Prefs>();
    let connection = expect_context::<Connection>();
    let index = RwSignal::new(0_usize);
    let feedback = RwSignal::new(String::new());
    let dialog = NodeRef::<Div>::new();
    let textarea = NodeRef::<Textarea>::new();
    let count = move || chat.approvals.with(Vec::len);
    let at = move || index.get().min(count().saturating_sub(1));
    let request = Memo::new(move |_| chat.approvals.with(|all| all.get(at()).cloned()));
    // The report's findings as the inspector corrects them, afresh for each request.
    let edits = RwSignal::new(Vec::new());
    Effect::new(move || {
        let findings = request.with(|r| {
            r.as_ref()
                .filter(|r| r.tool_name == "generate_final_report")
                .map(|r| {
                    let params = Value::Object(r.parameters.clone());
                    let mut edits = finding_edits(&params, r.extra.get("articles"));
                    // Each recorded finding with its photos, as the thread's state has them.
                    chat.with_state(|state| {
                        with_photos(&mut edits, &params, &state.shared["inspection"])
                    });
                    edits
                })
                .unwrap_or_default()
        });
        edits.set(findings);
    });
    // What an approval now sends instead of the agent's arguments, if anything changed.
    let edited = move || {
        request.with_untracked(|r| {
            let r = r.as_ref()?;
            edits.with(|e| edited_args(&Value::Object(r.parameters.clone()), e))
        })
    };
    let decide = move |approved: bool| {
        let Some(request) = request.get_untracked() else {
            return;
        };
        let text = feedback.get_untracked();
        feedback.set(String::new());
        // Approved with edits: the audit log keeps them beside the agent's arguments.
        let edited = if approved {
            edits.with_untracked(|e| edited_args(&Value::Object(request.parameters.clone()), e))
        } else {
            None
        };
        connection.answer_approval(&request.approval_id, approved, Some(text), edited);
        let left = chat.approvals.with_untracked(Vec::len);
        index.set(index.get_untracked().min(left.saturating_sub(1)));
    };
    // The feedback field has the focus whenever another request is shown; on a touch screen
    // the dialog itself, since a focused text box opens a keyboard that covers the buttons.
    Effect::new(move || {
        request.with(|r| r.as_ref().map(|r| r.approval_id.clone()));
        if prefs.touch.get_untracked() {
            if let Some(dialog) = dialog.get() {
                let _ = dialog.focus();
            }
        } else if let Some(area) = textarea.get() {
            let _ = area.focus();
        }
    });
    let on_keydown = move |ev: leptos::ev::KeyboardEvent| match ev.key().as_str() {
        "Escape" => {
            ev.prevent_default();
            decide(false);
        }
        "Enter" if ev.ctrl_key() || ev.meta_key() => {
            ev.prevent_default();
            decide(true);
        }
        "Tab" => trap_focus(&ev, dialog),
        _ => {}
    };
    let small = concat!(
        "rounded border border-slate-300 px-2 py-1 disabled:opacity-50 dark:border-slate-600 ",
        focus!()
    );
    let pager = move || {
        (count() > 1).then(|| {
            view! {
                <div class="mt-2 flex items-center gap-2 text-sm">
                    <button
                        type="button"
                        class=small
                        disabled=move || at() == 0
                        on:click=move |_| index.update(|i| *i = i.saturating_sub(1))
                    >
                        {prefs.text(Key::Previous)}
                    </button>
                    <span data-testid="approval-position" aria-live="polite">
                        <span aria-hidden="true">{move || format!("{} / {}", at() + 1, count())}</span>
                        <span class="sr-only">
                            {move || format(Key::ApprovalOf, prefs.lang.get(), &[&(at() + 1), &count()])}
                        </span>
                    </span>
                    <button
                        type="button"
                        class=small
                        disabled=move || { at() + 1 >= count() }
                        on:click=move |_| index.update(|i| *i += 1)
                    >
                        {prefs.text(Key::Next)}
                    </button>
                </div>
            }
        })
    };
    let field = move |key: Key| {
        view! {
            <dt class=concat!("mt-2 text-xs font-semibold tracking-wide uppercase ", muted!())>
                {move || prefs.t(key)}
            </dt>
        }
    };
    let with_request = move |f: fn(&ToolApprovalRequest) -> String| {
        move || request.with(|r| r.as_ref().map(f).unwrap_or_default())
    };
    // A known tool's own words in the page's language; the server's otherwise.
    let description = move || {
        let lang = prefs.lang.get();
        request.with(|r| {
            r.as_ref()
                .and_then(|r| tool_about(&r.tool_name, &r.tool_description, lang))
                .unwrap_or_default()
        })
    };
    let display_name = move || {
        request.with(|r| {
            let Some(r) = r else { return String::new() };
            let from_call = r
                .extra
                .get("toolCallId")
                .and_then(|v| v.as_str())
                .and_then(|id| {
                    chat.with_state(|s| s.tool_call(id).and_then(|c| c.display_name.clone()))
                });
            from_call
                .or_else(|| tool_display_name(&r.tool_name, prefs.lang.get()).map(str::to_owned))
                .unwrap_or_else(|| r.tool_name.clone())
        })
    };
    let risk = Signal::derive(move || {
        request.with(|r| {
            r.as_ref()
                .map(|r| r.risk_level)
                .unwrap_or(crate::protocol::RiskLevel::Critical)
        })
    });
    // Why it asks, in the page's language: the server's sentence (agent, tool, risk; always
    // that one) is Dutch and names the tool's id, which the Tool line shows already.
    let reasoning = move || {
        let lang = prefs.lang.get();
        let tool = display_name();
        // The agent whose call it is: the run's, as `/ws` announces a call only once it is
        // decided (a call announced first carries its agent).
        let running = chat.run.with(|run| run.agent.clone());
        request
            .with(|r| {
                let r = r.as_ref()?;
                let agent = r
                    .extra
                    .get("toolCallId")
                    .and_then(|v| v.as_str())
                    .and_then(|id| {
                        chat.with_state(|s| s.tool_call(id).and_then(|c| c.agent.clone()))
                    })
                    .or(running)
                    .and_then(|id| agent_key(&id))?;
                let risk = match r.risk_level {
                    RiskLevel::Low => Key::RiskLow,
                    RiskLevel::Medium => Key::RiskMedium,
                    RiskLevel::High => Key::RiskHigh,
                    RiskLevel::Critical => Key::RiskCritical,
                };
                Some(format(
                    Key::ApprovalWhy,
                    lang,
                    &[&agent.text(lang), &tool, &risk.text(lang)],
                ))
            })
            .or_else(|| request.with(|r| r.as_ref().map(|r| r.reasoning.clone())))
            .unwrap_or_default()
    };
    view! {
        <div class="fixed inset-0 z-50 flex items-end justify-center bg-slate-950/60 p-2 sm:items-center">
            <div
                node_ref=dialog
                role="dialog"
                tabindex="-1"
                aria-modal="true"
                aria-labelledby="approval-title"
                aria-describedby="approval-description"
                class="max-h-[92dvh] w-full max-w-xl overflow-y-auto rounded-xl bg-white p-4 outline-none text-slate-900 shadow-2xl sm:p-6 dark:bg-slate-900 dark:text-slate-100"
                on:keydown=on_keydown
            >
                <div class="flex flex-wrap items-center justify-between gap-2">
                    <h2 id="approval-title" class="text-lg font-semibold">
                        {prefs.text(Key::ApprovalTitle)}
                    </h2>
                    <RiskBadge level=risk />
                </div>
                {pager}
                <dl class="mt-2">
                    {field(Key::Tool)}
                    <dd>
                        <span class="font-semibold">{display_name}</span>
                        " "
                        <code class="rounded bg-slate-100 px-1 text-sm dark:bg-slate-800">
                            {with_request(|r| r.tool_name.clone())}
                        </code>
                    </dd>
                    {field(Key::Description)}
                    <dd id="approval-description">{description}</dd>
                    {field(Key::Reasoning)}
                    <dd>{reasoning}</dd>
                </dl>
                <ApprovalDetails request edits />
                <label for="approval-feedback" class="mt-3 block text-sm font-medium">
                    {prefs.text(Key::Feedback)}
                </label>
                <textarea
                    id="approval-feedback"
                    node_ref=textarea
                    rows="2"
                    class="mt-1 w-full rounded-lg border border-slate-300 bg-white p-2 text-sm focus:outline-2 focus:outline-emerald-700 dark:border-slate-600 dark:bg-slate-950"
                    prop:value=move || feedback.get()
                    on:input=move |ev| feedback.set(event_target_value(&ev))
                ></textarea>
                <p class=concat!("mt-1 text-xs ", muted!())>{prefs.text(Key::ApprovalKeys)}</p>
                <div class="mt-4 flex flex-wrap justify-end gap-2">
                    <button
                        type="button"
                        class="rounded-lg border border-red-700 px-4 py-2 font-medium text-red-800 hover:bg-red-50 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-red-700 dark:border-red-400 dark:text-red-200 dark:hover:bg-red-950"
                        on:click=move |_| decide(false)
                    >
                        {prefs.text(Key::Reject)}
                    </button>
                    <button
                        type="button"
                        class=concat!("rounded-lg bg-emerald-800 px-4 py-2 font-medium text-white hover:bg-emerald-900 ", focus!())
                        on:click=move |_| decide(true)
                    >
                        {move || {
                            prefs.t(if edited().is_some() { Key::ApproveWithEdits } else { Key::Approve })
                        }}
                    </button>
                </div>
            </div>
        </div>
    }
}

/// Tab and Shift+Tab wrap around inside the dialog. What can take the focus: the technical
/// details' `summary` too, and what is inside them only while they are open.
fn trap_focus(ev: &leptos::ev::KeyboardEvent, dialog: NodeRef<Div>) {
    #[cfg(feature = "hydrate")]
    {
        use wasm_bindgen::JsCast;
        let Some(dialog) = dialog.get() else { return };
        let Ok(list) = dialog.query_selector_all(
            "summary, button:not([disabled]), textarea, select, input, a[href], \
             [tabindex='0']:not(details:not([open]) *)",
        ) else {
            return;
        };
        // Only what is drawn takes the focus: a finding's boxes are `hidden` until it is
        // corrected, and wrapping to one of them would let the focus leave the dialog.
        let drawn: Vec<web_sys::HtmlElement> = (0..list.length())
            .filter_map(|i| list.item(i)?.dyn_into::<web_sys::HtmlElement>().ok())
            .filter(|el| el.offset_parent().is_some())
            .collect();
        let (Some(first), Some(last)) = (drawn.first(), drawn.last()) else {
            return;
        };
        let active = document().active_element();
        let is = |node: &web_sys::Node| active.as_ref().is_some_and(|a| a.is_same_node(Some(node)));
        let inside = active
            .as_ref()
            .is_some_and(|a| dialog.contains(Some(a.unchecked_ref())));
        let target = if ev.shift_key() {
            (is(first) || !inside).then_some(last)
        } else {
            (is(last) || !inside).then_some(first)
        };
        if let Some(target) = target {
            ev.prevent_default();
            let _ = target.focus();
        }
    }
    #[cfg(not(feature = "hydrate"))]
    let _ = (ev, dialog);
}
