use serde_json::json;

use super::*;
use crate::protocol::agora::HistoryRequest;
use crate::protocol::{AgoraEvent, ClientMessage};

/// Every event type, with the optional fields present and absent.
fn corpus() -> Vec<Value> {
    let mut events = vec![
        json!({"type": "RUN_STARTED", "threadId": "t", "runId": "r", "timestamp": 1}),
        json!({"type": "RUN_STARTED", "threadId": "t", "runId": "r", "parentRunId": "p", "metadata": {"a": 1}}),
        json!({"type": "RUN_FINISHED", "threadId": "t", "runId": "r", "result": null}),
        json!({"type": "RUN_FINISHED", "threadId": "t", "runId": "r", "result": {"x": 1}}),
        json!({"type": "RUN_ERROR", "message": "m", "code": "c"}),
        json!({"type": "RUN_ERROR", "message": "m"}),
        json!({"type": "STEP_STARTED", "stepName": "routing"}),
        json!({"type": "STEP_FINISHED", "stepName": "routing", "rawEvent": null}),
        json!({"type": "TEXT_MESSAGE_START", "messageId": "m", "role": "assistant", "name": "history-agent"}),
        json!({"type": "TEXT_MESSAGE_START", "messageId": "m"}),
        json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": "d"}),
        json!({"type": "TEXT_MESSAGE_END", "messageId": "m"}),
        json!({"type": "TEXT_MESSAGE_CHUNK", "messageId": "m", "role": "assistant", "delta": "d", "name": "n"}),
        json!({"type": "TEXT_MESSAGE_CHUNK"}),
        json!({"type": "TOOL_CALL_START", "toolCallId": "c", "toolCallName": "n", "parentMessageId": null,
               "toolDisplayName": "Naam", "toolDescription": "Wat"}),
        json!({"type": "TOOL_CALL_START", "toolCallId": "c", "toolCallName": "n", "parentMessageId": "m"}),
        json!({"type": "TOOL_CALL_START", "toolCallId": "c", "toolCallName": "n"}),
        json!({"type": "TOOL_CALL_ARGS", "toolCallId": "c", "delta": "{}"}),
        json!({"type": "TOOL_CALL_END", "toolCallId": "c"}),
        json!({"type": "TOOL_CALL_CHUNK", "toolCallId": "c", "toolCallName": "n", "parentMessageId": null, "delta": "{"}),
        json!({"type": "TOOL_CALL_RESULT", "messageId": "t", "toolCallId": "c", "content": "{}", "role": "tool"}),
        json!({"type": "TOOL_CALL_RESULT", "messageId": "t", "toolCallId": "c", "content": "x"}),
        json!({"type": "STATE_SNAPSHOT", "snapshot": {"currentAgent": "a"}}),
        json!({"type": "STATE_DELTA", "delta": [
            {"op": "add", "path": "/a", "value": 1}, {"op": "remove", "path": "/b"},
            {"op": "replace", "path": "/c", "value": [1]}, {"op": "move", "from": "/d", "path": "/e"},
            {"op": "copy", "from": "/f", "path": "/g"}, {"op": "test", "path": "/h", "value": null}]}),
        json!({"type": "MESSAGES_SNAPSHOT", "messages": [
            {"role": "user", "id": "u", "content": "hallo"},
            {"role": "user", "content": [{"type": "text", "text": "deel"}]},
            {"role": "assistant", "id": "a", "name": "history-agent", "content": "antwoord"},
            {"role": "assistant", "id": "a2", "toolCalls": [{"id": "c", "type": "function", "function": {"name": "n", "arguments": "{}"}}]},
            {"role": "tool", "id": "t", "toolCallId": "c", "content": "{}", "error": "stuk"},
            {"role": "system", "content": "s"}, {"role": "developer", "content": "d", "name": "x"},
            {"role": "reasoning", "id": "r", "content": "hmm"},
            {"role": "activity", "id": "p", "activityType": "plan", "content": {"steps": []}}]}),
        json!({"type": "ACTIVITY_SNAPSHOT", "messageId": "p", "activityType": "plan", "content": {}, "replace": false}),
        json!({"type": "ACTIVITY_DELTA", "messageId": "p", "activityType": "plan", "patch": [{"op": "remove", "path": "/x"}]}),
        json!({"type": "REASONING_START", "messageId": "r"}),
        json!({"type": "REASONING_MESSAGE_START", "messageId": "r", "role": "reasoning"}),
        json!({"type": "REASONING_MESSAGE_CONTENT", "messageId": "r", "delta": "d"}),
        json!({"type": "REASONING_MESSAGE_END", "messageId": "r"}),
        json!({"type": "REASONING_MESSAGE_CHUNK", "messageId": "r", "delta": "d"}),
        json!({"type": "REASONING_END", "messageId": "r"}),
        json!({"type": "REASONING_ENCRYPTED_VALUE", "subtype": "tool-call", "entityId": "c", "encryptedValue": "e"}),
        json!({"type": "RAW", "event": {"a": 1}, "source": "s"}),
        json!({"type": "CUSTOM", "name": "agora:tool_approval_request", "value": {"x": 1}, "timestamp": 5}),
        json!({"type": "CUSTOM", "name": "n"}),
        json!({"type": "THINKING_START", "title": "t"}),
    ];
    // And every server→client event of the contract's examples.
    for name in ["basic-conversation", "tool-approval-flow", "error-handling"] {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../shared/agora-contract/examples")
            .join(format!("{name}.json"));
        let example: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        let lists: Vec<&Value> = match example.get("scenarios") {
            Some(scenarios) => scenarios
                .as_array()
                .unwrap()
                .iter()
                .map(|s| &s["events"])
                .collect(),
            None => vec![&example["events"]],
        };
        for list in lists {
            for entry in list.as_array().unwrap() {
                if entry["direction"].as_str().unwrap().starts_with("server") {
                    events.push(entry["event"].clone());
                }
            }
        }
    }
    events
}

