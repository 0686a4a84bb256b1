//! The browser's one reader of the server's frames: JSON text to the protocol's [`Event`] and
//! [`AgoraEvent`], and the client's frames back to JSON ([`agora`]). The fuzz targets read
//! with it too.
//!
//! Why not `serde_json::from_str::<Event>`: serde's derived code for the event catalogue
//! (`#[serde(flatten)]` on every struct) is the largest single cost of the bundle. Measured on
//! 2026-11-24 by building the page both ways (release, wasm-opt -Oz): reading with serde made
//! the wasm 545 → 728 KB raw, +71 KB gzip, +42 KB Brotli. This reader goes through
//! `serde_json::Value`, which the page needs anyway, and fills the protocol's own structs, so
//! the types stay one. Its tests walk every kind of `Event::KINDS` and every name of
//! `AgoraEvent::NAMES` through it and serde: a new kind fails them until it is read here.

use serde_json::{Map, Value};

use super::{
    ActivityDelta, ActivitySnapshot, AssistantMessage, BasicMessage, Custom, EncryptedSubtype,
    Event, EventBase, FunctionCall, InputContent, MediaPart, MediaSource, Message, MessageChunk,
    MessageContent, MessageRef, MessageStart, MessagesSnapshot, PatchOperation, Raw,
    ReasoningEncryptedValue, Role, RunError, RunFinished, RunStarted, Source, StateDelta,
    StateSnapshot, Step, SubagentError, SubagentFinished, SubagentOutcome, SubagentStarted,
    TextPart, ToolCall, ToolCallArgs, ToolCallChunk, ToolCallEnd, ToolCallResult, ToolCallStart,
    ToolMessage, UserContent, UserMessage,
};

mod agora;
#[cfg(test)]
mod tests;

pub use agora::{
    OutgoingPhoto, agora_event, approval_response, cancel_run, client_frame, resume, run_input,
    run_input_with_photos,
};

type Obj = Map<String, Value>;

/// Reads one frame. An unknown `type` is [`Event::Unknown`]; a known one with missing or
/// mistyped fields is an error, as with serde.
pub fn decode_event(text: &str) -> Result<Event, String> {
    let value: Value = serde_json::from_str(text).map_err(|e| e.to_string())?;
    event_from_value(value)
}

