//! Server→client events: the AG-UI catalogue (`@ag-ui/core` `events.ts`) as one [`Event`] enum.
//!
//! Every struct keeps the fields it does not model in `extra` (through [`EventBase`]), so an
//! event relayed from another producer, such as the original AGORA orchestrator that adds
//! `toolDisplayName` to `TOOL_CALL_START`, leaves this crate unchanged.

use json_patch::PatchOperation;
use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

use super::input::{Message, RunAgentInput};

/// Deserialises a field that is present as `Some`, even when it is `null`.
///
/// Serde maps `null` to `None`, which would turn `"result": null` (seed 000) or
/// `"parentMessageId": null` (the tool-approval example) into a missing field on the way back.
pub(super) fn keep_null<'de, D, T>(deserializer: D) -> Result<Option<T>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    T::deserialize(deserializer).map(Some)
}

/// Fields every event may carry, flattened into each event struct.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EventBase {
    /// Unix time in milliseconds; seed 000 rules out ISO strings.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timestamp: Option<u64>,
    /// Open key/value data; AG-UI reserves the key `ag-ui`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Map<String, Value>>,
    /// The producer's original event, when this one was translated from it.
    #[serde(
        default,
        deserialize_with = "keep_null",
        skip_serializing_if = "Option::is_none"
    )]
    pub raw_event: Option<Value>,
    /// Fields this crate does not model, kept so the event round-trips unchanged.
    #[serde(flatten, default, skip_serializing_if = "Map::is_empty")]
    pub extra: Map<String, Value>,
}

/// Who speaks in a message. Text events use developer, system, assistant and user;
/// `TOOL_CALL_RESULT` uses tool and `REASONING_MESSAGE_START` reasoning.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    Developer,
    System,
    /// AG-UI's default for `TEXT_MESSAGE_START` without a role.
    #[default]
    Assistant,
    User,
    Tool,
    Activity,
    Reasoning,
}

/// `RUN_STARTED`: opens a run; the first event of every run.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RunStarted {
    pub thread_id: String,
    pub run_id: String,
    /// The run this one branches from (time travel).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent_run_id: Option<String>,
    /// The input that started the run, echoed for clients that did not send it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input: Option<Box<RunAgentInput>>,
    #[serde(flatten)]
    pub base: EventBase,
}

/// `RUN_FINISHED`: closes a run. AGORA sends it even after `RUN_ERROR`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RunFinished {
    pub thread_id: String,
    pub run_id: String,
    /// Any value; `Some(Value::Null)` is an explicit `"result": null`.
    #[serde(
        default,
        deserialize_with = "keep_null",
        skip_serializing_if = "Option::is_none"
    )]
    pub result: Option<Value>,
    /// How the run ended. `Some(None)` is an explicit `null`, which older Python producers send.
    #[serde(
        default,
        deserialize_with = "keep_null",
        skip_serializing_if = "Option::is_none"
    )]
    pub outcome: Option<Option<RunOutcome>>,
    #[serde(flatten)]
    pub base: EventBase,
}

/// `RUN_FINISHED.outcome`: a normal end, or a pause waiting for the user.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "lowercase")]
pub enum RunOutcome {
    Success,
    /// The run paused; a later run resumes it with `RunAgentInput.resume`.
    Interrupt {
        interrupts: Vec<Interrupt>,
    },
}

/// One reason a run paused.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Interrupt {
    pub id: String,
    pub reason: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_call_id: Option<String>,
    /// JSON Schema of the answer the agent expects.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response_schema: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires_at: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Map<String, Value>>,
    #[serde(flatten, default, skip_serializing_if = "Map::is_empty")]
    pub extra: Map<String, Value>,
}

/// `RUN_ERROR`: the run failed. Standard AG-UI ends the run here; AGORA follows with `RUN_FINISHED`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RunError {
    pub message: String,
    /// Machine-readable, e.g. `processing_error`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<String>,
    #[serde(flatten)]
    pub base: EventBase,
}

/// `STEP_STARTED` and `STEP_FINISHED`. AGORA steps: `routing`, `thinking`, `executing_tools`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Step {
    pub step_name: String,
    #[serde(flatten)]
    pub base: EventBase,
}

