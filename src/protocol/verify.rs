//! Checks the order of an event stream, one event at a time, so the server can run it on every
//! stream it sends and the UI can show what went wrong.
//!
//! A violation does not stop the check: the verifier reports it and carries on from the most
//! plausible state, so one mistake is reported once rather than at every later event.

use std::collections::{HashMap, HashSet};
use std::fmt;

use super::agora;
use super::events::Event;

/// Which rule set to check against.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialect {
    /// The rules of `verifyEvents` in `@ag-ui/client`: `RUN_ERROR` ends the run for good.
    Standard,
    /// AGORA v2.1.1 (seed 000): the standard rules, except that `RUN_FINISHED` follows
    /// `RUN_ERROR`, plus one step at a time, non-empty text deltas, the four-event tool call
    /// and state snapshots around the work. `agora:error` may also come between runs: it is
    /// the server's answer to input it could not accept.
    Agora,
}

/// The rule a [`Violation`] breaks. Rules marked AGORA are only checked in [`Dialect::Agora`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Rule {
    RunNotStarted,
    RunAlreadyStarted,
    EventAfterRunFinished,
    EventAfterRunError,
    StepAlreadyStarted,
    StepNotStarted,
    /// AGORA.
    StepOverlap,
    TextMessageAlreadyStarted,
    TextMessageNotStarted,
    /// AGORA.
    EmptyDelta,
    ToolCallAlreadyStarted,
    ToolCallNotStarted,
    /// AGORA.
    ToolCallWithoutArgs,
    /// AGORA.
    ToolResultBeforeEnd,
    /// AGORA.
    ToolResultWithoutCall,
    RunFinishedWithOpenStep,
    RunFinishedWithOpenMessage,
    RunFinishedWithOpenToolCall,
    /// AGORA.
    ToolCallWithoutResult,
    /// AGORA.
    MissingInitialSnapshot,
    /// AGORA.
    MissingFinalSnapshot,
    /// AGORA, found by [`Verifier::finish`].
    RunNotFinished,
    /// AG-UI 1.0.
    SubagentAlreadyStarted,
    /// AG-UI 1.0: a `SUBAGENT_FINISHED`/`SUBAGENT_ERROR`, or an event owned by a subagent
    /// (`subagentRunId`), outside that subagent's invocation.
    SubagentNotStarted,
    /// AG-UI 1.0.
    RunFinishedWithOpenSubagent,
    /// AG-UI 1.0: REASONING_START while a reasoning span is open, or REASONING_END for
    /// another (or none).
    ReasoningSpanMismatch,
    /// AG-UI 1.0: a reasoning message that is not open gets content or an end, or one that
    /// is opens again.
    ReasoningMessageNotOpen,
    /// AG-UI 1.0.
    RunFinishedWithOpenReasoning,
    /// AG-UI 1.0: an `interrupt` outcome names no interrupt.
    InterruptWithoutInterrupts,
}

impl Rule {
    pub fn description(self) -> &'static str {
        match self {
            Rule::RunNotStarted => "the first event must be RUN_STARTED",
            Rule::RunAlreadyStarted => "RUN_STARTED while a run is active",
            Rule::EventAfterRunFinished => "only RUN_STARTED may follow RUN_FINISHED",
            Rule::EventAfterRunError => {
                "after RUN_ERROR only RUN_STARTED may follow (AG-UI), only RUN_FINISHED (AGORA)"
            }
            Rule::StepAlreadyStarted => "STEP_STARTED for a step that is already active",
            Rule::StepNotStarted => "STEP_FINISHED for a step that is not active",
            Rule::StepOverlap => "one step at a time: STEP_FINISHED before the next STEP_STARTED",
            Rule::TextMessageAlreadyStarted => "TEXT_MESSAGE_START for a message that is open",
            Rule::TextMessageNotStarted => {
                "TEXT_MESSAGE_CONTENT or TEXT_MESSAGE_END for a message that is not open"
            }
            Rule::EmptyDelta => "TEXT_MESSAGE_CONTENT with an empty delta",
            Rule::ToolCallAlreadyStarted => "TOOL_CALL_START for a tool call that is open",
            Rule::ToolCallNotStarted => {
                "TOOL_CALL_ARGS or TOOL_CALL_END for a tool call that is not streaming arguments"
            }
            Rule::ToolCallWithoutArgs => "TOOL_CALL_END without any TOOL_CALL_ARGS",
            Rule::ToolResultBeforeEnd => "TOOL_CALL_RESULT before TOOL_CALL_END",
            Rule::ToolResultWithoutCall => "TOOL_CALL_RESULT for a tool call that is not waiting",
            Rule::RunFinishedWithOpenStep => "RUN_FINISHED while a step is active",
            Rule::RunFinishedWithOpenMessage => "RUN_FINISHED while a text message is open",
            Rule::RunFinishedWithOpenToolCall => "RUN_FINISHED while a tool call is open",
            Rule::ToolCallWithoutResult => "RUN_FINISHED while a tool call waits for its result",
            Rule::MissingInitialSnapshot => "work before the run's first STATE_SNAPSHOT",
            Rule::MissingFinalSnapshot => "RUN_FINISHED without a STATE_SNAPSHOT after the work",
            Rule::RunNotFinished => {
                "the stream ended inside a run; AGORA always sends RUN_FINISHED"
            }
            Rule::SubagentAlreadyStarted => "SUBAGENT_STARTED for an invocation that is open",
            Rule::SubagentNotStarted => {
                "an event of a subagent invocation (subagentRunId) that is not open"
            }
            Rule::RunFinishedWithOpenSubagent => "RUN_FINISHED while a subagent invocation is open",
            Rule::ReasoningSpanMismatch => {
                "REASONING_START inside an open span, or REASONING_END for a span that is not open"
            }
            Rule::ReasoningMessageNotOpen => {
                "a reasoning message's content or end while it is not open, or its start while it is"
            }
            Rule::RunFinishedWithOpenReasoning => {
                "RUN_FINISHED while reasoning (a span or a message) is open"
            }
            Rule::InterruptWithoutInterrupts => "an `interrupt` outcome with no interrupts",
        }
    }
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.description())
    }
}

