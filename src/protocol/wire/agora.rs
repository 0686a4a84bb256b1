//! AGORA's `agora:*` payloads by hand: the server→client ones read ([`agora_event`]), the
//! client→server ones written ([`client_frame`]), each from and to the protocol's own types.

use serde_json::{Map, Value, json};

use super::{Obj, extra, opt_str, req, req_str, role};
use crate::protocol::agora::{
    CatchupMode, HistoryRequest, LastRun, Resume, Resumed, SnapshotReason,
};
use crate::protocol::{
    AgoraError, AgoraEvent, CancelRun, Custom, RiskLevel, SpokenTextContent, SpokenTextEnd,
    SpokenTextError, SpokenTextStart, ToolApprovalRequest, ToolApprovalResponse,
};

/// The AGORA payload of a `CUSTOM` event the server sends: `None` for other names (a
/// client's own events among them), `Some(Err)` when it does not fit.
pub fn agora_event(custom: &Custom) -> Option<Result<AgoraEvent, String>> {
    use crate::protocol::agora::{
        ERROR, RESUMED, SPOKEN_TEXT_CONTENT, SPOKEN_TEXT_END, SPOKEN_TEXT_ERROR, SPOKEN_TEXT_START,
        TOOL_APPROVAL_REQUEST,
    };
    let read: fn(&Obj) -> Result<AgoraEvent, String> = match custom.name.as_str() {
        TOOL_APPROVAL_REQUEST => |o| approval_request(o).map(AgoraEvent::ToolApprovalRequest),
        ERROR => |o| agora_error(o).map(AgoraEvent::Error),
        SPOKEN_TEXT_START => |o| {
            Ok(AgoraEvent::SpokenTextStart(SpokenTextStart {
                message_id: req_str(o, "messageId")?,
                role: o.get("role").map(role).transpose()?.unwrap_or_default(),
                extra: extra(o, &["messageId", "role"]),
            }))
        },
        SPOKEN_TEXT_CONTENT => |o| {
            Ok(AgoraEvent::SpokenTextContent(SpokenTextContent {
                message_id: req_str(o, "messageId")?,
                delta: req_str(o, "delta")?,
                extra: extra(o, &["messageId", "delta"]),
            }))
        },
        SPOKEN_TEXT_END => |o| {
            Ok(AgoraEvent::SpokenTextEnd(SpokenTextEnd {
                message_id: req_str(o, "messageId")?,
                extra: extra(o, &["messageId"]),
            }))
        },
        SPOKEN_TEXT_ERROR => |o| {
            let mut rest = o.clone();
            rest.remove("messageId");
            Ok(AgoraEvent::SpokenTextError(SpokenTextError {
                message_id: req_str(o, "messageId")?,
                error: agora_error(&rest)?,
            }))
        },
        RESUMED => |o| resumed(o).map(AgoraEvent::Resumed),
        _ => return None,
    };
    Some(
        custom
            .value
            .as_object()
            .ok_or_else(|| "the value is not an object".to_owned())
            .and_then(read),
    )
}

fn agora_error(o: &Obj) -> Result<AgoraError, String> {
    Ok(AgoraError {
        error_code: req_str(o, "errorCode")?,
        message: req_str(o, "message")?,
        details: o.get("details").cloned(),
        extra: extra(o, &["errorCode", "message", "details"]),
    })
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

fn resumed(o: &Obj) -> Result<Resumed, String> {
    let seq = |key: &str| -> Result<Option<u64>, String> {
        match o.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(n) => n
                .as_u64()
                .map(Some)
                .ok_or_else(|| format!("`{key}` must be a number from 0")),
        }
    };
    let last_run = match o.get("lastRun") {
        None | Some(Value::Null) => None,
        Some(last) => {
            let last = last.as_object().ok_or("`lastRun` is an object")?;
            Some(LastRun {
                run_id: req_str(last, "runId")?,
                status: req_str(last, "status")?,
                extra: extra(last, &["runId", "status"]),
            })
        }
    };
    Ok(Resumed {
        thread_id: req_str(o, "threadId")?,
        last_seq: seq("lastSeq")?.ok_or("missing field `lastSeq`")?,
        running: req(o, "running")?
            .as_bool()
            .ok_or("`running` must be true or false")?,
        mode: match req_str(o, "mode")?.as_str() {
            "replay" => CatchupMode::Replay,
            "snapshot" => CatchupMode::Snapshot,
            other => return Err(format!("unknown mode `{other}`")),
        },
        after_seq: seq("afterSeq")?,
        reason: match opt_str(o, "reason")?.as_deref() {
            None => None,
            Some("requested") => Some(SnapshotReason::Requested),
            Some("gap") => Some(SnapshotReason::Gap),
            Some("unknown") => Some(SnapshotReason::Unknown),
            Some(other) => return Err(format!("unknown reason `{other}`")),
        },
        run_id: opt_str(o, "runId")?,
        last_run,
        extra: extra(
            o,
            &[
                "threadId", "lastSeq", "running", "mode", "afterSeq", "reason", "runId", "lastRun",
            ],
        ),
    })
}

