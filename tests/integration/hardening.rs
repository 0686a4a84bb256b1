//! Holes found by trying the server as an attacker would (issue 15), one test each, on a real
//! server over loopback. Two users sign in with API keys: koen is the victim, anna the attacker.

#![cfg(feature = "ssr")]

use crate::common;
use crate::common::keys::{ANNA, KOEN, key_server, socket_of};

use common::{Socket, TestServer, assert_agora_clean, of_type};
use serde_json::json;

fn thread() -> String {
    format!("thread-{}", uuid::Uuid::new_v4())
}

/// Koen's run waiting for his approval of the report; returns the approval request.
async fn koen_waits_for_approval(socket: &mut Socket, thread: &str) -> serde_json::Value {
    socket
        .ask(
            thread,
            "Start inspectie bij Trattoria Finta Fiore, KVK 99990001",
        )
        .await;
    assert_agora_clean(&socket.until_finished().await);
    socket
        .ask(thread, "Genereer het inspectierapport zonder vragen")
        .await;
    let events = socket.until_approval_request().await;
    events.last().unwrap()["value"].clone()
}

#[tokio::test]
async fn a_message_on_someone_elses_thread_stops_nothing_of_theirs() {
    let server = key_server().await;
    let mut koen = socket_of(&server, KOEN).await;
    let thread = thread();
    let request = koen_waits_for_approval(&mut koen, &thread).await;

    let mut anna = socket_of(&server, ANNA).await;
    anna.ask(&thread, "Hallo").await;
    assert_eq!(anna.error_code().await, "thread_not_found");

    // Koen's run still waits, and his approval still counts.
    koen.answer_approval(request["approvalId"].as_str().unwrap(), true, None)
        .await;
    let events = koen.until_finished().await;
    assert!(of_type(&events, "RUN_ERROR").is_empty(), "{events:?}");
    let results = of_type(&events, "TOOL_CALL_RESULT");
    assert!(
        results
            .iter()
            .any(|r| r["content"].as_str().unwrap().contains("downloadUrl")),
        "the report was generated: {results:?}"
    );
}

#[tokio::test]
async fn reusing_someone_elses_run_id_is_refused_and_leaves_their_run_running() {
    let server = key_server().await;
    let mut koen = socket_of(&server, KOEN).await;
    let thread = thread();
    koen_waits_for_approval(&mut koen, &thread).await;
    let runs = server.state.db.runs(&thread).await.unwrap();
    let running = runs
        .iter()
        .find(|r| r.status == agora_hai::orchestrator::store::RunStatus::Running)
        .expect("koen's run is running")
        .id
        .clone();

    let mut anna = socket_of(&server, ANNA).await;
    anna.send(&json!({ "threadId": "anna-own-thread", "runId": running,
        "messages": [{ "role": "user", "content": "Hallo" }], "context": {} }))
        .await;
    assert_eq!(anna.error_code().await, "run_id_in_use");
    let run = server.state.db.run(&running).await.unwrap();
    assert_eq!(
        run.status,
        agora_hai::orchestrator::store::RunStatus::Running
    );
}

#[tokio::test]
async fn ids_that_could_forge_logs_are_refused_and_nothing_is_stored() {
    let server = key_server().await;
    let mut anna = socket_of(&server, ANNA).await;
    for (thread, run) in [
        ("thread-1\nINFO forged line", None),
        ("thread-\u{202e}gnp.exe", None),
        ("thread-nul\u{0}", None),
        ("<script>alert(1)</script>", None),
        ("ok-thread", Some("run\r\nforged")),
    ] {
        let mut input = json!({ "threadId": thread,
            "messages": [{ "role": "user", "content": "Hallo" }], "context": {} });
        if let Some(run) = run {
            input["runId"] = json!(run);
        }
        anna.send(&input).await;
        assert_eq!(anna.error_code().await, "invalid_id", "{thread:?} {run:?}");
        assert!(
            server.state.db.thread(thread).await.is_err(),
            "{thread:?} not stored"
        );
    }
    // The socket stays usable.
    anna.ask("thread-fine_1", "Hallo").await;
    assert_agora_clean(&anna.until_finished().await);
}

