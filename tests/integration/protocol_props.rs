//! Whatever arrives on the socket, parsing, verifying and patching return instead of panicking.

use agora_hai::protocol::{
    AgoraEvent, ClientMessage, Dialect, Event, PatchOperation, Verifier, apply_patch,
};
use proptest::prelude::*;
use proptest::sample::select;
use serde_json::{Map, Value, json};

/// Keys the parsers look for, mixed with random ones so typed paths are reached.
const KEYS: &[&str] = &[
    "type",
    "threadId",
    "runId",
    "messageId",
    "toolCallId",
    "toolCallName",
    "stepName",
    "delta",
    "role",
    "content",
    "messages",
    "snapshot",
    "name",
    "value",
    "timestamp",
    "metadata",
    "rawEvent",
    "result",
    "outcome",
    "parentMessageId",
    "patch",
    "activityType",
    "subtype",
    "entityId",
    "encryptedValue",
    "event",
    "input",
    "context",
    "tools",
    "toolCalls",
    "op",
    "path",
    "from",
];

/// Types that are not events, or deprecated ones, next to `Event::KINDS`.
const OTHER_TYPES: &[&str] = &["THINKING_START", "user", "success"];

/// A `type`: mostly the known ones, sometimes another.
fn kind() -> impl Strategy<Value = &'static str> {
    select(
        Event::KINDS
            .iter()
            .chain(OTHER_TYPES)
            .copied()
            .collect::<Vec<_>>(),
    )
}

fn key() -> impl Strategy<Value = String> {
    prop_oneof![select(KEYS).prop_map(String::from), "[a-zA-Z_]{0,6}"]
}

fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        any::<f64>().prop_map(Value::from),
        kind().prop_map(Value::from),
        ".{0,8}".prop_map(Value::from),
    ];
    leaf.prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::vec((key(), inner), 0..8)
                .prop_map(|entries| Value::Object(entries.into_iter().collect::<Map<_, _>>())),
        ]
    })
}

/// An object with a known `type` and mostly relevant keys: reaches the typed parsers.
fn event_like() -> impl Strategy<Value = Value> {
    (kind(), prop::collection::vec((key(), json_value()), 0..8)).prop_map(|(kind, entries)| {
        let mut object: Map<String, Value> = entries.into_iter().collect();
        object.insert("type".into(), kind.into());
        Value::Object(object)
    })
}

