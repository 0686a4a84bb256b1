//! One socket's frames: decoded into commands, applied by the command layer, its refusals
//! sent back as `agora:error`.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use serde_json::{Value, json};

use super::MAX_FRAME_BYTES;
use crate::orchestrator::Outbox;
use crate::protocol::{AgoraError, AgoraEvent, ClientMessage, ErrorCode, Lang};
use crate::server::command::{self, Caller, Command, Outcome, Refusal};
use crate::server::state::AppState;

/// What the reader needs to answer one frame.
pub(super) struct Connection<'a> {
    pub state: &'a AppState,
    /// The writer's queue.
    pub events: Outbox,
    /// Who sends this socket's commands, and in which language they are refused.
    pub caller: Caller,
    /// Set while a history snapshot is queued and unwritten: one at a time per socket, so a
    /// client cannot queue the same large thread a hundred times.
    pub history_pending: Arc<AtomicBool>,
}

impl Connection<'_> {
    pub async fn handle(&self, text: &str) {
        let photo_allowance = self.state.config.photo_limits().wire_allowance();
        let command = match decode(&self.caller, &self.events, text, photo_allowance) {
            Ok(command) => command,
            Err(refusal) => return self.refuse(refusal),
        };
        let snapshot = command.sends_snapshot();
        if snapshot && self.history_pending.swap(true, Ordering::AcqRel) {
            return self.refuse(Refusal::new(&self.caller, ErrorCode::HistoryInProgress));
        }
        let result = command::apply(self.state, &self.caller, command).await;
        // A queued snapshot keeps the slot until the writer has written it.
        if snapshot && result != Ok(Outcome::Snapshot) {
            self.history_pending.store(false, Ordering::Release);
        }
        if let Err(refusal) = result {
            self.refuse(refusal);
        }
    }

    /// Sends `refusal` as `agora:error`.
    pub fn refuse(&self, refusal: Refusal) {
        let error = AgoraEvent::Error(AgoraError {
            error_code: refusal.code.into(),
            message: refusal.message,
            details: refusal.details,
            ..Default::default()
        });
        let _ = self.events.send(&error.into_event());
    }
}

/// A text frame as a command whose answers go to the socket's queue `to`, or why it is not one.
/// The base64 of the inline photos of the input's messages: what a frame may carry beyond the
/// protocol's limit (their own limits are checked when they are taken in).
fn inline_photo_bytes(input: &crate::protocol::RunAgentInput) -> usize {
    input
        .messages
        .iter()
        .filter_map(|message| match message {
            crate::protocol::Message::User(user) => Some(&user.content),
            _ => None,
        })
        .flat_map(|content| content.images())
        .filter_map(|image| match &image.source {
            crate::protocol::MediaSource::Data(data) => Some(data.value.len()),
            _ => None,
        })
        .sum()
}

/// A frame may be `photo_allowance` bytes over the protocol's limit for the inline photos of a
/// message; the rest of it is held to the limit once it is read.
fn decode(
    caller: &Caller,
    to: &Outbox,
    text: &str,
    photo_allowance: usize,
) -> Result<Command, Refusal> {
    let too_large = |size: usize| {
        let details = json!({ "size": size, "limit": MAX_FRAME_BYTES });
        Refusal::new(caller, ErrorCode::MessageTooLarge).with_details(details)
    };
    if text.len() > MAX_FRAME_BYTES + photo_allowance {
        return Err(too_large(text.len()));
    }
    let message: ClientMessage = match serde_json::from_str(text) {
        Ok(message) => message,
        Err(e) if e.is_syntax() || e.is_eof() => {
            return Err(Refusal::new(caller, ErrorCode::InvalidJson)
                .with_details(json!({ "error": e.to_string() })));
        }
        Err(e) => {
            let message = match caller.lang {
                Lang::Nl => format!("Het bericht past niet in het protocol: {e}"),
                Lang::En => format!("The message does not fit the protocol: {e}"),
            };
            return Err(Refusal::new(caller, ErrorCode::InvalidMessage).saying(message));
        }
    };
    let custom = match message {
        ClientMessage::RunAgentInput(input) => {
            let without_photos = text.len() - inline_photo_bytes(&input).min(text.len());
            if without_photos > MAX_FRAME_BYTES {
                return Err(too_large(text.len()));
            }
            return Ok(Command::Start {
                input: Box::new(input),
                to: to.clone(),
            });
        }
        ClientMessage::Custom(custom) => custom,
    };
    let named_user = || {
        custom
            .value
            .get("userId")
            .and_then(Value::as_str)
            .map(str::to_owned)
    };
    let name = &custom.name;
    match AgoraEvent::from_custom(name, &custom.value) {
        Some(Ok(AgoraEvent::ToolApprovalResponse(response))) => Ok(Command::Decide {
            response,
            named_user: named_user(),
        }),
        Some(Ok(AgoraEvent::CancelRun(cancel))) => Ok(Command::Cancel {
            cancel,
            named_user: named_user(),
        }),
        Some(Ok(AgoraEvent::HistoryRequest(request))) => Ok(Command::History {
            request,
            to: to.clone(),
        }),
        Some(Ok(AgoraEvent::Resume(resume))) => Ok(Command::Resume {
            resume,
            to: to.clone(),
        }),
        Some(Ok(_)) => {
            let message = match caller.lang {
                Lang::Nl => format!("{name} wordt alleen door de server verstuurd."),
                Lang::En => format!("Only the server sends {name}."),
            };
            Err(Refusal::new(caller, ErrorCode::UnexpectedEvent).saying(message))
        }
        Some(Err(e)) => {
            Err(Refusal::new(caller, ErrorCode::InvalidMessage).saying(format!("{name}: {e}")))
        }
        None => {
            let message = match caller.lang {
                Lang::Nl => format!("Onbekend event: {name}"),
                Lang::En => format!("Unknown event: {name}"),
            };
            Err(Refusal::new(caller, ErrorCode::UnknownEvent).saying(message))
        }
    }
}
