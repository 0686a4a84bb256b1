//! Reading the thread: every tool call with its result, the last user message, the
//! inspection so far and the language of the conversation.

use std::collections::HashMap;

use serde_json::Value;

use super::conversation::Conversation;
use super::lang::{Lang, detect, detect_beside_names};
use super::understand::{Intent, asks_report_again, follows_up_history, understand};
use crate::orchestrator::inspection::InspectionState;
use crate::orchestrator::knowledge::Knowledge;
use crate::orchestrator::llm::prompts::HANDOFF_TOOL;
use crate::protocol::Message;

/// A tool call with its result, if one arrived.
#[derive(Debug, Clone)]
pub(super) struct Outcome {
    pub name: String,
    /// The tool message content, parsed as JSON when it is JSON.
    pub result: Option<Value>,
    /// The tool message's `error`.
    pub error: Option<String>,
    /// Index of the assistant message that made the call.
    pub at: usize,
}

impl Outcome {
    pub(super) fn ok(&self) -> Option<&Value> {
        match (&self.result, &self.error) {
            (Some(v), None) if !looks_rejected(v) => Some(v),
            _ => None,
        }
    }
}

pub(super) struct Thread<'a> {
    pub messages: &'a [Message],
    /// Index of the last user message.
    pub last_user: Option<usize>,
    /// All tool calls of the thread, in order; only this run's carry their results.
    outcomes: Vec<Outcome>,
    /// The open company, a pending company choice and the findings so far.
    pub inspection: InspectionState,
    /// The language to answer in: the last user sentence that tells, else Dutch.
    pub lang: Lang,
    /// What the last user message asks for, decided once per model turn.
    pub intent: Intent,
    /// What the turns before the last one were about.
    pub conversation: Conversation,
    /// The corpus and register, when the planner has them.
    pub knowledge: Option<&'a Knowledge>,
}

/// How many of the inspector's turns before this one it is read against. The rules that look
/// back go three turns at most (a follow-up of the history, a report asked again, the subject
/// of a follow-up), the subject past the confirmations in between: sixteen leave room for
/// twelve of those in a row.
const EARLIER_TURNS: usize = 16;

