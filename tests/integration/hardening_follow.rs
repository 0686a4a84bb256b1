//! Nobody follows a thread they do not own (issue 31, hole 1): `agora:resume` on an id nobody
//! has used yet is `thread_not_found` and subscribes nothing (a history request reads it as
//! empty and subscribes nothing either), so a viewer who resumes an id and hands an inspector the link `/t/<id>` hears none
//! of the inspection that follows there. A real server over loopback, `--auth api-key` with an
//! inspector and a second account.

#![cfg(feature = "ssr")]

use crate::common;
use crate::common::keys::{EVE, KOEN, key_server, socket_of};

use std::time::Duration;

use serde_json::{Value, json};

/// What only the inspection talks about.
const SECRET: &str = "Finta Fiore";

fn custom(name: &str, thread: &str) -> Value {
    json!({ "type": "CUSTOM", "name": name, "value": { "threadId": thread } })
}

#[tokio::test]
async fn resuming_an_unused_id_hears_nothing_of_the_runs_that_follow() {
    let server = key_server().await;
    let thread = format!("thread-{}", uuid::Uuid::new_v4());

    // Eve resumes the id before anyone has used it: refused, and it says it answers the resume
    // (the browser stays quiet about it: a new thread).
    let mut eve = socket_of(&server, EVE).await;
    eve.send(&custom("agora:resume", &thread)).await;
    let refused = eve.next().await;
    assert_eq!(refused["name"], "agora:error", "{refused}");
    assert_eq!(
        refused["value"]["errorCode"], "thread_not_found",
        "{refused}"
    );
    assert_eq!(
        refused["value"]["details"]["request"], "agora:resume",
        "{refused}"
    );
    // Asking its history reads an empty thread and follows nothing either.
    eve.send(&custom("agora:history_request", &thread)).await;
    let history = eve.next().await;
    assert_eq!(history["type"], "MESSAGES_SNAPSHOT", "{history}");
    assert_eq!(history["messages"], json!([]), "{history}");

    // The inspector then works on that id.
    let mut koen = socket_of(&server, KOEN).await;
    koen.ask(
        &thread,
        "Start inspectie bij Trattoria Finta Fiore, KVK 99990001",
    )
    .await;
    let events = koen.until_finished().await;
    assert!(common::streamed_text(&events).contains(SECRET));

    // Not one event of it reached Eve's socket.
    let heard = eve.events_until_quiet(Duration::from_millis(1500)).await;
    let heard = json!(heard).to_string();
    assert!(
        !heard.contains(SECRET) && !heard.contains(&thread),
        "the other account heard the inspection: {heard}"
    );

    // Now that the thread exists, it is still not hers to follow.
    eve.send(&custom("agora:resume", &thread)).await;
    let answer = eve.next().await;
    assert_eq!(answer["value"]["errorCode"], "thread_not_found", "{answer}");
    // Its owner follows it as before.
    let mut again = socket_of(&server, KOEN).await;
    again.send(&custom("agora:resume", &thread)).await;
    let got = again.events_until_quiet(Duration::from_millis(800)).await;
    assert!(json!(got).to_string().contains(SECRET), "{got:?}");
}

/// The same in the standard transport: `GET /agui/runs/{runId}/events` on someone else's run
/// (from its start, or from an event id) is 404 and carries none of its events, like a run id
/// nobody has used yet; the owner reattaches to it as before.
#[tokio::test]
async fn reattaching_to_someone_elses_agui_run_is_404_and_hears_nothing() {
    let server = key_server().await;
    let thread = format!("thread-{}", uuid::Uuid::new_v4());
    let run_id = format!("run-{}", uuid::Uuid::new_v4());
    let reattach = |key: &'static str, run: String, last_event_id: Option<&'static str>| {
        let mut request = server
            .http
            .get(server.url(&format!("/agui/runs/{run}/events")))
            .header("accept", "text/event-stream")
            .header("x-api-key", key);
        if let Some(id) = last_event_id {
            request = request.header("last-event-id", id);
        }
        async move {
            let response = request.send().await.unwrap();
            (response.status().as_u16(), response.text().await.unwrap())
        }
    };

    // Eve reattaches to the run id before the inspector uses it: nothing to follow.
    let (status, body) = reattach(EVE, run_id.clone(), None).await;
    assert_eq!(status, 404, "{body}");

    // The inspector's run on /agui, with that run id.
    let input = json!({
        "threadId": thread, "runId": run_id,
        "messages": [{ "id": "m1", "role": "user",
            "content": "Start inspectie bij Trattoria Finta Fiore, KVK 99990001" }],
        "tools": [], "context": [],
    });
    let body = server
        .http
        .post(server.url("/agui"))
        .header("x-api-key", KOEN)
        .json(&input)
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(body.contains(SECRET), "{body}");

    // Eve, with the run id from the start or from an event id: 404, none of it.
    for last_event_id in [None, Some("0"), Some("1")] {
        let (status, body) = reattach(EVE, run_id.clone(), last_event_id).await;
        assert_eq!(status, 404, "{last_event_id:?}: {body}");
        assert!(
            !body.contains(SECRET) && !body.contains("data:"),
            "{last_event_id:?}: {body}"
        );
    }
    // The owner reattaches and gets the run's events.
    let (status, body) = reattach(KOEN, run_id.clone(), None).await;
    assert_eq!(status, 200, "{body}");
    assert!(body.contains(SECRET), "{body}");
}
