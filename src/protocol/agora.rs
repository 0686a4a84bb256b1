//! AGORA's extensions, which travel as `CUSTOM` events named `agora:*` (seed 000 and
//! `asyncapi.yaml`; `spoken_text_error` and `cancel_run` come from the original server code
//! and this project respectively).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::events::{Custom, Event, Role, keep_null};

pub const TOOL_APPROVAL_REQUEST: &str = "agora:tool_approval_request";
pub const TOOL_APPROVAL_RESPONSE: &str = "agora:tool_approval_response";
pub const ERROR: &str = "agora:error";
pub const SPOKEN_TEXT_START: &str = "agora:spoken_text_start";
pub const SPOKEN_TEXT_CONTENT: &str = "agora:spoken_text_content";
pub const SPOKEN_TEXT_END: &str = "agora:spoken_text_end";
pub const SPOKEN_TEXT_ERROR: &str = "agora:spoken_text_error";
pub const CANCEL_RUN: &str = "agora:cancel_run";
/// Client→server: a thread's stored messages, answered with one `MESSAGES_SNAPSHOT`.
pub const HISTORY_REQUEST: &str = "agora:history_request";
/// Client→server: `{threadId, afterSeq?}`, follow a thread again after a lost connection or a
/// reload; answered with [`RESUMED`], what was missed, then the live stream.
pub const RESUME: &str = "agora:resume";
/// Server→client: `{threadId, mode: replay|snapshot, reason?, afterSeq?, lastSeq, running,
/// runId?, lastRun?}`, sent first in answer to [`RESUME`]: what follows it and up to which
/// number (`lastSeq`) the client is catching up.
pub const RESUMED: &str = "agora:resumed";

/// Why the server closed a `/ws` socket (the close frame's code), after the original HAI's
/// 4001 for a refused key. Server and browser read them from here.
pub mod close {
    /// Not signed in, or no longer: a disabled account, a sign-out, a password change.
    pub const UNAUTHORIZED: u16 = 4001;
    /// Nothing came from the client for too long.
    pub const IDLE: u16 = 4002;
    /// The client did not read what was sent to it.
    pub const TOO_SLOW: u16 = 4008;
    /// The user has too many sockets open.
    pub const TOO_MANY_SOCKETS: u16 = 4029;
}

/// A typed `agora:*` custom event; the payload is the `CUSTOM` event's `value`.
#[derive(Debug, Clone, PartialEq)]
pub enum AgoraEvent {
    /// Server→client: the run waits until the user allows or refuses a tool call.
    ToolApprovalRequest(ToolApprovalRequest),
    /// Client→server: the user's decision.
    ToolApprovalResponse(ToolApprovalResponse),
    /// Server→client: an AGORA-specific failure, such as moderation or unreadable input.
    /// A failing run uses `RUN_ERROR` instead.
    Error(AgoraError),
    /// Server→client: a text for speech, streamed alongside the written message with the same id.
    SpokenTextStart(SpokenTextStart),
    SpokenTextContent(SpokenTextContent),
    SpokenTextEnd(SpokenTextEnd),
    /// Server→client: the spoken version failed; the written message is unaffected.
    SpokenTextError(SpokenTextError),
    /// Client→server: stop a run. Without ids it means the connection's current run.
    CancelRun(CancelRun),
}

impl AgoraEvent {
    /// `None` when `name` is not an AGORA event; `Some(Err)` when its value does not fit.
    pub fn from_custom(name: &str, value: &Value) -> Option<Result<Self, serde_json::Error>> {
        let parsed = match name {
            TOOL_APPROVAL_REQUEST => Deserialize::deserialize(value).map(Self::ToolApprovalRequest),
            TOOL_APPROVAL_RESPONSE => {
                Deserialize::deserialize(value).map(Self::ToolApprovalResponse)
            }
            ERROR => Deserialize::deserialize(value).map(Self::Error),
            SPOKEN_TEXT_START => Deserialize::deserialize(value).map(Self::SpokenTextStart),
            SPOKEN_TEXT_CONTENT => Deserialize::deserialize(value).map(Self::SpokenTextContent),
            SPOKEN_TEXT_END => Deserialize::deserialize(value).map(Self::SpokenTextEnd),
            SPOKEN_TEXT_ERROR => Deserialize::deserialize(value).map(Self::SpokenTextError),
            CANCEL_RUN => Deserialize::deserialize(value).map(Self::CancelRun),
            _ => return None,
        };
        Some(parsed)
    }