#[test]
fn agrees_with_serde_on_every_event() {
    for value in corpus() {
        let ours = decode_event(&value.to_string()).unwrap_or_else(|e| panic!("{value}: {e}"));
        let serde: Event = serde_json::from_value(value.clone()).unwrap();
        assert_eq!(ours, serde, "{value}");
    }
}

#[test]
fn refuses_what_serde_refuses() {
    for bad in [
        json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": "m"}),
        json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": 3, "delta": "d"}),
        json!({"type": "RUN_STARTED", "threadId": "t"}),
        json!({"type": 7}),
        json!({"no": "type"}),
        json!({"type": "STATE_DELTA", "delta": [{"op": "jump", "path": "/a"}]}),
        json!({"type": "TOOL_CALL_START", "toolCallId": "c", "toolCallName": "n", "timestamp": "gisteren"}),
    ] {
        assert!(decode_event(&bad.to_string()).is_err(), "{bad}");
        assert!(
            serde_json::from_value::<Event>(bad.clone()).is_err(),
            "{bad}"
        );
    }
    assert!(decode_event("not json").is_err());
}

#[test]
fn agora_payloads_agree_with_the_protocol() {
    let cases = [
        json!({"type": "CUSTOM", "name": "agora:tool_approval_request", "value": {
            "toolName": "generate_final_report", "toolDescription": "PDF", "parameters": {"kvk": "1"},
            "reasoning": "r", "riskLevel": "critical", "approvalId": "a", "toolCallId": "c"}}),
        json!({"type": "CUSTOM", "name": "agora:error", "value": {"errorCode": "moderation_violation", "message": "m", "details": {"reason": "x"}}}),
        json!({"type": "CUSTOM", "name": "agora:error", "value": {"errorCode": "e", "message": "m", "details": null}}),
        json!({"type": "CUSTOM", "name": "agora:tool_approval_request", "value": {"toolName": 3}}),
        json!({"type": "CUSTOM", "name": "agora:error", "value": "boom"}),
        json!({"type": "CUSTOM", "name": "agora:resumed", "value": {
            "threadId": "t", "lastSeq": 9, "running": false, "mode": "snapshot", "reason": "unknown",
            "lastRun": {"runId": "r", "status": "interrupted"}}}),
        json!({"type": "CUSTOM", "name": "agora:resumed", "value": {
            "threadId": "t", "lastSeq": 9, "running": true, "mode": "replay", "afterSeq": 7, "runId": "r", "x": 1}}),
        json!({"type": "CUSTOM", "name": "agora:resumed", "value": {"threadId": "t", "lastSeq": -1, "running": true, "mode": "replay"}}),
        json!({"type": "CUSTOM", "name": "agora:resumed", "value": {"threadId": "t", "lastSeq": 1, "running": true, "mode": "later"}}),
        json!({"type": "CUSTOM", "name": "agora:resumed", "value": {"mode": "replay"}}),
        json!({"type": "CUSTOM", "name": "agora:spoken_text_start", "value": {"messageId": "m", "role": "assistant"}}),
        json!({"type": "CUSTOM", "name": "agora:spoken_text_start", "value": {"messageId": "m"}}),
        json!({"type": "CUSTOM", "name": "agora:spoken_text_content", "value": {"messageId": "m", "delta": "d"}}),
        json!({"type": "CUSTOM", "name": "agora:spoken_text_end", "value": {"messageId": "m", "y": true}}),
        json!({"type": "CUSTOM", "name": "agora:spoken_text_error", "value": {
            "messageId": "m", "errorCode": "tts_failed", "message": "m", "details": null, "z": 2}}),
        json!({"type": "CUSTOM", "name": "agora:spoken_text_error", "value": {"messageId": "m"}}),
    ];
    for case in cases {
        let Ok(Event::Custom(custom)) = decode_event(&case.to_string()) else {
            panic!("{case}")
        };
        let ours = agora_event(&custom);
        let theirs = AgoraEvent::from_custom(&custom.name, &custom.value);
        match (ours, theirs) {
            (Some(Ok(a)), Some(Ok(b))) => assert_eq!(a, b, "{case}"),
            (Some(Err(_)), Some(Err(_))) => {}
            (a, b) => panic!("{case}: {a:?} vs {b:?}"),
        }
    }
    let other = Custom {
        name: "acme:x".into(),
        ..Default::default()
    };
    assert!(agora_event(&other).is_none());
}

