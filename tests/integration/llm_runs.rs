//! Runs over `/ws` against the strict scripted model server (`common::model`): what a small
//! real model cannot be made to do (malformed calls, calls of other agents' tools, a cut-off
//! answer) is scripted here.

#![cfg(feature = "ssr")]

use crate::common;

use std::sync::{Arc, Mutex};

use common::model::{self, Script, refusal};
use common::{TestServer, assert_agora_clean, of_type};
use serde_json::{Value, json};

/// The AGORA server on a strict model server that follows `script`; returns both.
async fn start(script: Vec<Script>) -> (TestServer, Arc<Mutex<Vec<Value>>>) {
    start_with(script, |_| {}).await
}

/// [`start`], with the server's configuration adjusted.
async fn start_with(
    script: Vec<Script>,
    configure: impl FnOnce(&mut agora_hai::server::Config),
) -> (TestServer, Arc<Mutex<Vec<Value>>>) {
    let (base_url, requests) = model::serve(script).await;
    let server = TestServer::start_with(|c| {
        c.llm_base_url = Some(base_url);
        c.llm_context_tokens = Some(8192);
        configure(c);
    })
    .await;
    (server, requests)
}

/// The last message the model server received in request `n`.
fn last_message_of(requests: &Arc<Mutex<Vec<Value>>>, n: usize) -> Value {
    requests.lock().unwrap()[n]["messages"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .clone()
}

fn thread() -> String {
    format!("thread-{}", uuid::Uuid::new_v4())
}

/// The 400s the strict server gave, with why.
fn refused(requests: &Arc<Mutex<Vec<Value>>>) -> Vec<String> {
    requests
        .lock()
        .unwrap()
        .iter()
        .filter_map(|body| refusal(body["messages"].as_array().unwrap()))
        .collect()
}

const HANDOFF_TO_REPORTING: &str = r#"{"agent": "reporting-agent", "reason": "rapport"}"#;

#[tokio::test]
async fn a_cancel_while_an_approval_waits_leaves_a_thread_the_model_server_accepts() {
    let (server, requests) = start(vec![
        Script::Call("handoff_to_agent", HANDOFF_TO_REPORTING, "tool_calls"),
        Script::Call("generate_final_report", "{}", "tool_calls"),
        Script::Text("Goed, ik wacht.", "stop"),
    ])
    .await;
    let mut socket = server.socket().await;
    let thread = thread();
    socket.ask(&thread, "Maak het rapport").await;
    let mut events = socket.until_approval_request().await;
    socket
        .send(&json!({ "type": "CUSTOM", "name": "agora:cancel_run", "value": { "threadId": thread } }))
        .await;
    events.extend(socket.until_finished().await);
    assert_agora_clean(&events);
    assert_eq!(of_type(&events, "RUN_ERROR")[0]["code"], "cancelled");
    // The stored thread has the call closed: the approval came before the call was announced,
    // so the result is the thread's, not the stream's.
    let request = of_type(&events, "CUSTOM")
        .into_iter()
        .find(|e| e["name"] == "agora:tool_approval_request")
        .unwrap()["value"]
        .clone();
    let stored = server.state.db.messages(&thread).await.unwrap();
    let closed = stored
        .iter()
        .find_map(|m| match m {
            agora_hai::protocol::Message::Tool(t) if t.tool_call_id == request["toolCallId"] => {
                Some(t.content.clone())
            }
            _ => None,
        })
        .expect("a result for the cancelled call");
    assert!(closed.contains("cancelled"), "{closed}");
    // The audit log has the decision.
    let approvals = server.state.db.approvals(&thread).await.unwrap();
    let decision = approvals[0].decision.as_ref().expect("decided");
    assert!(!decision.approved);
    assert_eq!(decision.decided_by, "system");

    // Two more messages on the thread: each request accepted by the strict server.
    for text in ["Wat was de laatste bevinding?", "Dank je"] {
        socket.ask(&thread, text).await;
        let events = socket.until_finished().await;
        assert_agora_clean(&events);
        assert!(of_type(&events, "RUN_ERROR").is_empty(), "{events:?}");
    }
    assert_eq!(refused(&requests), Vec::<String>::new());
    assert_eq!(requests.lock().unwrap().len(), 4);
}

/// A model writes a KVK number of its own for the report (the 270M test model wrote 40000000).
/// Before anyone is asked, the call is settled on the company the inspector named: the dialog
/// shows that company, and the approved report is about it.
#[tokio::test]
async fn a_report_call_with_an_invented_kvk_is_approved_as_the_named_company() {
    let (server, _requests) = start(vec![
        Script::Call("handoff_to_agent", HANDOFF_TO_REPORTING, "tool_calls"),
        Script::Call(
            "generate_final_report",
            r#"{"kvk": "40000000", "findings": []}"#,
            "tool_calls",
        ),
        Script::Text("Het rapport is klaar.", "stop"),
    ])
    .await;
    let mut socket = server.socket().await;
    let thread = thread();
    socket
        .ask(&thread, "Maak het rapport voor Slagerij Verzinsel")
        .await;
    let mut events = socket.until_approval_request().await;
    let request = events.last().unwrap()["value"].clone();
    assert_eq!(request["parameters"]["kvk"], "99990004", "{request:#}");
    assert_eq!(request["parameters"]["company_name"], "Slagerij Verzinsel");
    socket
        .answer_approval(request["approvalId"].as_str().unwrap(), true, None)
        .await;
    events.extend(socket.until_finished().await);
    assert_agora_clean(&events);
    let result = of_type(&events, "TOOL_CALL_RESULT")
        .into_iter()
        .find(|r| r["toolCallId"] == request["toolCallId"])
        .and_then(|r| serde_json::from_str::<Value>(r["content"].as_str()?).ok())
        .expect("the report's result");
    assert_eq!(result["company"]["kvk"], "99990004", "{result:#}");
    assert_eq!(result["company"]["registered"], true);
    // What was approved is what the audit log holds.
    let approvals = server.state.db.approvals(&thread).await.unwrap();
    assert_eq!(approvals[0].parameters["kvk"], "99990004");
}

#[tokio::test]
async fn a_run_that_fails_before_answering_does_not_break_the_alternation() {
    let (server, requests) = start(vec![Script::Refuse, Script::Text("Hallo!", "stop")]).await;
    let mut socket = server.socket().await;
    let thread = thread();
    socket.ask(&thread, "Eerste vraag").await;
    let events = socket.until_finished().await;
    assert_agora_clean(&events);
    let error = of_type(&events, "RUN_ERROR")[0];
    assert_eq!(error["code"], "model_rejected");
    assert!(
        !error["message"].as_str().unwrap().contains("scripted"),
        "details stay in the log: {error}"
    );
    // The run's record is closed just after its last event went out (see issue 16's note).
    let mut runs = server.state.db.runs(&thread).await.unwrap();
    for _ in 0..200 {
        if runs[0].error.is_some() {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
        runs = server.state.db.runs(&thread).await.unwrap();
    }
    assert!(
        runs[0]
            .error
            .as_deref()
            .unwrap()
            .starts_with("model_rejected: "),
        "{runs:?}"
    );

    socket.ask(&thread, "Tweede vraag").await;
    let events = socket.until_finished().await;
    assert!(of_type(&events, "RUN_ERROR").is_empty(), "{events:?}");
    let second = requests.lock().unwrap()[1].clone();
    let user_turns: Vec<&Value> = second["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "user")
        .collect();
    assert_eq!(user_turns.len(), 1, "the two questions go as one turn");
    assert_eq!(user_turns[0]["content"], "Eerste vraag\n\nTweede vraag");
    // Usage as the server counted it.
    let finished = events.last().unwrap();
    assert_eq!(finished["metadata"]["usage"]["modelRequests"], 1);
    assert_eq!(finished["metadata"]["usage"]["promptTokens"], 101);
}

/// AG-UI 1.0 on `/agui`: the tokens the model reported, as `usage` on RUN_FINISHED.
#[tokio::test]
async fn a_standard_run_reports_its_token_usage() {
    let (server, _) = start(vec![Script::Text("Goed.", "stop")]).await;
    let input = json!({
        "threadId": format!("t-{}", uuid::Uuid::new_v4()), "runId": "run-usage",
        "messages": [{ "id": "m-1", "role": "user", "content": "Hallo" }],
        "tools": [], "context": [],
    });
    let body = server
        .http
        .post(server.url("/agui"))
        .json(&input)
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let events: Vec<Value> = body
        .lines()
        .filter_map(|line| line.strip_prefix("data: "))
        .map(|data| serde_json::from_str(data).unwrap())
        .collect();
    common::assert_official("standard", &events);
    let finished = events.last().unwrap();
    assert_eq!(finished["type"], "RUN_FINISHED", "{events:?}");
    assert_eq!(
        finished["usage"],
        json!([{ "provider": "openai", "inputTokens": 100, "outputTokens": 7, "totalTokens": 107 }])
    );
}

#[tokio::test]
async fn a_malformed_call_is_answered_once_and_a_second_ends_the_run_clearly() {
    let (server, requests) = start(vec![
        Script::Call("handoff_to_agent", "{agent: reporting}", "tool_calls"),
        Script::Call("handoff_to_agent", r#"{"agent": "#, "tool_calls"),
        Script::Text("Goed.", "stop"),
    ])
    .await;
    let mut socket = server.socket().await;
    let thread = thread();
    socket.ask(&thread, "Rapport graag").await;
    let events = socket.until_finished().await;
    assert_agora_clean(&events);
    assert_eq!(
        of_type(&events, "RUN_ERROR")[0]["code"],
        "model_invalid_tool_calls"
    );
    // The model was told what was wrong before its second try.
    let told = last_message_of(&requests, 1);
    assert_eq!(told["role"], "tool");
    assert!(
        told["content"].as_str().unwrap().contains("not valid JSON"),
        "{told}"
    );
    // Both calls have results in the stored thread, so the next message goes through.
    socket.ask(&thread, "Nog een keer").await;
    let events = socket.until_finished().await;
    assert!(of_type(&events, "RUN_ERROR").is_empty(), "{events:?}");
    assert_eq!(refused(&requests), Vec::<String>::new());
}

#[tokio::test]
async fn a_tool_of_another_agent_is_refused_and_the_model_corrects_itself() {
    let (server, requests) = start(vec![
        // The general agent may only hand over.
        Script::Call("generate_final_report", "{}", "tool_calls"),
        Script::Text("Ik geef het door.", "stop"),
    ])
    .await;
    let mut socket = server.socket().await;
    let thread = thread();
    socket.ask(&thread, "Maak meteen het rapport").await;
    let events = socket.until_finished().await;
    assert_agora_clean(&events);
    assert!(of_type(&events, "RUN_ERROR").is_empty(), "{events:?}");
    assert!(
        of_type(&events, "CUSTOM")
            .iter()
            .all(|e| e["name"] != "agora:tool_approval_request"),
        "nothing was asked: the call never ran"
    );
    let told = last_message_of(&requests, 1);
    assert!(
        told["content"]
            .as_str()
            .unwrap()
            .contains("is not a tool of general-agent"),
        "{told}"
    );
    let first = requests.lock().unwrap()[0].clone();
    assert_eq!(
        first["parallel_tool_calls"], false,
        "the general agent decides one handoff"
    );
    assert!(server.state.db.approvals(&thread).await.unwrap().is_empty());
}

#[tokio::test]
async fn an_answer_cut_off_at_the_limit_is_not_passed_off_as_complete() {
    let (server, requests) = start(vec![
        Script::Text("De bewaartemperatuur voor", "length"),
        Script::Text("Kort: 7 °C.", "stop"),
    ])
    .await;
    let mut socket = server.socket().await;
    let thread = thread();
    socket
        .ask(&thread, "Wat is de bewaartemperatuur voor gehakt?")
        .await;
    let events = socket.until_finished().await;
    assert_agora_clean(&events);
    let error = of_type(&events, "RUN_ERROR")[0];
    assert_eq!(error["code"], "model_output_truncated");
    assert!(
        error["message"].as_str().unwrap().contains("afgebroken"),
        "{error}"
    );
    // The partial text is kept, and the thread goes on.
    socket.ask(&thread, "Korter graag").await;
    let events = socket.until_finished().await;
    assert!(of_type(&events, "RUN_ERROR").is_empty(), "{events:?}");
    let second = requests.lock().unwrap()[1].clone();
    assert!(second.to_string().contains("De bewaartemperatuur voor"));
    assert_eq!(refused(&requests), Vec::<String>::new());
}

#[tokio::test]
async fn an_agent_that_decides_once_keeps_the_first_of_several_calls() {
    // As llama.cpp does despite `parallel_tool_calls: false`: the same handoff three times.
    let (server, requests) = start(vec![
        Script::Calls(vec![
            ("handoff_to_agent", HANDOFF_TO_REPORTING),
            ("handoff_to_agent", HANDOFF_TO_REPORTING),
            ("handoff_to_agent", HANDOFF_TO_REPORTING),
        ]),
        Script::Text("Welk bedrijf?", "stop"),
    ])
    .await;
    let mut socket = server.socket().await;
    let thread = thread();
    socket.ask(&thread, "Rapport").await;
    let events = socket.until_finished().await;
    assert_agora_clean(&events);
    assert_eq!(of_type(&events, "TOOL_CALL_START").len(), 1);
    let second = requests.lock().unwrap()[1].clone();
    let calls: usize = second["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|m| m["tool_calls"].as_array())
        .map(Vec::len)
        .sum();
    assert_eq!(calls, 1, "the history holds the one call that ran");
    assert_eq!(refused(&requests), Vec::<String>::new());
}

#[tokio::test]
async fn the_last_turn_may_only_answer_so_a_looping_model_still_ends_with_one() {
    // A model that calls a tool every time it can.
    let (server, requests) = start_with(
        vec![
            Script::Call("handoff_to_agent", HANDOFF_TO_REPORTING, "tool_calls"),
            Script::Call("generate_final_report", "{}", "tool_calls"),
            Script::Text("Ik kan nu alleen antwoorden.", "stop"),
        ],
        |c| {
            c.max_turns = 2;
            // Asked of every request, yet the last turn is answer-only.
            c.llm_extra_body = Some(r#"{"tool_choice": "required"}"#.to_owned());
        },
    )
    .await;
    let mut socket = server.socket().await;
    let thread = thread();
    socket.ask(&thread, "Rapport").await;
    let events = socket.until_finished().await;
    assert_agora_clean(&events);
    assert!(of_type(&events, "RUN_ERROR").is_empty(), "{events:?}");
    let requests = requests.lock().unwrap();
    assert_eq!(requests.len(), 2);
    assert_eq!(requests[0]["tool_choice"], "required");
    assert_eq!(
        requests[1]["tool_choice"], "none",
        "the second and last turn"
    );
    assert!(requests[1].get("parallel_tool_calls").is_none());
}
