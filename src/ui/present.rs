//! How tool calls read on screen: names, statuses, durations, pretty JSON. Plain Rust.

use super::i18n::{Key, Lang, tool_display_name};
use super::state::{ToolCall, ToolStatus};

/// The name an inspector reads: the server's display name, a known tool's, else its id.
pub fn tool_label(call: &ToolCall, lang: Lang) -> String {
    // The server names tools in Dutch; in English a known tool gets its English name.
    let english = (lang == Lang::En)
        .then(|| tool_display_name(&call.name, lang))
        .flatten();
    english
        .map(str::to_owned)
        .or_else(|| call.display_name.clone())
        .or_else(|| tool_display_name(&call.name, lang).map(str::to_owned))
        .unwrap_or_else(|| {
            if call.name.is_empty() {
                call.id.clone()
            } else {
                call.name.clone()
            }
        })
}

/// Icon, label and chip colours of a status.
pub fn status_style(status: ToolStatus) -> (&'static str, Key, &'static str) {
    match status {
        ToolStatus::Streaming => ("…", Key::ToolStreaming, AMBER),
        ToolStatus::Running => ("⟳", Key::ToolRunning, AMBER),
        ToolStatus::Done => (
            "✓",
            Key::ToolDone,
            "border-emerald-300 bg-emerald-50 text-emerald-900 dark:border-emerald-700 dark:bg-emerald-950 dark:text-emerald-100",
        ),
        ToolStatus::Failed => (
            "✕",
            Key::ToolFailed,
            "border-red-300 bg-red-50 text-red-900 dark:border-red-700 dark:bg-red-950 dark:text-red-100",
        ),
        ToolStatus::Rejected => (
            "⊘",
            Key::ToolRejected,
            "border-slate-300 bg-slate-100 text-slate-800 dark:border-slate-600 dark:bg-slate-800 dark:text-slate-100",
        ),
    }
}

const AMBER: &str = "border-amber-300 bg-amber-50 text-amber-900 dark:border-amber-700 dark:bg-amber-950 dark:text-amber-100";

/// Pretty-printed JSON, else the text as it is; long texts are cut.
pub fn pretty(text: &str) -> String {
    const LIMIT: usize = 6000;
    let out = match serde_json::from_str::<serde_json::Value>(text) {
        Ok(value) => pretty_json(&value),
        Err(_) => text.to_owned(),
    };
    match out.char_indices().nth(LIMIT) {
        Some((cut, _)) => format!("{}\n…", &out[..cut]),
        None => out,
    }
}

/// JSON with two-space indentation, as `serde_json::to_string_pretty` writes it (without
/// its generic pretty serializer in the bundle).
pub fn pretty_json(value: &serde_json::Value) -> String {
    fn write(value: &serde_json::Value, depth: usize, out: &mut String) {
        use serde_json::Value;
        let indent = |out: &mut String, depth: usize| {
            out.push('\n');
            out.push_str(&"  ".repeat(depth));
        };
        match value {
            Value::Array(items) if !items.is_empty() => {
                out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    indent(out, depth + 1);
                    write(item, depth + 1, out);
                }
                indent(out, depth);
                out.push(']');
            }
            Value::Object(map) if !map.is_empty() => {
                out.push('{');
                for (i, (key, item)) in map.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    indent(out, depth + 1);
                    out.push_str(&Value::from(key.as_str()).to_string());
                    out.push_str(": ");
                    write(item, depth + 1, out);
                }
                indent(out, depth);
                out.push('}');
            }
            other => out.push_str(&other.to_string()),
        }
    }
    let mut out = String::new();
    write(value, 0, &mut out);
    out
}

pub fn duration_text(ms: u64) -> String {
    if ms < 1000 {
        format!("{ms} ms")
    } else {
        format!("{}.{} s", ms / 1000, (ms % 1000) / 100)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(name: &str, display: Option<&str>) -> ToolCall {
        ToolCall {
            id: "c1".into(),
            name: name.into(),
            display_name: display.map(Into::into),
            description: None,
            agent: None,
            args: String::new(),
            status: ToolStatus::Done,
            result: None,
            started_at: None,
            finished_at: None,
        }
    }

    #[test]
    fn labels_statuses_and_durations() {
        assert_eq!(tool_label(&call("x", Some("Iets")), Lang::Nl), "Iets");
        assert_eq!(
            tool_label(
                &call("get_company_info", Some("Bedrijfsgegevens ophalen")),
                Lang::En
            ),
            "Get company data"
        );
        assert_eq!(
            tool_label(&call("get_company_info", None), Lang::Nl),
            "Bedrijfsgegevens ophalen"
        );
        assert_eq!(
            tool_label(&call("get_company_info", None), Lang::En),
            "Get company data"
        );
        assert_eq!(
            tool_label(&call("custom_tool", None), Lang::Nl),
            "custom_tool"
        );
        assert_eq!(tool_label(&call("", None), Lang::Nl), "c1");
        assert_eq!(status_style(ToolStatus::Failed).1, Key::ToolFailed);
        assert_eq!(duration_text(42), "42 ms");
        assert_eq!(duration_text(1250), "1.2 s");
        assert_eq!(pretty("{\"a\":1}"), "{\n  \"a\": 1\n}");
        assert_eq!(pretty("geen json"), "geen json");
        for text in [
            r#"{"a":[1,{"b":null,"c":"x\"y"}],"d":{},"e":[],"f":1.5}"#,
            "[]",
            "\"s\"",
            r#"{"kvk":"99990001","findings":[{"description":"rauwe vis","severity":"ernstig"}]}"#,
        ] {
            let value: serde_json::Value = serde_json::from_str(text).unwrap();
            assert_eq!(
                pretty_json(&value),
                serde_json::to_string_pretty(&value).unwrap(),
                "{text}"
            );
        }
        assert!(pretty(&"x".repeat(10_000)).ends_with('…'));
    }
}
