//! A deleted thread stays deleted (issue 31, hole 5): `DELETE /sessions/{id}` drops the
//! thread's resume journal, so neither its owner nor anyone else gets its events back through
//! `agora:resume` on `/ws` or a reattach on `/agui`, not even by re-creating the id with an old
//! run id. A real server over loopback, `--auth api-key` with two inspectors.

#![cfg(feature = "ssr")]

use crate::common;
use crate::common::keys::{ANNA, KOEN, key_server, socket_of};

use std::time::Duration;

use serde_json::{Value, json};

/// What only the deleted inspection talked about.
const SECRET: &str = "Finta Fiore";

fn resume(thread: &str, after_seq: u64) -> Value {
    json!({ "type": "CUSTOM", "name": "agora:resume", "value": { "threadId": thread, "afterSeq": after_seq } })
}

/// Nothing in `what` is from the deleted run.
fn assert_nothing_of(what: &str, old_run: &str, text: &str) {
    assert!(
        !text.contains(SECRET) && !text.contains(old_run),
        "{what} got events of the deleted thread: {text}"
    );
}

#[tokio::test]
async fn a_deleted_thread_is_replayed_to_nobody() {
    let server = key_server().await;
    let thread = format!("thread-{}", uuid::Uuid::new_v4());
    let mut koen = socket_of(&server, KOEN).await;
    koen.ask(
        &thread,
        "Start inspectie bij Trattoria Finta Fiore, KVK 99990001",
    )
    .await;
    let events = koen.until_finished().await;
    assert!(common::streamed_text(&events).contains(SECRET));
    let old_run = events[0]["runId"].as_str().unwrap().to_owned();
    let first_seq = events[0]["seq"].as_u64().unwrap();
    // Koen's second tab follows the thread when it is deleted.
    let mut follower = socket_of(&server, KOEN).await;
    follower.send(&resume(&thread, first_seq)).await;
    follower
        .events_until_quiet(Duration::from_millis(500))
        .await;

    let deleted = server
        .http
        .delete(server.url(&format!("/sessions/{thread}")))
        .header("x-api-key", KOEN)
        .send()
        .await
        .unwrap();
    assert_eq!(deleted.status(), 200);

    // Neither the owner nor another inspector resumes anything of it.
    for (who, key) in [("koen", KOEN), ("anna", ANNA)] {
        let mut socket = socket_of(&server, key).await;
        socket
            .send(&resume(&thread, first_seq.saturating_sub(1)))
            .await;
        let got = socket.events_until_quiet(Duration::from_millis(1500)).await;
        assert!(!got.is_empty(), "{who}'s resume got no answer");
        assert_nothing_of(
            &format!("{who}'s resume"),
            &old_run,
            &json!(got).to_string(),
        );
    }

    // Anna re-creates the id on /agui with the old run id and reattaches to that run.
    let input = json!({
        "threadId": thread,
        "runId": old_run,
        "messages": [{ "id": "m1", "role": "user", "content": "Welke regels gelden voor allergenen?" }],
        "tools": [],
        "context": [],
    });
    let post = server
        .http
        .post(server.url("/agui"))
        .header("x-api-key", ANNA)
        .json(&input)
        .send()
        .await
        .unwrap();
    assert_eq!(post.status(), 200);
    let stream = tokio::time::timeout(Duration::from_secs(30), post.text())
        .await
        .unwrap()
        .unwrap();
    assert!(stream.contains("RUN_FINISHED"), "{stream}");
    let reattached = server
        .http
        .get(server.url(&format!("/agui/runs/{old_run}/events")))
        .header("x-api-key", ANNA)
        .send()
        .await
        .unwrap();
    let replay = tokio::time::timeout(Duration::from_secs(30), reattached.text())
        .await
        .unwrap()
        .unwrap();
    assert!(
        !replay.contains(SECRET),
        "the re-created thread's reattach replayed the deleted run: {replay}"
    );

    // The tab that followed the deleted thread hears nothing of Anna's new thread.
    let heard = follower
        .events_until_quiet(Duration::from_millis(500))
        .await;
    assert!(
        heard.is_empty(),
        "the deleted thread's follower heard {heard:?}"
    );
}
