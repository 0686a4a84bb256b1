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
/// Client→server [`HistoryRequest`].
pub const HISTORY_REQUEST: &str = "agora:history_request";
/// Client→server [`Resume`].
pub const RESUME: &str = "agora:resume";
/// Server→client [`Resumed`].
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

/// Declares [`AgoraEvent`] from one list of `Variant(Payload) = NAME, sender`, so the enum,
/// its names, the parser's dispatch and the sample a test walks through the browser's hand
/// reader (`wire`) cannot drift apart. `sender` is who sends it: `server` or `client`.
macro_rules! agora_events {
    ($($(#[$doc:meta])* $variant:ident($payload:ty) = $name:ident, $sender:ident;)+) => {
        /// A typed `agora:*` custom event; the payload is the `CUSTOM` event's `value`.
        #[derive(Debug, Clone, PartialEq)]
        pub enum AgoraEvent {
            $($(#[$doc])* $variant($payload),)+
        }

        impl AgoraEvent {
            /// Every AGORA event name, in declaration order.
            pub const NAMES: &[&str] = &[$($name,)+];

            /// The `CUSTOM` event's `name`, e.g. `agora:error`.
            pub fn name(&self) -> &'static str {
                match self {
                    $(Self::$variant(_) => $name,)+
                }
            }

            /// Whether a client sends it (the server only reads it), rather than the server.
            pub fn sent_by_client(&self) -> bool {
                match self {
                    $(Self::$variant(_) => agora_events!(@client $sender),)+
                }
            }

            /// `None` when `name` is not an AGORA event; `Some(Err)` when its value does not fit.
            pub fn from_custom(name: &str, value: &Value) -> Option<Result<Self, serde_json::Error>> {
                Some(match name {
                    $($name => Deserialize::deserialize(value).map(Self::$variant),)+
                    _ => return None,
                })
            }

            /// The `CUSTOM` event, without timestamp; a client sends it as `ClientMessage::Custom`.
            pub fn into_custom(self) -> Custom {
                let (name, value) = match self {
                    $(Self::$variant(p) => ($name, serde_json::to_value(p)),)+
                };
                Custom {
                    name: name.to_owned(),
                    // Only string keys and JSON values: serialising these payloads cannot fail.
                    value: value.expect("AGORA payloads serialise to JSON"),
                    ..Default::default()
                }
            }

            /// One event of each name, its payload's default: the tests walk every name
            /// through the browser's hand reader and writer.
            #[cfg(test)]
            pub(crate) fn one_of_each() -> Vec<Self> {
                vec![$(Self::$variant(Default::default()),)+]
            }
        }
    };
    (@client server) => { false };
    (@client client) => { true };
}

agora_events! {
    /// The run waits until the user allows or refuses a tool call.
    ToolApprovalRequest(ToolApprovalRequest) = TOOL_APPROVAL_REQUEST, server;
    /// The user's decision.
    ToolApprovalResponse(ToolApprovalResponse) = TOOL_APPROVAL_RESPONSE, client;
    /// An AGORA-specific failure, such as moderation or unreadable input. A failing run uses
    /// `RUN_ERROR` instead.
    Error(AgoraError) = ERROR, server;
    /// A text for speech, streamed alongside the written message with the same id.
    SpokenTextStart(SpokenTextStart) = SPOKEN_TEXT_START, server;
    SpokenTextContent(SpokenTextContent) = SPOKEN_TEXT_CONTENT, server;
    SpokenTextEnd(SpokenTextEnd) = SPOKEN_TEXT_END, server;
    /// The spoken version failed; the written message is unaffected.
    SpokenTextError(SpokenTextError) = SPOKEN_TEXT_ERROR, server;
    /// Stop a run. Without ids it means the connection's current run.
    CancelRun(CancelRun) = CANCEL_RUN, client;
    /// A thread's stored messages, please.
    HistoryRequest(HistoryRequest) = HISTORY_REQUEST, client;
    /// Follow a thread again after a lost connection or a reload.
    Resume(Resume) = RESUME, client;
    /// The first answer to [`AgoraEvent::Resume`].
    Resumed(Resumed) = RESUMED, server;
}

impl AgoraEvent {
    /// The server→client event, without timestamp; see [`Event::with_timestamp`].
    pub fn into_event(self) -> Event {
        Event::Custom(self.into_custom())
    }
}

/// How much harm the tool can do; the UI words the approval dialog after it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RiskLevel {
    #[default]
    Low,
    Medium,
    High,
    Critical,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
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
    /// Approved with edits: the arguments the call runs with instead of the agent's (as
    /// AG-UI's `editedArgs` on `/agui`). Checked against the tool's schema like any call's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub edited_args: Option<Map<String, Value>>,
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

/// A thread's stored messages, answered with one `MESSAGES_SNAPSHOT`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HistoryRequest {
    pub thread_id: String,
    #[serde(flatten, default, skip_serializing_if = "Map::is_empty")]
    pub extra: Map<String, Value>,
}

/// Follow a thread again after a lost connection or a reload; answered with [`Resumed`], what
/// was missed, then the live stream.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Resume {
    pub thread_id: String,
    /// The number (`seq`) of the last event the client has; without it the client has
    /// nothing and gets the thread as it stands.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub after_seq: Option<u64>,
    #[serde(flatten, default, skip_serializing_if = "Map::is_empty")]
    pub extra: Map<String, Value>,
}

/// Sent first in answer to [`Resume`]: what follows it and up to which number (`lastSeq`)
/// the client is catching up.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Resumed {
    pub thread_id: String,
    /// The number of the thread's last event so far: catching up ends there.
    pub last_seq: u64,
    /// Whether a run of the thread is live (its events follow).
    pub running: bool,
    pub mode: CatchupMode,
    /// Replay: the events after this number follow.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub after_seq: Option<u64>,
    /// Snapshot: why not a replay.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<SnapshotReason>,
    /// The live run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run_id: Option<String>,
    /// Without a live run: the thread's last run and how it ended.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_run: Option<LastRun>,
    #[serde(flatten, default, skip_serializing_if = "Map::is_empty")]
    pub extra: Map<String, Value>,
}

/// What follows an [`AgoraEvent::Resumed`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CatchupMode {
    /// Exactly the events after `afterSeq`.
    #[default]
    Replay,
    /// A `MESSAGES_SNAPSHOT` (and the state), then the live run's events from its start.
    Snapshot,
}

/// Why a resume is answered with a snapshot rather than a replay.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SnapshotReason {
    /// The client asked without `afterSeq` (a reload: it has nothing).
    Requested,
    /// Events after `afterSeq` were dropped from the buffer.
    Gap,
    /// The number is not this journal's (a restart, or a journal forgotten since).
    Unknown,
}

/// A thread's last run, in [`Resumed`].
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LastRun {
    pub run_id: String,
    /// The stored run status, e.g. `finished`, `interrupted` (a restart cut it off).
    pub status: String,
    #[serde(flatten, default, skip_serializing_if = "Map::is_empty")]
    pub extra: Map<String, Value>,
}
