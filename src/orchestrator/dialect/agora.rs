//! AGORA's dialect (`/ws`): the thread is the server's, a message adds one user turn; a call
//! that needs approval asks with `agora:tool_approval_request` and waits for the answer; each
//! answer is also spoken text (`agora:spoken_text_*`); a failure sends RUN_ERROR, then
//! RUN_FINISHED.

use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};
use uuid::Uuid;

use super::{
    Adapter, Approval, ApprovalAsk, Emit, FailedEnd, Opening, Prepared, RunInfo, Start, TextClosing,
};
use crate::orchestrator::approval::{self, Decision};
use crate::orchestrator::llm::planner::Lang;
use crate::orchestrator::spoken::{Speaker, SpokenTextType};
use crate::orchestrator::store::{ApprovalDecision, ApprovalRecord, StoreError, Turn, TurnRequest};
use crate::orchestrator::thread::{
    closed_call, message_id, new_run_id, now_millis, stored_user_message, user_text,
};
use crate::orchestrator::{Orchestrator, StartError, agents, valid_id};
use crate::protocol::{
    AgoraEvent, Dialect, Event, Message, RunAgentInput, SubagentStarted, ToolApprovalRequest,
    ToolCallStart,
};

/// The last user message is the new one; the thread's stored history is the context. Store
/// round trips: one (`begin_turn`) when nothing runs on the thread here, else the message's id
/// is checked first (a resend must not stop the run it started) and the run stopped.
pub(super) async fn prepare(
    orchestrator: &Arc<Orchestrator>,
    input: RunAgentInput,
    user_id: &str,
    spoken: Option<SpokenTextType>,
) -> Result<Prepared, StartError> {
    let Some((sent, text)) = input
        .messages
        .iter()
        .rev()
        .find_map(|m| user_text(m).map(|text| (m, text)))
    else {
        return Err(StartError::NoUserMessage);
    };
    // The client's id for its message makes a resend harmless: kept when it is safe.
    let client_id = input
        .messages
        .iter()
        .rev()
        .find(|m| matches!(m, Message::User(_)))
        .and_then(message_id)
        .filter(|id| valid_id(id));
    if let Some(term) = orchestrator.violated_term(&text) {
        return Err(StartError::Moderation { term });
    }
    let thread_id = input.thread_id;
    // A run of this user goes on here: stopped before the thread is written, unless the
    // message is one the thread has (a client resending what it queued offline: it was
    // taken once, and its run is followed by resuming). Someone else's run is left alone:
    // their thread is not found below.
    if orchestrator.running_for(&thread_id, user_id) {
        let store = orchestrator.store();
        if let Some(run_id) = &input.run_id {
            orchestrator.check_new_run_id(run_id).await?;
        }
        if let Some(id) = &client_id
            && store
                .has_message(&thread_id, id)
                .await
                .map_err(StartError::Store)?
        {
            return Ok(Prepared::Answered(String::new()));
        }
        orchestrator.stop_thread(&thread_id).await;
    } else {
        // Its run may go on on another instance (one PostgreSQL, several instances).
        orchestrator
            .stop_thread_elsewhere(&thread_id, user_id, client_id.as_deref())
            .await
            .map_err(StartError::Store)?;
    }
    let title = text.clone();
    // With the photos it brings (already stored by the transport, as `url` sources).
    let mut message = stored_user_message(sent, text);
    *message.id_mut() =
        Some(client_id.unwrap_or_else(|| format!("msg_{}", Uuid::new_v4().simple())));
    if let Message::User(user) = &mut message {
        user.name = None;
    }
    // The thread's run has stopped: what it left open (the server stopped mid-run) is
    // closed now, so every call has its result and no approval waits for nobody.
    let rejected = ApprovalDecision::rejected_by_system(
        "De server stopte voordat er een besluit was.",
        now_millis() as i64,
    );
    // Recorded by the turn's transaction: the run starts with one.
    let run_id = input.run_id.unwrap_or_else(new_run_id);
    let turn = TurnRequest {
        thread_id: &thread_id,
        owner: user_id,
        title_text: &title,
        run_id: Some(&run_id),
        refuse_open_interrupts: false,
        results: &[],
        keep_open: &[],
        close_call: interrupted_call,
        close_approvals: Some(&rejected),
        message: Some(&message),
    };
    let (messages, listening) = match orchestrator.store().begin_turn(&turn).await {
        Ok(Turn::Begun {
            messages,
            listening,
            ..
        }) => (messages, listening),
        Ok(Turn::Held) => return Ok(Prepared::Answered(String::new())),
        Ok(Turn::RunIdInUse) => return Err(StartError::RunIdInUse),
        Ok(Turn::InterruptPending(ids)) => return Err(StartError::InterruptPending { ids }),
        Err(StoreError::NotFound(_)) => return Err(StartError::ThreadNotFound),
        Err(e) => return Err(StartError::Store(e)),
    };
    Ok(Prepared::Run(Box::new(Start {
        run_id,
        thread_id,
        messages,
        agent: agents::GENERAL_AGENT,
        adapter: Box::new(Agora {
            spoken,
            speaker: None,
            pending_approval: None,
        }),
        listening,
    })))
}

