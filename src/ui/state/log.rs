//! The raw event log of "Onder de motorkap": every event in one line, with the warnings of
//! the protocol's [`Verifier`] (AGORA dialect). Streamed deltas of one message or tool call
//! fold into one line with a count, so a long answer costs one line, updated in O(1).

use std::collections::VecDeque;

use serde_json::Value;

use crate::protocol::agora::CatchupMode;
use crate::protocol::{AgoraEvent, Dialect, Event, Verifier, wire};

/// Lines kept; older ones drop off the top.
pub const CAPACITY: usize = 400;

#[derive(Debug, Clone, PartialEq)]
pub struct LogEntry {
    /// Unique for the page's lifetime.
    pub seq: u64,
    /// The wire `type` (or the custom event's name).
    pub kind: String,
    pub detail: String,
    /// How many events this line stands for (folded deltas).
    pub count: u32,
    pub warnings: Vec<String>,
    /// Deltas of the same message or tool call fold into the line with this key.
    fold: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LogChange {
    Appended,
    /// The line with this `seq` counted one more event.
    Folded(u64),
}

#[derive(Debug, Clone)]
pub struct EventLog {
    verifier: Verifier,
    pub entries: VecDeque<LogEntry>,
    next_seq: u64,
    /// Warnings in `entries`, kept so reading it is O(1).
    warnings: usize,
    /// A resume answered with a snapshot: its STATE_SNAPSHOT comes outside any run.
    snapshot_state_due: bool,
}

impl Default for EventLog {
    fn default() -> Self {
        EventLog {
            verifier: Verifier::new(Dialect::Agora),
            entries: VecDeque::new(),
            next_seq: 0,
            warnings: 0,
            snapshot_state_due: false,
        }
    }
}

impl EventLog {
    pub fn push(&mut self, event: &Event) -> LogChange {
        // The answers to `agora:history_request` and `agora:resume` come outside any run; the
        // verifier checks run streams only. A resume's replay continues the stream the
        // verifier knows; a snapshot starts a new one (the live run is replayed from its start).
        // Only the STATE_SNAPSHOT right after the resume's MESSAGES_SNAPSHOT is outside a run.
        let snapshot_state = std::mem::take(&mut self.snapshot_state_due);
        let warnings: Vec<String> = match event {
            Event::MessagesSnapshot(_) => {
                self.snapshot_state_due = snapshot_state;
                Vec::new()
            }
            Event::Custom(custom) if custom.name == crate::protocol::agora::RESUMED => {
                if let Some(Ok(AgoraEvent::Resumed(resumed))) = wire::agora_event(custom)
                    && resumed.mode == CatchupMode::Snapshot
                {
                    self.verifier = Verifier::new(Dialect::Agora);
                    self.snapshot_state_due = true;
                }
                Vec::new()
            }
            Event::StateSnapshot(_) if snapshot_state => Vec::new(),
            _ => self
                .verifier
                .push(event)
                .into_iter()
                .map(|v| v.to_string())
                .collect(),
        };
        let (kind, detail, fold) = describe(event);
        if warnings.is_empty()
            && let Some(key) = &fold
            && let Some(last) = self.entries.back_mut()
            && last.fold.as_ref() == Some(key)
        {
            last.count += 1;
            return LogChange::Folded(last.seq);
        }
        self.append(kind, detail, warnings, fold);
        LogChange::Appended
    }

    /// A new connection starts a new stream: a run left open on the old one is reported.
    pub fn restart(&mut self) -> LogChange {
        let old = std::mem::replace(&mut self.verifier, Verifier::new(Dialect::Agora));
        match old.finish() {
            Some(violation) => {
                let detail = "connection closed".to_owned();
                self.append("—".to_owned(), detail, vec![violation.to_string()], None);
                LogChange::Appended
            }
            None => LogChange::Folded(u64::MAX),
        }
    }

    /// A frame that did not parse as an event.
    pub fn unreadable(&mut self, error: String) {
        let warning = format!("not an AG-UI event: {error}");
        self.append("?".to_owned(), clip(&error), vec![warning], None);
    }

