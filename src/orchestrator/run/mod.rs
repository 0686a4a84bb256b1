//! One run: from RUN_STARTED to its last event, in whichever dialect its adapter speaks
//! (`dialect/`). The loop here names no dialect.
//!
//! The run owns its thread's conversation while it lasts. Each completed message and tool
//! result is stored before the next event goes out, so what a client saw survives a crash.
//! Its tool calls are in `tools.rs`, where its events go in `publish.rs`.

mod listen;
mod publish;
mod tools;

pub(crate) use publish::{Publisher, debug_verifier};

use std::collections::HashSet;
use std::sync::Arc;
use std::time::Duration;

use futures::StreamExt;
use serde_json::{Value, json};
use uuid::Uuid;

use super::dialect::{Adapter, FailedEnd, RunInfo};
use super::inspection::InspectionReader;
use super::llm::planner::{Lang, detect_language};
use super::llm::prompts::{self, HANDOFF_TOOL};
use super::llm::{CompletionRequest, FinishReason, LlmChunk, LlmError, ToolSpec, Usage};
use super::store::{RunStatus, StoreError};
use super::{agents, metrics, subagent};
use crate::protocol::{
    AssistantMessage, ErrorCode, Event, Message, MessagesSnapshot, RunFinished, RunOutcome,
    ToolCall,
};
use tokio_util::sync::CancellationToken;

/// Why a run stopped early.
#[derive(Debug, thiserror::Error)]
pub(crate) enum RunFailure {
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

/// Model turns with unusable tool calls a run answers with errors before it gives up.
const MAX_REFUSED_TURNS: usize = 1;

/// A run in progress.
pub(crate) struct Run {
    /// Who runs it, where, from which connection.
    pub info: RunInfo,
    /// Speaks the run's dialect where the dialects differ.
    pub adapter: Box<dyn Adapter>,
    /// Where its events go.
    pub out: Publisher,
    pub cancel: CancellationToken,
    /// The thread so far, as the model sees it. Shared with each model turn's request rather
    /// than copied into it: a long thread cost a deep copy a turn (issue 19). A push copies
    /// only while a request still holds the previous version, which a finished turn does not.
    pub messages: Arc<Vec<Message>>,
    /// How many of `messages`, at its end, are not stored yet. A step's messages (an assistant
    /// message and its calls' results) are stored in one transaction, before anything that
    /// tells a client they are kept: a TOOL_CALL_RESULT, an approval request, the run's end
    /// (issue 36: a transaction, with its fsync, per message was most of a run's store cost).
    pub unsaved: usize,
    /// The agent answering now; a handoff changes it.
    pub agent: &'static str,
    /// Closed on failure, so the stream stays well-formed.
    pub open_step: Option<&'static str>,
    /// The assistant text being streamed: id and what was sent, kept if the run is cut short.
    pub open_text: Option<(String, String)>,
    /// Tool calls announced to the client (TOOL_CALL_START..END) in this run: a call the run
    /// closes without running it gets its TOOL_CALL_RESULT only if the client saw it.
    pub announced: HashSet<String>,
    /// What the model requests of this run cost, for RUN_FINISHED and the log.
    pub usage: RunUsage,
    /// Model turns whose tool calls could not be run; one is answered with errors for the model
    /// to correct, a second ends the run.
    pub refused_turns: usize,
    /// The thread's listen mode as this run leaves it (`listen.rs`).
    pub listening: bool,
    /// The photos of the message the run answers, as `data:` URLs by address, once read for a
    /// model that sees images (`--llm-vision`): read at its first turn, kept for the others.
    pub images: Option<Arc<std::collections::HashMap<String, String>>>,
    /// The thread's inspection, read as far as `messages` went at its last use: each model
    /// turn, STATE_SNAPSHOT and listen-mode note reads only the messages appended since.
    pub inspection: InspectionReader,
    /// The thread's title after the company a tool call of this step found: written with the
    /// step's messages, in their transaction (`Store::append_step`).
    pub company_title: Option<String>,
}

/// The model requests of one run and the tokens they used.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct RunUsage {
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
    /// The run's record is stored already: the turn's transaction wrote it (`begin_turn`).
    pub async fn execute(mut self) -> RunStatus {
        let run_id = self.info.run_id.clone();
        let cancel = self.cancel.clone();
        let outcome = tokio::select! {
            result = self.work() => result,
            () = cancel.cancelled() => Err(RunFailure::Cancelled),
        };
        let pending_approval = self.adapter.take_pending_approval();
        if let Some(approval_id) = &pending_approval {
            self.info.orchestrator.approvals.settle(approval_id);
        }
        let (status, error, instead) = match outcome {
            Ok(()) => {
                // Interrupts stay open when nobody follows: a client that comes back reads
                // them (resume, or the thread's stored interrupts) and answers.
                let _ = self.finish_ok().await;
                // Should the answer not be kept, the run ends as one whose storage failed.
                let instead = self.storage_failed_end();
                (RunStatus::Finished, None, Some(instead))
            }
            Err(failure) => {
                let status = if matches!(failure, RunFailure::Cancelled) {
                    RunStatus::Cancelled
                } else {
                    RunStatus::Error
                };
                if !matches!(failure, RunFailure::Cancelled) {
                    tracing::warn!(run_id = %run_id, code = %failure.code(), error = %failure, "run failed");
                }
                let closed = self
                    .close_unanswered_calls(&failure, pending_approval)
                    .await;
                let _ = self.finish_failed(&failure, closed).await;
                self.adapter.withdraw(&self.info).await;
                (status, Some(format!("{}: {failure}", failure.code())), None)
            }
        };
        if self.usage.prompt_tokens > 0 {
            tracing::info!(
                run_id = %run_id,
                model_requests = self.usage.requests,
                prompt_tokens = self.usage.prompt_tokens,
                completion_tokens = self.usage.completion_tokens,
                largest_prompt = self.usage.largest_prompt,
                model_ms = self.usage.model_time.as_millis() as u64,
                "model usage"
            );
        }
        // What is still unsaved (the answer, or a failed run's partial one) is stored with the
        // run's end, in one transaction, before the held last event goes out.
        let from = self.messages.len() - self.unsaved;
        let kept = self
            .out
            .end(status, error.as_deref(), &self.messages[from..], instead)
            .await;
        if kept {
            self.unsaved = 0;
        }
        status
    }

