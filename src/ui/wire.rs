//! The browser's reader and writer of `/ws` frames: JSON text to the protocol's [`Event`]
//! (and AGORA's custom payloads), and the client's frames back to JSON.
//!
//! Why not `serde_json::from_str::<Event>`: serde's derived code for the event catalogue
//! (`#[serde(flatten)]` on every struct) is the largest single cost of the bundle. Measured on
//! 2026-11-24 by building the page both ways (release, wasm-opt -Oz): reading with serde made
//! the wasm 545 → 728 KB raw, +71 KB gzip, +42 KB Brotli. This reader goes through
//! `serde_json::Value`, which the page needs anyway, and fills the protocol's own structs, so
//! the types stay one; `tests` check it agrees with serde on every event type.

use serde_json::{Map, Value, json};

use crate::protocol::{
    ActivityDelta, ActivitySnapshot, AgoraError, AgoraEvent, AssistantMessage, BasicMessage,
    Custom, EncryptedSubtype, Event, EventBase, FunctionCall, InputContent, Message, MessageChunk,
    MessageContent, MessageRef, MessageStart, MessagesSnapshot, PatchOperation, Raw,
    ReasoningEncryptedValue, RiskLevel, Role, RunError, RunFinished, RunStarted, StateDelta,
    StateSnapshot, Step, TextPart, ToolApprovalRequest, ToolCall, ToolCallArgs, ToolCallChunk,
    ToolCallEnd, ToolCallResult, ToolCallStart, ToolMessage, UserContent, UserMessage,
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
        _ => Event::Unknown(Value::Object(o.clone())),
    };
    Ok(event)
}

/// The AGORA payload of a `CUSTOM` event: `None` for other names, `Some(Err)` when it does
/// not fit. Only the server→client events the screen shows are read; the rest are `None`.
pub fn agora_event(custom: &Custom) -> Option<Result<AgoraEvent, String>> {
    let o = custom.value.as_object();
    let parsed = match custom.name.as_str() {
        crate::protocol::agora::TOOL_APPROVAL_REQUEST => o
            .ok_or_else(|| "the value is not an object".to_owned())
            .and_then(approval_request)
            .map(AgoraEvent::ToolApprovalRequest),
        crate::protocol::agora::ERROR => o
            .ok_or_else(|| "the value is not an object".to_owned())
            .and_then(|o| {
                Ok(AgoraError {
                    error_code: req_str(o, "errorCode")?,
                    message: req_str(o, "message")?,
                    details: o.get("details").cloned(),
                    extra: extra(o, &["errorCode", "message", "details"]),
                })
            })
            .map(AgoraEvent::Error),
        _ => return None,
    };
    Some(parsed)
}

fn approval_request(o: &Obj) -> Result<ToolApprovalRequest, String> {
    let risk_level = match req_str(o, "riskLevel")?.as_str() {
        "low" => RiskLevel::Low,
        "medium" => RiskLevel::Medium,
        "high" => RiskLevel::High,
        "critical" => RiskLevel::Critical,
        other => return Err(format!("unknown riskLevel `{other}`")),
    };
    Ok(ToolApprovalRequest {
        tool_name: req_str(o, "toolName")?,
        tool_description: req_str(o, "toolDescription")?,
        parameters: req(o, "parameters")?
            .as_object()
            .cloned()
            .ok_or("`parameters` is not an object")?,
        reasoning: req_str(o, "reasoning")?,
        risk_level,
        approval_id: req_str(o, "approvalId")?,
        extra: extra(
            o,
            &[
                "toolName",
                "toolDescription",
                "parameters",
                "reasoning",
                "riskLevel",
                "approvalId",
            ],
        ),
    })
}

/// `RunAgentInput` for one user message (AGORA's form: the server keeps the history).
/// A run for the inspector's message; `message_id` makes a resend harmless (the server takes
/// a message once per id).
pub fn run_input(thread_id: &str, message_id: &str, text: &str) -> String {
    json!({
        "threadId": thread_id,
        "messages": [{ "id": message_id, "role": "user", "content": text }],
        "context": {},
    })
    .to_string()
}

