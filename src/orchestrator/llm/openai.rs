//! An OpenAI-compatible chat-completions provider (OpenAI, vLLM, Ollama, llama.cpp, LM Studio,
//! LiteLLM, ...) with streaming and tool calls, through `async-openai`.
//!
//! The request uses `async-openai`'s types. The streamed chunks are read with our own lenient
//! types (`byot`): compatible servers differ in details the strict types reject, such as
//! unknown `finish_reason` values, missing `created` fields, tool-call deltas without `index`,
//! or error objects sent in the middle of a stream.

use std::collections::{BTreeMap, VecDeque};
use std::time::Duration;

use async_openai::Client;
use async_openai::config::OpenAIConfig;
use async_openai::error::{OpenAIError, StreamError};
use async_openai::types::chat::{
    ChatCompletionMessageToolCall, ChatCompletionMessageToolCalls,
    ChatCompletionRequestAssistantMessage, ChatCompletionRequestAssistantMessageContent,
    ChatCompletionRequestMessage, ChatCompletionRequestMessageContentPartImage,
    ChatCompletionRequestMessageContentPartText, ChatCompletionRequestSystemMessage,
    ChatCompletionRequestSystemMessageContent, ChatCompletionRequestToolMessage,
    ChatCompletionRequestToolMessageContent, ChatCompletionRequestUserMessage,
    ChatCompletionRequestUserMessageContent, ChatCompletionRequestUserMessageContentPart,
    ChatCompletionTool, ChatCompletionTools, CreateChatCompletionRequest, FunctionCall,
    FunctionObject, ImageUrl,
};
use async_openai::types::stream::StreamResponse;
use futures::StreamExt;
use futures::stream::{self, BoxStream};
use serde::Deserialize;
use serde_json::Value;

use super::{CompletionRequest, LlmChunk, LlmError, LlmProvider, ToolSpec};
use crate::protocol::{InputContent, MediaPart, MediaSource, Message, UserContent};

/// How long to wait for the response to start, and then between two streamed chunks.
/// Generous because a local server may first have to load the model.
const STALL_TIMEOUT: Duration = Duration::from_secs(300);

/// Error bodies are cut to this many characters.
const MAX_ERROR_BODY: usize = 500;

/// Where and how to reach the model.
#[derive(Clone, PartialEq)]
pub struct OpenAiConfig {
    /// The API root including the version, e.g. `https://api.openai.com/v1` or
    /// `http://localhost:11434/v1`; `/chat/completions` is appended.
    pub base_url: String,
    pub model: String,
    /// Sent as `Authorization: Bearer <key>`. Without one the header carries an empty token,
    /// which local servers ignore. `OPENAI_API_KEY` is never read.
    pub api_key: Option<String>,
    /// Left to the server when `None`.
    pub temperature: Option<f32>,
}

impl std::fmt::Debug for OpenAiConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OpenAiConfig")
            .field("base_url", &self.base_url)
            .field("model", &self.model)
            .field("api_key", &self.api_key.as_ref().map(|_| "<redacted>"))
            .field("temperature", &self.temperature)
            .finish()
    }
}

/// Streams chat completions from an OpenAI-compatible server.
pub struct OpenAiProvider {
    client: Client<OpenAIConfig>,
    model: String,
    temperature: Option<f32>,
    /// A configuration mistake found by [`OpenAiProvider::new`], reported by every call.
    config_error: Option<String>,
}

impl OpenAiProvider {
    /// Never fails: a configuration the HTTP layer cannot use (an API key with control
    /// characters) is reported by [`LlmProvider::complete`] as [`LlmError::Unreachable`].
    pub fn new(config: OpenAiConfig) -> Self {
        let key = config.api_key.as_deref().map(str::trim).unwrap_or_default();
        let config_error = key
            .chars()
            .any(char::is_control)
            .then(|| "the API key contains characters an HTTP header cannot carry".to_owned());
        // Explicit values throughout: `OpenAIConfig::new` also reads OPENAI_API_KEY,
        // OPENAI_ORG_ID and OPENAI_PROJECT_ID, which must not leak to another server.
        let openai_config = OpenAIConfig::new()
            .with_api_base(config.base_url.trim().trim_end_matches('/'))
            .with_api_key(if config_error.is_some() { "" } else { key })
            .with_org_id("")
            .with_project_id("");
        Self {
            client: Client::with_config(openai_config),
            model: config.model,
            temperature: config.temperature,
            config_error,
        }
    }