/// One broken rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation {
    /// Position of the offending event in the stream, from 0. For [`Rule::RunNotFinished`],
    /// the number of events.
    pub index: usize,
    pub rule: Rule,
    /// What happened, with the ids involved.
    pub message: String,
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "event {}: {}", self.index, self.message)
    }
}

/// Checks a whole stream: every [`Verifier::push`], then [`Verifier::finish`].
pub fn verify<'a>(events: impl IntoIterator<Item = &'a Event>, dialect: Dialect) -> Vec<Violation> {
    let mut verifier = Verifier::new(dialect);
    let mut found: Vec<Violation> = events.into_iter().flat_map(|e| verifier.push(e)).collect();
    found.extend(verifier.finish());
    found
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Run {
    /// No event yet.
    Idle,
    /// Events came before any RUN_STARTED; they are checked as a run that a RUN_STARTED may
    /// still replace without a second violation.
    Unstarted,
    Active,
    Errored,
    Finished,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ToolCall {
    Streaming {
        args: bool,
    },
    /// AGORA: arguments complete, result pending.
    Ended,
}

/// The incremental checker. Each [`Verifier::push`] costs O(1) (hash lookups); memory is
/// bounded by what one run has open at a time.
#[derive(Debug, Clone)]
pub struct Verifier {
    dialect: Dialect,
    /// Index of the next event.
    index: usize,
    run: Run,
    steps: HashSet<String>,
    messages: HashSet<String>,
    tool_calls: HashMap<String, ToolCall>,
    /// Subagent invocations open in this run (AG-UI 1.0).
    subagents: HashSet<String>,
    /// The open reasoning span (REASONING_START's messageId).
    reasoning: Option<String>,
    /// Reasoning messages open in this run.
    reasoning_messages: HashSet<String>,
    /// AGORA: this run has sent a STATE_SNAPSHOT.
    snapshot_sent: bool,
    /// AGORA: no work since the last STATE_SNAPSHOT (or since RUN_STARTED).
    snapshot_current: bool,
}

impl Verifier {
    pub fn new(dialect: Dialect) -> Self {
        Verifier {
            dialect,
            index: 0,
            run: Run::Idle,
            steps: HashSet::new(),
            messages: HashSet::new(),
            tool_calls: HashMap::new(),
            subagents: HashSet::new(),
            reasoning: None,
            reasoning_messages: HashSet::new(),
            snapshot_sent: false,
            snapshot_current: true,
        }
    }

    /// Checks the next event of the stream; usually returns an empty (unallocated) list.
    pub fn push(&mut self, event: &Event) -> Vec<Violation> {
        let mut found = Vec::new();
        if self.lifecycle(event, &mut found) {
            if self.dialect == Dialect::Agora {
                self.snapshots(event, &mut found);
            }
            self.inside_run(event, &mut found);
        }
        self.index += 1;
        found
    }

    /// Call when the stream ends. In AGORA a run that has not sent `RUN_FINISHED` is a
    /// violation; standard AG-UI does not check this.
    pub fn finish(self) -> Option<Violation> {
        let open = matches!(self.run, Run::Unstarted | Run::Active | Run::Errored);
        (self.dialect == Dialect::Agora && open).then(|| Violation {
            index: self.index,
            rule: Rule::RunNotFinished,
            message: "the stream ended before RUN_FINISHED".to_owned(),
        })
    }

    fn violation(&self, rule: Rule, message: String) -> Violation {
        Violation {
            index: self.index,
            rule,
            message,
        }
    }

    fn start_run(&mut self) {
        self.run = Run::Active;
        self.steps.clear();
        self.messages.clear();
        self.tool_calls.clear();
        self.subagents.clear();
        self.reasoning = None;
        self.reasoning_messages.clear();
        self.snapshot_sent = false;
        self.snapshot_current = true;
    }

    /// Run boundaries. Returns whether `event` belongs inside a run and needs the other checks.
    fn lifecycle(&mut self, event: &Event, found: &mut Vec<Violation>) -> bool {
        let agora = self.dialect == Dialect::Agora;
        let kind = event.kind();
        match self.run {
            Run::Unstarted | Run::Active => {
                if !matches!(event, Event::RunStarted(_)) {
                    return true;
                }
                if self.run == Run::Active {
                    let message = "RUN_STARTED before the active run finished".to_owned();
                    found.push(self.violation(Rule::RunAlreadyStarted, message));
                }
                self.start_run();
                false
            }
            Run::Errored => {
                match (event, agora) {
                    (Event::RunStarted(_), false) => self.start_run(),
                    (Event::RunFinished(_), true) => self.run = Run::Finished,
                    _ => {
                        let expected = if agora { "RUN_FINISHED" } else { "RUN_STARTED" };
                        let message = format!("{kind} after RUN_ERROR; expected {expected}");
                        found.push(self.violation(Rule::EventAfterRunError, message));
                        if matches!(event, Event::RunStarted(_)) {
                            self.start_run();
                        }
                    }
                }
                false
            }
            Run::Idle | Run::Finished => match event {
                Event::RunStarted(_) => {
                    self.start_run();
                    false
                }
                // @ag-ui/client lets RUN_ERROR open a stream or follow RUN_FINISHED.
                Event::RunError(_) if !agora => {
                    self.run = Run::Errored;
                    false
                }
                Event::Custom(custom) if agora && custom.name == agora::ERROR => false,
                _ if self.run == Run::Finished => {
                    let message = format!("{kind} after RUN_FINISHED; start a run first");
                    found.push(self.violation(Rule::EventAfterRunFinished, message));
                    false
                }
                _ => {
                    let message = format!("{kind} before RUN_STARTED");
                    found.push(self.violation(Rule::RunNotStarted, message));
                    self.start_run();
                    self.run = Run::Unstarted;
                    // Only the missing RUN_STARTED is reported, not a missing snapshot after it.
                    self.snapshot_sent = true;
                    true
                }
            },
        }
    }

    /// AGORA: a STATE_SNAPSHOT before the run's first work, and another after its last.
    fn snapshots(&mut self, event: &Event, found: &mut Vec<Violation>) {
        match event {
            Event::StateSnapshot(_) => {
                self.snapshot_sent = true;
                self.snapshot_current = true;
            }
            Event::RunStarted(_)
            | Event::RunFinished(_)
            | Event::RunError(_)
            | Event::Custom(_)
            | Event::Raw(_)
            | Event::Unknown(_) => {}
            work => {
                if !self.snapshot_sent {
                    let message = format!("{} before the run's first STATE_SNAPSHOT", work.kind());
                    found.push(self.violation(Rule::MissingInitialSnapshot, message));
                    self.snapshot_sent = true;
                }
                self.snapshot_current = false;
            }
        }
    }

    /// Steps, messages and tool calls inside an active run.
    fn inside_run(&mut self, event: &Event, found: &mut Vec<Violation>) {
        let agora = self.dialect == Dialect::Agora;
        self.subagent(event, found);
        self.reasoning(event, found);
        match event {
            Event::RunFinished(_) => self.run_finished(found),
            Event::RunError(_) => self.run = Run::Errored,
            Event::StepStarted(step) => {
                let name = &step.step_name;
                if self.steps.contains(name) {
                    let message = format!("step `{name}` started again while active");
                    found.push(self.violation(Rule::StepAlreadyStarted, message));
                    return;
                }
                if agora && let Some(active) = self.steps.iter().next() {
                    let message = format!("step `{name}` started while step `{active}` is active");
                    found.push(self.violation(Rule::StepOverlap, message));
                }
                self.steps.insert(name.clone());
            }
            Event::StepFinished(step) => {
                let was_active = self.steps.remove(&step.step_name);
                if !was_active {
                    let message = format!("step `{}` finished but is not active", step.step_name);
                    found.push(self.violation(Rule::StepNotStarted, message));
                }
            }
            Event::TextMessageStart(start) => {
                let is_new = self.messages.insert(start.message_id.clone());
                if !is_new {
                    let message =
                        format!("message `{}` started again while open", start.message_id);
                    found.push(self.violation(Rule::TextMessageAlreadyStarted, message));
                }
            }
            Event::TextMessageContent(content) => {
                let id = &content.message_id;
                if !self.messages.contains(id) {
                    let message =
                        format!("TEXT_MESSAGE_CONTENT for message `{id}`, which is not open");
                    found.push(self.violation(Rule::TextMessageNotStarted, message));
                }
                if agora && content.delta.is_empty() {
                    let message = format!("empty TEXT_MESSAGE_CONTENT for message `{id}`");
                    found.push(self.violation(Rule::EmptyDelta, message));
                }
            }
            Event::TextMessageEnd(end) => {
                let id = &end.message_id;
                let was_open = self.messages.remove(id);
                if !was_open {
                    let message = format!("TEXT_MESSAGE_END for message `{id}`, which is not open");
                    found.push(self.violation(Rule::TextMessageNotStarted, message));
                }
            }
            Event::ToolCallStart(start) => {
                let id = &start.tool_call_id;
                if self.tool_calls.contains_key(id) {
                    let message = format!("tool call `{id}` started again while open");
                    found.push(self.violation(Rule::ToolCallAlreadyStarted, message));
                } else {
                    let call = ToolCall::Streaming { args: false };
                    self.tool_calls.insert(id.clone(), call);
                }
            }
            Event::ToolCallArgs(args) => {
                let id = &args.tool_call_id;
                if let Some(ToolCall::Streaming { args }) = self.tool_calls.get_mut(id) {
                    *args = true;
                } else {
                    let message = format!("TOOL_CALL_ARGS for tool call `{id}`, which is not open");
                    found.push(self.violation(Rule::ToolCallNotStarted, message));
                }
            }
            Event::ToolCallEnd(end) => {
                let id = &end.tool_call_id;
                match self.tool_calls.get(id) {
                    Some(ToolCall::Streaming { args }) if agora => {
                        if !args {
                            let message = format!("tool call `{id}` ended without arguments");
                            found.push(self.violation(Rule::ToolCallWithoutArgs, message));
                        }
                        self.tool_calls.insert(id.clone(), ToolCall::Ended);
                    }
                    Some(ToolCall::Streaming { .. }) => {
                        self.tool_calls.remove(id);
                    }
                    _ => {
                        let message =
                            format!("TOOL_CALL_END for tool call `{id}`, which is not open");
                        found.push(self.violation(Rule::ToolCallNotStarted, message));
                    }
                }
            }
            Event::ToolCallResult(result) if agora => {
                let id = &result.tool_call_id;
                match self.tool_calls.remove(id) {
                    Some(ToolCall::Ended) => {}
                    Some(ToolCall::Streaming { .. }) => {
                        let message =
                            format!("result of tool call `{id}` before its TOOL_CALL_END");
                        found.push(self.violation(Rule::ToolResultBeforeEnd, message));
                    }
                    None => {
                        let message = format!("result of tool call `{id}`, which is not waiting");
                        found.push(self.violation(Rule::ToolResultWithoutCall, message));
                    }
                }
            }
            _ => {}
        }
    }

    /// AG-UI 1.0: invocations open and close once, and what a subagent produces falls inside
    /// its invocation.
    fn subagent(&mut self, event: &Event, found: &mut Vec<Violation>) {
        match event {
            Event::SubagentStarted(started) => {
                if !self.subagents.insert(started.subagent_run_id.clone()) {
                    let message = format!(
                        "subagent `{}` started again while open",
                        started.subagent_run_id
                    );
                    found.push(self.violation(Rule::SubagentAlreadyStarted, message));
                }
            }
            Event::SubagentFinished(_) | Event::SubagentError(_) => {
                let id = event.subagent_run_id().unwrap_or_default();
                if !self.subagents.remove(id) {
                    let message =
                        format!("{} for subagent `{id}`, which is not open", event.kind());
                    found.push(self.violation(Rule::SubagentNotStarted, message));
                }
            }
            other => {
                if let Some(id) = other.subagent_run_id()
                    && !self.subagents.contains(id)
                {
                    let message = format!("{} of subagent `{id}`, which is not open", other.kind());
                    found.push(self.violation(Rule::SubagentNotStarted, message));
                }
            }
        }
    }

    /// AG-UI 1.0: reasoning spans open and close once, and reasoning messages pair up as text
    /// messages do; an interrupt outcome names its interrupts.
    fn reasoning(&mut self, event: &Event, found: &mut Vec<Violation>) {
        let (rule, message) = match event {
            Event::ReasoningStart(start) => {
                match self.reasoning.replace(start.message_id.clone()) {
                    Some(open) => (
                        Rule::ReasoningSpanMismatch,
                        format!("REASONING_START while span `{open}` is open"),
                    ),
                    None => return,
                }
            }
            Event::ReasoningEnd(end) => {
                let open = self.reasoning.take();
                if open.as_deref() == Some(end.message_id.as_str()) {
                    return;
                }
                let id = &end.message_id;
                (
                    Rule::ReasoningSpanMismatch,
                    format!("REASONING_END for span `{id}`, which is not open"),
                )
            }
            Event::ReasoningMessageStart(start) => {
                if self.reasoning_messages.insert(start.message_id.clone()) {
                    return;
                }
                let id = &start.message_id;
                (
                    Rule::ReasoningMessageNotOpen,
                    format!("reasoning message `{id}` started again while open"),
                )
            }
            Event::ReasoningMessageContent(content) => {
                if self.reasoning_messages.contains(&content.message_id) {
                    return;
                }
                let id = &content.message_id;
                (
                    Rule::ReasoningMessageNotOpen,
                    format!("REASONING_MESSAGE_CONTENT for `{id}`, which is not open"),
                )
            }
            Event::ReasoningMessageEnd(end) => {
                if self.reasoning_messages.remove(&end.message_id) {
                    return;
                }
                let id = &end.message_id;
                (
                    Rule::ReasoningMessageNotOpen,
                    format!("REASONING_MESSAGE_END for `{id}`, which is not open"),
                )
            }
            Event::RunFinished(finished) => match &finished.outcome {
                Some(Some(crate::protocol::RunOutcome::Interrupt { interrupts }))
                    if interrupts.is_empty() =>
                {
                    (
                        Rule::InterruptWithoutInterrupts,
                        "RUN_FINISHED with an interrupt outcome and no interrupts".to_owned(),
                    )
                }
                _ => return,
            },
            _ => return,
        };
        found.push(self.violation(rule, message));
    }

    fn run_finished(&mut self, found: &mut Vec<Violation>) {
        let agora = self.dialect == Dialect::Agora;
        let streaming = self
            .tool_calls
            .iter()
            .filter(|(_, c)| **c != ToolCall::Ended);
        let waiting = self
            .tool_calls
            .iter()
            .filter(|(_, c)| **c == ToolCall::Ended);
        let open = [
            (
                Rule::RunFinishedWithOpenSubagent,
                "subagents are open",
                sorted(self.subagents.iter()),
            ),
            (
                Rule::RunFinishedWithOpenReasoning,
                "reasoning is open",
                sorted(self.reasoning.iter().chain(&self.reasoning_messages)),
            ),
            (
                Rule::RunFinishedWithOpenStep,
                "steps are active",
                sorted(self.steps.iter()),
            ),
            (
                Rule::RunFinishedWithOpenMessage,
                "text messages are open",
                sorted(self.messages.iter()),
            ),
            (
                Rule::RunFinishedWithOpenToolCall,
                "tool calls are open",
                sorted(streaming.map(|(id, _)| id)),
            ),
            (
                Rule::ToolCallWithoutResult,
                "tool calls wait for their result",
                sorted(waiting.map(|(id, _)| id)),
            ),
        ];
        for (rule, what, ids) in open {
            if !ids.is_empty() {
                let message = format!("RUN_FINISHED while {what}: {ids}");
                found.push(self.violation(rule, message));
            }
        }
        if agora && !self.snapshot_current {
            let message = "RUN_FINISHED without a final STATE_SNAPSHOT".to_owned();
            found.push(self.violation(Rule::MissingFinalSnapshot, message));
        }
        self.run = Run::Finished;
    }
}

/// Ids in a stable order for messages, e.g. "`a`, `b`"; empty when there are none.
fn sorted<'a>(ids: impl Iterator<Item = &'a String>) -> String {
    let mut ids: Vec<String> = ids.map(|id| format!("`{id}`")).collect();
    ids.sort();
    ids.join(", ")
}
