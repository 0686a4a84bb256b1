//! One run: from RUN_STARTED to RUN_FINISHED, in AGORA's dialect (seed 000) or the standard one.
//!
//! The run owns its thread's conversation while it lasts. Each completed message and tool
//! result is stored before the next event goes out, so what a client saw survives a crash.
//!
//! The dialects differ in three places, all decided by [`Mode`]:
//! - a tool call that needs approval: AGORA asks with `agora:tool_approval_request` and waits;
//!   the standard run announces the call, stores an interrupt and ends with
//!   `RUN_FINISHED { outcome: interrupt }`. A later run answers it in `resume` and starts by
//!   settling the call ([`Resumed`]): only its TOOL_CALL_RESULT, then the agent carries on;
//! - a failure: AGORA sends RUN_ERROR then RUN_FINISHED, the standard dialect stops at RUN_ERROR;
//! - tools of the client (standard only): offered to the agent; a call to one is announced and
//!   ends the run, and the client's next run brings the result as a tool message.

use std::collections::HashSet;
use std::sync::Arc;
use std::time::Duration;

use futures::StreamExt;
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;
use uuid::Uuid;

use super::approval::{self, Decision};
use super::inspection::InspectionState;
use super::llm::planner::{Lang, detect_language};
use super::llm::prompts::{self, HANDOFF_TOOL};
use super::llm::{CompletionRequest, FinishReason, LlmChunk, LlmError, ToolSpec, Usage};
use super::spoken::Speaker;
use super::store::{
    ApprovalDecision, ApprovalRecord, InterruptRecord, InterruptResolution, RunStatus, StoreError,
};
use super::tools::ToolContext;
use super::{Orchestrator, agents, unanswered_calls};
use crate::protocol::{
    AgoraEvent, AssistantMessage, Dialect, ErrorCode, Event, FunctionCall, Interrupt, Message,
    MessagesSnapshot, ResumeEntry, ResumeStatus, RiskLevel, RunFinished, RunOutcome,
    ToolApprovalRequest, ToolCall, ToolMessage, Verifier,
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
}

impl RunFailure {
    fn code(&self) -> ErrorCode {
        match self {
            RunFailure::Cancelled => ErrorCode::Cancelled,
            RunFailure::Model(e) => e.code(),
            RunFailure::Store(_) => ErrorCode::StorageError,
            RunFailure::TooManyTurns(_) => ErrorCode::TooManyTurns,
        }
    }

    /// What the inspector reads: short, in the thread's language, without internals (those go
    /// to the log and `runs.error`).
    fn user_message(&self, lang: Lang) -> String {
        self.code().text(lang).to_owned()
    }
}

pub(super) use crate::clock::now_millis;

/// Model turns with unusable tool calls a run answers with errors before it gives up.
const MAX_REFUSED_TURNS: usize = 1;

/// The `reason` of an interrupt raised for a tool call that needs approval.
pub(super) const TOOL_CALL_REASON: &str = "tool_call";

/// Which dialect a run speaks, with what only the standard one needs.
pub(super) enum Mode {
    Agora,
    Standard(Box<Standard>),
}

/// The standard dialect's part of a run.
#[derive(Default)]
pub(super) struct Standard {
    /// Tools the client executes itself, offered to every agent of the run.
    pub client_tools: Vec<crate::protocol::Tool>,
    /// Answers to the interrupts of an earlier run: settled first.
    pub resumed: Vec<Resumed>,
    /// A user message that came with a `resume`: stored once the answered calls have results,
    /// so that every tool call stays directly followed by its result.
    pub deferred_user: Option<Message>,
    /// This run continues the previous one (a resume or client tool results): no routing.
    pub continuation: bool,
    /// Raised by this run, which ends with them.
    pub interrupts: Vec<Interrupt>,
    /// Calls of client tools made by this run; their results come with the next run.
    pub client_calls: Vec<String>,
    /// The subagent invocation open now (AG-UI 1.0): its id goes on the events it produces.
    pub subagent: Option<String>,
    /// A handoff's invocation, opened when the next step starts, so a step never spans two.
    pub next_subagent: Option<crate::protocol::SubagentStarted>,
    /// A handoff back to the general agent: the open invocation ends at the next step.
    pub subagent_closing: bool,
}

/// An interrupt and the `resume` entry that answers it.
pub(super) struct Resumed {
    pub interrupt: InterruptRecord,
    pub entry: ResumeEntry,
}

impl Resumed {
    /// The user's decision: an expired interrupt counts as rejected by `system`, a cancelled
    /// one as rejected; otherwise the payload (checked at start) says, with optional new arguments.
    fn decision(&self, user_id: &str, now: i64) -> (Decision, Option<Value>) {
        let payload = self.entry.payload.as_ref();
        let feedback = payload
            .and_then(|p| p.get("feedback"))
            .and_then(Value::as_str)
            .map(str::to_owned);
        if now > self.interrupt.expires_at {
            let decision = Decision {
                approved: false,
                feedback: Some("Het verzoek om toestemming is verlopen.".to_owned()),
                decided_by: "system".to_owned(),
            };
            return (decision, None);
        }
        let approved = self.entry.status == ResumeStatus::Resolved
            && payload
                .and_then(|p| p.get("approved"))
                .and_then(Value::as_bool)
                == Some(true);
        let edited = payload
            .and_then(|p| p.get("editedArgs"))
            .filter(|args| approved && args.is_object())
            .cloned();
        let decision = Decision {
            approved,
            feedback,
            decided_by: user_id.to_owned(),
        };
        (decision, edited)
    }
}