    fn chat_request(&self, request: &CompletionRequest) -> CreateChatCompletionRequest {
        let mut messages = Vec::with_capacity(request.messages.len() + 1);
        if !request.system_prompt.is_empty() {
            messages.push(system(request.system_prompt.clone()));
        }
        messages.extend(request.messages.iter().filter_map(to_openai_message));
        let tools: Vec<ChatCompletionTools> = request.tools.iter().map(to_openai_tool).collect();
        CreateChatCompletionRequest {
            model: self.model.clone(),
            messages,
            stream: Some(true),
            temperature: self.temperature,
            tools: (!tools.is_empty()).then_some(tools),
            ..Default::default()
        }
    }
}

#[async_trait::async_trait]
impl LlmProvider for OpenAiProvider {
    fn name(&self) -> &str {
        "openai"
    }

    async fn complete(
        &self,
        request: CompletionRequest,
    ) -> Result<BoxStream<'static, Result<LlmChunk, LlmError>>, LlmError> {
        if let Some(error) = &self.config_error {
            return Err(LlmError::Unreachable(error.clone()));
        }
        let body = self.chat_request(&request);
        let chat = self.client.chat();
        let events: StreamResponse<StreamChunk> =
            tokio::time::timeout(STALL_TIMEOUT, chat.create_stream_byot(body))
                .await
                .map_err(|_| {
                    LlmError::Unreachable(format!(
                        "no response within {}s",
                        STALL_TIMEOUT.as_secs()
                    ))
                })?
                .map_err(request_error)?;
        Ok(decode(events).boxed())
    }
}

// ---------------------------------------------------------------------------------------------
// Request: AG-UI messages to chat-completions messages.

fn system(text: String) -> ChatCompletionRequestMessage {
    ChatCompletionRequestMessage::System(ChatCompletionRequestSystemMessage {
        content: ChatCompletionRequestSystemMessageContent::Text(text),
        name: None,
    })
}

/// `None` for messages the model does not read. Developer messages go out as system messages:
/// many compatible servers reject the `developer` role. Participant names are left out, since
/// OpenAI restricts their characters and AG-UI does not.
fn to_openai_message(message: &Message) -> Option<ChatCompletionRequestMessage> {
    match message {
        Message::System(m) | Message::Developer(m) => Some(system(m.content.clone())),
        Message::User(m) => Some(ChatCompletionRequestMessage::User(
            ChatCompletionRequestUserMessage {
                content: user_content(&m.content),
                name: None,
            },
        )),
        Message::Assistant(m) => {
            let content = m.content.clone().filter(|text| !text.is_empty());
            let tool_calls: Vec<ChatCompletionMessageToolCalls> = m
                .tool_calls
                .iter()
                .flatten()
                .map(|call| {
                    ChatCompletionMessageToolCalls::Function(ChatCompletionMessageToolCall {
                        id: call.id.clone(),
                        function: FunctionCall {
                            name: call.function.name.clone(),
                            arguments: if call.function.arguments.trim().is_empty() {
                                "{}".to_owned()
                            } else {
                                call.function.arguments.clone()
                            },
                        },
                    })
                })
                .collect();
            if content.is_none() && tool_calls.is_empty() {
                return None;
            }
            Some(ChatCompletionRequestMessage::Assistant(
                ChatCompletionRequestAssistantMessage {
                    content: content.map(ChatCompletionRequestAssistantMessageContent::Text),
                    // OpenAI rejects an empty list.
                    tool_calls: (!tool_calls.is_empty()).then_some(tool_calls),
                    ..Default::default()
                },
            ))
        }
        Message::Tool(m) => {
            let content = match &m.error {
                None => m.content.clone(),
                Some(error) if m.content.is_empty() => format!("Error: {error}"),
                Some(error) => format!("{}\n\nError: {error}", m.content),
            };
            Some(ChatCompletionRequestMessage::Tool(
                ChatCompletionRequestToolMessage {
                    content: ChatCompletionRequestToolMessageContent::Text(content),
                    tool_call_id: m.tool_call_id.clone(),
                },
            ))
        }
        Message::Activity(_) | Message::Reasoning(_) => None,
    }
}

