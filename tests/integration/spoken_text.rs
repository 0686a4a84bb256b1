//! AGORA's spoken text on `/ws` (issue 17): every answer is mirrored by
//! `agora:spoken_text_start/content/end` with the written message's id, in the form the user
//! chose (`spoken_text_type`), and stored with the message for the history. And a client that
//! names its user only in `RunAgentInput` (dev mode) approves its own report.

#![cfg(feature = "ssr")]

use crate::common;

use common::{TestServer, assert_agora_clean, of_type};
use serde_json::{Value, json};

fn thread() -> String {
    format!("thread-{}", uuid::Uuid::new_v4())
}

/// The spoken text of each written message of a run, by message id, checked for its framing.
fn spoken_by_message(events: &[Value]) -> Vec<(String, String)> {
    let mut spoken: Vec<(String, String)> = Vec::new();
    let mut open: Option<String> = None;
    for event in events.iter().filter(|e| e["type"] == "CUSTOM") {
        let id = event["value"]["messageId"]
            .as_str()
            .unwrap_or_default()
            .to_owned();
        match event["name"].as_str().unwrap() {
            "agora:spoken_text_start" => {
                assert!(open.is_none(), "spoken texts do not overlap");
                assert_eq!(event["value"]["role"], "assistant");
                open = Some(id.clone());
                spoken.push((id, String::new()));
            }
            "agora:spoken_text_content" => {
                assert_eq!(open.as_deref(), Some(id.as_str()));
                spoken.last_mut().unwrap().1 += event["value"]["delta"].as_str().unwrap();
            }
            "agora:spoken_text_end" => {
                assert_eq!(open.take().as_deref(), Some(id.as_str()));
            }
            _ => {}
        }
    }
    assert!(open.is_none(), "every spoken text ends");
    spoken
}

/// Each written message of the run has its spoken text, after it, with the same id.
fn assert_mirrored(events: &[Value]) -> Vec<String> {
    let written: Vec<String> = of_type(events, "TEXT_MESSAGE_START")
        .iter()
        .map(|e| e["messageId"].as_str().unwrap().to_owned())
        .collect();
    let spoken = spoken_by_message(events);
    assert_eq!(
        spoken.iter().map(|(id, _)| id.clone()).collect::<Vec<_>>(),
        written,
        "one spoken text per written message, same messageId"
    );
    for (id, _) in &spoken {
        let at = |kind: &str, name: &str| {
            events
                .iter()
                .position(|e| {
                    e["type"] == kind
                        && (name.is_empty() || e["name"] == name)
                        && (e["messageId"] == id.as_str() || e["value"]["messageId"] == id.as_str())
                })
                .unwrap()
        };
        let written_start = at("TEXT_MESSAGE_START", "");
        let written_end = at("TEXT_MESSAGE_END", "");
        let spoken_start = at("CUSTOM", "agora:spoken_text_start");
        let first_spoken = at("CUSTOM", "agora:spoken_text_content");
        let spoken_end = at("CUSTOM", "agora:spoken_text_end");
        // Interleaved, as the contract shows: spoken while written, ended after it.
        assert!(
            written_start < spoken_start && first_spoken < written_end,
            "{id}"
        );
        assert!(spoken_end > written_end, "{id}");
    }
    spoken.into_iter().map(|(_, text)| text).collect()
}

fn assert_speakable(text: &str) {
    assert!(!text.trim().is_empty());
    for mark in ['#', '*', '|', '`', '[', ']', '_'] {
        assert!(
            !text.contains(mark),
            "Markdown {mark:?} in spoken text: {text}"
        );
    }
    assert!(
        !text.chars().any(|c| c.is_ascii_digit()),
        "numbers are written out: {text}"
    );
    assert!(!text.contains("°C") && !text.contains("KVK"), "{text}");
}

async fn set_spoken_type(server: &TestServer, kind: &str) {
    let response = server
        .http
        .put(server.url("/users/me/preferences"))
        .json(&json!({ "spoken_text_type": kind }))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
}

#[tokio::test]
async fn dictate_speaks_every_answer_in_full_and_the_history_keeps_it() {
    let server = TestServer::start().await;
    set_spoken_type(&server, "dictate").await;
    let thread = thread();
    let mut socket = server.socket().await;
    socket
        .ask(
            &thread,
            "Start inspectie bij Trattoria Finta Fiore, KVK 99990001",
        )
        .await;
    let events = socket.until_finished().await;
    assert_agora_clean(&events);
    let spoken = assert_mirrored(&events);
    assert!(!spoken.is_empty());
    for text in &spoken {
        assert_speakable(text);
    }
    socket
        .ask(
            &thread,
            "Bevinding: rauwe vis naast groenten bewaard op 12 °C",
        )
        .await;
    let events = socket.until_finished().await;
    let spoken = assert_mirrored(&events).join(" ");
    assert_speakable(&spoken);
    assert!(spoken.contains("twaalf graden Celsius"), "{spoken}");

    // The history returns each answer with its spoken text.
    let history: Value = server
        .http
        .get(server.url(&format!("/sessions/{thread}/history")))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let answers: Vec<&Value> = history["history"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "assistant")
        .collect();
    assert!(!answers.is_empty());
    for answer in answers {
        assert_speakable(answer["spoken_text"].as_str().unwrap());
    }
}

#[tokio::test]
async fn summarize_speaks_one_to_three_sentences() {
    let server = TestServer::start().await;
    set_spoken_type(&server, "summarize").await;
    let thread = thread();
    let mut socket = server.socket().await;
    socket
        .ask(
            &thread,
            "Welke regels gelden voor allergenen in een restaurant?",
        )
        .await;
    let events = socket.until_finished().await;
    assert_agora_clean(&events);
    let written = common::streamed_text(&events);
    for text in assert_mirrored(&events) {
        assert_speakable(&text);
        let sentences = text.matches(['.', '!', '?']).count();
        assert!(
            (1..=3).contains(&sentences),
            "{sentences} sentences: {text}"
        );
        assert!(
            text.len() < written.len(),
            "a summary is shorter than the answer"
        );
    }
}

#[tokio::test]
async fn a_client_that_names_its_user_in_the_run_approves_its_own_report() {
    let server = TestServer::start().await;
    let thread = thread();
    let mut socket = server.socket().await;
    let ask = |text: &str| {
        json!({ "threadId": thread, "userId": "5b3f6e1c-0a4d-4c1e-9f3e-2d7a8b9c0d1e",
                "messages": [{ "role": "user", "content": text }], "context": {} })
    };
    socket
        .send(&ask(
            "Start inspectie bij Trattoria Finta Fiore, KVK 99990001",
        ))
        .await;
    socket.until_finished().await;
    socket
        .send(&ask("Genereer het inspectierapport zonder vragen"))
        .await;
    let request = socket.until_approval_request().await.last().unwrap()["value"].clone();
    // The contract's response names nobody.
    socket
        .answer_approval(request["approvalId"].as_str().unwrap(), true, None)
        .await;
    let events = socket.until_finished().await;
    assert!(of_type(&events, "RUN_ERROR").is_empty(), "{events:?}");
    let results = of_type(&events, "TOOL_CALL_RESULT");
    assert!(
        results
            .iter()
            .any(|r| r["content"].as_str().unwrap().contains(".pdf")),
        "the report was written: {events:?}"
    );
    let approvals = server.state.db.approvals(&thread).await.unwrap();
    assert_eq!(
        approvals[0].decision.as_ref().unwrap().decided_by,
        "5b3f6e1c-0a4d-4c1e-9f3e-2d7a8b9c0d1e",
        "the run's owner decided"
    );
}