/// `TEXT_MESSAGE_START` and `REASONING_MESSAGE_START`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MessageStart {
    pub message_id: String,
    #[serde(default)]
    pub role: Role,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(flatten)]
    pub base: EventBase,
}

/// `TEXT_MESSAGE_CONTENT` and `REASONING_MESSAGE_CONTENT`: one streamed piece of text.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MessageContent {
    pub message_id: String,
    /// AGORA requires it non-empty; the verifier checks that, parsing does not.
    pub delta: String,
    #[serde(flatten)]
    pub base: EventBase,
}

/// Events that only name a message: `TEXT_MESSAGE_END`, `REASONING_START`,
/// `REASONING_MESSAGE_END`, `REASONING_END`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MessageRef {
    pub message_id: String,
    #[serde(flatten)]
    pub base: EventBase,
}

/// `TEXT_MESSAGE_CHUNK` and `REASONING_MESSAGE_CHUNK`: start, content and end in one event,
/// for producers that do not track message boundaries. Every field is optional.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MessageChunk {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub role: Option<Role>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delta: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(flatten)]
    pub base: EventBase,
}

/// `TOOL_CALL_START`. AGORA adds `toolDisplayName` and `toolDescription` (kept in `base.extra`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolCallStart {
    pub tool_call_id: String,
    pub tool_call_name: String,
    /// `Some(None)` is an explicit `null`, which AGORA and .NET producers send.
    #[serde(
        default,
        deserialize_with = "keep_null",
        skip_serializing_if = "Option::is_none"
    )]
    pub parent_message_id: Option<Option<String>>,
    #[serde(flatten)]
    pub base: EventBase,
}

/// `TOOL_CALL_ARGS`: a piece of the JSON-encoded arguments.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolCallArgs {
    pub tool_call_id: String,
    pub delta: String,
    #[serde(flatten)]
    pub base: EventBase,
}

/// `TOOL_CALL_END`: the arguments are complete. The result comes in `TOOL_CALL_RESULT`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolCallEnd {
    pub tool_call_id: String,
    #[serde(flatten)]
    pub base: EventBase,
}

/// `TOOL_CALL_CHUNK`: start, arguments and end in one event. Every field is optional.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolCallChunk {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_call_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_call_name: Option<String>,
    /// `Some(None)` is an explicit `null`, as on [`ToolCallStart`].
    #[serde(
        default,
        deserialize_with = "keep_null",
        skip_serializing_if = "Option::is_none"
    )]
    pub parent_message_id: Option<Option<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delta: Option<String>,
    #[serde(flatten)]
    pub base: EventBase,
}

/// `TOOL_CALL_RESULT`: what the tool returned, as a tool message.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolCallResult {
    /// Id of the tool message that holds the result.
    pub message_id: String,
    pub tool_call_id: String,
    /// Usually JSON-encoded.
    pub content: String,
    /// Always `tool` when present.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub role: Option<Role>,
    #[serde(flatten)]
    pub base: EventBase,
}

/// `STATE_SNAPSHOT`: replaces the whole shared state.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StateSnapshot {
    pub snapshot: Value,
    #[serde(flatten)]
    pub base: EventBase,
}

/// `STATE_DELTA`: an RFC 6902 patch on the shared state; see [`super::apply_patch`].
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StateDelta {
    pub delta: Vec<PatchOperation>,
    #[serde(flatten)]
    pub base: EventBase,
}

/// `MESSAGES_SNAPSHOT`: replaces the whole conversation.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MessagesSnapshot {
    pub messages: Vec<Message>,
    #[serde(flatten)]
    pub base: EventBase,
}

/// `ACTIVITY_SNAPSHOT`: the content of an activity message (a progress panel, a plan).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ActivitySnapshot {
    pub message_id: String,
    /// Chooses the renderer.
    pub activity_type: String,
    pub content: Value,
    /// Whether the content replaces an existing message with this id; AG-UI's default is `true`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replace: Option<bool>,
    #[serde(flatten)]
    pub base: EventBase,
}

/// `ACTIVITY_DELTA`: an RFC 6902 patch on an activity message's content.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ActivityDelta {
    pub message_id: String,
    pub activity_type: String,
    pub patch: Vec<PatchOperation>,
    #[serde(flatten)]
    pub base: EventBase,
}

