//! The chat as plain Rust: [`ChatState::apply`] folds one server event into it and says what
//! changed, so the signal layer (`ui::chat`) touches only that. No Leptos, no browser: the
//! table tests in `tests.rs` run natively.
//!
//! The timeline is a list of [`Item`]s in arrival order. A streamed delta appends to one
//! message's text (amortised O(1)) and reports that message's index in [`Changes::delta`].

mod log;
#[cfg(test)]
mod tests;
mod verification;

use std::collections::HashMap;

use serde_json::Value;

pub use log::{CAPACITY as LOG_CAPACITY, EventLog, LogChange, LogEntry};
pub use verification::Verification;

use crate::protocol::agora::{CatchupMode, Resumed};
use crate::protocol::{
    AgoraError, AgoraEvent, Event, Message, Role, ToolApprovalRequest, apply_patch,
};
use crate::protocol::{ErrorCode, Lang};

/// One entry of the timeline. `key` is unique for the page's lifetime (the view's list key).
#[derive(Debug, Clone, PartialEq)]
pub struct Item {
    pub key: u64,
    pub kind: ItemKind,
}

#[derive(Debug, Clone, PartialEq)]
pub enum ItemKind {
    /// What the inspector typed. `queued` while it waits for a connection.
    /// `photos`: where its evidence photos are shown from (`/photos/<id>` once stored, the
    /// shrunk JPEG's data URL while it is being sent).
    User {
        text: String,
        queued: bool,
        photos: Vec<String>,
    },
    /// An agent's answer; `agent` is the agent id (`TEXT_MESSAGE_START.name`).
    Assistant {
        id: String,
        agent: Option<String>,
        text: String,
        streaming: bool,
    },
    /// Consecutive tool calls, as indexes into [`ChatState::tool_calls`].
    Tools { calls: Vec<usize> },
    /// A generated report, from a tool result with a `downloadUrl`.
    Report {
        call: usize,
        url: String,
        report_id: Option<String>,
        form: Option<FormSummary>,
    },
    /// `RUN_ERROR` or `agora:error`: shown as an error, never as an answer.
    Error(ErrorItem),
}

/// The HAP form's summary a report result carries (`form`): each section with its status, the
/// completion, and where the JSON is; shown on the report card.
#[derive(Debug, Clone, PartialEq)]
pub struct FormSummary {
    /// (section title, status), the official Dutch terms.
    pub sections: Vec<(String, String)>,
    pub completion: Option<f64>,
    pub json_url: Option<String>,
    /// The violations with evidence photos (issue 37): "2. Rauwe vis …" and the addresses
    /// of its photos (`/photos/<id>` only), in the report's order.
    pub evidence: Vec<(String, Vec<String>)>,
}

impl FormSummary {
    fn from_result(result: &Value) -> Option<FormSummary> {
        let form = result.get("form")?;
        let sections = form
            .get("sections")?
            .as_array()?
            .iter()
            .filter_map(|s| {
                Some((
                    s.get("title")?.as_str()?.to_owned(),
                    s.get("status")?.as_str()?.to_owned(),
                ))
            })
            .collect();
        Some(FormSummary {
            sections,
            completion: form.get("completion").and_then(Value::as_f64),
            json_url: result
                .get("jsonUrl")
                .and_then(Value::as_str)
                .filter(|u| safe_link(u))
                .map(str::to_owned),
            evidence: evidence(result),
        })
    }
}

/// A report result's `evidence`: each violation with photos, as its number and words and the
/// addresses of its stored photos; anything but a stored photo's address is left out.
fn evidence(result: &Value) -> Vec<(String, Vec<String>)> {
    let Some(Value::Array(violations)) = result.get("evidence") else {
        return Vec::new();
    };
    violations
        .iter()
        .filter_map(|v| {
            let photos: Vec<String> = v
                .get("photos")?
                .as_array()?
                .iter()
                .filter_map(Value::as_str)
                .filter(|u| crate::protocol::photo_id(u).is_some())
                .map(str::to_owned)
                .collect();
            let number = v.get("number").and_then(Value::as_u64).unwrap_or_default();
            let words = v
                .get("description")
                .and_then(Value::as_str)
                .unwrap_or_default();
            (!photos.is_empty()).then(|| (format!("{number}. {words}"), photos))
        })
        .collect()
}

#[derive(Debug, Clone, PartialEq)]
pub struct ErrorItem {
    pub source: ErrorSource,
    pub code: Option<String>,
    pub message: String,
    /// `details` as compact JSON, for `agora:error`.
    pub details: Option<String>,
    /// The inspector's last message, when the error is one that sending it again may cure
    /// ([`ErrorCode::worth_retrying`]): the notice offers to send it again.
    pub resend: Option<String>,
}