    /// The `CUSTOM` event, without timestamp; a client sends it as `ClientMessage::Custom`.
    pub fn into_custom(self) -> Custom {
        let (name, value) = match self {
            Self::ToolApprovalRequest(p) => (TOOL_APPROVAL_REQUEST, serde_json::to_value(p)),
            Self::ToolApprovalResponse(p) => (TOOL_APPROVAL_RESPONSE, serde_json::to_value(p)),
            Self::Error(p) => (ERROR, serde_json::to_value(p)),
            Self::SpokenTextStart(p) => (SPOKEN_TEXT_START, serde_json::to_value(p)),
            Self::SpokenTextContent(p) => (SPOKEN_TEXT_CONTENT, serde_json::to_value(p)),
            Self::SpokenTextEnd(p) => (SPOKEN_TEXT_END, serde_json::to_value(p)),
            Self::SpokenTextError(p) => (SPOKEN_TEXT_ERROR, serde_json::to_value(p)),
            Self::CancelRun(p) => (CANCEL_RUN, serde_json::to_value(p)),
        };
        Custom {
            name: name.to_owned(),
            // Only string keys and JSON values: serialising these payloads cannot fail.
            value: value.expect("AGORA payloads serialise to JSON"),
            ..Default::default()
        }
    }

    /// The server→client event, without timestamp; see [`Event::with_timestamp`].
    pub fn into_event(self) -> Event {
        Event::Custom(self.into_custom())
    }
}

/// How much harm the tool can do; the UI words the approval dialog after it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RiskLevel {
    Low,
    Medium,
    High,
    Critical,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolApprovalRequest {
    pub tool_name: String,
    /// What the tool does, for the user.
    pub tool_description: String,
    pub parameters: Map<String, Value>,
    /// Why the agent wants to call it.
    pub reasoning: String,
    pub risk_level: RiskLevel,
    /// Echoed in the response.
    pub approval_id: String,
    #[serde(flatten, default, skip_serializing_if = "Map::is_empty")]
    pub extra: Map<String, Value>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolApprovalResponse {
    pub approval_id: String,
    pub approved: bool,
    /// The user's words, passed to the agent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub feedback: Option<String>,
    #[serde(flatten, default, skip_serializing_if = "Map::is_empty")]
    pub extra: Map<String, Value>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AgoraError {
    /// Machine-readable, e.g. `moderation_violation`, `invalid_json`.
    pub error_code: String,
    pub message: String,
    /// `Some(Value::Null)` is an explicit `null`, which the original server sends.
    #[serde(
        default,
        deserialize_with = "keep_null",
        skip_serializing_if = "Option::is_none"
    )]
    pub details: Option<Value>,
    #[serde(flatten, default, skip_serializing_if = "Map::is_empty")]
    pub extra: Map<String, Value>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SpokenTextStart {
    /// The id of the written message this text is spoken for.
    pub message_id: String,
    #[serde(default)]
    pub role: Role,
    #[serde(flatten, default, skip_serializing_if = "Map::is_empty")]
    pub extra: Map<String, Value>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SpokenTextContent {
    pub message_id: String,
    pub delta: String,
    #[serde(flatten, default, skip_serializing_if = "Map::is_empty")]
    pub extra: Map<String, Value>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SpokenTextEnd {
    pub message_id: String,
    #[serde(flatten, default, skip_serializing_if = "Map::is_empty")]
    pub extra: Map<String, Value>,
}

/// An [`AgoraError`] about one spoken message.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SpokenTextError {
    pub message_id: String,
    #[serde(flatten)]
    pub error: AgoraError,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CancelRun {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thread_id: Option<String>,
    #[serde(flatten, default, skip_serializing_if = "Map::is_empty")]
    pub extra: Map<String, Value>,
}