pub fn event_from_value(value: Value) -> Result<Event, String> {
    let Value::Object(o) = value else {
        return Err("an event is a JSON object".to_owned());
    };
    let kind = match o.get("type") {
        Some(Value::String(kind)) => kind.clone(),
        Some(other) => return Err(format!("event `type` must be a string, found {other}")),
        None => return Err("missing field `type`".to_owned()),
    };
    let o = &o;
    let event = match kind.as_str() {
        "RUN_STARTED" => Event::RunStarted(RunStarted {
            thread_id: req_str(o, "threadId")?,
            run_id: req_str(o, "runId")?,
            parent_run_id: opt_str(o, "parentRunId")?,
            input: None,
            base: base(o, &["threadId", "runId", "parentRunId", "input"])?,
        }),
        "RUN_FINISHED" => Event::RunFinished(RunFinished {
            thread_id: req_str(o, "threadId")?,
            run_id: req_str(o, "runId")?,
            result: o.get("result").cloned(),
            outcome: None,
            base: base(o, &["threadId", "runId", "result", "outcome"])?,
        }),
        "RUN_ERROR" => Event::RunError(RunError {
            message: req_str(o, "message")?,
            code: opt_str(o, "code")?,
            base: base(o, &["message", "code"])?,
        }),
        "STEP_STARTED" => Event::StepStarted(step(o)?),
        "STEP_FINISHED" => Event::StepFinished(step(o)?),
        "TEXT_MESSAGE_START" => Event::TextMessageStart(message_start(o)?),
        "REASONING_MESSAGE_START" => Event::ReasoningMessageStart(message_start(o)?),
        "TEXT_MESSAGE_CONTENT" => Event::TextMessageContent(message_content(o)?),
        "REASONING_MESSAGE_CONTENT" => Event::ReasoningMessageContent(message_content(o)?),
        "TEXT_MESSAGE_END" => Event::TextMessageEnd(message_ref(o)?),
        "REASONING_START" => Event::ReasoningStart(message_ref(o)?),
        "REASONING_MESSAGE_END" => Event::ReasoningMessageEnd(message_ref(o)?),
        "REASONING_END" => Event::ReasoningEnd(message_ref(o)?),
        "TEXT_MESSAGE_CHUNK" => Event::TextMessageChunk(message_chunk(o)?),
        "REASONING_MESSAGE_CHUNK" => Event::ReasoningMessageChunk(message_chunk(o)?),
        "TOOL_CALL_START" => Event::ToolCallStart(ToolCallStart {
            tool_call_id: req_str(o, "toolCallId")?,
            tool_call_name: req_str(o, "toolCallName")?,
            parent_message_id: nullable_str(o, "parentMessageId")?,
            base: base(o, &["toolCallId", "toolCallName", "parentMessageId"])?,
        }),
        "TOOL_CALL_ARGS" => Event::ToolCallArgs(ToolCallArgs {
            tool_call_id: req_str(o, "toolCallId")?,
            delta: req_str(o, "delta")?,
            base: base(o, &["toolCallId", "delta"])?,
        }),
        "TOOL_CALL_END" => Event::ToolCallEnd(ToolCallEnd {
            tool_call_id: req_str(o, "toolCallId")?,
            base: base(o, &["toolCallId"])?,
        }),
        "TOOL_CALL_CHUNK" => Event::ToolCallChunk(ToolCallChunk {
            tool_call_id: opt_str(o, "toolCallId")?,
            tool_call_name: opt_str(o, "toolCallName")?,
            parent_message_id: nullable_str(o, "parentMessageId")?,
            delta: opt_str(o, "delta")?,
            base: base(
                o,
                &["toolCallId", "toolCallName", "parentMessageId", "delta"],
            )?,
        }),
        "TOOL_CALL_RESULT" => Event::ToolCallResult(ToolCallResult {
            message_id: req_str(o, "messageId")?,
            tool_call_id: req_str(o, "toolCallId")?,
            content: req_str(o, "content")?,
            role: o
                .get("role")
                .filter(|r| !r.is_null())
                .map(role)
                .transpose()?,
            base: base(o, &["messageId", "toolCallId", "content", "role"])?,
        }),
        "STATE_SNAPSHOT" => Event::StateSnapshot(StateSnapshot {
            snapshot: req(o, "snapshot")?.clone(),
            base: base(o, &["snapshot"])?,
        }),
        "STATE_DELTA" => Event::StateDelta(StateDelta {
            delta: patch(req(o, "delta")?)?,
            base: base(o, &["delta"])?,
        }),
        "MESSAGES_SNAPSHOT" => Event::MessagesSnapshot(MessagesSnapshot {
            messages: array(req(o, "messages")?)?
                .iter()
                .map(message)
                .collect::<Result<_, _>>()?,
            base: base(o, &["messages"])?,
        }),
        "ACTIVITY_SNAPSHOT" => Event::ActivitySnapshot(ActivitySnapshot {
            message_id: req_str(o, "messageId")?,
            activity_type: req_str(o, "activityType")?,
            content: req(o, "content")?.clone(),
            replace: o.get("replace").and_then(Value::as_bool),
            base: base(o, &["messageId", "activityType", "content", "replace"])?,
        }),
        "ACTIVITY_DELTA" => Event::ActivityDelta(ActivityDelta {
            message_id: req_str(o, "messageId")?,
            activity_type: req_str(o, "activityType")?,
            patch: patch(req(o, "patch")?)?,
            base: base(o, &["messageId", "activityType", "patch"])?,
        }),
        "REASONING_ENCRYPTED_VALUE" => Event::ReasoningEncryptedValue(ReasoningEncryptedValue {
            subtype: match req_str(o, "subtype")?.as_str() {
                "tool-call" => EncryptedSubtype::ToolCall,
                "message" => EncryptedSubtype::Message,
                other => return Err(format!("unknown subtype `{other}`")),
            },
            entity_id: req_str(o, "entityId")?,
            encrypted_value: req_str(o, "encryptedValue")?,
            base: base(o, &["subtype", "entityId", "encryptedValue"])?,
        }),
        "RAW" => Event::Raw(Raw {
            event: req(o, "event")?.clone(),
            source: opt_str(o, "source")?,
            base: base(o, &["event", "source"])?,
        }),
        "CUSTOM" => Event::Custom(Custom {
            name: req_str(o, "name")?,
            value: o.get("value").cloned().unwrap_or(Value::Null),
            base: base(o, &["name", "value"])?,
        }),
        "SUBAGENT_STARTED" => Event::SubagentStarted(SubagentStarted {
            subagent_run_id: req_str(o, "subagentRunId")?,
            name: req_str(o, "name")?,
            description: opt_str(o, "description")?,
            parent_subagent_run_id: opt_str(o, "parentSubagentRunId")?,
            parent_tool_call_id: opt_str(o, "parentToolCallId")?,
            parent_message_id: opt_str(o, "parentMessageId")?,
            base: base(
                o,
                &[
                    "subagentRunId",
                    "name",
                    "description",
                    "parentSubagentRunId",
                    "parentToolCallId",
                    "parentMessageId",
                ],
            )?,
        }),
        "SUBAGENT_FINISHED" => Event::SubagentFinished(SubagentFinished {
            subagent_run_id: req_str(o, "subagentRunId")?,
            result: o.get("result").filter(|r| !r.is_null()).cloned(),
            outcome: match o.get("outcome") {
                None | Some(Value::Null) => None,
                Some(outcome) => Some(subagent_outcome(outcome)?),
            },
            base: base(o, &["subagentRunId", "result", "outcome"])?,
        }),
        "SUBAGENT_ERROR" => Event::SubagentError(SubagentError {
            subagent_run_id: req_str(o, "subagentRunId")?,
            message: req_str(o, "message")?,
            code: opt_str(o, "code")?,
            base: base(o, &["subagentRunId", "message", "code"])?,
        }),
        _ => Event::Unknown(Value::Object(o.clone())),
    };
    Ok(event)
}

