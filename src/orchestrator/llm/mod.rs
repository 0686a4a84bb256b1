//! Language-model providers behind one trait: the embedded deterministic planner (default,
//! no external service) and an OpenAI-compatible chat-completions client.

pub mod openai;
pub mod planner;
pub mod prompts;

use futures::stream::BoxStream;
use serde_json::Value;

use crate::protocol::Message;

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
    /// The whole thread so far, tool calls and their results included, oldest first.
    pub messages: Vec<Message>,
    /// What this agent may call now.
    pub tools: Vec<ToolSpec>,
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
}

#[derive(Debug, thiserror::Error)]
pub enum LlmError {
    #[error("model service unreachable: {0}")]
    Unreachable(String),
    #[error("model service answered {status}: {body}")]
    Status { status: u16, body: String },
    #[error("unreadable model response: {0}")]
    Protocol(String),
}

#[async_trait::async_trait]
pub trait LlmProvider: Send + Sync + 'static {
    /// Shown in logs and `/health`.
    fn name(&self) -> &str;
    async fn complete(
        &self,
        request: CompletionRequest,
    ) -> Result<BoxStream<'static, Result<LlmChunk, LlmError>>, LlmError>;
}
