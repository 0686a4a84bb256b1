//! An OpenAI-compatible chat-completions provider (OpenAI, Azure OpenAI, vLLM, Ollama,
//! llama.cpp, LM Studio, LiteLLM, ...) with streaming and tool calls.
//!
//! `async-openai` supplies the request types; the HTTP exchange is ours, on `reqwest` with
//! `eventsource-stream`, because what a real server does needs the parts a client library
//! hides: the status and `Retry-After` of a refusal (retries on 429 and 5xx), every byte of
//! the stream (llama.cpp's keep-alive comments, see [`stream`]), and no error logging of its
//! own (each failure is logged once, by the run).
//!
//! One request: the thread is shaped for strict templates ([`request`]), fitted into the
//! model's context ([`super::budget`]), sent with `max_tokens`, the temperature and
//! `stream_options.include_usage`, retried on rate limits and server trouble, and sent once
//! more, trimmed harder, if the server still finds it too long.

mod errors;
mod request;
mod stream;

use std::collections::{BTreeMap, HashMap};
use std::time::Duration;

use async_openai::types::chat::{
    ChatCompletionStreamOptions, ChatCompletionTools, CreateChatCompletionRequest,
};
use futures::stream::BoxStream;
use serde_json::{Map, Value};
use tokio::time::Instant;

use super::budget::{self, Fitted};
use super::prompts;
use super::{CompletionRequest, LlmChunk, LlmError, LlmProvider, ToolSpec};
use errors::{error_chain, refusal, retry_after, retryable};
use stream::StreamClocks;

/// Used when neither the configuration nor the server says how large the context is: most
/// current models have at least this much.
pub const DEFAULT_CONTEXT_TOKENS: u32 = 8192;

/// The deadlines of one model request.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Timeouts {
    /// To open the TCP (and TLS) connection.
    pub connect: Duration,
    /// From sending the request to the first text or tool-call delta. Generous: a local
    /// server may first load the model or read a long prompt.
    pub first_token: Duration,
    /// Without a single byte, keep-alive comments included.
    pub silence: Duration,
}

impl Default for Timeouts {
    fn default() -> Self {
        Self {
            connect: Duration::from_secs(10),
            first_token: Duration::from_secs(300),
            silence: Duration::from_secs(120),
        }
    }
}

/// Where and how to reach the model.
#[derive(Clone, PartialEq)]
pub struct OpenAiConfig {
    /// The API root including the version, e.g. `https://api.openai.com/v1` or
    /// `http://localhost:11434/v1`; `/chat/completions` is appended.
    pub base_url: String,
    /// The model every agent uses unless `agent_models` names another.
    pub model: String,
    /// Agents that run on another model (agent id → model), e.g. a faster one for routing.
    pub agent_models: BTreeMap<String, String>,
    /// Sent as `Authorization: Bearer <key>`. Without one no header is sent, which local
    /// servers accept. `OPENAI_API_KEY` is never read.
    pub api_key: Option<String>,
    /// Left to the server when `None`.
    pub temperature: Option<f32>,
    /// The most tokens one answer may have (`max_tokens`); also reserved in the context budget.
    pub max_tokens: u32,
    /// The model's context in tokens; `None`: asked of the server, else [`DEFAULT_CONTEXT_TOKENS`].
    pub context_tokens: Option<u32>,
    /// Merged into every request body last, for what a server needs beyond the standard
    /// (e.g. `{"seed": 1}`, `{"top_k": 20}`, Azure's or vLLM's own fields).
    pub extra_body: Map<String, Value>,
    pub timeouts: Timeouts,
    /// Further tries after a 429, a 5xx or a failed connection, before any answer came.
    pub retries: u32,
    /// The model sees images (`--llm-vision`): the photos of the message a run answers go to
    /// it as `image_url` parts with `data:` URLs; without it each is a text placeholder.
    pub vision: bool,
}

impl OpenAiConfig {
    /// The defaults for everything but where the server is and which model it runs.
    pub fn new(base_url: impl Into<String>, model: impl Into<String>) -> Self {
        Self {
            base_url: base_url.into(),
            model: model.into(),
            agent_models: BTreeMap::new(),
            api_key: None,
            temperature: None,
            max_tokens: 1024,
            context_tokens: None,
            extra_body: Map::new(),
            timeouts: Timeouts::default(),
            retries: 3,
            vision: false,
        }
    }
}