/// A run in progress.
pub(super) struct Run {
    pub orchestrator: Arc<Orchestrator>,
    pub thread_id: String,
    pub run_id: String,
    pub user_id: String,
    /// The connection that started the run: in dev mode its answer to an approval is the
    /// run owner's, whoever the client named.
    pub connection_id: u64,
    /// The thread's journal: events are numbered there and go to whoever follows the thread,
    /// so the run goes on when its socket closes.
    pub journal: Arc<super::journal::Journal>,
    pub cancel: CancellationToken,
    /// When the run started: its duration and time to first text (`/metrics`).
    pub started: std::time::Instant,
    /// Whether its first text went out, so time to first text is recorded once.
    pub first_text_seen: bool,
    /// Counts the events it publishes (`/metrics`), one handle for the whole run.
    pub events_published: metrics::Counter,
    /// The thread so far, as the model sees it. Shared with each model turn's request rather
    /// than copied into it: a long thread cost a deep copy a turn (issue 19). A push copies
    /// only while a request still holds the previous version, which a finished turn does not.
    pub messages: Arc<Vec<Message>>,
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
    /// Tool calls announced to the client (TOOL_CALL_START..END) in this run: a call the run
    /// closes without running it gets its TOOL_CALL_RESULT only if the client saw it.
    pub announced: HashSet<String>,
    /// What the model requests of this run cost, for RUN_FINISHED and the log.
    pub usage: RunUsage,
    /// Model turns whose tool calls could not be run; one is answered with errors for the model
    /// to correct, a second ends the run.
    pub refused_turns: usize,
    pub mode: Mode,
    /// AGORA: each answer is mirrored by `agora:spoken_text_*` of this kind, and stored with
    /// the message (`spokenText`).
    pub spoken: Option<super::spoken::SpokenTextType>,
    /// Speaks the answer being written, and whether its `agora:spoken_text_start` went out.
    pub speaker: Option<(super::spoken::Speaker, bool)>,
    /// The run's last event (RUN_FINISHED, or the standard dialect's RUN_ERROR), held until
    /// the run's end is stored: a client that has seen it finds the run stored.
    pub last_event: Option<Event>,
}

/// The model requests of one run and the tokens they used.
#[derive(Debug, Default, Clone, Copy)]
pub(super) struct RunUsage {
    pub requests: u64,
    pub prompt_tokens: u64,
    pub completion_tokens: u64,
    /// The largest prompt of the run, in tokens as the server counted them.
    pub largest_prompt: u64,
    /// Time spent waiting for the model; the run's model deadline counts this, not the time
    /// an approval waits for a human.
    pub model_time: Duration,
}

/// A tool call of a model turn, to run or to refuse.
enum PlannedCall {
    Run(ToolCall),
    /// Cannot be run (malformed, or a tool this agent does not have): answered with an error.
    Refuse(ToolCall, String),
}

impl Run {
    pub async fn execute(mut self) -> RunStatus {
        let store = self.orchestrator.store.clone();
        // Not recorded (a race on a reused run id, a storage failure): the end is not recorded
        // either, so that it cannot land on another run's record.
        let recorded = match store.start_run(&self.run_id, &self.thread_id).await {
            Ok(()) => true,
            Err(e) => {
                tracing::error!(error = %e, run_id = ?self.run_id, "could not record run start");
                false
            }
        };
        let cancel = self.cancel.clone();
        let outcome = tokio::select! {
            result = self.work() => result,
            () = cancel.cancelled() => Err(RunFailure::Cancelled),
        };
        let pending_approval = self.pending_approval.take();
        if let Some(approval_id) = &pending_approval {
            self.orchestrator.approvals.settle(approval_id);
        }
        let (status, error) = match outcome {
            Ok(()) => {
                // Interrupts stay open when nobody follows: a client that comes back reads
                // them (resume, or the thread's stored interrupts) and answers.
                let _ = self.finish_ok().await;
                (RunStatus::Finished, None)
            }
            Err(failure) => {
                let status = if matches!(failure, RunFailure::Cancelled) {
                    RunStatus::Cancelled
                } else {
                    RunStatus::Error
                };
                if !matches!(failure, RunFailure::Cancelled) {
                    tracing::warn!(run_id = %self.run_id, code = %failure.code(), error = %failure, "run failed");
                }
                let closed = self
                    .close_unanswered_calls(&failure, pending_approval)
                    .await;
                let _ = self.finish_failed(&failure, closed).await;
                self.withdraw_interrupts().await;
                (status, Some(format!("{}: {failure}", failure.code())))
            }
        };
        if self.usage.prompt_tokens > 0 {
            tracing::info!(
                run_id = %self.run_id,
                model_requests = self.usage.requests,
                prompt_tokens = self.usage.prompt_tokens,
                completion_tokens = self.usage.completion_tokens,
                largest_prompt = self.usage.largest_prompt,
                model_ms = self.usage.model_time.as_millis() as u64,
                "model usage"
            );
        }
        if recorded
            && let Err(e) = store
                .finish_run(&self.run_id, status, error.as_deref())
                .await
        {
            tracing::error!(error = %e, run_id = %self.run_id, "could not record run end");
        }
        if let Some(last) = self.last_event.take() {
            self.publish(last);
        }
        if let Some(verifier) = self.verifier.take()
            && let Some(violation) = verifier.finish()
        {
            let dialect = self.dialect();
            tracing::error!(run_id = %self.run_id, %violation, ?dialect, "BUG: event stream breaks its dialect");
        }
        status
    }

    fn dialect(&self) -> Dialect {
        match self.mode {
            Mode::Agora => Dialect::Agora,
            Mode::Standard(_) => Dialect::Standard,
        }
    }

    fn standard(&mut self) -> Option<&mut Standard> {
        match &mut self.mode {
            Mode::Agora => None,
            Mode::Standard(standard) => Some(standard),
        }
    }

    /// Standard: the run waits for the client (an interrupt or a client tool's result).
    fn paused(&self) -> bool {
        match &self.mode {
            Mode::Agora => false,
            Mode::Standard(s) => !s.interrupts.is_empty() || !s.client_calls.is_empty(),
        }
    }

