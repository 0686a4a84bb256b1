use leptos::prelude::*;
use serde_json::Value;

use crate::protocol::ToolApprovalRequest;
use crate::ui::chat::Chat;
use crate::ui::details::{Entry, field_entries, report_entries};
use crate::ui::i18n::Key;
use crate::ui::prefs::Prefs;
use crate::ui::present::pretty_json;
use crate::ui::state::ChatState;

const LABEL: &str =
    "mt-2 text-xs font-semibold tracking-wide uppercase text-slate-600 dark:text-slate-300";

/// What the approval would do, for a person: for the report, the company, the form's summary
/// and the findings as sentences; for any other tool its arguments as labelled fields
/// (`ui::details`). Every entry is drawn by the one `entry` view below (a view shape per
/// entry cost 20 KB of bundle). The raw JSON only under "technical details", wrapped so
/// nothing is cut at the edge of a phone.
#[component]
pub fn ApprovalDetails(request: Memo<Option<ToolApprovalRequest>>) -> impl IntoView {
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
            <dl>{move || entries().into_iter().map(entry).collect_view()}</dl>
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
