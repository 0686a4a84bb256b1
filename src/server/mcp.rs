//! `/mcp`: our read tools offered to any MCP client over streamable HTTP (issue 39), through
//! the official Rust SDK's server (`rmcp`) as a service under axum's router.
//!
//! - Only the tools that read: company lookup, inspection history, regulation search and
//!   articles. Tools that write (findings, reports, the verification) are not offered.
//! - Behind the API's own authentication: an API key (as `X-API-Key`, or the bearer token MCP
//!   clients send), a signed-in session, the SSO proxy's header; anonymous only in `--auth dev`.
//! - Stateless: each request carries its credentials and stands alone, with no MCP session
//!   kept between requests, so nothing one account did is reachable by another through it
//!   (the tools take no thread either: they read the register and the law, not conversations).
//! - Each call is logged (account, tool, outcome, time) and counted in `/metrics`, and limited
//!   per account (`--mcp-calls-per-minute`, GCRA as for runs): past it the call is refused
//!   with a JSON-RPC error that says when to retry.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use axum::Router;
use axum::extract::{Request, State};
use axum::http::{HeaderValue, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ErrorCode,
    Implementation, ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::transport::streamable_http_server::session::never::NeverSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde_json::{Value, json};

use super::auth::{AuthError, AuthMode, CurrentUser};
use super::error::AppError;
use super::run_limits::RunLimits;
use super::state::AppState;
use crate::orchestrator::tools::{
    CHECK_COMPANY_EXISTS, GET_COMPANY_INFO, GET_INSPECTION_HISTORY, LOOKUP_REGULATION_ARTICLES,
    SEARCH_REGULATIONS, ToolContext, Toolbox,
};

/// The tools `/mcp` offers: those that only read.
pub const OFFERED: &[&str] = &[
    CHECK_COMPANY_EXISTS,
    GET_COMPANY_INFO,
    GET_INSPECTION_HISTORY,
    SEARCH_REGULATIONS,
    LOOKUP_REGULATION_ARTICLES,
];

/// JSON-RPC error code of a call refused by the per-account limit (in the range JSON-RPC
/// leaves to servers); `data.retryAfterSeconds` says when the next call is taken.
pub const RATE_LIMITED: i32 = -32029;

/// The counter of calls served, by tool and outcome.
const MCP_CALLS: &str = "agora_mcp_calls_total";

/// The SDK's handler: our toolbox, read only.
#[derive(Clone)]
struct ReadTools {
    toolbox: Toolbox,
    limits: Arc<RunLimits>,
    reports_dir: PathBuf,
}

impl ReadTools {
    fn tools(&self) -> Vec<rmcp::model::Tool> {
        OFFERED
            .iter()
            .filter_map(|name| self.toolbox.get(name))
            .map(|tool| {
                let schema = match tool.parameters() {
                    Value::Object(schema) => schema,
                    _ => Default::default(),
                };
                rmcp::model::Tool::new(tool.name(), tool.description(), Arc::new(schema))
                    .with_title(tool.display_name())
            })
            .collect()
    }
}

impl ServerHandler for ReadTools {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("agora-hai", env!("CARGO_PKG_VERSION")))
            .with_instructions(
                "AGORA HAI, NVWA food safety: look up companies (KVK register) and their \
                 inspection history, search the food-safety regulations and read their articles.",
            )
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(self.tools()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        // Set by `authenticate` on every request that reaches the SDK.
        let user = context
            .extensions
            .get::<axum::http::request::Parts>()
            .and_then(|parts| parts.extensions.get::<CurrentUser>())
            .cloned()
            .ok_or_else(|| ErrorData::invalid_request("sign in first", None))?;
        let name = request.name.as_ref();
        let Some(tool) = OFFERED
            .contains(&name)
            .then(|| self.toolbox.get(name))
            .flatten()
        else {
            tracing::info!(user = %user.id, tool = %name, "MCP call of a tool not offered");
            return Err(ErrorData::invalid_params(
                format!(
                    "unknown tool `{name}`; the tools are: {}",
                    OFFERED.join(", ")
                ),
                None,
            ));
        };
        if let Err(limited) = self.limits.check(&user.id, user.kind) {
            tracing::info!(user = %user.id, tool = %name, retry_after_secs = limited.retry_after_secs(), "MCP call refused: rate limit");
            metrics::counter!(MCP_CALLS, "tool" => tool.name(), "outcome" => "limited")
                .increment(1);
            return Err(ErrorData::new(
                ErrorCode(RATE_LIMITED),
                format!(
                    "too many tool calls: at most {} a minute; retry in {} s",
                    limited.per_minute,
                    limited.retry_after_secs()
                ),
                Some(json!({ "retryAfterSeconds": limited.retry_after_secs() })),
            ));
        }
        let arguments = Value::Object(request.arguments.unwrap_or_default());
        let context = ToolContext {
            thread_id: "",
            user_id: &user.id,
            messages: &[],
            reports_dir: &self.reports_dir,
            user_name: None,
            thread_title: None,
            photos: None,
            inspection: None,
        };
        let started = Instant::now();
        let outcome = tool.call(&context, &arguments).await;
        let elapsed_us = started.elapsed().as_micros() as u64;
        let (label, result) = match outcome {
            Ok(value) => ("ok", CallToolResult::structured(value)),
            // The tool's own refusal (a bad KVK number, an unknown id) is a result the
            // client's model reads, as MCP wants tool errors to be.
            Err(e) => (
                "error",
                CallToolResult::error(vec![ContentBlock::text(e.to_string())]),
            ),
        };
        tracing::info!(user = %user.id, tool = %name, outcome = label, elapsed_us, "MCP call served");
        metrics::counter!(MCP_CALLS, "tool" => tool.name(), "outcome" => label).increment(1);
        Ok(CallToolResponse::Complete(result))
    }
}

