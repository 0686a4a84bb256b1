use std::net::SocketAddr;
use std::path::PathBuf;

/// Everything the server can be told at start-up; each option also reads an environment variable.
#[derive(Debug, Clone, clap::Parser)]
#[command(
    name = "agora-hai",
    version,
    about = "AGORA HAI: the inspectors' Human Agent Interface and its orchestrator"
)]
pub struct Config {
    /// How log lines are written: `text` for people, `json` (one object a line) for a log
    /// collector.
    #[arg(long, env = "AGORA_LOG_FORMAT", value_enum, default_value_t = LogFormat::Text)]
    pub log_format: LogFormat,

    /// Address to listen on.
    /// Loopback by default: serving the network is a decision (`--addr 0.0.0.0:8000`).
    #[arg(long, env = "AGORA_ADDR", default_value = "127.0.0.1:8000")]
    pub addr: SocketAddr,

    /// Directory for the database and generated reports; created if missing.
    #[arg(long, env = "AGORA_DATA_DIR", default_value = "./data")]
    pub data_dir: PathBuf,

    /// The database: `postgres://user:password@host:port/name` for several instances sharing
    /// the work; without it, SQLite in `--data-dir` (one instance).
    #[arg(long, env = "AGORA_DATABASE_URL", hide_env_values = true)]
    pub database_url: Option<String>,

    /// Seconds an instance's claim on a run lasts unless renewed (every third of it). With
    /// PostgreSQL, another instance marks the runs of one that died `interrupted` once their
    /// lease has run out.
    #[arg(long, env = "AGORA_RUN_LEASE_SECS", default_value_t = 30, value_parser = clap::value_parser!(u64).range(1..=3600))]
    pub run_lease_secs: u64,

    /// A company register to use instead of the embedded demo register (a JSON array in the
    /// schema of `data/companies.json`); checked at start, a wrong entry stops the start.
    #[arg(long, env = "AGORA_COMPANY_REGISTER")]
    pub company_register: Option<PathBuf>,

    /// A regulations corpus to use instead of the embedded one (the schema of
    /// `data/regulations.json`); checked at start like the register.
    #[arg(long, env = "AGORA_REGULATIONS")]
    pub regulations: Option<PathBuf>,

    /// Base URL of an OpenAI-compatible chat-completions API (e.g. http://localhost:11434/v1).
    /// Without it the embedded planner answers: no key, no external service.
    #[arg(long, env = "AGORA_LLM_BASE_URL")]
    pub llm_base_url: Option<String>,

    /// Model name for the OpenAI-compatible API.
    #[arg(long, env = "AGORA_LLM_MODEL", default_value = "gpt-4o-mini")]
    pub llm_model: String,

    /// API key for the OpenAI-compatible API.
    #[arg(long, env = "AGORA_LLM_API_KEY", hide_env_values = true)]
    pub llm_api_key: Option<String>,

    /// Agents that run on another model than `--llm-model`, as `agent=model,agent=model`
    /// (e.g. `general-agent=gpt-4o-mini`).
    #[arg(long, env = "AGORA_LLM_AGENT_MODELS", value_delimiter = ',')]
    pub llm_agent_models: Vec<String>,

    /// Sampling temperature; left to the server when absent.
    #[arg(long, env = "AGORA_LLM_TEMPERATURE")]
    pub llm_temperature: Option<f32>,

    /// The most tokens one model answer may have; a longer answer ends the run with
    /// `model_output_truncated`.
    #[arg(long, env = "AGORA_LLM_MAX_TOKENS", default_value_t = 1024)]
    pub llm_max_tokens: u32,

    /// The model's context size in tokens. Without it the server is asked (llama.cpp's
    /// `/props`, `/v1/models`), else 8192 is assumed.
    #[arg(long, env = "AGORA_LLM_CONTEXT_TOKENS")]
    pub llm_context_tokens: Option<u32>,

    /// A JSON object merged into every model request, for what a server needs beyond the
    /// standard (e.g. `{"seed": 1, "top_k": 20}`).
    #[arg(long, env = "AGORA_LLM_EXTRA_BODY")]
    pub llm_extra_body: Option<String>,

    /// The model sees images: the photos of the message a run answers go to it as
    /// `image_url` parts with `data:` URLs (OpenAI, vLLM with a vision model); without it each
    /// photo is a short text placeholder, which a text-only model accepts.
    #[arg(long, env = "AGORA_LLM_VISION")]
    pub llm_vision: bool,

