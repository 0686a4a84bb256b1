//! No message stalls the server (issue 31, hole 2). A real server over loopback, `--auth
//! api-key` with two inspectors:
//! - a message over `--max-message-bytes` is refused with `message_too_long` on both
//!   transports before any run starts (nothing stored), and the socket stays usable;
//! - while one inspector's large messages are being planned, `/health` and the other
//!   inspector's small run answer: the planner thinks on a bounded pool off the async
//!   workers, where one user holds at most their share of the slots.
//!
//! Nothing here is timed: the second test asserts an order (the small run and `/health` are
//! answered before any large run has finished), never a duration.

#![cfg(feature = "ssr")]

use crate::common;
use crate::common::keys::{ANNA, KOEN, key_server_with};

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use common::{Socket, TestServer};
use futures::{SinkExt, StreamExt};
use serde_json::{Value, json};
use tokio_tungstenite::tungstenite::Message as Frame;

async fn two_inspectors(max_message_bytes: usize) -> TestServer {
    key_server_with(|c| {
        c.max_message_bytes = max_message_bytes;
        c.runs_per_minute = 1000;
    })
    .await
}

fn ws_url(server: &TestServer, key: &str) -> String {
    format!("ws://{}/ws?token={key}", server.addr)
}

#[tokio::test]
async fn a_message_over_the_limit_is_refused_on_both_transports_before_any_run() {
    let server = two_inspectors(1000).await;
    let long = "koelcel te warm. ".repeat(100); // 1,700 bytes

    // /ws: one agora:error naming the sizes, nothing stored, and the socket goes on.
    let mut koen = Socket::connect(&ws_url(&server, KOEN)).await;
    let thread = format!("t-{}", uuid::Uuid::new_v4());
    koen.ask(&thread, &long).await;
    let refused = koen.next().await;
    assert_eq!(refused["name"], "agora:error", "{refused}");
    assert_eq!(
        refused["value"]["errorCode"], "message_too_long",
        "{refused}"
    );
    let message = refused["value"]["message"].as_str().unwrap();
    assert!(
        message.contains("1700") && message.contains("1000"),
        "{message}"
    );
    assert!(server.state.db.thread(&thread).await.is_err(), "stored");
    koen.ask(&thread, "Welke regels gelden voor allergenen?")
        .await;
    let events = koen.until_finished().await;
    assert!(
        common::of_type(&events, "RUN_ERROR").is_empty(),
        "{events:?}"
    );
    // A message of exactly the limit is taken.
    koen.ask(&thread, &"a".repeat(1000)).await;
    let events = koen.until_finished().await;
    assert!(
        common::of_type(&events, "RUN_ERROR").is_empty(),
        "{events:?}"
    );

    // /agui: a stream of one RUN_ERROR with the same code; no thread either.
    let thread = format!("t-{}", uuid::Uuid::new_v4());
    let input = json!({
        "threadId": thread, "runId": format!("r-{}", uuid::Uuid::new_v4()),
        "messages": [{ "id": "m1", "role": "user", "content": long }],
        "tools": [], "context": [],
    });
    let (_, events) = server.agui(Some(KOEN), &input).await;
    assert_eq!(events.len(), 1, "{events:?}");
    assert_eq!(events[0]["type"], "RUN_ERROR", "{events:?}");
    assert_eq!(events[0]["code"], "message_too_long", "{events:?}");
    assert!(server.state.db.thread(&thread).await.is_err(), "stored");
    // A client tool's result counts too.
    let input = json!({
        "threadId": thread, "runId": format!("r-{}", uuid::Uuid::new_v4()),
        "messages": [
            { "id": "m1", "role": "user", "content": "Toon de checklist" },
            { "id": "m2", "role": "tool", "toolCallId": "c1", "content": long },
        ],
        "tools": [], "context": [],
    });
    let (_, events) = server.agui(Some(KOEN), &input).await;
    assert_eq!(events[0]["code"], "message_too_long", "{events:?}");
}

/// How many large runs one inspector starts at once, and their size: a planner turn on such
/// a message takes long against a small run's whole (it reads every byte on every turn).
const LARGE_RUNS: usize = 6;
const LARGE_BYTES: usize = 200_000;

/// Two worker threads, as on the two-core machines the issue measured: before the pool,
/// two large turns took every worker.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn large_messages_of_one_user_leave_health_and_another_users_run_answering() {
    let server = two_inspectors(1 << 20).await;
    let large = "De koelcel had een luchttemperatuur van 11 °C; registraties ontbraken. "
        .repeat(LARGE_BYTES / 73);

    // Koen sends the large messages, each on its own socket and thread; each socket is read
    // on its own task until its run ends.
    let started = Arc::new(AtomicUsize::new(0));
    let finished = Arc::new(AtomicUsize::new(0));
    let mut readers = Vec::new();
    for _ in 0..LARGE_RUNS {
        let (mut stream, _) = tokio_tungstenite::connect_async(ws_url(&server, KOEN))
            .await
            .unwrap();
        let input = json!({
            "threadId": format!("t-{}", uuid::Uuid::new_v4()),
            "messages": [{ "role": "user", "content": large }],
            "context": {},
        });
        stream
            .send(Frame::Text(input.to_string().into()))
            .await
            .unwrap();
        let (started, finished) = (started.clone(), finished.clone());
        readers.push(tokio::spawn(async move {
            while let Some(Ok(frame)) = stream.next().await {
                let Frame::Text(text) = frame else { continue };
                let event: Value = serde_json::from_str(&text).unwrap();
                match event["type"].as_str() {
                    Some("RUN_STARTED") => {
                        started.fetch_add(1, Ordering::SeqCst);
                    }
                    Some("RUN_FINISHED") => {
                        finished.fetch_add(1, Ordering::SeqCst);
                        return;
                    }
                    _ if event["name"] == "agora:error" => panic!("refused: {event}"),
                    _ => {}
                }
            }
        }));
    }
    // Planning has begun (a run starts, then its first turn plans): polled, not timed.
    while started.load(Ordering::SeqCst) == 0 {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }

    // /health answers while the large runs are being planned...
    let health = server.http.get(server.url("/health")).send().await.unwrap();
    assert_eq!(health.status(), 200);
    assert_eq!(
        finished.load(Ordering::SeqCst),
        0,
        "a large run ended before /health answered: the test's messages are too small to show anything"
    );
    // ...and so does Anna's small run, a whole inspection question with its tool calls.
    let mut anna = Socket::connect(&ws_url(&server, ANNA)).await;
    anna.ask(
        &format!("t-{}", uuid::Uuid::new_v4()),
        "Welke regels gelden voor allergenen?",
    )
    .await;
    let events = anna.until_finished().await;
    assert!(
        common::of_type(&events, "RUN_ERROR").is_empty(),
        "{events:?}"
    );
    assert!(!common::streamed_text(&events).is_empty());
    assert_eq!(
        finished.load(Ordering::SeqCst),
        0,
        "Anna's run waited for Koen's large runs"
    );
    let health = server.http.get(server.url("/health")).send().await.unwrap();
    assert_eq!(health.status(), 200);
    for reader in readers {
        reader.abort();
    }
}
