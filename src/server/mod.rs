//! HTTP and WebSocket front of the orchestrator: `router()` is shared by `main` and the tests.

mod assets;
pub mod auth;
pub mod cluster;
mod command;
mod config;
mod edge;
mod error;
mod http;
pub mod mail;
pub mod mcp;
pub mod observe;
pub mod photos;
mod report_shelf;
mod reports;
pub mod rest;
pub mod run_limits;
mod security;
mod sockets;
pub mod speech;
pub mod sse;
mod state;
pub mod store;
mod stream_slots;
mod ws;

use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::routing::get;
use leptos::config::LeptosOptions;
use leptos_axum::{LeptosRoutes, generate_route_list};

pub use config::{Config, LogFormat};
pub use edge::{ConnectionSlot, EdgeLimits, raise_descriptor_limit};
pub use error::AppError;
pub use state::AppState;

use crate::orchestrator::cluster::{Alone, Peers};
use crate::orchestrator::knowledge::{Knowledge, Sources};
use crate::orchestrator::llm::LlmProvider;
use crate::orchestrator::llm::openai::{OpenAiConfig, OpenAiProvider};
use crate::orchestrator::llm::planner::EmbeddedPlanner;
use crate::orchestrator::mcp::McpServers;
use crate::orchestrator::store::Store;
use crate::orchestrator::tools::Toolbox;
use crate::orchestrator::{Orchestrator, OrchestratorConfig};
use crate::ui::{App, shell};

impl AppState {
    /// Prepares the data directory and everything the server keeps open.
    pub async fn open(config: Config) -> anyhow::Result<Self> {
        observe::recorder();
        tokio::fs::create_dir_all(&config.data_dir).await?;
        let leptos = LeptosOptions::builder()
            .output_name("agora-hai")
            .site_pkg_dir("pkg")
            .site_addr(config.addr)
            .build();
        let lease = store::Lease {
            duration: Duration::from_secs(config.run_lease_secs),
            ..Default::default()
        };
        let sql = Arc::new(match &config.database_url {
            Some(url) => store::SqlStore::connect(url, lease).await?,
            None => store::SqlStore::open(&config.data_dir.join("agora.db")).await?,
        });
        if sql.interrupted_at_startup() > 0 {
            tracing::warn!(
                runs = sql.interrupted_at_startup(),
                "runs cut off by a stop marked interrupted"
            );
        }
        let shared = sql.dialect() == store::SqlDialect::Postgres;
        tracing::info!(
            database = if shared { "postgresql" } else { "sqlite" },
            instance = %sql.lease().instance_id,
            "store open"
        );
        let db: Arc<dyn store::Database> = sql.clone();
        rest::seed_dev_user(db.as_ref()).await?;
        let peers: Arc<dyn Peers> = if shared {
            cluster::PgPeers::start(sql.clone())
        } else {
            Arc::new(Alone)
        };
        let orchestrator = build_orchestrator(&config, db.clone(), peers)?;
        let mail_server = match &config.smtp_url {
            Some(url) => {
                let server = mail::MailServer::new(
                    url,
                    config.smtp_password_file.as_deref(),
                    config.report_mail_from.as_deref(),
                )?;
                tracing::info!(server = server.shown(), "approved reports are mailed");
                Some(server)
            }
            None => None,
        };
        let reports = report_shelf::ReportShelf::new(
            orchestrator.config().reports_dir.clone(),
            shared.then(|| sql.clone()),
        );
        let mailer = mail::Mailer::new(mail_server, db.clone(), reports.clone());
        orchestrator.on_report_made(Arc::new(report_shelf::SharingReports {
            shelf: reports.clone(),
            then: mailer.clone(),
        }));
        if let (true, Some(url)) = (shared, &config.database_url) {
            cluster::spawn_tasks(sql.clone(), url.clone(), orchestrator.clone());
        }
        let auth = Arc::new(security::authenticator(&config, db.as_ref()).await?);
        let per_minute = |n: u32| std::num::NonZeroU32::new(n).unwrap_or(std::num::NonZeroU32::MIN);
        let mut run_limits = run_limits::RunLimits::new(
            per_minute(config.runs_per_minute),
            per_minute(config.service_runs_per_minute),
            &config.runs_per_minute_for,
        );
        if shared {
            run_limits = run_limits.shared_through(sql.clone());
        }
        let run_limits = Arc::new(run_limits);
        let sockets = sockets::SocketRegistry::new(config.max_sockets_per_user);
        let streams = stream_slots::StreamSlots::new(config.max_streams_per_user);
        let transcriber = speech::Transcriber::from_config(&config)?;
        if let Some(url) = &config.stt_base_url {
            tracing::info!(url = %url, model = %config.stt_model, "speech input: transcription API");
        }
        Ok(Self {
            leptos,
            config: Arc::new(config),
            db,
            auth,
            run_limits,
            orchestrator,
            sockets,
            streams,
            mailer,
            reports,
            transcriber,
        })
    }
}

