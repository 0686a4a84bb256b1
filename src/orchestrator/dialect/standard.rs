//! The standard AG-UI dialect (`POST /agui`): the client sends the whole conversation each
//! time; a call that needs approval is announced, stored as an interrupt and ends the run with
//! `RUN_FINISHED { outcome: interrupt }`, and a later run answers it in `resume` and starts by
//! settling the call ([`Resumed`]); tools of the client are offered to the agents, and a call
//! to one ends the run until the client's next run brings the result; a specialist's work is
//! framed as a subagent invocation (AG-UI 1.0); a failure stops at RUN_ERROR.

use std::collections::HashSet;
use std::sync::Arc;

use serde_json::{Value, json};
use uuid::Uuid;

use super::{Adapter, Approval, Emit, FailedEnd, Opening, Prepared, RunInfo, Settle, Start};
use crate::orchestrator::approval::{self, Decision};
use crate::orchestrator::llm::ToolSpec;
use crate::orchestrator::llm::prompts::HANDOFF_TOOL;
use crate::orchestrator::store::{
    ApprovalDecision, ApprovalRecord, InterruptRecord, InterruptResolution, StoreError, Turn,
    TurnRequest,
};
use crate::orchestrator::subagent;
use crate::orchestrator::thread::{
    caller_agent, closed_call, last_agent, last_user, message_id, new_run_id, now_millis,
    stored_user_message, unanswered_calls, user_text,
};
use crate::orchestrator::tools::Toolbox;
use crate::orchestrator::{Orchestrator, Outbox, StartError, agents};
use crate::protocol::{
    Dialect, Event, FunctionCall, Interrupt, Message, ResumeEntry, ResumeStatus, RiskLevel,
    RunAgentInput, SubagentStarted, ToolCall, ToolCallStart,
};

/// The `reason` of an interrupt raised for a tool call that needs approval.
pub(crate) const TOOL_CALL_REASON: &str = "tool_call";

/// What is new in the client's conversation, against the stored thread:
/// - open interrupts must all be answered in `resume` (else `InterruptPending`); their calls
///   are settled first by the run, as the interrupted agent;
/// - a `resume` naming only interrupts answered before is a replay: it is acknowledged
///   without a run ([`Acknowledge`]) unless the input also brings something new;
/// - tool messages answering calls of client tools are stored, and that agent carries on;
/// - the last user message is new when the thread does not hold its id;
/// - calls left without a result (a client tool not answered, a cancelled run) get one that
///   says so, so the model always sees every call answered.
///
/// A plain new message (no `resume`, no tool messages, nothing running on the thread here)
/// is one store transaction; anything else reads the thread first.
pub(super) async fn prepare(
    orchestrator: &Arc<Orchestrator>,
    input: RunAgentInput,
    user_id: &str,
    events: &Outbox,
) -> Result<Prepared, StartError> {
    let plain = input.resume.as_ref().is_none_or(Vec::is_empty)
        && !input.messages.iter().any(|m| matches!(m, Message::Tool(_)))
        && !orchestrator.running_for(&input.thread_id, user_id);
    if plain
        && let Some(message) = last_user(&input.messages)
        && let Some(text) = user_text(message)
        && orchestrator.violated_term(&text).is_none()
    {
        let message = stored_user_message(message, text.clone());
        let turn = TurnRequest {
            thread_id: &input.thread_id,
            owner: user_id,
            title_text: &text,
            run_id: input.run_id.as_deref(),
            refuse_open_interrupts: true,
            results: &[],
            keep_open: &[],
            close_call: unanswered_client_call,
            close_approvals: None,
            message: Some(&message),
        };
        match orchestrator.store().begin_turn(&turn).await {
            Ok(Turn::Begun { messages, .. }) => {
                return Ok(Prepared::Run(Box::new(Start {
                    run_id: input.run_id.clone().unwrap_or_else(new_run_id),
                    thread_id: input.thread_id,
                    messages,
                    agent: agents::GENERAL_AGENT,
                    adapter: Box::new(Standard::new(input.tools.unwrap_or_default())),
                })));
            }
            Ok(Turn::InterruptPending(ids)) => return Err(StartError::InterruptPending { ids }),
            Err(StoreError::NotFound(_)) => return Err(StartError::ThreadNotFound),
            Err(e) => return Err(StartError::Store(e)),
            // A resend or a retried run: read the thread and answer as below.
            Ok(Turn::Held | Turn::RunIdInUse) => {}
        }
    }
    prepare_read(orchestrator, input, user_id, events).await
}

