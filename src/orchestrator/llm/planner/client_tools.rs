//! Tools of the client (standard AG-UI: `RunAgentInput.tools`), for any agent.

use serde_json::{Value, json};

use super::lang::{Lang, detect_language};
use super::text::shorten;
use super::thread::{Outcome, Thread, str_at};
use super::{SERVER_TOOLS, Step, ToolSpec};
use crate::orchestrator::knowledge::normalize;

/// A model cannot guess what a tool it has never seen is for, so the rule is literal: a client
/// tool is called when the last user message names it, by its identifier or its words in order
/// ("show_checklist", "show checklist"; a one-word name only as `` `name` ``), once per run, with
/// the user's text for each required string parameter. When its result is the latest thing in
/// the run, the agent reports what it returned.
pub(super) fn client_tool_step(thread: &Thread, offered: &[ToolSpec]) -> Option<Step> {
    let text = thread.user_text();
    let lang = detect_language(&text);
    if let Some(done) = thread.run_outcomes().last()
        && !SERVER_TOOLS.contains(&done.name.as_str())
        && (done.result.is_some() || done.error.is_some())
    {
        return Some(Step::Say(client_result_text(done, lang)));
    }
    let tool = offered.iter().find(|tool| {
        !SERVER_TOOLS.contains(&tool.name.as_str())
            && thread.in_run(&tool.name).is_none()
            && names_tool(&text, &tool.name)
    })?;
    let mut arguments = serde_json::Map::new();
    let required = tool.parameters.get("required").and_then(Value::as_array);
    for key in required.into_iter().flatten().filter_map(Value::as_str) {
        let kind = str_at(&tool.parameters, &["properties", key, "type"]);
        if kind == Some("string") {
            arguments.insert(key.to_owned(), json!(text.trim()));
        }
    }
    Some(Step::CallClient(
        tool.name.clone(),
        Value::Object(arguments),
    ))
}

pub(super) fn names_tool(text: &str, name: &str) -> bool {
    let words = normalize(name);
    if words.is_empty() {
        return false;
    }
    if !words.contains(' ') {
        return text.contains(&format!("`{name}`"));
    }
    format!(" {} ", normalize(text)).contains(&format!(" {words} "))
}

fn client_result_text(outcome: &Outcome, lang: Lang) -> String {
    let name = &outcome.name;
    if let Some(error) = &outcome.error {
        let error = shorten(error, 300);
        return match lang {
            Lang::Nl => format!("`{name}` meldde een fout: {error}"),
            Lang::En => format!("`{name}` reported an error: {error}"),
        };
    }
    let result = match &outcome.result {
        Some(Value::String(text)) => text.clone(),
        Some(value) => value.to_string(),
        None => String::new(),
    };
    let result = shorten(&result, 500);
    match lang {
        Lang::Nl => format!("`{name}` gaf als resultaat:\n\n> {result}"),
        Lang::En => format!("`{name}` returned:\n\n> {result}"),
    }
}