    async fn work(&mut self) -> Result<(), RunFailure> {
        self.emit(Event::run_started(&self.thread_id, &self.run_id))
            .await?;
        self.emit(Event::state_snapshot(self.state("processing")))
            .await?;
        // A specialist that carries on (a resume, client tool results) continues its
        // invocation of the run it paused.
        let continued = (self.agent != agents::GENERAL_AGENT)
            .then(|| super::subagent::continued(&self.messages, self.agent))
            .flatten();
        if let Some(standard) = self.standard() {
            standard.next_subagent = continued;
        }
        let resumed = self
            .standard()
            .map(|s| std::mem::take(&mut s.resumed))
            .unwrap_or_default();
        if !resumed.is_empty() {
            self.settle_resumed(resumed).await?;
        } else if !matches!(&self.mode, Mode::Standard(s) if s.continuation) {
            self.step("routing").await?;
            self.end_step().await?;
        }
        let max_turns = self.orchestrator.config.max_turns;
        for turn in 0..max_turns {
            self.step("thinking").await?;
            let calls = self.think(turn + 1 == max_turns).await?;
            self.end_step().await?;
            if calls.is_empty() {
                return Ok(());
            }
            self.step("executing_tools").await?;
            let mut refused = Vec::new();
            for call in calls {
                match call {
                    PlannedCall::Run(call) => self.call_tool(call).await?,
                    PlannedCall::Refuse(call, problem) => {
                        self.refuse_call(call, &problem).await?;
                        refused.push(problem);
                    }
                }
            }
            self.end_step().await?;
            if !refused.is_empty() {
                // The model reads why and may correct itself once.
                self.refused_turns += 1;
                if self.refused_turns > MAX_REFUSED_TURNS {
                    return Err(LlmError::InvalidToolCalls(refused.join("; ")).into());
                }
            }
            if self.paused() {
                return Ok(());
            }
        }
        Err(RunFailure::TooManyTurns(max_turns))
    }

    /// Standard: the calls an earlier run was interrupted for, as the user decided. Only their
    /// TOOL_CALL_RESULTs go out: the client saw the calls themselves in the interrupted run.
    async fn settle_resumed(&mut self, resumed: Vec<Resumed>) -> Result<(), RunFailure> {
        self.step("executing_tools").await?;
        for answer in resumed {
            let (decision, edited) = answer.decision(&self.user_id, now_millis() as i64);
            let recorded = self
                .orchestrator
                .store
                .record_approval_decision(
                    &answer.interrupt.id,
                    &ApprovalDecision {
                        approved: decision.approved,
                        feedback: decision.feedback.clone(),
                        decided_by: decision.decided_by.clone(),
                        decided_at: now_millis() as i64,
                    },
                )
                .await;
            match recorded {
                Ok(()) => {}
                // Already in the log: the decision stands as first recorded.
                Err(StoreError::Conflict(e)) => {
                    tracing::warn!(error = %e, "approval decided twice")
                }
                Err(e) => return Err(e.into()),
            }
            let interrupt = answer.interrupt;
            let arguments = edited.unwrap_or(interrupt.arguments);
            let call = ToolCall {
                id: interrupt.tool_call_id,
                kind: "function".to_owned(),
                function: FunctionCall {
                    name: interrupt.tool_name,
                    arguments: arguments.to_string(),
                    ..Default::default()
                },
                ..Default::default()
            };
            self.settle(call, arguments, Some(decision)).await?;
        }
        self.end_step().await?;
        if let Some(message) = self.standard().and_then(|s| s.deferred_user.take()) {
            self.orchestrator
                .store
                .append_message(&self.thread_id, &message)
                .await?;
            Arc::make_mut(&mut self.messages).push(message);
        }
        Ok(())
    }

    /// One model turn: streams its text and returns the tool calls it asked for, each to run
    /// or to refuse. The turn's model time counts against the run's model deadline.
    async fn think(&mut self, last_turn: bool) -> Result<Vec<PlannedCall>, RunFailure> {
        let tools = self.offered_tools();
        let offered: HashSet<String> = tools.iter().map(|t| t.name.clone()).collect();
        let request = CompletionRequest {
            agent_id: self.agent.to_owned(),
            system_prompt: prompts::system_prompt(self.agent),
            messages: Arc::clone(&self.messages),
            tools,
            answer_only: last_turn,
        };
        let budget = self.orchestrator.config.model_time_limit;
        let remaining = budget.saturating_sub(self.usage.model_time);
        let started = tokio::time::Instant::now();
        let turn = tokio::time::timeout(remaining, self.model_turn(request, &offered)).await;
        self.usage.model_time += started.elapsed();
        let outcome = match &turn {
            Ok(Ok(_)) => "ok",
            Ok(Err(_)) => "error",
            Err(_) => "timeout",
        };
        super::metrics::model_turn(
            self.orchestrator.provider_name(),
            outcome,
            started.elapsed(),
        );
        let (mut calls, reason) = match turn {
            Ok(turn) => turn?,
            Err(_) => {
                return Err(LlmError::Timeout(format!(
                    "the run's model time of {}s is used up",
                    budget.as_secs()
                ))
                .into());
            }
        };
        // The last turn may only answer; calls a server sends anyway are not run.
        if last_turn && !calls.is_empty() {
            tracing::info!(run_id = %self.run_id, dropped = calls.len(), "ignored tool calls on the run's last turn");
            calls.clear();
        }
        // Servers may ignore `parallel_tool_calls: false` (llama.cpp's grammar allows several
        // calls): an agent whose turn is one decision gets its first call, the rest never
        // happened.
        if prompts::one_call_at_a_time(self.agent) && calls.len() > 1 {
            tracing::info!(run_id = %self.run_id, agent = self.agent, dropped = calls.len() - 1, "kept the first of several tool calls");
            calls.truncate(1);
        }
        let stored: Vec<ToolCall> = calls
            .iter()
            .map(|call| match call {
                PlannedCall::Run(call) | PlannedCall::Refuse(call, _) => call.clone(),
            })
            .collect();
        self.complete_assistant_message(stored).await?;
        // Text cut off at the output limit, with nothing to run: not an answer to pass off as one.
        if reason == FinishReason::Length && calls.is_empty() {
            return Err(LlmError::Truncated.into());
        }
        Ok(calls)
    }

