//! The two wire dialects as adapters of one run: AGORA's (`/ws`, [`agora`]) and the standard
//! AG-UI one (`/agui`, [`standard`]).
//!
//! A run (`run/`) streams text, calls tools and stores what happens without naming a dialect;
//! where the dialects differ it asks its [`Adapter`]:
//! - how a turn is admitted ([`prepare`]): AGORA takes the last user message and the stored
//!   thread; the standard dialect also answers interrupts (`resume`) and client tools;
//! - how a call that needs approval is decided ([`Adapter::approve`]): AGORA asks with
//!   `agora:tool_approval_request` and waits; the standard run stores an interrupt and ends
//!   with `RUN_FINISHED { outcome: interrupt }`, and a later run settles the call first;
//! - tools of the client (standard only), subagent invocations (standard only) and spoken
//!   text (AGORA only);
//! - how a failure ends: AGORA sends RUN_ERROR then RUN_FINISHED, the standard dialect stops
//!   at RUN_ERROR (and a cancelled run finishes with the `cancelled` outcome).
//!
//! [`crate::protocol::Dialect`] names the dialect; [`prepare`] is the one place that maps it
//! to its adapter.

pub(crate) mod agora;
pub(crate) mod standard;

use std::sync::Arc;

use serde_json::{Map, Value};

use super::approval::Decision;
use super::llm::ToolSpec;
use super::llm::planner::Lang;
use super::spoken::SpokenTextType;
use super::store::StoreError;
use super::tools::Toolbox;
use super::{Orchestrator, Outbox, StartError};
use crate::protocol::{
    Dialect, Event, Interrupt, Message, RiskLevel, RunAgentInput, SubagentStarted, ToolCall,
    ToolCallStart,
};

/// Everything a run starts from, whichever dialect prepared it.
pub(crate) struct Start {
    pub thread_id: String,
    pub run_id: String,
    pub messages: Vec<Message>,
    pub agent: &'static str,
    pub adapter: Box<dyn Adapter>,
    /// The thread is in listen mode (`orchestrator::listen`).
    pub listening: bool,
}

/// What preparing a turn decided.
pub(crate) enum Prepared {
    Run(Box<Start>),
    /// Answered without a run (a resend, a replayed `resume`): the run id the client gets.
    Answered(String),
}

/// Admits a turn in `dialect`: checks it, writes what it brings to the thread (one store
/// transaction when nothing runs on the thread here) and returns the run to start.
pub(crate) async fn prepare(
    orchestrator: &Arc<Orchestrator>,
    dialect: Dialect,
    input: RunAgentInput,
    user_id: &str,
    events: &Outbox,
    spoken: Option<SpokenTextType>,
) -> Result<Prepared, StartError> {
    match dialect {
        Dialect::Agora => agora::prepare(orchestrator, input, user_id, spoken).await,
        Dialect::Standard => standard::prepare::prepare(orchestrator, input, user_id, events).await,
    }
}

/// The run an adapter speaks for: who runs it, where, from which connection.
pub(crate) struct RunInfo {
    pub orchestrator: Arc<Orchestrator>,
    pub thread_id: String,
    pub run_id: String,
    pub user_id: String,
    /// The connection that started the run: in dev mode its answer to an approval is the
    /// run owner's, whoever the client named.
    pub connection_id: u64,
}

/// Where an adapter's own events go (the run's publisher): approval requests, subagent
/// invocations.
pub(crate) trait Emit: Send {
    fn emit(&mut self, event: Event);
}

/// A call an earlier run was interrupted for, as the user decided: settled first.
pub(crate) struct Settle {
    pub call: ToolCall,
    pub arguments: Value,
    pub decision: Decision,
}

/// How a run opens.
pub(crate) struct Opening {
    /// Calls to settle before the model's first turn.
    pub settle: Vec<Settle>,
    /// Whether the run routes first: not when it continues a run it takes over from.
    pub route: bool,
}

/// What an approval became.
pub(crate) enum Approval {
    /// The user decided: the call is announced and run (or rejected).
    Decided(Decision),
    /// The question goes out with the run's end; the call is announced and left waiting.
    Deferred,
}

/// How a failed run ends after its RUN_ERROR (or instead of it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum FailedEnd {
    /// RUN_ERROR, then RUN_FINISHED.
    ErrorThenFinished,
    /// RUN_ERROR is the last event.
    Error,
    /// No error: RUN_FINISHED with the `cancelled` outcome.
    CancelledOutcome,
}

/// An assistant message's text closing: events before it is stored, what it said aloud (kept
/// with the message) and events after TEXT_MESSAGE_END.
#[derive(Default)]
pub(crate) struct TextClosing {
    pub before: Vec<Event>,
    pub spoken: Option<String>,
    pub after: Vec<Event>,
}

