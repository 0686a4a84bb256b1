//! A run's tool calls: announced, approved where the policy asks (the dialect decides how),
//! carried out or refused, and their results stored before they go out.

use serde_json::{Value, json};
use uuid::Uuid;

use super::super::agents;
use super::super::approval::{self, Decision};
use super::super::delivery::MadeReport;
use super::super::dialect::{Approval, ApprovalAsk};
use super::super::llm::prompts::HANDOFF_TOOL;
use super::super::store::ApprovalDecision;
use super::super::thread::{closed_call, now_millis, unanswered_calls};
use super::super::tools::{GENERATE_FINAL_REPORT, ToolContext};
use super::{Run, RunFailure};
use crate::protocol::{Event, FunctionCall, Message, RiskLevel, ToolCall, ToolMessage};

impl Run {
    pub(super) async fn call_tool(&mut self, call: ToolCall) -> Result<(), RunFailure> {
        let name = call.function.name.clone();
        let arguments: Value =
            serde_json::from_str(&call.function.arguments).unwrap_or(Value::Null);
        let toolbox = self.info.orchestrator.toolbox();
        if let Some(description) = self.adapter.client_call(toolbox, &call) {
            // The client answers it in a turn of its own, which reads the call from the store.
            self.save().await?;
            self.announce_call(&call, &arguments, &name, &description);
            return Ok(());
        }
        let tool = toolbox.get(&name);
        let (display_name, description) = match (&tool, name.as_str()) {
            (Some(tool), _) => (tool.display_name(), tool.description()),
            (None, HANDOFF_TOOL) => (
                crate::protocol::tools::dutch_name(HANDOFF_TOOL),
                "Geeft het gesprek door aan de juiste specialist.",
            ),
            (None, _) => ("Onbekende tool", "Deze tool bestaat niet."),
        };

        let mut arguments = match &tool {
            Some(tool) => tool.settle(&self.messages, arguments),
            None => arguments,
        };
        let mut risk = approval::risk_level(&name, &arguments);
        // A server configured to ask every time asks at least as for a high-risk tool.
        if tool.as_ref().is_some_and(|tool| tool.requires_approval())
            && !approval::needs_approval(risk)
        {
            risk = RiskLevel::High;
        }
        let decision = if approval::needs_approval(risk) {
            // The request names the call: it is stored before anyone can answer it.
            self.save().await?;
            let approval = self
                .adapter
                .approve(
                    &self.info,
                    &mut self.out,
                    ApprovalAsk {
                        agent: self.agent,
                        call: &call,
                        arguments: &arguments,
                        risk,
                        display_name,
                        description,
                        about: tool
                            .as_ref()
                            .map(|tool| tool.explain(&arguments))
                            .unwrap_or_default(),
                    },
                )
                .await?;
            match approval {
                // Approved with edits: the call runs (and is shown) with the edited arguments;
                // the tool checks them against its schema as any caller's.
                Approval::Decided(decision) => {
                    if let Some(edited) = decision.edited_args.clone().filter(|_| decision.approved)
                    {
                        arguments = Value::Object(edited);
                    }
                    Some(decision)
                }
                Approval::Deferred => {
                    self.announce_call(&call, &arguments, display_name, description);
                    return Ok(());
                }
            }
        } else {
            None
        };
        self.announce_call(&call, &arguments, display_name, description);
        self.settle(call, arguments, decision).await
    }

    /// TOOL_CALL_START, TOOL_CALL_ARGS (the whole JSON) and TOOL_CALL_END; the dialect puts
    /// the tool's Dutch name and description on TOOL_CALL_START.
    fn announce_call(
        &mut self,
        call: &ToolCall,
        arguments: &Value,
        display_name: &str,
        description: &str,
    ) {
        let mut start = Event::tool_call_start(&call.id, &call.function.name);
        if let Event::ToolCallStart(start) = &mut start {
            self.adapter
                .frame_call(start, &self.messages, display_name, description);
        }
        self.emit(start);
        self.announced.insert(call.id.clone());
        self.emit(Event::tool_call_args(&call.id, arguments.to_string()));
        self.emit(Event::tool_call_end(&call.id));
    }

    /// A call that cannot be run: announced like any other, answered with the problem, so the
    /// model reads it and the thread keeps every call answered.
    pub(super) async fn refuse_call(
        &mut self,
        call: ToolCall,
        problem: &str,
    ) -> Result<(), RunFailure> {
        tracing::info!(run_id = %self.info.run_id, tool = %call.function.name, %problem, "refused a tool call of the model");
        self.announce_call(
            &call,
            &json!({}),
            "Ongeldige aanroep",
            "Het taalmodel vroeg een aanroep die niet kan worden uitgevoerd.",
        );
        let error = format!("This call was not carried out: {problem}. Correct it and call again.");
        let content = json!({ "status": "refused", "error": error });
        self.store_and_send_result(&call.id, content, Some(error))
            .await
    }

