//! The pending tool approvals, one at a time ("1 / n"): tool name and display name,
//! description, risk, reasoning, parameters, optional feedback; Approve and Reject.
//! Ctrl/Cmd+Enter approves, Esc rejects. The page behind is `inert` and Tab wraps inside, so
//! the focus stays in the dialog; it returns where it was when the last approval is done.
//! The server never renders it (no run waits then); the browser builds it when a request
//! arrives and removes it when none is left.

use leptos::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::Element;

use crate::ui::chat::Chat;
use crate::ui::connection::Connection;
use crate::ui::dom::{self, attr, by_id, child, effect, flag};
use crate::ui::prefs::Prefs;

pub fn bind() {
    let chat = expect_context::<Chat>();
    let connection = expect_context::<Connection>();
    let prefs = expect_context::<Prefs>();
    let index = RwSignal::new(0_usize);
    let feedback = StoredValue::new(String::new());
    // The open dialog (overlay, dialog) and where the focus was before it opened.
    let shown = StoredValue::new_local(None::<(Element, Element, Option<Element>)>);
    let decide = move |approved: bool| {
        let current = chat.approvals.with_untracked(|all| {
            all.get(index.get_untracked().min(all.len().saturating_sub(1)))
                .map(|a| a.approval_id.clone())
        });
        if let Some(id) = current {
            let text = feedback.get_value();
            feedback.set_value(String::new());
            connection.answer_approval(&id, approved, Some(text));
            let left = chat.approvals.with_untracked(Vec::len);
            index.set(index.get_untracked().min(left.saturating_sub(1)));
        }
    };
    let frame = by_id("frame");
    effect(move || {
        prefs.lang.track();
        let at = index.get();
        chat.approvals.with(|all| {
            let Some(request) = all.get(at.min(all.len().saturating_sub(1))) else {
                // None left: close, and give the focus back.
                if let Some((overlay, _, previous)) = shown.try_update_value(Option::take).flatten()
                {
                    overlay.remove();
                    flag(&frame, "inert", false);
                    if let Some(element) = previous {
                        request_animation_frame(move || dom::focus(&element));
                    }
                }
                return;
            };
            if shown.with_value(Option::is_none) {
                let previous = dom::doc()
                    .active_element()
                    .filter(|e| e.id() != "approval-feedback");
                let (overlay, dialog) = open(decide, index, feedback);
                flag(&frame, "inert", true);
                shown.set_value(Some((overlay, dialog, previous)));
            }
            let name = request
                .extra
                .get("toolCallId")
                .and_then(|v| v.as_str())
                .and_then(|id| {
                    chat.with_state(|s| s.tool_call(id).and_then(|c| c.display_name.clone()))
                });
            shown.with_value(|shown| {
                if let Some((_, dialog, _)) = shown {
                    render(
                        dialog,
                        request,
                        name,
                        at.min(all.len() - 1),
                        all.len(),
                        &feedback.get_value(),
                    );
                    dom::focus_first(dialog, "#approval-feedback");
                }
            });
        });
    });
}

/// The overlay and the dialog in it, with its keys and buttons.
fn open(
    decide: impl Fn(bool) + Copy + 'static,
    index: RwSignal<usize>,
    feedback: StoredValue<String>,
) -> (Element, Element) {
    let overlay = child(
        &dom::doc().body().expect("a body").into(),
        "div",
        "fixed inset-0 z-50 flex items-end justify-center bg-slate-950/60 p-2 sm:items-center",
    );
    let dialog = child(
        &overlay,
        "div",
        "max-h-[92dvh] w-full max-w-xl overflow-y-auto rounded-xl bg-white p-4 text-slate-900 shadow-2xl sm:p-6 dark:bg-slate-900 dark:text-slate-100",
    );
    for (name, value) in [
        ("role", "dialog"),
        ("aria-modal", "true"),
        ("aria-labelledby", "approval-title"),
        ("aria-describedby", "approval-description"),
    ] {
        attr(&dialog, name, value);
    }
    dom::listen(&dialog, "click", move |ev| {
        let Some((action, _)) = dom::action(&ev) else {
            return;
        };
        match action.as_str() {
            "approve" => decide(true),
            "reject" => decide(false),
            "previous" => index.update(|i| *i = i.saturating_sub(1)),
            "next" => index.update(|i| *i += 1),
            _ => {}
        }
    });
    dom::listen(&dialog, "input", move |ev| {
        if let Some(area) = ev
            .target()
            .and_then(|t| t.dyn_into::<web_sys::HtmlTextAreaElement>().ok())
        {
            feedback.set_value(area.value());
        }
    });
    let trap_root = dialog.clone();
    dom::listen(&dialog, "keydown", move |ev| {
        let Some(key) = ev.dyn_ref::<web_sys::KeyboardEvent>() else {
            return;
        };
        match key.key().as_str() {
            "Escape" => {
                ev.prevent_default();
                decide(false);
            }
            "Enter" if key.ctrl_key() || key.meta_key() => {
                ev.prevent_default();
                decide(true);
            }
            "Tab" => trap_focus(key, &trap_root),
            _ => {}
        }
    });
    (overlay, dialog)
}

