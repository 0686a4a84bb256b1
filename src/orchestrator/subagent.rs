//! AG-UI 1.0 subagents in the standard dialect: after a handoff, the specialist's turn is an
//! invocation of a subagent (`SUBAGENT_STARTED` … `SUBAGENT_FINISHED`/`SUBAGENT_ERROR`), and
//! the events it produces carry its `subagentRunId`.
//!
//! An invocation's id comes from the handoff call that spawned it (`sub_<toolCallId>`), so a
//! run that continues after an interrupt (its `resume`) reopens the same invocation without
//! storing anything.

use serde_json::Value;

use super::agents;
use super::llm::prompts::HANDOFF_TOOL;
use crate::protocol::{Event, Message, SubagentStarted};

/// The invocation id of the subagent a handoff call spawned.
pub fn invocation_id(handoff_call_id: &str) -> String {
    format!("sub_{handoff_call_id}")
}

/// `SUBAGENT_STARTED` for `agent`, spawned by the handoff call `call_id` of the message
/// `message_id`.
pub fn started(agent: &str, call_id: &str, message_id: Option<String>) -> SubagentStarted {
    SubagentStarted {
        subagent_run_id: invocation_id(call_id),
        name: agent.to_owned(),
        description: agents::agent(agent).map(|a| a.description.to_owned()),
        parent_tool_call_id: Some(call_id.to_owned()),
        parent_message_id: message_id,
        ..Default::default()
    }
}

/// The invocation `agent` continues in a run that resumes it: the last handoff to it in the
/// thread, or `None` when it was never handed to (the general agent).
pub fn continued(messages: &[Message], agent: &str) -> Option<SubagentStarted> {
    messages.iter().rev().find_map(|message| {
        let Message::Assistant(assistant) = message else {
            return None;
        };
        assistant
            .tool_calls
            .iter()
            .flatten()
            .rev()
            .find_map(|call| {
                let to = serde_json::from_str::<Value>(&call.function.arguments).ok()?;
                (call.function.name == HANDOFF_TOOL && to.get("agent")?.as_str()? == agent)
                    .then(|| started(agent, &call.id, assistant.id.clone()))
            })
    })
}

/// Whether an event of an invocation carries its `subagentRunId`: all but the run's and the
/// invocations' own boundaries and the messages snapshot (AG-UI 1.0 gives those none).
pub fn owned(event: &Event) -> bool {
    !matches!(
        event,
        Event::RunStarted(_)
            | Event::RunFinished(_)
            | Event::RunError(_)
            | Event::MessagesSnapshot(_)
            | Event::SubagentStarted(_)
            | Event::SubagentFinished(_)
            | Event::SubagentError(_)
            | Event::Unknown(_)
    )
}
