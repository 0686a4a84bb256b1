//! MCP from the outside: the Python venv that `scripts/setup.sh test` makes (FastMCP and the
//! official SDK, pinned), a FastMCP tool server as a child process, and the official client.

use std::path::PathBuf;
use std::process::Stdio;

use serde_json::Value;

/// The venv's Python (`AGORA_MCP_PYTHON` overrides it); a clear panic when it is missing.
pub fn python() -> PathBuf {
    let python = std::env::var_os("AGORA_MCP_PYTHON")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            let cache = std::env::var_os("XDG_CACHE_HOME")
                .map(PathBuf::from)
                .unwrap_or_else(|| PathBuf::from(std::env::var("HOME").unwrap()).join(".cache"));
            cache.join("agora-hai/mcp-venv/bin/python")
        });
    assert!(
        python.exists(),
        "{} is missing: `scripts/setup.sh test-only` installs FastMCP and the MCP SDK",
        python.display()
    );
    python
}

pub fn script(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("scripts")
        .join(name)
}

/// A port nobody listens on now.
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// `scripts/mcp_tool_server.py` on `port` (with a bearer token it requires, if given); killed
/// when dropped.
pub struct ToolServer {
    pub port: u16,
    child: Option<tokio::process::Child>,
}

impl ToolServer {
    pub fn start(port: u16, token: Option<&str>) -> Self {
        let mut command = tokio::process::Command::new(python());
        command
            .arg(script("mcp_tool_server.py"))
            .arg(port.to_string())
            .args(token)
            .stdin(Stdio::null())
            // FastMCP logs every tool error it serves (the failing tool is one on purpose);
            // the tests read what the client sees instead.
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .kill_on_drop(true);
        let child = command.spawn().expect("the FastMCP server starts");
        Self {
            port,
            child: Some(child),
        }
    }

    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}/mcp", self.port)
    }

    /// Kills the server at once (SIGKILL), as a crash would.
    pub async fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            child.kill().await.unwrap();
        }
    }
}

/// Runs `scripts/mcp_client_check.py` with `plan` (url, headers, calls) and returns what it
/// printed: the initialize result, the tools, each call's result or error.
pub async fn official_client(plan: &Value) -> Value {
    let output = tokio::process::Command::new(python())
        .arg(script("mcp_client_check.py"))
        .arg(plan.to_string())
        .stdin(Stdio::null())
        .output()
        .await
        .expect("the MCP client runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    serde_json::from_str(stdout.trim()).unwrap_or_else(|e| {
        panic!(
            "the MCP client printed {stdout:?} ({e}); stderr: {}",
            String::from_utf8_lossy(&output.stderr)
        )
    })
}
