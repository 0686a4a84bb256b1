//! One broken sequence per rule, checked in both dialects. An empty expectation means the
//! dialect accepts the sequence: those rules exist in one dialect only.

use agora_hai::protocol::{Dialect, Event, Rule, Verifier, verify};
use serde_json::json;

use Rule::*;

fn start() -> Event {
    Event::run_started("t", "r")
}
fn finish() -> Event {
    Event::run_finished("t", "r")
}
fn error() -> Event {
    Event::run_error("boom", "processing_error")
}
fn snapshot() -> Event {
    Event::state_snapshot(json!({"status": "processing"}))
}
fn text(id: &str, delta: &str) -> Event {
    Event::text_message_content(id, delta)
}
fn result(id: &str) -> Event {
    Event::tool_call_result(format!("result-{id}"), id, "ok")
}

/// `RUN_STARTED`, `STATE_SNAPSHOT`, the body, `STATE_SNAPSHOT`, `RUN_FINISHED`: valid in both
/// dialects when the body is. The body starts at index 2.
fn run(body: Vec<Event>) -> Vec<Event> {
    let mut events = vec![start(), snapshot()];
    events.extend(body);
    events.extend([snapshot(), finish()]);
    events
}

/// The four-event AGORA tool call.
fn tool(id: &str) -> Vec<Event> {
    let args = Event::tool_call_args(id, "{}");
    vec![
        Event::tool_call_start(id, "search"),
        args,
        Event::tool_call_end(id),
        result(id),
    ]
}

struct Case {
    name: &'static str,
    events: Vec<Event>,
    standard: &'static [(usize, Rule)],
    agora: &'static [(usize, Rule)],
}