    /// After a failure: every call of the thread still without a result gets one that says it
    /// was not carried out, and an approval still waiting is decided (rejected by `system`), so
    /// the thread stays valid for strict model servers and the audit log has no open request.
    /// Returns the closed calls that the client saw announced, with their result ids and texts.
    pub(super) async fn close_unanswered_calls(
        &mut self,
        failure: &RunFailure,
        pending_approval: Option<String>,
    ) -> Vec<(String, String, String)> {
        let store = self.info.orchestrator.store().clone();
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
            let message = closed_call(&call_id, why, error);
            if let Message::Tool(result) = &message
                && self.announced.contains(&call_id)
            {
                let result_id = result.id.clone().unwrap_or_default();
                closed.push((result_id, call_id, result.content.clone()));
            }
            self.append(message);
        }
        // With the step's calls themselves, when the failure came before they were saved:
        // before a client sees a closed call's result; otherwise with the run's end.
        if closed.is_empty() {
            return closed;
        }
        if let Err(e) = self.save().await {
            tracing::error!(error = %e, run_id = %self.info.run_id, "could not close the tool calls");
            return Vec::new();
        }
        closed
    }

    /// Executes the call, or records its rejection; stores and sends the result, and hands over
    /// when the call was a handoff.
    pub(super) async fn settle(
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
                ..
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
        // Told before the result goes out: whoever sees the report can already ask how its
        // mail goes.
        if name == GENERATE_FINAL_REPORT
            && error.is_none()
            && let Some(report_id) = content.get("reportId").and_then(Value::as_str)
        {
            self.info
                .orchestrator
                .report_made(MadeReport {
                    report_id: report_id.to_owned(),
                    thread_id: self.info.thread_id.clone(),
                    user_id: self.info.user_id.clone(),
                })
                .await;
        }
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
            let state = self.state("processing");
            self.emit(Event::state_snapshot(state));
            let message_id = self.caller_message_id(&call.id);
            self.adapter.handed_off(agent, &call.id, message_id);
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
        self.append(message);
        self.save().await?;
        self.emit(Event::tool_call_result(result_id, call_id, content));
        Ok(())
    }

    /// Runs a tool; its failure is a result the agent reads, not a failed run.
    async fn execute_tool(&mut self, name: &str, arguments: &Value) -> (Value, Option<String>) {
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
        let orchestrator = &self.info.orchestrator;
        let Some(tool) = orchestrator.toolbox().get(name) else {
            let error = format!("unknown tool `{name}`");
            return (json!({ "error": error }), Some(error));
        };
        // Two key lookups for the tool that names the person and the conversation (the
        // report); a store that cannot answer leaves them to the ids.
        let store = orchestrator.store();
        let (user_name, thread_title) = if tool.reads_names() {
            let user_name = store.user_name(&self.info.user_id).await.ok().flatten();
            let thread_title = store
                .thread(&self.info.thread_id)
                .await
                .ok()
                .map(|thread| thread.title)
                .filter(|title| !title.trim().is_empty());
            (user_name, thread_title)
        } else {
            (None, None)
        };
        let inspection = self.inspection.read(&self.messages);
        let context = ToolContext {
            thread_id: &self.info.thread_id,
            user_id: &self.info.user_id,
            messages: &self.messages,
            reports_dir: &orchestrator.config().reports_dir,
            user_name: user_name.as_deref(),
            thread_title: thread_title.as_deref(),
            photos: Some(store.as_ref()),
            inspection: Some(&inspection),
        };
        match tool.call(&context, arguments).await {
            Ok(value) => {
                // Written with the call's result (`Run::save`), in its transaction.
                if let Some(title) = company_title(name, &value) {
                    self.company_title = Some(title);
                }
                (value, None)
            }
            Err(e) => {
                let error = e.to_string();
                (json!({ "error": error }), Some(error))
            }
        }
    }
}

/// "Bakkerij Fictief, Amsterdam": the title of a thread whose company was just opened (looked
/// up by KVK number, or one clear match of a name), for the thread list; `None` for any other
/// call or an answer that asks which company is meant.
fn company_title(tool: &str, result: &Value) -> Option<String> {
    let result = match tool {
        "get_company_info" => result,
        "check_company_exists" if result.get("decision")?.as_str()? == "match" => {
            result.get("company")?
        }
        _ => return None,
    };
    let name = result.get("name")?.as_str()?.trim();
    if name.is_empty() {
        return None;
    }
    Some(
        match result.get("city").and_then(Value::as_str).map(str::trim) {
            Some(city) if !city.is_empty() => format!("{name}, {city}"),
            _ => name.to_owned(),
        },
    )
}

pub(super) fn tool_call(id: String, name: String, arguments: String) -> ToolCall {
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