/// One valid event of every AG-UI type, with the optional fields set.
fn templates() -> Vec<Value> {
    let patch = json!([{"op": "replace", "path": "/status", "value": "done"}]);
    vec![
        json!({"type": "RUN_STARTED", "threadId": "t", "runId": "r", "parentRunId": "p",
            "input": {"threadId": "t", "runId": "r", "messages": [], "tools": [], "context": []}}),
        json!({"type": "RUN_FINISHED", "threadId": "t", "runId": "r", "result": null,
            "outcome": {"type": "interrupt", "interrupts": [{"id": "i", "reason": "approval",
                "toolCallId": "c", "responseSchema": {"type": "object"}}]}}),
        json!({"type": "RUN_FINISHED", "threadId": "t", "runId": "r", "outcome": {"type": "success"}}),
        json!({"type": "RUN_FINISHED", "threadId": "t", "runId": "r", "outcome": null}),
        json!({"type": "RUN_ERROR", "message": "m", "code": "c", "timestamp": 1}),
        json!({"type": "STEP_STARTED", "stepName": "s", "metadata": {"ag-ui": {}}}),
        json!({"type": "STEP_FINISHED", "stepName": "s", "rawEvent": null}),
        json!({"type": "TEXT_MESSAGE_START", "messageId": "m", "role": "developer", "name": "n"}),
        json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": "d"}),
        json!({"type": "TEXT_MESSAGE_END", "messageId": "m"}),
        json!({"type": "TEXT_MESSAGE_CHUNK", "messageId": "m", "role": "user", "delta": "d"}),
        json!({"type": "TOOL_CALL_START", "toolCallId": "c", "toolCallName": "n",
            "parentMessageId": "m", "toolDisplayName": "Zoeken"}),
        json!({"type": "TOOL_CALL_ARGS", "toolCallId": "c", "delta": "{"}),
        json!({"type": "TOOL_CALL_END", "toolCallId": "c"}),
        json!({"type": "TOOL_CALL_CHUNK", "toolCallId": "c", "parentMessageId": null, "delta": "}"}),
        json!({"type": "TOOL_CALL_RESULT", "messageId": "m", "toolCallId": "c", "content": "x", "role": "tool"}),
        json!({"type": "STATE_SNAPSHOT", "snapshot": {"status": "processing"}}),
        json!({"type": "STATE_DELTA", "delta": patch}),
        json!({"type": "MESSAGES_SNAPSHOT", "messages": [{"id": "1", "role": "user", "content": "hi"},
            {"id": "2", "role": "assistant", "content": "hello"}]}),
        json!({"type": "ACTIVITY_SNAPSHOT", "messageId": "m", "activityType": "plan",
            "content": {"steps": []}, "replace": false}),
        json!({"type": "ACTIVITY_DELTA", "messageId": "m", "activityType": "plan", "patch": patch}),
        json!({"type": "REASONING_START", "messageId": "m"}),
        json!({"type": "REASONING_MESSAGE_START", "messageId": "m", "role": "reasoning"}),
        json!({"type": "REASONING_MESSAGE_CONTENT", "messageId": "m", "delta": "d"}),
        json!({"type": "REASONING_MESSAGE_END", "messageId": "m"}),
        json!({"type": "REASONING_MESSAGE_CHUNK", "messageId": "m", "delta": "d"}),
        json!({"type": "REASONING_END", "messageId": "m"}),
        json!({"type": "REASONING_ENCRYPTED_VALUE", "subtype": "tool-call", "entityId": "c",
            "encryptedValue": "xyz"}),
        json!({"type": "RAW", "event": {"any": 1}, "source": "langgraph"}),
        json!({"type": "CUSTOM", "name": "agora:spoken_text_end", "value": {"messageId": "m"}}),
    ]
}

fn with_entries(mut template: Value, entries: Vec<(String, Value)>) -> Value {
    template.as_object_mut().unwrap().extend(entries);
    template
}

/// Whatever parses re-serialises, and parses again to the same value.
fn check_parsers(value: &Value) {
    if let Ok(event) = serde_json::from_value::<Event>(value.clone()) {
        let again = serde_json::to_value(&event).unwrap();
        assert_eq!(serde_json::from_value::<Event>(again).unwrap(), event);
        if let Event::Custom(custom) = &event {
            let _ = AgoraEvent::from_custom(&custom.name, &custom.value);
        }
    }
    if let Ok(message) = serde_json::from_value::<ClientMessage>(value.clone()) {
        let again = serde_json::to_value(&message).unwrap();
        assert_eq!(
            serde_json::from_value::<ClientMessage>(again).unwrap(),
            message
        );
    }
}

/// A small alphabet of events over two ids, so sequences hit the verifier's rules often.
fn event() -> impl Strategy<Value = Event> {
    let id = || select(&["a", "b"][..]);
    let delta = || select(&["", "x"][..]);
    prop_oneof![
        Just(Event::run_started("t", "r")),
        Just(Event::run_finished("t", "r")),
        Just(Event::run_error("e", "c")),
        Just(Event::state_snapshot(json!({}))),
        Just(Event::custom("agora:error", json!({}))),
        Just(Event::custom("other", json!(null))),
        id().prop_map(Event::step_started),
        id().prop_map(Event::step_finished),
        id().prop_map(Event::text_message_start),
        (id(), delta()).prop_map(|(i, d)| Event::text_message_content(i, d)),
        id().prop_map(Event::text_message_end),
        id().prop_map(|i| Event::tool_call_start(i, "tool")),
        (id(), delta()).prop_map(|(i, d)| Event::tool_call_args(i, d)),
        id().prop_map(Event::tool_call_end),
        id().prop_map(|i| Event::tool_call_result("m", i, "ok")),
        Just(Event::Unknown(json!({"type": "THINKING_START"}))),
    ]
}