fn req<'a>(o: &'a Obj, key: &str) -> Result<&'a Value, String> {
    o.get(key).ok_or_else(|| format!("missing field `{key}`"))
}

fn req_str(o: &Obj, key: &str) -> Result<String, String> {
    match req(o, key)? {
        Value::String(s) => Ok(s.clone()),
        other => Err(format!("`{key}` must be a string, found {other}")),
    }
}

/// Absent or `null` is `None`.
fn opt_str(o: &Obj, key: &str) -> Result<Option<String>, String> {
    match o.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(other) => Err(format!("`{key}` must be a string, found {other}")),
    }
}

/// Absent is `None`, `null` is `Some(None)` (the protocol keeps the difference).
fn nullable_str(o: &Obj, key: &str) -> Result<Option<Option<String>>, String> {
    match o.get(key) {
        None => Ok(None),
        Some(Value::Null) => Ok(Some(None)),
        Some(Value::String(s)) => Ok(Some(Some(s.clone()))),
        Some(other) => Err(format!("`{key}` must be a string, found {other}")),
    }
}

fn array(value: &Value) -> Result<&Vec<Value>, String> {
    value.as_array().ok_or_else(|| "expected a list".to_owned())
}

fn extra(o: &Obj, known: &[&str]) -> Obj {
    o.iter()
        .filter(|(k, _)| !known.contains(&k.as_str()))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect()
}

fn base(o: &Obj, known: &[&str]) -> Result<EventBase, String> {
    let timestamp = match o.get("timestamp") {
        None | Some(Value::Null) => None,
        Some(v) => Some(v.as_u64().ok_or("`timestamp` must be Unix milliseconds")?),
    };
    let metadata = match o.get("metadata") {
        None | Some(Value::Null) => None,
        Some(Value::Object(m)) => Some(m.clone()),
        Some(_) => return Err("`metadata` must be an object".to_owned()),
    };
    let mut all = vec!["type", "timestamp", "metadata", "rawEvent"];
    all.extend_from_slice(known);
    Ok(EventBase {
        timestamp,
        metadata,
        raw_event: o.get("rawEvent").cloned(),
        extra: extra(o, &all),
    })
}

