//! A scripted OpenAI-compatible model server, as strict as the strictest real ones: it
//! refuses, as OpenAI and Gemma's template do, a request whose roles do not alternate, whose
//! system message is not first and alone, or whose tool calls lack their results. Each request
//! gets the script's next answer (the last one again once the script is used up), streamed as
//! `chat.completion.chunk` frames with a usage frame, as vLLM and OpenAI send them. What a small
//! real model cannot be made to do (malformed calls, calls of other agents' tools, a cut-off
//! answer) is scripted with it.

use std::sync::{Arc, Mutex};

use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::{Json, Router};
use serde_json::{Value, json};

/// One scripted answer: frames of `chat.completion.chunk` deltas and a finish reason.
#[derive(Clone)]
pub enum Script {
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
    /// A vision model: takes `image_url` parts, with a `data:` URL or one it can fetch. A
    /// text-only model refuses any image part, as vLLM and llama.cpp do without a projector.
    vision: bool,
}

/// Why this server refuses the images of a request, if it does.
fn image_refusal(messages: &[Value], vision: bool) -> Option<String> {
    let urls: Vec<&str> = messages
        .iter()
        .filter_map(|m| m["content"].as_array())
        .flatten()
        .filter(|part| part["type"] == "image_url")
        .map(|part| part["image_url"]["url"].as_str().unwrap_or_default())
        .collect();
    if urls.is_empty() {
        return None;
    }
    if !vision {
        return Some("this model does not support image input".into());
    }
    urls.iter()
        .find(|url| !url.starts_with("data:image/") && !url.starts_with("https://"))
        .map(|url| format!("invalid image URL: {}", &url[..url.len().min(40)]))
}

/// Why a strict server refuses this conversation, if it does.
pub fn refusal(messages: &[Value]) -> Option<String> {
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
    let messages = body["messages"].as_array().unwrap();
    if let Some(reason) = refusal(messages).or_else(|| image_refusal(messages, strict.vision)) {
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

/// Starts a model server that follows `script` on a free port; returns its `/v1` base URL and
/// every request body it received, in order.
pub async fn serve(script: Vec<Script>) -> (String, Arc<Mutex<Vec<Value>>>) {
    serve_model(script, false).await
}

/// [`serve`] as a vision model, which takes `image_url` parts (`data:` or `https:` URLs).
pub async fn serve_vision(script: Vec<Script>) -> (String, Arc<Mutex<Vec<Value>>>) {
    serve_model(script, true).await
}

async fn serve_model(script: Vec<Script>, vision: bool) -> (String, Arc<Mutex<Vec<Value>>>) {
    let requests = Arc::new(Mutex::new(Vec::new()));
    let app = Router::new()
        .route("/v1/chat/completions", post(completions))
        .with_state(Strict {
            script: Arc::new(script),
            requests: requests.clone(),
            vision,
        });
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (format!("http://{addr}/v1"), requests)
}