    /// What this agent may call now: its own tools, the handoff, and (standard dialect) the
    /// client's tools.
    fn offered_tools(&self) -> Vec<ToolSpec> {
        let mut tools = self
            .orchestrator
            .toolbox
            .specs(prompts::agent_tools(self.agent));
        if prompts::agent_tools(self.agent).contains(&HANDOFF_TOOL) {
            tools.push(prompts::handoff_tool_spec());
        }
        if let Mode::Standard(standard) = &self.mode {
            for offered in &standard.client_tools {
                let Some(tool) = self.client_tool(&offered.name) else {
                    continue;
                };
                if tools.iter().any(|t| t.name == tool.name) {
                    continue;
                }
                tools.push(ToolSpec {
                    name: tool.name.clone(),
                    description: tool.description.clone().unwrap_or_default(),
                    parameters: tool
                        .parameters
                        .clone()
                        .unwrap_or_else(|| json!({ "type": "object", "properties": {} })),
                });
            }
        }
        tools
    }

    /// Streams one model response: text goes out as it comes; calls are collected, those the
    /// agent was not offered or that arrived malformed marked for refusal.
    async fn model_turn(
        &mut self,
        request: CompletionRequest,
        offered: &HashSet<String>,
    ) -> Result<(Vec<PlannedCall>, FinishReason), RunFailure> {
        let mut stream = self.orchestrator.provider.complete(request).await?;
        self.usage.requests += 1;
        let mut calls = Vec::new();
        let mut reason = FinishReason::Stop;
        while let Some(chunk) = stream.next().await {
            match chunk? {
                LlmChunk::Text(text) if text.is_empty() => {}
                LlmChunk::Text(text) => self.stream_text(text).await?,
                LlmChunk::ToolCall {
                    id,
                    name,
                    arguments,
                } => {
                    let call = tool_call(id, name.clone(), arguments.to_string());
                    calls.push(if offered.contains(&name) {
                        PlannedCall::Run(call)
                    } else {
                        let problem = format!(
                            "`{name}` is not a tool of {}; its tools are: {}",
                            self.agent,
                            offered.iter().cloned().collect::<Vec<_>>().join(", ")
                        );
                        PlannedCall::Refuse(call, problem)
                    });
                }
                LlmChunk::InvalidToolCall {
                    id,
                    name,
                    arguments,
                    problem,
                } => {
                    // Stored with empty arguments: servers parse the arguments of a history,
                    // and the model reads what it sent in the error instead.
                    let problem = format!("{problem}; the arguments sent were: {arguments}");
                    calls.push(PlannedCall::Refuse(
                        tool_call(id, name, "{}".to_owned()),
                        problem,
                    ));
                }
                LlmChunk::Finished { reason: why, usage } => {
                    reason = why;
                    if let Some(usage) = usage {
                        self.count_usage(usage);
                    }
                }
            }
        }
        Ok((calls, reason))
    }

    fn count_usage(&mut self, usage: Usage) {
        self.usage.prompt_tokens += usage.prompt_tokens;
        self.usage.completion_tokens += usage.completion_tokens;
        super::metrics::model_tokens(
            self.orchestrator.provider_name(),
            usage.prompt_tokens,
            usage.completion_tokens,
        );
        self.usage.largest_prompt = self.usage.largest_prompt.max(usage.prompt_tokens);
    }

    async fn stream_text(&mut self, delta: String) -> Result<(), RunFailure> {
        if self.open_text.is_none() {
            let id = format!("msg_{}", Uuid::new_v4().simple());
            let mut start = Event::text_message_start(&id);
            if let Event::TextMessageStart(start) = &mut start {
                start.name = Some(self.agent.to_owned());
            }
            self.open_text = Some((id, String::new()));
            self.speaker = self
                .spoken
                .map(|kind| (Speaker::new(kind, self.thread_language()), false));
            self.emit(start).await?;
        }
        let (id, text) = self.open_text.as_mut().expect("opened above");
        text.push_str(&delta);
        let id = id.clone();
        // Each line spoken once it is written (`agora:spoken_text_*`, interleaved).
        let pieces = match &mut self.speaker {
            Some((speaker, _)) => speaker.feed(&delta),
            None => Vec::new(),
        };
        let event = Event::text_message_content(id.clone(), delta);
        self.emit(event).await?;
        self.say(&id, pieces).await
    }

    /// `agora:spoken_text_start` before the first piece, then a `content` per piece.
    async fn say(&mut self, message_id: &str, pieces: Vec<String>) -> Result<(), RunFailure> {
        use crate::protocol::agora::{SpokenTextContent, SpokenTextStart};
        for piece in pieces {
            let Some((_, started)) = &mut self.speaker else {
                return Ok(());
            };
            if !*started {
                *started = true;
                let start = AgoraEvent::SpokenTextStart(SpokenTextStart {
                    message_id: message_id.to_owned(),
                    role: crate::protocol::Role::Assistant,
                    extra: Default::default(),
                });
                self.emit(start.into_event()).await?;
            }
            let content = AgoraEvent::SpokenTextContent(SpokenTextContent {
                message_id: message_id.to_owned(),
                delta: piece,
                extra: Default::default(),
            });
            self.emit(content.into_event()).await?;
        }
        Ok(())
    }

    /// Stores the turn's assistant message (its text and tool calls, its spoken text), then
    /// closes its text and its spoken text (`agora:spoken_text_end`, or `_error` when the
    /// answer had nothing to say aloud).
    async fn complete_assistant_message(&mut self, calls: Vec<ToolCall>) -> Result<(), RunFailure> {
        let (id, text) = match self.open_text.take() {
            Some((id, text)) => (id, Some(text)),
            None if calls.is_empty() => return Ok(()),
            None => (format!("msg_{}", Uuid::new_v4().simple()), None),
        };
        if let (Some((speaker, _)), Some(_)) = (&mut self.speaker, &text) {
            let rest = speaker.finish("");
            self.say(&id, rest).await?;
        }
        let speaker = if text.is_some() {
            self.speaker.take()
        } else {
            None
        };
        let mut message = AssistantMessage {
            id: Some(id.clone()),
            content: text.clone(),
            name: Some(self.agent.to_owned()),
            tool_calls: (!calls.is_empty()).then_some(calls),
            ..Default::default()
        };
        if let Some((speaker, _)) = &speaker
            && !speaker.said().is_empty()
        {
            message
                .extra
                .insert("spokenText".to_owned(), json!(speaker.said()));
        }
        let message = Message::Assistant(message);
        self.orchestrator
            .store
            .append_message(&self.thread_id, &message)
            .await?;
        Arc::make_mut(&mut self.messages).push(message);
        if text.is_some() {
            self.emit(Event::text_message_end(&id)).await?;
        }
        if let Some((_, started)) = speaker {
            self.end_speech(&id, started).await?;
        }
        Ok(())
    }