fn role(value: &Value) -> Result<Role, String> {
    Ok(match value.as_str() {
        Some("developer") => Role::Developer,
        Some("system") => Role::System,
        Some("assistant") => Role::Assistant,
        Some("user") => Role::User,
        Some("tool") => Role::Tool,
        Some("activity") => Role::Activity,
        Some("reasoning") => Role::Reasoning,
        _ => return Err(format!("unknown role {value}")),
    })
}

fn step(o: &Obj) -> Result<Step, String> {
    Ok(Step {
        step_name: req_str(o, "stepName")?,
        base: base(o, &["stepName"])?,
    })
}

fn message_start(o: &Obj) -> Result<MessageStart, String> {
    Ok(MessageStart {
        message_id: req_str(o, "messageId")?,
        role: o.get("role").map(role).transpose()?.unwrap_or_default(),
        name: opt_str(o, "name")?,
        base: base(o, &["messageId", "role", "name"])?,
    })
}

fn message_content(o: &Obj) -> Result<MessageContent, String> {
    Ok(MessageContent {
        message_id: req_str(o, "messageId")?,
        delta: req_str(o, "delta")?,
        base: base(o, &["messageId", "delta"])?,
    })
}

fn message_ref(o: &Obj) -> Result<MessageRef, String> {
    Ok(MessageRef {
        message_id: req_str(o, "messageId")?,
        base: base(o, &["messageId"])?,
    })
}

fn message_chunk(o: &Obj) -> Result<MessageChunk, String> {
    Ok(MessageChunk {
        message_id: opt_str(o, "messageId")?,
        role: o
            .get("role")
            .filter(|r| !r.is_null())
            .map(role)
            .transpose()?,
        delta: opt_str(o, "delta")?,
        name: opt_str(o, "name")?,
        base: base(o, &["messageId", "role", "delta", "name"])?,
    })
}

fn subagent_outcome(value: &Value) -> Result<SubagentOutcome, String> {
    let o = value.as_object().ok_or("`outcome` is an object")?;
    Ok(match req_str(o, "type")?.as_str() {
        "success" => SubagentOutcome::Success,
        "suspended" => SubagentOutcome::Suspended {
            interrupt_ids: match o.get("interruptIds") {
                None | Some(Value::Null) => None,
                Some(ids) => Some(
                    array(ids)?
                        .iter()
                        .map(|id| id.as_str().map(str::to_owned).ok_or("an id is a string"))
                        .collect::<Result<_, _>>()?,
                ),
            },
        },
        other => return Err(format!("unknown outcome `{other}`")),
    })
}

fn patch(value: &Value) -> Result<Vec<PatchOperation>, String> {
    use json_patch::jsonptr::PointerBuf;
    use json_patch::{
        AddOperation, CopyOperation, MoveOperation, RemoveOperation, ReplaceOperation,
        TestOperation,
    };
    let pointer = |o: &Obj, key: &str| -> Result<PointerBuf, String> {
        PointerBuf::parse(req_str(o, key)?).map_err(|e| e.to_string())
    };
    array(value)?
        .iter()
        .map(|op| {
            let o = op.as_object().ok_or("a patch operation is an object")?;
            let path = pointer(o, "path")?;
            Ok(match req_str(o, "op")?.as_str() {
                "add" => PatchOperation::Add(AddOperation {
                    path,
                    value: req(o, "value")?.clone(),
                }),
                "remove" => PatchOperation::Remove(RemoveOperation { path }),
                "replace" => PatchOperation::Replace(ReplaceOperation {
                    path,
                    value: req(o, "value")?.clone(),
                }),
                "move" => PatchOperation::Move(MoveOperation {
                    from: pointer(o, "from")?,
                    path,
                }),
                "copy" => PatchOperation::Copy(CopyOperation {
                    from: pointer(o, "from")?,
                    path,
                }),
                "test" => PatchOperation::Test(TestOperation {
                    path,
                    value: req(o, "value")?.clone(),
                }),
                other => return Err(format!("unknown patch op `{other}`")),
            })
        })
        .collect()
}

