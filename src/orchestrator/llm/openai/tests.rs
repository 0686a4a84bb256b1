//! The request shaping for strict chat templates, without a server (`tests/integration/llm_openai.rs` has one).

use serde_json::json;

use super::request::{alternating, chat_messages, system_text};
use crate::protocol::Message;

fn thread(value: serde_json::Value) -> Vec<Message> {
    serde_json::from_value(value).unwrap()
}

fn roles(messages: &[Message]) -> Vec<&'static str> {
    messages
        .iter()
        .map(|m| match m {
            Message::User(_) => "user",
            Message::Assistant(_) => "assistant",
            Message::Tool(_) => "tool",
            Message::System(_) => "system",
            Message::Developer(_) => "developer",
            Message::Activity(_) => "activity",
            Message::Reasoning(_) => "reasoning",
        })
        .collect()
}

#[test]
fn two_user_messages_in_a_row_become_one() {
    let shaped = alternating(&thread(json!([
        {"id": "1", "role": "user", "content": "Open Bakkerij Jansen"},
        {"id": "2", "role": "user", "content": "en de historie?"},
        {"id": "3", "role": "assistant", "content": "Goed."}
    ])));
    assert_eq!(roles(&shaped), ["user", "assistant"]);
    let Message::User(user) = &shaped[0] else {
        panic!()
    };
    assert_eq!(
        serde_json::to_value(&user.content).unwrap(),
        json!("Open Bakkerij Jansen\n\nen de historie?")
    );
}

#[test]
fn a_call_without_result_gets_one_and_a_stray_result_is_left_out() {
    let shaped = alternating(&thread(json!([
        {"id": "1", "role": "user", "content": "rapport"},
        {"id": "2", "role": "assistant", "toolCalls": [
            {"id": "c1", "type": "function", "function": {"name": "generate_final_report", "arguments": "{}"}}]},
        {"id": "3", "role": "user", "content": "laat maar"},
        {"id": "4", "role": "tool", "toolCallId": "c9", "content": "{}"},
        {"id": "5", "role": "assistant", "content": "Goed."}
    ])));
    assert_eq!(
        roles(&shaped),
        [
            "user",
            "assistant",
            "tool",
            "assistant",
            "user",
            "assistant"
        ]
    );
    let Message::Tool(result) = &shaped[2] else {
        panic!()
    };
    assert_eq!(result.tool_call_id, "c1");
    assert!(result.content.contains("no result"), "{}", result.content);
}

#[test]
fn system_and_developer_messages_join_the_one_system_message_first() {
    let thread = thread(json!([
        {"id": "1", "role": "user", "content": "hoi"},
        {"id": "2", "role": "developer", "content": "Antwoord kort."},
        {"id": "3", "role": "assistant", "content": "Hallo"},
        {"id": "4", "role": "assistant", "content": "Wat kan ik doen?"}
    ]));
    let messages = chat_messages(
        &system_text("Je bent de algemene assistent.", &thread),
        &alternating(&thread),
        &Default::default(),
    );
    let json = serde_json::to_value(&messages).unwrap();
    let roles: Vec<&str> = json
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["role"].as_str().unwrap())
        .collect();
    assert_eq!(roles, ["system", "user", "assistant"]);
    assert_eq!(
        json[0]["content"],
        json!("Je bent de algemene assistent.\n\nAntwoord kort.")
    );
    assert_eq!(json[2]["content"], json!("Hallo\n\nWat kan ik doen?"));
}
