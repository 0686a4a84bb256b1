//! What the server counts for `/metrics`, named in one place. Recorded through the `metrics`
//! facade where it happens; the server renders them for Prometheus (`server::observe`).

use std::time::Duration;

use crate::protocol::Dialect;

/// Runs started, by dialect (`agora` on /ws, `standard` on /agui).
pub const RUNS_STARTED: &str = "agora_runs_started_total";
/// Runs ended, by outcome (`finished`, `error`, `cancelled`, `interrupted`).
pub const RUNS_ENDED: &str = "agora_runs_ended_total";
/// From a run's start to its end, seconds.
pub const RUN_SECONDS: &str = "agora_run_duration_seconds";
/// From a run's start to its first streamed text, seconds.
pub const FIRST_TEXT_SECONDS: &str = "agora_run_first_text_seconds";
/// Events published to threads' journals, by dialect.
pub const EVENTS: &str = "agora_events_published_total";
/// Approval requests waiting for an answer.
pub const APPROVALS_PENDING: &str = "agora_approvals_pending";
/// From an approval request to its answer, seconds.
pub const APPROVAL_WAIT_SECONDS: &str = "agora_approval_wait_seconds";
/// Open WebSockets.
pub const SOCKETS_OPEN: &str = "agora_websockets_open";
/// Sign-ins refused (wrong password, unknown account, throttled).
pub const SIGN_IN_FAILURES: &str = "agora_sign_in_failures_total";
/// Model turns (one request each), by provider and outcome (`ok`, `error`, `timeout`).
pub const MODEL_TURNS: &str = "agora_model_turns_total";
/// How long a model turn took, from the request to the end of its stream, seconds.
pub const MODEL_TURN_SECONDS: &str = "agora_model_turn_seconds";
/// Tokens the model server reported, by provider and kind (`prompt`, `completion`).
pub const MODEL_TOKENS: &str = "agora_model_tokens_total";
/// How long a store call took (one or a few queries), by operation, seconds.
pub const STORE_CALL_SECONDS: &str = "agora_store_call_seconds";
/// Runs refused by the run limit, by account kind.
pub const RUNS_LIMITED: &str = "agora_runs_rate_limited_total";

/// Buckets for the latency histograms, seconds: from a cached answer to a slow model.
pub const LATENCY_BUCKETS: &[f64] = &[
    0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 300.0,
];

/// Buckets for store calls, seconds: from a cached read to a database in trouble.
pub const STORE_BUCKETS: &[f64] = &[
    0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1.0, 5.0,
];

/// The `dialect` label: `agora` on /ws, `standard` on /agui.
fn dialect_label(dialect: Dialect) -> &'static str {
    match dialect {
        Dialect::Agora => "agora",
        Dialect::Standard => "standard",
    }
}

pub fn run_started(dialect: Dialect) {
    metrics::counter!(RUNS_STARTED, "dialect" => dialect_label(dialect)).increment(1);
}

pub fn run_ended(outcome: &'static str, took: Duration) {
    metrics::counter!(RUNS_ENDED, "outcome" => outcome).increment(1);
    metrics::histogram!(RUN_SECONDS).record(took.as_secs_f64());
}

pub fn first_text(after: Duration) {
    metrics::histogram!(FIRST_TEXT_SECONDS).record(after.as_secs_f64());
}

pub fn model_turn(provider: &str, outcome: &'static str, took: Duration) {
    metrics::counter!(MODEL_TURNS, "provider" => provider.to_owned(), "outcome" => outcome)
        .increment(1);
    metrics::histogram!(MODEL_TURN_SECONDS, "provider" => provider.to_owned())
        .record(took.as_secs_f64());
}

pub fn model_tokens(provider: &str, prompt: u64, completion: u64) {
    metrics::counter!(MODEL_TOKENS, "provider" => provider.to_owned(), "kind" => "prompt")
        .increment(prompt);
    metrics::counter!(MODEL_TOKENS, "provider" => provider.to_owned(), "kind" => "completion")
        .increment(completion);
}

/// The counter of a run's published events, looked up once per run: every event then costs
/// one atomic add, not a registry lookup.
pub fn events_published(dialect: Dialect) -> metrics::Counter {
    metrics::counter!(EVENTS, "dialect" => dialect_label(dialect))
}

pub fn approval_requested() {
    metrics::gauge!(APPROVALS_PENDING).increment(1.0);
}

/// An approval stopped waiting; `answered_after` when a person answered it.
pub fn approval_settled(answered_after: Option<Duration>) {
    metrics::gauge!(APPROVALS_PENDING).decrement(1.0);
    if let Some(wait) = answered_after {
        metrics::histogram!(APPROVAL_WAIT_SECONDS).record(wait.as_secs_f64());
    }
}
