//! One run: from RUN_STARTED to RUN_FINISHED, in AGORA's dialect (seed 000).
//!
//! The run owns its thread's conversation while it lasts. Each completed message and tool
//! result is stored before the next event goes out, so what a client saw survives a crash.

use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use futures::StreamExt;
use serde_json::{Value, json};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;
use uuid::Uuid;

use super::approval::{self, Decision};
use super::llm::prompts::{self, HANDOFF_TOOL};
use super::llm::{CompletionRequest, LlmChunk, LlmError};
use super::store::{ApprovalDecision, ApprovalRecord, RunStatus, StoreError};
use super::tools::ToolContext;
use super::{Orchestrator, agents};
use crate::protocol::{
    AgoraEvent, AssistantMessage, Dialect, Event, FunctionCall, Message, ToolApprovalRequest,
    ToolCall, ToolMessage, Verifier,
};

/// Why a run stopped early.
#[derive(Debug, thiserror::Error)]
pub(super) enum RunFailure {
    #[error("run cancelled")]
    Cancelled,
    #[error("the model failed: {0}")]
    Model(#[from] LlmError),
    #[error("storage failed: {0}")]
    Store(#[from] StoreError),
    #[error("the agents went round in circles: no answer after {0} turns")]
    TooManyTurns(usize),
    /// The client is gone; nobody will read the rest.
    #[error("connection closed")]
    Disconnected,
}

impl RunFailure {
    fn code(&self) -> &'static str {
        match self {
            RunFailure::Cancelled => "cancelled",
            RunFailure::Model(_) => "llm_error",
            RunFailure::Store(_) => "storage_error",
            RunFailure::TooManyTurns(_) => "too_many_turns",
            RunFailure::Disconnected => "disconnected",
        }
    }

    fn user_message(&self) -> String {
        match self {
            RunFailure::Cancelled => "De run is gestopt op verzoek van de gebruiker.".to_owned(),
            RunFailure::Model(e) => format!("Het taalmodel gaf een fout: {e}"),
            RunFailure::Store(_) => "Het gesprek kon niet worden opgeslagen.".to_owned(),
            RunFailure::TooManyTurns(n) => {
                format!("Geen antwoord na {n} stappen; probeer het anders te vragen.")
            }
            RunFailure::Disconnected => "De verbinding is verbroken.".to_owned(),
        }
    }
}

pub(super) fn now_millis() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

/// A run in progress.
pub(super) struct Run {
    pub orchestrator: Arc<Orchestrator>,
    pub thread_id: String,
    pub run_id: String,
    pub user_id: String,
    /// The connection whose approvals this run accepts.
    pub connection_id: u64,
    /// The connection's bounded outbound queue; a slow reader slows only its own runs.
    pub events: mpsc::Sender<Event>,
    pub cancel: CancellationToken,
    /// The thread so far, as the model sees it.
    pub messages: Vec<Message>,
    /// The agent answering now; a handoff changes it.
    pub agent: &'static str,
    /// Checks every event in debug builds; a violation there is a bug in this file.
    pub verifier: Option<Verifier>,
    /// Closed on failure, so the stream stays well-formed.
    pub open_step: Option<&'static str>,
    /// The assistant text being streamed: id and what was sent, kept if the run is cut short.
    pub open_text: Option<(String, String)>,
    /// Settled if the run stops while waiting for it.
    pub pending_approval: Option<String>,
}

impl Run {
    pub async fn execute(mut self) -> RunStatus {
        let store = self.orchestrator.store.clone();
        if let Err(e) = store.start_run(&self.run_id, &self.thread_id).await {
            tracing::error!(error = %e, run_id = %self.run_id, "could not record run start");
        }
        let cancel = self.cancel.clone();
        let outcome = tokio::select! {
            result = self.work() => result,
            () = cancel.cancelled() => Err(RunFailure::Cancelled),
        };
        if let Some(approval_id) = self.pending_approval.take() {
            self.orchestrator.approvals.settle(&approval_id);
        }
        let status = match outcome {
            Ok(()) => {
                let _ = self.finish_ok().await;
                RunStatus::Finished
            }
            Err(failure) => {
                let status = if matches!(failure, RunFailure::Cancelled) {
                    RunStatus::Cancelled
                } else {
                    RunStatus::Error
                };
                if !matches!(failure, RunFailure::Cancelled | RunFailure::Disconnected) {
                    tracing::warn!(run_id = %self.run_id, error = %failure, "run failed");
                }
                let _ = self.finish_failed(&failure).await;
                status
            }
        };
        let error = (status != RunStatus::Finished).then(|| format!("{status:?}").to_lowercase());
        if let Err(e) = store
            .finish_run(&self.run_id, status, error.as_deref())
            .await
        {
            tracing::error!(error = %e, run_id = %self.run_id, "could not record run end");
        }
        if let Some(verifier) = self.verifier.take()
            && let Some(violation) = verifier.finish()
        {
            tracing::error!(run_id = %self.run_id, %violation, "BUG: event stream breaks the AGORA dialect");
        }
        status
    }