/// One stored message of a `MESSAGES_SNAPSHOT`. Multimodal parts other than text and stored
/// photos are kept out: the screen shows nothing else.
fn message(value: &Value) -> Result<Message, String> {
    let o = value.as_object().ok_or("a message is an object")?;
    let id = opt_str(o, "id")?;
    let encrypted_value = opt_str(o, "encryptedValue")?;
    let basic = |o: &Obj| -> Result<BasicMessage, String> {
        Ok(BasicMessage {
            id: id.clone(),
            content: req_str(o, "content")?,
            name: opt_str(o, "name")?,
            encrypted_value: encrypted_value.clone(),
            extra: extra(o, &["role", "id", "content", "name", "encryptedValue"]),
        })
    };
    Ok(match req_str(o, "role")?.as_str() {
        "developer" => Message::Developer(basic(o)?),
        "system" => Message::System(basic(o)?),
        "reasoning" => Message::Reasoning(basic(o)?),
        "user" => Message::User(UserMessage {
            id,
            content: match req(o, "content")? {
                Value::String(text) => UserContent::Text(text.clone()),
                Value::Array(parts) => UserContent::Parts(
                    parts
                        .iter()
                        .filter_map(|p| {
                            let field = |name: &str| p.get(name).and_then(Value::as_str);
                            match field("type")? {
                                "text" => Some(InputContent::Text(TextPart {
                                    text: field("text").unwrap_or_default().to_owned(),
                                    extra: Map::new(),
                                })),
                                // A stored photo, by its address (issue 37).
                                "image" => {
                                    let url = p.get("source")?.get("value")?.as_str()?;
                                    super::photo_id(url)?;
                                    Some(InputContent::Image(MediaPart {
                                        source: MediaSource::Url(Source {
                                            value: url.to_owned(),
                                            mime_type: None,
                                            extra: Map::new(),
                                        }),
                                        metadata: None,
                                        extra: Map::new(),
                                    }))
                                }
                                _ => None,
                            }
                        })
                        .collect(),
                ),
                _ => return Err("user `content` is text or a list of parts".to_owned()),
            },
            name: opt_str(o, "name")?,
            encrypted_value,
            extra: extra(o, &["role", "id", "content", "name", "encryptedValue"]),
        }),
        "assistant" => Message::Assistant(AssistantMessage {
            id,
            content: opt_str(o, "content")?,
            name: opt_str(o, "name")?,
            encrypted_value,
            tool_calls: match o.get("toolCalls") {
                None | Some(Value::Null) => None,
                Some(calls) => Some(
                    array(calls)?
                        .iter()
                        .map(tool_call)
                        .collect::<Result<_, _>>()?,
                ),
            },
            extra: extra(
                o,
                &[
                    "role",
                    "id",
                    "content",
                    "name",
                    "encryptedValue",
                    "toolCalls",
                ],
            ),
        }),
        "tool" => Message::Tool(ToolMessage {
            id,
            content: req_str(o, "content")?,
            tool_call_id: req_str(o, "toolCallId")?,
            error: opt_str(o, "error")?,
            encrypted_value,
            extra: extra(
                o,
                &[
                    "role",
                    "id",
                    "content",
                    "toolCallId",
                    "error",
                    "encryptedValue",
                ],
            ),
        }),
        "activity" => Message::Activity(super::ActivityMessage {
            id,
            activity_type: req_str(o, "activityType")?,
            content: req(o, "content")?.clone(),
            extra: extra(o, &["role", "id", "activityType", "content"]),
        }),
        other => return Err(format!("unknown role `{other}`")),
    })
}

fn tool_call(value: &Value) -> Result<ToolCall, String> {
    let o = value.as_object().ok_or("a tool call is an object")?;
    let function = req(o, "function")?
        .as_object()
        .ok_or("`function` is an object")?;
    Ok(ToolCall {
        id: req_str(o, "id")?,
        kind: req_str(o, "type")?,
        function: FunctionCall {
            name: req_str(function, "name")?,
            arguments: req_str(function, "arguments")?,
            extra: extra(function, &["name", "arguments"]),
        },
        encrypted_value: opt_str(o, "encryptedValue")?,
        extra: extra(o, &["id", "type", "function", "encryptedValue"]),
    })
}