/// Plain text stays a string, which every compatible server accepts. Images become
/// `image_url` parts; other media, which few servers accept, are named in a text part.
fn user_content(content: &UserContent) -> ChatCompletionRequestUserMessageContent {
    let parts = match content {
        UserContent::Text(text) => {
            return ChatCompletionRequestUserMessageContent::Text(text.clone());
        }
        UserContent::Parts(parts) => parts,
    };
    if parts
        .iter()
        .all(|part| matches!(part, InputContent::Text(_)))
    {
        let texts: Vec<&str> = parts
            .iter()
            .filter_map(|part| match part {
                InputContent::Text(text) => Some(text.text.as_str()),
                _ => None,
            })
            .collect();
        return ChatCompletionRequestUserMessageContent::Text(texts.join("\n"));
    }
    let text_part = |text: String| {
        ChatCompletionRequestUserMessageContentPart::Text(
            ChatCompletionRequestMessageContentPartText {
                text,
                prompt_cache_breakpoint: None,
            },
        )
    };
    let image_part = |url: String| {
        ChatCompletionRequestUserMessageContentPart::ImageUrl(
            ChatCompletionRequestMessageContentPartImage {
                image_url: ImageUrl { url, detail: None },
                prompt_cache_breakpoint: None,
            },
        )
    };
    let mapped = parts
        .iter()
        .map(|part| match part {
            InputContent::Text(text) => text_part(text.text.clone()),
            InputContent::Image(media) => image_part(media_url(media)),
            InputContent::Audio(media) => {
                text_part(omitted("audio", media_mime(media), media_location(media)))
            }
            InputContent::Video(media) => {
                text_part(omitted("video", media_mime(media), media_location(media)))
            }
            InputContent::Document(media) => text_part(omitted(
                "document",
                media_mime(media),
                media_location(media),
            )),
            InputContent::Binary(binary) => {
                let url = binary.url.clone().or_else(|| {
                    binary
                        .data
                        .as_ref()
                        .map(|data| format!("data:{};base64,{data}", binary.mime_type))
                });
                match url {
                    Some(url) if binary.mime_type.starts_with("image/") => image_part(url),
                    _ => {
                        let location = binary.filename.clone().or_else(|| binary.url.clone());
                        text_part(omitted("file", Some(&binary.mime_type), location))
                    }
                }
            }
        })
        .collect();
    ChatCompletionRequestUserMessageContent::Array(mapped)
}

fn media_url(media: &MediaPart) -> String {
    match &media.source {
        MediaSource::Url(source) => source.value.clone(),
        MediaSource::Data(source) => {
            let mime = source
                .mime_type
                .as_deref()
                .unwrap_or("application/octet-stream");
            format!("data:{mime};base64,{}", source.value)
        }
    }
}

fn media_mime(media: &MediaPart) -> Option<&str> {
    match &media.source {
        MediaSource::Url(source) | MediaSource::Data(source) => source.mime_type.as_deref(),
    }
}

fn media_location(media: &MediaPart) -> Option<String> {
    match &media.source {
        MediaSource::Url(source) => Some(source.value.clone()),
        MediaSource::Data(_) => None,
    }
}

fn omitted(kind: &str, mime: Option<&str>, location: Option<String>) -> String {
    let mut text = format!("[{kind} attachment");
    if let Some(mime) = mime {
        text.push_str(&format!(" ({mime})"));
    }
    if let Some(location) = location {
        text.push_str(&format!(" at {location}"));
    }
    text.push_str(" not shown to the model]");
    text
}

fn to_openai_tool(tool: &ToolSpec) -> ChatCompletionTools {
    ChatCompletionTools::Function(ChatCompletionTool {
        function: FunctionObject {
            name: tool.name.clone(),
            description: (!tool.description.is_empty()).then(|| tool.description.clone()),
            parameters: (!tool.parameters.is_null()).then(|| tool.parameters.clone()),
            strict: None,
        },
    })
}

// ---------------------------------------------------------------------------------------------
// Response: streamed chunks to text and whole tool calls.

/// One `chat.completion.chunk`, read leniently.
#[derive(Debug, Default, Deserialize)]
struct StreamChunk {
    #[serde(default)]
    choices: Vec<StreamChoice>,
    /// Some servers report failures inside the stream.
    #[serde(default)]
    error: Option<Value>,
}