/// A call of a client tool the client did not answer in its next run.
fn unanswered_client_call(call_id: &str, name: &str) -> Message {
    closed_call(
        call_id,
        "cancelled",
        format!("`{name}` gaf geen resultaat: de client beantwoordde de aanroep niet."),
    )
}

/// [`prepare`] from the stored thread: its messages and interrupts are read, then the turn
/// is written in one transaction.
async fn prepare_read(
    orchestrator: &Arc<Orchestrator>,
    input: RunAgentInput,
    user_id: &str,
    events: &Outbox,
) -> Result<Prepared, StartError> {
    let store = orchestrator.store();
    let thread_id = input.thread_id.clone();
    let run_id = input.run_id.clone().unwrap_or_else(new_run_id);
    let exists = match store.thread(&thread_id).await {
        Ok(thread) if thread.owner == user_id => true,
        Ok(_) => return Err(StartError::ThreadNotFound),
        Err(StoreError::NotFound(_)) => false,
        Err(e) => return Err(StartError::Store(e)),
    };
    let (stored, interrupts) = if exists {
        let stored = store.messages(&thread_id).await;
        let interrupts = store.interrupts(&thread_id).await;
        (
            stored.map_err(StartError::Store)?,
            interrupts.map_err(StartError::Store)?,
        )
    } else {
        (Vec::new(), Vec::new())
    };

    let resume = input.resume.clone().unwrap_or_default();
    let answered = match_resume(&interrupts, &resume)?;
    let replay = answered.is_empty() && !resume.is_empty();

    let stored_ids: HashSet<String> = stored.iter().filter_map(message_id).collect();
    let waiting_calls = unanswered_calls(&stored);
    let interrupted_calls: Vec<String> = answered
        .iter()
        .map(|r| r.interrupt.tool_call_id.clone())
        .collect();
    let client_results = client_results(&input.messages, &waiting_calls, &interrupted_calls);
    let new_user = last_user(&input.messages)
        .filter(|m| message_id(m).is_none_or(|id| !stored_ids.contains(&id)))
        .and_then(|m| user_text(m).map(|text| (m, text)));

    let acknowledge = |agent| {
        Prepared::Answered(
            Acknowledge {
                thread_id: thread_id.clone(),
                run_id: run_id.clone(),
                agent,
            }
            .send(events),
        )
    };
    if new_user.is_none() && client_results.is_empty() && answered.is_empty() {
        // A retried request (a replayed resume, or the same run again) is answered as done.
        let retried = replay || (exists && store.run(&run_id).await.is_ok());
        return match retried {
            true => Ok(acknowledge(last_agent(&stored))),
            false => Err(StartError::NoUserMessage),
        };
    }
    if let Some((_, text)) = &new_user
        && let Some(term) = orchestrator.violated_term(text)
    {
        return Err(StartError::Moderation { term });
    }

    // Exactly once: of two inputs answering the same interrupts, the second is a replay.
    if !answered.is_empty() && !resolve(orchestrator, &answered, &run_id).await? {
        return Ok(acknowledge(last_agent(&stored)));
    }

    if input.run_id.is_some() {
        orchestrator.check_new_run_id(&run_id).await?;
    }
    orchestrator.stop_thread(&thread_id).await;
    // A user message that comes with answers is stored once the answered calls have
    // results, so that every tool call stays directly followed by its result.
    let user_message = new_user.map(|(message, text)| stored_user_message(message, text));
    let (now, deferred_user) = match answered.is_empty() {
        true => (user_message, None),
        false => (None, user_message),
    };
    let title_text = now
        .as_ref()
        .or(deferred_user.as_ref())
        .and_then(user_text)
        .unwrap_or_default();
    let turn = TurnRequest {
        thread_id: &thread_id,
        owner: user_id,
        title_text: &title_text,
        run_id: None,
        refuse_open_interrupts: false,
        results: &client_results,
        keep_open: &interrupted_calls,
        close_call: unanswered_client_call,
        close_approvals: None,
        message: now.as_ref(),
    };
    let messages = match store.begin_turn(&turn).await {
        Ok(Turn::Begun { messages, .. }) => messages,
        Ok(Turn::Held) => return Err(StartError::NoUserMessage),
        Ok(Turn::RunIdInUse) => return Err(StartError::RunIdInUse),
        Ok(Turn::InterruptPending(ids)) => return Err(StartError::InterruptPending { ids }),
        Err(StoreError::NotFound(_)) => return Err(StartError::ThreadNotFound),
        Err(e) => return Err(StartError::Store(e)),
    };
    let fresh = deferred_user.is_none() && answered.is_empty() && client_results.is_empty();
    // A continuation is answered by the agent that made the calls.
    let agent = if fresh {
        agents::GENERAL_AGENT
    } else {
        let call_id = answered
            .first()
            .map(|r| r.interrupt.tool_call_id.clone())
            .or_else(|| {
                client_results.iter().find_map(|m| match m {
                    Message::Tool(t) => Some(t.tool_call_id.clone()),
                    _ => None,
                })
            });
        call_id
            .and_then(|id| caller_agent(&messages, &id))
            .unwrap_or(agents::GENERAL_AGENT)
    };
    let mut adapter = Standard::new(input.tools.unwrap_or_default());
    adapter.resumed = answered;
    adapter.deferred_user = deferred_user;
    adapter.continuation = !fresh;
    Ok(Prepared::Run(Box::new(Start {
        thread_id,
        run_id,
        messages,
        agent,
        adapter: Box::new(adapter),
    })))
}