fn cases() -> Vec<Case> {
    let step = Event::step_started;
    let step_end = Event::step_finished;
    let msg = Event::text_message_start;
    let msg_end = Event::text_message_end;
    let call = |id| Event::tool_call_start(id, "search");
    let args = |id| Event::tool_call_args(id, "{}");
    let call_end = Event::tool_call_end;
    let agora_error = || {
        Event::custom(
            "agora:error",
            json!({"errorCode": "invalid_json", "message": "?"}),
        )
    };
    let delta = serde_json::from_value(json!([{"op": "add", "path": "/x", "value": 1}])).unwrap();
    vec![
        Case {
            name: "work before RUN_STARTED",
            events: vec![step("a"), step_end("a"), snapshot(), finish()],
            standard: &[(0, RunNotStarted)],
            agora: &[(0, RunNotStarted)],
        },
        Case {
            name: "a CUSTOM event before RUN_STARTED, then a proper run",
            events: vec![Event::custom("x", json!({})), start(), snapshot(), finish()],
            standard: &[(0, RunNotStarted)],
            agora: &[(0, RunNotStarted)],
        },
        Case {
            name: "agora:error between runs (the server rejecting an input)",
            events: vec![agora_error(), start(), snapshot(), finish(), agora_error()],
            standard: &[(0, RunNotStarted), (4, EventAfterRunFinished)],
            agora: &[],
        },
        Case {
            name: "RUN_STARTED inside a run",
            events: vec![start(), snapshot(), start(), snapshot(), finish()],
            standard: &[(2, RunAlreadyStarted)],
            agora: &[(2, RunAlreadyStarted)],
        },
        Case {
            name: "a message after RUN_FINISHED",
            events: [run(vec![]), vec![msg("m")]].concat(),
            standard: &[(4, EventAfterRunFinished)],
            agora: &[(4, EventAfterRunFinished)],
        },
        Case {
            name: "RUN_ERROR after RUN_FINISHED (@ag-ui/client allows it)",
            events: [run(vec![]), vec![error()]].concat(),
            standard: &[],
            agora: &[(4, EventAfterRunFinished)],
        },
        Case {
            name: "RUN_FINISHED after RUN_ERROR (AGORA requires it)",
            events: vec![start(), snapshot(), error(), finish()],
            standard: &[(3, EventAfterRunError)],
            agora: &[],
        },
        Case {
            name: "a message after RUN_ERROR",
            events: vec![start(), snapshot(), error(), msg("m"), finish()],
            standard: &[(3, EventAfterRunError), (4, EventAfterRunError)],
            agora: &[(3, EventAfterRunError)],
        },
        Case {
            name: "a new run right after RUN_ERROR",
            events: vec![start(), snapshot(), error(), start(), snapshot(), finish()],
            standard: &[],
            agora: &[(3, EventAfterRunError)],
        },
        Case {
            name: "RUN_ERROR as the first event",
            events: vec![error(), start(), snapshot(), finish()],
            standard: &[],
            agora: &[(0, RunNotStarted), (1, EventAfterRunError)],
        },
        Case {
            name: "a step started twice",
            events: run(vec![step("a"), step("a"), step_end("a")]),
            standard: &[(3, StepAlreadyStarted)],
            agora: &[(3, StepAlreadyStarted)],
        },
        Case {
            name: "a step finished that never started",
            events: run(vec![step_end("a")]),
            standard: &[(2, StepNotStarted)],
            agora: &[(2, StepNotStarted)],
        },
        Case {
            name: "two steps at once",
            events: run(vec![step("a"), step("b"), step_end("b"), step_end("a")]),
            standard: &[],
            agora: &[(3, StepOverlap)],
        },
        Case {
            name: "a message started twice",
            events: run(vec![msg("m"), msg("m"), text("m", "x"), msg_end("m")]),
            standard: &[(3, TextMessageAlreadyStarted)],
            agora: &[(3, TextMessageAlreadyStarted)],
        },
        Case {
            name: "content for a message that never started",
            events: run(vec![text("m", "x")]),
            standard: &[(2, TextMessageNotStarted)],
            agora: &[(2, TextMessageNotStarted)],
        },
        Case {
            name: "the end of a message that never started",
            events: run(vec![msg_end("m")]),
            standard: &[(2, TextMessageNotStarted)],
            agora: &[(2, TextMessageNotStarted)],
        },
        Case {
            name: "an empty text delta",
            events: run(vec![msg("m"), text("m", ""), msg_end("m")]),
            standard: &[],
            agora: &[(3, EmptyDelta)],
        },
        Case {
            name: "a tool call started twice",
            events: run([vec![call("c")], tool("c")].concat()),
            standard: &[(3, ToolCallAlreadyStarted)],
            agora: &[(3, ToolCallAlreadyStarted)],
        },
        Case {
            name: "arguments for a tool call that never started",
            events: run(vec![args("c")]),
            standard: &[(2, ToolCallNotStarted)],
            agora: &[(2, ToolCallNotStarted)],
        },
        Case {
            name: "the end of a tool call that never started",
            events: run(vec![call_end("c")]),
            standard: &[(2, ToolCallNotStarted)],
            agora: &[(2, ToolCallNotStarted)],
        },
        Case {
            name: "arguments after TOOL_CALL_END",
            events: run(vec![
                call("c"),
                args("c"),
                call_end("c"),
                args("c"),
                result("c"),
            ]),
            standard: &[(5, ToolCallNotStarted)],
            agora: &[(5, ToolCallNotStarted)],
        },
        Case {
            name: "a tool call without arguments",
            events: run(vec![call("c"), call_end("c"), result("c")]),
            standard: &[],
            agora: &[(3, ToolCallWithoutArgs)],
        },
        Case {
            name: "a result before TOOL_CALL_END",
            events: run(vec![call("c"), args("c"), result("c")]),
            standard: &[(6, RunFinishedWithOpenToolCall)],
            agora: &[(4, ToolResultBeforeEnd)],
        },
        Case {
            name: "a result for a tool call that never started",
            events: run(vec![result("c")]),
            standard: &[],
            agora: &[(2, ToolResultWithoutCall)],
        },
        Case {
            name: "a second result for one tool call",
            events: run([tool("c"), vec![result("c")]].concat()),
            standard: &[],
            agora: &[(6, ToolResultWithoutCall)],
        },
        Case {
            name: "RUN_FINISHED inside a step",
            events: vec![start(), snapshot(), step("a"), snapshot(), finish()],
            standard: &[(4, RunFinishedWithOpenStep)],
            agora: &[(4, RunFinishedWithOpenStep)],
        },
        Case {
            name: "RUN_FINISHED inside a message",
            events: vec![
                start(),
                snapshot(),
                msg("m"),
                text("m", "x"),
                snapshot(),
                finish(),
            ],
            standard: &[(5, RunFinishedWithOpenMessage)],
            agora: &[(5, RunFinishedWithOpenMessage)],
        },
        Case {
            name: "RUN_FINISHED while tool arguments stream",
            events: vec![
                start(),
                snapshot(),
                call("c"),
                args("c"),
                snapshot(),
                finish(),
            ],
            standard: &[(5, RunFinishedWithOpenToolCall)],
            agora: &[(5, RunFinishedWithOpenToolCall)],
        },
        Case {
            name: "RUN_FINISHED before the tool's result",
            events: run(vec![call("c"), args("c"), call_end("c")]),
            standard: &[],
            agora: &[(6, ToolCallWithoutResult)],
        },
        Case {
            name: "work before the first STATE_SNAPSHOT",
            events: vec![start(), step("a"), step_end("a"), snapshot(), finish()],
            standard: &[],
            agora: &[(1, MissingInitialSnapshot)],
        },
        Case {
            name: "no STATE_SNAPSHOT after the work",
            events: vec![start(), snapshot(), step("a"), step_end("a"), finish()],
            standard: &[],
            agora: &[(4, MissingFinalSnapshot)],
        },
        Case {
            name: "a STATE_DELTA after the final snapshot",
            events: vec![
                start(),
                snapshot(),
                snapshot(),
                Event::state_delta(delta),
                finish(),
            ],
            standard: &[],
            agora: &[(4, MissingFinalSnapshot)],
        },
        Case {
            name: "the stream ends inside a run",
            events: vec![start(), snapshot(), step("a"), step_end("a"), snapshot()],
            standard: &[],
            agora: &[(5, RunNotFinished)],
        },
        Case {
            name: "the stream ends after RUN_ERROR",
            events: vec![start(), snapshot(), error()],
            standard: &[],
            agora: &[(3, RunNotFinished)],
        },
        Case {
            name: "reasoning spans and messages that do not pair",
            events: run(vec![
                reasoning("REASONING_START", "r1"),
                reasoning("REASONING_START", "r2"),
                reasoning("REASONING_MESSAGE_CONTENT", "m"),
                reasoning("REASONING_END", "r1"),
            ]),
            standard: &[
                (3, ReasoningSpanMismatch),
                (4, ReasoningMessageNotOpen),
                (5, ReasoningSpanMismatch),
            ],
            agora: &[
                (3, ReasoningSpanMismatch),
                (4, ReasoningMessageNotOpen),
                (5, ReasoningSpanMismatch),
            ],
        },
        Case {
            name: "RUN_FINISHED while reasoning is open",
            events: run(vec![
                reasoning("REASONING_START", "r"),
                reasoning("REASONING_MESSAGE_START", "m"),
            ]),
            standard: &[(5, RunFinishedWithOpenReasoning)],
            agora: &[(5, RunFinishedWithOpenReasoning)],
        },
        Case {
            name: "an interrupt outcome with no interrupts",
            events: vec![
                start(),
                snapshot(),
                snapshot(),
                serde_json::from_value(
                    json!({"type": "RUN_FINISHED", "threadId": "t", "runId": "r",
                    "outcome": {"type": "interrupt", "interrupts": []}}),
                )
                .unwrap(),
            ],
            standard: &[(3, InterruptWithoutInterrupts)],
            agora: &[(3, InterruptWithoutInterrupts)],
        },
        Case {
            name: "a subagent invocation started twice",
            events: run(vec![subagent("s"), subagent("s"), subagent_end("s")]),
            standard: &[(3, SubagentAlreadyStarted)],
            agora: &[(3, SubagentAlreadyStarted)],
        },
        Case {
            name: "an invocation that never started ends, and an event claims it",
            events: run(vec![
                subagent_end("s"),
                owned_by(step("a"), "s"),
                step_end("a"),
            ]),
            standard: &[(2, SubagentNotStarted), (3, SubagentNotStarted)],
            agora: &[(2, SubagentNotStarted), (3, SubagentNotStarted)],
        },
        Case {
            name: "RUN_FINISHED while a subagent invocation is open",
            events: run(vec![subagent("s"), owned_by(step("a"), "s"), step_end("a")]),
            standard: &[(6, RunFinishedWithOpenSubagent)],
            agora: &[(6, RunFinishedWithOpenSubagent)],
        },
    ]
}

