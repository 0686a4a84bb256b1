//! Runs over `/ws` against a scripted model server that is as strict as the strictest real
//! ones: it refuses, as OpenAI and Gemma's template do, a request whose roles do not alternate,
//! whose system message is not first and alone, or whose tool calls lack their results. What
//! a small real model cannot be made to do (malformed calls, calls of other agents' tools, a
//! cut-off answer) is scripted here.

#![cfg(feature = "ssr")]

use crate::common;

use std::sync::{Arc, Mutex};

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use common::{TestServer, assert_agora_clean, of_type};
use serde_json::{Value, json};

/// One scripted answer: frames of `chat.completion.chunk` deltas and a finish reason.
#[derive(Clone)]
enum Script {
    Text(&'static str, &'static str),
    Call(&'static str, &'static str, &'static str),
    /// Several calls in one response (name, arguments).
    Calls(Vec<(&'static str, &'static str)>),
    /// Refused with 400 before any output.
    Refuse,
}

#[derive(Clone)]
struct Strict {
    script: Arc<Vec<Script>>,
    requests: Arc<Mutex<Vec<Value>>>,
}

/// Why a strict server refuses this conversation, if it does.
fn refusal(messages: &[Value]) -> Option<String> {
    let roles: Vec<&str> = messages
        .iter()
        .map(|m| m["role"].as_str().unwrap())
        .collect();
    if roles.iter().skip(1).any(|r| *r == "system") {
        return Some("System role only supported at the beginning".into());
    }
    let mut expect_user = true;
    let mut waiting: Vec<String> = Vec::new();
    for message in messages.iter().skip_while(|m| m["role"] == "system") {
        match message["role"].as_str().unwrap() {
            "tool" => {
                let id = message["tool_call_id"].as_str().unwrap_or_default();
                if !waiting.iter().any(|w| w == id) {
                    return Some(format!("tool result {id} answers no call"));
                }
                waiting.retain(|w| w != id);
                expect_user = false;
            }
            role => {
                if !waiting.is_empty() {
                    return Some(
                        "An assistant message with 'tool_calls' must be followed by tool messages"
                            .into(),
                    );
                }
                if (role == "user") != expect_user {
                    return Some(
                        "Conversation roles must alternate user/assistant/user/assistant".into(),
                    );
                }
                expect_user = role != "user";
                if role == "assistant" {
                    waiting = message["tool_calls"]
                        .as_array()
                        .into_iter()
                        .flatten()
                        .map(|c| c["id"].as_str().unwrap().to_owned())
                        .collect();
                    expect_user = waiting.is_empty();
                }
            }
        }
    }
    None
}

fn chunk(delta: Value, finish: Option<&str>) -> String {
    let chunk = json!({"object": "chat.completion.chunk",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]});
    format!("data: {chunk}\n\n")
}

async fn completions(State(strict): State<Strict>, body: Bytes) -> Response {
    let body: Value = serde_json::from_slice(&body).unwrap();
    let n = {
        let mut requests = strict.requests.lock().unwrap();
        requests.push(body.clone());
        requests.len() - 1
    };
    if let Some(reason) = refusal(body["messages"].as_array().unwrap()) {
        return (
            StatusCode::BAD_REQUEST,
            Json(json!({"error": {"message": reason}})),
        )
            .into_response();
    }
    let script = strict.script[n.min(strict.script.len() - 1)].clone();
    let frames = match script {
        Script::Refuse => {
            return (
                StatusCode::BAD_REQUEST,
                Json(json!({"error": {"message": "scripted refusal"}})),
            )
                .into_response();
        }
        Script::Text(text, finish) => vec![
            chunk(json!({"content": text}), None),
            chunk(json!({}), Some(finish)),
        ],
        Script::Calls(calls) => {
            let deltas: Vec<Value> = calls
                .iter()
                .enumerate()
                .map(|(i, (name, arguments))| {
                    json!({"index": i, "id": format!("call_{n}_{i}"), "type": "function",
                        "function": {"name": name, "arguments": arguments}})
                })
                .collect();
            vec![
                chunk(json!({ "tool_calls": deltas }), None),
                chunk(json!({}), Some("tool_calls")),
            ]
        }
        Script::Call(name, arguments, finish) => vec![
            chunk(
                json!({"tool_calls": [{"index": 0, "id": format!("call_{n}"), "type": "function",
                    "function": {"name": name, "arguments": arguments}}]}),
                None,
            ),
            chunk(json!({}), Some(finish)),
        ],
    };
    let usage = format!(
        "data: {}\n\n",
        json!({"object": "chat.completion.chunk", "choices": [],
               "usage": {"prompt_tokens": 100 + n, "completion_tokens": 7}})
    );
    let all: Vec<Result<String, std::convert::Infallible>> = frames
        .into_iter()
        .chain([usage, "data: [DONE]\n\n".to_owned()])
        .map(Ok)
        .collect();
    Response::builder()
        .header(header::CONTENT_TYPE, "text/event-stream")
        .body(Body::from_stream(futures::stream::iter(all)))
        .unwrap()
}

use axum::Json;

/// The AGORA server on a strict model server that follows `script`; returns both.
async fn start(script: Vec<Script>) -> (TestServer, Arc<Mutex<Vec<Value>>>) {
    start_with(script, |_| {}).await
}

/// [`start`], with the server's configuration adjusted.
async fn start_with(
    script: Vec<Script>,
    configure: impl FnOnce(&mut agora_hai::server::Config),
) -> (TestServer, Arc<Mutex<Vec<Value>>>) {
    let requests = Arc::new(Mutex::new(Vec::new()));
    let app = Router::new()
        .route("/v1/chat/completions", post(completions))
        .with_state(Strict {
            script: Arc::new(script),
            requests: requests.clone(),
        });
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    let server = TestServer::start_with(|c| {
        c.llm_base_url = Some(format!("http://{addr}/v1"));
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