impl<'a> Thread<'a> {
    /// Reads the thread; `knowledge` lets a bare company name count as an inspection start.
    /// `inspection`: the thread's inspection when the run has read it already; else it is
    /// read from `messages`.
    pub(super) fn read(
        messages: &'a [Message],
        inspection: Option<&InspectionState>,
        knowledge: Option<&'a Knowledge>,
    ) -> Thread<'a> {
        let last_user = messages.iter().rposition(|m| matches!(m, Message::User(_)));
        let mut outcomes: Vec<Outcome> = Vec::new();
        let mut by_id: HashMap<String, usize> = HashMap::new();
        // Only this run's calls are ever read (see `run_outcomes`): those after the last user
        // message, not every call of a long thread at every model turn.
        let run_start = last_user.map_or(0, |user| user + 1);
        for (i, message) in messages.iter().enumerate().skip(run_start) {
            match message {
                Message::Assistant(a) => {
                    for call in a.tool_calls.iter().flatten() {
                        by_id.insert(call.id.clone(), outcomes.len());
                        outcomes.push(Outcome {
                            name: call.function.name.clone(),
                            result: None,
                            error: None,
                            at: i,
                        });
                    }
                }
                Message::Tool(t) => {
                    if let Some(&k) = by_id.get(&t.tool_call_id) {
                        let content = serde_json::from_str(&t.content)
                            .unwrap_or_else(|_| Value::String(t.content.clone()));
                        outcomes[k].result = Some(content);
                        outcomes[k].error = t.error.clone().filter(|e| !e.trim().is_empty());
                    }
                }
                _ => {}
            }
        }
        // The inspector's turns are read as a reader takes dictation (`message_text`), which
        // costs: only as many as the rules below look at, not every turn of a long thread at
        // every model turn (issue 36).
        let user_turns: Vec<&Message> = messages
            .iter()
            .filter(|m| matches!(m, Message::User(_)))
            .collect();
        // The last sentence that tells its language; Dutch when none does.
        let lang = user_turns
            .iter()
            .rev()
            .find_map(|m| {
                let text = message_text(m);
                match knowledge {
                    Some(kb) => detect_beside_names(&text, |w| kb.is_register_word(w)),
                    None => detect(&text),
                }
            })
            .unwrap_or_default();
        let inspection = inspection
            .cloned()
            .unwrap_or_else(|| InspectionState::from_messages(messages));
        let user_text = last_user
            .map(|i| message_text(&messages[i]))
            .unwrap_or_default();
        let before_last = user_turns.len().saturating_sub(1);
        let earlier: Vec<String> = user_turns
            [before_last.saturating_sub(EARLIER_TURNS)..before_last]
            .iter()
            .map(|m| message_text(m))
            .collect();
        let earlier = earlier.as_slice();
        let mut intent = understand(&user_text, &inspection, knowledge);
        // The conversation goes on about the earlier inspections until a turn asks otherwise.
        if matches!(intent, Intent::RegulationQuestion | Intent::Chatter)
            && follows_up_history(&user_text, earlier, &inspection, knowledge)
        {
            intent = Intent::History;
        }
        if matches!(intent, Intent::Finding | Intent::Chatter)
            && asks_report_again(&user_text, earlier, &inspection)
        {
            intent = Intent::ReportRequest;
        }
        let conversation = Conversation::read(earlier, &inspection);
        Thread {
            messages,
            last_user,
            outcomes,
            inspection,
            lang,
            intent,
            conversation,
            knowledge,
        }
    }

    /// The text of the last user message ("" when there is none).
    pub(super) fn user_text(&self) -> String {
        self.last_user
            .map(|i| message_text(&self.messages[i]))
            .unwrap_or_default()
    }

    /// The last user message's `name`, if the client sent one.
    pub(super) fn user_name(&self) -> Option<String> {
        match self.last_user.map(|i| &self.messages[i]) {
            Some(Message::User(u)) => u.name.clone().filter(|n| !n.trim().is_empty()),
            _ => None,
        }
    }

    /// Calls made in this run (after the last user message).
    pub(super) fn run_outcomes(&self) -> impl Iterator<Item = &Outcome> {
        let since = self.last_user.unwrap_or(0);
        self.outcomes
            .iter()
            .filter(move |o| o.at > since || self.last_user.is_none())
    }

    /// The latest call of `name` in this run.
    pub(super) fn in_run(&self, name: &str) -> Option<&Outcome> {
        self.run_outcomes().filter(|o| o.name == name).last()
    }

    /// Tool-call turns (assistant messages with calls) in this run, other than handoffs.
    pub(super) fn tool_turns(&self) -> usize {
        let mut turns: Vec<usize> = self
            .run_outcomes()
            .filter(|o| o.name != HANDOFF_TOOL)
            .map(|o| o.at)
            .collect();
        turns.dedup();
        turns.len()
    }
}

pub(super) fn message_text(message: &Message) -> String {
    match message {
        // What the inspector said, as a reader would take it from dictation.
        Message::User(u) => super::dictation::clean(&u.content.text()),
        Message::Assistant(a) => a.content.clone().unwrap_or_default(),
        Message::Tool(t) => t.content.clone(),
        Message::Developer(b) | Message::System(b) | Message::Reasoning(b) => b.content.clone(),
        Message::Activity(_) => String::new(),
    }
}

/// A tool message that reports a rejection without setting `error`.
pub(super) fn looks_rejected(value: &Value) -> bool {
    let flag = |key: &str| value.get(key);
    flag("approved") == Some(&Value::Bool(false))
        || flag("rejected") == Some(&Value::Bool(true))
        || matches!(
            flag("status").and_then(Value::as_str),
            Some("rejected" | "denied" | "expired" | "cancelled" | "error" | "failed")
        )
}

pub(super) fn str_at<'v>(value: &'v Value, path: &[&str]) -> Option<&'v str> {
    let mut v = value;
    for key in path {
        v = v.get(key)?;
    }
    v.as_str().filter(|s| !s.is_empty())
}