/// What a call that needs approval asks of the user, for the dialect to put on its wire.
pub(crate) struct ApprovalAsk<'a> {
    /// The agent that made the call: the reason shown names it.
    pub agent: &'static str,
    pub call: &'a ToolCall,
    /// The call's arguments, parsed once by the run.
    pub arguments: &'a Value,
    /// How much the call can do: decides the wording of the reason and the wire's risk level.
    pub risk: RiskLevel,
    /// The tool as the user sees it: its Dutch name and description.
    pub display_name: &'a str,
    pub description: &'a str,
    /// What a person needs beside the arguments to judge them (`Tool::explain`): sent with
    /// the request, in AGORA's `agora:tool_approval_request` and in the interrupt's metadata.
    pub about: Map<String, Value>,
}

/// Where a run's dialect shows. Every method has the run's view of the moment; an adapter
/// keeps its own state (open interrupts, the subagent invocation, the speaker).
#[async_trait::async_trait]
pub(crate) trait Adapter: Send + Sync {
    /// The dialect, for the verifier, the journal and the metrics.
    fn dialect(&self) -> Dialect;

    /// Whether whoever started the run follows only it (an HTTP stream ends with its run)
    /// rather than the whole thread (a socket).
    fn follows_run_only(&self) -> bool {
        false
    }

    /// Before the first model turn: the calls to settle first, and whether to route. A
    /// specialist that carries on continues `continued`, its invocation of the run it paused.
    async fn open(
        &mut self,
        run: &RunInfo,
        continued: Option<SubagentStarted>,
    ) -> Result<Opening, StoreError>;

    /// After the opening's calls are settled: a message to store then (one that came with
    /// the answers, kept back so every call stays directly followed by its result).
    fn after_settled(&mut self) -> Option<Message> {
        None
    }

    /// Tools of the client offered to every agent of the run (none of ours by name).
    fn client_tools(&self, _toolbox: &Toolbox) -> Vec<ToolSpec> {
        Vec::new()
    }

    /// A call of a client tool: returns its description, and the run waits for its result
    /// from the client's next run. `None` for the server's tools.
    fn client_call(&mut self, _toolbox: &Toolbox, _call: &ToolCall) -> Option<String> {
        None
    }

    /// A call that needs approval, before it is announced.
    async fn approve(
        &mut self,
        run: &RunInfo,
        out: &mut dyn Emit,
        ask: ApprovalAsk<'_>,
    ) -> Result<Approval, StoreError>;

    /// An approval the run still waits for, taken when the run stops.
    fn take_pending_approval(&mut self) -> Option<String> {
        None
    }

    /// TOOL_CALL_START's parent message and where the tool's display name and description go.
    fn frame_call(
        &self,
        start: &mut ToolCallStart,
        messages: &[Message],
        display_name: &str,
        description: &str,
    );

    /// Text of an answer begins (in the thread's language `lang`).
    fn text_started(&mut self, _lang: Lang) {}

    /// Events that follow each TEXT_MESSAGE_CONTENT.
    fn text_delta(&mut self, _message_id: &str, _delta: &str) -> Vec<Event> {
        Vec::new()
    }

    /// The answer's text is complete.
    fn text_closing(&mut self, _message_id: &str) -> TextClosing {
        TextClosing::default()
    }

    /// A handoff to `agent` by call `call_id` (of message `message_id`).
    fn handed_off(&mut self, _agent: &'static str, _call_id: &str, _message_id: Option<String>) {}

    /// Before each step.
    fn before_step(&mut self, _out: &mut dyn Emit) {}

    /// Whether the run stops after this turn's calls to wait for the client.
    fn paused(&self) -> bool {
        false
    }

    /// The run is over: its open subagent invocation ends, as failed with `(message, code)`
    /// when given. Returns the interrupts the run ends with.
    fn close(&mut self, _out: &mut dyn Emit, _failure: Option<(&str, &str)>) -> Vec<Interrupt> {
        Vec::new()
    }

    /// After a failure: what the run raised and never delivered is withdrawn.
    async fn withdraw(&mut self, _run: &RunInfo) {}

    /// How a failed run ends.
    fn failed_end(&self, cancelled: bool) -> FailedEnd;

    /// Whether `event` is the run's last, held until the run's end is stored.
    fn terminal(&self, event: &Event) -> bool;

    /// Whether the run's token usage goes on RUN_FINISHED and RUN_ERROR as AG-UI 1.0's
    /// `usage` too (beside `metadata.usage`).
    fn token_usage(&self) -> bool {
        false
    }

    /// Marks an event of the run before it goes out.
    fn stamp(&self, _event: &mut Event) {}
}
