//! The OpenAI-compatible provider against a fake chat-completions server over real HTTP.

#![cfg(feature = "ssr")]

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use agora_hai::orchestrator::llm::openai::{OpenAiConfig, OpenAiProvider};
use agora_hai::orchestrator::llm::{CompletionRequest, LlmChunk, LlmError, LlmProvider, ToolSpec};
use agora_hai::protocol::Message;
use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use futures::StreamExt;
use serde_json::{Value, json};

// ---------------------------------------------------------------------------------------------
// The fake server.

/// What the fake answers to every request.
#[derive(Clone)]
enum Reply {
    /// `data:` frames written one by one, then `data: [DONE]`.
    Frames(Vec<String>),
    /// A refusal with this status, content type and body.
    Refuse(u16, &'static str, String),
}

/// One request as the fake received it.
#[derive(Debug, Clone)]
struct Received {
    authorization: Option<String>,
    body: Value,
}

#[derive(Clone)]
struct Fake {
    reply: Reply,
    received: Arc<Mutex<Vec<Received>>>,
}

async fn chat_completions(State(fake): State<Fake>, headers: HeaderMap, body: Bytes) -> Response {
    let body: Value = serde_json::from_slice(&body).expect("the request body is JSON");
    let authorization = headers
        .get(header::AUTHORIZATION)
        .map(|v| v.to_str().unwrap().to_owned());
    fake.received.lock().unwrap().push(Received {
        authorization,
        body: body.clone(),
    });
    match fake.reply {
        Reply::Refuse(status, content_type, text) => (
            StatusCode::from_u16(status).unwrap(),
            [(header::CONTENT_TYPE, content_type)],
            text,
        )
            .into_response(),
        Reply::Frames(frames) => {
            assert_eq!(body["stream"], json!(true), "the fake only streams");
            // Written with pauses so they reach the client as separate reads.
            let writes =
                futures::stream::iter(frames.into_iter().chain(["data: [DONE]\n\n".to_owned()]))
                    .then(|frame| async move {
                        tokio::time::sleep(Duration::from_millis(5)).await;
                        Ok::<_, Infallible>(frame)
                    });
            Response::builder()
                .header(header::CONTENT_TYPE, "text/event-stream")
                .header(header::CACHE_CONTROL, "no-cache")
                .body(Body::from_stream(writes))
                .unwrap()
        }
    }
}

/// Starts a fake on a free port; returns its `/v1` base URL and what it will have received.
async fn serve(reply: Reply) -> (String, Arc<Mutex<Vec<Received>>>) {
    let received = Arc::new(Mutex::new(Vec::new()));
    let app = Router::new()
        .route("/v1/chat/completions", post(chat_completions))
        .with_state(Fake {
            reply,
            received: received.clone(),
        });
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr: SocketAddr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (format!("http://{addr}/v1"), received)
}

/// A `chat.completion.chunk` frame with one choice.
fn frame(delta: Value, finish_reason: Option<&str>) -> String {
    let chunk = json!({
        "id": "chatcmpl-fake",
        "object": "chat.completion.chunk",
        "created": 1_700_000_000,
        "model": "fake-model",
        "system_fingerprint": null,
        "choices": [{"index": 0, "delta": delta, "logprobs": null, "finish_reason": finish_reason}],
    });
    format!("data: {chunk}\n\n")
}

fn text_frame(text: &str) -> String {
    frame(json!({"content": text}), None)
}

fn tool_frame(index: u32, id: Option<&str>, name: Option<&str>, arguments: &str) -> String {
    let mut call = json!({"index": index, "function": {"arguments": arguments}});
    if let Some(id) = id {
        call["id"] = json!(id);
        call["type"] = json!("function");
    }
    if let Some(name) = name {
        call["function"]["name"] = json!(name);
    }
    frame(json!({"tool_calls": [call]}), None)
}

// ---------------------------------------------------------------------------------------------
// The client side.

fn provider(base_url: &str) -> OpenAiProvider {
    OpenAiProvider::new(config(base_url))
}

fn config(base_url: &str) -> OpenAiConfig {
    let mut config = OpenAiConfig::new(base_url, "fake-model");
    config.api_key = Some("sk-test-123".to_owned());
    config.temperature = Some(0.2);
    // The fake has no /props or /models: known up front, no discovery requests.
    config.context_tokens = Some(8192);
    config
}

fn message(value: Value) -> Message {
    serde_json::from_value(value).expect("a valid AG-UI message")
}

fn request(messages: Vec<Message>, tools: Vec<ToolSpec>) -> CompletionRequest {
    CompletionRequest {
        agent_id: "regulation-agent".to_owned(),
        system_prompt: "You answer questions about food-safety regulations.".to_owned(),
        messages,
        tools,
    }
}

fn simple_request() -> CompletionRequest {
    request(
        vec![message(json!({"role": "user", "content": "Hi"}))],
        vec![],
    )
}

fn search_tool() -> ToolSpec {
    ToolSpec {
        name: "search_regulations".to_owned(),
        description: "Full-text search over the regulations corpus.".to_owned(),
        parameters: json!({
            "type": "object",
            "properties": {"query": {"type": "string"}, "limit": {"type": "integer"}},
            "required": ["query"],
        }),
    }
}

fn company_tool() -> ToolSpec {
    ToolSpec {
        name: "lookup_company".to_owned(),
        description: "Looks a company up in the register.".to_owned(),
        parameters: json!({"type": "object", "properties": {"kvk": {"type": "string"}}, "required": ["kvk"]}),
    }
}

/// Everything the provider streams for one request.
async fn run(
    base_url: &str,
    request: CompletionRequest,
) -> Result<Vec<Result<LlmChunk, LlmError>>, LlmError> {
    let stream = provider(base_url).complete(request).await?;
    Ok(
        tokio::time::timeout(Duration::from_secs(30), stream.collect::<Vec<_>>())
            .await
            .expect("the stream ends"),
    )
}

/// The chunks before the closing [`LlmChunk::Finished`], which must come last.
fn ok_chunks(items: Vec<Result<LlmChunk, LlmError>>) -> Vec<LlmChunk> {
    let mut chunks: Vec<LlmChunk> = items
        .into_iter()
        .map(|item| item.expect("no error in the stream"))
        .collect();
    match chunks.pop() {
        Some(LlmChunk::Finished { .. }) => chunks,
        other => panic!("the stream ends with Finished, not {other:?}"),
    }
}

fn text(text: &str) -> LlmChunk {
    LlmChunk::Text(text.to_owned())
}

// ---------------------------------------------------------------------------------------------
// (a) Text.

#[tokio::test]
async fn text_is_streamed_chunk_by_chunk_in_order() {
    let frames = vec![
        frame(json!({"role": "assistant", "content": ""}), None),
        text_frame("Bakeries "),
        text_frame("must follow "),
        text_frame(""),
        frame(json!({"content": null}), None),
        text_frame("the hygiene code."),
        frame(json!({}), Some("stop")),
    ];
    let (base_url, _) = serve(Reply::Frames(frames)).await;
    let chunks = ok_chunks(run(&base_url, simple_request()).await.unwrap());
    assert_eq!(
        chunks,
        vec![
            text("Bakeries "),
            text("must follow "),
            text("the hygiene code.")
        ]
    );
}

#[tokio::test]
async fn a_frame_split_across_network_writes_is_reassembled() {
    let whole = text_frame("één frame, twee writes");
    let (first, second) = whole.split_at(whole.find("twee").unwrap());
    let frames = vec![
        text_frame("Before. "),
        first.to_owned(),
        second.to_owned(),
        frame(json!({}), Some("stop")),
    ];
    let (base_url, _) = serve(Reply::Frames(frames)).await;
    let chunks = ok_chunks(run(&base_url, simple_request()).await.unwrap());
    assert_eq!(
        chunks,
        vec![text("Before. "), text("één frame, twee writes")]
    );
}

// ---------------------------------------------------------------------------------------------
// (b) Tool calls.

#[tokio::test]
async fn streamed_tool_call_arguments_arrive_as_whole_parallel_calls() {
    let frames = vec![
        frame(json!({"role": "assistant", "content": null}), None),
        tool_frame(0, Some("call_search"), Some("search_regulations"), ""),
        tool_frame(0, None, None, "{\"que"),
        tool_frame(0, None, None, "ry\": \"bakery hy"),
        tool_frame(0, None, None, "giene\", \"limit\": 3}"),
        tool_frame(1, Some("call_company"), Some("lookup_company"), "{\"kvk\":"),
        tool_frame(1, None, None, " \"12345678\"}"),
        frame(json!({}), Some("tool_calls")),
    ];
    let (base_url, _) = serve(Reply::Frames(frames)).await;
    let chunks = ok_chunks(
        run(
            &base_url,
            request(vec![], vec![search_tool(), company_tool()]),
        )
        .await
        .unwrap(),
    );
    assert_eq!(
        chunks,
        vec![
            LlmChunk::ToolCall {
                id: "call_search".to_owned(),
                name: "search_regulations".to_owned(),
                arguments: json!({"query": "bakery hygiene", "limit": 3}),
            },
            LlmChunk::ToolCall {
                id: "call_company".to_owned(),
                name: "lookup_company".to_owned(),
                arguments: json!({"kvk": "12345678"}),
            },
        ]
    );
}

#[tokio::test]
async fn text_before_a_tool_call_streams_first() {
    let frames = vec![
        text_frame("Let me look "),
        text_frame("that up."),
        tool_frame(
            0,
            Some("call_1"),
            Some("search_regulations"),
            "{\"query\": \"allergens\"}",
        ),
        frame(json!({}), Some("tool_calls")),
    ];
    let (base_url, _) = serve(Reply::Frames(frames)).await;
    let chunks = ok_chunks(
        run(&base_url, request(vec![], vec![search_tool()]))
            .await
            .unwrap(),
    );
    assert_eq!(
        chunks,
        vec![
            text("Let me look "),
            text("that up."),
            LlmChunk::ToolCall {
                id: "call_1".to_owned(),
                name: "search_regulations".to_owned(),
                arguments: json!({"query": "allergens"}),
            },
        ]
    );
}

// ---------------------------------------------------------------------------------------------
// (c) The request on the wire.

#[tokio::test]
async fn the_request_carries_model_system_prompt_tools_messages_and_key() {
    let (base_url, received) = serve(Reply::Frames(vec![
        text_frame("ok"),
        frame(json!({}), Some("stop")),
    ]))
    .await;
    let messages = vec![
        message(json!({"role": "user", "content": "What applies to bakeries?"})),
        message(json!({
            "role": "assistant",
            "content": "Let me search.",
            "toolCalls": [{"id": "call_1", "type": "function",
                "function": {"name": "search_regulations", "arguments": "{\"query\":\"bakery\"}"}}],
        })),
        message(
            json!({"role": "tool", "toolCallId": "call_1", "content": "[\"Hygiene code art. 4\"]"}),
        ),
        message(
            json!({"role": "assistant", "toolCalls": [{"id": "call_2", "type": "function",
            "function": {"name": "lookup_company", "arguments": "{\"kvk\":\"1\"}"}}]}),
        ),
        message(
            json!({"role": "tool", "toolCallId": "call_2", "content": "", "error": "register offline"}),
        ),
        message(json!({"role": "activity", "activityType": "plan", "content": {"steps": []}})),
        message(json!({"role": "reasoning", "content": "thinking out loud"})),
        message(json!({"role": "developer", "content": "Answer in Dutch."})),
        message(json!({"role": "system", "content": "Cite articles."})),
        message(json!({"role": "user", "content": [
            {"type": "text", "text": "And this label?"},
            {"type": "image", "source": {"type": "url", "value": "https://example.org/label.png"}},
        ]})),
        message(json!({"role": "assistant", "content": "Done."})),
    ];
    let chunks = ok_chunks(
        run(
            &base_url,
            request(messages, vec![search_tool(), company_tool()]),
        )
        .await
        .unwrap(),
    );
    assert_eq!(chunks, vec![text("ok")]);

    let received = received.lock().unwrap().clone();
    assert_eq!(received.len(), 1);
    let Received {
        authorization,
        body,
    } = &received[0];
    assert_eq!(authorization.as_deref(), Some("Bearer sk-test-123"));
    assert_eq!(body["model"], "fake-model");
    assert_eq!(body["stream"], true);
    assert!((body["temperature"].as_f64().unwrap() - 0.2).abs() < 1e-6);
    assert_eq!(
        body["tools"],
        json!([
            {"type": "function", "function": {
                "name": "search_regulations",
                "description": "Full-text search over the regulations corpus.",
                "parameters": search_tool().parameters,
            }},
            {"type": "function", "function": {
                "name": "lookup_company",
                "description": "Looks a company up in the register.",
                "parameters": company_tool().parameters,
            }},
        ])
    );
    assert_eq!(
        body["messages"],
        json!([
            // One system message, first: strict templates refuse one in the middle.
            {"role": "system", "content": "You answer questions about food-safety regulations.\n\nAnswer in Dutch.\n\nCite articles."},
            {"role": "user", "content": "What applies to bakeries?"},
            {"role": "assistant", "content": "Let me search.", "tool_calls": [
                {"id": "call_1", "type": "function",
                 "function": {"name": "search_regulations", "arguments": "{\"query\":\"bakery\"}"}},
            ]},
            {"role": "tool", "tool_call_id": "call_1", "content": "[\"Hygiene code art. 4\"]"},
            {"role": "assistant", "tool_calls": [
                {"id": "call_2", "type": "function",
                 "function": {"name": "lookup_company", "arguments": "{\"kvk\":\"1\"}"}},
            ]},
            {"role": "tool", "tool_call_id": "call_2", "content": "Error: register offline"},
            {"role": "user", "content": [
                {"type": "text", "text": "And this label?"},
                {"type": "image_url", "image_url": {"url": "https://example.org/label.png"}},
            ]},
            {"role": "assistant", "content": "Done."},
        ])
    );
}

#[tokio::test]
async fn without_tools_no_tools_field_is_sent() {
    let (base_url, received) = serve(Reply::Frames(vec![text_frame("ok")])).await;
    run(&base_url, simple_request()).await.unwrap();
    let body = received.lock().unwrap()[0].body.clone();
    assert!(body.get("tools").is_none(), "{body}");
    assert_eq!(body["messages"][0]["role"], "system");
    assert_eq!(
        body["messages"][1],
        json!({"role": "user", "content": "Hi"})
    );
}

// ---------------------------------------------------------------------------------------------
// (d) Refusals.

#[tokio::test]
async fn unauthorized_is_a_status_error_with_the_message() {
    let body = json!({"error": {"message": "Incorrect API key provided: sk-test-123.", "type": "invalid_request_error",
        "param": null, "code": "invalid_api_key"}});
    let (base_url, _) = serve(Reply::Refuse(401, "application/json", body.to_string())).await;
    match run(&base_url, simple_request()).await {
        Err(LlmError::Status { status: 401, body }) => {
            assert!(body.contains("Incorrect API key"), "{body}")
        }
        other => panic!("expected a 401 status error, got {other:?}"),
    }
}

#[tokio::test]
async fn unauthorized_with_a_numeric_code_is_a_status_error() {
    // vLLM's error object: `code` is the HTTP status as a number.
    let body = json!({"error": {"message": "Unauthorized", "type": "Unauthorized", "param": null, "code": 401}});
    let (base_url, _) = serve(Reply::Refuse(401, "application/json", body.to_string())).await;
    match run(&base_url, simple_request()).await {
        Err(LlmError::Status { status: 401, body }) => {
            assert!(body.contains("Unauthorized"), "{body}")
        }
        other => panic!("expected a 401 status error, got {other:?}"),
    }
}

#[tokio::test]
async fn a_server_error_is_a_status_error_with_a_short_body() {
    let long_body = format!("upstream model crashed: {}", "x".repeat(5_000));
    let (base_url, received) = serve(Reply::Refuse(500, "text/plain", long_body)).await;
    match run(&base_url, simple_request()).await {
        Err(LlmError::Status { status: 500, body }) => {
            assert!(body.starts_with("upstream model crashed"), "{body}");
            assert!(
                body.chars().count() <= 501,
                "the body is cut short: {} chars",
                body.chars().count()
            );
        }
        other => panic!("expected a 500 status error, got {other:?}"),
    }
    // async-openai retries server errors (three times, with backoff) before giving up.
    assert!(!received.lock().unwrap().is_empty());
}

// ---------------------------------------------------------------------------------------------
// (e) Unreachable.

#[tokio::test]
async fn a_closed_port_is_unreachable() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    drop(listener);
    match run(&format!("http://{addr}/v1"), simple_request()).await {
        Err(LlmError::Unreachable(message)) => assert!(message.contains("refused"), "{message}"),
        other => panic!("expected an unreachable error, got {other:?}"),
    }
}

