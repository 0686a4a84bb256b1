//! Tools of MCP servers (issue 39): each server the flags name is connected through the
//! official Rust SDK (`rmcp`), over streamable HTTP or a child's stdio, and its tools become
//! [`Tool`]s of the [`Toolbox`] (`tool.rs`), offered to the agents the flags name. A call goes
//! through the run loop as any built-in tool's: the same approval policy, the same events, and
//! every failure (an MCP error, a timeout, a server that died) is a tool result the model reads.
//!
//! Each server has a supervisor task that connects, lists the tools, follows `list_changed`,
//! and reconnects with back-off when the server is down (at start or later): a server that is
//! down is logged and retried, never fatal. Its tools are offered only while it is up.
//!
//! [`Tool`]: super::tools::Tool
//! [`Toolbox`]: super::tools::Toolbox

mod config;
mod tool;

pub use config::{McpConfigError, McpFlags, McpServerConfig, McpTarget};
pub use tool::McpTool;

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, RwLock, Weak};
use std::time::Duration;

use rmcp::model::{ClientCapabilities, ClientConfig, Implementation};
use rmcp::service::{NotificationContext, Peer, RoleClient, RunningService};
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use rmcp::{ClientHandler, ServiceExt};
use serde_json::{Value, json};
use tokio::sync::Notify;
use tokio_util::sync::CancellationToken;

use super::llm::ToolSpec;

/// How long connecting (the `initialize` handshake) or listing the tools may take.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// The first wait before a server that is down is tried again; it doubles up to the most.
const FIRST_RETRY: Duration = Duration::from_millis(500);
const MOST_RETRY: Duration = Duration::from_secs(30);
/// How often a server that is up is pinged, so `/ready` and the offered tools notice a server
/// that died between calls.
const PING_EVERY: Duration = Duration::from_secs(15);

/// Where a server stands, for `/ready` and the logs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Status {
    Connecting,
    Up,
    /// Down, with the last reason; retried.
    Down(String),
}

/// One configured server and what is known of it now.
pub(crate) struct Server {
    config: McpServerConfig,
    state: RwLock<ServerState>,
    /// The server said its tool list changed.
    relist: Notify,
    /// A call found the connection gone: reconnect.
    lost: Notify,
}

struct ServerState {
    status: Status,
    peer: Option<Peer<RoleClient>>,
    tools: Vec<rmcp::model::Tool>,
    /// Connection attempts since the server was last up.
    attempts: u32,
}

impl Server {
    pub(crate) fn config(&self) -> &McpServerConfig {
        &self.config
    }

    /// The live connection, if the server is up.
    pub(crate) fn peer(&self) -> Option<Peer<RoleClient>> {
        let state = self.state.read().unwrap_or_else(|p| p.into_inner());
        match state.status {
            Status::Up => state.peer.clone(),
            _ => None,
        }
    }

    /// A call found the transport closed: the supervisor reconnects.
    pub(crate) fn connection_lost(&self) {
        self.lost.notify_one();
    }

    fn set(&self, status: Status, peer: Option<Peer<RoleClient>>) {
        let mut state = self.state.write().unwrap_or_else(|p| p.into_inner());
        if status == Status::Up {
            state.attempts = 0;
        }
        if let Status::Down(_) = status {
            state.attempts += 1;
        }
        state.status = status;
        state.peer = peer;
    }
}

/// The MCP servers of this instance and the tools they offer now, by the name the model calls.
pub struct McpServers {
    servers: Vec<Arc<Server>>,
    /// Exposed name → tool, rebuilt whenever a server's list changes or it goes up or down.
    index: RwLock<HashMap<String, Arc<McpTool>>>,
    /// The built-in tools' names: an MCP tool of the same name is offered with its server's
    /// name in front.
    builtin: HashSet<String>,
    /// Stops the supervisors when the instance goes (tests start many in one process).
    stop: CancellationToken,
}

impl Drop for McpServers {
    fn drop(&mut self) {
        self.stop.cancel();
    }
}

impl std::fmt::Debug for McpServers {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpServers")
            .field(
                "servers",
                &self
                    .servers
                    .iter()
                    .map(|s| &s.config.name)
                    .collect::<Vec<_>>(),
            )
            .finish()
    }
}

impl McpServers {
    /// Starts a supervisor for each server (within a tokio runtime); returns at once, the
    /// servers connect in the background.
    pub fn start(configs: Vec<McpServerConfig>, builtin: &[&str]) -> Arc<Self> {
        let servers: Vec<Arc<Server>> = configs
            .into_iter()
            .map(|config| {
                Arc::new(Server {
                    config,
                    state: RwLock::new(ServerState {
                        status: Status::Connecting,
                        peer: None,
                        tools: Vec::new(),
                        attempts: 0,
                    }),
                    relist: Notify::new(),
                    lost: Notify::new(),
                })
            })
            .collect();
        let registry = Arc::new(Self {
            servers: servers.clone(),
            index: RwLock::new(HashMap::new()),
            builtin: builtin.iter().map(|n| (*n).to_owned()).collect(),
            stop: CancellationToken::new(),
        });
        for server in servers {
            tokio::spawn(supervise(
                Arc::downgrade(&registry),
                server,
                registry.stop.clone(),
            ));
        }
        registry
    }