/// What a `REASONING_ENCRYPTED_VALUE` belongs to.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum EncryptedSubtype {
    ToolCall,
    #[default]
    Message,
}

/// `REASONING_ENCRYPTED_VALUE`: reasoning the provider only returns encrypted, to send back later.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReasoningEncryptedValue {
    pub subtype: EncryptedSubtype,
    /// The message or tool call id.
    pub entity_id: String,
    pub encrypted_value: String,
    #[serde(flatten)]
    pub base: EventBase,
}

/// `RAW`: an event from an external system, passed through.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Raw {
    pub event: Value,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    #[serde(flatten)]
    pub base: EventBase,
}

/// `CUSTOM`: AGORA's extensions travel here, see [`super::AgoraEvent`].
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Custom {
    pub name: String,
    #[serde(default)]
    pub value: Value,
    #[serde(flatten)]
    pub base: EventBase,
}

/// One server→client message, tagged by `type` in SCREAMING_SNAKE_CASE.
///
/// Parsing keeps an unknown `type` as [`Event::Unknown`] instead of failing, so a newer
/// producer does not break older clients; a known `type` with bad fields is still an error.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(remote = "Self", tag = "type", rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Event {
    RunStarted(RunStarted),
    RunFinished(RunFinished),
    RunError(RunError),
    StepStarted(Step),
    StepFinished(Step),
    TextMessageStart(MessageStart),
    TextMessageContent(MessageContent),
    TextMessageEnd(MessageRef),
    TextMessageChunk(MessageChunk),
    ToolCallStart(ToolCallStart),
    ToolCallArgs(ToolCallArgs),
    ToolCallEnd(ToolCallEnd),
    ToolCallChunk(ToolCallChunk),
    ToolCallResult(ToolCallResult),
    StateSnapshot(StateSnapshot),
    StateDelta(StateDelta),
    MessagesSnapshot(MessagesSnapshot),
    ActivitySnapshot(ActivitySnapshot),
    ActivityDelta(ActivityDelta),
    ReasoningStart(MessageRef),
    ReasoningMessageStart(MessageStart),
    ReasoningMessageContent(MessageContent),
    ReasoningMessageEnd(MessageRef),
    ReasoningMessageChunk(MessageChunk),
    ReasoningEnd(MessageRef),
    ReasoningEncryptedValue(ReasoningEncryptedValue),
    Raw(Raw),
    Custom(Custom),
    /// An event whose `type` is none of the above (e.g. the deprecated `THINKING_*`), verbatim.
    #[serde(skip)]
    Unknown(Value),
}

/// The wire names of the typed variants; any other `type` parses as [`Event::Unknown`].
/// The tests check it against [`Event::kind`] and serde's names.
pub(super) const KNOWN_TYPES: [&str; 28] = [
    "RUN_STARTED",
    "RUN_FINISHED",
    "RUN_ERROR",
    "STEP_STARTED",
    "STEP_FINISHED",
    "TEXT_MESSAGE_START",
    "TEXT_MESSAGE_CONTENT",
    "TEXT_MESSAGE_END",
    "TEXT_MESSAGE_CHUNK",
    "TOOL_CALL_START",
    "TOOL_CALL_ARGS",
    "TOOL_CALL_END",
    "TOOL_CALL_CHUNK",
    "TOOL_CALL_RESULT",
    "STATE_SNAPSHOT",
    "STATE_DELTA",
    "MESSAGES_SNAPSHOT",
    "ACTIVITY_SNAPSHOT",
    "ACTIVITY_DELTA",
    "REASONING_START",
    "REASONING_MESSAGE_START",
    "REASONING_MESSAGE_CONTENT",
    "REASONING_MESSAGE_END",
    "REASONING_MESSAGE_CHUNK",
    "REASONING_END",
    "REASONING_ENCRYPTED_VALUE",
    "RAW",
    "CUSTOM",
];

impl Serialize for Event {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Event::Unknown(value) => value.serialize(serializer),
            known => Event::serialize(known, serializer),
        }
    }
}

