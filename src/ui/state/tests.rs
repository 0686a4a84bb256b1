//! Table tests of the reducer: every event type, unknown and out-of-order events, local
//! actions, the raw log, and the contract's example sequences replayed as a client would.

use serde_json::{Value, json};

use super::*;

fn ev(value: Value) -> Event {
    serde_json::from_value(value).expect("a valid event")
}

fn started(thread: &str) -> ChatState {
    let mut state = ChatState::new(thread);
    state.apply(&ev(
        json!({"type": "RUN_STARTED", "threadId": thread, "runId": "r1"}),
    ));
    state.apply(&ev(json!({"type": "STATE_SNAPSHOT", "snapshot": {"currentAgent": "history-agent", "status": "processing"}})));
    state
}

fn texts(state: &ChatState) -> Vec<String> {
    state
        .items
        .iter()
        .map(|item| match &item.kind {
            ItemKind::User { text, .. } => format!("user:{text}"),
            ItemKind::Assistant { text, agent, .. } => {
                format!("{}:{text}", agent.as_deref().unwrap_or("?"))
            }
            ItemKind::Tools { calls } => format!("tools:{}", calls.len()),
            ItemKind::Report { url, .. } => format!("report:{url}"),
            ItemKind::Error(error) => format!("error:{}", error.code.as_deref().unwrap_or("")),
        })
        .collect()
}

/// One event after a prepared state, and what it must report.
struct Case {
    name: &'static str,
    before: Vec<Value>,
    event: Value,
    changes: Changes,
    after: Vec<&'static str>,
}

fn changes(f: impl FnOnce(&mut Changes)) -> Changes {
    let mut c = Changes::default();
    f(&mut c);
    c
}