    /// What a run whose steps went well sends instead of its last event when its answer could
    /// not be stored with its end: a storage error, as the dialect ends a failed run.
    fn storage_failed_end(&self) -> Vec<Event> {
        let failure = RunFailure::Store(StoreError::Backend(
            "the answer could not be stored".to_owned(),
        ));
        let mut events = vec![Event::run_error(
            failure.user_message(self.thread_language()),
            failure.code(),
        )];
        if self.adapter.failed_end(false) == FailedEnd::ErrorThenFinished {
            events.push(Event::run_finished(&self.info.thread_id, &self.info.run_id));
        }
        for event in &mut events {
            self.adapter.stamp(event);
        }
        events
    }

    async fn work(&mut self) -> Result<(), RunFailure> {
        self.emit(Event::run_started(&self.info.thread_id, &self.info.run_id));
        let state = self.state("processing");
        self.emit(Event::state_snapshot(state));
        // A specialist that carries on (a resume, client tool results) continues its
        // invocation of the run it paused.
        let continued = (self.agent != agents::GENERAL_AGENT)
            .then(|| subagent::continued(&self.messages, self.agent))
            .flatten();
        let opening = self.adapter.open(&self.info, continued).await?;
        let settling = !opening.settle.is_empty();
        if settling {
            // Only their TOOL_CALL_RESULTs go out: the client saw the calls themselves in
            // the interrupted run.
            self.step("executing_tools");
            for settle in opening.settle {
                self.settle(settle.call, settle.arguments, Some(settle.decision))
                    .await?;
            }
            self.end_step();
            if let Some(message) = self.adapter.after_settled() {
                self.append(message);
            }
        } else if opening.route {
            self.step("routing");
            self.end_step();
        }
        // A new message in listen mode, or one that switches it, may be answered right here.
        if !settling && self.listen_turn().await? {
            return Ok(());
        }
        let max_turns = self.info.orchestrator.config().max_turns;
        for turn in 0..max_turns {
            self.step("thinking");
            let calls = self.think(turn + 1 == max_turns).await?;
            self.end_step();
            if calls.is_empty() {
                return Ok(());
            }
            self.step("executing_tools");
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
            self.end_step();
            if !refused.is_empty() {
                // The model reads why and may correct itself once.
                self.refused_turns += 1;
                if self.refused_turns > MAX_REFUSED_TURNS {
                    return Err(LlmError::InvalidToolCalls(refused.join("; ")).into());
                }
            }
            if self.adapter.paused() {
                return Ok(());
            }
        }
        Err(RunFailure::TooManyTurns(max_turns))
    }