impl<'de> Deserialize<'de> for Event {
    /// Serde's derive cannot fall back on an unknown tag without also swallowing the errors of
    /// known ones, so the tag is looked up first.
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(deserializer)?;
        match value.get("type") {
            None => Err(D::Error::missing_field("type")),
            Some(Value::String(kind)) if KNOWN_TYPES.contains(&kind.as_str()) => {
                Event::deserialize(value).map_err(D::Error::custom)
            }
            Some(Value::String(_)) => Ok(Event::Unknown(value)),
            Some(other) => Err(D::Error::custom(format!(
                "event `type` must be a string, found {other}"
            ))),
        }
    }
}

/// Constructors for the events the AGORA server emits; set the time with [`Event::with_timestamp`].
impl Event {
    pub fn run_started(thread_id: impl Into<String>, run_id: impl Into<String>) -> Self {
        Event::RunStarted(RunStarted {
            thread_id: thread_id.into(),
            run_id: run_id.into(),
            ..Default::default()
        })
    }

    pub fn run_finished(thread_id: impl Into<String>, run_id: impl Into<String>) -> Self {
        Event::RunFinished(RunFinished {
            thread_id: thread_id.into(),
            run_id: run_id.into(),
            ..Default::default()
        })
    }

    pub fn run_error(message: impl Into<String>, code: impl Into<String>) -> Self {
        Event::RunError(RunError {
            message: message.into(),
            code: Some(code.into()),
            ..Default::default()
        })
    }

    pub fn step_started(step_name: impl Into<String>) -> Self {
        Event::StepStarted(Step {
            step_name: step_name.into(),
            ..Default::default()
        })
    }

    pub fn step_finished(step_name: impl Into<String>) -> Self {
        Event::StepFinished(Step {
            step_name: step_name.into(),
            ..Default::default()
        })
    }

    /// An assistant message.
    pub fn text_message_start(message_id: impl Into<String>) -> Self {
        Event::TextMessageStart(MessageStart {
            message_id: message_id.into(),
            ..Default::default()
        })
    }

    pub fn text_message_content(message_id: impl Into<String>, delta: impl Into<String>) -> Self {
        Event::TextMessageContent(MessageContent {
            message_id: message_id.into(),
            delta: delta.into(),
            ..Default::default()
        })
    }

    pub fn text_message_end(message_id: impl Into<String>) -> Self {
        Event::TextMessageEnd(MessageRef {
            message_id: message_id.into(),
            ..Default::default()
        })
    }

    pub fn tool_call_start(tool_call_id: impl Into<String>, name: impl Into<String>) -> Self {
        Event::ToolCallStart(ToolCallStart {
            tool_call_id: tool_call_id.into(),
            tool_call_name: name.into(),
            ..Default::default()
        })
    }

    pub fn tool_call_args(tool_call_id: impl Into<String>, delta: impl Into<String>) -> Self {
        Event::ToolCallArgs(ToolCallArgs {
            tool_call_id: tool_call_id.into(),
            delta: delta.into(),
            ..Default::default()
        })
    }

    pub fn tool_call_end(tool_call_id: impl Into<String>) -> Self {
        Event::ToolCallEnd(ToolCallEnd {
            tool_call_id: tool_call_id.into(),
            ..Default::default()
        })
    }

    /// With `role: "tool"`, as AGORA sends it.
    pub fn tool_call_result(
        message_id: impl Into<String>,
        tool_call_id: impl Into<String>,
        content: impl Into<String>,
    ) -> Self {
        Event::ToolCallResult(ToolCallResult {
            message_id: message_id.into(),
            tool_call_id: tool_call_id.into(),
            content: content.into(),
            role: Some(Role::Tool),
            ..Default::default()
        })
    }

    pub fn state_snapshot(snapshot: Value) -> Self {
        Event::StateSnapshot(StateSnapshot {
            snapshot,
            ..Default::default()
        })
    }

    pub fn state_delta(delta: Vec<PatchOperation>) -> Self {
        Event::StateDelta(StateDelta {
            delta,
            ..Default::default()
        })
    }

    pub fn custom(name: impl Into<String>, value: Value) -> Self {
        Event::Custom(Custom {
            name: name.into(),
            value,
            ..Default::default()
        })
    }

