//! The MCP servers the flags name, read into one configuration per server. A mistake in the
//! flags stops the start with a sentence that names the flag; a server that is down does not.

use std::path::Path;
use std::time::Duration;

use crate::orchestrator::agents;

/// How a server is reached.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum McpTarget {
    /// Streamable HTTP at `url`, with these headers on every request.
    Http {
        url: String,
        headers: Vec<(String, String)>,
    },
    /// A child process speaking MCP on its stdin and stdout.
    Stdio { program: String, args: Vec<String> },
}

impl McpTarget {
    /// `http` or `stdio`, for `/ready`.
    pub fn kind(&self) -> &'static str {
        match self {
            McpTarget::Http { .. } => "http",
            McpTarget::Stdio { .. } => "stdio",
        }
    }
}

/// One MCP server as configured.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct McpServerConfig {
    /// Letters, digits, `_` and `-`: it prefixes a tool whose name another tool has too.
    pub name: String,
    pub target: McpTarget,
    /// The agents offered its tools (by default the general agent).
    pub agents: Vec<&'static str>,
    /// Every call asks for approval (`--mcp-approval name=always`); otherwise the policy
    /// decides by name and arguments, as for the built-in tools.
    pub always_approve: bool,
    /// How long one call may take before its result says it timed out.
    pub call_timeout: Duration,
}