impl ErrorItem {
    pub fn is_moderation(&self) -> bool {
        self.code.as_deref() == Some("moderation_violation")
    }

    /// A run the user stopped: told, but not as a failure.
    pub fn is_cancel(&self) -> bool {
        self.code.as_deref() == Some("cancelled")
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorSource {
    RunError,
    Agora,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ToolStatus {
    /// Arguments are arriving.
    #[default]
    Streaming,
    /// Arguments complete; waiting for the result.
    Running,
    Done,
    Failed,
    Rejected,
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct ToolCall {
    pub id: String,
    pub name: String,
    /// `toolDisplayName` from `TOOL_CALL_START` (AGORA); absent for history.
    pub display_name: Option<String>,
    pub description: Option<String>,
    /// The agent that was current when the call started.
    pub agent: Option<String>,
    /// JSON text, as streamed.
    pub args: String,
    pub status: ToolStatus,
    pub result: Option<String>,
    /// Unix milliseconds from the events, for the duration.
    pub started_at: Option<u64>,
    pub finished_at: Option<u64>,
}

impl ToolCall {
    pub fn duration_ms(&self) -> Option<u64> {
        Some(self.finished_at?.saturating_sub(self.started_at?))
    }
}

/// The active run.
#[derive(Debug, Clone, PartialEq)]
pub struct RunInfo {
    pub run_id: String,
    pub thread_id: String,
}

/// What the status line, the composer and the agents panel need, derived in O(1).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RunView {
    pub running: bool,
    pub step: Option<String>,
    pub agent: Option<String>,
    /// Display name (else name) of the tool call that runs now.
    pub tool: Option<String>,
    pub awaiting_approval: bool,
    /// After a reconnect, until what was missed has been shown.
    pub catching_up: bool,
    /// Messages the inspector sent during this run, to go once it ends, oldest first.
    pub held: Vec<String>,
    /// A message was sent and its run has not started yet: the next one is held too.
    pub sending: bool,
    /// The thread is in listen mode (the shared state's `listening`): messages are recorded,
    /// not answered, until "AGORA".
    pub listening: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AgentActivity {
    Idle,
    Active,
    Executing,
}

impl RunView {
    pub fn activity(&self, agent_id: &str) -> AgentActivity {
        if !self.running || self.agent.as_deref() != Some(agent_id) {
            AgentActivity::Idle
        } else if self.step.as_deref() == Some("executing_tools") {
            AgentActivity::Executing
        } else {
            AgentActivity::Active
        }
    }
}

/// What one event or action changed; the signal layer updates exactly this.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Changes {
    /// The run, step, agent or approvals changed: recompute [`ChatState::run_view`].
    pub run: bool,
    /// The whole timeline was replaced.
    pub reset: bool,
    /// Items from this index on are new.
    pub appended_from: Option<usize>,
    /// These existing items changed otherwise (a chip added, a message finished, sent).
    pub updated: Vec<usize>,
    /// Append this event's delta to the text of this (existing) item.
    pub delta: Option<usize>,
    /// These tool calls changed; a new one is past the signal layer's list.
    pub tools: Vec<usize>,
    /// The pending approvals changed.
    pub approvals: bool,
}

impl Changes {
    pub fn is_empty(&self) -> bool {
        *self == Changes::default()
    }

    fn appended(&mut self, index: usize) {
        if self.appended_from.is_none() {
            self.appended_from = Some(index);
        }
    }

    fn updated(&mut self, index: usize) {
        // An item appended by this same event is rendered whole anyway.
        if self.appended_from.is_none_or(|from| index < from) && !self.updated.contains(&index) {
            self.updated.push(index);
        }
    }
}

/// The state of the open thread.
#[derive(Debug, Clone, Default)]
pub struct ChatState {
    pub thread_id: String,
    pub items: Vec<Item>,
    pub tool_calls: Vec<ToolCall>,
    /// `AGORA` shared state (`STATE_SNAPSHOT`, `STATE_DELTA`).
    pub shared: Value,
    pub run: Option<RunInfo>,
    pub step: Option<String>,
    pub current_agent: Option<String>,
    /// Approval requests waiting for the inspector, oldest first.
    pub approvals: Vec<ToolApprovalRequest>,
    /// The number of the last event of this thread shown: after a lost connection the page
    /// asks for what came after it (`agora:resume`).
    pub seq: Option<u64>,
    /// While the page catches up after a reconnect: the number it catches up to.
    pub catching_up: Option<u64>,
    /// Messages sent while a run of this thread was active (Enter during an answer): shown
    /// as waiting, and sent one by one as runs end ([`ChatState::release_held`]).
    pub held: Vec<String>,
    /// A message went out and its run has not started yet (`RUN_STARTED` comes a round trip
    /// later, longer on a slow link). The server stops a thread's running run for a new
    /// message, so one typed in this gap is held like one typed during the answer.
    pub sending: bool,
    messages: HashMap<String, usize>,
    calls: HashMap<String, usize>,
    next_key: u64,
}

/// Whether an event belongs to a run, and so is dropped while the active run is another
/// thread's (after a thread switch, until it finishes).
enum Scope {
    RunBound,
    /// Opens or closes runs, or answers this page whatever runs.
    Always,
}

fn scope(event: &Event) -> Scope {
    match event {
        Event::RunStarted(_) | Event::RunFinished(_) | Event::RunError(_) => Scope::Always,
        Event::MessagesSnapshot(_) => Scope::Always,
        Event::StepStarted(_)
        | Event::StepFinished(_)
        | Event::TextMessageStart(_)
        | Event::TextMessageContent(_)
        | Event::TextMessageEnd(_)
        | Event::TextMessageChunk(_)
        | Event::ToolCallStart(_)
        | Event::ToolCallArgs(_)
        | Event::ToolCallEnd(_)
        | Event::ToolCallChunk(_)
        | Event::ToolCallResult(_)
        | Event::StateSnapshot(_)
        | Event::StateDelta(_)
        | Event::ActivitySnapshot(_)
        | Event::ActivityDelta(_)
        | Event::ReasoningStart(_)
        | Event::ReasoningMessageStart(_)
        | Event::ReasoningMessageContent(_)
        | Event::ReasoningMessageEnd(_)
        | Event::ReasoningMessageChunk(_)
        | Event::ReasoningEnd(_)
        | Event::ReasoningEncryptedValue(_)
        | Event::SubagentStarted(_)
        | Event::SubagentFinished(_)
        | Event::SubagentError(_)
        | Event::Raw(_)
        | Event::Custom(_)
        | Event::Unknown(_) => Scope::RunBound,
    }
}

impl ChatState {
    pub fn new(thread_id: impl Into<String>) -> Self {
        ChatState {
            thread_id: thread_id.into(),
            shared: Value::Null,
            ..Default::default()
        }
    }

    /// The active run belongs to another thread than the one shown.
    fn foreign_run(&self) -> bool {
        self.run
            .as_ref()
            .is_some_and(|run| !run.thread_id.is_empty() && run.thread_id != self.thread_id)
    }

    pub fn running(&self) -> bool {
        self.run.is_some() && !self.foreign_run()
    }

    pub fn run_view(&self) -> RunView {
        let running = self.running();
        let tool = running
            .then(|| {
                self.tool_calls
                    .iter()
                    .rev()
                    .find(|c| matches!(c.status, ToolStatus::Streaming | ToolStatus::Running))
            })
            .flatten()
            .map(|c| c.display_name.clone().unwrap_or_else(|| c.name.clone()));
        RunView {
            running,
            step: self.step.clone().filter(|_| running),
            agent: self.current_agent.clone(),
            tool,
            awaiting_approval: !self.approvals.is_empty(),
            catching_up: self.catching_up.is_some(),
            held: self.held.clone(),
            sending: self.sending,
            listening: self.shared["listening"].as_bool().unwrap_or(false),
        }
    }

    pub fn tool_call(&self, id: &str) -> Option<&ToolCall> {
        self.calls.get(id).map(|&i| &self.tool_calls[i])
    }

    fn push(&mut self, kind: ItemKind, changes: &mut Changes) -> usize {
        let index = self.items.len();
        self.next_key += 1;
        self.items.push(Item {
            key: self.next_key,
            kind,
        });
        changes.appended(index);
        index
    }

    fn start_message(
        &mut self,
        id: &str,
        role: Role,
        name: Option<&str>,
        changes: &mut Changes,
    ) -> usize {
        if let Some(&index) = self.messages.get(id) {
            return index;
        }
        let kind = match role {
            Role::User => ItemKind::User {
                text: String::new(),
                queued: false,
                photos: Vec::new(),
            },
            Role::Assistant
            | Role::Developer
            | Role::System
            | Role::Tool
            | Role::Activity
            | Role::Reasoning => ItemKind::Assistant {
                id: id.to_owned(),
                agent: name
                    .map(str::to_owned)
                    .or_else(|| self.current_agent.clone()),
                text: String::new(),
                streaming: true,
            },
        };
        let index = self.push(kind, changes);
        self.messages.insert(id.to_owned(), index);
        index
    }

    fn append_text(&mut self, id: &str, delta: &str, changes: &mut Changes) {
        if delta.is_empty() {
            return;
        }
        // Content for a message that never started: keep the text rather than lose it.
        let index = self.start_message(id, Role::Assistant, None, changes);
        let text = match &mut self.items[index].kind {
            ItemKind::Assistant { text, .. } | ItemKind::User { text, .. } => text,
            ItemKind::Tools { .. } | ItemKind::Report { .. } | ItemKind::Error(_) => return,
        };
        text.push_str(delta);
        if changes.appended_from.is_none_or(|from| index < from) {
            changes.delta = Some(index);
        }
    }

    fn end_message(&mut self, id: &str, changes: &mut Changes) {
        let Some(&index) = self.messages.get(id) else {
            return;
        };
        if let ItemKind::Assistant { streaming, .. } = &mut self.items[index].kind
            && *streaming
        {
            *streaming = false;
            changes.updated(index);
        }
    }

    /// Closes every message still streaming (the run ended or the connection dropped).
    fn end_all_messages(&mut self, changes: &mut Changes) {
        for (index, item) in self.items.iter_mut().enumerate() {
            if let ItemKind::Assistant { streaming, .. } = &mut item.kind
                && *streaming
            {
                *streaming = false;
                changes.updated(index);
            }
        }
    }

    fn start_tool(
        &mut self,
        id: &str,
        name: &str,
        extra: Option<&serde_json::Map<String, Value>>,
        timestamp: Option<u64>,
        changes: &mut Changes,
    ) -> usize {
        if let Some(&index) = self.calls.get(id) {
            return index;
        }
        let text = |key: &str| {
            extra
                .and_then(|e| e.get(key))
                .and_then(Value::as_str)
                .map(str::to_owned)
        };
        let index = self.tool_calls.len();
        self.tool_calls.push(ToolCall {
            id: id.to_owned(),
            name: name.to_owned(),
            display_name: text("toolDisplayName"),
            description: text("toolDescription"),
            agent: self.current_agent.clone(),
            args: String::new(),
            status: ToolStatus::Streaming,
            result: None,
            started_at: timestamp,
            finished_at: None,
        });
        self.calls.insert(id.to_owned(), index);
        changes.tools.push(index);
        changes.run = true;
        // Consecutive calls share one row of chips.
        let last = self.items.len().checked_sub(1);
        match last.map(|i| (i, &mut self.items[i].kind)) {
            Some((i, ItemKind::Tools { calls })) => {
                calls.push(index);
                changes.updated(i);
            }
            Some(_) | None => {
                self.push(ItemKind::Tools { calls: vec![index] }, changes);
            }
        }
        index
    }

    fn tool_changed(&self, index: usize, changes: &mut Changes) {
        if !changes.tools.contains(&index) {
            changes.tools.push(index);
        }
    }

    fn finish_tool(
        &mut self,
        index: usize,
        content: &str,
        error: Option<&str>,
        timestamp: Option<u64>,
        changes: &mut Changes,
    ) {
        let parsed: Option<Value> = serde_json::from_str(content).ok();
        let field = |key: &str| parsed.as_ref().and_then(|v| v.get(key));
        let status = if field("status").and_then(Value::as_str) == Some("rejected") {
            ToolStatus::Rejected
        } else if error.is_some() || field("error").is_some_and(|e| !e.is_null()) {
            ToolStatus::Failed
        } else {
            ToolStatus::Done
        };
        let call = &mut self.tool_calls[index];
        call.status = status;
        call.result = Some(match (content.is_empty(), error) {
            (true, Some(error)) => error.to_owned(),
            _ => content.to_owned(),
        });
        call.finished_at = timestamp;
        self.tool_changed(index, changes);
        changes.run = true;
        if status == ToolStatus::Done
            && let Some(url) = field("downloadUrl").and_then(Value::as_str)
            && safe_link(url)
        {
            let report_id = field("reportId").and_then(Value::as_str).map(str::to_owned);
            let form = parsed.as_ref().and_then(FormSummary::from_result);
            self.push(
                ItemKind::Report {
                    call: index,
                    url: url.to_owned(),
                    report_id,
                    form,
                },
                changes,
            );
        }
    }

    fn error(&mut self, mut item: ErrorItem, changes: &mut Changes) {
        let retry = item
            .code
            .as_deref()
            .and_then(ErrorCode::parse)
            .is_some_and(ErrorCode::worth_retrying);
        item.resend = retry
            .then(|| {
                self.items.iter().rev().find_map(|item| match &item.kind {
                    ItemKind::User { text, .. } => Some(text.clone()),
                    _ => None,
                })
            })
            .flatten();
        self.push(ItemKind::Error(item), changes);
    }

    fn read_shared(&mut self) {
        if let Some(agent) = self.shared.get("currentAgent").and_then(Value::as_str) {
            self.current_agent = Some(agent.to_owned());
        }
    }

    /// Folds one server event into the state.
    pub fn apply(&mut self, event: &Event) -> Changes {
        let mut changes = Changes::default();
        if self.foreign_run() {
            match scope(event) {
                Scope::RunBound => return changes,
                Scope::Always => {}
            }
        }
        self.count(event, &mut changes);
        match event {
            Event::RunStarted(run) => {
                self.sending = false;
                self.run = Some(RunInfo {
                    run_id: run.run_id.clone(),
                    thread_id: run.thread_id.clone(),
                });
                self.step = None;
                changes.run = true;
            }
            Event::RunFinished(_) => {
                self.sending = false;
                let foreign = self.foreign_run();
                self.run = None;
                self.step = None;
                if !foreign {
                    self.end_all_messages(&mut changes);
                    self.approvals.clear();
                    changes.approvals = true;
                }
                changes.run = true;
            }
            Event::RunError(error) => {
                self.sending = false;
                let foreign = self.foreign_run();
                self.run = None;
                self.step = None;
                changes.run = true;
                if !foreign {
                    self.end_all_messages(&mut changes);
                    self.approvals.clear();
                    changes.approvals = true;
                    let item = ErrorItem {
                        source: ErrorSource::RunError,
                        code: error.code.clone(),
                        message: error.message.clone(),
                        details: None,
                        resend: None,
                    };
                    self.error(item, &mut changes);
                }
            }
            Event::StepStarted(step) => {
                self.step = Some(step.step_name.clone());
                changes.run = true;
            }
            Event::StepFinished(step) => {
                if self.step.as_deref() == Some(step.step_name.as_str()) {
                    self.step = None;
                    changes.run = true;
                }
            }
            Event::TextMessageStart(start) => {
                self.start_message(
                    &start.message_id,
                    start.role,
                    start.name.as_deref(),
                    &mut changes,
                );
            }
            Event::TextMessageContent(content) => {
                self.append_text(&content.message_id, &content.delta, &mut changes);
            }
            Event::TextMessageEnd(end) => self.end_message(&end.message_id, &mut changes),
            Event::TextMessageChunk(chunk) => {
                // A chunk without id continues the last message.
                let id = chunk.message_id.clone().or_else(|| {
                    self.items.iter().rev().find_map(|item| {
                        if let ItemKind::Assistant { id, .. } = &item.kind {
                            Some(id.clone())
                        } else {
                            None
                        }
                    })
                });
                if let Some(id) = id {
                    let role = chunk.role.unwrap_or_default();
                    self.start_message(&id, role, chunk.name.as_deref(), &mut changes);
                    if let Some(delta) = &chunk.delta {
                        self.append_text(&id, delta, &mut changes);
                    }
                }
            }
            Event::ToolCallStart(start) => {
                self.start_tool(
                    &start.tool_call_id,
                    &start.tool_call_name,
                    Some(&start.base.extra),
                    start.base.timestamp,
                    &mut changes,
                );
            }
            Event::ToolCallArgs(args) => {
                if let Some(&index) = self.calls.get(&args.tool_call_id) {
                    self.tool_calls[index].args.push_str(&args.delta);
                    self.tool_changed(index, &mut changes);
                }
            }
            Event::ToolCallEnd(end) => {
                if let Some(&index) = self.calls.get(&end.tool_call_id)
                    && self.tool_calls[index].status == ToolStatus::Streaming
                {
                    self.tool_calls[index].status = ToolStatus::Running;
                    self.tool_changed(index, &mut changes);
                }
            }
            Event::ToolCallChunk(chunk) => {
                if let Some(id) = &chunk.tool_call_id {
                    let name = chunk.tool_call_name.as_deref().unwrap_or("");
                    let index = self.start_tool(
                        id,
                        name,
                        Some(&chunk.base.extra),
                        chunk.base.timestamp,
                        &mut changes,
                    );
                    if let Some(delta) = &chunk.delta {
                        self.tool_calls[index].args.push_str(delta);
                        self.tool_changed(index, &mut changes);
                    }
                }
            }
            Event::ToolCallResult(result) => {
                // A result for a call never announced still shows, under an unknown name.
                let index = self.start_tool(
                    &result.tool_call_id,
                    "",
                    None,
                    result.base.timestamp,
                    &mut changes,
                );
                self.finish_tool(
                    index,
                    &result.content,
                    None,
                    result.base.timestamp,
                    &mut changes,
                );
            }
            Event::StateSnapshot(snapshot) => {
                self.shared = snapshot.snapshot.clone();
                self.read_shared();
                changes.run = true;
            }
            Event::StateDelta(delta) => {
                // A patch that does not apply leaves the state as it was; the log shows it.
                if apply_patch(&mut self.shared, &delta.delta).is_ok() {
                    self.read_shared();
                    changes.run = true;
                }
            }
            Event::MessagesSnapshot(snapshot) => self.load(&snapshot.messages, &mut changes),
            Event::Custom(custom) => match crate::protocol::wire::agora_event(custom) {
                Some(Ok(AgoraEvent::ToolApprovalRequest(request))) => {
                    if !self
                        .approvals
                        .iter()
                        .any(|a| a.approval_id == request.approval_id)
                    {
                        self.approvals.push(request);
                        changes.approvals = true;
                        changes.run = true;
                    }
                }
                // The server refuses to let a socket follow a thread it does not know (issue 31:
                // an unknown id is followed by nobody). For a resume that only means the thread
                // is new (or not this user's, which looks the same): nothing to say; a refused
                // message says so itself.
                Some(Ok(AgoraEvent::Error(error))) if refuses_resume(&error) => {}
                // A refused message starts no run: nothing waits for one any more.
                Some(Ok(AgoraEvent::Error(error))) => {
                    if std::mem::take(&mut self.sending) {
                        changes.run = true;
                    }
                    let item = agora_error(&error);
                    self.error(item, &mut changes);
                }
                Some(Ok(AgoraEvent::Resumed(resumed))) => self.resumed(&resumed, &mut changes),
                // Speech, and events only a client sends: nothing to show.
                Some(Ok(
                    AgoraEvent::SpokenTextStart(_)
                    | AgoraEvent::SpokenTextContent(_)
                    | AgoraEvent::SpokenTextEnd(_)
                    | AgoraEvent::SpokenTextError(_)
                    | AgoraEvent::ToolApprovalResponse(_)
                    | AgoraEvent::CancelRun(_)
                    | AgoraEvent::HistoryRequest(_)
                    | AgoraEvent::Resume(_),
                )) => {}
                // Malformed or unknown custom events: the raw log shows them.
                Some(Err(_)) | None => {}
            },
            // Not shown in the timeline; the raw event log lists them.
            Event::ActivitySnapshot(_)
            | Event::ActivityDelta(_)
            | Event::ReasoningStart(_)
            | Event::ReasoningMessageStart(_)
            | Event::ReasoningMessageContent(_)
            | Event::ReasoningMessageEnd(_)
            | Event::ReasoningMessageChunk(_)
            | Event::ReasoningEnd(_)
            | Event::ReasoningEncryptedValue(_)
            // AGORA's `/ws` hands off within the run; subagent invocations are the standard
            // dialect's.
            | Event::SubagentStarted(_)
            | Event::SubagentFinished(_)
            | Event::SubagentError(_)
            | Event::Raw(_)
            | Event::Unknown(_) => {}
        }
        changes
    }

    /// Keeps the number of an event of the shown thread, and ends catching up once it
    /// reaches where the server said the catch-up ends.
    fn count(&mut self, event: &Event, changes: &mut Changes) {
        let Some(seq) = event.seq() else {
            return;
        };
        let thread = match event {
            Event::RunStarted(run) => Some(run.thread_id.as_str()),
            Event::RunFinished(run) => Some(run.thread_id.as_str()),
            _ => None,
        };
        if thread.is_some_and(|t| t != self.thread_id) || self.foreign_run() {
            return;
        }
        self.seq = Some(self.seq.map_or(seq, |s| s.max(seq)));
        if self.catching_up.is_some_and(|until| seq >= until) {
            self.catching_up = None;
            changes.run = true;
        }
    }

    /// `agora:resumed`: what the server sends first after a resume. A replay brings the
    /// missed events, the run's end among them. A snapshot without a live run brings nothing
    /// more: whatever was open ends here, and a run a restart cut off says so.
    fn resumed(&mut self, resumed: &Resumed, changes: &mut Changes) {
        if resumed.thread_id != self.thread_id {
            return;
        }
        let running = resumed.running;
        // After a reconnect the server says whether a run goes on; a message lost with the
        // connection starts none, and nothing may wait for it.
        self.sending = false;
        let last_seq = Some(resumed.last_seq);
        let snapshot = resumed.mode == CatchupMode::Snapshot;
        if snapshot {
            // A snapshot follows: numbering starts again from what it replays.
            self.seq = None;
        }
        changes.run = true;
        if running || !snapshot {
            self.catching_up = last_seq.filter(|&last| self.seq.is_none_or(|seen| seen < last));
            return;
        }
        self.catching_up = None;
        if self.run.is_some() {
            self.run = None;
            self.step = None;
            self.end_all_messages(changes);
            self.approvals.clear();
            changes.approvals = true;
        }
        if resumed
            .last_run
            .as_ref()
            .is_some_and(|run| run.status == "interrupted")
        {
            let item = ErrorItem {
                source: ErrorSource::RunError,
                code: Some(ErrorCode::Interrupted.into()),
                message: ErrorCode::Interrupted.text(Lang::Nl).to_owned(),
                details: None,
                resend: None,
            };
            self.error(item, changes);
        }
    }

    /// Replaces the timeline with a thread's stored messages (`MESSAGES_SNAPSHOT`). Messages
    /// still waiting for the connection stay at the end: the server has not seen them.
    fn load(&mut self, messages: &[Message], changes: &mut Changes) {
        let queued: Vec<Item> = self
            .items
            .drain(..)
            .filter(|item| matches!(item.kind, ItemKind::User { queued: true, .. }))
            .collect();
        self.tool_calls.clear();
        self.messages.clear();
        self.calls.clear();
        let mut scratch = Changes::default();
        for message in messages {
            match message {
                Message::User(user) => {
                    let text = user.content.text();
                    let index = self.push(
                        ItemKind::User {
                            text,
                            queued: false,
                            photos: user
                                .content
                                .photo_ids()
                                .map(crate::protocol::photo_url)
                                .collect(),
                        },
                        &mut scratch,
                    );
                    if let Some(id) = &user.id {
                        self.messages.insert(id.clone(), index);
                    }
                }
                Message::Assistant(assistant) => {
                    let agent = assistant.name.clone();
                    if let Some(content) = assistant.content.as_deref().filter(|c| !c.is_empty()) {
                        let id = assistant.id.clone().unwrap_or_default();
                        let index = self.push(
                            ItemKind::Assistant {
                                id: id.clone(),
                                agent: agent.clone(),
                                text: content.to_owned(),
                                streaming: false,
                            },
                            &mut scratch,
                        );
                        self.messages.insert(id, index);
                    }
                    let previous = std::mem::replace(&mut self.current_agent, agent);
                    for call in assistant.tool_calls.iter().flatten() {
                        let index = self.start_tool(
                            &call.id,
                            &call.function.name,
                            None,
                            None,
                            &mut scratch,
                        );
                        self.tool_calls[index].args = call.function.arguments.clone();
                        self.tool_calls[index].status = ToolStatus::Running;
                    }
                    self.current_agent = previous;
                }
                Message::Tool(tool) => {
                    let index = self.start_tool(&tool.tool_call_id, "", None, None, &mut scratch);
                    self.finish_tool(
                        index,
                        &tool.content,
                        tool.error.as_deref(),
                        None,
                        &mut scratch,
                    );
                }
                Message::Developer(_)
                | Message::System(_)
                | Message::Activity(_)
                | Message::Reasoning(_) => {}
            }
        }
        // A stored call without a result was cut off (server stopped mid-run).
        for call in &mut self.tool_calls {
            if matches!(call.status, ToolStatus::Streaming | ToolStatus::Running) {
                call.status = ToolStatus::Failed;
            }
        }
        for item in queued {
            self.items.push(item);
        }
        self.approvals.clear();
        *changes = Changes {
            reset: true,
            run: true,
            approvals: true,
            ..Changes::default()
        };
    }

    /// The inspector sent a message; `queued` when there is no connection yet.
    pub fn push_user(&mut self, text: String, queued: bool) -> Changes {
        self.push_user_with_photos(text, Vec::new(), queued)
    }

    /// [`Self::push_user`] with the message's photos (where they are shown from).
    pub fn push_user_with_photos(
        &mut self,
        text: String,
        photos: Vec<String>,
        queued: bool,
    ) -> Changes {
        let mut changes = Changes::default();
        if !queued {
            self.sending = true;
            changes.run = true;
        }
        self.push(
            ItemKind::User {
                text,
                queued,
                photos,
            },
            &mut changes,
        );
        changes
    }

    /// Enter while an answer runs: the message waits for the run's end (the server takes one
    /// run per thread at a time). Blank text is not held.
    pub fn hold(&mut self, text: String) -> Changes {
        if text.trim().is_empty() {
            return Changes::default();
        }
        self.held.push(text);
        Changes {
            run: true,
            ..Changes::default()
        }
    }

    /// The oldest held message, once no run of this thread is active and nothing is being
    /// caught up (a run that goes on at the server would otherwise be answered twice).
    pub fn release_held(&mut self) -> (Option<String>, Changes) {
        if self.running() || self.sending || self.catching_up.is_some() || self.held.is_empty() {
            return (None, Changes::default());
        }
        let text = self.held.remove(0);
        let changes = Changes {
            run: true,
            ..Changes::default()
        };
        (Some(text), changes)
    }

    /// The held messages back to the inspector (to edit them, or when the thread is left):
    /// nothing held any more.
    pub fn take_held(&mut self) -> (Vec<String>, Changes) {
        let held = std::mem::take(&mut self.held);
        let changes = Changes {
            run: !held.is_empty(),
            ..Changes::default()
        };
        (held, changes)
    }

    /// The texts of the messages shown as waiting for the connection.
    pub fn queued_texts(&self) -> Vec<String> {
        self.items
            .iter()
            .filter_map(|item| match &item.kind {
                ItemKind::User {
                    text, queued: true, ..
                } => Some(text.clone()),
                _ => None,
            })
            .collect()
    }

    /// A queued message went out (the oldest shown as waiting with this text): it is no longer
    /// waiting, and its run has not started yet (`sending`), so nothing else goes before it.
    pub fn queued_sent(&mut self, text: &str) -> Changes {
        let mut changes = Changes::default();
        let waiting = self.items.iter_mut().enumerate().find(
            |(_, item)| matches!(&item.kind, ItemKind::User { text: t, queued: true, .. } if t == text),
        );
        if let Some((index, item)) = waiting {
            if let ItemKind::User { queued, .. } = &mut item.kind {
                *queued = false;
            }
            changes.updated(index);
        }
        self.sending = true;
        changes.run = true;
        changes
    }

    /// The inspector decided; the request leaves the queue.
    pub fn answer_approval(&mut self, approval_id: &str) -> Changes {
        let before = self.approvals.len();
        self.approvals.retain(|a| a.approval_id != approval_id);
        Changes {
            approvals: before != self.approvals.len(),
            run: before != self.approvals.len(),
            ..Changes::default()
        }
    }

    /// Shows another thread (empty until its history arrives). A run still active belongs to
    /// the old thread: its remaining events are dropped.
    pub fn switch_thread(&mut self, thread_id: impl Into<String>) -> Changes {
        self.thread_id = thread_id.into();
        self.items.clear();
        self.tool_calls.clear();
        self.messages.clear();
        self.calls.clear();
        self.approvals.clear();
        self.step = None;
        self.shared = Value::Null;
        self.seq = None;
        self.catching_up = None;
        // Never sent into another thread (the connection keeps them as the old one's draft).
        self.held.clear();
        self.sending = false;
        Changes {
            reset: true,
            run: true,
            approvals: true,
            ..Changes::default()
        }
    }

    /// The socket closed. The run goes on at the server, and its approval waits: both stay
    /// as they are until the page resumes and hears how they went on.
    pub fn disconnected(&mut self) -> Changes {
        self.catching_up = None;
        Changes {
            run: true,
            ..Changes::default()
        }
    }
}

/// A `thread_not_found` in answer to `agora:resume` (its details name the request).
fn refuses_resume(error: &AgoraError) -> bool {
    error.error_code == ErrorCode::ThreadNotFound.as_str()
        && error
            .details
            .as_ref()
            .and_then(|d| d.get("request"))
            .and_then(Value::as_str)
            == Some(crate::protocol::agora::RESUME)
}

fn agora_error(error: &AgoraError) -> ErrorItem {
    ErrorItem {
        source: ErrorSource::Agora,
        code: Some(error.error_code.clone()),
        message: error.message.clone(),
        details: error
            .details
            .as_ref()
            .filter(|d| !d.is_null())
            .map(Value::to_string),
        resend: None,
    }
}

/// Links the UI makes clickable: a path on this server or http(s). Never `javascript:`.
pub fn safe_link(url: &str) -> bool {
    let url = url.trim();
    (url.starts_with('/') && !url.starts_with("//"))
        || url.starts_with("https://")
        || url.starts_with("http://")
}
