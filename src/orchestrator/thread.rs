//! What the orchestrator reads from a thread's messages, and the few messages it writes into
//! one itself: helpers with no dialect and no state, shared by the preparing of a turn, the
//! run and the catch-up snapshot.

use std::collections::HashSet;

use serde_json::json;

use super::agents;
use crate::protocol::{
    InputContent, MediaPart, Message, TextPart, ToolMessage, UserContent, UserMessage,
};

pub(crate) use crate::clock::now_millis;

pub(crate) fn new_run_id() -> String {
    format!("run_{}", uuid::Uuid::new_v4().simple())
}

/// The message's id, owned (for sets and snapshots): [`Message::id`] is the one definition.
pub(crate) fn message_id(message: &Message) -> Option<String> {
    message.id().map(str::to_owned)
}

/// Tool calls of the stored thread without a result, in order: (call id, tool name).
pub(crate) fn unanswered_calls(messages: &[Message]) -> Vec<(String, String)> {
    let answered: HashSet<&str> = messages
        .iter()
        .filter_map(|m| match m {
            Message::Tool(t) => Some(t.tool_call_id.as_str()),
            _ => None,
        })
        .collect();
    messages
        .iter()
        .filter_map(|m| match m {
            Message::Assistant(a) => a.tool_calls.as_ref(),
            _ => None,
        })
        .flatten()
        .filter(|call| !answered.contains(call.id.as_str()))
        .map(|call| (call.id.clone(), call.function.name.clone()))
        .collect()
}

/// The result of a call that was never carried out (a client tool the client skipped, a run
/// that stopped, a restart), so that every call in the thread has one: `{status, error}`.
pub(crate) fn closed_call(call_id: &str, status: &str, error: String) -> Message {
    Message::Tool(ToolMessage {
        id: Some(format!("tool_{}", uuid::Uuid::new_v4().simple())),
        content: json!({ "status": status, "error": error }).to_string(),
        tool_call_id: call_id.to_owned(),
        error: Some(error),
        ..Default::default()
    })
}

/// The agent whose message made this call.
pub(crate) fn caller_agent(messages: &[Message], call_id: &str) -> Option<&'static str> {
    messages.iter().find_map(|m| match m {
        Message::Assistant(a)
            if a.tool_calls
                .as_ref()
                .is_some_and(|calls| calls.iter().any(|c| c.id == call_id)) =>
        {
            a.name.as_deref().and_then(agents::agent).map(|a| a.id)
        }
        _ => None,
    })
}

/// The agent that spoke last in the thread.
pub(crate) fn last_agent(messages: &[Message]) -> &'static str {
    messages
        .iter()
        .rev()
        .find_map(|m| match m {
            Message::Assistant(a) => a.name.as_deref().and_then(agents::agent).map(|a| a.id),
            _ => None,
        })
        .unwrap_or(agents::GENERAL_AGENT)
}

/// The client's user message as the thread keeps it: its id (so a resent history does not
/// store it twice, a new one when it has none) and its text.
pub(crate) fn stored_user_message(message: &Message, text: String) -> Message {
    let (id, name, images) = match message {
        Message::User(user) => (
            user.id.clone(),
            user.name.clone(),
            user.content.images().cloned().collect::<Vec<_>>(),
        ),
        _ => (None, None, Vec::new()),
    };
    Message::User(UserMessage {
        id: Some(id.unwrap_or_else(|| format!("msg_{}", uuid::Uuid::new_v4().simple()))),
        content: user_content(text, images),
        name,
        encrypted_value: None,
        extra: Default::default(),
    })
}

/// A user message's content as stored: its text alone stays a string (what every reader of a
/// text-only thread expects); with photos it is the text part, if any, then the image parts
/// (already `url` sources: the transport stored their bytes).
fn user_content(text: String, images: Vec<MediaPart>) -> UserContent {
    if images.is_empty() {
        return UserContent::Text(text);
    }
    let text = (!text.trim().is_empty()).then(|| {
        InputContent::Text(TextPart {
            text,
            extra: Default::default(),
        })
    });
    UserContent::Parts(
        text.into_iter()
            .chain(images.into_iter().map(InputContent::Image))
            .collect(),
    )
}

/// The text of a user message ([`UserContent::text`]): `None` when it brings nothing, blank
/// text and no photo. A photo alone is a message (issue 37); its text is then empty.
pub(crate) fn user_text(message: &Message) -> Option<String> {
    let Message::User(user) = message else {
        return None;
    };
    let text = user.content.text();
    (!text.trim().is_empty() || user.content.images().next().is_some()).then_some(text)
}

/// The last user message of a client's input, if it has text.
pub(crate) fn last_user(messages: &[Message]) -> Option<&Message> {
    messages
        .iter()
        .rev()
        .find(|m| matches!(m, Message::User(_)))
}
