//! The weaknesses of issue 31's second red team that are closed by code (the others are
//! README lines): a real server over loopback.

#![cfg(feature = "ssr")]

use crate::common;

use common::TestServer;
use serde_json::{Value, json};

async fn post_agui(server: &TestServer, input: &Value) -> Vec<Value> {
    let (status, events) = server.agui(None, input).await;
    assert_eq!(status, 200);
    events
}

/// `/agui` stores the client's message ids: one with a newline, a bidi control, NUL or 100 kB
/// is refused with `invalid_id` before anything is stored, like a bad thread or run id; the
/// same input with a plain id runs.
#[tokio::test]
async fn agui_message_ids_are_checked_like_the_other_ids() {
    let server = TestServer::start().await;
    let thread = format!("t-{}", uuid::Uuid::new_v4());
    let input = |id: &str, role: &str| {
        let mut messages = vec![
            json!({ "id": "u1", "role": "user", "content": "Welke regels gelden voor allergenen?" }),
        ];
        match role {
            "user" => messages[0]["id"] = json!(id),
            _ => messages
                .push(json!({ "id": id, "role": "tool", "toolCallId": "c1", "content": "ok" })),
        }
        json!({
            "threadId": thread, "runId": format!("r-{}", uuid::Uuid::new_v4()),
            "messages": messages, "tools": [], "context": [],
        })
    };
    let long = "a".repeat(100_000);
    for bad in ["m\n1", "m\u{202E}1", "m\u{0}1", long.as_str(), ""] {
        for role in ["user", "tool"] {
            let events = post_agui(&server, &input(bad, role)).await;
            assert_eq!(events.len(), 1, "{role} {bad:?}: {events:?}");
            assert_eq!(events[0]["type"], "RUN_ERROR", "{events:?}");
            assert_eq!(
                events[0]["code"], "invalid_id",
                "{role} {bad:?}: {events:?}"
            );
        }
    }
    assert!(server.state.db.thread(&thread).await.is_err(), "stored");
    let events = post_agui(&server, &input("msg-1.a:b_c", "user")).await;
    assert_eq!(events.last().unwrap()["type"], "RUN_FINISHED", "{events:?}");
    let stored = server.state.db.messages(&thread).await.unwrap();
    assert_eq!(stored[0].id(), Some("msg-1.a:b_c"));
}

/// Resuming (or asking the history of) ids nobody has used keeps nothing: before hole 1's fix
/// each such resume left a journal and a subscription behind (~480 B), without limit.
#[tokio::test]
async fn resuming_unused_ids_keeps_no_memory() {
    let server = TestServer::start().await;
    let mut socket = server.socket().await;
    let before = server.state.orchestrator.journals.footprint().1;
    for n in 0..300 {
        let thread = format!("unused-{n}-{}", uuid::Uuid::new_v4());
        for name in ["agora:resume", "agora:history_request"] {
            socket
                .send(&json!({ "type": "CUSTOM", "name": name, "value": { "threadId": thread } }))
                .await;
            // Each is answered (a refusal, an empty snapshot) before the next is sent.
            let answer = socket.next().await;
            assert!(
                answer["name"] == "agora:error" || answer["type"] == "MESSAGES_SNAPSHOT",
                "{answer}"
            );
        }
    }
    assert_eq!(server.state.orchestrator.journals.footprint().1, before);
    assert!(
        server
            .state
            .orchestrator
            .journals
            .followed_threads(0)
            .is_empty()
    );
}