/// Follows a thread again (`agora:resume`): what came after `after_seq`, or with `None` the
/// thread as it stands and its live run.
pub fn resume(thread_id: &str, after_seq: Option<u64>) -> String {
    let mut value = json!({ "threadId": thread_id });
    if let Some(seq) = after_seq {
        value["afterSeq"] = Value::from(seq);
    }
    custom(crate::protocol::agora::RESUME, value)
}

pub fn approval_response(approval_id: &str, approved: bool, feedback: Option<&str>) -> String {
    let mut value = json!({ "approvalId": approval_id, "approved": approved });
    if let Some(feedback) = feedback.filter(|f| !f.trim().is_empty()) {
        value["feedback"] = Value::from(feedback);
    }
    custom(crate::protocol::agora::TOOL_APPROVAL_RESPONSE, value)
}

pub fn cancel_run(thread_id: &str, run_id: &str) -> String {
    custom(
        crate::protocol::agora::CANCEL_RUN,
        json!({ "threadId": thread_id, "runId": run_id }),
    )
}

/// Asks for a thread's stored messages; the answer is one `MESSAGES_SNAPSHOT`.
pub fn history_request(thread_id: &str) -> String {
    custom(
        crate::protocol::agora::HISTORY_REQUEST,
        json!({ "threadId": thread_id }),
    )
}

