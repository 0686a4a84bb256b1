//! Language-model providers behind one trait: the embedded deterministic planner (default,
//! no external service) and an OpenAI-compatible chat-completions client.

pub mod budget;
pub mod openai;
pub mod planner;
pub mod prompts;

use futures::stream::BoxStream;
use serde_json::Value;

use crate::protocol::{ErrorCode, Message};

/// A tool as offered to a model: name, what it does, JSON-Schema parameters.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolSpec {
    pub name: String,
    pub description: String,
    pub parameters: Value,
}

/// One turn of one agent: what the model sees.
#[derive(Debug, Clone)]
pub struct CompletionRequest {
    /// The agent answering, e.g. `regulation-agent`.
    pub agent_id: String,
    /// The agent's instructions.
    pub system_prompt: String,
    /// The whole thread so far, tool calls and their results included, oldest first; shared
    /// with the run, which keeps it.
    pub messages: std::sync::Arc<Vec<Message>>,
    /// What this agent may call now.
    pub tools: Vec<ToolSpec>,
    /// The model must answer in text now (`tool_choice: "none"`): the run's last turn, so a
    /// model that keeps calling tools ends with an answer rather than an error.
    pub answer_only: bool,
    /// Who the run is for: a provider that shares its own resources between runs (the
    /// embedded planner's threads) shares them per user.
    pub user_id: String,
    /// The stored photos the model sees (a provider that [`LlmProvider::sees_images`]): those of
    /// the message the run answers, by address (`/photos/<id>`), as `data:` URLs. Empty
    /// otherwise; a photo not in it reaches the model as a text placeholder.
    pub images: std::sync::Arc<std::collections::HashMap<String, String>>,
    /// The thread's inspection as the run has read it so far (issue 36), for a provider that
    /// reads it rather than the messages (the embedded planner); `None`: read from `messages`.
    pub inspection: Option<std::sync::Arc<crate::orchestrator::inspection::InspectionState>>,
}

/// What a model streams back. Tool calls arrive whole: clients of the original system parse
/// each TOOL_CALL_ARGS delta on its own, so arguments are sent as one complete JSON text.
#[derive(Debug, Clone, PartialEq)]
pub enum LlmChunk {
    Text(String),
    ToolCall {
        id: String,
        name: String,
        arguments: Value,
    },
    /// A call the model sent whole but that cannot be run (arguments that are not a JSON
    /// object, no function name). The run answers it with a tool error so the model can retry.
    InvalidToolCall {
        id: String,
        name: String,
        /// What the model sent, for the error it reads back (shortened).
        arguments: String,
        problem: String,
    },
    /// The last chunk of a response: why the model stopped and what the request cost.
    /// Providers that cannot tell (the embedded planner) send none; the run reads that as
    /// [`FinishReason::Stop`].
    Finished {
        reason: FinishReason,
        usage: Option<Usage>,
    },
}

/// Why a model stopped, as chat-completions' `finish_reason` says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FinishReason {
    Stop,
    ToolCalls,
    /// The output limit (`max_tokens`) or the context was reached: the answer is cut off.
    Length,
    ContentFilter,
    Other(String),
}

impl FinishReason {
    pub fn parse(reason: &str) -> Self {
        match reason {
            "stop" | "eos" | "end_turn" => FinishReason::Stop,
            "tool_calls" | "function_call" => FinishReason::ToolCalls,
            "length" | "max_tokens" => FinishReason::Length,
            "content_filter" => FinishReason::ContentFilter,
            other => FinishReason::Other(other.to_owned()),
        }
    }
}

/// Tokens one model request used, as the server counted them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Usage {
    pub prompt_tokens: u64,
    pub completion_tokens: u64,
}

/// Why a model request failed. Each has a stable [`LlmError::code`] for the UI and `runs.error`;
/// the text is the detail for the log.
#[derive(Debug, thiserror::Error)]
pub enum LlmError {
    #[error("model service unreachable: {0}")]
    Unreachable(String),
    #[error("model service answered {status}: {body}")]
    Status { status: u16, body: String },
    #[error("unreadable model response: {0}")]
    Protocol(String),
    /// The thread does not fit the model's context, even trimmed.
    #[error("the request does not fit the model's context: {0}")]
    ContextExceeded(String),
    /// A deadline passed: connecting, waiting for the first token, silence, or the whole run.
    #[error("the model did not answer in time: {0}")]
    Timeout(String),
    /// The answer reached the output limit and is cut off.
    #[error("the answer was cut off at the output limit (max_tokens)")]
    Truncated,
    /// The model kept sending tool calls that cannot be run.
    #[error("the model sent tool calls that cannot be run: {0}")]
    InvalidToolCalls(String),
}

impl LlmError {
    /// Stable, for the UI (`RUN_ERROR.code`) and `runs.error`; its sentence is what the
    /// inspector reads (the detail goes to the log).
    pub fn code(&self) -> ErrorCode {
        match self {
            LlmError::Unreachable(_) => ErrorCode::ModelUnreachable,
            LlmError::Status {
                status: 401 | 403, ..
            } => ErrorCode::ModelAuth,
            LlmError::Status { status: 429, .. } => ErrorCode::ModelRateLimited,
            LlmError::Status { status, .. } if *status >= 500 => ErrorCode::ModelUnavailable,
            LlmError::Status { .. } => ErrorCode::ModelRejected,
            LlmError::Protocol(_) => ErrorCode::ModelProtocol,
            LlmError::ContextExceeded(_) => ErrorCode::ModelContextExceeded,
            LlmError::Timeout(_) => ErrorCode::ModelTimeout,
            LlmError::Truncated => ErrorCode::ModelOutputTruncated,
            LlmError::InvalidToolCalls(_) => ErrorCode::ModelInvalidToolCalls,
        }
    }
}

#[async_trait::async_trait]
pub trait LlmProvider: Send + Sync + 'static {
    /// Shown in logs and `/health`.
    fn name(&self) -> &str;
    /// Whether the model sees images (`--llm-vision`): then a run gives it the bytes of the
    /// photos of the message it answers ([`CompletionRequest::images`]).
    fn sees_images(&self) -> bool {
        false
    }
    async fn complete(
        &self,
        request: CompletionRequest,
    ) -> Result<BoxStream<'static, Result<LlmChunk, LlmError>>, LlmError>;
}