/// A call a run left without a result because the server stopped.
fn interrupted_call(call_id: &str, name: &str) -> Message {
    let error = format!("`{name}` was not carried out: the server stopped during the run.");
    closed_call(call_id, "interrupted", error)
}

/// A run in AGORA's dialect.
pub(crate) struct Agora {
    /// Each answer is mirrored by `agora:spoken_text_*` of this kind, and stored with the
    /// message (`spokenText`).
    spoken: Option<SpokenTextType>,
    /// Speaks the answer being written, and whether its `agora:spoken_text_start` went out.
    speaker: Option<(Speaker, bool)>,
    /// The approval the run waits for: settled if the run stops meanwhile.
    pending_approval: Option<String>,
}

impl Agora {
    /// `agora:spoken_text_start` before the first piece, then a `content` per piece.
    fn say(&mut self, message_id: &str, pieces: Vec<String>) -> Vec<Event> {
        use crate::protocol::agora::{SpokenTextContent, SpokenTextStart};
        let mut events = Vec::new();
        let Some((_, started)) = &mut self.speaker else {
            return events;
        };
        for piece in pieces {
            if !*started {
                *started = true;
                let start = AgoraEvent::SpokenTextStart(SpokenTextStart {
                    message_id: message_id.to_owned(),
                    role: crate::protocol::Role::Assistant,
                    extra: Default::default(),
                });
                events.push(start.into_event());
            }
            let content = AgoraEvent::SpokenTextContent(SpokenTextContent {
                message_id: message_id.to_owned(),
                delta: piece,
                extra: Default::default(),
            });
            events.push(content.into_event());
        }
        events
    }
}

#[async_trait::async_trait]
impl Adapter for Agora {
    fn dialect(&self) -> Dialect {
        Dialect::Agora
    }

    async fn open(
        &mut self,
        _run: &RunInfo,
        _continued: Option<SubagentStarted>,
    ) -> Result<Opening, StoreError> {
        Ok(Opening {
            settle: Vec::new(),
            route: true,
        })
    }