    /// Adds a message of the run to the thread the model sees; [`Run::save`] stores it.
    fn append(&mut self, message: Message) {
        Arc::make_mut(&mut self.messages).push(message);
        self.unsaved += 1;
    }

    /// Stores the messages appended since the last save, in one transaction, with the thread's
    /// name when the step found its company. They stay unsaved when it fails (or the run is
    /// cancelled during it), so the run's end saves them again.
    async fn save(&mut self) -> Result<(), RunFailure> {
        if self.unsaved == 0 {
            return Ok(());
        }
        let from = self.messages.len() - self.unsaved;
        let title = self.company_title.take();
        self.info
            .orchestrator
            .store()
            .append_step(
                &self.info.thread_id,
                &self.messages[from..],
                title.as_deref(),
            )
            .await?;
        self.unsaved = 0;
        Ok(())
    }

    /// For a model that sees images (`--llm-vision`): the stored photos of the message the run
    /// answers, as `data:` URLs by address (earlier messages' photos stay placeholders: every
    /// turn would send them again). Read once per run; empty for any other model.
    async fn images(&mut self) -> Arc<std::collections::HashMap<String, String>> {
        use base64::Engine;
        if !self.info.orchestrator.provider.sees_images() {
            return Arc::default();
        }
        if let Some(images) = &self.images {
            return Arc::clone(images);
        }
        let mut images = std::collections::HashMap::new();
        let last = self.messages.iter().rev().find_map(|m| match m {
            Message::User(user) => Some(user),
            _ => None,
        });
        let ids: Vec<String> = last
            .map(|user| user.content.photo_ids().map(str::to_owned).collect())
            .unwrap_or_default();
        let store = self.info.orchestrator.store().clone();
        for id in ids {
            match store.photo(&self.info.user_id, &id).await {
                Ok(Some(photo)) => {
                    let data = base64::engine::general_purpose::STANDARD.encode(&photo.bytes);
                    images.insert(
                        crate::protocol::photo_url(&id),
                        format!("data:{};base64,{data}", photo.mime_type),
                    );
                }
                Ok(None) => tracing::warn!(photo = %id, "a message's photo is not stored"),
                Err(e) => tracing::warn!(error = %e, "a message's photo could not be read"),
            }
        }
        let images = Arc::new(images);
        self.images = Some(Arc::clone(&images));
        images
    }

    /// One model turn: streams its text and returns the tool calls it asked for, each to run
    /// or to refuse. The turn's model time counts against the run's model deadline.
    async fn think(&mut self, last_turn: bool) -> Result<Vec<PlannedCall>, RunFailure> {
        let tools = self.offered_tools();
        let offered: HashSet<String> = tools.iter().map(|t| t.name.clone()).collect();
        let images = self.images().await;
        let request = CompletionRequest {
            agent_id: self.agent.to_owned(),
            system_prompt: prompts::system_prompt(self.agent),
            messages: Arc::clone(&self.messages),
            tools,
            answer_only: last_turn,
            user_id: self.info.user_id.clone(),
            images,
            inspection: Some(Arc::new(self.inspection.read(&self.messages).into_owned())),
        };
        let budget = self.info.orchestrator.config().model_time_limit;
        let remaining = budget.saturating_sub(self.usage.model_time);
        let started = tokio::time::Instant::now();
        let turn = tokio::time::timeout(remaining, self.model_turn(request, &offered)).await;
        self.usage.model_time += started.elapsed();
        let outcome = match &turn {
            Ok(Ok(_)) => "ok",
            Ok(Err(_)) => "error",
            Err(_) => "timeout",
        };
        metrics::model_turn(
            self.info.orchestrator.provider_name(),
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
            tracing::info!(run_id = %self.info.run_id, dropped = calls.len(), "ignored tool calls on the run's last turn");
            calls.clear();
        }
        // Servers may ignore `parallel_tool_calls: false` (llama.cpp's grammar allows several
        // calls): an agent whose turn is one decision gets its first call, the rest never
        // happened.
        if prompts::one_call_at_a_time(self.agent) && calls.len() > 1 {
            tracing::info!(run_id = %self.info.run_id, agent = self.agent, dropped = calls.len() - 1, "kept the first of several tool calls");
            calls.truncate(1);
        }
        let stored: Vec<ToolCall> = calls
            .iter()
            .map(|call| match call {
                PlannedCall::Run(call) | PlannedCall::Refuse(call, _) => call.clone(),
            })
            .collect();
        self.complete_assistant_message(stored);
        // Text cut off at the output limit, with nothing to run: not an answer to pass off as one.
        if reason == FinishReason::Length && calls.is_empty() {
            return Err(LlmError::Truncated.into());
        }
        Ok(calls)
    }