/// Draws one approval request into the dialog.
fn render(
    host: &web_sys::Element,
    request: &crate::protocol::ToolApprovalRequest,
    display_name: Option<String>,
    at: usize,
    count: usize,
    feedback: &str,
) {
    use super::risk_badge;
    use crate::ui::dom::{attr, button, child, child_text, clear, css, t, text};
    use crate::ui::i18n::{Key, format, tool_display_name};

    clear(host);
    let head = child(
        host,
        "div",
        "flex flex-wrap items-center justify-between gap-2",
    );
    let title = child_text(&head, "h2", "text-lg font-semibold", t(Key::ApprovalTitle));
    attr(&title, "id", "approval-title");
    let _ = head.append_child(&risk_badge::render(request.risk_level));
    const SMALL: &str =
        "rounded border border-slate-300 px-2 py-1 disabled:opacity-50 dark:border-slate-600";
    if count > 1 {
        let pager = child(host, "div", "mt-2 flex items-center gap-2 text-sm");
        let previous = button(&pager, &format!("{SMALL} {}", css::FOCUS), t(Key::Previous));
        attr(&previous, "data-action", "previous");
        if at == 0 {
            attr(&previous, "disabled", "");
        }
        let position = child(&pager, "span", "");
        attr(&position, "data-testid", "approval-position");
        attr(&position, "aria-live", "polite");
        attr(
            &child_text(&position, "span", "", &format!("{} / {count}", at + 1)),
            "aria-hidden",
            "true",
        );
        child_text(
            &position,
            "span",
            "sr-only",
            &format(
                Key::ApprovalOf,
                crate::ui::dom::lang(),
                &[&(at + 1), &count],
            ),
        );
        let next = button(&pager, &format!("{SMALL} {}", css::FOCUS), t(Key::Next));
        attr(&next, "data-action", "next");
        if at + 1 >= count {
            attr(&next, "disabled", "");
        }
    }
    let list = child(host, "dl", "mt-2");
    let field = |key: Key| {
        child_text(
            &list,
            "dt",
            &format!(
                "mt-2 text-xs font-semibold tracking-wide uppercase {}",
                css::MUTED
            ),
            t(key),
        );
        child(&list, "dd", "")
    };
    let tool = field(Key::Tool);
    let name = display_name
        .or_else(|| {
            tool_display_name(&request.tool_name, crate::ui::dom::lang()).map(str::to_owned)
        })
        .unwrap_or_else(|| request.tool_name.clone());
    child_text(&tool, "span", "font-semibold", &name);
    text(&tool, " ");
    child_text(
        &tool,
        "code",
        "rounded bg-slate-100 px-1 text-sm dark:bg-slate-800",
        &request.tool_name,
    );
    let description = field(Key::Description);
    attr(&description, "id", "approval-description");
    text(&description, &request.tool_description);
    text(&field(Key::Reasoning), &request.reasoning);
    let parameters = child_text(
        &field(Key::Parameters),
        "pre",
        "max-h-56 overflow-auto rounded bg-slate-100 p-2 text-xs dark:bg-slate-800",
        &crate::ui::present::pretty_json(&serde_json::Value::Object(request.parameters.clone())),
    );
    attr(&parameters, "tabindex", "0");
    let label = child_text(
        host,
        "label",
        "mt-3 block text-sm font-medium",
        t(Key::Feedback),
    );
    attr(&label, "for", "approval-feedback");
    let area = child(
        host,
        "textarea",
        "mt-1 w-full rounded-lg border border-slate-300 bg-white p-2 text-sm focus:outline-2 focus:outline-emerald-700 dark:border-slate-600 dark:bg-slate-950",
    );
    attr(&area, "id", "approval-feedback");
    attr(&area, "rows", "2");
    text(&area, feedback);
    child_text(
        host,
        "p",
        &format!("mt-1 text-xs {}", css::MUTED),
        t(Key::ApprovalKeys),
    );
    let actions = child(host, "div", "mt-4 flex flex-wrap justify-end gap-2");
    let reject = button(
        &actions,
        "rounded-lg border border-red-700 px-4 py-2 font-medium text-red-800 hover:bg-red-50 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-red-700 dark:border-red-400 dark:text-red-200 dark:hover:bg-red-950",
        t(Key::Reject),
    );
    attr(&reject, "data-action", "reject");
    let approve = button(
        &actions,
        &format!(
            "rounded-lg bg-emerald-800 px-4 py-2 font-medium text-white hover:bg-emerald-900 {}",
            css::FOCUS
        ),
        t(Key::Approve),
    );
    attr(&approve, "data-action", "approve");
}

/// Tab and Shift+Tab wrap around inside the dialog.
fn trap_focus(ev: &web_sys::KeyboardEvent, dialog: &web_sys::Element) {
    use wasm_bindgen::JsCast;
    let Ok(list) = dialog.query_selector_all(
        "button:not([disabled]), textarea, select, input, a[href], [tabindex='0']",
    ) else {
        return;
    };
    let len = list.length();
    let (Some(first), Some(last)) = (list.item(0), list.item(len.saturating_sub(1))) else {
        return;
    };
    let active = crate::ui::dom::doc().active_element();
    let is = |node: &web_sys::Node| active.as_ref().is_some_and(|a| a.is_same_node(Some(node)));
    let inside = active
        .as_ref()
        .is_some_and(|a| dialog.contains(Some(a.unchecked_ref())));
    let target = if ev.shift_key() {
        (is(&first) || !inside).then_some(last)
    } else {
        (is(&last) || !inside).then_some(first)
    };
    if let Some(target) = target.and_then(|n| n.dyn_into::<web_sys::Element>().ok()) {
        ev.prevent_default();
        crate::ui::dom::focus(&target);
    }
}