#[derive(Debug, Default, Deserialize)]
struct StreamChoice {
    #[serde(default)]
    index: Option<u32>,
    #[serde(default)]
    delta: Option<Delta>,
    #[serde(default)]
    finish_reason: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
struct Delta {
    #[serde(default)]
    content: Option<String>,
    #[serde(default)]
    refusal: Option<String>,
    #[serde(default)]
    tool_calls: Option<Vec<ToolCallDelta>>,
}

#[derive(Debug, Default, Deserialize)]
struct ToolCallDelta {
    #[serde(default)]
    index: Option<u32>,
    #[serde(default)]
    id: Option<String>,
    #[serde(default)]
    function: Option<FunctionDelta>,
}

#[derive(Debug, Default, Deserialize)]
struct FunctionDelta {
    #[serde(default)]
    name: Option<String>,
    /// A JSON text fragment; a few servers send the whole arguments as an object instead.
    #[serde(default)]
    arguments: Option<Value>,
}

/// A tool call being assembled from its deltas.
#[derive(Debug, Default)]
struct PartialCall {
    id: Option<String>,
    name: String,
    arguments: String,
}

/// What the decoder keeps between chunks.
struct Decoder {
    events: StreamResponse<StreamChunk>,
    calls: BTreeMap<u32, PartialCall>,
    last_index: Option<u32>,
    finish_reason: Option<String>,
    ready: VecDeque<Result<LlmChunk, LlmError>>,
    finished: bool,
}

/// Text as it arrives, tool calls whole once the stream has ended; nothing after an error.
fn decode(
    events: StreamResponse<StreamChunk>,
) -> impl futures::Stream<Item = Result<LlmChunk, LlmError>> + Send + 'static {
    let decoder = Decoder {
        events,
        calls: BTreeMap::new(),
        last_index: None,
        finish_reason: None,
        ready: VecDeque::new(),
        finished: false,
    };
    stream::unfold(decoder, |mut decoder| async move {
        loop {
            if let Some(item) = decoder.ready.pop_front() {
                if item.is_err() {
                    decoder.ready.clear();
                    decoder.finished = true;
                }
                return Some((item, decoder));
            }
            if decoder.finished {
                return None;
            }
            match tokio::time::timeout(STALL_TIMEOUT, decoder.events.next()).await {
                Err(_) => {
                    let silence = format!(
                        "the model stream was silent for {}s",
                        STALL_TIMEOUT.as_secs()
                    );
                    decoder.ready.push_back(Err(LlmError::Unreachable(silence)));
                }
                Ok(Some(Ok(chunk))) => decoder.accept(chunk),
                Ok(Some(Err(error))) => decoder.ready.push_back(Err(stream_error(error))),
                Ok(None) => {
                    decoder.finish();
                    decoder.finished = true;
                }
            }
        }
    })
}

impl Decoder {
    fn accept(&mut self, chunk: StreamChunk) {
        if let Some(error) = chunk.error {
            self.ready.push_back(Err(reported_error(&error)));
            return;
        }
        // One completion is requested, so only the first choice counts.
        for choice in chunk
            .choices
            .into_iter()
            .filter(|choice| choice.index.unwrap_or(0) == 0)
        {
            if let Some(reason) = choice.finish_reason {
                self.finish_reason = Some(reason);
            }
            let Some(delta) = choice.delta else { continue };
            for text in [delta.content, delta.refusal].into_iter().flatten() {
                if !text.is_empty() {
                    self.ready.push_back(Ok(LlmChunk::Text(text)));
                }
            }
            for call in delta.tool_calls.into_iter().flatten() {
                self.accept_tool_call(call);
            }
        }
    }

    fn accept_tool_call(&mut self, delta: ToolCallDelta) {
        let id = delta.id.filter(|id| !id.is_empty());
        // Without an index, a new id starts a call and anything else continues the last one.
        let index = match (delta.index, &id) {
            (Some(index), _) => index,
            (None, Some(id)) => self
                .calls
                .iter()
                .find(|(_, call)| call.id.as_ref() == Some(id))
                .map(|(index, _)| *index)
                .unwrap_or_else(|| self.calls.keys().next_back().map_or(0, |last| last + 1)),
            (None, None) => self.last_index.unwrap_or(0),
        };
        self.last_index = Some(index);
        let call = self.calls.entry(index).or_default();
        if call.id.is_none() {
            call.id = id;
        }
        let Some(function) = delta.function else {
            return;
        };
        if let Some(name) = function.name.filter(|name| !name.is_empty()) {
            // The name normally comes whole in the first delta; some servers repeat it.
            if call.name != name {
                call.name.push_str(&name);
            }
        }
        match function.arguments {
            Some(Value::String(fragment)) => call.arguments.push_str(&fragment),
            Some(Value::Null) | None => {}
            Some(whole) => call.arguments.push_str(&whole.to_string()),
        }
    }