    async fn work(&mut self) -> Result<(), RunFailure> {
        self.emit(Event::run_started(&self.thread_id, &self.run_id))
            .await?;
        self.emit(Event::state_snapshot(self.state("processing")))
            .await?;
        self.step("routing").await?;
        self.end_step().await?;
        let max_turns = self.orchestrator.config.max_turns;
        for _ in 0..max_turns {
            self.step("thinking").await?;
            let calls = self.think().await?;
            self.end_step().await?;
            if calls.is_empty() {
                return Ok(());
            }
            self.step("executing_tools").await?;
            for call in calls {
                self.call_tool(call).await?;
            }
            self.end_step().await?;
        }
        Err(RunFailure::TooManyTurns(max_turns))
    }

    /// One model turn: streams its text and returns the tool calls it asked for.
    async fn think(&mut self) -> Result<Vec<ToolCall>, RunFailure> {
        let mut tools = self
            .orchestrator
            .toolbox
            .specs(prompts::agent_tools(self.agent));
        if prompts::agent_tools(self.agent).contains(&HANDOFF_TOOL) {
            tools.push(prompts::handoff_tool_spec());
        }
        let request = CompletionRequest {
            agent_id: self.agent.to_owned(),
            system_prompt: prompts::system_prompt(self.agent),
            messages: self.messages.clone(),
            tools,
        };
        let mut stream = self.orchestrator.provider.complete(request).await?;
        let mut calls = Vec::new();
        while let Some(chunk) = stream.next().await {
            match chunk? {
                LlmChunk::Text(text) if text.is_empty() => {}
                LlmChunk::Text(text) => self.stream_text(text).await?,
                LlmChunk::ToolCall {
                    id,
                    name,
                    arguments,
                } => calls.push(ToolCall {
                    id,
                    kind: "function".to_owned(),
                    function: FunctionCall {
                        name,
                        arguments: arguments.to_string(),
                        ..Default::default()
                    },
                    ..Default::default()
                }),
            }
        }
        self.complete_assistant_message(calls.clone()).await?;
        Ok(calls)
    }

    async fn stream_text(&mut self, delta: String) -> Result<(), RunFailure> {
        if self.open_text.is_none() {
            let id = format!("msg_{}", Uuid::new_v4().simple());
            let mut start = Event::text_message_start(&id);
            if let Event::TextMessageStart(start) = &mut start {
                start.name = Some(self.agent.to_owned());
            }
            self.open_text = Some((id, String::new()));
            self.emit(start).await?;
        }
        let (id, text) = self.open_text.as_mut().expect("opened above");
        text.push_str(&delta);
        let event = Event::text_message_content(id.clone(), delta);
        self.emit(event).await
    }

    /// Stores the turn's assistant message (its text and tool calls), then closes its text.
    async fn complete_assistant_message(&mut self, calls: Vec<ToolCall>) -> Result<(), RunFailure> {
        let (id, text) = match self.open_text.take() {
            Some((id, text)) => (id, Some(text)),
            None if calls.is_empty() => return Ok(()),
            None => (format!("msg_{}", Uuid::new_v4().simple()), None),
        };
        let message = Message::Assistant(AssistantMessage {
            id: Some(id.clone()),
            content: text.clone(),
            name: Some(self.agent.to_owned()),
            tool_calls: (!calls.is_empty()).then_some(calls),
            ..Default::default()
        });
        self.orchestrator
            .store
            .append_message(&self.thread_id, &message)
            .await?;
        self.messages.push(message);
        if text.is_some() {
            self.emit(Event::text_message_end(id)).await?;
        }
        Ok(())
    }

