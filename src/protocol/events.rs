//! Server→client events: the AG-UI catalogue (`@ag-ui/core` `events.ts`) as one [`Event`] enum.
//!
//! Every struct keeps the fields it does not model in `extra` (through [`EventBase`]), so an
//! event relayed from another producer, such as the original AGORA orchestrator that adds
//! `toolDisplayName` to `TOOL_CALL_START`, leaves this crate unchanged.

use json_patch::PatchOperation;
use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize};
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

/// `RUN_FINISHED.outcome`: a normal end, a pause waiting for the user, or (AG-UI 1.0) a run
/// stopped on request.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "lowercase")]
pub enum RunOutcome {
    Success,
    /// The run paused; a later run resumes it with `RunAgentInput.resume`.
    Interrupt {
        interrupts: Vec<Interrupt>,
    },
    /// The run was stopped (a cancel); what it said so far stands.
    Cancelled,
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

/// `SUBAGENT_STARTED` (AG-UI 1.0): an invocation of a subagent begins; until its
/// `SUBAGENT_FINISHED` or `SUBAGENT_ERROR`, the events it produces carry its `subagentRunId`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SubagentStarted {
    pub subagent_run_id: String,
    /// The subagent's name, the same across invocations.
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent_subagent_run_id: Option<String>,
    /// The tool call that spawned it (here: the handoff).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent_tool_call_id: Option<String>,
    /// The message that held that call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent_message_id: Option<String>,
    #[serde(flatten)]
    pub base: EventBase,
}

/// `SUBAGENT_FINISHED`: the invocation's segment of this run ends, done or suspended.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SubagentFinished {
    pub subagent_run_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outcome: Option<SubagentOutcome>,
    #[serde(flatten)]
    pub base: EventBase,
}

/// Why a subagent's segment ended; absent means success.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "lowercase")]
pub enum SubagentOutcome {
    Success,
    /// Paused awaiting outside input; a later run may continue the same invocation.
    Suspended {
        #[serde(
            default,
            rename = "interruptIds",
            skip_serializing_if = "Option::is_none"
        )]
        interrupt_ids: Option<Vec<String>>,
    },
}

/// `SUBAGENT_ERROR`: the invocation failed (the run may go on).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SubagentError {
    pub subagent_run_id: String,
    pub message: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<String>,
    #[serde(flatten)]
    pub base: EventBase,
}