    /// What this agent may call now: its own tools, the handoff, the MCP servers' tools given
    /// to it, and the client's tools the dialect offers.
    fn offered_tools(&self) -> Vec<ToolSpec> {
        let toolbox = self.info.orchestrator.toolbox();
        let mut tools = toolbox.specs(prompts::agent_tools(self.agent));
        if prompts::agent_tools(self.agent).contains(&HANDOFF_TOOL) {
            tools.push(prompts::handoff_tool_spec());
        }
        // Read each turn: a server's list that changed since the last turn is what the model
        // is offered now.
        tools.extend(toolbox.mcp_specs(self.agent));
        for tool in self.adapter.client_tools(toolbox) {
            if !tools.iter().any(|t| t.name == tool.name) {
                tools.push(tool);
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
        let mut stream = self.info.orchestrator.provider.complete(request).await?;
        self.usage.requests += 1;
        let mut calls = Vec::new();
        let mut reason = FinishReason::Stop;
        while let Some(chunk) = stream.next().await {
            match chunk? {
                LlmChunk::Text(text) if text.is_empty() => {}
                LlmChunk::Text(text) => self.stream_text(text),
                LlmChunk::ToolCall {
                    id,
                    name,
                    arguments,
                } => {
                    let call = tools::tool_call(id, name.clone(), arguments.to_string());
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
                        tools::tool_call(id, name, "{}".to_owned()),
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
        metrics::model_tokens(
            self.info.orchestrator.provider_name(),
            usage.prompt_tokens,
            usage.completion_tokens,
        );
        self.usage.largest_prompt = self.usage.largest_prompt.max(usage.prompt_tokens);
    }

    fn stream_text(&mut self, delta: String) {
        if self.open_text.is_none() {
            let id = format!("msg_{}", Uuid::new_v4().simple());
            let mut start = Event::text_message_start(&id);
            if let Event::TextMessageStart(start) = &mut start {
                start.name = Some(self.agent.to_owned());
            }
            self.open_text = Some((id, String::new()));
            let lang = self.thread_language();
            self.adapter.text_started(lang);
            self.emit(start);
        }
        let (id, text) = self.open_text.as_mut().expect("opened above");
        text.push_str(&delta);
        let id = id.clone();
        let follow = self.adapter.text_delta(&id, &delta);
        self.emit(Event::text_message_content(id, delta));
        for event in follow {
            self.emit(event);
        }
    }

    /// Adds the turn's assistant message (its text and tool calls, and what the dialect keeps
    /// with it) to the thread, then closes its text. It is stored with the step's results, or
    /// at the run's end.
    fn complete_assistant_message(&mut self, calls: Vec<ToolCall>) {
        let (id, text) = match self.open_text.take() {
            Some((id, text)) => (id, Some(text)),
            None if calls.is_empty() => return,
            None => (format!("msg_{}", Uuid::new_v4().simple()), None),
        };
        let closing = match text {
            Some(_) => self.adapter.text_closing(&id),
            None => Default::default(),
        };
        for event in closing.before {
            self.emit(event);
        }
        let mut message = AssistantMessage {
            id: Some(id.clone()),
            content: text.clone(),
            name: Some(self.agent.to_owned()),
            tool_calls: (!calls.is_empty()).then_some(calls),
            ..Default::default()
        };
        if let Some(spoken) = closing.spoken {
            message.extra.insert("spokenText".to_owned(), json!(spoken));
        }
        self.append(Message::Assistant(message));
        if text.is_some() {
            self.emit(Event::text_message_end(&id));
        }
        for event in closing.after {
            self.emit(event);
        }
    }

    async fn finish_ok(&mut self) -> Result<(), RunFailure> {
        let interrupts = self.adapter.close(&mut self.out, None);
        let (thread_id, run_id) = (self.info.thread_id.clone(), self.info.run_id.clone());
        if interrupts.is_empty() {
            let state = self.state("completed");
            self.emit(Event::state_snapshot(state));
            let mut finished = Event::run_finished(&thread_id, &run_id);
            self.attach_usage(&mut finished);
            self.emit(finished);
            return Ok(());
        }
        // The snapshot shows the thread as kept: whatever is unsaved goes first (the run's end
        // would store it too, after the snapshot went out).
        if let Err(e) = self.save().await {
            tracing::error!(error = %e, run_id = %self.info.run_id, "could not store the run's messages");
        }
        let state = self.state("interrupted");
        self.emit(Event::state_snapshot(state));
        let snapshot = Event::MessagesSnapshot(MessagesSnapshot {
            messages: self.messages.to_vec(),
            ..Default::default()
        });
        self.emit(snapshot);
        let mut finished = Event::RunFinished(RunFinished {
            thread_id,
            run_id,
            outcome: Some(Some(RunOutcome::Interrupt { interrupts })),
            ..Default::default()
        });
        self.attach_usage(&mut finished);
        self.emit(finished);
        Ok(())
    }

    /// The run's model usage on its last event, as the server reported it (absent with the
    /// embedded planner, which uses no tokens): `metadata.usage` with the request count and
    /// the largest prompt; where the dialect says so also AG-UI 1.0's `usage`
    /// (`TokenUsage[]`), on RUN_FINISHED and RUN_ERROR.
    fn attach_usage(&self, event: &mut Event) {
        if self.usage.requests == 0 || self.usage.prompt_tokens == 0 {
            return;
        }
        let tokens = self.adapter.token_usage();
        let base = match event {
            Event::RunFinished(finished) => &mut finished.base,
            Event::RunError(error) if tokens => &mut error.base,
            _ => return,
        };
        if tokens {
            let tokens = json!([{
                "provider": self.info.orchestrator.provider_name(),
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

    /// Keeps the partial answer, closes what is open, then ends as the dialect says.
    async fn finish_failed(
        &mut self,
        failure: &RunFailure,
        closed: Vec<(String, String, String)>,
    ) -> Result<(), RunFailure> {
        // The partial answer is stored with the run's end (`Run::execute`).
        if self.open_text.is_some() {
            self.complete_assistant_message(Vec::new());
        }
        for (result_id, call_id, content) in closed {
            self.emit(Event::tool_call_result(result_id, call_id, content));
        }
        self.end_step();
        // The subagent's error is the inspector's sentence too: the failure's own text (a store
        // or model internal) goes to the log and `runs.error` only.
        let message = failure.user_message(self.thread_language());
        let code: String = failure.code().into();
        self.adapter.close(&mut self.out, Some((&message, &code)));
        let cancelled = matches!(failure, RunFailure::Cancelled);
        let status = if cancelled { "cancelled" } else { "error" };
        // The dialect allows nothing but RUN_FINISHED after RUN_ERROR, so the state goes first.
        let state = self.state(status);
        self.emit(Event::state_snapshot(state));
        let (thread_id, run_id) = (self.info.thread_id.clone(), self.info.run_id.clone());
        let end = self.adapter.failed_end(cancelled);
        if end == FailedEnd::CancelledOutcome {
            let mut finished = Event::RunFinished(RunFinished {
                thread_id,
                run_id,
                outcome: Some(Some(RunOutcome::Cancelled)),
                ..Default::default()
            });
            self.attach_usage(&mut finished);
            self.emit(finished);
            return Ok(());
        }
        let lang = self.thread_language();
        let mut error = Event::run_error(failure.user_message(lang), failure.code());
        self.attach_usage(&mut error);
        self.emit(error);
        if end == FailedEnd::ErrorThenFinished {
            let mut finished = Event::run_finished(&thread_id, &run_id);
            self.attach_usage(&mut finished);
            self.emit(finished);
        }
        Ok(())
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

    fn step(&mut self, name: &'static str) {
        self.adapter.before_step(&mut self.out);
        self.open_step = Some(name);
        self.emit(Event::step_started(name));
    }

    fn end_step(&mut self) {
        if let Some(name) = self.open_step.take() {
            self.emit(Event::step_finished(name));
        }
    }

    /// The STATE_SNAPSHOT: where the run is, and the inspection the thread holds (open
    /// company, pending company choice, findings), read from the thread's messages.
    fn state(&mut self, status: &str) -> Value {
        json!({
            "threadId": self.info.thread_id,
            "runId": self.info.run_id,
            "currentAgent": self.agent,
            "status": status,
            "inspection": self.inspection.read(&self.messages),
            "listening": self.listening,
        })
    }

    /// Marks the event as the dialect does and sends it (or holds it, when it is the last).
    fn emit(&mut self, mut event: Event) {
        self.adapter.stamp(&mut event);
        let last = self.adapter.terminal(&event);
        self.out.send(event, last);
    }
}