fn reasoning(kind: &str, id: &str) -> Event {
    let mut event = json!({"type": kind, "messageId": id});
    if kind == "REASONING_MESSAGE_START" {
        event["role"] = json!("reasoning");
    }
    if kind == "REASONING_MESSAGE_CONTENT" {
        event["delta"] = json!("d");
    }
    serde_json::from_value(event).unwrap()
}

fn subagent(id: &str) -> Event {
    serde_json::from_value(
        json!({"type": "SUBAGENT_STARTED", "subagentRunId": id, "name": "regulation-agent"}),
    )
    .unwrap()
}

fn subagent_end(id: &str) -> Event {
    serde_json::from_value(json!({"type": "SUBAGENT_FINISHED", "subagentRunId": id})).unwrap()
}

/// `event` as produced by the subagent invocation `id`.
fn owned_by(mut event: Event, id: &str) -> Event {
    event
        .base_mut()
        .unwrap()
        .extra
        .insert("subagentRunId".to_owned(), json!(id));
    event
}

#[test]
fn each_broken_sequence_breaks_its_rule() {
    for case in cases() {
        for (dialect, expected) in [
            (Dialect::Standard, case.standard),
            (Dialect::Agora, case.agora),
        ] {
            let violations = verify(&case.events, dialect);
            let found: Vec<(usize, Rule)> = violations.iter().map(|v| (v.index, v.rule)).collect();
            assert_eq!(
                found, expected,
                "{} ({dialect:?}): {violations:#?}",
                case.name
            );
            for violation in &violations {
                assert!(!violation.message.is_empty() && !violation.rule.description().is_empty());
            }
        }
    }
}