/// The flags as given, one string per occurrence.
#[derive(Debug, Clone, Default)]
pub struct McpFlags {
    /// `name=url`
    pub servers: Vec<String>,
    /// `name=program arg arg`
    pub commands: Vec<String>,
    /// `name=Header: value`, or `name=Header: @file` for a value read from a file.
    pub headers: Vec<String>,
    /// `name=agent,agent`
    pub agents: Vec<String>,
    /// `name=always` or `name=policy`
    pub approvals: Vec<String>,
    pub call_timeout: Duration,
}

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum McpConfigError {
    #[error("--{flag}: `{value}` is not `name=...`")]
    NotPair { flag: &'static str, value: String },
    #[error("--{flag}: the server name `{name}` may only have letters, digits, _ and -")]
    BadName { flag: &'static str, name: String },
    #[error("--mcp-server/--mcp-command: `{0}` is named twice")]
    Duplicate(String),
    #[error(
        "--{flag}: there is no MCP server `{name}` (name it with --mcp-server or --mcp-command)"
    )]
    UnknownServer { flag: &'static str, name: String },
    #[error("--mcp-server {name}: `{url}` is not an http(s) URL")]
    BadUrl { name: String, url: String },
    #[error("--mcp-command {0}: no command")]
    NoCommand(String),
    #[error("--mcp-agent {name}: there is no agent `{agent}`")]
    UnknownAgent { name: String, agent: String },
    #[error("--mcp-approval {name}: `{value}` is neither `always` nor `policy`")]
    BadApproval { name: String, value: String },
    #[error("--mcp-header {name}: `{value}` is not `Header: value`")]
    BadHeader { name: String, value: String },
    #[error("--mcp-header {name}: the header's value is not usable ({0})", .reason)]
    BadHeaderValue { name: String, reason: String },
    #[error("--mcp-header {name}: cannot read {path}: {reason}")]
    HeaderFile {
        name: String,
        path: String,
        reason: String,
    },
}

impl McpFlags {
    /// One configuration per server named by `--mcp-server` or `--mcp-command`, in that order.
    pub fn servers(&self) -> Result<Vec<McpServerConfig>, McpConfigError> {
        let mut servers: Vec<McpServerConfig> = Vec::new();
        let mut add = |name: String, target: McpTarget| {
            if servers.iter().any(|s| s.name == name) {
                return Err(McpConfigError::Duplicate(name));
            }
            servers.push(McpServerConfig {
                name,
                target,
                agents: vec![agents::GENERAL_AGENT],
                always_approve: false,
                call_timeout: self.call_timeout,
            });
            Ok(())
        };
        for entry in &self.servers {
            let (name, url) = pair("mcp-server", entry)?;
            let lower = url.to_ascii_lowercase();
            if !(lower.starts_with("http://") || lower.starts_with("https://"))
                || url::Url::parse(url).is_err()
            {
                return Err(McpConfigError::BadUrl {
                    name: name.to_owned(),
                    url: url.to_owned(),
                });
            }
            add(
                name.to_owned(),
                McpTarget::Http {
                    url: url.to_owned(),
                    headers: Vec::new(),
                },
            )?;
        }
        for entry in &self.commands {
            let (name, command) = pair("mcp-command", entry)?;
            let mut words = command.split_whitespace().map(str::to_owned);
            let program = words
                .next()
                .ok_or_else(|| McpConfigError::NoCommand(name.to_owned()))?;
            add(
                name.to_owned(),
                McpTarget::Stdio {
                    program,
                    args: words.collect(),
                },
            )?;
        }
        let find = |servers: &mut Vec<McpServerConfig>, flag: &'static str, name: &str| {
            servers.iter().position(|s| s.name == name).ok_or_else(|| {
                McpConfigError::UnknownServer {
                    flag,
                    name: name.to_owned(),
                }
            })
        };
        for entry in &self.headers {
            let (name, header) = pair("mcp-header", entry)?;
            let at = find(&mut servers, "mcp-header", name)?;
            let (header, value) =
                header
                    .split_once(':')
                    .ok_or_else(|| McpConfigError::BadHeader {
                        name: name.to_owned(),
                        value: header.to_owned(),
                    })?;
            let value = header_value(name, value.trim())?;
            let header = header.trim();
            if reqwest::header::HeaderName::from_bytes(header.as_bytes()).is_err() {
                return Err(McpConfigError::BadHeader {
                    name: name.to_owned(),
                    value: header.to_owned(),
                });
            }
            if reqwest::header::HeaderValue::from_str(&value).is_err() {
                return Err(McpConfigError::BadHeaderValue {
                    name: name.to_owned(),
                    reason: "it has control characters".to_owned(),
                });
            }
            match &mut servers[at].target {
                McpTarget::Http { headers, .. } => headers.push((header.to_owned(), value)),
                McpTarget::Stdio { .. } => {
                    return Err(McpConfigError::BadHeaderValue {
                        name: name.to_owned(),
                        reason: "a stdio server takes no HTTP headers".to_owned(),
                    });
                }
            }
        }
        for entry in &self.agents {
            let (name, list) = pair("mcp-agent", entry)?;
            let at = find(&mut servers, "mcp-agent", name)?;
            let mut chosen = Vec::new();
            for agent in list.split(',').map(str::trim).filter(|a| !a.is_empty()) {
                let info = agents::agent(agent).ok_or_else(|| McpConfigError::UnknownAgent {
                    name: name.to_owned(),
                    agent: agent.to_owned(),
                })?;
                if !chosen.contains(&info.id) {
                    chosen.push(info.id);
                }
            }
            servers[at].agents = chosen;
        }
        for entry in &self.approvals {
            let (name, value) = pair("mcp-approval", entry)?;
            let at = find(&mut servers, "mcp-approval", name)?;
            servers[at].always_approve = match value.trim() {
                "always" => true,
                "policy" => false,
                other => {
                    return Err(McpConfigError::BadApproval {
                        name: name.to_owned(),
                        value: other.to_owned(),
                    });
                }
            };
        }
        Ok(servers)
    }
}

/// `name=rest`, with a name fit to prefix a tool's name.
fn pair<'a>(flag: &'static str, entry: &'a str) -> Result<(&'a str, &'a str), McpConfigError> {
    let (name, rest) = entry
        .split_once('=')
        .ok_or_else(|| McpConfigError::NotPair {
            flag,
            value: entry.to_owned(),
        })?;
    let name = name.trim();
    if name.is_empty()
        || !name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
    {
        return Err(McpConfigError::BadName {
            flag,
            name: name.to_owned(),
        });
    }
    Ok((name, rest.trim()))
}

