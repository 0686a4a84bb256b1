//! `/metrics`, `/ready` and `/health` against the real server: the figures move with a run.

use crate::common;

use common::{TestServer, assert_agora_clean, users};

/// The sum of the samples of `name` whose labels contain each of `labels` (comma-separated,
/// in any order; "" for any), as Prometheus' text format lists them.
fn sample(text: &str, name: &str, labels: &str) -> f64 {
    text.lines()
        .filter(|line| !line.starts_with('#'))
        .filter_map(|line| {
            let (series, value) = line.rsplit_once(' ')?;
            let (metric, rest) = match series.split_once('{') {
                Some((metric, rest)) => (metric, rest),
                None => (series, ""),
            };
            let wanted = labels.split(',').all(|label| rest.contains(label));
            (metric == name && wanted).then(|| value.parse::<f64>().ok())?
        })
        .sum()
}

async fn metrics(server: &TestServer) -> String {
    let response = reqwest::get(server.url("/metrics")).await.unwrap();
    assert_eq!(response.status(), 200);
    let kind = response.headers()["content-type"]
        .to_str()
        .unwrap()
        .to_owned();
    assert!(kind.starts_with("text/plain"), "{kind}");
    response.text().await.unwrap()
}

#[tokio::test]
async fn metrics_follow_runs_sockets_approvals_and_sign_in_failures() {
    let server = TestServer::start().await;
    let before = metrics(&server).await;
    let mut socket = server.socket().await;
    let thread = uuid::Uuid::new_v4().to_string();
    socket
        .ask(
            &thread,
            "Start inspectie bij Trattoria Finta Fiore, KVK 99990001",
        )
        .await;
    assert_agora_clean(&socket.until_finished().await);
    socket
        .ask(&thread, "Genereer het inspectierapport zonder vragen")
        .await;
    let mut report = socket.until_approval_request().await;
    let approval = report.last().unwrap()["value"]["approvalId"]
        .as_str()
        .unwrap()
        .to_owned();

    let waiting = metrics(&server).await;
    assert!(
        sample(&waiting, "agora_websockets_open", "") >= 1.0,
        "{waiting}"
    );
    assert!(
        sample(&waiting, "agora_approvals_pending", "") >= 1.0,
        "{waiting}"
    );
    assert!(
        sample(&waiting, "agora_runs_started_total", "dialect=\"agora\"")
            >= sample(&before, "agora_runs_started_total", "dialect=\"agora\"") + 2.0
    );

    socket
        .answer_approval(&approval, true, Some("Akkoord"))
        .await;
    report.extend(socket.until_finished().await);
    assert_agora_clean(&report);
    let after = metrics(&server).await;
    let grew =
        |name: &str, labels: &str| sample(&after, name, labels) - sample(&before, name, labels);
    assert!(
        grew("agora_runs_ended_total", "outcome=\"finished\"") >= 2.0,
        "{after}"
    );
    assert!(
        grew("agora_run_duration_seconds_count", "") >= 2.0,
        "{after}"
    );
    assert!(
        grew("agora_run_first_text_seconds_count", "") >= 2.0,
        "{after}"
    );
    assert!(
        grew("agora_approval_wait_seconds_count", "") >= 1.0,
        "{after}"
    );
    // The embedded planner answers each model turn (it reports no tokens).
    assert!(
        grew(
            "agora_model_turns_total",
            "outcome=\"ok\",provider=\"embedded-planner\""
        ) >= 2.0,
        "{after}"
    );
    assert!(grew("agora_model_turn_seconds_count", "") >= 2.0, "{after}");
    // A run of the scripted inspection sends dozens of events.
    assert!(
        grew("agora_events_published_total", "dialect=\"agora\"") >= 20.0,
        "{after}"
    );
    // The messages of the two runs went through the store, timed: each run's steps (a call
    // and its result), and its answer with its end.
    assert!(
        grew("agora_store_call_seconds_count", "op=\"append_step\"") >= 2.0,
        "{after}"
    );
    assert!(
        grew("agora_store_call_seconds_sum", "op=\"append_step\"") > 0.0,
        "{after}"
    );
    assert!(
        grew(
            "agora_store_call_seconds_count",
            "op=\"append_and_finish_run\""
        ) >= 2.0,
        "{after}"
    );
}

#[tokio::test]
async fn a_failed_sign_in_is_counted() {
    let server = users::users_server().await;
    let before = sample(&metrics(&server).await, "agora_sign_in_failures_total", "");
    assert!(
        users::sign_in(&server, users::ADMIN_EMAIL, "fout")
            .await
            .is_none()
    );
    let after = sample(&metrics(&server).await, "agora_sign_in_failures_total", "");
    assert!(after >= before + 1.0, "{before} -> {after}");
}

#[tokio::test]
async fn ready_asks_the_database_and_health_only_the_process() {
    let server = TestServer::start().await;
    let ready = reqwest::get(server.url("/ready")).await.unwrap();
    assert_eq!(ready.status(), 200);
    assert_eq!(
        ready.json::<serde_json::Value>().await.unwrap()["status"],
        "ready"
    );
    let health = reqwest::get(server.url("/health")).await.unwrap();
    assert_eq!(health.status(), 200);
}