/// The knowledge base, the tools and the model the configuration asks for.
fn build_orchestrator(
    config: &Config,
    db: Arc<dyn store::Database>,
    peers: Arc<dyn Peers>,
) -> anyhow::Result<Arc<Orchestrator>> {
    let knowledge = Arc::new(Knowledge::from_sources(&Sources {
        regulations: config.regulations.clone(),
        companies: config.company_register.clone(),
    })?);
    tracing::info!(
        regulations = knowledge.regulations().len(),
        companies = knowledge.companies().len(),
        build_ms = knowledge.build_time().as_millis() as u64,
        "knowledge base indexed"
    );
    let provider: Arc<dyn LlmProvider> = match &config.llm_base_url {
        Some(base_url) => Arc::new(OpenAiProvider::new(openai_config(config, base_url)?)),
        None => Arc::new(EmbeddedPlanner::with_knowledge(knowledge.clone())),
    };
    tracing::info!(provider = provider.name(), "language model");
    let mut settings = OrchestratorConfig::new(config.data_dir.join("reports"));
    settings.approval_timeout = Duration::from_secs(config.approval_timeout_secs);
    settings.model_time_limit = Duration::from_secs(config.llm_run_timeout_secs);
    settings.max_turns = config.max_turns as usize;
    settings.max_detached_runs = config.max_detached_runs;
    settings.max_message_bytes = config.max_message_bytes;
    settings.journal = crate::orchestrator::journal::JournalSettings {
        max_bytes_per_thread: config.resume_buffer_bytes,
        retain: Duration::from_secs(config.resume_window_secs),
        ..Default::default()
    };
    settings.moderation_terms = config
        .moderation_terms
        .iter()
        .map(|t| t.trim().to_owned())
        .filter(|t| !t.is_empty())
        .collect();
    let store: Arc<dyn Store> = db;
    let mut toolbox = Toolbox::new(knowledge);
    let mcp = config.mcp_servers()?;
    if !mcp.is_empty() && config.llm_base_url.is_none() {
        // The embedded planner decides from its own rules and tools; it would read an MCP
        // tool as a client's tool to call when a message names it, which no one asked for.
        tracing::warn!(
            "MCP servers are for the model path (--llm-base-url): the embedded planner calls only its own tools, so they are not connected"
        );
    } else if !mcp.is_empty() {
        let mut builtin = toolbox.names();
        builtin.push(crate::orchestrator::llm::prompts::HANDOFF_TOOL);
        tracing::info!(
            servers = %mcp.iter().map(|s| s.name.as_str()).collect::<Vec<_>>().join(","),
            "MCP servers: connecting in the background"
        );
        toolbox = toolbox.with_mcp(McpServers::start(mcp, &builtin));
    }
    Ok(Orchestrator::with_peers(
        settings, store, provider, toolbox, peers,
    ))
}