#[test]
fn every_event_type() {
    let msg_start = json!({"type": "TEXT_MESSAGE_START", "messageId": "m1", "role": "assistant", "name": "history-agent"});
    let tool_start = json!({"type": "TOOL_CALL_START", "toolCallId": "c1", "toolCallName": "get_company_info", "toolDisplayName": "Bedrijfsgegevens ophalen", "timestamp": 1000});
    let cases = vec![
        Case {
            name: "RUN_STARTED",
            before: vec![],
            event: json!({"type": "RUN_STARTED", "threadId": "t", "runId": "r9"}),
            changes: changes(|c| c.run = true),
            after: vec![],
        },
        Case {
            name: "RUN_FINISHED closes an open message",
            before: vec![msg_start.clone()],
            event: json!({"type": "RUN_FINISHED", "threadId": "t", "runId": "r1"}),
            changes: changes(|c| {
                c.run = true;
                c.approvals = true;
                c.updated = vec![0];
            }),
            after: vec!["history-agent:"],
        },
        Case {
            name: "RUN_ERROR is an error item",
            before: vec![],
            event: json!({"type": "RUN_ERROR", "message": "kapot", "code": "llm_error"}),
            changes: changes(|c| {
                c.run = true;
                c.approvals = true;
                c.appended_from = Some(0);
            }),
            after: vec!["error:llm_error"],
        },
        Case {
            name: "STEP_STARTED",
            before: vec![],
            event: json!({"type": "STEP_STARTED", "stepName": "routing"}),
            changes: changes(|c| c.run = true),
            after: vec![],
        },
        Case {
            name: "STEP_FINISHED of the active step",
            before: vec![json!({"type": "STEP_STARTED", "stepName": "routing"})],
            event: json!({"type": "STEP_FINISHED", "stepName": "routing"}),
            changes: changes(|c| c.run = true),
            after: vec![],
        },
        Case {
            name: "STEP_FINISHED of another step changes nothing",
            before: vec![json!({"type": "STEP_STARTED", "stepName": "thinking"})],
            event: json!({"type": "STEP_FINISHED", "stepName": "routing"}),
            changes: Changes::default(),
            after: vec![],
        },
        Case {
            name: "TEXT_MESSAGE_START",
            before: vec![],
            event: msg_start.clone(),
            changes: changes(|c| c.appended_from = Some(0)),
            after: vec!["history-agent:"],
        },
        Case {
            name: "TEXT_MESSAGE_START twice is one message",
            before: vec![msg_start.clone()],
            event: msg_start.clone(),
            changes: Changes::default(),
            after: vec!["history-agent:"],
        },
        Case {
            name: "TEXT_MESSAGE_CONTENT touches only its message",
            before: vec![msg_start.clone()],
            event: json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": "Hallo"}),
            changes: changes(|c| c.delta = Some(0)),
            after: vec!["history-agent:Hallo"],
        },
        Case {
            name: "TEXT_MESSAGE_CONTENT empty delta",
            before: vec![msg_start.clone()],
            event: json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": ""}),
            changes: Changes::default(),
            after: vec!["history-agent:"],
        },
        Case {
            name: "TEXT_MESSAGE_CONTENT before its START keeps the text",
            before: vec![],
            event: json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": "m7", "delta": "los"}),
            changes: changes(|c| c.appended_from = Some(0)),
            after: vec!["history-agent:los"],
        },
        Case {
            name: "TEXT_MESSAGE_END",
            before: vec![msg_start.clone()],
            event: json!({"type": "TEXT_MESSAGE_END", "messageId": "m1"}),
            changes: changes(|c| c.updated = vec![0]),
            after: vec!["history-agent:"],
        },
        Case {
            name: "TEXT_MESSAGE_END of an unknown message",
            before: vec![],
            event: json!({"type": "TEXT_MESSAGE_END", "messageId": "nope"}),
            changes: Changes::default(),
            after: vec![],
        },
        Case {
            name: "TEXT_MESSAGE_CHUNK starts and fills",
            before: vec![],
            event: json!({"type": "TEXT_MESSAGE_CHUNK", "messageId": "m2", "delta": "stuk", "name": "regulation-agent"}),
            changes: changes(|c| c.appended_from = Some(0)),
            after: vec!["regulation-agent:stuk"],
        },
        Case {
            name: "TEXT_MESSAGE_CHUNK without id continues the last message",
            before: vec![msg_start.clone()],
            event: json!({"type": "TEXT_MESSAGE_CHUNK", "delta": "meer"}),
            changes: changes(|c| c.delta = Some(0)),
            after: vec!["history-agent:meer"],
        },
        Case {
            name: "TOOL_CALL_START adds a chip row",
            before: vec![],
            event: tool_start.clone(),
            changes: changes(|c| {
                c.run = true;
                c.tools = vec![0];
                c.appended_from = Some(0);
            }),
            after: vec!["tools:1"],
        },
        Case {
            name: "a second TOOL_CALL_START joins the row",
            before: vec![tool_start.clone()],
            event: json!({"type": "TOOL_CALL_START", "toolCallId": "c2", "toolCallName": "get_inspection_history"}),
            changes: changes(|c| {
                c.run = true;
                c.tools = vec![1];
                c.updated = vec![0];
            }),
            after: vec!["tools:2"],
        },
        Case {
            name: "TOOL_CALL_ARGS",
            before: vec![tool_start.clone()],
            event: json!({"type": "TOOL_CALL_ARGS", "toolCallId": "c1", "delta": "{\"kvk\":1}"}),
            changes: changes(|c| c.tools = vec![0]),
            after: vec!["tools:1"],
        },
        Case {
            name: "TOOL_CALL_ARGS for an unknown call",
            before: vec![],
            event: json!({"type": "TOOL_CALL_ARGS", "toolCallId": "zz", "delta": "{}"}),
            changes: Changes::default(),
            after: vec![],
        },
        Case {
            name: "TOOL_CALL_END",
            before: vec![tool_start.clone()],
            event: json!({"type": "TOOL_CALL_END", "toolCallId": "c1"}),
            changes: changes(|c| c.tools = vec![0]),
            after: vec!["tools:1"],
        },
        Case {
            name: "TOOL_CALL_CHUNK",
            before: vec![],
            event: json!({"type": "TOOL_CALL_CHUNK", "toolCallId": "c3", "toolCallName": "search_regulations", "delta": "{}"}),
            changes: changes(|c| {
                c.run = true;
                c.tools = vec![0];
                c.appended_from = Some(0);
            }),
            after: vec!["tools:1"],
        },
        Case {
            name: "TOOL_CALL_RESULT with a report adds a download card",
            before: vec![tool_start.clone()],
            event: json!({"type": "TOOL_CALL_RESULT", "messageId": "t1", "toolCallId": "c1", "content": "{\"reportId\":\"R1\",\"downloadUrl\":\"/reports/R1.pdf\"}", "timestamp": 1250}),
            changes: changes(|c| {
                c.run = true;
                c.tools = vec![0];
                c.appended_from = Some(1);
            }),
            after: vec!["tools:1", "report:/reports/R1.pdf"],
        },
        Case {
            name: "TOOL_CALL_RESULT for a call never announced",
            before: vec![],
            event: json!({"type": "TOOL_CALL_RESULT", "messageId": "t1", "toolCallId": "c9", "content": "ok"}),
            changes: changes(|c| {
                c.run = true;
                c.tools = vec![0];
                c.appended_from = Some(0);
            }),
            after: vec!["tools:1"],
        },
        Case {
            name: "STATE_SNAPSHOT",
            before: vec![],
            event: json!({"type": "STATE_SNAPSHOT", "snapshot": {"currentAgent": "reporting-agent"}}),
            changes: changes(|c| c.run = true),
            after: vec![],
        },
        Case {
            name: "STATE_DELTA",
            before: vec![json!({"type": "STATE_SNAPSHOT", "snapshot": {"currentAgent": "a"}})],
            event: json!({"type": "STATE_DELTA", "delta": [{"op": "replace", "path": "/currentAgent", "value": "regulation-agent"}]}),
            changes: changes(|c| c.run = true),
            after: vec![],
        },
        Case {
            name: "STATE_DELTA that does not apply",
            before: vec![],
            event: json!({"type": "STATE_DELTA", "delta": [{"op": "remove", "path": "/nope"}]}),
            changes: Changes::default(),
            after: vec![],
        },
        Case {
            name: "MESSAGES_SNAPSHOT replaces the timeline",
            before: vec![msg_start.clone()],
            event: json!({"type": "MESSAGES_SNAPSHOT", "messages": [
                {"role": "user", "id": "u1", "content": "Start inspectie"},
                {"role": "assistant", "id": "a1", "name": "general-agent", "content": "Welkom"}
            ]}),
            changes: changes(|c| {
                c.reset = true;
                c.run = true;
                c.approvals = true;
            }),
            after: vec!["user:Start inspectie", "general-agent:Welkom"],
        },
        Case {
            name: "agora:tool_approval_request",
            before: vec![],
            event: json!({"type": "CUSTOM", "name": "agora:tool_approval_request", "value": {
                "toolName": "generate_final_report", "toolDescription": "PDF", "parameters": {"kvk": "1"},
                "reasoning": "gevraagd", "riskLevel": "critical", "approvalId": "a1"}}),
            changes: changes(|c| {
                c.approvals = true;
                c.run = true;
            }),
            after: vec![],
        },
        Case {
            name: "agora:error",
            before: vec![],
            event: json!({"type": "CUSTOM", "name": "agora:error", "value": {"errorCode": "moderation_violation", "message": "nee", "details": {"reason": "x"}}}),
            changes: changes(|c| c.appended_from = Some(0)),
            after: vec!["error:moderation_violation"],
        },
        Case {
            name: "a refused resume of a thread the server does not know is not shown",
            before: vec![],
            event: json!({"type": "CUSTOM", "name": "agora:error", "value": {"errorCode": "thread_not_found", "message": "Dit gesprek bestaat niet.", "details": {"threadId": "t1", "request": "agora:resume"}}}),
            changes: Changes::default(),
            after: vec![],
        },
        Case {
            name: "a refused message on a thread that is not the user's is shown",
            before: vec![],
            event: json!({"type": "CUSTOM", "name": "agora:error", "value": {"errorCode": "thread_not_found", "message": "Dit gesprek bestaat niet."}}),
            changes: changes(|c| c.appended_from = Some(0)),
            after: vec!["error:thread_not_found"],
        },
        Case {
            name: "agora:spoken_text_content is not shown",
            before: vec![],
            event: json!({"type": "CUSTOM", "name": "agora:spoken_text_content", "value": {"messageId": "m1", "delta": "x"}}),
            changes: Changes::default(),
            after: vec![],
        },
        Case {
            name: "an unknown custom event",
            before: vec![],
            event: json!({"type": "CUSTOM", "name": "acme:thing", "value": 1}),
            changes: Changes::default(),
            after: vec![],
        },
        Case {
            name: "a malformed agora event",
            before: vec![],
            event: json!({"type": "CUSTOM", "name": "agora:tool_approval_request", "value": {"toolName": 3}}),
            changes: Changes::default(),
            after: vec![],
        },
        Case {
            name: "an unknown event type",
            before: vec![],
            event: json!({"type": "THINKING_START", "title": "hmm"}),
            changes: Changes::default(),
            after: vec![],
        },
    ];
    let quiet = [
        json!({"type": "ACTIVITY_SNAPSHOT", "messageId": "x", "activityType": "plan", "content": {}}),
        json!({"type": "ACTIVITY_DELTA", "messageId": "x", "activityType": "plan", "patch": []}),
        json!({"type": "REASONING_START", "messageId": "x"}),
        json!({"type": "REASONING_MESSAGE_START", "messageId": "x", "role": "reasoning"}),
        json!({"type": "REASONING_MESSAGE_CONTENT", "messageId": "x", "delta": "d"}),
        json!({"type": "REASONING_MESSAGE_END", "messageId": "x"}),
        json!({"type": "REASONING_MESSAGE_CHUNK", "messageId": "x", "delta": "d"}),
        json!({"type": "REASONING_END", "messageId": "x"}),
        json!({"type": "REASONING_ENCRYPTED_VALUE", "subtype": "message", "entityId": "x", "encryptedValue": "e"}),
        json!({"type": "RAW", "event": {"a": 1}}),
        json!({"type": "SUBAGENT_STARTED", "subagentRunId": "s", "name": "regulation-agent"}),
        json!({"type": "SUBAGENT_FINISHED", "subagentRunId": "s"}),
        json!({"type": "SUBAGENT_ERROR", "subagentRunId": "s", "message": "m"}),
    ];
    let quiet_cases = quiet.into_iter().map(|event| Case {
        name: "not shown in the timeline",
        before: vec![],
        event,
        changes: Changes::default(),
        after: vec![],
    });
    for case in cases.into_iter().chain(quiet_cases) {
        let mut state = started("t");
        for event in &case.before {
            state.apply(&ev(event.clone()));
        }
        let event = ev(case.event.clone());
        let got = state.apply(&event);
        assert_eq!(got, case.changes, "{}: {}", case.name, case.event);
        assert_eq!(texts(&state), case.after, "{}", case.name);
    }
}