    pub fn is_empty(&self) -> bool {
        self.servers.is_empty()
    }

    /// The tool the model calls by this name, if a server that is up offers it.
    pub fn get(&self, name: &str) -> Option<Arc<McpTool>> {
        self.index
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .get(name)
            .cloned()
    }

    /// The tools offered to `agent` now, sorted by name (a stable prompt).
    pub fn specs_for(&self, agent: &str) -> Vec<ToolSpec> {
        let index = self.index.read().unwrap_or_else(|p| p.into_inner());
        let mut specs: Vec<ToolSpec> = index
            .values()
            .filter(|tool| tool.offered_to(agent))
            .map(|tool| super::tools::Tool::spec(tool.as_ref()))
            .collect();
        specs.sort_by(|a, b| a.name.cmp(&b.name));
        specs
    }

    /// Each server: its name, whether it is up, its tools' names as offered, and why not.
    pub fn report(&self) -> Vec<Value> {
        let index = self.index.read().unwrap_or_else(|p| p.into_inner());
        self.servers
            .iter()
            .map(|server| {
                let state = server.state.read().unwrap_or_else(|p| p.into_inner());
                let mut tools: Vec<&str> = index
                    .iter()
                    .filter(|(_, t)| t.server_name() == server.config.name)
                    .map(|(name, _)| name.as_str())
                    .collect();
                tools.sort_unstable();
                let (status, error) = match &state.status {
                    Status::Connecting => ("connecting", None),
                    Status::Up => ("up", None),
                    Status::Down(why) => ("down", Some(why.as_str())),
                };
                let mut entry = json!({
                    "name": server.config.name,
                    "transport": server.config.target.kind(),
                    "status": status,
                    "tools": tools,
                });
                if let Some(error) = error {
                    entry["error"] = json!(error);
                    entry["attempts"] = json!(state.attempts);
                }
                entry
            })
            .collect()
    }

    /// Rebuilds the index from the servers that are up. A name two tools share (two servers,
    /// or a server and a built-in tool) is offered as `<server>_<name>` for each MCP tool that
    /// has it; names are kept to what model APIs accept (`[A-Za-z0-9_-]{1,64}`).
    fn reindex(&self) {
        let mut listed: Vec<(Arc<Server>, rmcp::model::Tool)> = Vec::new();
        for server in &self.servers {
            let state = server.state.read().unwrap_or_else(|p| p.into_inner());
            if state.status == Status::Up {
                listed.extend(state.tools.iter().map(|t| (server.clone(), t.clone())));
            }
        }
        let mut seen: HashMap<String, usize> = HashMap::new();
        for (_, tool) in &listed {
            *seen.entry(model_name(&tool.name)).or_default() += 1;
        }
        let mut index = HashMap::new();
        for (server, tool) in listed {
            let plain = model_name(&tool.name);
            let clash = seen[&plain] > 1 || self.builtin.contains(&plain);
            let mut exposed = if clash {
                model_name(&format!("{}_{}", server.config.name, tool.name))
            } else {
                plain
            };
            // Still taken (a prefixed name that another tool has as its own): a number makes
            // it unique; the tool's description tells the model what it is.
            let base = exposed.clone();
            let mut n = 2;
            while index.contains_key(&exposed) || (clash && self.builtin.contains(&exposed)) {
                exposed = model_name(&format!("{base}_{n}"));
                n += 1;
            }
            index.insert(
                exposed.clone(),
                Arc::new(McpTool::new(server, &tool, exposed)),
            );
        }
        *self.index.write().unwrap_or_else(|p| p.into_inner()) = index;
    }
}

/// A name as model APIs accept it: letters, digits, `_` and `-`, at most 64.
fn model_name(name: &str) -> String {
    let cleaned: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .take(64)
        .collect();
    if cleaned.is_empty() {
        "tool".to_owned()
    } else {
        cleaned
    }
}

/// Told by the SDK of the server's notifications; only `tools/list_changed` matters here.
struct Listener {
    server: Weak<Server>,
}

impl ClientHandler for Listener {
    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        if let Some(server) = self.server.upgrade() {
            server.relist.notify_one();
        }
    }

    fn get_info(&self) -> ClientConfig {
        ClientConfig::new(
            ClientCapabilities::default(),
            Implementation::new("agora-hai", env!("CARGO_PKG_VERSION")),
        )
    }
}

type Connection = RunningService<RoleClient, Listener>;