impl std::fmt::Debug for OpenAiConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OpenAiConfig")
            .field("base_url", &self.base_url)
            .field("model", &self.model)
            .field("agent_models", &self.agent_models)
            .field("api_key", &self.api_key.as_ref().map(|_| "<redacted>"))
            .field("temperature", &self.temperature)
            .field("max_tokens", &self.max_tokens)
            .field("context_tokens", &self.context_tokens)
            .field("extra_body", &self.extra_body)
            .field("timeouts", &self.timeouts)
            .field("retries", &self.retries)
            .finish()
    }
}

/// Streams chat completions from an OpenAI-compatible server.
pub struct OpenAiProvider {
    http: reqwest::Client,
    config: OpenAiConfig,
    /// `base_url` without its trailing slash.
    base_url: String,
    /// A configuration mistake found by [`OpenAiProvider::new`], reported by every call.
    config_error: Option<String>,
    /// Context sizes learned from the server, per model: asked once, on first use.
    context_sizes: tokio::sync::Mutex<HashMap<String, u32>>,
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
        let http = reqwest::Client::builder()
            .connect_timeout(config.timeouts.connect)
            .build()
            .unwrap_or_default();
        Self {
            http,
            base_url: config.base_url.trim().trim_end_matches('/').to_owned(),
            config,
            config_error,
            context_sizes: tokio::sync::Mutex::new(HashMap::new()),
        }
    }

    fn model_for(&self, agent_id: &str) -> &str {
        self.config
            .agent_models
            .get(agent_id)
            .unwrap_or(&self.config.model)
    }

    fn authorized(&self, builder: reqwest::RequestBuilder) -> reqwest::RequestBuilder {
        match self.config.api_key.as_deref().map(str::trim) {
            Some(key) if !key.is_empty() && self.config_error.is_none() => builder.bearer_auth(key),
            _ => builder,
        }
    }

    /// The model's context: configured, else as the server reports it, else the default.
    async fn context_tokens(&self, model: &str) -> u32 {
        if let Some(tokens) = self.config.context_tokens {
            return tokens;
        }
        let mut known = self.context_sizes.lock().await;
        if let Some(tokens) = known.get(model) {
            return *tokens;
        }
        let tokens = self
            .ask_context(model)
            .await
            .unwrap_or(DEFAULT_CONTEXT_TOKENS);
        tracing::info!(model, context_tokens = tokens, "model context size");
        known.insert(model.to_owned(), tokens);
        tokens
    }

    /// llama.cpp's `/props` (beside the versioned root), then `/models`.
    async fn ask_context(&self, model: &str) -> Option<u32> {
        let root = self
            .base_url
            .strip_suffix("/v1")
            .unwrap_or(&self.base_url)
            .to_owned();
        for url in [format!("{root}/props"), format!("{}/models", self.base_url)] {
            let request = self.authorized(self.http.get(&url).timeout(Duration::from_secs(5)));
            let Ok(response) = request.send().await else {
                continue;
            };
            if !response.status().is_success() {
                continue;
            }
            if let Ok(document) = response.json::<Value>().await
                && let Some(tokens) = budget::reported_context(&document, model)
            {
                return Some(tokens);
            }
        }
        None
    }

    /// The request body: the thread fitted into `context` tokens.
    fn body(&self, request: &CompletionRequest, model: &str, context: u32) -> (Value, Fitted) {
        let tools: Vec<ChatCompletionTools> =
            request.tools.iter().map(request::to_openai_tool).collect();
        let messages = request::alternating(&request.messages);
        let system = request::system_text(&request.system_prompt, &request.messages);
        // A photo the model sees costs what its server makes of it, not its bytes as text.
        let fixed = budget::estimate_tokens(&system)
            + budget::tools_tokens(&request.tools)
            + request.images.len() * budget::IMAGE_TOKENS
            + self.config.max_tokens as usize;
        // A twentieth for what the estimate cannot see (template tokens, tool formatting).
        let available = (context as usize * 19 / 20).saturating_sub(fixed);
        let fitted = budget::fit(&messages, available);
        let system = match &fitted.note {
            Some(note) => format!("{system}\n\n{note}"),
            None => system,
        };
        let one_call = !tools.is_empty() && prompts::one_call_at_a_time(&request.agent_id);
        let body = CreateChatCompletionRequest {
            model: model.to_owned(),
            messages: request::chat_messages(&system, &fitted.messages, &request.images),
            stream: Some(true),
            stream_options: Some(ChatCompletionStreamOptions {
                include_usage: Some(true),
                include_obfuscation: None,
            }),
            temperature: self.config.temperature,
            parallel_tool_calls: (one_call && !request.answer_only).then_some(false),
            tools: (!tools.is_empty()).then_some(tools),
            ..Default::default()
        };
        let mut body = serde_json::to_value(body).unwrap_or_default();
        if let Value::Object(body) = &mut body {
            // `max_tokens` is what every compatible server reads; OpenAI's reasoning models
            // want `max_completion_tokens` instead, which `extra_body` can give.
            if !self.config.extra_body.contains_key("max_completion_tokens") {
                body.insert("max_tokens".to_owned(), self.config.max_tokens.into());
            }
            for (key, value) in &self.config.extra_body {
                body.insert(key.clone(), value.clone());
            }
            // The run's last turn may only answer, whatever `extra_body` asks otherwise.
            if request.answer_only && !request.tools.is_empty() {
                body.insert("tool_choice".to_owned(), "none".into());
                body.remove("parallel_tool_calls");
            }
        }
        (body, fitted)
    }

    /// Sends one request; retries rate limits, server trouble and failed connections while
    /// nothing has been answered, waiting as `Retry-After` says or doubling from half a second.
    async fn send(
        &self,
        body: &Value,
    ) -> Result<BoxStream<'static, Result<LlmChunk, LlmError>>, LlmError> {
        let url = format!("{}/chat/completions", self.base_url);
        let mut attempt = 0;
        loop {
            let started = Instant::now();
            let clocks = StreamClocks {
                started,
                first_token: self.config.timeouts.first_token,
                silence: self.config.timeouts.silence,
            };
            let sent = self.authorized(self.http.post(&url).json(body)).send();
            let failure = match tokio::time::timeout(clocks.first_token, sent).await {
                Err(_) => {
                    return Err(LlmError::Timeout(format!(
                        "no answer within {}s of the request",
                        clocks.first_token.as_secs()
                    )));
                }
                Ok(Err(error)) if error.is_connect() => {
                    (LlmError::Unreachable(error_chain(&error)), None::<Duration>)
                }
                Ok(Err(error)) => return Err(LlmError::Unreachable(error_chain(&error))),
                Ok(Ok(response)) if response.status().is_success() => {
                    return Ok(stream::decode(response, clocks));
                }
                Ok(Ok(response)) => {
                    let status = response.status().as_u16();
                    let wait = retry_after(response.headers());
                    let text = response.text().await.unwrap_or_default();
                    let error = refusal(status, &text);
                    if !retryable(status) {
                        return Err(error);
                    }
                    (error, wait)
                }
            };
            let (error, wait) = failure;
            if attempt >= self.config.retries {
                return Err(error);
            }
            let backoff = Duration::from_millis(500 * 2u64.pow(attempt));
            let wait = wait.unwrap_or(backoff).min(Duration::from_secs(30));
            tracing::info!(attempt = attempt + 1, wait_ms = wait.as_millis() as u64, error = %error, "retrying the model request");
            tokio::time::sleep(wait).await;
            attempt += 1;
        }
    }
}

