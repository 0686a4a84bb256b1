//! Client→server: [`ClientMessage`], the one type of everything a client may send.
//!
//! Its own file because it joins both directions' types (a run input, or a `CUSTOM` event),
//! which `events` and `input` would otherwise import from each other.

use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;

use super::events::{Custom, Event};
use super::input::RunAgentInput;

/// Everything a client may send: a run input, or a `CUSTOM` event such as
/// `agora:tool_approval_response` or `agora:cancel_run`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "SCREAMING_SNAKE_CASE")]
pub enum ClientMessage {
    Custom(Custom),
    /// Has no `type` on the wire.
    #[serde(untagged)]
    RunAgentInput(RunAgentInput),
}

impl<'de> Deserialize<'de> for ClientMessage {
    /// By hand because serde's untagged fallback reports every mistake as "did not match any
    /// variant"; the server sends this error back to the client as `agora:error`, so it has
    /// to name the field.
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(deserializer)?;
        let Some(kind) = value.get("type").cloned() else {
            return RunAgentInput::deserialize(value)
                .map(ClientMessage::RunAgentInput)
                .map_err(D::Error::custom);
        };
        match Event::deserialize(value).map_err(D::Error::custom)? {
            Event::Custom(custom) => Ok(ClientMessage::Custom(custom)),
            _ => Err(D::Error::custom(format!(
                "a client sends a RunAgentInput (no `type`) or a CUSTOM event, not {kind}"
            ))),
        }
    }
}