/// `/mcp`, for every method the transport knows (POST, and GET/DELETE answered as a
/// stateless server does).
pub fn routes(state: &AppState) -> Router<AppState> {
    let per_minute = std::num::NonZeroU32::new(state.config.mcp_calls_per_minute)
        .unwrap_or(std::num::NonZeroU32::MIN);
    let handler = ReadTools {
        toolbox: state.orchestrator.toolbox().clone(),
        limits: Arc::new(RunLimits::new(per_minute, per_minute, &[])),
        reports_dir: state.orchestrator.config().reports_dir.clone(),
    };
    // Every request is authenticated here (the same rules as the API's), so the SDK's check of
    // `Host` against loopback names, meant for unauthenticated local servers, would only
    // refuse this server's real name; `same_origin_writes` keeps other sites' pages out.
    let config = StreamableHttpServerConfig::default()
        .with_legacy_session_mode(false)
        .with_json_response(true)
        .disable_allowed_hosts();
    let service = StreamableHttpService::new(
        move || Ok(handler.clone()),
        Arc::new(NeverSessionManager::default()),
        config,
    );
    Router::new()
        .route_service("/mcp", service)
        .layer(axum::middleware::from_fn_with_state(
            state.clone(),
            authenticate,
        ))
}

/// Who calls: the API's authentication, with the bearer token MCP clients send read as the
/// API key; refused (401, JSON) without valid credentials, except in dev mode.
async fn authenticate(State(state): State<AppState>, request: Request, next: Next) -> Response {
    let (mut parts, body) = request.into_parts();
    if state.auth.mode == AuthMode::ApiKey
        && !parts.headers.contains_key("x-api-key")
        && let Some(token) = parts
            .headers
            .get(header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.strip_prefix("Bearer "))
            .and_then(|token| HeaderValue::from_str(token.trim()).ok())
    {
        parts.headers.insert("x-api-key", token);
    }
    match state.auth.identify(state.db.as_ref(), &parts).await {
        Ok(user) => {
            parts.extensions.insert(user);
            next.run(Request::from_parts(parts, body)).await
        }
        Err(AuthError::Store) => {
            AppError::Internal(anyhow::anyhow!("sign-in: the store failed")).into_response()
        }
        Err(e) => {
            tracing::info!(reason = %e, "MCP request refused: not signed in");
            let mut response = AppError::Unauthorized(e.to_string()).into_response();
            response.headers_mut().insert(
                header::WWW_AUTHENTICATE,
                HeaderValue::from_static("Bearer realm=\"agora-hai\""),
            );
            response
        }
    }
}