#[test]
fn the_table_covers_every_rule_in_its_dialects() {
    let all = [
        RunNotStarted,
        RunAlreadyStarted,
        EventAfterRunFinished,
        EventAfterRunError,
        StepAlreadyStarted,
        StepNotStarted,
        StepOverlap,
        TextMessageAlreadyStarted,
        TextMessageNotStarted,
        EmptyDelta,
        ToolCallAlreadyStarted,
        ToolCallNotStarted,
        ToolCallWithoutArgs,
        ToolResultBeforeEnd,
        ToolResultWithoutCall,
        RunFinishedWithOpenStep,
        RunFinishedWithOpenMessage,
        RunFinishedWithOpenToolCall,
        ToolCallWithoutResult,
        MissingInitialSnapshot,
        MissingFinalSnapshot,
        RunNotFinished,
        SubagentAlreadyStarted,
        SubagentNotStarted,
        RunFinishedWithOpenSubagent,
        ReasoningSpanMismatch,
        ReasoningMessageNotOpen,
        RunFinishedWithOpenReasoning,
        InterruptWithoutInterrupts,
    ];
    let agora_only = [
        StepOverlap,
        EmptyDelta,
        ToolCallWithoutArgs,
        ToolResultBeforeEnd,
        ToolResultWithoutCall,
        ToolCallWithoutResult,
        MissingInitialSnapshot,
        MissingFinalSnapshot,
        RunNotFinished,
    ];
    let cases = cases();
    assert!(cases.len() >= 20);
    let seen = |pick: fn(&Case) -> &[(usize, Rule)], rule| {
        cases
            .iter()
            .any(|case| pick(case).iter().any(|(_, r)| *r == rule))
    };
    for rule in all {
        assert!(seen(|c| c.agora, rule), "no AGORA case for {rule:?}");
        assert_eq!(
            seen(|c| c.standard, rule),
            !agora_only.contains(&rule),
            "{rule:?}"
        );
    }
}

/// Pushing event by event reports the same as checking the whole list, at the same indices.
#[test]
fn incremental_matches_whole_stream() {
    for case in cases() {
        let mut verifier = Verifier::new(Dialect::Agora);
        let mut found: Vec<_> = case.events.iter().flat_map(|e| verifier.push(e)).collect();
        found.extend(verifier.finish());
        assert_eq!(found, verify(&case.events, Dialect::Agora), "{}", case.name);
    }
}

#[test]
fn violations_explain_themselves() {
    let events = run(vec![Event::step_started("a"), Event::step_started("b")]);
    let violations = verify(&events, Dialect::Agora);
    assert_eq!(
        violations
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>(),
        [
            "event 3: step `b` started while step `a` is active",
            "event 5: RUN_FINISHED while steps are active: `a`, `b`",
        ]
    );
    assert_eq!(
        StepOverlap.to_string(),
        "one step at a time: STEP_FINISHED before the next STEP_STARTED"
    );
}