#[async_trait::async_trait]
impl LlmProvider for OpenAiProvider {
    fn name(&self) -> &str {
        "openai"
    }

    fn sees_images(&self) -> bool {
        self.config.vision
    }

    async fn complete(
        &self,
        request: CompletionRequest,
    ) -> Result<BoxStream<'static, Result<LlmChunk, LlmError>>, LlmError> {
        if let Some(error) = &self.config_error {
            return Err(LlmError::Unreachable(error.clone()));
        }
        let model = self.model_for(&request.agent_id).to_owned();
        let mut context = self.context_tokens(&model).await;
        let mut trimmed_again = false;
        loop {
            let (body, fitted) = self.body(&request, &model, context);
            tracing::debug!(
                model,
                agent = %request.agent_id,
                estimated_tokens = fitted.tokens,
                dropped_turns = fitted.dropped_turns,
                "model request"
            );
            match self.send(&body).await {
                // The estimate was too low for this server: once more with a smaller budget.
                Err(LlmError::ContextExceeded(detail)) if !trimmed_again => {
                    tracing::info!(%detail, context, "the model found the request too long; trimming once more");
                    context = context * 2 / 3;
                    trimmed_again = true;
                }
                other => return other,
            }
        }
    }
}

#[cfg(test)]
mod tests;
