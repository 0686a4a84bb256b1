use leptos::prelude::*;
use serde_json::Value;

use crate::protocol::ToolApprovalRequest;
use crate::ui::chat::Chat;
use crate::ui::css::MUTED;
use crate::ui::i18n::Key;
use crate::ui::prefs::Prefs;
use crate::ui::present::pretty_json;
use crate::ui::state::{ChatState, FormPreview};

const LABEL: &str = "mt-2 text-xs font-semibold tracking-wide uppercase";

/// What the approval would do, for a person: for the report, the company and the form's
/// summary (each section with its status, the violations, completion, a repeat violation, the
/// hygiene code, what is still open) and the findings as sentences; for any other tool its
/// arguments as labelled fields. The raw JSON only under "technical details", wrapped so
/// nothing is cut at the edge of a phone.
#[component]
pub fn ApprovalDetails(request: Memo<Option<ToolApprovalRequest>>) -> impl IntoView {
    let chat = expect_context::<Chat>();
    let prefs = expect_context::<Prefs>();
    let body = move || {
        let request = request.get()?;
        let params = Value::Object(request.parameters.clone());
        let view = if request.tool_name == "generate_final_report" {
            let form = chat.with_state(ChatState::form_preview);
            view! { <ReportSummary params=params.clone() form /> }.into_any()
        } else {
            view! { <Fields params=params.clone() /> }.into_any()
        };
        Some(view! {
            {view}
            <details class="mt-3">
                <summary class="cursor-pointer text-sm">{prefs.text(Key::TechnicalDetails)}</summary>
                <pre
                    tabindex="0"
                    class="mt-1 max-h-56 overflow-y-auto rounded bg-slate-100 p-2 text-xs break-all whitespace-pre-wrap dark:bg-slate-800"
                >
                    {pretty_json(&params)}
                </pre>
            </details>
        })
    };
    view! { <div data-testid="approval-details">{body}</div> }
}

/// The report's approval: company, form summary, findings.
#[component]
fn ReportSummary(params: Value, form: Option<FormPreview>) -> impl IntoView {
    let prefs = expect_context::<Prefs>();
    let label = move |key: Key| {
        view! { <dt class=format!("{LABEL} {MUTED}")>{move || prefs.t(key)}</dt> }
    };
    let text = |key: &str| {
        params
            .get(key)
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned()
    };
    let company = match (text("company_name"), text("kvk")) {
        (name, kvk) if !name.is_empty() => format!("{name} (KVK {kvk})"),
        (_, kvk) => format!("KVK {kvk}"),
    };
    let findings: Vec<(String, String)> = params
        .get("findings")
        .and_then(Value::as_array)
        .map(|list| {
            list.iter()
                .filter_map(|f| {
                    Some((
                        f.get("description")?.as_str()?.to_owned(),
                        f.get("severity")
                            .and_then(Value::as_str)
                            .unwrap_or_default()
                            .to_owned(),
                    ))
                })
                .collect()
        })
        .unwrap_or_default();
    let form = form.map(|f| {
        let completion = f.completion.map(|c| format!("{} %", c.to_string().replace('.', ",")));
        let rows = f
            .sections
            .into_iter()
            .map(|(title, status)| {
                let tone = match status.as_str() {
                    "Nee" => "text-red-800 dark:text-red-300",
                    "Ja" => "text-emerald-800 dark:text-emerald-300",
                    _ => MUTED,
                };
                view! {
                    <li class="flex justify-between gap-3">
                        <span class="min-w-0">{title}</span>
                        <span class=format!("shrink-0 font-semibold {tone}")>{status}</span>
                    </li>
                }
            })
            .collect_view();
        let repeat = f.repeat_of.map(|id| {
            view! {
                <p class="mt-1 text-sm font-semibold text-red-800 dark:text-red-300">
                    {move || prefs.t(Key::RepeatViolation)} {format!(" {id}")}
                </p>
            }
        });
        let code = f.hygiene_code.map(|code| {
            view! {
                {label(Key::HygieneCode)}
                <dd>{code}</dd>
            }
        });
        let open = (!f.open_questions.is_empty()).then(|| {
            let items = f
                .open_questions
                .into_iter()
                .map(|q| view! { <li>{q}</li> })
                .collect_view();
            view! {
                {label(Key::StillOpen)}
                <dd>
                    <ul class="list-disc pl-5 text-sm">{items}</ul>
                </dd>
            }
        });
        view! {
            {label(Key::InspectionForm)}
            <dd data-testid="form-summary">
                <p class="text-sm">
                    {move || prefs.t(Key::FormCompletion)} {format!(": {}", completion.clone().unwrap_or_default())}
                    " · "
                    {move || prefs.t(Key::ViolationCount)} {format!(": {}", f.violations)}
                </p>
                <ul class="mt-1 space-y-0.5 text-sm">{rows}</ul>
                {repeat}
            </dd>
            {code}
            {open}
        }
    });
    let findings = (!findings.is_empty()).then(|| {
        let items = findings
            .into_iter()
            .map(|(description, severity)| {
                view! {
                    <li>
                        {description}
                        <span class=format!("ml-1 text-xs {MUTED}")>{format!("({severity})")}</span>
                    </li>
                }
            })
            .collect_view();
        view! {
            {label(Key::FindingsList)}
            <dd>
                <ol class="list-decimal pl-5 text-sm">{items}</ol>
            </dd>
        }
    });
    view! {
        <dl>
            {label(Key::Company)}
            <dd class="font-semibold">{company}</dd>
            {form}
            {findings}
        </dl>
    }
}

/// Any other tool: each argument as a labelled field, its value as text.
#[component]
fn Fields(params: Value) -> impl IntoView {
    let rows = params.as_object().map(|map| {
        map.iter()
            .map(|(key, value)| {
                let label = key.replace('_', " ");
                view! {
                    <dt class=format!("{LABEL} {MUTED}")>{label}</dt>
                    <dd class="text-sm break-words">{value_text(value)}</dd>
                }
            })
            .collect_view()
    });
    view! { <dl>{rows}</dl> }
}

/// A value as a person reads it: text as it is, a list joined, anything else as compact JSON.
fn value_text(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        Value::Array(items) => items.iter().map(value_text).collect::<Vec<_>>().join(", "),
        Value::Null => "—".to_owned(),
        other => other.to_string(),
    }
}