/// The model server's settings from the flags; a mistake in them stops the start.
fn openai_config(config: &Config, base_url: &str) -> anyhow::Result<OpenAiConfig> {
    let mut settings = OpenAiConfig::new(base_url, &config.llm_model);
    settings.api_key = config.llm_api_key.clone();
    settings.temperature = config.llm_temperature;
    settings.max_tokens = config.llm_max_tokens;
    settings.context_tokens = config.llm_context_tokens;
    settings.vision = config.llm_vision;
    settings.timeouts.first_token = Duration::from_secs(config.llm_first_token_timeout_secs);
    settings.timeouts.silence = Duration::from_secs(config.llm_silence_timeout_secs);
    for pair in config
        .llm_agent_models
        .iter()
        .filter(|p| !p.trim().is_empty())
    {
        let Some((agent, model)) = pair.split_once('=') else {
            anyhow::bail!("--llm-agent-models: `{pair}` is not `agent=model`");
        };
        let agent = agent.trim();
        if crate::orchestrator::agents::agent(agent).is_none() {
            anyhow::bail!("--llm-agent-models: there is no agent `{agent}`");
        }
        settings
            .agent_models
            .insert(agent.to_owned(), model.trim().to_owned());
    }
    if let Some(extra) = &config.llm_extra_body {
        match serde_json::from_str(extra) {
            Ok(serde_json::Value::Object(extra)) => settings.extra_body = extra,
            _ => anyhow::bail!("--llm-extra-body must be a JSON object, e.g. {{\"seed\": 1}}"),
        }
    }
    Ok(settings)
}

/// Serves the app on `listener` behind the edge limits until `shutdown` resolves; `main` and
/// the tests both start the server this way.
pub async fn serve(
    listener: tokio::net::TcpListener,
    state: AppState,
    shutdown: impl std::future::Future<Output = ()> + Send,
) -> std::io::Result<()> {
    let limits = EdgeLimits::from_config(&state.config);
    edge::serve(listener, router(state), limits, shutdown).await
}

pub fn router(state: AppState) -> Router {
    let routes = generate_route_list(App);
    let options = state.leptos.clone();
    let router = Router::new()
        .route("/health", get(health))
        .route("/ready", get(observe::ready))
        .route("/metrics", get(observe::metrics))
        .route("/ws", get(ws::upgrade))
        .merge(sse::routes())
        .route("/reports/{file}", get(reports::download))
        .route("/photos/{id}", get(photos::serve))
        .route(
            "/reports/{report_id}/mail",
            get(reports::mail_status).post(reports::resend_mail),
        )
        .merge(rest::routes())
        .merge(speech::routes())
        .merge(mcp::routes(&state))
        .merge(auth::routes())
        .leptos_routes_with_context(&state, routes, security::page_context, {
            let options = options.clone();
            move || shell(options.clone())
        })
        // A thread's own address is the same page (the app reads the thread from it).
        .route(
            "/t/{thread}",
            get(leptos_axum::render_app_to_stream_with_context(
                security::page_context,
                move || shell(options.clone()),
            )),
        )
        .fallback(assets::serve)
        .layer(axum::middleware::from_fn(rest::negotiate_root))
        .layer(axum::middleware::from_fn_with_state(
            state.clone(),
            security::require_sign_in,
        ))
        .layer(axum::middleware::from_fn_with_state(
            state.clone(),
            security::same_origin_writes,
        ))
        .layer(axum::extract::DefaultBodyLimit::max(
            security::MAX_BODY_BYTES,
        ))
        .layer(tower_http::timeout::RequestBodyTimeoutLayer::new(
            Duration::from_secs(state.config.body_read_timeout_secs),
        ))
        .layer(tower_http::compression::CompressionLayer::new());
    security::with_security_headers(router).with_state(state)
}

async fn health() -> axum::Json<serde_json::Value> {
    axum::Json(serde_json::json!({
        "status": "healthy",
        "service": "agora-hai",
        "protocol": "ag-ui",
        "version": env!("CARGO_PKG_VERSION"),
    }))
}