/// Marks the interrupts answered by this run; `false` when another run answered them first.
async fn resolve(
    orchestrator: &Orchestrator,
    answered: &[Resumed],
    run_id: &str,
) -> Result<bool, StartError> {
    let now = now_millis() as i64;
    let resolutions: Vec<(String, InterruptResolution)> = answered
        .iter()
        .map(|r| {
            let status = match r.entry.status {
                ResumeStatus::Resolved => "resolved",
                ResumeStatus::Cancelled => "cancelled",
            };
            let resolution = InterruptResolution {
                run_id: run_id.to_owned(),
                status: status.to_owned(),
                payload: r.entry.payload.clone(),
                resolved_at: now,
            };
            (r.interrupt.id.clone(), resolution)
        })
        .collect();
    match orchestrator.store().resolve_interrupts(&resolutions).await {
        Ok(()) => Ok(true),
        Err(StoreError::Conflict(_)) => Ok(false),
        Err(e) => Err(StartError::Store(e)),
    }
}

/// A replayed `resume`: the run it asked for happened already. The client gets an empty run,
/// and nothing on the thread is disturbed (its active run, if any, goes on).
struct Acknowledge {
    thread_id: String,
    run_id: String,
    agent: &'static str,
}

impl Acknowledge {
    /// RUN_STARTED, the state, RUN_FINISHED; returns the run id.
    fn send(self, events: &Outbox) -> String {
        let now = now_millis();
        let state = json!({
            "threadId": self.thread_id,
            "runId": self.run_id,
            "currentAgent": self.agent,
            "status": "completed",
        });
        for event in [
            Event::run_started(&self.thread_id, &self.run_id),
            Event::state_snapshot(state),
            Event::run_finished(&self.thread_id, &self.run_id),
        ] {
            let _ = events.send(&event.with_timestamp(now));
        }
        self.run_id
    }
}