#[test]
fn the_event_table_covers_every_variant() {
    // Adding a variant to `Event` breaks `scope` and `apply` (exhaustive, no `_`); this test
    // makes sure the table above names each wire type too.
    let source = include_str!("tests.rs");
    for kind in Event::KINDS {
        assert!(source.contains(&format!("\"type\": \"{kind}\"")), "{kind}");
    }
}

#[test]
fn status_line_follows_steps_and_tools() {
    let mut state = started("t");
    let view = state.run_view();
    assert!(view.running);
    assert_eq!(view.agent.as_deref(), Some("history-agent"));
    assert_eq!(view.activity("history-agent"), AgentActivity::Active);
    assert_eq!(view.activity("general-agent"), AgentActivity::Idle);
    state.apply(&ev(
        json!({"type": "STEP_STARTED", "stepName": "executing_tools"}),
    ));
    state.apply(&ev(json!({"type": "TOOL_CALL_START", "toolCallId": "c1", "toolCallName": "get_company_info", "toolDisplayName": "Bedrijfsgegevens ophalen"})));
    let view = state.run_view();
    assert_eq!(view.step.as_deref(), Some("executing_tools"));
    assert_eq!(view.tool.as_deref(), Some("Bedrijfsgegevens ophalen"));
    assert_eq!(view.activity("history-agent"), AgentActivity::Executing);
    state.apply(&ev(
        json!({"type": "RUN_FINISHED", "threadId": "t", "runId": "r1"}),
    ));
    let view = state.run_view();
    assert!(!view.running);
    assert_eq!(view.activity("history-agent"), AgentActivity::Idle);
}

#[test]
fn tool_calls_keep_agent_status_result_and_duration() {
    let mut state = started("t");
    for event in [
        json!({"type": "TOOL_CALL_START", "toolCallId": "c1", "toolCallName": "get_company_info", "toolDisplayName": "Bedrijfsgegevens ophalen", "toolDescription": "KVK", "timestamp": 1000}),
        json!({"type": "TOOL_CALL_ARGS", "toolCallId": "c1", "delta": "{\"kvk\":"}),
        json!({"type": "TOOL_CALL_ARGS", "toolCallId": "c1", "delta": "\"99990001\"}"}),
        json!({"type": "TOOL_CALL_END", "toolCallId": "c1"}),
        json!({"type": "TOOL_CALL_RESULT", "messageId": "t1", "toolCallId": "c1", "content": "{\"name\":\"Finta Fiore\"}", "timestamp": 1042}),
        json!({"type": "TOOL_CALL_START", "toolCallId": "c2", "toolCallName": "search_regulations"}),
        json!({"type": "TOOL_CALL_ARGS", "toolCallId": "c2", "delta": "{}"}),
        json!({"type": "TOOL_CALL_END", "toolCallId": "c2"}),
        json!({"type": "TOOL_CALL_RESULT", "messageId": "t2", "toolCallId": "c2", "content": "{\"error\":\"stuk\"}"}),
        json!({"type": "TOOL_CALL_START", "toolCallId": "c3", "toolCallName": "generate_final_report"}),
        json!({"type": "TOOL_CALL_ARGS", "toolCallId": "c3", "delta": "{}"}),
        json!({"type": "TOOL_CALL_END", "toolCallId": "c3"}),
        json!({"type": "TOOL_CALL_RESULT", "messageId": "t3", "toolCallId": "c3", "content": "{\"status\":\"rejected\",\"feedback\":\"nee\"}"}),
    ] {
        state.apply(&ev(event));
    }
    let c1 = state.tool_call("c1").unwrap();
    assert_eq!(c1.agent.as_deref(), Some("history-agent"));
    assert_eq!(c1.display_name.as_deref(), Some("Bedrijfsgegevens ophalen"));
    assert_eq!(c1.description.as_deref(), Some("KVK"));
    assert_eq!(c1.args, "{\"kvk\":\"99990001\"}");
    assert_eq!(c1.status, ToolStatus::Done);
    assert_eq!(c1.duration_ms(), Some(42));
    assert_eq!(state.tool_call("c2").unwrap().status, ToolStatus::Failed);
    assert_eq!(state.tool_call("c3").unwrap().status, ToolStatus::Rejected);
    // A rejected report gives no download card.
    assert_eq!(texts(&state), vec!["tools:3"]);
}

