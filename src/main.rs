use agora_hai::server::{self, Config};
use clap::Parser;
use tracing_subscriber::EnvFilter;

/// The server's allocator: see `mimalloc` in Cargo.toml (issue 36).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let config = Config::parse();
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info"));
    let logs = tracing_subscriber::fmt().with_env_filter(filter);
    match config.log_format {
        server::LogFormat::Text => logs.init(),
        server::LogFormat::Json => logs.json().flatten_event(true).init(),
    }
    let descriptors = server::raise_descriptor_limit();
    if descriptors < config.max_connections as u64 + 64 {
        tracing::warn!(
            descriptors,
            max_connections = config.max_connections,
            "fewer descriptors than --max-connections needs; lower it or raise `ulimit -n`"
        );
    }
    let listener = tokio::net::TcpListener::bind(config.addr).await?;
    tracing::info!(addr = %listener.local_addr()?, data_dir = %config.data_dir.display(), "AGORA HAI listening");
    let state = server::AppState::open(config).await?;
    server::serve(listener, state, shutdown_signal()).await?;
    tracing::info!("shut down cleanly");
    Ok(())
}

/// Resolves on the first SIGINT or SIGTERM so in-flight responses can finish.
async fn shutdown_signal() {
    let ctrl_c = async {
        tokio::signal::ctrl_c()
            .await
            .expect("install SIGINT handler");
    };
    let terminate = async {
        tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
            .expect("install SIGTERM handler")
            .recv()
            .await;
    };
    tokio::select! {
        () = ctrl_c => tracing::info!("SIGINT received, shutting down"),
        () = terminate => tracing::info!("SIGTERM received, shutting down"),
    }
}