// ---------------------------------------------------------------------------------------------
// (f) Broken responses.

#[tokio::test]
async fn malformed_tool_call_json_is_handed_on_as_an_invalid_call() {
    let frames = vec![
        tool_frame(
            0,
            Some("call_1"),
            Some("search_regulations"),
            "{\"query\": ",
        ),
        tool_frame(0, None, None, "bakery}"),
        frame(json!({}), Some("tool_calls")),
    ];
    let (base_url, _) = serve(Reply::Frames(frames)).await;
    let items = run(&base_url, request(vec![], vec![search_tool()]))
        .await
        .unwrap();
    // The run answers it with a tool error the model can correct; the stream goes on.
    match &ok_chunks(items)[..] {
        [
            LlmChunk::InvalidToolCall {
                id,
                name,
                arguments,
                problem,
            },
        ] => {
            assert_eq!(
                (id.as_str(), name.as_str()),
                ("call_1", "search_regulations")
            );
            assert_eq!(arguments, "{\"query\": bakery}");
            assert!(problem.contains("not valid JSON"), "{problem}");
        }
        other => panic!("expected one invalid call, got {other:?}"),
    }
}

#[tokio::test]
async fn a_frame_that_is_not_json_is_a_protocol_error_after_the_text_before_it() {
    let frames = vec![
        text_frame("Partial "),
        "data: {not json\n\n".to_owned(),
        text_frame("never seen"),
    ];
    let (base_url, _) = serve(Reply::Frames(frames)).await;
    let items = run(&base_url, simple_request()).await.unwrap();
    assert_eq!(items.len(), 2, "{items:?}");
    assert_eq!(items[0].as_ref().unwrap(), &text("Partial "));
    assert!(
        matches!(items[1], Err(LlmError::Protocol(_))),
        "{:?}",
        items[1]
    );
}

#[tokio::test]
async fn an_error_object_inside_the_stream_is_reported() {
    let error =
        json!({"error": {"message": "model overloaded", "type": "server_error", "code": 503}});
    let frames = vec![text_frame("Hal"), format!("data: {error}\n\n")];
    let (base_url, _) = serve(Reply::Frames(frames)).await;
    let items = run(&base_url, simple_request()).await.unwrap();
    assert_eq!(items.len(), 2, "{items:?}");
    match &items[1] {
        Err(LlmError::Status { status: 503, body }) => {
            assert!(body.contains("overloaded"), "{body}")
        }
        other => panic!("expected a 503 status error, got {other:?}"),
    }
}