    /// Seconds to wait for the first token of a model answer (a local server may be loading
    /// the model or reading a long prompt).
    #[arg(
        long,
        env = "AGORA_LLM_FIRST_TOKEN_TIMEOUT_SECS",
        default_value_t = 300
    )]
    pub llm_first_token_timeout_secs: u64,

    /// Seconds a model stream may stay silent (keep-alive comments count as life).
    #[arg(long, env = "AGORA_LLM_SILENCE_TIMEOUT_SECS", default_value_t = 120)]
    pub llm_silence_timeout_secs: u64,

    /// Seconds of model time one run may use in all (waiting for approvals does not count).
    #[arg(long, env = "AGORA_LLM_RUN_TIMEOUT_SECS", default_value_t = 900)]
    pub llm_run_timeout_secs: u64,

    /// Model turns one run may take; the last may only answer in text, so a model that keeps
    /// calling tools still ends with an answer.
    #[arg(long, env = "AGORA_MAX_TURNS", default_value_t = 8, value_parser = clap::value_parser!(u32).range(1..=64))]
    pub max_turns: u32,

    /// Seconds a tool call waits for a human decision before it counts as rejected.
    #[arg(long, env = "AGORA_APPROVAL_TIMEOUT_SECS", default_value_t = 600)]
    pub approval_timeout_secs: u64,

    /// Runs of one user that may go on while no client follows them (their sockets closed, a
    /// tablet in a dead zone); past it the oldest such run is cancelled.
    #[arg(long, env = "AGORA_MAX_DETACHED_RUNS", default_value_t = 3)]
    pub max_detached_runs: usize,

    /// Bytes of events each thread keeps for clients that come back (`agora:resume`,
    /// `Last-Event-ID`); a client that missed more gets a snapshot.
    #[arg(long, env = "AGORA_RESUME_BUFFER_BYTES", default_value_t = 1 << 20)]
    pub resume_buffer_bytes: usize,

    /// Seconds a thread's events are kept after its last run ended and its last client left.
    #[arg(long, env = "AGORA_RESUME_WINDOW_SECS", default_value_t = 900)]
    pub resume_window_secs: u64,

    /// Who may sign in: `users` (accounts and a sign-in page), `api-key`, `proxy` (SSO reverse
    /// proxy) or `dev` (no sign-in; never in production).
    #[arg(long, env = "AGORA_AUTH", value_enum, default_value = "users")]
    pub auth: AuthMode,

    /// API keys for `--auth api-key`, as `user:key,user:key`.
    #[arg(long, env = "AGORA_API_KEYS", hide_env_values = true)]
    pub api_keys: Option<String>,

    /// A file with one `user:key` per line, for `--auth api-key`.
    #[arg(long, env = "AGORA_API_KEYS_FILE")]
    pub api_keys_file: Option<PathBuf>,

    /// Addresses of the reverse proxies in front of the server: their `X-Forwarded-For` gives the
    /// client's address (the sign-in back-off, the logs), their user header the user
    /// (`--auth proxy`), and they are exempt from the per-address connection cap.
    #[arg(long, env = "AGORA_TRUSTED_PROXIES", value_delimiter = ',')]
    pub trusted_proxies: Vec<std::net::IpAddr>,

    /// The header in which the proxy names the user (`--auth proxy`).
    #[arg(
        long,
        env = "AGORA_PROXY_USER_HEADER",
        default_value = "X-Forwarded-User"
    )]
    pub proxy_user_header: String,

    /// The first admin's email (`--auth users`); with `--admin-password` it is created at start.
    /// Without both, a first start prints a one-time set-up link.
    #[arg(long, env = "AGORA_ADMIN_EMAIL")]
    pub admin_email: Option<String>,

    /// The first admin's password (`--auth users`).
    #[arg(long, env = "AGORA_ADMIN_PASSWORD", hide_env_values = true)]
    pub admin_password: Option<String>,

    /// Mark cookies `Secure` (when HAI is served over HTTPS).
    #[arg(long, env = "AGORA_SECURE_COOKIES", default_value_t = false)]
    pub secure_cookies: bool,

    /// Origins allowed to open the WebSocket, comma-separated (e.g. https://hai.nvwa.nl).
    /// Empty: only the page's own origin.
    #[arg(long, env = "AGORA_ALLOWED_ORIGINS", value_delimiter = ',')]
    pub allowed_origins: Vec<String>,

    /// Runs one person may start per minute (a burst of this many, then one every 60/N s).
    #[arg(long, env = "AGORA_RUNS_PER_MINUTE", default_value_t = 30, value_parser = clap::value_parser!(u32).range(1..))]
    pub runs_per_minute: u32,

    /// Runs one service account (signed in with an API key: one account behind many sockets)
    /// may start per minute.
    #[arg(long, env = "AGORA_SERVICE_RUNS_PER_MINUTE", default_value_t = 600, value_parser = clap::value_parser!(u32).range(1..))]
    pub service_runs_per_minute: u32,

    /// Accounts with a limit of their own, `user=N` comma-separated (e.g.
    /// `svc-planning=3000,trainee-7=10`), over the two limits above.
    #[arg(long, env = "AGORA_RUNS_PER_MINUTE_FOR", value_delimiter = ',', value_parser = crate::server::run_limits::parse_named)]
    pub runs_per_minute_for: Vec<(String, std::num::NonZeroU32)>,

    /// Seconds without any frame from a client (pongs included) before its socket is closed.
    #[arg(long, env = "AGORA_WS_IDLE_TIMEOUT_SECS", default_value_t = 120)]
    pub ws_idle_timeout_secs: u64,

    /// Open connections in all, WebSockets included; past it new connections get a 503.
    #[arg(long, env = "AGORA_MAX_CONNECTIONS", default_value_t = 10_000)]
    pub max_connections: usize,

    /// Open connections from one address (trusted proxies are exempt); past it a 429.
    #[arg(long, env = "AGORA_MAX_CONNECTIONS_PER_ADDRESS", default_value_t = 256)]
    pub max_connections_per_address: usize,

    /// Open WebSockets of one user; a further one is closed with 4029.
    #[arg(long, env = "AGORA_MAX_SOCKETS_PER_USER", default_value_t = 16)]
    pub max_sockets_per_user: usize,

    /// Open SSE streams (`POST /agui`, `GET /agui/runs/{runId}/events`) of one user; a further
    /// one is refused with 429.
    #[arg(long, env = "AGORA_MAX_STREAMS_PER_USER", default_value_t = 16)]
    pub max_streams_per_user: usize,

    /// Bytes of events one socket may have queued and unsent; a client that lets more pile up
    /// is not reading and is closed with 4008. A large thread's history must fit.
    #[arg(long, env = "AGORA_SOCKET_QUEUE_BYTES", default_value_t = 8 << 20, value_parser = clap::value_parser!(u64).range(4096..))]
    pub socket_queue_bytes: u64,

    /// Seconds a client may take to accept one frame before its socket is closed with 4008.
    #[arg(long, env = "AGORA_SOCKET_SEND_TIMEOUT_SECS", default_value_t = 15, value_parser = clap::value_parser!(u64).range(1..))]
    pub socket_send_timeout_secs: u64,

    /// Seconds a client may take to send a request's headers; also how long an idle
    /// keep-alive connection stays open.
    #[arg(long, env = "AGORA_HEADER_READ_TIMEOUT_SECS", default_value_t = 10, value_parser = clap::value_parser!(u64).range(1..))]
    pub header_read_timeout_secs: u64,

    /// Seconds a client may take to send a request's body.
    #[arg(long, env = "AGORA_BODY_READ_TIMEOUT_SECS", default_value_t = 30, value_parser = clap::value_parser!(u64).range(1..))]
    pub body_read_timeout_secs: u64,

    /// The most bytes of text one message may have (a user message, a client tool's result);
    /// a longer one is refused with `message_too_long` before any run starts. The embedded
    /// planner reads every byte on every turn.
    #[arg(long, env = "AGORA_MAX_MESSAGE_BYTES", default_value_t = crate::orchestrator::DEFAULT_MAX_MESSAGE_BYTES, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..))]
    pub max_message_bytes: usize,

    /// The most bytes one evidence photo may have (as decoded; the browser shrinks photos to
    /// at most 2048 px, a few hundred KiB). A larger one refuses its message, nothing stored.
    #[arg(long, env = "AGORA_PHOTO_MAX_BYTES", default_value_t = 3 << 20, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=(64 << 20)))]
    pub photo_max_bytes: usize,

    /// The most photos one message may bring.
    #[arg(long, env = "AGORA_PHOTOS_PER_MESSAGE", default_value_t = 4, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(0..=32))]
    pub photos_per_message: usize,

    /// The most bytes of photos one user may have stored in all.
    #[arg(long, env = "AGORA_PHOTO_QUOTA_BYTES", default_value_t = 1 << 30)]
    pub photo_quota_bytes: u64,

    /// The mail server for approved reports: `smtp://host:587` (STARTTLS, required),
    /// `smtps://host:465` (TLS), `smtp://host:25?tls=none` for a server without TLS (a local
    /// relay). Credentials as `smtp://user:password@host` or with `--smtp-password-file`.
    /// Without it no report is mailed.
    #[arg(long, env = "AGORA_SMTP_URL", hide_env_values = true)]
    pub smtp_url: Option<String>,

    /// A file with the SMTP password (its last line break ignored), for the user named in
    /// `--smtp-url`; keeps the password out of the process list and the environment.
    #[arg(long, env = "AGORA_SMTP_PASSWORD_FILE")]
    pub smtp_password_file: Option<PathBuf>,

    /// The sender of report mails, e.g. `AGORA HAI <hai@nvwa.nl>`; required with `--smtp-url`.
    #[arg(long, env = "AGORA_REPORT_MAIL_FROM")]
    pub report_mail_from: Option<String>,

    /// An MCP server whose tools the agents may call, as `name=url` (streamable HTTP);
    /// repeatable (in the environment separated by `;`).
    #[arg(long = "mcp-server", env = "AGORA_MCP_SERVERS", value_delimiter = ';')]
    pub mcp_servers: Vec<String>,

    /// An MCP server started as a child process speaking MCP on stdio, as `name=program args`.
    #[arg(
        long = "mcp-command",
        env = "AGORA_MCP_COMMANDS",
        value_delimiter = ';'
    )]
    pub mcp_commands: Vec<String>,

    /// A header sent to an HTTP MCP server, as `name=Header: value`; `name=Header: @file`
    /// reads the value from the file's first line (e.g. `Authorization: Bearer ...`).
    #[arg(long = "mcp-header", env = "AGORA_MCP_HEADERS", value_delimiter = ';')]
    pub mcp_headers: Vec<String>,

    /// The agents offered a server's tools, as `name=agent,agent` (default: general-agent).
    #[arg(long = "mcp-agent", env = "AGORA_MCP_AGENTS", value_delimiter = ';')]
    pub mcp_agents: Vec<String>,

    /// `name=always`: every call of the server's tools asks for approval; `name=policy`
    /// (the default): the approval policy decides by tool name and arguments.
    #[arg(
        long = "mcp-approval",
        env = "AGORA_MCP_APPROVALS",
        value_delimiter = ';'
    )]
    pub mcp_approvals: Vec<String>,

    /// Seconds one MCP tool call may take; past it the call's result says it timed out.
    #[arg(long, env = "AGORA_MCP_TIMEOUT_SECS", default_value_t = 60, value_parser = clap::value_parser!(u64).range(1..=3600))]
    pub mcp_timeout_secs: u64,

    /// Tool calls one account may make per minute through `/mcp` (a burst of this many).
    #[arg(long, env = "AGORA_MCP_CALLS_PER_MINUTE", default_value_t = 120, value_parser = clap::value_parser!(u32).range(1..))]
    pub mcp_calls_per_minute: u32,

    /// Base URL of an OpenAI-compatible transcription API (`POST {url}/audio/transcriptions`,
    /// e.g. http://localhost:8001/v1 for a local faster-whisper or whisper.cpp server). Without
    /// it the page offers no push-to-talk.
    #[arg(long, env = "AGORA_STT_BASE_URL")]
    pub stt_base_url: Option<String>,

    /// Model name for the transcription API.
    #[arg(long, env = "AGORA_STT_MODEL", default_value = "whisper-1")]
    pub stt_model: String,

    /// API key for the transcription API.
    #[arg(long, env = "AGORA_STT_API_KEY", hide_env_values = true)]
    pub stt_api_key: Option<String>,

    /// The most bytes one recording may have; a larger one is refused with 413. Ten minutes of
    /// a browser's Opus recording is about 2.4 MB.
    #[arg(long, env = "AGORA_STT_MAX_AUDIO_BYTES", default_value_t = 10 << 20, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..))]
    pub stt_max_audio_bytes: usize,

    /// Seconds the transcription API may take for one recording before the inspector is told
    /// it is too slow (the recording stays in the browser to be sent again).
    #[arg(long, env = "AGORA_STT_TIMEOUT_SECS", default_value_t = 60, value_parser = clap::value_parser!(u64).range(1..=3600))]
    pub stt_timeout_secs: u64,

    /// Keep every recording sent for transcription in `--data-dir`/audio/USER/ (by default
    /// audio is transcribed and forgotten: only the text the inspector sends is stored).
    #[arg(long, env = "AGORA_STT_KEEP_AUDIO", default_value_t = false)]
    pub stt_keep_audio: bool,

    /// Comma-separated terms that refuse a message before any run starts.
    #[arg(
        long,
        env = "AGORA_MODERATION_TERMS",
        value_delimiter = ',',
        default_value = ""
    )]
    pub moderation_terms: Vec<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum LogFormat {
    Text,
    Json,
}