    async fn call_tool(&mut self, call: ToolCall) -> Result<(), RunFailure> {
        let name = call.function.name.clone();
        let arguments: Value =
            serde_json::from_str(&call.function.arguments).unwrap_or(Value::Null);
        let tool = self.orchestrator.toolbox.get(&name);
        let (display_name, description) = match (&tool, name.as_str()) {
            (Some(tool), _) => (tool.display_name(), tool.description()),
            (None, HANDOFF_TOOL) => (
                "Overdragen aan specialist",
                "Geeft het gesprek door aan de juiste specialist.",
            ),
            (None, _) => ("Onbekende tool", "Deze tool bestaat niet."),
        };

        let risk = approval::risk_level(&name, &arguments);
        let decision = if approval::needs_approval(risk) {
            Some(
                self.ask_approval(&call, &arguments, risk, description)
                    .await?,
            )
        } else {
            None
        };

        let mut start = Event::tool_call_start(&call.id, &name);
        if let Event::ToolCallStart(start) = &mut start {
            start.parent_message_id = self.messages.last().map(message_id);
            start
                .base
                .extra
                .insert("toolDisplayName".into(), json!(display_name));
            start
                .base
                .extra
                .insert("toolDescription".into(), json!(description));
        }
        self.emit(start).await?;
        self.emit(Event::tool_call_args(&call.id, arguments.to_string()))
            .await?;
        self.emit(Event::tool_call_end(&call.id)).await?;

        let (content, error) = match decision {
            Some(Decision {
                approved: false,
                feedback,
                decided_by,
            }) => {
                let content = json!({
                    "status": "rejected",
                    "rejectedBy": decided_by,
                    "feedback": feedback,
                });
                let error = match feedback {
                    Some(feedback) => format!("Afgewezen door de inspecteur: {feedback}"),
                    None => "Afgewezen door de inspecteur.".to_owned(),
                };
                (content, Some(error))
            }
            _ => self.execute_tool(&name, &arguments).await,
        };
        let result_id = format!("tool_{}", Uuid::new_v4().simple());
        let content = content.to_string();
        let message = Message::Tool(ToolMessage {
            id: Some(result_id.clone()),
            content: content.clone(),
            tool_call_id: call.id.clone(),
            error,
            ..Default::default()
        });
        self.orchestrator
            .store
            .append_message(&self.thread_id, &message)
            .await?;
        self.messages.push(message);
        self.emit(Event::tool_call_result(result_id, &call.id, content))
            .await?;
        if name == HANDOFF_TOOL
            && let Some(agent) = arguments
                .get("agent")
                .and_then(Value::as_str)
                .and_then(agents::agent)
                .map(|a| a.id)
            && agent != self.agent
        {
            self.agent = agent;
            self.emit(Event::state_snapshot(self.state("processing")))
                .await?;
        }
        Ok(())
    }

    /// Runs a tool; its failure is a result the agent reads, not a failed run.
    async fn execute_tool(&self, name: &str, arguments: &Value) -> (Value, Option<String>) {
        if name == HANDOFF_TOOL {
            return match arguments
                .get("agent")
                .and_then(Value::as_str)
                .and_then(agents::agent)
                .map(|a| a.id)
            {
                Some(agent) => (json!({ "handoff": true, "agent": agent }), None),
                None => {
                    let error = format!(
                        "onbekende agent: {}",
                        arguments.get("agent").unwrap_or(&Value::Null)
                    );
                    (json!({ "error": error }), Some(error))
                }
            };
        }
        let Some(tool) = self.orchestrator.toolbox.get(name) else {
            let error = format!("unknown tool `{name}`");
            return (json!({ "error": error }), Some(error));
        };
        let context = ToolContext {
            thread_id: &self.thread_id,
            user_id: &self.user_id,
            messages: &self.messages,
            reports_dir: &self.orchestrator.config.reports_dir,
        };
        match tool.call(&context, arguments).await {
            Ok(value) => (value, None),
            Err(e) => {
                let error = e.to_string();
                (json!({ "error": error }), Some(error))
            }
        }
    }