    /// Asks the user and waits; an expired request counts as rejected.
    async fn approve(
        &mut self,
        run: &RunInfo,
        out: &mut dyn Emit,
        ask: ApprovalAsk<'_>,
    ) -> Result<Approval, StoreError> {
        let ApprovalAsk {
            agent,
            call,
            arguments,
            risk,
            display_name,
            description,
            about,
        } = ask;
        let approval_id = format!("appr_{}", Uuid::new_v4().simple());
        let orchestrator = &run.orchestrator;
        let receiver = orchestrator.approvals.register(
            &approval_id,
            run.connection_id,
            &run.user_id,
            &call.function.name,
        );
        self.pending_approval = Some(approval_id.clone());
        let reasoning = approval::reason(agent, display_name, &call.function.name, risk);
        let parameters = arguments.as_object().cloned().unwrap_or_default();
        orchestrator
            .store()
            .record_approval_request(&ApprovalRecord {
                approval_id: approval_id.clone(),
                thread_id: run.thread_id.clone(),
                run_id: run.run_id.clone(),
                tool_call_id: call.id.clone(),
                tool_name: call.function.name.clone(),
                parameters: Value::Object(parameters.clone()),
                risk_level: approval::risk_wire_name(risk),
                requested_by: run.user_id.clone(),
                requested_at: now_millis() as i64,
                decision: None,
            })
            .await?;
        let request = AgoraEvent::ToolApprovalRequest(ToolApprovalRequest {
            tool_name: call.function.name.clone(),
            tool_description: description.to_owned(),
            parameters,
            reasoning,
            risk_level: risk,
            approval_id: approval_id.clone(),
            extra: about
                .into_iter()
                .chain([("toolCallId".to_owned(), json!(call.id))])
                .collect(),
        });
        out.emit(request.into_event());
        let timeout: Duration = orchestrator.config().approval_timeout;
        let decision = match tokio::time::timeout(timeout, receiver).await {
            Ok(Ok(decision)) => decision,
            // Expired, or the registry dropped it: the safe answer is no.
            _ => {
                orchestrator.approvals.settle(&approval_id);
                Decision {
                    approved: false,
                    feedback: Some("Het verzoek om toestemming is verlopen.".to_owned()),
                    decided_by: "system".to_owned(),
                    edited_args: None,
                }
            }
        };
        self.pending_approval = None;
        orchestrator
            .store()
            .record_approval_decision(
                &approval_id,
                &ApprovalDecision {
                    approved: decision.approved,
                    feedback: decision.feedback.clone(),
                    decided_by: decision.decided_by.clone(),
                    decided_at: now_millis() as i64,
                    edited_args: decision.edited_args.clone().map(Value::Object),
                },
            )
            .await?;
        Ok(Approval::Decided(decision))
    }

    fn take_pending_approval(&mut self) -> Option<String> {
        self.pending_approval.take()
    }

    /// The tool's Dutch name and description as fields of TOOL_CALL_START; its parent is the
    /// thread's last message.
    fn frame_call(
        &self,
        start: &mut ToolCallStart,
        messages: &[Message],
        display_name: &str,
        description: &str,
    ) {
        start.parent_message_id = messages.last().map(message_id);
        start.base.extra.extend([
            ("toolDisplayName".to_owned(), json!(display_name)),
            ("toolDescription".to_owned(), json!(description)),
        ]);
    }

    fn text_started(&mut self, lang: Lang) {
        self.speaker = self.spoken.map(|kind| (Speaker::new(kind, lang), false));
    }

    /// Each line spoken once it is written (`agora:spoken_text_*`, interleaved).
    fn text_delta(&mut self, message_id: &str, delta: &str) -> Vec<Event> {
        let pieces = match &mut self.speaker {
            Some((speaker, _)) => speaker.feed(delta),
            None => return Vec::new(),
        };
        self.say(message_id, pieces)
    }

    /// The rest spoken before the message is stored with what was said; then
    /// `agora:spoken_text_end`, or `_error` when the answer had nothing to say aloud.
    fn text_closing(&mut self, message_id: &str) -> TextClosing {
        use crate::protocol::agora::{SpokenTextEnd, SpokenTextError};
        let before = match &mut self.speaker {
            Some((speaker, _)) => {
                let rest = speaker.finish("");
                self.say(message_id, rest)
            }
            None => return TextClosing::default(),
        };
        let Some((speaker, started)) = self.speaker.take() else {
            return TextClosing::default();
        };
        let end = if started {
            AgoraEvent::SpokenTextEnd(SpokenTextEnd {
                message_id: message_id.to_owned(),
                extra: Default::default(),
            })
        } else {
            AgoraEvent::SpokenTextError(SpokenTextError {
                message_id: message_id.to_owned(),
                error: crate::protocol::AgoraError {
                    error_code: "spoken_text_empty".to_owned(),
                    message: "Dit antwoord heeft geen tekst om voor te lezen.".to_owned(),
                    ..Default::default()
                },
            })
        };
        TextClosing {
            before,
            spoken: (!speaker.said().is_empty()).then(|| speaker.said().to_owned()),
            after: vec![end.into_event()],
        }
    }

    fn failed_end(&self, _cancelled: bool) -> FailedEnd {
        FailedEnd::ErrorThenFinished
    }

    fn terminal(&self, event: &Event) -> bool {
        matches!(event, Event::RunFinished(_))
    }
}