/// A photo's time taken rides in its image part's `metadata` (issue 37): the server's own
/// types read the frame, the part keeps it, and a photo without a time has no `metadata`.
#[test]
fn a_photos_time_taken_goes_in_its_parts_metadata() {
    let photos = [
        OutgoingPhoto {
            url: "data:image/jpeg;base64,/9j/AA==".into(),
            taken_at: Some("2026-11-27T10:32:05".into()),
        },
        OutgoingPhoto {
            url: "data:image/jpeg;base64,/9j/AQ==".into(),
            taken_at: None,
        },
    ];
    let frame = run_input_with_photos("t-1", "m-1", "", &photos);
    let ClientMessage::RunAgentInput(input) = serde_json::from_str(&frame).unwrap() else {
        panic!()
    };
    let Message::User(user) = &input.messages[0] else {
        panic!()
    };
    let images: Vec<_> = user.content.images().collect();
    assert_eq!(images.len(), 2, "no text part for a photo alone: {frame}");
    assert_eq!(
        images[0].metadata,
        Some(json!({"takenAt": "2026-11-27T10:32:05"}))
    );
    assert_eq!(images[1].metadata, None);
    assert_eq!(images[0].source.source().value, "/9j/AA==");
    // And back out as it came.
    let again = serde_json::to_value(&input.messages[0]).unwrap();
    assert_eq!(
        again["content"][0]["metadata"]["takenAt"],
        "2026-11-27T10:32:05"
    );
}

