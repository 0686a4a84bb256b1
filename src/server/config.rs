use std::net::SocketAddr;
use std::path::PathBuf;

/// Everything the server can be told at start-up; each option also reads an environment variable.
#[derive(Debug, Clone, clap::Parser)]
#[command(name = "agora-hai", version, about = "AGORA HAI: the inspectors' Human Agent Interface and its orchestrator")]
pub struct Config {
    /// Address to listen on.
    #[arg(long, env = "AGORA_ADDR", default_value = "0.0.0.0:8000")]
    pub addr: SocketAddr,

    /// Directory for the database and generated reports; created if missing.
    #[arg(long, env = "AGORA_DATA_DIR", default_value = "./data")]
    pub data_dir: PathBuf,
}

impl Config {
    /// A configuration for tests and embedding: defaults everywhere except the data directory.
    pub fn for_data_dir(data_dir: impl Into<PathBuf>) -> Self {
        Self {
            addr: SocketAddr::from(([127, 0, 0, 1], 0)),
            data_dir: data_dir.into(),
        }
    }
}
