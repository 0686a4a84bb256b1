//! Nothing from the wire can panic the page: the browser's event reader, the reducer and the
//! Markdown parser take anything, and keep their promises while doing so.

use agora_hai::protocol::Event;
use agora_hai::protocol::wire::decode_event;
use agora_hai::ui::markdown::{BlockCutter, Cut, parse, plain_text};
use agora_hai::ui::state::{ChatState, ItemKind};
use proptest::prelude::*;
use proptest::sample::select;
use serde_json::{Value, json};

/// Markdown-ish text: the characters that open and close blocks and spans, and some words.
fn markdownish() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop_oneof![
            select(vec![
                "\n",
                "\n\n",
                "# ",
                "## ",
                "###### ",
                "```",
                "```rust\n",
                "~~~",
                "- ",
                "* ",
                "1. ",
                "10) ",
                "> ",
                "|",
                "| a | b |\n|---|:-:|\n",
                "**",
                "*",
                "_",
                "`",
                "[",
                "](",
                ")",
                "http://x",
                "javascript:alert(1)",
                "\\",
                "  ",
                "\t",
                "\r\n",
                "---\n",
                "<b>",
                "é",
                "🙂",
                "\u{202e}",
                "\0",
            ])
            .prop_map(str::to_owned),
            "[a-z ]{0,12}",
        ],
        0..60,
    )
    .prop_map(|parts| parts.concat())
}

/// Splits `text` into deltas at the given points (on char boundaries).
fn deltas(text: &str, cuts: &[usize]) -> Vec<String> {
    let mut points: Vec<usize> = cuts
        .iter()
        .map(|c| c % (text.len() + 1))
        .filter(|&c| text.is_char_boundary(c))
        .collect();
    points.sort_unstable();
    points.dedup();
    let mut out = Vec::new();
    let mut from = 0;
    for at in points {
        out.push(text[from..at].to_owned());
        from = at;
    }
    out.push(text[from..].to_owned());
    out
}

/// What the cutter makes of `parts`: the text it passed on as it came, and the finished
/// paragraphs with whether each ended a block.
fn cut(parts: &[String]) -> (String, Vec<(String, bool)>) {
    let mut cutter = BlockCutter::default();
    let mut shown = String::new();
    let mut done = Vec::new();
    for part in parts {
        cutter.push(part, |cut| match cut {
            Cut::Text(text) => shown.push_str(text),
            Cut::Done { text, block } => done.push((text, block)),
        });
    }
    (shown, done)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    #[test]
    fn markdown_parses_anything(text in markdownish()) {
        let blocks = parse(&text);
        let _ = plain_text(&blocks);
    }

    #[test]
    fn markdown_parses_any_unicode(text in "\\PC{0,200}") {
        let _ = plain_text(&parse(&text));
    }

    /// However an answer is cut into deltas, every character is shown once, in order, and the
    /// blocks end in the same places.
    #[test]
    fn the_block_cutter_does_not_depend_on_the_deltas(
        text in markdownish(),
        cuts in prop::collection::vec(any::<usize>(), 0..20),
    ) {
        let (whole_shown, whole_done) = cut(std::slice::from_ref(&text));
        let (shown, done) = cut(&deltas(&text, &cuts));
        prop_assert_eq!(&shown, &text);
        prop_assert_eq!(&whole_shown, &text);
        prop_assert_eq!(done, whole_done);
    }

    #[test]
    fn the_event_reader_takes_any_text(text in "\\PC{0,300}") {
        let _ = decode_event(&text);
    }
}

/// Ids from a small pool, so events meet each other's messages, calls and runs.
fn id() -> impl Strategy<Value = String> {
    select(vec!["a", "b", "c", ""]).prop_map(str::to_owned)
}