    async fn end_speech(&mut self, message_id: &str, started: bool) -> Result<(), RunFailure> {
        use crate::protocol::agora::{SpokenTextEnd, SpokenTextError};
        let event = if started {
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
        self.emit(event.into_event()).await
    }

    /// Standard: a tool the client offered that is not one of ours (ours win a name clash).
    fn client_tool(&self, name: &str) -> Option<&crate::protocol::Tool> {
        let Mode::Standard(standard) = &self.mode else {
            return None;
        };
        if name == HANDOFF_TOOL || self.orchestrator.toolbox.get(name).is_some() {
            return None;
        }
        standard.client_tools.iter().find(|t| t.name == name)
    }

    async fn call_tool(&mut self, call: ToolCall) -> Result<(), RunFailure> {
        let name = call.function.name.clone();
        let arguments: Value =
            serde_json::from_str(&call.function.arguments).unwrap_or(Value::Null);
        if let Some(tool) = self.client_tool(&name) {
            let description = tool.description.clone().unwrap_or_default();
            self.announce_call(&call, &arguments, &name, &description)
                .await?;
            if let Some(standard) = self.standard() {
                standard.client_calls.push(call.id);
            }
            return Ok(());
        }
        let tool = self.orchestrator.toolbox.get(&name);
        let (display_name, description) = match (&tool, name.as_str()) {
            (Some(tool), _) => (tool.display_name(), tool.description()),
            (None, HANDOFF_TOOL) => (
                crate::protocol::tools::dutch_name(HANDOFF_TOOL),
                "Geeft het gesprek door aan de juiste specialist.",
            ),
            (None, _) => ("Onbekende tool", "Deze tool bestaat niet."),
        };

        let risk = approval::risk_level(&name, &arguments);
        let decision = match self.mode {
            _ if !approval::needs_approval(risk) => None,
            Mode::Agora => Some(
                self.ask_approval(&call, &arguments, risk, display_name, description)
                    .await?,
            ),
            Mode::Standard(_) => {
                self.announce_call(&call, &arguments, display_name, description)
                    .await?;
                return self
                    .raise_interrupt(&call, &arguments, risk, display_name)
                    .await;
            }
        };
        self.announce_call(&call, &arguments, display_name, description)
            .await?;
        self.settle(call, arguments, decision).await
    }

    /// TOOL_CALL_START, TOOL_CALL_ARGS (the whole JSON) and TOOL_CALL_END. AGORA adds the tool's
    /// Dutch name and description as fields of TOOL_CALL_START; the standard dialect keeps its
    /// events to the schema and puts them in `metadata`.
    async fn announce_call(
        &mut self,
        call: &ToolCall,
        arguments: &Value,
        display_name: &str,
        description: &str,
    ) -> Result<(), RunFailure> {
        let mut start = Event::tool_call_start(&call.id, &call.function.name);
        if let Event::ToolCallStart(start) = &mut start {
            let names = [
                ("toolDisplayName".to_owned(), json!(display_name)),
                ("toolDescription".to_owned(), json!(description)),
            ];
            match self.mode {
                Mode::Agora => {
                    start.parent_message_id =
                        self.messages.last().map(|m| m.id().map(str::to_owned));
                    start.base.extra.extend(names);
                }
                // The message that made the call (AGORA sends the last message, which after
                // the first call of a turn is a tool result).
                Mode::Standard(_) => {
                    start.parent_message_id = self
                        .messages
                        .iter()
                        .rev()
                        .find(|m| match m {
                            Message::Assistant(a) => {
                                a.tool_calls.iter().flatten().any(|c| c.id == call.id)
                            }
                            _ => false,
                        })
                        .and_then(|m| m.id().map(str::to_owned))
                        .map(Some);
                    start.base.metadata = Some(names.into_iter().collect());
                }
            }
        }
        self.emit(start).await?;
        self.announced.insert(call.id.clone());
        self.emit(Event::tool_call_args(&call.id, arguments.to_string()))
            .await?;
        self.emit(Event::tool_call_end(&call.id)).await
    }

    /// A call that cannot be run: announced like any other, answered with the problem, so the
    /// model reads it and the thread keeps every call answered.
    async fn refuse_call(&mut self, call: ToolCall, problem: &str) -> Result<(), RunFailure> {
        tracing::info!(run_id = %self.run_id, tool = %call.function.name, %problem, "refused a tool call of the model");
        self.announce_call(
            &call,
            &json!({}),
            "Ongeldige aanroep",
            "Het taalmodel vroeg een aanroep die niet kan worden uitgevoerd.",
        )
        .await?;
        let error = format!("This call was not carried out: {problem}. Correct it and call again.");
        let content = json!({ "status": "refused", "error": error });
        self.store_and_send_result(&call.id, content, Some(error))
            .await
    }

    /// After a failure: every call of the thread still without a result gets one that says it
    /// was not carried out, and an approval still waiting is decided (rejected by `system`), so
    /// the thread stays valid for strict model servers and the audit log has no open request.
    /// Returns the closed calls that the client saw announced, with their result ids and texts.
    async fn close_unanswered_calls(
        &mut self,
        failure: &RunFailure,
        pending_approval: Option<String>,
    ) -> Vec<(String, String, String)> {
        let store = self.orchestrator.store.clone();
        let why = match failure {
            RunFailure::Cancelled => "cancelled",
            _ => "failed",
        };
        if let Some(approval_id) = pending_approval {
            let decision = ApprovalDecision::rejected_by_system(
                format!("De run is gestopt ({why}) voordat er een besluit was."),
                now_millis() as i64,
            );
            if let Err(e) = store
                .record_approval_decision(&approval_id, &decision)
                .await
            {
                tracing::error!(error = %e, %approval_id, "could not close the approval");
            }
        }
        let mut closed = Vec::new();
        for (call_id, name) in unanswered_calls(&self.messages) {
            let error = format!(
                "`{name}` was not carried out: the run {why} ({}) before it could run.",
                failure.code()
            );
            let message = super::closed_call(&call_id, why, error);
            if let Err(e) = store.append_message(&self.thread_id, &message).await {
                tracing::error!(error = %e, run_id = %self.run_id, "could not close a tool call");
                continue;
            }
            if let Message::Tool(result) = &message
                && self.announced.contains(&call_id)
            {
                let result_id = result.id.clone().unwrap_or_default();
                closed.push((result_id, call_id, result.content.clone()));
            }
            Arc::make_mut(&mut self.messages).push(message);
        }
        closed
    }

    /// Executes the call, or records its rejection; stores and sends the result, and hands over
    /// when the call was a handoff.
    async fn settle(
        &mut self,
        call: ToolCall,
        arguments: Value,
        decision: Option<Decision>,
    ) -> Result<(), RunFailure> {
        let name = call.function.name.clone();
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
        self.store_and_send_result(&call.id, content, error).await?;
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
            let message_id = self.caller_message_id(&call.id);
            if let Some(standard) = self.standard() {
                standard.next_subagent = (agent != agents::GENERAL_AGENT)
                    .then(|| super::subagent::started(agent, &call.id, message_id));
                // Back to the general agent: the invocation ends at the next step.
                if agent == agents::GENERAL_AGENT {
                    standard.next_subagent = None;
                    standard.subagent_closing = true;
                }
            }
        }
        Ok(())
    }