/// An interrupt and the `resume` entry that answers it.
pub(crate) struct Resumed {
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

/// The open interrupts with the entries that answer them: all of them, or an error. No open
/// interrupts: entries must name interrupts of this thread (answered before: a replay).
fn match_resume(
    interrupts: &[InterruptRecord],
    resume: &[ResumeEntry],
) -> Result<Vec<Resumed>, StartError> {
    if let Some(unknown) = resume
        .iter()
        .find(|e| !interrupts.iter().any(|i| i.id == e.interrupt_id))
    {
        return Err(StartError::UnknownInterrupt {
            id: unknown.interrupt_id.clone(),
        });
    }
    let open: Vec<&InterruptRecord> = interrupts
        .iter()
        .filter(|i| i.resolution.is_none())
        .collect();
    if open.is_empty() {
        return Ok(Vec::new());
    }
    if resume.is_empty() {
        return Err(StartError::InterruptPending {
            ids: open.iter().map(|i| i.id.clone()).collect(),
        });
    }
    let missing: Vec<String> = open
        .iter()
        .filter(|i| !resume.iter().any(|e| e.interrupt_id == i.id))
        .map(|i| i.id.clone())
        .collect();
    if !missing.is_empty() {
        return Err(StartError::UnansweredInterrupts { ids: missing });
    }
    open.into_iter()
        .map(|interrupt| {
            let entry = resume
                .iter()
                .find(|e| e.interrupt_id == interrupt.id)
                .expect("checked above")
                .clone();
            check_payload(&interrupt.id, &entry)?;
            Ok(Resumed {
                interrupt: interrupt.clone(),
                entry,
            })
        })
        .collect()
}

/// A `resolved` answer to a tool-call interrupt is `{approved, editedArgs?, feedback?}`.
fn check_payload(id: &str, entry: &ResumeEntry) -> Result<(), StartError> {
    let invalid = |reason: &str| StartError::InvalidResume {
        id: id.to_owned(),
        reason: reason.to_owned(),
    };
    let payload = entry.payload.as_ref();
    if let Some(payload) = payload
        && !payload.is_object()
    {
        return Err(invalid("payload is geen object"));
    }
    let field = |key: &str| payload.and_then(|p| p.get(key));
    if entry.status == ResumeStatus::Resolved && !field("approved").is_some_and(Value::is_boolean) {
        return Err(invalid("`approved` (true of false) ontbreekt"));
    }
    if field("editedArgs").is_some_and(|a| !a.is_object()) {
        return Err(invalid("`editedArgs` is geen object"));
    }
    if field("feedback").is_some_and(|f| !f.is_string()) {
        return Err(invalid("`feedback` is geen tekst"));
    }
    Ok(())
}

/// Tool messages of the input that answer calls waiting in the thread (not those an interrupt
/// settles), one per call.
fn client_results(
    messages: &[Message],
    waiting_calls: &[(String, String)],
    interrupted_calls: &[String],
) -> Vec<Message> {
    let mut results: Vec<Message> = Vec::new();
    let mut answered: HashSet<&str> = HashSet::new();
    for message in messages {
        if let Message::Tool(result) = message
            && waiting_calls
                .iter()
                .any(|(id, _)| *id == result.tool_call_id)
            && !interrupted_calls.contains(&result.tool_call_id)
            && answered.insert(result.tool_call_id.as_str())
        {
            results.push(message.clone());
        }
    }
    results
}

/// A run in the standard dialect.
#[derive(Default)]
pub(crate) struct Standard {
    /// Tools the client executes itself, offered to every agent of the run.
    client_tools: Vec<crate::protocol::Tool>,
    /// Answers to the interrupts of an earlier run: settled first.
    resumed: Vec<Resumed>,
    /// A user message that came with a `resume`: stored once the answered calls have results.
    deferred_user: Option<Message>,
    /// This run continues the previous one (a resume or client tool results): no routing.
    continuation: bool,
    /// Raised by this run, which ends with them.
    interrupts: Vec<Interrupt>,
    /// Calls of client tools made by this run; their results come with the next run.
    client_calls: Vec<String>,
    /// The subagent invocation open now (AG-UI 1.0): its id goes on the events it produces.
    subagent: Option<String>,
    /// A handoff's invocation, opened when the next step starts, so a step never spans two.
    next_subagent: Option<SubagentStarted>,
    /// A handoff back to the general agent: the open invocation ends at the next step.
    subagent_closing: bool,
}

impl Standard {
    fn new(client_tools: Vec<crate::protocol::Tool>) -> Self {
        Self {
            client_tools,
            ..Default::default()
        }
    }

    /// A tool the client offered that is not one of ours (ours win a name clash).
    fn client_tool(&self, toolbox: &Toolbox, name: &str) -> Option<&crate::protocol::Tool> {
        if name == HANDOFF_TOOL || toolbox.get(name).is_some() {
            return None;
        }
        self.client_tools.iter().find(|t| t.name == name)
    }