#[test]
fn unsafe_report_links_are_not_cards() {
    for url in [
        "javascript:alert(1)",
        "//evil.example/x.pdf",
        "data:text/html,x",
    ] {
        let mut state = started("t");
        let content = json!({"downloadUrl": url}).to_string();
        state.apply(&ev(json!({"type": "TOOL_CALL_RESULT", "messageId": "t", "toolCallId": "c", "content": content})));
        assert_eq!(texts(&state), vec!["tools:1"], "{url}");
    }
}

#[test]
fn deltas_report_only_their_own_message() {
    let mut state = started("t");
    state.apply(&ev(
        json!({"type": "TEXT_MESSAGE_START", "messageId": "a", "role": "assistant"}),
    ));
    state.apply(&ev(
        json!({"type": "TOOL_CALL_START", "toolCallId": "c", "toolCallName": "x"}),
    ));
    state.apply(&ev(
        json!({"type": "TEXT_MESSAGE_START", "messageId": "b", "role": "assistant"}),
    ));
    for i in 0..1000 {
        let id = if i % 2 == 0 { "a" } else { "b" };
        let got = state.apply(&ev(
            json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": id, "delta": "x"}),
        ));
        let index = if i % 2 == 0 { 0 } else { 2 };
        assert_eq!(
            got,
            Changes {
                delta: Some(index),
                ..Changes::default()
            }
        );
    }
}

#[test]
fn out_of_order_and_duplicate_events() {
    let mut state = ChatState::new("t");
    // Everything before RUN_STARTED still lands; RUN_FINISHED without a run is harmless.
    for event in [
        json!({"type": "RUN_FINISHED", "threadId": "t", "runId": "r0"}),
        json!({"type": "TEXT_MESSAGE_END", "messageId": "m"}),
        json!({"type": "TOOL_CALL_END", "toolCallId": "c"}),
        json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": "a"}),
        json!({"type": "TEXT_MESSAGE_START", "messageId": "m", "role": "assistant"}),
        json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": "b"}),
        json!({"type": "TOOL_CALL_RESULT", "messageId": "t", "toolCallId": "c", "content": "r"}),
        json!({"type": "TOOL_CALL_START", "toolCallId": "c", "toolCallName": "late"}),
        json!({"type": "TOOL_CALL_END", "toolCallId": "c"}),
        json!({"type": "TEXT_MESSAGE_END", "messageId": "m"}),
        json!({"type": "TEXT_MESSAGE_END", "messageId": "m"}),
        json!({"type": "STEP_FINISHED", "stepName": "never"}),
    ] {
        state.apply(&ev(event));
    }
    assert_eq!(texts(&state), vec!["?:ab", "tools:1"]);
    assert_eq!(state.tool_call("c").unwrap().status, ToolStatus::Done);
    assert!(!state.running());
}

#[test]
fn a_switched_thread_ignores_the_old_run() {
    let mut state = started("old");
    state.apply(&ev(
        json!({"type": "TEXT_MESSAGE_START", "messageId": "m", "role": "assistant"}),
    ));
    state.switch_thread("new");
    assert!(!state.running());
    for event in [
        json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": "oud"}),
        json!({"type": "CUSTOM", "name": "agora:tool_approval_request", "value": {
            "toolName": "x", "toolDescription": "", "parameters": {}, "reasoning": "", "riskLevel": "low", "approvalId": "a"}}),
        json!({"type": "MESSAGES_SNAPSHOT", "messages": [{"role": "user", "content": "nieuw"}]}),
        json!({"type": "RUN_ERROR", "message": "weg", "code": "cancelled"}),
        json!({"type": "RUN_FINISHED", "threadId": "old", "runId": "r1"}),
    ] {
        state.apply(&ev(event));
    }
    assert_eq!(texts(&state), vec!["user:nieuw"]);
    assert!(state.approvals.is_empty());
    // The next run is this thread's again.
    state.apply(&ev(
        json!({"type": "RUN_STARTED", "threadId": "new", "runId": "r2"}),
    ));
    assert!(state.running());
}

#[test]
fn history_keeps_queued_messages_and_rebuilds_tools() {
    let mut state = ChatState::new("t");
    state.push_user("offline getypt".into(), true);
    state.apply(&ev(json!({"type": "MESSAGES_SNAPSHOT", "messages": [
        {"role": "user", "id": "u1", "content": "Genereer het inspectierapport"},
        {"role": "assistant", "id": "a1", "name": "reporting-agent", "toolCalls": [
            {"id": "c1", "type": "function", "function": {"name": "generate_final_report", "arguments": "{\"kvk\":\"1\"}"}},
            {"id": "c2", "type": "function", "function": {"name": "search_regulations", "arguments": "{}"}}
        ]},
        {"role": "tool", "id": "t1", "toolCallId": "c1", "content": "{\"reportId\":\"R\",\"downloadUrl\":\"/reports/R.pdf\"}"},
        {"role": "assistant", "id": "a2", "name": "reporting-agent", "content": "Klaar."},
        {"role": "system", "content": "verborgen"}
    ]})));
    assert_eq!(
        texts(&state),
        vec![
            "user:Genereer het inspectierapport",
            "tools:2",
            "report:/reports/R.pdf",
            "reporting-agent:Klaar.",
            "user:offline getypt"
        ]
    );
    let c1 = state.tool_call("c1").unwrap();
    assert_eq!(c1.agent.as_deref(), Some("reporting-agent"));
    assert_eq!(c1.status, ToolStatus::Done);
    // Stored without a result: the run was cut off.
    assert_eq!(state.tool_call("c2").unwrap().status, ToolStatus::Failed);
    // The same snapshot twice shows everything once.
    let again = state.clone().items.len();
    state.apply(&ev(
        json!({"type": "MESSAGES_SNAPSHOT", "messages": [{"role": "user", "content": "x"}]}),
    ));
    assert!(state.items.len() < again);
    let changes = state.queued_sent("offline getypt");
    assert_eq!(changes.updated, vec![1]);
    assert!(matches!(
        state.items[1].kind,
        ItemKind::User { queued: false, .. }
    ));
    assert!(
        state.sending,
        "its run has not started: nothing else goes before it"
    );
}

