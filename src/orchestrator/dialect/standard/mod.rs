//! The standard AG-UI dialect (`POST /agui`): the client sends the whole conversation each
//! time; a call that needs approval is announced, stored as an interrupt and ends the run with
//! `RUN_FINISHED { outcome: interrupt }`, and a later run answers it in `resume` and starts by
//! settling the call ([`Resumed`]); tools of the client are offered to the agents, and a call
//! to one ends the run until the client's next run brings the result; a specialist's work is
//! framed as a subagent invocation (AG-UI 1.0); a failure stops at RUN_ERROR.
//!
//! `prepare.rs` admits a turn; this file is the run's adapter.

pub(super) mod prepare;

use serde_json::{Value, json};
use uuid::Uuid;

use super::{Adapter, Approval, ApprovalAsk, Emit, FailedEnd, Opening, RunInfo, Settle};
use crate::orchestrator::agents;
use crate::orchestrator::approval::{self, Decision};
use crate::orchestrator::llm::ToolSpec;
use crate::orchestrator::llm::prompts::HANDOFF_TOOL;
use crate::orchestrator::store::{
    ApprovalDecision, ApprovalRecord, InterruptRecord, InterruptResolution, StoreError,
};
use crate::orchestrator::subagent;
use crate::orchestrator::thread::{message_id, now_millis};
use crate::orchestrator::tools::Toolbox;
use crate::protocol::{
    Dialect, Event, FunctionCall, Interrupt, Message, ResumeEntry, ResumeStatus, SubagentStarted,
    ToolCall, ToolCallStart,
};

/// The `reason` of an interrupt raised for a tool call that needs approval.
pub(crate) const TOOL_CALL_REASON: &str = "tool_call";

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
                edited_args: None,
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
            edited_args: edited.as_ref().and_then(Value::as_object).cloned(),
        };
        (decision, edited)
    }
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
                        edited_args: edited.clone(),
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
        ask: ApprovalAsk<'_>,
    ) -> Result<Approval, StoreError> {
        let ApprovalAsk {
            agent,
            call,
            arguments,
            risk,
            display_name,
            about,
            ..
        } = ask;
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
        let metadata = about.into_iter().chain([
            ("toolName".to_owned(), json!(call.function.name)),
            ("arguments".to_owned(), arguments.clone()),
            ("riskLevel".to_owned(), json!(risk_name)),
        ]);
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