#[tokio::test]
async fn a_deleted_threads_reports_are_gone_and_a_recreated_id_cannot_fetch_them() {
    let server = key_server().await;
    let mut koen = socket_of(&server, KOEN).await;
    let thread = thread();
    let request = koen_waits_for_approval(&mut koen, &thread).await;
    koen.answer_approval(request["approvalId"].as_str().unwrap(), true, None)
        .await;
    let events = koen.until_finished().await;
    let result: serde_json::Value = of_type(&events, "TOOL_CALL_RESULT")
        .iter()
        .find_map(|r| serde_json::from_str(r["content"].as_str().unwrap()).ok())
        .filter(|r: &serde_json::Value| r.get("downloadUrl").is_some())
        .expect("a report");
    let url = server.url(result["downloadUrl"].as_str().unwrap());
    let fetch = |key: &'static str| {
        let http = server.http.clone();
        let url = url.clone();
        async move {
            http.get(&url)
                .header("x-api-key", key)
                .send()
                .await
                .unwrap()
        }
    };
    let response = fetch(KOEN).await;
    assert_eq!(response.status(), 200);
    assert_eq!(response.headers()["cache-control"], "no-store");
    assert_eq!(fetch(ANNA).await.status(), 404, "not anna's");

    // Koen deletes the thread: its report files go with it.
    let deleted = server
        .http
        .delete(server.url(&format!("/sessions/{thread}")))
        .header("x-api-key", KOEN)
        .send()
        .await
        .unwrap();
    assert!(deleted.status().is_success(), "{}", deleted.status());
    let reports = server.dir.0.join("reports");
    let left: Vec<_> = std::fs::read_dir(&reports)
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.file_name())
        .collect();
    assert!(left.is_empty(), "report files left: {left:?}");

    // Anna creates a thread with the same id: no report of koen's comes back.
    let mut anna = socket_of(&server, ANNA).await;
    anna.ask(&thread, "Hallo").await;
    assert_agora_clean(&anna.until_finished().await);
    assert_eq!(fetch(ANNA).await.status(), 404);
}

#[tokio::test]
async fn a_write_from_another_origin_of_the_same_site_is_refused() {
    let server = key_server().await;
    let thread = thread();
    let mut koen = socket_of(&server, KOEN).await;
    koen.ask(&thread, "Hallo").await;
    koen.until_finished().await;
    let delete = |origin: Option<&'static str>, site: Option<&'static str>| {
        let mut request = server
            .http
            .delete(server.url(&format!("/sessions/{thread}")))
            .header("x-api-key", KOEN);
        if let Some(origin) = origin {
            request = request.header("origin", origin);
        }
        if let Some(site) = site {
            request = request.header("sec-fetch-site", site);
        }
        request.send()
    };
    // Another port of the same host, as a page on it would send it; then a subdomain without
    // an Origin header.
    for (origin, site) in [
        (Some("http://127.0.0.1:1"), Some("same-site")),
        (None, Some("same-site")),
        (Some("null"), Some("cross-site")),
    ] {
        let response = delete(origin, site).await.unwrap();
        assert_eq!(response.status(), 403, "{origin:?} {site:?}");
        let body: serde_json::Value = response.json().await.unwrap();
        assert!(body.to_string().contains("another site"), "{body}");
        assert!(
            server.state.db.thread(&thread).await.is_ok(),
            "nothing deleted"
        );
    }
    // The page's own origin may (the thread is deleted), and so may `Origin: null` (a form post
    // under no-referrer) when the browser says the request is same-origin: not refused.
    let own = format!("http://{}", server.addr);
    let own: &'static str = Box::leak(own.into_boxed_str());
    let response = delete(Some(own), Some("same-origin")).await.unwrap();
    assert!(response.status().is_success(), "{}", response.status());
    let response = delete(Some("null"), Some("same-origin")).await.unwrap();
    assert_ne!(response.status(), 403);
}

#[tokio::test]
async fn sign_in_from_another_origin_is_refused() {
    let server = TestServer::start_with(|c| {
        c.auth = agora_hai::server::auth::AuthMode::Users;
        c.admin_email = Some("admin@nvwa.nl".to_owned());
        c.admin_password = Some("a-long-admin-password".to_owned());
    })
    .await;
    let response = server
        .http
        .post(server.url("/login"))
        .header("origin", "http://127.0.0.1:1")
        .form(&[
            ("email", "admin@nvwa.nl"),
            ("password", "a-long-admin-password"),
        ])
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 403, "login CSRF");
    assert!(response.headers().get("set-cookie").is_none());
}
