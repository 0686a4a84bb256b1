//! Listen mode (issue 38): the inspector walks through the premises and only dictates; each
//! message is recorded as a finding and acknowledged with a mark, no model is called (no
//! `thinking` step, the step that wraps every model turn); "AGORA" at the start of a message or
//! switching it off ends it and one answer covers everything gathered. The mode is thread
//! state: a server restarted in between keeps it, on SQLite and on PostgreSQL.
#![cfg(feature = "ssr")]

use crate::common;

use agora_hai::orchestrator::store::{Store, StoreError};
use agora_hai::server::store::{Lease, SqlStore};
use common::postgres::fresh_database;
use common::{Socket, TempDir, TestServer, of_type, streamed_text, strings, turn_approving};
use serde_json::{Value, json};

/// What an inspector says walking through a restaurant, and the words of each that any
/// account of it must repeat.
const OBSERVATIONS: [(&str, &str); 5] = [
    (
        "De saladette met gesneden tomaten staat op 11 graden.",
        "saladette",
    ),
    (
        "Er liggen muizenkeutels achter de vriezer in het magazijn.",
        "muizenkeutels",
    ),
    ("Bij de handenwasbak in de keuken is geen zeep.", "zeep"),
    (
        "Rauwe kip ligt in de koelcel boven de bereide salades.",
        "rauwe kip",
    ),
    (
        "De snijmachine is vies, met oude vleesresten.",
        "snijmachine",
    ),
];

async fn socket_of(server: &TestServer, user: &str) -> Socket {
    Socket::connect(&format!("ws://{}/ws?user_id={user}", server.addr)).await
}

/// One message's run, to RUN_FINISHED.
async fn say(socket: &mut Socket, thread: &str, text: &str) -> Vec<Value> {
    socket.ask(thread, text).await;
    let events = socket.until_finished().await;
    assert!(of_type(&events, "RUN_ERROR").is_empty(), "{events:#?}");
    events
}

fn model_was_asked(events: &[Value]) -> bool {
    of_type(events, "STEP_STARTED")
        .iter()
        .any(|e| e["stepName"] == "thinking")
}

fn last_state(events: &[Value]) -> Value {
    of_type(events, "STATE_SNAPSHOT")
        .last()
        .map(|e| e["snapshot"].clone())
        .expect("a STATE_SNAPSHOT")
}

/// An observation in listen mode: recorded as a finding, a mark for an answer, no model.
async fn dictate(socket: &mut Socket, thread: &str, text: &str, number: usize) {
    let events = say(socket, thread, text).await;
    assert!(!model_was_asked(&events), "{text}: the model was asked");
    let calls: Vec<&str> = of_type(&events, "TOOL_CALL_START")
        .iter()
        .map(|e| e["toolCallName"].as_str().unwrap())
        .collect();
    assert_eq!(calls, ["record_finding"], "{text}");
    let result: Value = serde_json::from_str(
        of_type(&events, "TOOL_CALL_RESULT")[0]["content"]
            .as_str()
            .unwrap(),
    )
    .unwrap();
    assert_eq!(result["finding"]["description"], text, "{result:#}");
    assert_eq!(streamed_text(&events), format!("✓ {number}"));
    assert_eq!(last_state(&events)["listening"], true);
}