fn custom(name: &str, value: Value) -> String {
    json!({ "type": "CUSTOM", "name": name, "value": value }).to_string()
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

/// One stored message of a `MESSAGES_SNAPSHOT`. Multimodal parts other than text are kept
/// out: the screen shows text only.
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
                        .filter(|p| p.get("type").and_then(Value::as_str) == Some("text"))
                        .map(|p| {
                            InputContent::Text(TextPart {
                                text: p
                                    .get("text")
                                    .and_then(Value::as_str)
                                    .unwrap_or_default()
                                    .to_owned(),
                                extra: Map::new(),
                            })
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
        "activity" => Message::Activity(crate::protocol::ActivityMessage {
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

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    /// Every event type, with the optional fields present and absent.
    fn corpus() -> Vec<Value> {
        let mut events = vec![
            json!({"type": "RUN_STARTED", "threadId": "t", "runId": "r", "timestamp": 1}),
            json!({"type": "RUN_STARTED", "threadId": "t", "runId": "r", "parentRunId": "p", "metadata": {"a": 1}}),
            json!({"type": "RUN_FINISHED", "threadId": "t", "runId": "r", "result": null}),
            json!({"type": "RUN_FINISHED", "threadId": "t", "runId": "r", "result": {"x": 1}}),
            json!({"type": "RUN_ERROR", "message": "m", "code": "c"}),
            json!({"type": "RUN_ERROR", "message": "m"}),
            json!({"type": "STEP_STARTED", "stepName": "routing"}),
            json!({"type": "STEP_FINISHED", "stepName": "routing", "rawEvent": null}),
            json!({"type": "TEXT_MESSAGE_START", "messageId": "m", "role": "assistant", "name": "history-agent"}),
            json!({"type": "TEXT_MESSAGE_START", "messageId": "m"}),
            json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": "d"}),
            json!({"type": "TEXT_MESSAGE_END", "messageId": "m"}),
            json!({"type": "TEXT_MESSAGE_CHUNK", "messageId": "m", "role": "assistant", "delta": "d", "name": "n"}),
            json!({"type": "TEXT_MESSAGE_CHUNK"}),
            json!({"type": "TOOL_CALL_START", "toolCallId": "c", "toolCallName": "n", "parentMessageId": null,
                   "toolDisplayName": "Naam", "toolDescription": "Wat"}),
            json!({"type": "TOOL_CALL_START", "toolCallId": "c", "toolCallName": "n", "parentMessageId": "m"}),
            json!({"type": "TOOL_CALL_START", "toolCallId": "c", "toolCallName": "n"}),
            json!({"type": "TOOL_CALL_ARGS", "toolCallId": "c", "delta": "{}"}),
            json!({"type": "TOOL_CALL_END", "toolCallId": "c"}),
            json!({"type": "TOOL_CALL_CHUNK", "toolCallId": "c", "toolCallName": "n", "parentMessageId": null, "delta": "{"}),
            json!({"type": "TOOL_CALL_RESULT", "messageId": "t", "toolCallId": "c", "content": "{}", "role": "tool"}),
            json!({"type": "TOOL_CALL_RESULT", "messageId": "t", "toolCallId": "c", "content": "x"}),
            json!({"type": "STATE_SNAPSHOT", "snapshot": {"currentAgent": "a"}}),
            json!({"type": "STATE_DELTA", "delta": [
                {"op": "add", "path": "/a", "value": 1}, {"op": "remove", "path": "/b"},
                {"op": "replace", "path": "/c", "value": [1]}, {"op": "move", "from": "/d", "path": "/e"},
                {"op": "copy", "from": "/f", "path": "/g"}, {"op": "test", "path": "/h", "value": null}]}),
            json!({"type": "MESSAGES_SNAPSHOT", "messages": [
                {"role": "user", "id": "u", "content": "hallo"},
                {"role": "user", "content": [{"type": "text", "text": "deel"}]},
                {"role": "assistant", "id": "a", "name": "history-agent", "content": "antwoord"},
                {"role": "assistant", "id": "a2", "toolCalls": [{"id": "c", "type": "function", "function": {"name": "n", "arguments": "{}"}}]},
                {"role": "tool", "id": "t", "toolCallId": "c", "content": "{}", "error": "stuk"},
                {"role": "system", "content": "s"}, {"role": "developer", "content": "d", "name": "x"},
                {"role": "reasoning", "id": "r", "content": "hmm"},
                {"role": "activity", "id": "p", "activityType": "plan", "content": {"steps": []}}]}),
            json!({"type": "ACTIVITY_SNAPSHOT", "messageId": "p", "activityType": "plan", "content": {}, "replace": false}),
            json!({"type": "ACTIVITY_DELTA", "messageId": "p", "activityType": "plan", "patch": [{"op": "remove", "path": "/x"}]}),
            json!({"type": "REASONING_START", "messageId": "r"}),
            json!({"type": "REASONING_MESSAGE_START", "messageId": "r", "role": "reasoning"}),
            json!({"type": "REASONING_MESSAGE_CONTENT", "messageId": "r", "delta": "d"}),
            json!({"type": "REASONING_MESSAGE_END", "messageId": "r"}),
            json!({"type": "REASONING_MESSAGE_CHUNK", "messageId": "r", "delta": "d"}),
            json!({"type": "REASONING_END", "messageId": "r"}),
            json!({"type": "REASONING_ENCRYPTED_VALUE", "subtype": "tool-call", "entityId": "c", "encryptedValue": "e"}),
            json!({"type": "RAW", "event": {"a": 1}, "source": "s"}),
            json!({"type": "CUSTOM", "name": "agora:tool_approval_request", "value": {"x": 1}, "timestamp": 5}),
            json!({"type": "CUSTOM", "name": "n"}),
            json!({"type": "THINKING_START", "title": "t"}),
        ];
        // And every server→client event of the contract's examples.
        for name in ["basic-conversation", "tool-approval-flow", "error-handling"] {
            let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../shared/agora-contract/examples")
                .join(format!("{name}.json"));
            let example: Value =
                serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
            let lists: Vec<&Value> = match example.get("scenarios") {
                Some(scenarios) => scenarios
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|s| &s["events"])
                    .collect(),
                None => vec![&example["events"]],
            };
            for list in lists {
                for entry in list.as_array().unwrap() {
                    if entry["direction"].as_str().unwrap().starts_with("server") {
                        events.push(entry["event"].clone());
                    }
                }
            }
        }
        events
    }

    #[test]
    fn agrees_with_serde_on_every_event() {
        for value in corpus() {
            let ours = decode_event(&value.to_string()).unwrap_or_else(|e| panic!("{value}: {e}"));
            let serde: Event = serde_json::from_value(value.clone()).unwrap();
            assert_eq!(ours, serde, "{value}");
        }
    }

    #[test]
    fn refuses_what_serde_refuses() {
        for bad in [
            json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": "m"}),
            json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": 3, "delta": "d"}),
            json!({"type": "RUN_STARTED", "threadId": "t"}),
            json!({"type": 7}),
            json!({"no": "type"}),
            json!({"type": "STATE_DELTA", "delta": [{"op": "jump", "path": "/a"}]}),
            json!({"type": "TOOL_CALL_START", "toolCallId": "c", "toolCallName": "n", "timestamp": "gisteren"}),
        ] {
            assert!(decode_event(&bad.to_string()).is_err(), "{bad}");
            assert!(
                serde_json::from_value::<Event>(bad.clone()).is_err(),
                "{bad}"
            );
        }
        assert!(decode_event("not json").is_err());
    }

    #[test]
    fn agora_payloads_agree_with_the_protocol() {
        let cases = [
            json!({"type": "CUSTOM", "name": "agora:tool_approval_request", "value": {
                "toolName": "generate_final_report", "toolDescription": "PDF", "parameters": {"kvk": "1"},
                "reasoning": "r", "riskLevel": "critical", "approvalId": "a", "toolCallId": "c"}}),
            json!({"type": "CUSTOM", "name": "agora:error", "value": {"errorCode": "moderation_violation", "message": "m", "details": {"reason": "x"}}}),
            json!({"type": "CUSTOM", "name": "agora:error", "value": {"errorCode": "e", "message": "m", "details": null}}),
            json!({"type": "CUSTOM", "name": "agora:tool_approval_request", "value": {"toolName": 3}}),
            json!({"type": "CUSTOM", "name": "agora:error", "value": "boom"}),
        ];
        for case in cases {
            let Ok(Event::Custom(custom)) = decode_event(&case.to_string()) else {
                panic!("{case}")
            };
            let ours = agora_event(&custom);
            let theirs = AgoraEvent::from_custom(&custom.name, &custom.value);
            match (ours, theirs) {
                (Some(Ok(a)), Some(Ok(b))) => assert_eq!(a, b, "{case}"),
                (Some(Err(_)), Some(Err(_))) => {}
                (a, b) => panic!("{case}: {a:?} vs {b:?}"),
            }
        }
        let other = Custom {
            name: "acme:x".into(),
            ..Default::default()
        };
        assert!(agora_event(&other).is_none());
    }

    #[test]
    fn client_frames_parse_as_the_server_reads_them() {
        use crate::protocol::ClientMessage;
        let input: ClientMessage = serde_json::from_str(&run_input("t-1", "m-1", "Hallo")).unwrap();
        let ClientMessage::RunAgentInput(input) = input else {
            panic!()
        };
        assert_eq!(input.thread_id, "t-1");
        assert!(
            matches!(&input.messages[0], Message::User(u) if u.content == UserContent::Text("Hallo".into()))
        );
        for (frame, name) in [
            (
                approval_response("a", true, Some("ok")),
                "agora:tool_approval_response",
            ),
            (cancel_run("t", "r"), "agora:cancel_run"),
            (history_request("t"), "agora:history_request"),
        ] {
            let ClientMessage::Custom(custom) = serde_json::from_str(&frame).unwrap() else {
                panic!()
            };
            assert_eq!(custom.name, name);
            if let Some(Ok(AgoraEvent::ToolApprovalResponse(r))) =
                AgoraEvent::from_custom(&custom.name, &custom.value)
            {
                assert_eq!(
                    (r.approval_id.as_str(), r.approved, r.feedback.as_deref()),
                    ("a", true, Some("ok"))
                );
            }
        }
        let blank: Value =
            serde_json::from_str(&approval_response("a", false, Some("  "))).unwrap();
        assert!(blank["value"].get("feedback").is_none());
    }
}
