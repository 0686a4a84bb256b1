//! HTTP and WebSocket front of the orchestrator: `router()` is shared by `main` and the tests.

mod assets;
mod config;
mod error;
mod ws;

use std::sync::Arc;

use axum::Router;
use axum::extract::FromRef;
use axum::routing::get;
use leptos::config::LeptosOptions;
use leptos_axum::{LeptosRoutes, generate_route_list};

pub use config::Config;
pub use error::AppError;

use crate::ui::{App, shell};

/// Shared by every request; cheap to clone.
#[derive(Clone)]
pub struct AppState {
    /// Leptos needs these to render the shell and name the wasm bundle.
    pub leptos: LeptosOptions,
    /// Start-up configuration, read by the transports and the store.
    pub config: Arc<Config>,
}

impl AppState {
    /// Prepares the data directory and everything the server keeps open.
    pub async fn open(config: Config) -> anyhow::Result<Self> {
        tokio::fs::create_dir_all(&config.data_dir).await?;
        let leptos = LeptosOptions::builder()
            .output_name("agora-hai")
            .site_pkg_dir("pkg")
            .site_addr(config.addr)
            .build();
        Ok(Self {
            leptos,
            config: Arc::new(config),
        })
    }
}

impl FromRef<AppState> for LeptosOptions {
    fn from_ref(state: &AppState) -> Self {
        state.leptos.clone()
    }
}

pub fn router(state: AppState) -> Router {
    let routes = generate_route_list(App);
    let options = state.leptos.clone();
    Router::new()
        .route("/health", get(health))
        .route("/ws", get(ws::upgrade))
        .leptos_routes(&state, routes, move || shell(options.clone()))
        .fallback(assets::serve)
        .layer(tower_http::compression::CompressionLayer::new())
        .with_state(state)
}

async fn health() -> axum::Json<serde_json::Value> {
    axum::Json(serde_json::json!({
        "status": "healthy",
        "service": "agora-hai",
        "version": env!("CARGO_PKG_VERSION"),
    }))
}