#[tokio::test]
async fn five_observations_then_the_wake_word_get_one_answer_and_all_five_reach_the_report() {
    let dir = TempDir::new("agora-listen");
    let server = TestServer::start_in(dir, |_| {}).await;
    let thread = format!("listen-{}", uuid::Uuid::new_v4());
    let mut socket = socket_of(&server, "insp-listen").await;
    turn_approving(
        &mut socket,
        &thread,
        "Goedemorgen, ik ben bij Trattoria Finta Fiore voor een reguliere inspectie.",
    )
    .await;

    let events = say(&mut socket, &thread, "Luistermodus").await;
    assert!(!model_was_asked(&events));
    assert!(
        streamed_text(&events).contains("Luistermodus aan"),
        "{events:#?}"
    );
    assert_eq!(last_state(&events)["listening"], true);
    let findings_before = last_state(&events)["inspection"]["findings"]
        .as_array()
        .map_or(0, Vec::len);
    for (n, (text, _)) in OBSERVATIONS[..2].iter().enumerate() {
        dictate(&mut socket, &thread, text, findings_before + n + 1).await;
    }

    // A restart in between: the thread is still listening.
    drop(socket);
    let TestServer { dir, .. } = server;
    let server = TestServer::start_in(dir, |_| {}).await;
    let mut socket = socket_of(&server, "insp-listen").await;
    socket
        .send(&json!({ "type": "CUSTOM", "name": "agora:resume", "value": { "threadId": thread } }))
        .await;
    let caught_up = socket.until(|e| e["type"] == "STATE_SNAPSHOT").await;
    assert_eq!(
        caught_up.last().unwrap()["snapshot"]["listening"],
        true,
        "{caught_up:#?}"
    );
    for (n, (text, _)) in OBSERVATIONS[2..].iter().enumerate() {
        dictate(&mut socket, &thread, text, findings_before + n + 3).await;
    }

    // The wake word: one model answer that covers all five.
    let events = say(&mut socket, &thread, "AGORA, wat heb je?").await;
    assert!(model_was_asked(&events));
    assert_eq!(last_state(&events)["listening"], false);
    let answer = streamed_text(&events).to_lowercase();
    for (text, key) in OBSERVATIONS {
        assert!(
            answer.contains(key),
            "the answer leaves out {text:?}: {answer}"
        );
    }
    assert_eq!(
        of_type(&events, "TEXT_MESSAGE_START").len(),
        1,
        "one answer: {events:#?}"
    );
    // The thread keeps the inspector's words, not what the model was asked.
    let stored = server.state.db.messages(&thread).await.unwrap();
    let last_user = stored
        .iter()
        .rev()
        .find_map(|m| match m {
            agora_hai::protocol::Message::User(user) => Some(user.content.text()),
            _ => None,
        })
        .unwrap();
    assert_eq!(last_user, "AGORA, wat heb je?");

    // Listening is over: the next message is answered by the agent again.
    let events = turn_approving(&mut socket, &thread, "Maak het rapport op").await;
    let report_id = of_type(&events, "TOOL_CALL_RESULT")
        .iter()
        .find_map(|r| {
            let content: Value = serde_json::from_str(r["content"].as_str()?).ok()?;
            Some(content.get("reportId")?.as_str()?.to_owned())
        })
        .unwrap_or_else(|| panic!("no report was made: {events:#?}"));
    let report: Value = server
        .http
        .get(server.url(&format!("/reports/{report_id}.json")))
        .header("x-user-id", "insp-listen")
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let texts: Vec<String> = strings(&report).iter().map(|s| s.to_lowercase()).collect();
    for (text, key) in OBSERVATIONS {
        assert!(
            texts.iter().any(|s| s.contains(key)),
            "{text:?} is not in the report: {report:#}"
        );
    }
}

#[tokio::test]
async fn switched_off_in_english_the_gathered_observations_are_answered_at_once() {
    let server = TestServer::start().await;
    let thread = format!("listen-{}", uuid::Uuid::new_v4());
    let mut socket = socket_of(&server, "insp-en").await;
    turn_approving(
        &mut socket,
        &thread,
        "I'm at Bakkerij Denkdeeg for a regular inspection.",
    )
    .await;
    let events = say(&mut socket, &thread, "Listen mode on").await;
    assert!(streamed_text(&events).contains("Listen mode on"));
    // Asked again while on: told so, nothing recorded.
    let events = say(&mut socket, &thread, "listen mode").await;
    assert!(streamed_text(&events).contains("on already"));
    assert!(of_type(&events, "TOOL_CALL_START").is_empty());

    let said = [
        (
            "There is no allergen information for the cakes in the shop.",
            "allergen",
        ),
        (
            "I found mouse droppings in the storeroom.",
            "mouse droppings",
        ),
    ];
    let before = last_state(&events)["inspection"]["findings"]
        .as_array()
        .map_or(0, Vec::len);
    for (n, (text, _)) in said.iter().enumerate() {
        dictate(&mut socket, &thread, text, before + n + 1).await;
    }
    let events = say(&mut socket, &thread, "Listen mode off").await;
    assert!(model_was_asked(&events));
    assert_eq!(last_state(&events)["listening"], false);
    let answer = streamed_text(&events).to_lowercase();
    for (text, key) in said {
        assert!(
            answer.contains(key),
            "the answer leaves out {text:?}: {answer}"
        );
    }
    // Off already: told so.
    let events = say(&mut socket, &thread, "listen mode off").await;
    assert!(streamed_text(&events).contains("was not on"));
}

#[tokio::test]
async fn listen_mode_is_stored_with_the_thread_on_sqlite_and_postgresql() {
    let dir = TempDir::new("agora-listen-store");
    let urls = [
        format!("sqlite://{}?mode=rwc", dir.0.join("agora.db").display()),
        fresh_database().await,
    ];
    for url in urls {
        let store = SqlStore::connect(&url, Lease::default()).await.unwrap();
        assert!(!store.listening("t-none").await.unwrap(), "{url}");
        assert!(matches!(
            store.set_listening("t-none", true).await,
            Err(StoreError::NotFound(_))
        ));
        store.open_thread("t1", "koen", "").await.unwrap();
        store.open_thread("t2", "koen", "").await.unwrap();
        assert!(!store.listening("t1").await.unwrap());
        store.set_listening("t1", true).await.unwrap();
        drop(store);
        // Another instance, or this one restarted.
        let store = SqlStore::connect(&url, Lease::default()).await.unwrap();
        assert!(store.listening("t1").await.unwrap(), "{url}");
        assert!(!store.listening("t2").await.unwrap(), "{url}");
        store.set_listening("t1", false).await.unwrap();
        assert!(!store.listening("t1").await.unwrap(), "{url}");
    }
}