impl Config {
    /// A configuration for tests and embedding: defaults everywhere except the data directory,
    /// and `dev` sign-in so a test can name its user.
    pub fn for_data_dir(data_dir: impl Into<PathBuf>) -> Self {
        Self {
            log_format: LogFormat::Text,
            addr: SocketAddr::from(([127, 0, 0, 1], 0)),
            data_dir: data_dir.into(),
            database_url: None,
            run_lease_secs: 30,
            company_register: None,
            regulations: None,
            llm_base_url: None,
            llm_model: "gpt-4o-mini".to_owned(),
            llm_api_key: None,
            llm_agent_models: Vec::new(),
            llm_temperature: None,
            llm_max_tokens: 1024,
            llm_context_tokens: None,
            llm_extra_body: None,
            llm_vision: false,
            llm_first_token_timeout_secs: 300,
            llm_silence_timeout_secs: 120,
            llm_run_timeout_secs: 900,
            max_turns: 8,
            approval_timeout_secs: 600,
            max_detached_runs: 3,
            resume_buffer_bytes: 1 << 20,
            resume_window_secs: 900,
            moderation_terms: Vec::new(),
            max_message_bytes: crate::orchestrator::DEFAULT_MAX_MESSAGE_BYTES,
            photo_max_bytes: 3 << 20,
            photos_per_message: 4,
            photo_quota_bytes: 1 << 30,
            auth: AuthMode::Dev,
            api_keys: None,
            api_keys_file: None,
            trusted_proxies: Vec::new(),
            proxy_user_header: "X-Forwarded-User".to_owned(),
            admin_email: None,
            admin_password: None,
            secure_cookies: false,
            allowed_origins: Vec::new(),
            runs_per_minute: 30,
            service_runs_per_minute: 600,
            runs_per_minute_for: Vec::new(),
            ws_idle_timeout_secs: 120,
            max_connections: 10_000,
            max_connections_per_address: 256,
            max_sockets_per_user: 16,
            max_streams_per_user: 16,
            socket_queue_bytes: 8 << 20,
            socket_send_timeout_secs: 15,
            header_read_timeout_secs: 10,
            body_read_timeout_secs: 30,
            smtp_url: None,
            smtp_password_file: None,
            report_mail_from: None,
            mcp_servers: Vec::new(),
            mcp_commands: Vec::new(),
            mcp_headers: Vec::new(),
            mcp_agents: Vec::new(),
            mcp_approvals: Vec::new(),
            mcp_timeout_secs: 60,
            mcp_calls_per_minute: 120,
            stt_base_url: None,
            stt_model: "whisper-1".to_owned(),
            stt_api_key: None,
            stt_max_audio_bytes: 10 << 20,
            stt_timeout_secs: 60,
            stt_keep_audio: false,
        }
    }
}

/// Who may come in and how they say who they are (`--auth`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum AuthMode {
    Users,
    ApiKey,
    Proxy,
    Dev,
}

impl Config {
    /// The evidence photos' limits (`--photo-max-bytes`, `--photos-per-message`,
    /// `--photo-quota-bytes`).
    pub fn photo_limits(&self) -> super::photos::PhotoLimits {
        super::photos::PhotoLimits {
            max_bytes: self.photo_max_bytes,
            per_message: self.photos_per_message,
            quota_bytes: self.photo_quota_bytes,
        }
    }

    /// The MCP servers the flags name (`--mcp-server`, `--mcp-command` and their options).
    pub fn mcp_servers(
        &self,
    ) -> Result<
        Vec<crate::orchestrator::mcp::McpServerConfig>,
        crate::orchestrator::mcp::McpConfigError,
    > {
        crate::orchestrator::mcp::McpFlags {
            servers: self.mcp_servers.clone(),
            commands: self.mcp_commands.clone(),
            headers: self.mcp_headers.clone(),
            agents: self.mcp_agents.clone(),
            approvals: self.mcp_approvals.clone(),
            call_timeout: std::time::Duration::from_secs(self.mcp_timeout_secs),
        }
        .servers()
    }
}