    pub fn warning_count(&self) -> usize {
        self.warnings
    }

    fn append(
        &mut self,
        kind: String,
        detail: String,
        warnings: Vec<String>,
        fold: Option<String>,
    ) {
        self.next_seq += 1;
        if self.entries.len() == CAPACITY
            && let Some(dropped) = self.entries.pop_front()
        {
            self.warnings -= dropped.warnings.len();
        }
        self.warnings += warnings.len();
        self.entries.push_back(LogEntry {
            seq: self.next_seq,
            kind,
            detail,
            count: 1,
            warnings,
            fold,
        });
    }
}

/// At most this many characters of a detail.
const DETAIL_CHARS: usize = 160;

fn clip(text: &str) -> String {
    match text.char_indices().nth(DETAIL_CHARS) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text.to_owned(),
    }
}

/// The line for one event: its kind, a short detail, and the key deltas fold under.
fn describe(event: &Event) -> (String, String, Option<String>) {
    let kind = event.kind().to_owned();
    let (detail, fold) = match event {
        Event::RunStarted(e) => (format!("thread {} · run {}", e.thread_id, e.run_id), None),
        Event::RunFinished(e) => (format!("run {}", e.run_id), None),
        Event::RunError(e) => (
            format!("{}: {}", e.code.as_deref().unwrap_or("—"), e.message),
            None,
        ),
        Event::StepStarted(e) | Event::StepFinished(e) => (e.step_name.clone(), None),
        Event::TextMessageStart(e) | Event::ReasoningMessageStart(e) => (
            format!("{} · {}", e.message_id, e.name.as_deref().unwrap_or("")),
            None,
        ),
        Event::TextMessageContent(e) | Event::ReasoningMessageContent(e) => (
            e.message_id.clone(),
            Some(format!("{kind}:{}", e.message_id)),
        ),
        Event::TextMessageEnd(e)
        | Event::ReasoningStart(e)
        | Event::ReasoningMessageEnd(e)
        | Event::ReasoningEnd(e) => (e.message_id.clone(), None),
        Event::TextMessageChunk(e) | Event::ReasoningMessageChunk(e) => {
            let id = e.message_id.clone().unwrap_or_default();
            (id.clone(), Some(format!("{kind}:{id}")))
        }
        Event::ToolCallStart(e) => (format!("{} · {}", e.tool_call_name, e.tool_call_id), None),
        Event::ToolCallArgs(e) => (
            format!("{} {}", e.tool_call_id, clip(&e.delta)),
            Some(format!("{kind}:{}", e.tool_call_id)),
        ),
        Event::ToolCallEnd(e) => (e.tool_call_id.clone(), None),
        Event::ToolCallChunk(e) => {
            let id = e.tool_call_id.clone().unwrap_or_default();
            (id.clone(), Some(format!("{kind}:{id}")))
        }
        Event::ToolCallResult(e) => (format!("{} {}", e.tool_call_id, clip(&e.content)), None),
        Event::StateSnapshot(e) => (clip(&e.snapshot.to_string()), None),
        Event::StateDelta(e) => (format!("{} operation(s)", e.delta.len()), None),
        Event::MessagesSnapshot(e) => (format!("{} message(s)", e.messages.len()), None),
        Event::ActivitySnapshot(e) => (format!("{} · {}", e.activity_type, e.message_id), None),
        Event::ActivityDelta(e) => (format!("{} · {}", e.activity_type, e.message_id), None),
        Event::ReasoningEncryptedValue(e) => (e.entity_id.clone(), None),
        Event::SubagentStarted(e) => (format!("{} · {}", e.name, e.subagent_run_id), None),
        Event::SubagentFinished(e) => (e.subagent_run_id.clone(), None),
        Event::SubagentError(e) => (format!("{} {}", e.subagent_run_id, clip(&e.message)), None),
        Event::Raw(e) => (clip(&e.event.to_string()), None),
        Event::Custom(e) => (format!("{} {}", e.name, clip(&e.value.to_string())), None),
        Event::Unknown(value) => (clip(&Value::to_string(value)), None),
    };
    (kind, detail, fold)
}