    /// Asks the user and waits; an expired request counts as rejected.
    async fn ask_approval(
        &mut self,
        call: &ToolCall,
        arguments: &Value,
        risk: crate::protocol::RiskLevel,
        description: &str,
    ) -> Result<Decision, RunFailure> {
        let approval_id = format!("appr_{}", Uuid::new_v4().simple());
        let orchestrator = self.orchestrator.clone();
        let receiver =
            orchestrator
                .approvals
                .register(&approval_id, self.connection_id, &self.user_id);
        self.pending_approval = Some(approval_id.clone());
        let reasoning = format!(
            "{} wil `{}` uitvoeren. Dit is een handeling met risico '{}' en vraagt uw toestemming.",
            agents::agent(self.agent).map_or(self.agent, |a| a.name),
            call.function.name,
            serde_json::to_value(risk)
                .ok()
                .and_then(|v| v.as_str().map(str::to_owned))
                .unwrap_or_default()
        );
        let parameters = arguments.as_object().cloned().unwrap_or_default();
        orchestrator
            .store
            .record_approval_request(&ApprovalRecord {
                approval_id: approval_id.clone(),
                thread_id: self.thread_id.clone(),
                run_id: self.run_id.clone(),
                tool_call_id: call.id.clone(),
                tool_name: call.function.name.clone(),
                parameters: Value::Object(parameters.clone()),
                risk_level: serde_json::to_value(risk)
                    .map(|v| v.as_str().unwrap_or("").to_owned())
                    .unwrap_or_default(),
                requested_by: self.user_id.clone(),
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
            extra: [("toolCallId".to_owned(), json!(call.id))]
                .into_iter()
                .collect(),
        });
        self.emit(request.into_event()).await?;
        let timeout: Duration = orchestrator.config.approval_timeout;
        let decision = match tokio::time::timeout(timeout, receiver).await {
            Ok(Ok(decision)) => decision,
            // Expired, or the registry dropped it: the safe answer is no.
            _ => {
                orchestrator.approvals.settle(&approval_id);
                Decision {
                    approved: false,
                    feedback: Some("Het verzoek om toestemming is verlopen.".to_owned()),
                    decided_by: "system".to_owned(),
                }
            }
        };
        self.pending_approval = None;
        orchestrator
            .store
            .record_approval_decision(
                &approval_id,
                &ApprovalDecision {
                    approved: decision.approved,
                    feedback: decision.feedback.clone(),
                    decided_by: decision.decided_by.clone(),
                    decided_at: now_millis() as i64,
                },
            )
            .await?;
        Ok(decision)
    }

    async fn finish_ok(&mut self) -> Result<(), RunFailure> {
        self.emit(Event::state_snapshot(self.state("completed")))
            .await?;
        self.emit(Event::run_finished(&self.thread_id, &self.run_id))
            .await
    }

    /// Keeps the partial answer, closes what is open, then RUN_ERROR and RUN_FINISHED.
    async fn finish_failed(&mut self, failure: &RunFailure) -> Result<(), RunFailure> {
        if self.open_text.is_some() {
            self.complete_assistant_message(Vec::new()).await?;
        }
        self.end_step().await?;
        let status = if matches!(failure, RunFailure::Cancelled) {
            "cancelled"
        } else {
            "error"
        };
        // The dialect allows nothing but RUN_FINISHED after RUN_ERROR, so the state goes first.
        self.emit(Event::state_snapshot(self.state(status))).await?;
        self.emit(Event::run_error(failure.user_message(), failure.code()))
            .await?;
        self.emit(Event::run_finished(&self.thread_id, &self.run_id))
            .await
    }

    async fn step(&mut self, name: &'static str) -> Result<(), RunFailure> {
        self.open_step = Some(name);
        self.emit(Event::step_started(name)).await
    }

    async fn end_step(&mut self) -> Result<(), RunFailure> {
        match self.open_step.take() {
            Some(name) => self.emit(Event::step_finished(name)).await,
            None => Ok(()),
        }
    }

    fn state(&self, status: &str) -> Value {
        json!({
            "threadId": self.thread_id,
            "runId": self.run_id,
            "currentAgent": self.agent,
            "status": status,
        })
    }

    async fn emit(&mut self, event: Event) -> Result<(), RunFailure> {
        let event = event.with_timestamp(now_millis());
        if let Some(verifier) = &mut self.verifier {
            for violation in verifier.push(&event) {
                tracing::error!(run_id = %self.run_id, %violation, "BUG: event stream breaks the AGORA dialect");
            }
        }
        self.events
            .send(event)
            .await
            .map_err(|_| RunFailure::Disconnected)
    }
}

fn message_id(message: &Message) -> Option<String> {
    match message {
        Message::Assistant(m) => m.id.clone(),
        Message::User(m) => m.id.clone(),
        Message::Tool(m) => m.id.clone(),
        Message::Developer(m) | Message::System(m) | Message::Reasoning(m) => m.id.clone(),
        Message::Activity(m) => m.id.clone(),
    }
}

/// Builds the verifier a run uses: on in debug builds, where a violation is a bug to fix.
pub(super) fn debug_verifier() -> Option<Verifier> {
    cfg!(debug_assertions).then(|| Verifier::new(Dialect::Agora))
}