    /// Parses the assembled tool calls, in index order.
    fn finish(&mut self) {
        for (index, call) in std::mem::take(&mut self.calls) {
            match self.whole_call(index, call) {
                Ok(chunk) => self.ready.push_back(Ok(chunk)),
                Err(error) => {
                    self.ready.push_back(Err(error));
                    return;
                }
            }
        }
    }

    fn whole_call(&self, index: u32, call: PartialCall) -> Result<LlmChunk, LlmError> {
        let stopped = match &self.finish_reason {
            Some(reason) if reason != "tool_calls" && reason != "stop" => {
                format!(" (the model stopped: {reason})")
            }
            _ => String::new(),
        };
        if call.name.is_empty() {
            return Err(LlmError::Protocol(format!(
                "tool call {index} has no function name{stopped}"
            )));
        }
        let text = call.arguments.trim();
        let arguments = if text.is_empty() {
            Value::Object(Default::default())
        } else {
            serde_json::from_str::<Value>(text).map_err(|error| {
                LlmError::Protocol(format!(
                    "tool call `{}` has invalid JSON arguments{stopped}: {error}: {}",
                    call.name,
                    shorten(text)
                ))
            })?
        };
        let arguments = match arguments {
            Value::Null => Value::Object(Default::default()),
            object @ Value::Object(_) => object,
            other => {
                return Err(LlmError::Protocol(format!(
                    "tool call `{}` has arguments that are not a JSON object: {}",
                    call.name,
                    shorten(&other.to_string())
                )));
            }
        };
        let id = call
            .id
            .unwrap_or_else(|| format!("call_{}", uuid::Uuid::new_v4().simple()));
        Ok(LlmChunk::ToolCall {
            id,
            name: call.name,
            arguments,
        })
    }
}

// ---------------------------------------------------------------------------------------------
// Errors.

/// Errors before the first chunk: the HTTP exchange itself.
fn request_error(error: OpenAIError) -> LlmError {
    match error {
        OpenAIError::ApiError(response) => LlmError::Status {
            status: response.status_code.as_u16(),
            body: shorten(&response.api_error.to_string()),
        },
        // A refusal whose body is not OpenAI's error object: `async-openai` keeps the body but
        // not the status, which servers such as vLLM repeat in a numeric `code`.
        OpenAIError::JSONDeserialize(_, body) => match status_in_body(&body) {
            Some(status) => LlmError::Status {
                status,
                body: shorten(&body),
            },
            None => LlmError::Protocol(format!(
                "the model service refused the request: {}",
                shorten(&body)
            )),
        },
        other => stream_error(other),
    }
}

/// Errors while streaming.
fn stream_error(error: OpenAIError) -> LlmError {
    match error {
        OpenAIError::Reqwest(error) => LlmError::Unreachable(error_chain(&error)),
        OpenAIError::StreamError(error) => match *error {
            StreamError::EventStream(message) if message.starts_with("Transport") => {
                LlmError::Unreachable(message)
            }
            other => LlmError::Protocol(other.to_string()),
        },
        OpenAIError::JSONDeserialize(error, body) => LlmError::Protocol(format!(
            "unreadable stream chunk: {error}: {}",
            shorten(&body)
        )),
        OpenAIError::ApiError(response) => LlmError::Status {
            status: response.status_code.as_u16(),
            body: shorten(&response.api_error.to_string()),
        },
        other => LlmError::Protocol(other.to_string()),
    }
}

/// An `error` object inside the stream.
fn reported_error(error: &Value) -> LlmError {
    let message = error
        .get("message")
        .and_then(Value::as_str)
        .map(str::to_owned)
        .unwrap_or_else(|| error.to_string());
    match status_in_value(error) {
        Some(status) => LlmError::Status {
            status,
            body: shorten(&message),
        },
        None => LlmError::Protocol(format!(
            "the model service reported an error: {}",
            shorten(&message)
        )),
    }
}

fn status_in_body(body: &str) -> Option<u16> {
    let value: Value = serde_json::from_str(body).ok()?;
    value
        .get("error")
        .and_then(status_in_value)
        .or_else(|| status_in_value(&value))
}