#[test]
fn local_actions() {
    let mut state = started("t");
    assert_eq!(
        state.push_user("hallo".into(), false),
        Changes {
            appended_from: Some(0),
            // Sent: its run has not started yet (`sending`).
            run: true,
            ..Changes::default()
        }
    );
    for id in ["a1", "a2"] {
        state.apply(&ev(
            json!({"type": "CUSTOM", "name": "agora:tool_approval_request", "value": {
            "toolName": "generate_final_report", "toolDescription": "", "parameters": {},
            "reasoning": "", "riskLevel": "high", "approvalId": id}}),
        ));
    }
    assert!(state.run_view().awaiting_approval);
    assert!(state.answer_approval("a1").approvals);
    assert!(!state.answer_approval("a1").approvals);
    assert_eq!(state.approvals.len(), 1);
    state.apply(&ev(
        json!({"type": "TEXT_MESSAGE_START", "messageId": "m", "role": "assistant"}),
    ));
    // A lost connection changes nothing: the run goes on at the server.
    let changes = state.disconnected();
    assert!(changes.updated.is_empty());
    assert!(state.running());
    assert_eq!(state.approvals.len(), 1);
    // A replay brings what was missed: the run is not ended before it is heard.
    let thread = state.thread_id.clone();
    state.apply(&ev(
        json!({"type": "CUSTOM", "name": "agora:resumed", "value": {
        "threadId": thread, "mode": "replay", "afterSeq": 7, "lastSeq": 9, "running": false}}),
    ));
    assert!(state.running());
    assert_eq!(state.catching_up, Some(9));
    // A snapshot says the run ended meanwhile: the open message ends, the approval goes.
    let changes = state.apply(&ev(
        json!({"type": "CUSTOM", "name": "agora:resumed", "value": {
        "threadId": thread, "mode": "snapshot", "reason": "gap", "lastSeq": 9, "running": false}}),
    ));
    assert!(changes.run && changes.approvals);
    assert_eq!(changes.updated, vec![1]);
    assert!(!state.running());
    assert!(state.approvals.is_empty());
}

#[test]
fn numbers_are_kept_for_the_shown_thread_and_catching_up_ends_at_the_last() {
    let mut state = ChatState::new("t1");
    let resumed = |running: bool, last: u64| {
        ev(json!({"type": "CUSTOM", "name": "agora:resumed", "value": {
            "threadId": "t1", "mode": "replay", "afterSeq": 10, "lastSeq": last, "running": running}}))
    };
    state.apply(&ev(
        json!({"type": "RUN_STARTED", "threadId": "t1", "runId": "r1", "seq": 10}),
    ));
    assert_eq!(state.seq, Some(10));
    state.apply(&resumed(true, 12));
    assert_eq!(state.catching_up, Some(12));
    state.apply(&ev(
        json!({"type": "STEP_STARTED", "stepName": "thinking", "seq": 11}),
    ));
    assert_eq!(state.catching_up, Some(12));
    let changes = state.apply(&ev(
        json!({"type": "STEP_FINISHED", "stepName": "thinking", "seq": 12}),
    ));
    assert!(changes.run);
    assert_eq!((state.seq, state.catching_up), (Some(12), None));
    // Another thread's run leaves the number alone.
    state.apply(&ev(
        json!({"type": "RUN_FINISHED", "threadId": "t1", "runId": "r1", "seq": 13}),
    ));
    state.apply(&ev(
        json!({"type": "RUN_STARTED", "threadId": "t2", "runId": "r2", "seq": 900}),
    ));
    state.apply(&ev(
        json!({"type": "STEP_STARTED", "stepName": "x", "seq": 901}),
    ));
    assert_eq!(state.seq, Some(13));
    // A restart cut the run off: the page says so instead of waiting.
    let mut state = ChatState::new("t1");
    state.apply(&ev(
        json!({"type": "RUN_STARTED", "threadId": "t1", "runId": "r1", "seq": 1}),
    ));
    state.apply(&ev(
        json!({"type": "CUSTOM", "name": "agora:resumed", "value": {
        "threadId": "t1", "mode": "snapshot", "reason": "unknown", "lastSeq": 5, "running": false,
        "lastRun": {"runId": "r1", "status": "interrupted"}}}),
    ));
    assert!(!state.running());
    assert!(
        matches!(&state.items.last().unwrap().kind, ItemKind::Error(e) if e.code.as_deref() == Some("interrupted"))
    );
}

/// Replays an example as a client: server events are applied, the client's own messages
/// are the local actions a user takes.
fn replay(state: &mut ChatState, events: &[Value]) {
    for entry in events {
        let event = &entry["event"];
        if entry["direction"].as_str().unwrap().starts_with("client") {
            if let Some(messages) = event.get("messages") {
                let text = messages[0]["content"].as_str().unwrap().to_owned();
                state.push_user(text, false);
            } else if event["name"] == "agora:tool_approval_response" {
                state.answer_approval(event["value"]["approvalId"].as_str().unwrap());
            }
        } else {
            state.apply(&ev(event.clone()));
        }
    }
}