    /// Ends the open invocation: finished (suspended on the run's interrupts), or failed.
    fn close_subagent(&mut self, out: &mut dyn Emit, failure: Option<(&str, &str)>) {
        let Some(id) = self.subagent.take() else {
            return;
        };
        let interrupts: Vec<String> = self.interrupts.iter().map(|i| i.id.clone()).collect();
        let event = match failure {
            Some((message, code)) => Event::SubagentError(crate::protocol::SubagentError {
                subagent_run_id: id,
                message: message.to_owned(),
                code: Some(code.to_owned()),
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
        out.emit(event);
    }
}

#[async_trait::async_trait]
impl Adapter for Standard {
    fn dialect(&self) -> Dialect {
        Dialect::Standard
    }

    fn follows_run_only(&self) -> bool {
        true
    }

    /// The calls an earlier run was interrupted for, as the user decided, with the decisions
    /// recorded. Only their TOOL_CALL_RESULTs go out: the client saw the calls themselves in
    /// the interrupted run.
    async fn open(
        &mut self,
        run: &RunInfo,
        continued: Option<SubagentStarted>,
    ) -> Result<Opening, StoreError> {
        self.next_subagent = continued;
        let mut settle = Vec::new();
        for answer in std::mem::take(&mut self.resumed) {
            let (decision, edited) = answer.decision(&run.user_id, now_millis() as i64);
            let recorded = run
                .orchestrator
                .store()
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
                Err(e) => return Err(e),
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
            settle.push(Settle {
                call,
                arguments,
                decision,
            });
        }
        let route = settle.is_empty() && !self.continuation;
        Ok(Opening { settle, route })
    }

    fn after_settled(&mut self) -> Option<Message> {
        self.deferred_user.take()
    }

    fn client_tools(&self, toolbox: &Toolbox) -> Vec<ToolSpec> {
        self.client_tools
            .iter()
            .filter_map(|offered| self.client_tool(toolbox, &offered.name))
            .map(|tool| ToolSpec {
                name: tool.name.clone(),
                description: tool.description.clone().unwrap_or_default(),
                parameters: tool
                    .parameters
                    .clone()
                    .unwrap_or_else(|| json!({ "type": "object", "properties": {} })),
            })
            .collect()
    }

    fn client_call(&mut self, toolbox: &Toolbox, call: &ToolCall) -> Option<String> {
        let description = self
            .client_tool(toolbox, &call.function.name)?
            .description
            .clone()
            .unwrap_or_default();
        self.client_calls.push(call.id.clone());
        Some(description)
    }

    /// Stores an interrupt for the call (and the request in the approval log); the run ends
    /// with it once the turn's other calls are done.
    async fn approve(
        &mut self,
        run: &RunInfo,
        _out: &mut dyn Emit,
        agent: &'static str,
        call: &ToolCall,
        arguments: &Value,
        risk: RiskLevel,
        display_name: &str,
        _description: &str,
    ) -> Result<Approval, StoreError> {
        let id = format!("int_{}", Uuid::new_v4().simple());
        let now = now_millis() as i64;
        let timeout = run.orchestrator.config().approval_timeout.as_millis() as i64;
        let risk_name = approval::risk_wire_name(risk);
        let message = approval::reason(agent, display_name, &call.function.name, risk);
        let record = InterruptRecord {
            id: id.clone(),
            thread_id: run.thread_id.clone(),
            run_id: run.run_id.clone(),
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
        let store = run.orchestrator.store();
        store.record_interrupt(&record).await?;
        store
            .record_approval_request(&ApprovalRecord {
                approval_id: id.clone(),
                thread_id: run.thread_id.clone(),
                run_id: run.run_id.clone(),
                tool_call_id: call.id.clone(),
                tool_name: call.function.name.clone(),
                parameters: arguments.clone(),
                risk_level: risk_name.clone(),
                requested_by: run.user_id.clone(),
                requested_at: now,
                decision: None,
            })
            .await?;
        let metadata = [
            ("toolName".to_owned(), json!(call.function.name)),
            ("arguments".to_owned(), arguments.clone()),
            ("riskLevel".to_owned(), json!(risk_name)),
        ];
        self.interrupts.push(Interrupt {
            id,
            reason: record.reason,
            message: Some(message),
            tool_call_id: Some(record.tool_call_id),
            response_schema: Some(record.response_schema),
            expires_at: Some(iso_millis(record.expires_at)),
            metadata: Some(metadata.into_iter().collect()),
            extra: Default::default(),
        });
        Ok(Approval::Deferred)
    }

    /// The events keep to the schema: the tool's names go in `metadata`; the parent is the
    /// message that made the call (after a turn's first call the thread's last message is a
    /// tool result).
    fn frame_call(
        &self,
        start: &mut ToolCallStart,
        messages: &[Message],
        display_name: &str,
        description: &str,
    ) {
        let call_id = &start.tool_call_id;
        start.parent_message_id = messages
            .iter()
            .rev()
            .find(|m| match m {
                Message::Assistant(a) => a.tool_calls.iter().flatten().any(|c| &c.id == call_id),
                _ => false,
            })
            .and_then(message_id)
            .map(Some);
        let names = [
            ("toolDisplayName".to_owned(), json!(display_name)),
            ("toolDescription".to_owned(), json!(description)),
        ];
        start.base.metadata = Some(names.into_iter().collect());
    }

    fn handed_off(&mut self, agent: &'static str, call_id: &str, message_id: Option<String>) {
        self.next_subagent =
            (agent != agents::GENERAL_AGENT).then(|| subagent::started(agent, call_id, message_id));
        // Back to the general agent: the invocation ends at the next step.
        if agent == agents::GENERAL_AGENT {
            self.next_subagent = None;
            self.subagent_closing = true;
        }
    }

    /// A handoff since the last step ends the open invocation and opens the next.
    fn before_step(&mut self, out: &mut dyn Emit) {
        let closing = std::mem::take(&mut self.subagent_closing);
        let Some(next) = self.next_subagent.take() else {
            if closing {
                self.close_subagent(out, None);
            }
            return;
        };
        self.close_subagent(out, None);
        self.subagent = Some(next.subagent_run_id.clone());
        out.emit(Event::SubagentStarted(next));
    }

    fn paused(&self) -> bool {
        !self.interrupts.is_empty() || !self.client_calls.is_empty()
    }

    fn close(&mut self, out: &mut dyn Emit, failure: Option<(&str, &str)>) -> Vec<Interrupt> {
        self.close_subagent(out, failure);
        self.interrupts.clone()
    }

    /// A run that fails after raising interrupts never delivered them; they are closed as
    /// cancelled, so the thread does not wait for answers nobody can give.
    async fn withdraw(&mut self, run: &RunInfo) {
        let answers: Vec<(String, InterruptResolution)> = std::mem::take(&mut self.interrupts)
            .into_iter()
            .map(|interrupt| {
                let resolution = InterruptResolution {
                    run_id: run.run_id.clone(),
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
        let store = run.orchestrator.store();
        if let Err(e) = store.resolve_interrupts(&answers).await {
            tracing::error!(error = %e, run_id = %run.run_id, "could not withdraw interrupts");
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

    /// RUN_ERROR is terminal; AG-UI 1.0: a stopped run is not an error, it finishes with the
    /// cancelled outcome.
    fn failed_end(&self, cancelled: bool) -> FailedEnd {
        match cancelled {
            true => FailedEnd::CancelledOutcome,
            false => FailedEnd::Error,
        }
    }

    fn terminal(&self, event: &Event) -> bool {
        matches!(event, Event::RunFinished(_) | Event::RunError(_))
    }

    fn token_usage(&self) -> bool {
        true
    }

    /// The open invocation's id on the events it produces.
    fn stamp(&self, event: &mut Event) {
        if let Some(id) = &self.subagent
            && subagent::owned(event)
            && let Some(base) = event.base_mut()
        {
            base.extra.insert("subagentRunId".to_owned(), json!(id));
        }
    }
}

/// What a tool-call interrupt expects back in `resume[].payload`.
pub(crate) fn approval_response_schema() -> Value {
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