/// One server event, mostly well-formed, in any order relative to the others.
fn event() -> impl Strategy<Value = Value> {
    prop_oneof![
        (id(), id()).prop_map(|(t, r)| json!({"type": "RUN_STARTED", "threadId": t, "runId": r})),
        (id(), id()).prop_map(|(t, r)| json!({"type": "RUN_FINISHED", "threadId": t, "runId": r})),
        "\\PC{0,10}".prop_map(|m| json!({"type": "RUN_ERROR", "message": m, "code": "x"})),
        select(vec!["routing", "thinking", "executing_tools", ""])
            .prop_map(|s| json!({"type": "STEP_STARTED", "stepName": s})),
        select(vec!["routing", "thinking", "executing_tools"])
            .prop_map(|s| json!({"type": "STEP_FINISHED", "stepName": s})),
        (id(), select(vec!["assistant", "user", "tool", "system"]))
            .prop_map(|(m, r)| json!({"type": "TEXT_MESSAGE_START", "messageId": m, "role": r, "name": "agent"})),
        (id(), "\\PC{0,20}").prop_map(|(m, d)| json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": m, "delta": d})),
        id().prop_map(|m| json!({"type": "TEXT_MESSAGE_END", "messageId": m})),
        (id(), "\\PC{0,20}").prop_map(|(m, d)| json!({"type": "TEXT_MESSAGE_CHUNK", "messageId": m, "delta": d})),
        (id(), select(vec!["search_regulations", "generate_final_report", ""]))
            .prop_map(|(c, n)| json!({"type": "TOOL_CALL_START", "toolCallId": c, "toolCallName": n, "toolDisplayName": "X"})),
        (id(), "\\PC{0,20}").prop_map(|(c, d)| json!({"type": "TOOL_CALL_ARGS", "toolCallId": c, "delta": d})),
        id().prop_map(|c| json!({"type": "TOOL_CALL_END", "toolCallId": c})),
        (id(), "\\PC{0,30}").prop_map(|(c, content)| json!({"type": "TOOL_CALL_RESULT", "messageId": "r", "toolCallId": c, "content": content})),
        (id(), "\\PC{0,30}").prop_map(|(c, content)| json!({"type": "TOOL_CALL_RESULT", "messageId": "r", "toolCallId": c, "content": json!({"downloadUrl": content, "reportId": c}).to_string()})),
        Just(json!({"type": "STATE_SNAPSHOT", "snapshot": {"currentAgent": "regulation-agent", "inspection": {"company": null}}})),
        Just(json!({"type": "STATE_SNAPSHOT", "snapshot": 7})),
        Just(json!({"type": "STATE_DELTA", "delta": [{"op": "replace", "path": "/currentAgent", "value": "general-agent"}]})),
        Just(json!({"type": "STATE_DELTA", "delta": [{"op": "remove", "path": "/nope/0"}]})),
        Just(json!({"type": "MESSAGES_SNAPSHOT", "messages": [
            {"id": "u1", "role": "user", "content": "hallo"},
            {"id": "a", "role": "assistant", "content": "antwoord", "toolCalls": [{"id": "b", "type": "function", "function": {"name": "get_company_info", "arguments": "{}"}}]},
            {"id": "t1", "role": "tool", "toolCallId": "b", "content": "{}"}
        ]})),
        id().prop_map(|a| json!({"type": "CUSTOM", "name": "agora:tool_approval_request", "value": {
            "toolName": "generate_final_report", "toolDescription": "d", "parameters": {}, "reasoning": "r",
            "riskLevel": "critical", "approvalId": a, "toolCallId": a}})),
        Just(json!({"type": "CUSTOM", "name": "agora:tool_approval_request", "value": "broken"})),
        "\\PC{0,10}".prop_map(|m| json!({"type": "CUSTOM", "name": "agora:error", "value": {"errorCode": "x", "message": m}})),
        Just(json!({"type": "SOMETHING_NEW", "x": 1})),
    ]
}

/// What the page does besides receiving: typing, sending, answering, switching, dropping.
#[derive(Debug, Clone)]
enum Step {
    Event(Value),
    Type(String, bool),
    Sent,
    Answer(String),
    Switch(String),
    Disconnected,
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        8 => event().prop_map(Step::Event),
        1 => ("\\PC{0,10}", any::<bool>()).prop_map(|(t, q)| Step::Type(t, q)),
        1 => Just(Step::Sent),
        1 => id().prop_map(Step::Answer),
        1 => id().prop_map(Step::Switch),
        1 => Just(Step::Disconnected),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1000, ..ProptestConfig::default() })]

    /// Any sequence of events and actions: no panic, and what each step reports changed
    /// points at items and calls that exist, so the view never reads past the state.
    #[test]
    fn the_reducer_takes_any_sequence(steps in prop::collection::vec(step(), 0..80)) {
        let mut state = ChatState::new("a");
        for step in steps {
            let changes = match step {
                Step::Event(value) => match decode_event(&value.to_string()) {
                    Ok(event) => state.apply(&event),
                    Err(_) => continue,
                },
                Step::Type(text, queued) => state.push_user(text, queued),
                Step::Sent => state.queued_sent("a"),
                Step::Answer(id) => state.answer_approval(&id),
                Step::Switch(id) => state.switch_thread(id),
                Step::Disconnected => state.disconnected(),
            };
            let items = state.items.len();
            for &index in &changes.updated {
                prop_assert!(index < items, "updated {index} of {items}");
            }
            if let Some(from) = changes.appended_from {
                prop_assert!(from <= items);
            }
            if let Some(index) = changes.delta {
                prop_assert!(index < items);
                let is_text = matches!(
                    state.items[index].kind,
                    ItemKind::Assistant { .. } | ItemKind::User { .. }
                );
                prop_assert!(is_text);
            }
            for &call in &changes.tools {
                prop_assert!(call < state.tool_calls.len());
            }
            let mut keys: Vec<u64> = state.items.iter().map(|i| i.key).collect();
            keys.sort_unstable();
            keys.dedup();
            prop_assert_eq!(keys.len(), items, "item keys are unique (the view's list keys)");
            for item in &state.items {
                if let ItemKind::Tools { calls } = &item.kind {
                    prop_assert!(calls.iter().all(|&c| c < state.tool_calls.len()));
                }
            }
            let _ = state.run_view();
        }
    }

    /// The browser's reader and serde agree on whether an event is readable.
    #[test]
    fn the_reader_agrees_with_serde(value in event()) {
        let ours = decode_event(&value.to_string());
        let theirs = serde_json::from_value::<Event>(value.clone());
        prop_assert_eq!(ours.is_ok(), theirs.is_ok(), "{}", value);
        if let (Ok(ours), Ok(theirs)) = (ours, theirs) {
            prop_assert_eq!(ours, theirs);
        }
    }
}
