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
    /// Address to listen on.
    #[arg(long, env = "AGORA_ADDR", default_value = "0.0.0.0:8000")]
    pub addr: SocketAddr,

    /// Directory for the database and generated reports; created if missing.
    #[arg(long, env = "AGORA_DATA_DIR", default_value = "./data")]
    pub data_dir: PathBuf,

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

    /// Seconds a tool call waits for a human decision before it counts as rejected.
    #[arg(long, env = "AGORA_APPROVAL_TIMEOUT_SECS", default_value_t = 600)]
    pub approval_timeout_secs: u64,

    /// Comma-separated terms that refuse a message before any run starts.
    #[arg(
        long,
        env = "AGORA_MODERATION_TERMS",
        value_delimiter = ',',
        default_value = ""
    )]
    pub moderation_terms: Vec<String>,
}

impl Config {
    /// A configuration for tests and embedding: defaults everywhere except the data directory.
    pub fn for_data_dir(data_dir: impl Into<PathBuf>) -> Self {
        Self {
            addr: SocketAddr::from(([127, 0, 0, 1], 0)),
            data_dir: data_dir.into(),
            llm_base_url: None,
            llm_model: "gpt-4o-mini".to_owned(),
            llm_api_key: None,
            approval_timeout_secs: 600,
            moderation_terms: Vec::new(),
        }
    }
}
