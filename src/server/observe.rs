//! `/metrics` (Prometheus' text format), `/ready` (the database answers) beside `/health`
//! (the process answers).
//!
//! The figures are recorded through the `metrics` facade where things happen (names in
//! `orchestrator::metrics`); one process-wide recorder from `metrics-exporter-prometheus`
//! renders them. Process-wide because the facade is: servers sharing a process (the tests)
//! share their counters, which only ever go up or track what is open.

use std::sync::OnceLock;

use axum::extract::State;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use metrics_exporter_prometheus::{Matcher, PrometheusBuilder, PrometheusHandle};

use super::state::AppState;
use crate::orchestrator::metrics::{
    APPROVAL_WAIT_SECONDS, FIRST_TEXT_SECONDS, LATENCY_BUCKETS, MODEL_TURN_SECONDS, RUN_SECONDS,
    STORE_BUCKETS, STORE_CALL_SECONDS,
};

static RECORDER: OnceLock<Option<PrometheusHandle>> = OnceLock::new();

/// Installs the recorder once per process; `None` if another recorder was installed first.
pub fn recorder() -> Option<&'static PrometheusHandle> {
    RECORDER
        .get_or_init(|| {
            let mut builder = PrometheusBuilder::new();
            for name in [
                RUN_SECONDS,
                FIRST_TEXT_SECONDS,
                APPROVAL_WAIT_SECONDS,
                MODEL_TURN_SECONDS,
            ] {
                builder = builder
                    .set_buckets_for_metric(Matcher::Full(name.to_owned()), LATENCY_BUCKETS)
                    .expect("the buckets are not empty");
            }
            builder = builder
                .set_buckets_for_metric(
                    Matcher::Full(STORE_CALL_SECONDS.to_owned()),
                    STORE_BUCKETS,
                )
                .expect("the buckets are not empty");
            match builder.install_recorder() {
                Ok(handle) => Some(handle),
                Err(e) => {
                    tracing::error!(error = %e, "no /metrics: another metrics recorder is installed");
                    None
                }
            }
        })
        .as_ref()
}

/// `GET /metrics`.
pub async fn metrics() -> Response {
    let Some(handle) = recorder() else {
        return (
            StatusCode::SERVICE_UNAVAILABLE,
            "metrics are not recorded\n",
        )
            .into_response();
    };
    // Histograms are folded in here, as the exporter's own listener would do periodically.
    handle.run_upkeep();
    (
        [(
            header::CONTENT_TYPE,
            "text/plain; version=0.0.4; charset=utf-8",
        )],
        handle.render(),
    )
        .into_response()
}

/// How long `/ready` waits for the database.
const READY_TIMEOUT: std::time::Duration = std::time::Duration::from_millis(800);

/// `GET /ready`: 200 when the database answers, 503 (with the reason) when it does not, so a
/// load balancer sends no one to an instance that cannot store what they do. With MCP servers
/// configured it lists each (`mcp`: name, transport, up/connecting/down, tools, last error).
///
/// The check has its own short timeout: a database that hangs (or a pool that waits for a
/// connection, 10 s) is "not ready" within a second, before a probe's own timeout.
pub async fn ready(State(state): State<AppState>) -> Response {
    let answered = match tokio::time::timeout(READY_TIMEOUT, state.db.ping()).await {
        Ok(answered) => answered.map_err(|e| e.to_string()),
        Err(_) => Err(format!("no answer within {} ms", READY_TIMEOUT.as_millis())),
    };
    match answered {
        Ok(()) => {
            let mut body = serde_json::json!({ "status": "ready" });
            // An MCP server that is down leaves its tools out but the instance ready: the
            // agents answer without them, and the server is retried.
            if let Some(mcp) = state.orchestrator.toolbox().mcp() {
                body["mcp"] = serde_json::Value::Array(mcp.report());
            }
            axum::Json(body).into_response()
        }
        Err(e) => {
            tracing::warn!(error = %e, "not ready: the database does not answer");
            (
                StatusCode::SERVICE_UNAVAILABLE,
                axum::Json(serde_json::json!({ "status": "unavailable", "detail": "the database does not answer" })),
            )
                .into_response()
        }
    }
}