    /// The id of the assistant message that made call `call_id`.
    fn caller_message_id(&self, call_id: &str) -> Option<String> {
        self.messages.iter().rev().find_map(|m| match m {
            Message::Assistant(a) if a.tool_calls.iter().flatten().any(|c| c.id == call_id) => {
                a.id.clone()
            }
            _ => None,
        })
    }

    /// Stores a call's result, then sends its TOOL_CALL_RESULT.
    async fn store_and_send_result(
        &mut self,
        call_id: &str,
        content: Value,
        error: Option<String>,
    ) -> Result<(), RunFailure> {
        let result_id = format!("tool_{}", Uuid::new_v4().simple());
        let content = content.to_string();
        let message = Message::Tool(ToolMessage {
            id: Some(result_id.clone()),
            content: content.clone(),
            tool_call_id: call_id.to_owned(),
            error,
            ..Default::default()
        });
        self.orchestrator
            .store
            .append_message(&self.thread_id, &message)
            .await?;
        Arc::make_mut(&mut self.messages).push(message);
        self.emit(Event::tool_call_result(result_id, call_id, content))
            .await
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
        risk: RiskLevel,
        display_name: &str,
        description: &str,
    ) -> Result<Decision, RunFailure> {
        let approval_id = format!("appr_{}", Uuid::new_v4().simple());
        let orchestrator = self.orchestrator.clone();
        let receiver =
            orchestrator
                .approvals
                .register(&approval_id, self.connection_id, &self.user_id);
        self.pending_approval = Some(approval_id.clone());
        let reasoning = approval_reason(self.agent, display_name, &call.function.name, risk);
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
                risk_level: risk_wire_name(risk),
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

    /// Standard: stores an interrupt for the call (and the request in the approval log); the
    /// run ends with it once the turn's other calls are done.
    async fn raise_interrupt(
        &mut self,
        call: &ToolCall,
        arguments: &Value,
        risk: RiskLevel,
        display_name: &str,
    ) -> Result<(), RunFailure> {
        let id = format!("int_{}", Uuid::new_v4().simple());
        let now = now_millis() as i64;
        let timeout = self.orchestrator.config.approval_timeout.as_millis() as i64;
        let risk_name = risk_wire_name(risk);
        let message = approval_reason(self.agent, display_name, &call.function.name, risk);
        let record = InterruptRecord {
            id: id.clone(),
            thread_id: self.thread_id.clone(),
            run_id: self.run_id.clone(),
            reason: TOOL_CALL_REASON.to_owned(),
            message: message.clone(),
            tool_call_id: call.id.clone(),
            tool_name: call.function.name.clone(),
            arguments: arguments.clone(),
            response_schema: approval_response_schema(),
            created_at: now,
            expires_at: now + timeout,
            resolution: None,
        };
        let store = self.orchestrator.store.clone();
        store.record_interrupt(&record).await?;
        store
            .record_approval_request(&ApprovalRecord {
                approval_id: id.clone(),
                thread_id: self.thread_id.clone(),
                run_id: self.run_id.clone(),
                tool_call_id: call.id.clone(),
                tool_name: call.function.name.clone(),
                parameters: arguments.clone(),
                risk_level: risk_name.clone(),
                requested_by: self.user_id.clone(),
                requested_at: now,
                decision: None,
            })
            .await?;
        let metadata = [
            ("toolName".to_owned(), json!(call.function.name)),
            ("arguments".to_owned(), arguments.clone()),
            ("riskLevel".to_owned(), json!(risk_name)),
        ];
        let interrupt = Interrupt {
            id,
            reason: record.reason,
            message: Some(message),
            tool_call_id: Some(record.tool_call_id),
            response_schema: Some(record.response_schema),
            expires_at: Some(iso_millis(record.expires_at)),
            metadata: Some(metadata.into_iter().collect()),
            extra: Default::default(),
        };
        if let Some(standard) = self.standard() {
            standard.interrupts.push(interrupt);
        }
        Ok(())
    }

    /// Standard: a run that fails after raising interrupts never delivered them; they are
    /// closed as cancelled, so the thread does not wait for answers nobody can give.
    async fn withdraw_interrupts(&mut self) {
        let run_id = self.run_id.clone();
        let Some(standard) = self.standard() else {
            return;
        };
        let answers: Vec<(String, InterruptResolution)> = std::mem::take(&mut standard.interrupts)
            .into_iter()
            .map(|interrupt| {
                let resolution = InterruptResolution {
                    run_id: run_id.clone(),
                    status: "cancelled".to_owned(),
                    payload: None,
                    resolved_at: now_millis() as i64,
                };
                (interrupt.id, resolution)
            })
            .collect();
        if answers.is_empty() {
            return;
        }
        let store = self.orchestrator.store.clone();
        if let Err(e) = store.resolve_interrupts(&answers).await {
            tracing::error!(error = %e, run_id = %self.run_id, "could not withdraw interrupts");
        }
        // The approval log has a row for each: closed too, rejected by `system`.
        for (id, _) in &answers {
            let decision = ApprovalDecision::rejected_by_system(
                "De run is gestopt voordat er een besluit was.",
                now_millis() as i64,
            );
            if let Err(e) = store.record_approval_decision(id, &decision).await {
                tracing::warn!(error = %e, interrupt_id = %id, "could not close the approval");
            }
        }
    }

    async fn finish_ok(&mut self) -> Result<(), RunFailure> {
        self.close_subagent(None).await?;
        let interrupts = self
            .standard()
            .map(|s| s.interrupts.clone())
            .unwrap_or_default();
        if interrupts.is_empty() {
            self.emit(Event::state_snapshot(self.state("completed")))
                .await?;
            let mut finished = Event::run_finished(&self.thread_id, &self.run_id);
            self.attach_usage(&mut finished);
            return self.emit(finished).await;
        }
        self.emit(Event::state_snapshot(self.state("interrupted")))
            .await?;
        let snapshot = Event::MessagesSnapshot(MessagesSnapshot {
            messages: self.messages.to_vec(),
            ..Default::default()
        });
        self.emit(snapshot).await?;
        let mut finished = Event::RunFinished(RunFinished {
            thread_id: self.thread_id.clone(),
            run_id: self.run_id.clone(),
            outcome: Some(Some(RunOutcome::Interrupt { interrupts })),
            ..Default::default()
        });
        self.attach_usage(&mut finished);
        self.emit(finished).await
    }

    /// The run's model usage on its last event, as the server reported it (absent with the
    /// embedded planner, which uses no tokens): `metadata.usage` with the request count and
    /// the largest prompt; in the standard dialect also AG-UI 1.0's `usage` (`TokenUsage[]`),
    /// on RUN_FINISHED and RUN_ERROR.
    fn attach_usage(&self, event: &mut Event) {
        if self.usage.requests == 0 || self.usage.prompt_tokens == 0 {
            return;
        }
        let standard = matches!(self.mode, Mode::Standard(_));
        let base = match event {
            Event::RunFinished(finished) => &mut finished.base,
            Event::RunError(error) if standard => &mut error.base,
            _ => return,
        };
        if standard {
            let tokens = json!([{
                "provider": self.orchestrator.provider_name(),
                "inputTokens": self.usage.prompt_tokens,
                "outputTokens": self.usage.completion_tokens,
                "totalTokens": self.usage.prompt_tokens + self.usage.completion_tokens,
            }]);
            base.extra.insert("usage".to_owned(), tokens);
        }
        let usage = json!({
            "modelRequests": self.usage.requests,
            "promptTokens": self.usage.prompt_tokens,
            "completionTokens": self.usage.completion_tokens,
            "largestPromptTokens": self.usage.largest_prompt,
        });
        base.metadata
            .get_or_insert_with(Default::default)
            .insert("usage".to_owned(), usage);
    }

    /// Keeps the partial answer, closes what is open, then RUN_ERROR (and, in AGORA's dialect,
    /// RUN_FINISHED).
    async fn finish_failed(
        &mut self,
        failure: &RunFailure,
        closed: Vec<(String, String, String)>,
    ) -> Result<(), RunFailure> {
        if self.open_text.is_some() {
            self.complete_assistant_message(Vec::new()).await?;
        }
        for (result_id, call_id, content) in closed {
            self.emit(Event::tool_call_result(result_id, call_id, content))
                .await?;
        }
        self.end_step().await?;
        self.close_subagent(Some(failure)).await?;
        let status = if matches!(failure, RunFailure::Cancelled) {
            "cancelled"
        } else {
            "error"
        };
        // The dialect allows nothing but RUN_FINISHED after RUN_ERROR, so the state goes first.
        self.emit(Event::state_snapshot(self.state(status))).await?;
        // AG-UI 1.0: a stopped run is not an error; it finishes with the cancelled outcome.
        if matches!(self.mode, Mode::Standard(_)) && matches!(failure, RunFailure::Cancelled) {
            let mut finished = Event::RunFinished(RunFinished {
                thread_id: self.thread_id.clone(),
                run_id: self.run_id.clone(),
                outcome: Some(Some(RunOutcome::Cancelled)),
                ..Default::default()
            });
            self.attach_usage(&mut finished);
            return self.emit(finished).await;
        }
        let lang = self.thread_language();
        let mut error = Event::run_error(failure.user_message(lang), failure.code());
        self.attach_usage(&mut error);
        self.emit(error).await?;
        match self.mode {
            Mode::Agora => {
                let mut finished = Event::run_finished(&self.thread_id, &self.run_id);
                self.attach_usage(&mut finished);
                self.emit(finished).await
            }
            // RUN_ERROR is terminal in the standard dialect.
            Mode::Standard(_) => Ok(()),
        }
    }

    /// The language of the inspector's last message, for what the run says itself.
    fn thread_language(&self) -> Lang {
        self.messages
            .iter()
            .rev()
            .find_map(|m| match m {
                Message::User(user) => match &user.content {
                    crate::protocol::UserContent::Text(text) => Some(detect_language(text)),
                    crate::protocol::UserContent::Parts(_) => None,
                },
                _ => None,
            })
            .unwrap_or_default()
    }

    async fn step(&mut self, name: &'static str) -> Result<(), RunFailure> {
        self.switch_subagent().await?;
        self.open_step = Some(name);
        self.emit(Event::step_started(name)).await
    }

    /// Standard: a handoff since the last step ends the open invocation and opens the next.
    async fn switch_subagent(&mut self) -> Result<(), RunFailure> {
        let Some(standard) = self.standard() else {
            return Ok(());
        };
        let closing = std::mem::take(&mut standard.subagent_closing);
        let Some(next) = standard.next_subagent.take() else {
            if closing {
                self.close_subagent(None).await?;
            }
            return Ok(());
        };
        self.close_subagent(None).await?;
        if let Some(standard) = self.standard() {
            standard.subagent = Some(next.subagent_run_id.clone());
        }
        self.emit(Event::SubagentStarted(next)).await
    }

    /// Ends the open invocation: finished (suspended on `interrupts`), or failed.
    async fn close_subagent(&mut self, failure: Option<&RunFailure>) -> Result<(), RunFailure> {
        let Some(standard) = self.standard() else {
            return Ok(());
        };
        let Some(id) = standard.subagent.take() else {
            return Ok(());
        };
        let interrupts: Vec<String> = standard.interrupts.iter().map(|i| i.id.clone()).collect();
        let event = match failure {
            Some(failure) => Event::SubagentError(crate::protocol::SubagentError {
                subagent_run_id: id,
                message: failure.user_message(self.thread_language()),
                code: Some(failure.code().into()),
                ..Default::default()
            }),
            None => Event::SubagentFinished(crate::protocol::SubagentFinished {
                subagent_run_id: id,
                outcome: (!interrupts.is_empty()).then_some(
                    crate::protocol::SubagentOutcome::Suspended {
                        interrupt_ids: Some(interrupts),
                    },
                ),
                ..Default::default()
            }),
        };
        self.emit(event).await
    }

    async fn end_step(&mut self) -> Result<(), RunFailure> {
        match self.open_step.take() {
            Some(name) => self.emit(Event::step_finished(name)).await,
            None => Ok(()),
        }
    }

    /// The STATE_SNAPSHOT: where the run is, and the inspection the thread holds (open
    /// company, pending company choice, findings), read from the thread's messages.
    fn state(&self, status: &str) -> Value {
        json!({
            "threadId": self.thread_id,
            "runId": self.run_id,
            "currentAgent": self.agent,
            "status": status,
            "inspection": InspectionState::from_messages(&self.messages),
        })
    }

    async fn emit(&mut self, event: Event) -> Result<(), RunFailure> {
        let last = matches!(event, Event::RunFinished(_))
            || (matches!(self.mode, Mode::Standard(_)) && matches!(event, Event::RunError(_)));
        if last {
            self.last_event = Some(event);
            return Ok(());
        }
        self.publish(event);
        Ok(())
    }

    /// Checks `event` (debug builds), numbers it and hands it to whoever follows the thread.
    fn publish(&mut self, event: Event) {
        let mut event = event.with_timestamp(now_millis());
        if let Mode::Standard(standard) = &self.mode
            && let Some(id) = &standard.subagent
            && super::subagent::owned(&event)
            && let Some(base) = event.base_mut()
        {
            base.extra.insert("subagentRunId".to_owned(), json!(id));
        }
        if let Some(verifier) = &mut self.verifier {
            for violation in verifier.push(&event) {
                tracing::error!(run_id = %self.run_id, %violation, "BUG: event stream breaks its dialect");
            }
        }
        if !self.first_text_seen && matches!(event, Event::TextMessageContent(_)) {
            self.first_text_seen = true;
            super::metrics::first_text(self.started.elapsed());
        }
        self.events_published.increment(1);
        let max_bytes = self.orchestrator.config.journal.max_bytes_per_thread;
        let published = self
            .journal
            .publish(&self.run_id, self.dialect(), &event, max_bytes);
        if let Some((seq, run_id, json)) = published
            && self.orchestrator.peers.shared()
        {
            self.orchestrator
                .peers
                .event_sent(super::cluster::SharedEvent {
                    thread_id: self.thread_id.clone(),
                    seq,
                    run_id,
                    json,
                });
        }
    }
}

fn tool_call(id: String, name: String, arguments: String) -> ToolCall {
    ToolCall {
        id,
        kind: "function".to_owned(),
        function: FunctionCall {
            name,
            arguments,
            ..Default::default()
        },
        ..Default::default()
    }
}

/// `low`, `medium`, `high` or `critical`, as the wire and the audit log spell it.
fn risk_wire_name(risk: RiskLevel) -> String {
    serde_json::to_value(risk)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default()
}

/// Why the run asks, as the approval dialog (or the interrupt) shows it to the inspector.
fn approval_reason(agent: &str, display_name: &str, tool_name: &str, risk: RiskLevel) -> String {
    let agent_name = agents::agent(agent).map_or(agent, |a| a.name);
    let risk = match risk {
        RiskLevel::Low => "laag",
        RiskLevel::Medium => "middel",
        RiskLevel::High => "hoog",
        RiskLevel::Critical => "kritiek",
    };
    format!(
        "{agent_name} wil '{display_name}' (`{tool_name}`) uitvoeren. Dit is een handeling met \
         risico {risk} en vraagt daarom uw toestemming."
    )
}

/// Builds the verifier a run uses: on in debug builds, where a violation is a bug to fix.
pub(super) fn debug_verifier(dialect: Dialect) -> Option<Verifier> {
    cfg!(debug_assertions).then(|| Verifier::new(dialect))
}

/// What a tool-call interrupt expects back in `resume[].payload`.
pub(super) fn approval_response_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "approved": { "type": "boolean", "description": "Whether the call may run" },
            "editedArgs": {
                "type": "object",
                "description": "Arguments to run the call with instead of the proposed ones"
            },
            "feedback": { "type": "string", "description": "Why, for the agent and the audit log" }
        },
        "required": ["approved"],
        "additionalProperties": false
    })
}

/// Unix milliseconds as ISO 8601 (UTC), as `expiresAt` is read by clients.
fn iso_millis(millis: i64) -> String {
    time::OffsetDateTime::from_unix_timestamp_nanos(i128::from(millis) * 1_000_000)
        .ok()
        .and_then(|t| {
            t.format(&time::format_description::well_known::Rfc3339)
                .ok()
        })
        .unwrap_or_default()
}