fn patch_op() -> impl Strategy<Value = Value> {
    let path = || {
        select(
            &[
                "", "/a", "/a/b", "/a/0", "/a/-", "/b", "/b/0", "/~1", "/a/b/c",
            ][..],
        )
    };
    let op = select(&["add", "remove", "replace", "move", "copy", "test"][..]);
    (op, path(), path(), json_value()).prop_map(
        |(op, path, from, value)| json!({"op": op, "path": path, "from": from, "value": value}),
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn any_json_value_parses_or_errs(value in json_value()) {
        check_parsers(&value);
    }

    #[test]
    fn any_event_like_object_parses_or_errs(value in event_like()) {
        check_parsers(&value);
    }

    #[test]
    fn unknown_fields_round_trip_on_every_event(
        template in select(templates()),
        extra in prop::collection::vec(("x_[a-z]{1,4}", json_value()), 0..4),
    ) {
        let json = with_entries(template, extra);
        let event: Event = serde_json::from_value(json.clone()).unwrap();
        prop_assert!(!matches!(event, Event::Unknown(_)));
        prop_assert_eq!(serde_json::to_value(&event).unwrap(), json);
    }

    /// A number a client sends is stored and relayed as the same number, to the last bit
    /// (serde_json's `float_roundtrip`; without it the fuzzer saw a last digit change).
    #[test]
    fn numbers_survive_text_to_event_and_back(bits in any::<u64>()) {
        let number = f64::from_bits(bits);
        prop_assume!(number.is_finite());
        let text = format!(r#"{{"type":"STATE_SNAPSHOT","snapshot":{{"x":{number:e}}}}}"#);
        let event: Event = serde_json::from_str(&text).unwrap();
        let again: Value = serde_json::from_str(&serde_json::to_string(&event).unwrap()).unwrap();
        prop_assert_eq!(again["snapshot"]["x"].as_f64().map(f64::to_bits), Some(bits));
    }

    #[test]
    fn damaged_events_parse_or_err(
        template in select(templates()),
        damage in prop::collection::vec((key(), json_value()), 1..4),
    ) {
        check_parsers(&with_entries(template, damage));
    }

    #[test]
    fn any_text_parses_or_errs(text in ".{0,64}") {
        let _ = serde_json::from_str::<Event>(&text);
        let _ = serde_json::from_str::<ClientMessage>(&text);
    }

    #[test]
    fn any_json_text_parses_or_errs(value in json_value(), cut in 0usize..64) {
        // Truncated JSON, as a broken socket would deliver it.
        let text = value.to_string();
        let text = &text[..text.floor_char_boundary(cut.min(text.len()))];
        let _ = serde_json::from_str::<Event>(text);
        let _ = serde_json::from_str::<ClientMessage>(text);
    }

    #[test]
    fn verifier_reports_in_order_without_panicking(events in prop::collection::vec(event(), 0..40)) {
        for dialect in [Dialect::Standard, Dialect::Agora] {
            let mut verifier = Verifier::new(dialect);
            for (index, event) in events.iter().enumerate() {
                for violation in verifier.push(event) {
                    prop_assert_eq!(violation.index, index);
                }
            }
            if let Some(violation) = verifier.finish() {
                prop_assert_eq!(violation.index, events.len());
            }
        }
    }

    #[test]
    fn patches_apply_whole_or_not_at_all(doc in json_value(), ops in prop::collection::vec(patch_op(), 0..6)) {
        let Ok(ops) = serde_json::from_value::<Vec<PatchOperation>>(Value::Array(ops)) else {
            return Ok(());
        };
        let mut state = json!({"a": {"b": [1, 2]}, "b": doc});
        let before = state.clone();
        if apply_patch(&mut state, &ops).is_err() {
            prop_assert_eq!(state, before);
        }
    }
}
