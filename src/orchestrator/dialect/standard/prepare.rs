//! Admission of a turn in the standard dialect: what the client's conversation brings that
//! the stored thread lacks (a new message, results of client tools, answers to interrupts),
//! checked, then written in one store transaction.

use std::collections::HashSet;
use std::sync::Arc;

use serde_json::{Value, json};

use super::super::{Prepared, Start};
use super::{Resumed, Standard};
use crate::orchestrator::store::{
    InterruptRecord, InterruptResolution, StoreError, Turn, TurnRequest,
};
use crate::orchestrator::thread::{
    caller_agent, closed_call, last_agent, last_user, message_id, new_run_id, now_millis,
    stored_user_message, unanswered_calls, user_text,
};
use crate::orchestrator::tools::Toolbox;
use crate::orchestrator::{Orchestrator, Outbox, StartError, agents};
use crate::protocol::{Event, Message, ResumeEntry, ResumeStatus, RunAgentInput};

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
pub(in crate::orchestrator::dialect) async fn prepare(
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
        // Recorded by the turn's transaction: the run starts with one.
        let run_id = input.run_id.clone().unwrap_or_else(new_run_id);
        let turn = TurnRequest {
            thread_id: &input.thread_id,
            owner: user_id,
            title_text: &text,
            run_id: Some(&run_id),
            refuse_open_interrupts: true,
            results: &[],
            keep_open: &[],
            close_call: unanswered_client_call,
            close_approvals: None,
            message: Some(&message),
        };
        match orchestrator.store().begin_turn(&turn).await {
            Ok(Turn::Begun {
                messages,
                listening,
                ..
            }) => {
                return Ok(Prepared::Run(Box::new(Start {
                    run_id,
                    thread_id: input.thread_id,
                    messages,
                    agent: agents::GENERAL_AGENT,
                    adapter: Box::new(Standard::new(input.tools.unwrap_or_default())),
                    listening,
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
    let answered = match_resume(&interrupts, &resume, orchestrator.toolbox())?;
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

    // Before anything is marked: an answer under a used run id (the interrupted run's own,
    // say) would mark its interrupts answered and then be refused, leaving no report and an
    // undecided audit row. A retry of an answer that went through never gets here: its
    // interrupts are no longer open, so it is a replay (above).
    if input.run_id.is_some() {
        orchestrator.check_new_run_id(&run_id).await?;
    }
    // Exactly once: of two inputs answering the same interrupts, the second is a replay.
    if !answered.is_empty() && !resolve(orchestrator, &answered, &run_id).await? {
        return Ok(acknowledge(last_agent(&stored)));
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
        run_id: Some(&run_id),
        refuse_open_interrupts: false,
        results: &client_results,
        keep_open: &interrupted_calls,
        close_call: unanswered_client_call,
        close_approvals: None,
        message: now.as_ref(),
    };
    let (messages, listening) = match store.begin_turn(&turn).await {
        Ok(Turn::Begun {
            messages,
            listening,
            ..
        }) => (messages, listening),
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
        listening,
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

/// The open interrupts with the entries that answer them: all of them, or an error. No open
/// interrupts: entries must name interrupts of this thread (answered before: a replay).
fn match_resume(
    interrupts: &[InterruptRecord],
    resume: &[ResumeEntry],
    toolbox: &Toolbox,
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
            check_payload(interrupt, &entry, toolbox)?;
            Ok(Resumed {
                interrupt: interrupt.clone(),
                entry,
            })
        })
        .collect()
}

/// A `resolved` answer to a tool-call interrupt is `{approved, editedArgs?, feedback?}`;
/// edited arguments of an approval meet the tool's rules, as the agent's do (`Tool::check`),
/// and the interrupt stays open when they do not. Edits with a rejection are ignored.
fn check_payload(
    interrupt: &InterruptRecord,
    entry: &ResumeEntry,
    toolbox: &Toolbox,
) -> Result<(), StartError> {
    let invalid = |reason: &str| StartError::InvalidResume {
        id: interrupt.id.clone(),
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
    let approved = entry.status == ResumeStatus::Resolved
        && field("approved").and_then(Value::as_bool) == Some(true);
    if approved
        && let Some(edited) = field("editedArgs")
        && let Err(e) = toolbox.check(&interrupt.tool_name, edited)
    {
        return Err(invalid(&format!("`editedArgs`: {e}")));
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