/// The frame of an AGORA event a client sends; `None` for the server's own events.
pub fn client_frame(event: &AgoraEvent) -> Option<String> {
    let (value, extra) = match event {
        AgoraEvent::ToolApprovalResponse(ToolApprovalResponse {
            approval_id,
            approved,
            feedback,
            edited_args,
            extra,
        }) => {
            let mut value = json!({ "approvalId": approval_id, "approved": approved });
            if let Some(feedback) = feedback {
                value["feedback"] = Value::from(feedback.as_str());
            }
            if let Some(edited) = edited_args {
                value["editedArgs"] = Value::Object(edited.clone());
            }
            (value, extra)
        }
        AgoraEvent::CancelRun(CancelRun {
            run_id,
            thread_id,
            extra,
        }) => {
            let mut value = json!({});
            if let Some(run_id) = run_id {
                value["runId"] = Value::from(run_id.as_str());
            }
            if let Some(thread_id) = thread_id {
                value["threadId"] = Value::from(thread_id.as_str());
            }
            (value, extra)
        }
        AgoraEvent::HistoryRequest(HistoryRequest { thread_id, extra }) => {
            (json!({ "threadId": thread_id }), extra)
        }
        AgoraEvent::Resume(Resume {
            thread_id,
            after_seq,
            extra,
        }) => {
            let mut value = json!({ "threadId": thread_id });
            if let Some(seq) = after_seq {
                value["afterSeq"] = Value::from(*seq);
            }
            (value, extra)
        }
        AgoraEvent::ToolApprovalRequest(_)
        | AgoraEvent::Error(_)
        | AgoraEvent::SpokenTextStart(_)
        | AgoraEvent::SpokenTextContent(_)
        | AgoraEvent::SpokenTextEnd(_)
        | AgoraEvent::SpokenTextError(_)
        | AgoraEvent::Resumed(_) => return None,
    };
    let mut value = value;
    if let Value::Object(map) = &mut value {
        map.extend(extra.iter().map(|(k, v)| (k.clone(), v.clone())));
    }
    Some(json!({ "type": "CUSTOM", "name": event.name(), "value": value }).to_string())
}

/// `RunAgentInput` for one user message (AGORA's form: the server keeps the history).
/// A run for the inspector's message; `message_id` makes a resend harmless (the server takes
/// a message once per id).
pub fn run_input(thread_id: &str, message_id: &str, text: &str) -> String {
    run_input_with_photos(thread_id, message_id, text, &[])
}

/// A photo the browser shrank, to go with a message: its `data:<mime>;base64,<bytes>` URL
/// (what the canvas gives) and when it was taken, as local time `2026-11-27T10:32:05` (the
/// camera's EXIF DateTimeOriginal, else the file's last change), when known.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct OutgoingPhoto {
    pub url: String,
    pub taken_at: Option<String>,
}

/// [`run_input`] with photos: AG-UI 1.0 content parts, the text first (when there is any),
/// then an image part with a `data` source a photo, its time taken in the part's `metadata`
/// (`{"takenAt": …}`: AG-UI's open slot, which the server keeps with the stored part).
/// Without photos the content stays a string.
pub fn run_input_with_photos(
    thread_id: &str,
    message_id: &str,
    text: &str,
    photos: &[OutgoingPhoto],
) -> String {
    let content = if photos.is_empty() {
        json!(text)
    } else {
        let text = (!text.trim().is_empty()).then(|| json!({ "type": "text", "text": text }));
        let images = photos.iter().filter_map(|photo| {
            let (mime, value) = photo.url.strip_prefix("data:")?.split_once(";base64,")?;
            let mut part = json!({
                "type": "image",
                "source": { "type": "data", "value": value, "mimeType": mime },
            });
            if let Some(taken) = &photo.taken_at {
                part["metadata"] = json!({ "takenAt": taken });
            }
            Some(part)
        });
        Value::Array(text.into_iter().chain(images).collect())
    };
    json!({
        "threadId": thread_id,
        "messages": [{ "id": message_id, "role": "user", "content": content }],
        "context": {},
    })
    .to_string()
}

/// Follows a thread again ([`Resume`]): what came after `after_seq`, or with `None` the
/// thread as it stands and its live run.
pub fn resume(thread_id: &str, after_seq: Option<u64>) -> String {
    frame(AgoraEvent::Resume(Resume {
        thread_id: thread_id.to_owned(),
        after_seq,
        extra: Map::new(),
    }))
}

/// The user's decision on an approval; blank feedback is no feedback; `edited_args` when the
/// user approved it with edits.
pub fn approval_response(
    approval_id: &str,
    approved: bool,
    feedback: Option<&str>,
    edited_args: Option<Map<String, Value>>,
) -> String {
    frame(AgoraEvent::ToolApprovalResponse(ToolApprovalResponse {
        approval_id: approval_id.to_owned(),
        approved,
        feedback: feedback.filter(|f| !f.trim().is_empty()).map(str::to_owned),
        edited_args,
        extra: Map::new(),
    }))
}

pub fn cancel_run(thread_id: &str, run_id: &str) -> String {
    frame(AgoraEvent::CancelRun(CancelRun {
        run_id: Some(run_id.to_owned()),
        thread_id: Some(thread_id.to_owned()),
        extra: Map::new(),
    }))
}

fn frame(event: AgoraEvent) -> String {
    client_frame(&event).expect("a client's event has a frame")
}