#[test]
fn client_frames_parse_as_the_server_reads_them() {
    let input: ClientMessage = serde_json::from_str(&run_input("t-1", "m-1", "Hallo")).unwrap();
    let ClientMessage::RunAgentInput(input) = input else {
        panic!()
    };
    assert_eq!(input.thread_id, "t-1");
    assert!(
        matches!(&input.messages[0], Message::User(u) if u.content == UserContent::Text("Hallo".into()))
    );
    for (frame, name) in [
        (
            approval_response(
                "a",
                true,
                Some("ok"),
                Some(serde_json::Map::from_iter([("kvk".to_owned(), json!("1"))])),
            ),
            "agora:tool_approval_response",
        ),
        (cancel_run("t", "r"), "agora:cancel_run"),
        (resume("t", Some(4)), "agora:resume"),
        (
            client_frame(&AgoraEvent::HistoryRequest(HistoryRequest {
                thread_id: "t".into(),
                ..Default::default()
            }))
            .unwrap(),
            "agora:history_request",
        ),
    ] {
        let ClientMessage::Custom(custom) = serde_json::from_str(&frame).unwrap() else {
            panic!()
        };
        assert_eq!(custom.name, name);
        if let Some(Ok(AgoraEvent::ToolApprovalResponse(r))) =
            AgoraEvent::from_custom(&custom.name, &custom.value)
        {
            assert_eq!(
                (r.approval_id.as_str(), r.approved, r.feedback.as_deref()),
                ("a", true, Some("ok"))
            );
            assert_eq!(r.edited_args.unwrap()["kvk"], "1");
        }
    }
    let blank: Value =
        serde_json::from_str(&approval_response("a", false, Some("  "), None)).unwrap();
    assert!(blank["value"].get("feedback").is_none());
    assert!(blank["value"].get("editedArgs").is_none());
}

/// A kind added to `events!` fails here until the hand reader reads it: serde's own events,
/// one of each kind, come back through it as the same variant, never `Unknown`.
#[test]
fn reads_every_kind_of_the_catalogue() {
    let samples = Event::one_of_each();
    let kinds: Vec<&str> = samples.iter().map(Event::kind).collect();
    assert_eq!(kinds, Event::KINDS);
    for event in samples {
        let json = serde_json::to_string(&event).unwrap();
        let ours = decode_event(&json).unwrap_or_else(|e| panic!("{json}: {e}"));
        assert!(
            !matches!(ours, Event::Unknown(_)),
            "the hand reader does not know {}",
            event.kind()
        );
        assert_eq!(ours.kind(), event.kind());
        let theirs: Event = serde_json::from_str(&json).unwrap();
        assert_eq!(ours, theirs, "{json}");
        assert_eq!(ours, event, "{json}");
    }
}

/// The same for AGORA's events: each one the server sends is read by hand as serde reads it,
/// and each one a client sends is written by hand as serde reads it back.
#[test]
fn reads_and_writes_every_agora_event() {
    let samples = AgoraEvent::one_of_each();
    let names: Vec<&str> = samples.iter().map(AgoraEvent::name).collect();
    assert_eq!(names, AgoraEvent::NAMES);
    for event in samples {
        let name = event.name();
        if event.sent_by_client() {
            let frame = client_frame(&event).unwrap_or_else(|| panic!("no writer for {name}"));
            let ClientMessage::Custom(custom) = serde_json::from_str(&frame).unwrap() else {
                panic!("{frame}")
            };
            let theirs = AgoraEvent::from_custom(&custom.name, &custom.value);
            assert_eq!(theirs.unwrap().unwrap(), event, "{frame}");
        } else {
            assert!(client_frame(&event).is_none(), "{name} is the server's");
            let json = serde_json::to_string(&event.clone().into_event()).unwrap();
            let Ok(Event::Custom(custom)) = decode_event(&json) else {
                panic!("{json}")
            };
            let ours = agora_event(&custom)
                .unwrap_or_else(|| panic!("the hand reader does not know {name}"))
                .unwrap_or_else(|e| panic!("{json}: {e}"));
            let theirs = AgoraEvent::from_custom(&custom.name, &custom.value);
            assert_eq!(ours, theirs.unwrap().unwrap(), "{json}");
            assert_eq!(ours, event, "{json}");
        }
    }
}