/// Declares [`Event`] from one list of `Variant(Payload) = "WIRE_NAME"`, so the enum, its serde
/// names, [`Event::kind`], the parser's dispatch and the samples the hand reader is tested
/// with cannot drift apart.
macro_rules! events {
    ($($(#[$doc:meta])* $variant:ident($payload:ty) = $wire:literal,)+) => {
        /// One server→client message, tagged by `type`.
        ///
        /// Parsing keeps an unknown `type` as [`Event::Unknown`] instead of failing, so a newer
        /// producer does not break older clients; a known `type` with bad fields is an error.
        #[derive(Debug, Clone, PartialEq, Serialize)]
        #[serde(tag = "type")]
        pub enum Event {
            $($(#[$doc])* #[serde(rename = $wire)] $variant($payload),)+
            /// An event of another `type` (e.g. the deprecated `THINKING_*`), verbatim.
            #[serde(untagged)]
            Unknown(Value),
        }

        impl Event {
            /// Every known wire `type`, in declaration order.
            pub const KINDS: &[&str] = &[$($wire,)+];

            /// One event of each kind, its payload's default: the tests walk every kind
            /// through serde and the browser's hand reader (`wire`).
            #[cfg(test)]
            pub(crate) fn one_of_each() -> Vec<Event> {
                vec![$(Event::$variant(<$payload>::default()),)+]
            }

            /// The wire `type`, e.g. `"RUN_STARTED"`; for [`Event::Unknown`] whatever it carried.
            pub fn kind(&self) -> &str {
                match self {
                    $(Event::$variant(_) => $wire,)+
                    Event::Unknown(value) => value.get("type").and_then(Value::as_str).unwrap_or(""),
                }
            }

            /// The fields every event may carry; `None` for an [`Event::Unknown`].
            pub fn base(&self) -> Option<&EventBase> {
                match self {
                    $(Event::$variant(event) => Some(&event.base),)+
                    Event::Unknown(_) => None,
                }
            }

            /// The fields every event may carry, to change; `None` for an [`Event::Unknown`].
            pub fn base_mut(&mut self) -> Option<&mut EventBase> {
                match self {
                    $(Event::$variant(event) => Some(&mut event.base),)+
                    Event::Unknown(_) => None,
                }
            }
        }

        impl<'de> Deserialize<'de> for Event {
            /// By hand because serde's derive cannot fall back on an unknown tag without also
            /// swallowing the errors of the known ones.
            fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                let value = Value::deserialize(deserializer)?;
                let kind = match value.get("type") {
                    Some(Value::String(kind)) => kind.clone(),
                    Some(other) => {
                        let message = format!("event `type` must be a string, found {other}");
                        return Err(D::Error::custom(message));
                    }
                    None => return Err(D::Error::missing_field("type")),
                };
                let parsed = match kind.as_str() {
                    $($wire => <$payload>::deserialize(without_type(value)).map(Event::$variant),)+
                    _ => Ok(Event::Unknown(value)),
                };
                parsed.map_err(D::Error::custom)
            }
        }
    };
}

/// The payload structs would keep `type` as an unknown field.
fn without_type(value: Value) -> Value {
    match value {
        Value::Object(map) => Value::Object(map.into_iter().filter(|(k, _)| k != "type").collect()),
        other => other,
    }
}

events! {
    RunStarted(RunStarted) = "RUN_STARTED",
    RunFinished(RunFinished) = "RUN_FINISHED",
    RunError(RunError) = "RUN_ERROR",
    StepStarted(Step) = "STEP_STARTED",
    StepFinished(Step) = "STEP_FINISHED",
    TextMessageStart(MessageStart) = "TEXT_MESSAGE_START",
    TextMessageContent(MessageContent) = "TEXT_MESSAGE_CONTENT",
    TextMessageEnd(MessageRef) = "TEXT_MESSAGE_END",
    TextMessageChunk(MessageChunk) = "TEXT_MESSAGE_CHUNK",
    ToolCallStart(ToolCallStart) = "TOOL_CALL_START",
    ToolCallArgs(ToolCallArgs) = "TOOL_CALL_ARGS",
    ToolCallEnd(ToolCallEnd) = "TOOL_CALL_END",
    ToolCallChunk(ToolCallChunk) = "TOOL_CALL_CHUNK",
    ToolCallResult(ToolCallResult) = "TOOL_CALL_RESULT",
    StateSnapshot(StateSnapshot) = "STATE_SNAPSHOT",
    StateDelta(StateDelta) = "STATE_DELTA",
    MessagesSnapshot(MessagesSnapshot) = "MESSAGES_SNAPSHOT",
    ActivitySnapshot(ActivitySnapshot) = "ACTIVITY_SNAPSHOT",
    ActivityDelta(ActivityDelta) = "ACTIVITY_DELTA",
    /// Opens a block of reasoning messages.
    ReasoningStart(MessageRef) = "REASONING_START",
    ReasoningMessageStart(MessageStart) = "REASONING_MESSAGE_START",
    ReasoningMessageContent(MessageContent) = "REASONING_MESSAGE_CONTENT",
    ReasoningMessageEnd(MessageRef) = "REASONING_MESSAGE_END",
    ReasoningMessageChunk(MessageChunk) = "REASONING_MESSAGE_CHUNK",
    ReasoningEnd(MessageRef) = "REASONING_END",
    ReasoningEncryptedValue(ReasoningEncryptedValue) = "REASONING_ENCRYPTED_VALUE",
    Raw(Raw) = "RAW",
    Custom(Custom) = "CUSTOM",
    SubagentStarted(SubagentStarted) = "SUBAGENT_STARTED",
    SubagentFinished(SubagentFinished) = "SUBAGENT_FINISHED",
    SubagentError(SubagentError) = "SUBAGENT_ERROR",
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

    /// The subagent invocation an event belongs to (`subagentRunId`, AG-UI 1.0).
    pub fn subagent_run_id(&self) -> Option<&str> {
        match self {
            Event::SubagentStarted(e) => Some(&e.subagent_run_id),
            Event::SubagentFinished(e) => Some(&e.subagent_run_id),
            Event::SubagentError(e) => Some(&e.subagent_run_id),
            other => other.base()?.extra.get("subagentRunId")?.as_str(),
        }
    }

    /// The event's number in its thread (`seq`, AGORA's `/ws`), which a client sends back in
    /// `agora:resume` after a lost connection.
    pub fn seq(&self) -> Option<u64> {
        self.base()?.extra.get("seq")?.as_u64()
    }

    /// Sets `timestamp` (Unix milliseconds). The crate has no clock: it also runs in the browser.
    /// An [`Event::Unknown`] is left as it is.
    pub fn with_timestamp(mut self, unix_millis: u64) -> Self {
        if let Some(base) = self.base_mut() {
            base.timestamp = Some(unix_millis);
        }
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every variant parses back from what it serialises to, under its own `kind`.
    #[test]
    fn every_variant_round_trips() {
        let one_of_each = [
            Event::RunStarted(Default::default()),
            Event::RunFinished(Default::default()),
            Event::RunError(Default::default()),
            Event::StepStarted(Default::default()),
            Event::StepFinished(Default::default()),
            Event::TextMessageStart(Default::default()),
            Event::TextMessageContent(Default::default()),
            Event::TextMessageEnd(Default::default()),
            Event::TextMessageChunk(Default::default()),
            Event::ToolCallStart(Default::default()),
            Event::ToolCallArgs(Default::default()),
            Event::ToolCallEnd(Default::default()),
            Event::ToolCallChunk(Default::default()),
            Event::ToolCallResult(Default::default()),
            Event::StateSnapshot(Default::default()),
            Event::StateDelta(Default::default()),
            Event::MessagesSnapshot(Default::default()),
            Event::ActivitySnapshot(Default::default()),
            Event::ActivityDelta(Default::default()),
            Event::ReasoningStart(Default::default()),
            Event::ReasoningMessageStart(Default::default()),
            Event::ReasoningMessageContent(Default::default()),
            Event::ReasoningMessageEnd(Default::default()),
            Event::ReasoningMessageChunk(Default::default()),
            Event::ReasoningEnd(Default::default()),
            Event::ReasoningEncryptedValue(Default::default()),
            Event::Raw(Default::default()),
            Event::Custom(Default::default()),
            Event::SubagentStarted(Default::default()),
            Event::SubagentFinished(Default::default()),
            Event::SubagentError(Default::default()),
        ];
        for event in one_of_each {
            let json = serde_json::to_value(&event).unwrap();
            assert_eq!(json["type"], event.kind());
            assert_eq!(serde_json::from_value::<Event>(json).unwrap(), event);
        }
    }
}
