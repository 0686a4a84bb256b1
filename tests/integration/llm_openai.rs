//! The OpenAI-compatible provider against a fake chat-completions server over real HTTP.

#![cfg(feature = "ssr")]

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use agora_hai::orchestrator::llm::openai::{OpenAiConfig, OpenAiProvider};
use agora_hai::orchestrator::llm::{
    CompletionRequest, FinishReason, LlmChunk, LlmError, LlmProvider, ToolSpec, Usage,
};
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

/// What the fake answers to a request.
#[derive(Clone)]
enum Reply {
    /// `data:` frames written one by one, then `data: [DONE]`.
    Frames(Vec<String>),
    /// A refusal with this status, content type and body.
    Refuse(u16, &'static str, String),
    /// A refusal with this status and `Retry-After` header.
    RetryAfter(u16, &'static str),
    /// These frames, then silence with the connection open.
    Stall(Vec<String>),
    /// `count` keep-alive comments `every` apart (as llama.cpp sends while it reads a long
    /// prompt), then the frames.
    KeepAlive {
        count: usize,
        every: Duration,
        frames: Vec<String>,
    },
}

/// One request as the fake received it.
#[derive(Debug, Clone)]
struct Received {
    authorization: Option<String>,
    body: Value,
}

#[derive(Clone)]
struct Fake {
    /// The n-th request gets the n-th reply; the last one answers the rest.
    replies: Arc<Vec<Reply>>,
    received: Arc<Mutex<Vec<Received>>>,
}

async fn chat_completions(State(fake): State<Fake>, headers: HeaderMap, body: Bytes) -> Response {
    let body: Value = serde_json::from_slice(&body).expect("the request body is JSON");
    let authorization = headers
        .get(header::AUTHORIZATION)
        .map(|v| v.to_str().unwrap().to_owned());
    let reply = {
        let mut received = fake.received.lock().unwrap();
        received.push(Received {
            authorization,
            body: body.clone(),
        });
        let n = received.len() - 1;
        fake.replies[n.min(fake.replies.len() - 1)].clone()
    };
    match reply {
        Reply::RetryAfter(status, seconds) => (
            StatusCode::from_u16(status).unwrap(),
            [(header::RETRY_AFTER, seconds)],
            r#"{"error":{"message":"slow down"}}"#,
        )
            .into_response(),
        Reply::Stall(frames) => {
            let writes = futures::stream::iter(frames)
                .map(Ok::<_, Infallible>)
                .chain(futures::stream::pending());
            Response::builder()
                .header(header::CONTENT_TYPE, "text/event-stream")
                .body(Body::from_stream(writes))
                .unwrap()
        }
        Reply::KeepAlive {
            count,
            every,
            frames,
        } => {
            let comments = futures::stream::iter(0..count).then(move |_| async move {
                tokio::time::sleep(every).await;
                Ok::<_, Infallible>(": keep-alive\n\n".to_owned())
            });
            let rest = futures::stream::iter(
                frames
                    .into_iter()
                    .chain(["data: [DONE]\n\n".to_owned()])
                    .map(Ok::<_, Infallible>),
            );
            Response::builder()
                .header(header::CONTENT_TYPE, "text/event-stream")
                .body(Body::from_stream(comments.chain(rest)))
                .unwrap()
        }
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
    serve_in_turn(vec![reply]).await
}

/// A fake that answers its requests with these replies in turn.
async fn serve_in_turn(replies: Vec<Reply>) -> (String, Arc<Mutex<Vec<Received>>>) {
    let received = Arc::new(Mutex::new(Vec::new()));
    let app = Router::new()
        .route("/v1/chat/completions", post(chat_completions))
        .with_state(Fake {
            replies: Arc::new(replies),
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
        messages: messages.into(),
        tools,
        answer_only: false,
        user_id: String::new(),
        images: Default::default(),
        inspection: None,
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
            // Results followed by a user message: the run ended there, and says so.
            {"role": "assistant", "content": "[No answer: the run ended here.]"},
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

// ---------------------------------------------------------------------------------------------
// What a small real model cannot show: retries, deadlines, usage, a context refusal.

fn answer_frames() -> Vec<String> {
    vec![text_frame("Artikel 4."), frame(json!({}), Some("stop"))]
}

async fn run_with(
    config: OpenAiConfig,
    request: CompletionRequest,
) -> Result<Vec<Result<LlmChunk, LlmError>>, LlmError> {
    let stream = OpenAiProvider::new(config).complete(request).await?;
    Ok(
        tokio::time::timeout(Duration::from_secs(30), stream.collect::<Vec<_>>())
            .await
            .expect("the stream ends"),
    )
}

#[tokio::test]
async fn a_rate_limit_is_retried_after_the_time_the_server_asks() {
    let (base_url, received) = serve_in_turn(vec![
        Reply::RetryAfter(429, "1"),
        Reply::Frames(answer_frames()),
    ])
    .await;
    let started = std::time::Instant::now();
    let chunks = ok_chunks(run(&base_url, simple_request()).await.unwrap());
    assert_eq!(chunks, vec![text("Artikel 4.")]);
    assert_eq!(received.lock().unwrap().len(), 2);
    assert!(
        started.elapsed() >= Duration::from_millis(950),
        "Retry-After: 1 was honoured ({:?})",
        started.elapsed()
    );
}

#[tokio::test]
async fn a_server_error_then_success_is_one_answer() {
    let (base_url, received) = serve_in_turn(vec![
        Reply::Refuse(
            500,
            "application/json",
            r#"{"error":{"message":"boom"}}"#.to_owned(),
        ),
        Reply::Refuse(503, "text/plain", "overloaded".to_owned()),
        Reply::Frames(answer_frames()),
    ])
    .await;
    let chunks = ok_chunks(run(&base_url, simple_request()).await.unwrap());
    assert_eq!(chunks, vec![text("Artikel 4.")]);
    assert_eq!(received.lock().unwrap().len(), 3);
}

#[tokio::test]
async fn retries_stop_at_the_limit_with_the_last_refusal() {
    let (base_url, received) =
        serve(Reply::Refuse(502, "text/plain", "bad gateway".to_owned())).await;
    let mut config = config(&base_url);
    config.retries = 2;
    match run_with(config, simple_request()).await {
        Err(error @ LlmError::Status { status: 502, .. }) => {
            assert_eq!(error.code(), "model_unavailable")
        }
        other => panic!("expected the 502, got {other:?}"),
    }
    assert_eq!(received.lock().unwrap().len(), 3, "one try and two retries");
}

#[tokio::test]
async fn a_client_error_is_not_retried() {
    let (base_url, received) = serve(Reply::Refuse(
        400,
        "application/json",
        r#"{"error":{"message":"unknown field"}}"#.to_owned(),
    ))
    .await;
    assert!(matches!(
        run(&base_url, simple_request()).await,
        Err(LlmError::Status { status: 400, .. })
    ));
    assert_eq!(received.lock().unwrap().len(), 1);
}

#[tokio::test]
async fn a_stalled_stream_ends_in_a_timeout_after_the_text_so_far() {
    let (base_url, _) = serve(Reply::Stall(vec![text_frame("Begin")])).await;
    let mut config = config(&base_url);
    config.timeouts.silence = Duration::from_millis(300);
    let items = run_with(config, simple_request()).await.unwrap();
    assert!(
        matches!(&items[0], Ok(LlmChunk::Text(t)) if t == "Begin"),
        "{items:?}"
    );
    match &items[1..] {
        [Err(error @ LlmError::Timeout(detail))] => {
            assert!(detail.contains("silent"), "{detail}");
            assert_eq!(error.code(), "model_timeout");
        }
        other => panic!("expected a timeout, got {other:?}"),
    }
}

#[tokio::test]
async fn keep_alive_comments_keep_a_slow_server_alive_but_not_past_the_first_token_deadline() {
    // Six comments 150 ms apart: 900 ms before the answer, with a silence limit of 400 ms.
    let slow = Reply::KeepAlive {
        count: 6,
        every: Duration::from_millis(150),
        frames: answer_frames(),
    };
    let (base_url, _) = serve(slow.clone()).await;
    let mut patient = config(&base_url);
    patient.timeouts.silence = Duration::from_millis(400);
    let chunks = ok_chunks(run_with(patient, simple_request()).await.unwrap());
    assert_eq!(chunks, vec![text("Artikel 4.")]);

    // The same server with a first-token deadline shorter than its prompt reading.
    let (base_url, _) = serve(slow).await;
    let mut impatient = config(&base_url);
    impatient.timeouts.silence = Duration::from_millis(400);
    impatient.timeouts.first_token = Duration::from_millis(500);
    match &run_with(impatient, simple_request()).await.unwrap()[..] {
        [Err(LlmError::Timeout(detail))] => assert!(detail.contains("no answer"), "{detail}"),
        other => panic!("expected a first-token timeout, got {other:?}"),
    }
}

#[tokio::test]
async fn usage_is_requested_and_reported_with_the_finish() {
    let mut frames = answer_frames();
    frames.push(format!(
        "data: {}\n\n",
        json!({"id": "x", "object": "chat.completion.chunk", "choices": [],
               "usage": {"prompt_tokens": 321, "completion_tokens": 12, "total_tokens": 333}})
    ));
    let (base_url, received) = serve(Reply::Frames(frames)).await;
    let items = run(&base_url, simple_request()).await.unwrap();
    assert_eq!(
        items.last().unwrap().as_ref().unwrap(),
        &LlmChunk::Finished {
            reason: FinishReason::Stop,
            usage: Some(Usage {
                prompt_tokens: 321,
                completion_tokens: 12
            })
        }
    );
    let body = &received.lock().unwrap()[0].body;
    assert_eq!(body["stream_options"], json!({"include_usage": true}));
    assert_eq!(body["max_tokens"], json!(1024));
}

#[tokio::test]
async fn a_context_refusal_is_sent_once_more_trimmed_then_reported() {
    let too_long = r#"{"error":{"code":400,"message":"request (4380 tokens) exceeds the available context size (4096 tokens), try increasing it","type":"exceed_context_size_error"}}"#;
    let (base_url, received) =
        serve(Reply::Refuse(400, "application/json", too_long.to_owned())).await;
    // A thread of 40 turns with long tool results, at a context that holds only part of it.
    let mut messages = Vec::new();
    for i in 0..40 {
        messages.push(message(
            json!({"role": "user", "content": format!("vraag {i}")}),
        ));
        messages.push(message(
            json!({"role": "assistant", "toolCalls": [{"id": format!("c{i}"), "type": "function",
            "function": {"name": "search_regulations", "arguments": "{}"}}]}),
        ));
        messages.push(message(
            json!({"role": "tool", "toolCallId": format!("c{i}"), "content": "x".repeat(3000)}),
        ));
        messages.push(message(json!({"role": "assistant", "content": "antwoord"})));
    }
    let mut config = config(&base_url);
    config.context_tokens = Some(16_384);
    match run_with(config, request(messages, vec![search_tool()])).await {
        Err(error @ LlmError::ContextExceeded(_)) => {
            assert_eq!(error.code(), "model_context_exceeded")
        }
        other => panic!("expected a context error, got {other:?}"),
    }
    let received = received.lock().unwrap();
    assert_eq!(received.len(), 2, "sent once more, then given up");
    let size = |n: usize| received[n].body["messages"].to_string().len();
    assert!(
        size(1) < size(0),
        "the second request is smaller: {} then {}",
        size(0),
        size(1)
    );
    // Both fit their budget (a twentieth kept back, max_tokens reserved).
    assert!(size(0) as f64 / 2.5 < 16_384.0, "{}", size(0));
}

#[tokio::test]
async fn extra_body_and_agent_models_reach_the_server() {
    let (base_url, received) = serve(Reply::Frames(answer_frames())).await;
    let mut config = config(&base_url);
    config.extra_body =
        serde_json::from_value(json!({"seed": 7, "max_completion_tokens": 99})).unwrap();
    config
        .agent_models
        .insert("regulation-agent".to_owned(), "small-model".to_owned());
    run_with(config, simple_request()).await.unwrap();
    let body = &received.lock().unwrap()[0].body;
    assert_eq!(body["model"], "small-model");
    assert_eq!(body["seed"], 7);
    assert_eq!(body["max_completion_tokens"], 99);
    assert!(
        body.get("max_tokens").is_none(),
        "one of the two limits only"
    );
}