fn example(name: &str) -> Value {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/agora-contract/examples")
        .join(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap()
}

#[test]
fn example_basic_conversation() {
    let example = example("basic-conversation.json");
    let mut state = ChatState::new("abc123-def456-789");
    replay(&mut state, example["events"].as_array().unwrap());
    assert_eq!(
        texts(&state),
        vec![
            "user:What are the food safety regulations for restaurants?",
            "general-agent:Based on the Dutch food safety regulations, restaurants must maintain proper temperature control for all perishable items."
        ]
    );
    assert!(matches!(
        state.items[1].kind,
        ItemKind::Assistant {
            streaming: false,
            ..
        }
    ));
    assert!(!state.running());
}

#[test]
fn example_tool_approval_flow() {
    let example = example("tool-approval-flow.json");
    let events = example["events"].as_array().unwrap();
    let mut state = ChatState::new("abc123-def456-789");
    // Up to the request: the dialog has one approval to show.
    let request = events
        .iter()
        .position(|e| e["event"]["name"] == "agora:tool_approval_request")
        .unwrap();
    replay(&mut state, &events[..=request]);
    assert_eq!(state.approvals.len(), 1);
    assert_eq!(
        state.approvals[0].risk_level,
        crate::protocol::RiskLevel::Critical
    );
    assert_eq!(state.run_view().step.as_deref(), Some("executing_tools"));
    replay(&mut state, &events[request + 1..]);
    assert!(state.approvals.is_empty());
    assert_eq!(
        texts(&state),
        vec![
            "user:Generate the inspection report for INS-2024-001",
            "tools:1",
            "general-agent:I have successfully generated the inspection report for INS-2024-001. You can download the PDF from the link below."
        ]
    );
    let call = state.tool_call("call-report-001").unwrap();
    assert_eq!(call.status, ToolStatus::Done);
    assert_eq!(call.duration_ms(), Some(3000));
    assert_eq!(state.current_agent.as_deref(), Some("reporting-agent"));
    assert!(!state.running());
}

#[test]
fn example_error_handling() {
    let example = example("error-handling.json");
    for scenario in example["scenarios"].as_array().unwrap() {
        let name = scenario["name"].as_str().unwrap();
        let mut state = ChatState::new("abc123-def456-789");
        replay(&mut state, scenario["events"].as_array().unwrap());
        let errors: Vec<&ErrorItem> = state
            .items
            .iter()
            .filter_map(|i| match &i.kind {
                ItemKind::Error(e) => Some(e),
                _not_an_error => None,
            })
            .collect();
        let answers = texts(&state)
            .into_iter()
            .filter(|t| !t.starts_with("user:") && !t.starts_with("error:"))
            .collect::<Vec<_>>();
        match name {
            "Run Error (Official Event)" => {
                assert_eq!(errors.len(), 1, "{name}");
                assert_eq!(errors[0].source, ErrorSource::RunError);
                assert_eq!(errors[0].code.as_deref(), Some("processing_error"));
                assert!(errors[0].message.contains("rate limit"));
                assert!(
                    answers.is_empty(),
                    "an error is never an answer: {answers:?}"
                );
            }
            "AGORA Custom Error (Moderation)" => {
                assert_eq!(errors.len(), 1, "{name}");
                assert!(errors[0].is_moderation());
                assert!(
                    errors[0]
                        .details
                        .as_deref()
                        .unwrap()
                        .contains("inappropriate_language")
                );
                assert!(answers.is_empty(), "{answers:?}");
            }
            "Tool Approval Rejected" => {
                assert!(errors.is_empty(), "{name}");
                assert!(state.approvals.is_empty());
                assert_eq!(answers, vec!["?:I have cancelled the action as requested."]);
            }
            other => panic!("a new scenario to cover: {other}"),
        }
        assert!(!state.running(), "{name}");
    }
}

#[test]
fn event_log_folds_deltas_and_shows_verifier_warnings() {
    let mut log = EventLog::default();
    let events = [
        json!({"type": "RUN_STARTED", "threadId": "t", "runId": "r"}),
        json!({"type": "STATE_SNAPSHOT", "snapshot": {}}),
        json!({"type": "TEXT_MESSAGE_START", "messageId": "m", "role": "assistant"}),
        json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": "a"}),
        json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": "b"}),
        json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": "c"}),
        // Broken: a message that never started.
        json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": "zz", "delta": "x"}),
        json!({"type": "TEXT_MESSAGE_END", "messageId": "m"}),
    ];
    let changes: Vec<LogChange> = events.iter().map(|e| log.push(&ev(e.clone()))).collect();
    assert_eq!(changes[3], LogChange::Appended);
    assert!(matches!(changes[4], LogChange::Folded(_)));
    assert!(matches!(changes[5], LogChange::Folded(_)));
    assert_eq!(changes[6], LogChange::Appended);
    let lines: Vec<(&str, u32, usize)> = log
        .entries
        .iter()
        .map(|e| (e.kind.as_str(), e.count, e.warnings.len()))
        .collect();
    assert_eq!(
        lines,
        vec![
            ("RUN_STARTED", 1, 0),
            ("STATE_SNAPSHOT", 1, 0),
            ("TEXT_MESSAGE_START", 1, 0),
            ("TEXT_MESSAGE_CONTENT", 3, 0),
            ("TEXT_MESSAGE_CONTENT", 1, 1),
            ("TEXT_MESSAGE_END", 1, 0),
        ]
    );
    assert_eq!(log.warning_count(), 1);
    // The history answer is outside runs and not a violation.
    log.push(&ev(json!({"type": "MESSAGES_SNAPSHOT", "messages": []})));
    assert_eq!(log.warning_count(), 1);
    // The connection dropped inside the run; the resume replays the rest: one stream.
    log.push(&ev(
        json!({"type": "CUSTOM", "name": "agora:resumed", "value": {
            "threadId": "t", "lastSeq": 1, "running": true, "mode": "replay", "afterSeq": 0}}),
    ));
    log.push(&ev(json!({"type": "STATE_SNAPSHOT", "snapshot": {}})));
    log.push(&ev(
        json!({"type": "RUN_FINISHED", "threadId": "t", "runId": "r"}),
    ));
    assert_eq!(log.warning_count(), 1);
    // A snapshot starts a new stream, its state outside any run.
    log.push(&ev(
        json!({"type": "CUSTOM", "name": "agora:resumed", "value": {
            "threadId": "t", "lastSeq": 1, "running": true, "mode": "snapshot", "reason": "gap"}}),
    ));
    log.push(&ev(json!({"type": "MESSAGES_SNAPSHOT", "messages": []})));
    log.push(&ev(json!({"type": "STATE_SNAPSHOT", "snapshot": {}})));
    log.push(&ev(
        json!({"type": "RUN_STARTED", "threadId": "t", "runId": "r2"}),
    ));
    assert_eq!(log.warning_count(), 1);
    // A server that sends no state with its snapshot: the run's own first STATE_SNAPSHOT is
    // checked as usual.
    log.push(&ev(json!({"type": "STATE_SNAPSHOT", "snapshot": {}})));
    log.push(&ev(json!({"type": "STATE_SNAPSHOT", "snapshot": {}})));
    log.push(&ev(
        json!({"type": "RUN_FINISHED", "threadId": "t", "runId": "r2"}),
    ));
    log.push(&ev(
        json!({"type": "CUSTOM", "name": "agora:resumed", "value": {
            "threadId": "t", "lastSeq": 1, "running": true, "mode": "snapshot", "reason": "gap"}}),
    ));
    log.push(&ev(json!({"type": "MESSAGES_SNAPSHOT", "messages": []})));
    log.push(&ev(
        json!({"type": "RUN_STARTED", "threadId": "t", "runId": "r3"}),
    ));
    log.push(&ev(json!({"type": "STEP_STARTED", "stepName": "thinking"})));
    assert_eq!(
        log.warning_count(),
        2,
        "STEP_STARTED before the first STATE_SNAPSHOT"
    );
    // The connection dropped inside the run, and the page went on without resuming.
    assert_eq!(log.restart(), LogChange::Appended);
    assert_eq!(log.warning_count(), 3);
}

#[test]
fn event_log_is_bounded() {
    let mut log = EventLog::default();
    for i in 0..1000 {
        log.push(&ev(
            json!({"type": "STEP_STARTED", "stepName": format!("s{i}")}),
        ));
    }
    assert_eq!(log.entries.len(), 400);
    assert_eq!(log.entries.back().unwrap().detail, "s999");
}

/// A HAP report's result carries the form's summary: the card shows each section's status,
/// the completion and the JSON link; an unsafe JSON link is dropped.
#[test]
fn a_report_result_carries_the_form_summary() {
    let mut state = started("t");
    state.apply(&ev(json!({"type": "TOOL_CALL_START", "toolCallId": "c1", "toolCallName": "generate_final_report"})));
    let result = json!({
        "reportId": "HAP-1", "downloadUrl": "/reports/HAP-1.pdf", "jsonUrl": "/reports/HAP-1.json",
        "form": {
            "sections": [
                {"title": "Hygiëne algemeen", "status": "Nee"},
                {"title": "Allergeneninformatie", "status": "Niet beoordeeld"}
            ],
            "completion": 48.3
        }
    });
    state.apply(&ev(json!({"type": "TOOL_CALL_RESULT", "messageId": "t1", "toolCallId": "c1", "content": result.to_string()})));
    let form = state
        .items
        .iter()
        .find_map(|item| match &item.kind {
            ItemKind::Report { form, .. } => form.clone(),
            _ => None,
        })
        .expect("the report card has the form");
    assert_eq!(
        form.sections,
        vec![
            ("Hygiëne algemeen".to_owned(), "Nee".to_owned()),
            (
                "Allergeneninformatie".to_owned(),
                "Niet beoordeeld".to_owned()
            )
        ]
    );
    assert_eq!(form.completion, Some(48.3));
    assert_eq!(form.json_url.as_deref(), Some("/reports/HAP-1.json"));

    let mut state = started("t");
    state.apply(&ev(json!({"type": "TOOL_CALL_START", "toolCallId": "c1", "toolCallName": "generate_final_report"})));
    let unsafe_link = json!({"downloadUrl": "/reports/R.pdf", "jsonUrl": "javascript:alert(1)", "form": {"sections": []}});
    state.apply(&ev(json!({"type": "TOOL_CALL_RESULT", "messageId": "t1", "toolCallId": "c1", "content": unsafe_link.to_string()})));
    let form = state.items.iter().find_map(|item| match &item.kind {
        ItemKind::Report { form, .. } => form.clone(),
        _ => None,
    });
    assert_eq!(form.unwrap().json_url, None);
}

/// A report's violations with photos reach the card (issue 37): each with its number, words
/// and the addresses of its stored photos; an address that is not a stored photo's is dropped,
/// and a violation left with none is not listed.
#[test]
fn a_report_result_carries_each_findings_photos() {
    let mut state = started("t");
    state.apply(&ev(json!({"type": "TOOL_CALL_START", "toolCallId": "c1", "toolCallName": "generate_final_report"})));
    let (a, b) = ("a".repeat(64), "b".repeat(64));
    let result = json!({
        "reportId": "HAP-1", "downloadUrl": "/reports/HAP-1.pdf",
        "form": {"sections": []},
        "evidence": [
            {"number": 1, "description": "Koelcel op 11 °C", "photos": [format!("/photos/{a}"), "javascript:alert(1)", format!("/photos/{b}")]},
            {"number": 3, "description": "Muizenkeutels", "photos": ["https://elders.example/x.jpg"]}
        ]
    });
    state.apply(&ev(json!({"type": "TOOL_CALL_RESULT", "messageId": "t1", "toolCallId": "c1", "content": result.to_string()})));
    let form = state
        .items
        .iter()
        .find_map(|item| match &item.kind {
            ItemKind::Report { form, .. } => form.clone(),
            _ => None,
        })
        .expect("the report card has the form");
    assert_eq!(
        form.evidence,
        vec![(
            "1. Koelcel op 11 °C".to_owned(),
            vec![format!("/photos/{a}"), format!("/photos/{b}")]
        )]
    );
}

/// Enter during an answer: the message is held (shown as waiting), and released one at a time
/// only once no run of the shown thread is active and nothing is being caught up.
#[test]
fn messages_sent_during_a_run_wait_for_its_end() {
    let run_changes = Changes {
        run: true,
        ..Changes::default()
    };
    let finished = json!({"type": "RUN_FINISHED", "threadId": "t", "runId": "r1"});
    // (what happens, what is held after, what release gives)
    let mut state = started("t");
    assert_eq!(
        state.hold("  \n".into()),
        Changes::default(),
        "blank is not held"
    );
    assert_eq!(state.hold("Welke allergenen?".into()), run_changes);
    assert_eq!(state.hold("En de temperatuur?".into()), run_changes);
    assert_eq!(
        state.run_view().held,
        vec!["Welke allergenen?", "En de temperatuur?"]
    );
    assert_eq!(
        state.release_held(),
        (None, Changes::default()),
        "the run is active"
    );

    state.apply(&ev(finished.clone()));
    let (text, changes) = state.release_held();
    assert_eq!(text.as_deref(), Some("Welke allergenen?"));
    assert_eq!(changes, run_changes);
    assert_eq!(state.run_view().held, vec!["En de temperatuur?"]);

    // The released message starts the next run: the other waits for that one's end.
    state.apply(&ev(
        json!({"type": "RUN_STARTED", "threadId": "t", "runId": "r2"}),
    ));
    assert_eq!(state.release_held().0, None);
    // A run that ends in an error (Stop included) releases it too.
    state.apply(&ev(
        json!({"type": "RUN_ERROR", "message": "Gestopt", "code": "cancelled"}),
    ));
    assert_eq!(
        state.release_held().0.as_deref(),
        Some("En de temperatuur?")
    );
    assert_eq!(
        state.release_held(),
        (None, Changes::default()),
        "nothing left"
    );

    // While a reconnect catches up the run may still be going at the server: wait.
    let mut state = started("t");
    state.hold("Nog een vraag".into());
    state.apply(&ev(
        json!({"type": "CUSTOM", "name": "agora:resumed", "value": {
        "threadId": "t", "mode": "replay", "afterSeq": 1, "lastSeq": 9, "running": false}}),
    ));
    state.apply(&ev(finished));
    assert_eq!(state.catching_up, Some(9));
    assert_eq!(state.release_held().0, None);

    // Taken back (to edit, or the thread is left): nothing held, all texts returned in order.
    let (taken, changes) = state.take_held();
    assert_eq!(taken, vec!["Nog een vraag"]);
    assert_eq!(changes, run_changes);
    assert_eq!(state.take_held(), (Vec::new(), Changes::default()));

    // Never into another thread.
    let mut state = started("t");
    state.hold("Voor t".into());
    state.switch_thread("u");
    assert!(state.held.is_empty());
}

/// A message sent is answered by `RUN_STARTED` a round trip later (longer on a slow link);
/// the server stops a thread's running run for a new message, so one typed in that gap must
/// wait like one typed during the answer. Whatever ends the wait: the run starting (and then
/// ending), the message being refused, a reconnect, another thread.
#[test]
fn a_message_typed_before_the_last_ones_run_started_waits_for_it() {
    let thread = |state: &mut ChatState| {
        state.switch_thread("t");
    };
    let mut state = ChatState::default();
    thread(&mut state);
    assert!(!state.run_view().sending);
    // Queued (no connection): nothing went out, nothing to wait for.
    state.push_user("offline".into(), true);
    assert!(!state.run_view().sending);

    let changes = state.push_user("Start inspectie bij Trattoria Finta Fiore".into(), false);
    assert!(changes.run, "the composer is told");
    assert!(state.run_view().sending && !state.run_view().running);
    state.hold("Bevinding: geen zeep".into());
    assert_eq!(
        state.release_held().0,
        None,
        "the first run has not started"
    );
    state.apply(&ev(
        json!({"type": "RUN_STARTED", "threadId": "t", "runId": "r1"}),
    ));
    assert!(!state.run_view().sending);
    assert_eq!(state.release_held().0, None, "and now it runs");
    state.apply(&ev(
        json!({"type": "RUN_FINISHED", "threadId": "t", "runId": "r1"}),
    ));
    assert_eq!(
        state.release_held().0.as_deref(),
        Some("Bevinding: geen zeep")
    );

    // Refused (too long, rate limited …): no run follows.
    state.push_user("x".repeat(10), false);
    state.apply(&ev(
        json!({"type": "CUSTOM", "name": "agora:error", "value": {
        "errorCode": "rate_limited", "message": "Te veel berichten"}}),
    ));
    assert!(!state.run_view().sending);

    // A reconnect: the server says whether a run goes on.
    state.push_user("verloren".into(), false);
    state.apply(&ev(
        json!({"type": "CUSTOM", "name": "agora:resumed", "value": {
        "threadId": "t", "mode": "replay", "afterSeq": 1, "lastSeq": 1, "running": false}}),
    ));
    assert!(!state.run_view().sending);

    // Another thread starts clean.
    state.push_user("nog een".into(), false);
    state.switch_thread("u");
    assert!(!state.run_view().sending);
}

/// An error that sending again may cure offers the inspector's last message to send again;
/// a refusal of the message itself does not.
#[test]
fn an_error_worth_retrying_offers_the_last_message_again() {
    let cases = [
        (
            json!({"type": "RUN_ERROR", "message": "druk", "code": "rate_limited"}),
            Some("Bevinding: geen zeep"),
        ),
        (
            json!({"type": "RUN_ERROR", "message": "model weg", "code": "model_unreachable"}),
            Some("Bevinding: geen zeep"),
        ),
        (
            json!({"type": "CUSTOM", "name": "agora:error", "value": {"errorCode": "processing_error", "message": "mis"}}),
            Some("Bevinding: geen zeep"),
        ),
        (
            json!({"type": "CUSTOM", "name": "agora:error", "value": {"errorCode": "message_too_long", "message": "te lang"}}),
            None,
        ),
        (
            json!({"type": "CUSTOM", "name": "agora:error", "value": {"errorCode": "moderation_violation", "message": "nee"}}),
            None,
        ),
        (
            json!({"type": "RUN_ERROR", "message": "gestopt", "code": "cancelled"}),
            None,
        ),
        (json!({"type": "RUN_ERROR", "message": "onbekend"}), None),
    ];
    for (event, expected) in cases {
        let mut state = started("t");
        state.push_user("Start inspectie bij Bakkerij Jansen".into(), false);
        state.push_user("Bevinding: geen zeep".into(), false);
        state.apply(&ev(event.clone()));
        let resend = state.items.iter().find_map(|item| match &item.kind {
            ItemKind::Error(error) => Some(error.resend.clone()),
            _ => None,
        });
        assert_eq!(resend, Some(expected.map(str::to_owned)), "{event}");
    }
}

#[test]
fn listen_mode_follows_the_shared_state() {
    let mut state = started("t");
    assert!(!state.run_view().listening);
    state.apply(&ev(
        json!({"type": "STATE_SNAPSHOT", "snapshot": {"status": "completed", "listening": true}}),
    ));
    assert!(state.run_view().listening);
    state.apply(&ev(json!({"type": "STATE_DELTA", "delta": [{"op": "replace", "path": "/listening", "value": false}]})));
    assert!(!state.run_view().listening);
    // A server that does not know listen mode sends no `listening`: off.
    state.apply(&ev(
        json!({"type": "STATE_SNAPSHOT", "snapshot": {"status": "completed"}}),
    ));
    assert!(!state.run_view().listening);
}
