//! What every request shares: the handles the server opens at start (`AppState::open`, in
//! `mod.rs`, wires them together). It sits below every route so that they all can name it.

use std::sync::Arc;

use axum::extract::FromRef;
use leptos::config::LeptosOptions;

use super::auth::Authenticator;
use super::config::Config;
use super::mail::Mailer;
use super::run_limits::RunLimits;
use super::sockets::SocketRegistry;
use super::store::Database;
use super::stream_slots::StreamSlots;
use crate::orchestrator::Orchestrator;

/// Shared by every request; cheap to clone.
#[derive(Clone)]
pub struct AppState {
    /// Leptos needs these to render the shell and name the wasm bundle.
    pub leptos: LeptosOptions,
    /// Start-up configuration, read by the transports and the store.
    pub config: Arc<Config>,
    /// Threads, messages, runs, approvals and users; the orchestrator takes it as
    /// `Arc<dyn Store>` (trait upcasting).
    pub db: Arc<dyn Database>,
    /// Decides who is asking, for every route and the WebSocket.
    pub auth: Arc<Authenticator>,
    /// Runs per account per minute, for every transport.
    pub run_limits: Arc<RunLimits>,
    /// Runs the agents; shared by every transport.
    pub orchestrator: Arc<Orchestrator>,
    /// The open WebSockets by user: the per-user cap, and revocation that reaches them.
    pub sockets: Arc<SocketRegistry>,
    /// The open SSE streams by user, for their per-user cap.
    pub streams: Arc<StreamSlots>,
    /// Mails approved reports (when `--smtp-url` is set) and keeps their mail status.
    pub mailer: Mailer,
    /// Generated reports, on disk and (several instances) in the database.
    pub reports: super::report_shelf::ReportShelf,
    /// The transcription API behind push-to-talk (`--stt-base-url`); `None`: no speech input.
    pub transcriber: Option<super::speech::Transcriber>,
}

impl FromRef<AppState> for LeptosOptions {
    fn from_ref(state: &AppState) -> Self {
        state.leptos.clone()
    }
}