    /// The wire `type`, e.g. `"RUN_STARTED"`; for [`Event::Unknown`] whatever it carried.
    pub fn kind(&self) -> &str {
        match self {
            Event::RunStarted(_) => "RUN_STARTED",
            Event::RunFinished(_) => "RUN_FINISHED",
            Event::RunError(_) => "RUN_ERROR",
            Event::StepStarted(_) => "STEP_STARTED",
            Event::StepFinished(_) => "STEP_FINISHED",
            Event::TextMessageStart(_) => "TEXT_MESSAGE_START",
            Event::TextMessageContent(_) => "TEXT_MESSAGE_CONTENT",
            Event::TextMessageEnd(_) => "TEXT_MESSAGE_END",
            Event::TextMessageChunk(_) => "TEXT_MESSAGE_CHUNK",
            Event::ToolCallStart(_) => "TOOL_CALL_START",
            Event::ToolCallArgs(_) => "TOOL_CALL_ARGS",
            Event::ToolCallEnd(_) => "TOOL_CALL_END",
            Event::ToolCallChunk(_) => "TOOL_CALL_CHUNK",
            Event::ToolCallResult(_) => "TOOL_CALL_RESULT",
            Event::StateSnapshot(_) => "STATE_SNAPSHOT",
            Event::StateDelta(_) => "STATE_DELTA",
            Event::MessagesSnapshot(_) => "MESSAGES_SNAPSHOT",
            Event::ActivitySnapshot(_) => "ACTIVITY_SNAPSHOT",
            Event::ActivityDelta(_) => "ACTIVITY_DELTA",
            Event::ReasoningStart(_) => "REASONING_START",
            Event::ReasoningMessageStart(_) => "REASONING_MESSAGE_START",
            Event::ReasoningMessageContent(_) => "REASONING_MESSAGE_CONTENT",
            Event::ReasoningMessageEnd(_) => "REASONING_MESSAGE_END",
            Event::ReasoningMessageChunk(_) => "REASONING_MESSAGE_CHUNK",
            Event::ReasoningEnd(_) => "REASONING_END",
            Event::ReasoningEncryptedValue(_) => "REASONING_ENCRYPTED_VALUE",
            Event::Raw(_) => "RAW",
            Event::Custom(_) => "CUSTOM",
            Event::Unknown(value) => value.get("type").and_then(Value::as_str).unwrap_or(""),
        }
    }

    /// Sets `timestamp` (Unix milliseconds). The crate has no clock: it also runs in the browser.
    /// An [`Event::Unknown`] is left as it is.
    pub fn with_timestamp(mut self, unix_millis: u64) -> Self {
        let base = match &mut self {
            Event::RunStarted(e) => &mut e.base,
            Event::RunFinished(e) => &mut e.base,
            Event::RunError(e) => &mut e.base,
            Event::StepStarted(e) | Event::StepFinished(e) => &mut e.base,
            Event::TextMessageStart(e) | Event::ReasoningMessageStart(e) => &mut e.base,
            Event::TextMessageContent(e) | Event::ReasoningMessageContent(e) => &mut e.base,
            Event::TextMessageEnd(e)
            | Event::ReasoningStart(e)
            | Event::ReasoningMessageEnd(e)
            | Event::ReasoningEnd(e) => &mut e.base,
            Event::TextMessageChunk(e) | Event::ReasoningMessageChunk(e) => &mut e.base,
            Event::ToolCallStart(e) => &mut e.base,
            Event::ToolCallArgs(e) => &mut e.base,
            Event::ToolCallEnd(e) => &mut e.base,
            Event::ToolCallChunk(e) => &mut e.base,
            Event::ToolCallResult(e) => &mut e.base,
            Event::StateSnapshot(e) => &mut e.base,
            Event::StateDelta(e) => &mut e.base,
            Event::MessagesSnapshot(e) => &mut e.base,
            Event::ActivitySnapshot(e) => &mut e.base,
            Event::ActivityDelta(e) => &mut e.base,
            Event::ReasoningEncryptedValue(e) => &mut e.base,
            Event::Raw(e) => &mut e.base,
            Event::Custom(e) => &mut e.base,
            Event::Unknown(_) => return self,
        };
        base.timestamp = Some(unix_millis);
        self
    }
}
