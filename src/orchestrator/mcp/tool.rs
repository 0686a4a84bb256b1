//! One tool of an MCP server as a [`Tool`] of the toolbox: the run loop calls it, approves it
//! and streams it like any built-in tool. Whatever goes wrong on the way (the server's own
//! error, a timeout, a connection that died) comes back as a [`ToolError`], which the run turns
//! into a tool result the model reads; the run goes on.

use std::collections::HashSet;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Instant;

use rmcp::model::{CallToolRequestParams, CallToolResult};
use rmcp::service::ServiceError;
use serde_json::{Map, Value, json};

use super::Server;
use crate::orchestrator::tools::{Tool, ToolContext, ToolError};

/// An MCP server's tool, under the name the model calls it by.
pub struct McpTool {
    server: Arc<Server>,
    /// The name the model calls (the server's own, or prefixed with the server's name).
    exposed: &'static str,
    /// The name the server knows it by.
    remote: String,
    description: &'static str,
    display_name: &'static str,
    parameters: Value,
}

impl std::fmt::Debug for McpTool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpTool")
            .field("server", &self.server.config().name)
            .field("name", &self.exposed)
            .finish()
    }
}

/// The trait's names and texts are `&'static str` (the built-in tools' are constants); an MCP
/// server's come at run time. Each distinct text is kept once for the life of the process, so
/// a server whose list changes back and forth does not grow memory.
fn intern(text: &str) -> &'static str {
    static TEXTS: OnceLock<Mutex<HashSet<&'static str>>> = OnceLock::new();
    let mut texts = TEXTS
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|p| p.into_inner());
    if let Some(kept) = texts.get(text) {
        return kept;
    }
    let kept: &'static str = Box::leak(text.to_owned().into_boxed_str());
    texts.insert(kept);
    kept
}

impl McpTool {
    pub(super) fn new(server: Arc<Server>, tool: &rmcp::model::Tool, exposed: String) -> Self {
        let mut description = tool
            .description
            .as_deref()
            .unwrap_or_default()
            .trim()
            .to_owned();
        if description.is_empty() {
            description = format!(
                "Tool `{}` of the MCP server `{}`.",
                tool.name,
                server.config().name
            );
        }
        let display_name = tool
            .title
            .as_deref()
            .or(tool.annotations.as_ref().and_then(|a| a.title.as_deref()))
            .unwrap_or(&exposed)
            .to_owned();
        let mut parameters = Value::Object((*tool.input_schema).clone());
        if parameters.get("type").is_none() {
            parameters["type"] = json!("object");
        }
        Self {
            exposed: intern(&exposed),
            remote: tool.name.to_string(),
            description: intern(&description),
            display_name: intern(&display_name),
            parameters,
            server,
        }
    }

    pub fn server_name(&self) -> &str {
        &self.server.config().name
    }

    pub(super) fn offered_to(&self, agent: &str) -> bool {
        self.server.config().agents.contains(&agent)
    }

    /// What the model reads: the text content, the structured content when there is any,
    /// and a count of what it cannot read (images, audio, resources).
    fn result(&self, result: CallToolResult) -> Result<Value, ToolError> {
        let texts: Vec<&str> = result
            .content
            .iter()
            .filter_map(|c| c.as_text().map(|t| t.text.as_str()))
            .collect();
        let text = texts.join("\n");
        if result.is_error == Some(true) {
            let text = if text.is_empty() {
                "no reason given"
            } else {
                &text
            };
            return Err(ToolError::Failed(format!(
                "de MCP-server `{server}` meldt een fout / the MCP server `{server}` reported an error in `{tool}`: {text}",
                server = self.server_name(),
                tool = self.remote,
            )));
        }
        let mut value = Map::new();
        value.insert("text".to_owned(), json!(text));
        if let Some(structured) = result.structured_content {
            value.insert("structuredContent".to_owned(), structured);
        }
        let other = result.content.len() - texts.len();
        if other > 0 {
            value.insert("otherContent".to_owned(), json!(other));
        }
        Ok(Value::Object(value))
    }
}

#[async_trait::async_trait]
impl Tool for McpTool {
    fn name(&self) -> &'static str {
        self.exposed
    }

    fn display_name(&self) -> &'static str {
        self.display_name
    }

    fn description(&self) -> &'static str {
        self.description
    }

    fn parameters(&self) -> Value {
        self.parameters.clone()
    }

    fn requires_approval(&self) -> bool {
        self.server.config().always_approve
    }

    async fn call(&self, ctx: &ToolContext<'_>, args: &Value) -> Result<Value, ToolError> {
        let arguments = match args {
            Value::Object(map) => map.clone(),
            Value::Null => Map::new(),
            _ => {
                return Err(ToolError::InvalidArguments(
                    "argumenten moeten een JSON-object zijn / arguments must be a JSON object"
                        .to_owned(),
                ));
            }
        };
        let server = self.server_name();
        let Some(peer) = self.server.peer() else {
            return Err(ToolError::Failed(format!(
                "de MCP-server `{server}` is niet bereikbaar / the MCP server `{server}` is down; try again later or answer without it"
            )));
        };
        let timeout = self.server.config().call_timeout;
        let started = Instant::now();
        let params = CallToolRequestParams::new(self.remote.clone()).with_arguments(arguments);
        let outcome = tokio::time::timeout(timeout, peer.call_tool(params)).await;
        let elapsed_ms = started.elapsed().as_millis() as u64;
        let result = match outcome {
            Ok(Ok(result)) => self.result(result),
            Ok(Err(e)) => {
                tracing::debug!(server, tool = %self.remote, error = %e, "MCP call failed");
                Err(ToolError::Failed(match e {
                    ServiceError::TransportClosed | ServiceError::TransportSend(_) => {
                        self.server.connection_lost();
                        format!(
                            "de verbinding met de MCP-server `{server}` is verbroken / the connection to the MCP server `{server}` broke off (it stopped or is unreachable); try again later or answer without it"
                        )
                    }
                    // The server's JSON-RPC error (an unknown tool, arguments it refuses).
                    ServiceError::McpError(error) => format!(
                        "de MCP-server `{server}` weigert de aanroep / the MCP server `{server}` refused the call: {}",
                        error.message
                    ),
                    other => format!(
                        "de aanroep bij de MCP-server `{server}` mislukte / the call to the MCP server `{server}` failed: {other}"
                    ),
                }))
            }
            Err(_) => Err(ToolError::Failed(format!(
                "de MCP-server `{server}` antwoordde niet binnen {secs} s / the MCP server `{server}` did not answer within {secs} s",
                secs = timeout.as_secs_f64()
            ))),
        };
        match &result {
            Ok(_) => {
                tracing::info!(server, tool = %self.remote, thread_id = ctx.thread_id, user = ctx.user_id, elapsed_ms, "MCP tool call")
            }
            Err(e) => {
                tracing::warn!(server, tool = %self.remote, thread_id = ctx.thread_id, user = ctx.user_id, elapsed_ms, error = %e, "MCP tool call failed")
            }
        }
        result
    }
}