/// The value as given, or the first line of the file after `@` (a token is kept out of the
/// command line and the environment that way).
fn header_value(name: &str, value: &str) -> Result<String, McpConfigError> {
    let Some(path) = value.strip_prefix('@') else {
        return Ok(value.to_owned());
    };
    let text =
        crate::orchestrator::knowledge::read_data_file(Path::new(path), 64 << 10).map_err(|e| {
            McpConfigError::HeaderFile {
                name: name.to_owned(),
                path: path.to_owned(),
                reason: e.to_string(),
            }
        })?;
    Ok(text.lines().next().unwrap_or_default().trim().to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flags() -> McpFlags {
        McpFlags {
            call_timeout: Duration::from_secs(30),
            ..Default::default()
        }
    }

    #[test]
    fn a_server_goes_to_the_general_agent_by_default_under_the_policy() {
        let mut f = flags();
        f.servers = vec!["register=http://10.0.0.7:9000/mcp".to_owned()];
        let servers = f.servers().unwrap();
        assert_eq!(servers.len(), 1);
        assert_eq!(servers[0].agents, vec![agents::GENERAL_AGENT]);
        assert!(!servers[0].always_approve);
        assert_eq!(
            servers[0].target,
            McpTarget::Http {
                url: "http://10.0.0.7:9000/mcp".to_owned(),
                headers: vec![]
            }
        );
    }

    #[test]
    fn agents_approval_headers_and_commands_are_read() {
        let dir = std::env::temp_dir().join(format!("mcp-cfg-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let token = dir.join("token");
        std::fs::write(&token, "Bearer s3cret\n").unwrap();
        let mut f = flags();
        f.servers = vec!["cases=https://cases.nvwa.example/mcp".to_owned()];
        f.commands = vec!["docs=/usr/bin/docs-mcp --stdio".to_owned()];
        f.headers = vec![format!("cases=Authorization: @{}", token.display())];
        f.agents = vec!["cases=history-agent, regulation-agent".to_owned()];
        f.approvals = vec!["docs=always".to_owned()];
        let servers = f.servers().unwrap();
        assert_eq!(
            servers[0].target,
            McpTarget::Http {
                url: "https://cases.nvwa.example/mcp".to_owned(),
                headers: vec![("Authorization".to_owned(), "Bearer s3cret".to_owned())]
            }
        );
        assert_eq!(
            servers[0].agents,
            vec![agents::HISTORY_AGENT, agents::REGULATION_AGENT]
        );
        assert_eq!(
            servers[1].target,
            McpTarget::Stdio {
                program: "/usr/bin/docs-mcp".to_owned(),
                args: vec!["--stdio".to_owned()]
            }
        );
        assert!(servers[1].always_approve);
        std::fs::remove_dir_all(dir).ok();
    }

    #[test]
    fn mistakes_name_the_flag() {
        type Mistake = (fn(&mut McpFlags), &'static str);
        let cases: Vec<Mistake> = vec![
            (|f| f.servers = vec!["nourl".into()], "--mcp-server"),
            (
                |f| f.servers = vec!["a=ftp://x".into()],
                "not an http(s) URL",
            ),
            (
                |f| f.servers = vec!["a b=http://x".into()],
                "letters, digits",
            ),
            (
                |f| f.servers = vec!["a=http://x".into(), "a=http://y".into()],
                "named twice",
            ),
            (
                |f| f.agents = vec!["ghost=general-agent".into()],
                "no MCP server `ghost`",
            ),
            (
                |f| {
                    f.servers = vec!["a=http://x".into()];
                    f.agents = vec!["a=chef-agent".into()];
                },
                "no agent `chef-agent`",
            ),
            (
                |f| {
                    f.servers = vec!["a=http://x".into()];
                    f.approvals = vec!["a=sometimes".into()];
                },
                "neither `always` nor `policy`",
            ),
            (
                |f| {
                    f.servers = vec!["a=http://x".into()];
                    f.headers = vec!["a=Authorization: @/no/such/file".into()];
                },
                "cannot read /no/such/file",
            ),
        ];
        for (set, expected) in cases {
            let mut f = flags();
            set(&mut f);
            let error = f.servers().unwrap_err().to_string();
            assert!(error.contains(expected), "{error:?} lacks {expected:?}");
        }
    }
}