fn status_in_value(value: &Value) -> Option<u16> {
    ["code", "status"]
        .iter()
        .filter_map(|key| value.get(key)?.as_u64())
        .find(|code| (400..600).contains(code))
        .and_then(|code| u16::try_from(code).ok())
}

/// `reqwest` puts the useful part ("Connection refused") in the source chain.
fn error_chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        let cause_text = cause.to_string();
        if !text.contains(&cause_text) {
            text.push_str(": ");
            text.push_str(&cause_text);
        }
        source = cause.source();
    }
    text
}

fn shorten(text: &str) -> String {
    let text = text.trim();
    match text.char_indices().nth(MAX_ERROR_BODY) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decoder() -> Decoder {
        Decoder {
            events: Box::pin(stream::empty()),
            calls: BTreeMap::new(),
            last_index: None,
            finish_reason: None,
            ready: VecDeque::new(),
            finished: false,
        }
    }

    fn chunk(json: Value) -> StreamChunk {
        serde_json::from_value(json).unwrap()
    }

    #[test]
    fn tool_call_deltas_without_index_are_assembled_by_id() {
        let mut decoder = decoder();
        decoder.accept(chunk(
            serde_json::json!({"choices": [{"delta": {"tool_calls": [
            {"id": "a", "function": {"name": "f", "arguments": "{\"x\":"}}]}}]}),
        ));
        decoder.accept(chunk(
            serde_json::json!({"choices": [{"delta": {"tool_calls": [
            {"function": {"arguments": "1}"}}]}}]}),
        ));
        decoder.accept(chunk(serde_json::json!({"choices": [{"delta": {"tool_calls": [
            {"id": "b", "function": {"name": "g", "arguments": {"y": 2}}}]}, "finish_reason": "eos"}]})));
        decoder.finish();
        let chunks: Vec<LlmChunk> = decoder.ready.into_iter().map(Result::unwrap).collect();
        assert_eq!(
            chunks,
            vec![
                LlmChunk::ToolCall {
                    id: "a".into(),
                    name: "f".into(),
                    arguments: serde_json::json!({"x": 1})
                },
                LlmChunk::ToolCall {
                    id: "b".into(),
                    name: "g".into(),
                    arguments: serde_json::json!({"y": 2})
                },
            ]
        );
    }

    #[test]
    fn empty_arguments_are_an_empty_object_and_a_missing_id_is_made_up() {
        let mut decoder = decoder();
        decoder.accept(chunk(
            serde_json::json!({"choices": [{"index": 0, "delta": {"tool_calls": [
            {"index": 0, "function": {"name": "now", "arguments": ""}}]}}]}),
        ));
        decoder.finish();
        match decoder.ready.pop_front() {
            Some(Ok(LlmChunk::ToolCall {
                id,
                name,
                arguments,
            })) => {
                assert!(id.starts_with("call_"));
                assert_eq!(name, "now");
                assert_eq!(arguments, serde_json::json!({}));
            }
            other => panic!("expected a tool call, got {other:?}"),
        }
    }

    #[test]
    fn truncated_arguments_name_the_finish_reason() {
        let mut decoder = decoder();
        decoder.accept(chunk(serde_json::json!({"choices": [{"index": 0, "delta": {"tool_calls": [
            {"index": 0, "id": "c", "function": {"name": "f", "arguments": "{\"q\": \"ab"}}]}, "finish_reason": "length"}]})));
        decoder.finish();
        match decoder.ready.pop_front() {
            Some(Err(LlmError::Protocol(message))) => {
                assert!(message.contains("length"), "{message}")
            }
            other => panic!("expected a protocol error, got {other:?}"),
        }
    }

    #[test]
    fn status_is_found_in_vllm_style_bodies() {
        assert_eq!(
            status_in_body(r#"{"error":{"message":"bad","code":401}}"#),
            Some(401)
        );
        assert_eq!(
            status_in_body(r#"{"object":"error","message":"bad","code":400}"#),
            Some(400)
        );
        assert_eq!(status_in_body("Unauthorized"), None);
        assert_eq!(
            status_in_body(r#"{"error":{"code":"invalid_api_key"}}"#),
            None
        );
    }

    #[test]
    fn long_bodies_are_shortened_on_a_char_boundary() {
        let long = "é".repeat(MAX_ERROR_BODY + 10);
        let short = shorten(&long);
        assert_eq!(short.chars().count(), MAX_ERROR_BODY + 1);
        assert!(short.ends_with('…'));
    }
}