/// Connects to the server as its configuration says.
async fn connect(server: &Arc<Server>) -> Result<Connection, String> {
    let listener = Listener {
        server: Arc::downgrade(server),
    };
    match &server.config.target {
        McpTarget::Http { url, headers } => {
            // `Authorization` too goes as a header of its own: the SDK's `auth_header` would
            // put `Bearer ` in front of whatever scheme the file names.
            let mut custom = HashMap::new();
            for (name, value) in headers {
                let name = reqwest::header::HeaderName::from_bytes(name.as_bytes())
                    .map_err(|e| format!("header {name}: {e}"))?;
                let value = reqwest::header::HeaderValue::from_str(value)
                    .map_err(|e| format!("header {name}: {e}"))?;
                custom.insert(name, value);
            }
            let config =
                StreamableHttpClientTransportConfig::with_uri(url.as_str()).custom_headers(custom);
            let transport =
                StreamableHttpClientTransport::with_client(reqwest::Client::new(), config);
            listener.serve(transport).await.map_err(|e| e.to_string())
        }
        McpTarget::Stdio { program, args } => {
            let mut command = tokio::process::Command::new(program);
            command.args(args);
            let transport = TokioChildProcess::new(command).map_err(|e| e.to_string())?;
            listener.serve(transport).await.map_err(|e| e.to_string())
        }
    }
}

/// Lists every tool of the server (all pages).
async fn list(peer: &Peer<RoleClient>) -> Result<Vec<rmcp::model::Tool>, String> {
    match tokio::time::timeout(CONNECT_TIMEOUT, peer.list_all_tools()).await {
        Ok(Ok(tools)) => Ok(tools),
        Ok(Err(e)) => Err(format!("listing the tools failed: {e}")),
        Err(_) => Err(format!(
            "listing the tools took more than {} s",
            CONNECT_TIMEOUT.as_secs()
        )),
    }
}

/// Keeps one server connected for as long as the registry lives.
async fn supervise(registry: Weak<McpServers>, server: Arc<Server>, stop: CancellationToken) {
    let name = server.config.name.clone();
    let mut delay = FIRST_RETRY;
    loop {
        let attempt = async {
            let connection = tokio::time::timeout(CONNECT_TIMEOUT, connect(&server))
                .await
                .map_err(|_| format!("no answer within {} s", CONNECT_TIMEOUT.as_secs()))??;
            let tools = list(connection.peer()).await?;
            Ok::<_, String>((connection, tools))
        };
        let outcome = tokio::select! {
            outcome = attempt => outcome,
            () = stop.cancelled() => return,
        };
        match outcome {
            Ok((connection, tools)) => {
                delay = FIRST_RETRY;
                tracing::info!(server = %name, tools = tools.len(), "MCP server up");
                server
                    .state
                    .write()
                    .unwrap_or_else(|p| p.into_inner())
                    .tools = tools;
                server.set(Status::Up, Some(connection.peer().clone()));
                let Some(registry_now) = registry.upgrade() else {
                    return;
                };
                registry_now.reindex();
                drop(registry_now);
                let why = follow(&registry, &server, connection, &stop).await;
                let Some(why) = why else {
                    return;
                };
                tracing::warn!(server = %name, reason = %why, "MCP server down; reconnecting");
                server.set(Status::Down(why), None);
            }
            Err(why) => {
                let attempts = {
                    let state = server.state.read().unwrap_or_else(|p| p.into_inner());
                    state.attempts + 1
                };
                tracing::warn!(server = %name, reason = %why, attempt = attempts, retry_in_ms = delay.as_millis() as u64, "MCP server unreachable; retrying");
                server.set(Status::Down(why), None);
            }
        }
        match registry.upgrade() {
            Some(registry) => registry.reindex(),
            None => return,
        }
        tokio::select! {
            () = tokio::time::sleep(delay) => {}
            () = stop.cancelled() => return,
        }
        delay = (delay * 2).min(MOST_RETRY);
    }
}

/// While the server is up: relists on `list_changed`, pings now and then; returns why the
/// connection ended, or `None` when the registry is gone.
async fn follow(
    registry: &Weak<McpServers>,
    server: &Arc<Server>,
    connection: Connection,
    stop: &CancellationToken,
) -> Option<String> {
    let peer = connection.peer().clone();
    let cancel = connection.cancellation_token();
    let closed = connection.waiting();
    tokio::pin!(closed);
    let mut ping = tokio::time::interval(PING_EVERY);
    ping.tick().await;
    let why = loop {
        tokio::select! {
            () = stop.cancelled() => {
                cancel.cancel();
                return None;
            }
            _ = &mut closed => break "the connection closed".to_owned(),
            () = server.lost.notified() => break "a call found the connection gone".to_owned(),
            () = server.relist.notified() => {
                match list(&peer).await {
                    Ok(tools) => {
                        tracing::info!(server = %server.config.name, tools = tools.len(), "MCP server's tools changed");
                        server.state.write().unwrap_or_else(|p| p.into_inner()).tools = tools;
                        registry.upgrade()?.reindex();
                    }
                    Err(why) => break why,
                }
            }
            _ = ping.tick() => {
                match tokio::time::timeout(CONNECT_TIMEOUT, peer.send_request(rmcp::model::ClientRequest::PingRequest(Default::default()))).await {
                    Ok(Ok(_)) => {}
                    Ok(Err(e)) => break format!("ping failed: {e}"),
                    Err(_) => break format!("no answer to a ping within {} s", CONNECT_TIMEOUT.as_secs()),
                }
            }
        }
    };
    cancel.cancel();
    Some(why)
}
