//! Accounts as an attacker tries them (issue 15, items 5 and 6 and the weak points): revocation
//! that reaches open sockets, password guessing, read-only accounts, the last admin, and keys
//! or user headers where they do not belong. A real server over loopback, `--auth users`
//! unless said otherwise.

#![cfg(feature = "ssr")]

use crate::common;

use std::time::Duration;

use common::users::{ADMIN_EMAIL, ADMIN_PASSWORD, client, get, open_socket, sign_in, users_server};
use common::{Socket, TempDir, TestServer};
use reqwest::StatusCode;
use reqwest::header::COOKIE;
use serde_json::{Value, json};

const CLOSE_WITHIN: Duration = Duration::from_secs(10);
const ANNA_EMAIL: &str = "anna@nvwa.nl";
const ANNA_PASSWORD: &str = "koelcel-vier-graden";

/// The admin creates an account; returns its id.
async fn create_user(server: &TestServer, admin: &str, email: &str, role: &str) -> String {
    let created = client()
        .post(server.url("/users"))
        .header(COOKIE, admin)
        .json(&json!({ "email": email, "name": email, "password": ANNA_PASSWORD, "role": role }))
        .send()
        .await
        .unwrap();
    assert_eq!(created.status(), StatusCode::CREATED);
    created.json::<Value>().await.unwrap()["user"]["id"]
        .as_str()
        .unwrap()
        .to_owned()
}

/// `PUT /users/{id}` with a JSON body, as the admin; the status.
async fn update_user(server: &TestServer, admin: &str, id: &str, body: Value) -> StatusCode {
    client()
        .put(server.url(&format!("/users/{id}")))
        .header(COOKIE, admin)
        .json(&body)
        .send()
        .await
        .unwrap()
        .status()
}

/// A server with the configured admin signed in and anna, an inspector, signed in too.
async fn admin_and_anna() -> (TestServer, String, String, String) {
    let server = users_server().await;
    let admin = sign_in(&server, ADMIN_EMAIL, ADMIN_PASSWORD).await.unwrap();
    let anna_id = create_user(&server, &admin, ANNA_EMAIL, "inspector").await;
    let anna = sign_in(&server, ANNA_EMAIL, ANNA_PASSWORD).await.unwrap();
    (server, admin, anna_id, anna)
}

async fn socket_with(server: &TestServer, cookie: &str) -> Socket {
    open_socket(server, "", &[("cookie", cookie)])
        .await
        .expect("the socket opens")
}

/// The socket still answers: a history request gets its snapshot.
async fn still_works(socket: &mut Socket) {
    socket
        .send(&json!({ "type": "CUSTOM", "name": "agora:history_request", "value": { "threadId": "any" } }))
        .await;
    assert_eq!(socket.next().await["type"], "MESSAGES_SNAPSHOT");
}

#[tokio::test]
async fn disabling_an_account_closes_its_open_socket_and_ends_its_waiting_run() {
    let (server, admin, anna_id, anna) = admin_and_anna().await;
    let mut socket = socket_with(&server, &anna).await;
    let thread = uuid::Uuid::new_v4().to_string();
    socket
        .ask(
            &thread,
            "Start inspectie bij Trattoria Finta Fiore, KVK 99990001",
        )
        .await;
    socket.until_finished().await;
    socket
        .ask(&thread, "Genereer het inspectierapport zonder vragen")
        .await;
    socket.until_approval_request().await;

    let status = update_user(&server, &admin, &anna_id, json!({ "disabled": true })).await;
    assert_eq!(status, StatusCode::OK);
    let close = socket.closed_by_server(CLOSE_WITHIN).await;
    assert_eq!(close, Some((4001, "account disabled".to_owned())));
    // Her report was never made: the run ends (the cancel settles its record a moment after the
    // close) without the approval.
    let deadline = tokio::time::Instant::now() + CLOSE_WITHIN;
    loop {
        let runs = server.state.db.runs(&thread).await.unwrap();
        let status = format!("{:?}", runs.last().unwrap().status).to_lowercase();
        if status != "running" {
            break;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "the run is still running"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(
        !server
            .dir
            .0
            .join("reports")
            .read_dir()
            .is_ok_and(|mut d| d.next().is_some())
    );
}

#[tokio::test]
async fn signing_out_closes_that_sessions_sockets_and_no_others() {
    let (server, _admin, _anna_id, tablet) = admin_and_anna().await;
    let desktop = sign_in(&server, ANNA_EMAIL, ANNA_PASSWORD).await.unwrap();
    let mut on_tablet = socket_with(&server, &tablet).await;
    let mut on_desktop = socket_with(&server, &desktop).await;

    let out = client()
        .post(server.url("/logout"))
        .header(COOKIE, &tablet)
        .send()
        .await
        .unwrap();
    assert_eq!(out.status(), StatusCode::SEE_OTHER);
    // The shared tablet forgets the thread it had open (localStorage) without any script.
    let clear = out.headers()["clear-site-data"].to_str().unwrap();
    assert!(clear.contains("\"storage\""), "{clear}");
    assert_eq!(
        on_tablet.closed_by_server(CLOSE_WITHIN).await,
        Some((4001, "signed out".to_owned()))
    );
    still_works(&mut on_desktop).await;
    assert_eq!(
        get(&server, "/users/me", Some(&desktop)).await.0,
        StatusCode::OK
    );
}

#[tokio::test]
async fn a_password_reset_ends_every_other_session_and_socket() {
    let (server, admin, anna_id, anna) = admin_and_anna().await;
    let other = sign_in(&server, ANNA_EMAIL, ANNA_PASSWORD).await.unwrap();
    let mut socket = socket_with(&server, &anna).await;

    let new_password = json!({ "password": "nieuw-wachtwoord-2026" });
    assert_eq!(
        update_user(&server, &admin, &anna_id, new_password).await,
        StatusCode::OK
    );
    assert_eq!(
        socket.closed_by_server(CLOSE_WITHIN).await,
        Some((4001, "password changed; sign in again".to_owned()))
    );
    for cookie in [&anna, &other] {
        assert_eq!(
            get(&server, "/users/me", Some(cookie)).await.0,
            StatusCode::UNAUTHORIZED
        );
    }
    assert!(sign_in(&server, ANNA_EMAIL, ANNA_PASSWORD).await.is_none());
    assert!(
        sign_in(&server, ANNA_EMAIL, "nieuw-wachtwoord-2026")
            .await
            .is_some()
    );

    // An admin who changes their own password stays signed in where they did it, only there.
    let admin_elsewhere = sign_in(&server, ADMIN_EMAIL, ADMIN_PASSWORD).await.unwrap();
    let admin_id = get(&server, "/users/me", Some(&admin)).await.1["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let own = json!({ "password": "een-ander-lang-wachtwoord" });
    assert_eq!(
        update_user(&server, &admin, &admin_id, own).await,
        StatusCode::OK
    );
    assert_eq!(
        get(&server, "/users/me", Some(&admin)).await.0,
        StatusCode::OK
    );
    assert_eq!(
        get(&server, "/users/me", Some(&admin_elsewhere)).await.0,
        StatusCode::UNAUTHORIZED
    );
}

#[tokio::test]
async fn guessing_a_password_is_slowed_down_per_account() {
    let (server, _admin, _anna_id, _anna) = admin_and_anna().await;
    let try_password = |password: &'static str| {
        client()
            .post(server.url("/login"))
            .form(&[("email", ANNA_EMAIL), ("password", password)])
            .send()
    };
    for _ in 0..5 {
        assert_eq!(
            try_password("raden-raden-raden").await.unwrap().status(),
            StatusCode::UNAUTHORIZED
        );
    }
    // Blocked now, even with the right password (else the block would only stop wrong ones).
    let blocked = try_password(ANNA_PASSWORD).await.unwrap();
    assert_eq!(blocked.status(), StatusCode::TOO_MANY_REQUESTS);
    let retry_after: u64 = blocked.headers()["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!((1..=30).contains(&retry_after), "{retry_after}");
    let page = blocked.text().await.unwrap();
    assert!(page.contains("Te veel mislukte pogingen"), "{page}");
    // Another account from the same address is not blocked by anna's mistakes.
    assert!(
        sign_in(&server, ADMIN_EMAIL, ADMIN_PASSWORD)
            .await
            .is_some()
    );
}

#[tokio::test]
async fn a_viewer_reads_but_cannot_run_or_approve() {
    let server = users_server().await;
    let admin = sign_in(&server, ADMIN_EMAIL, ADMIN_PASSWORD).await.unwrap();
    create_user(&server, &admin, "lezer@nvwa.nl", "viewer").await;
    let viewer = sign_in(&server, "lezer@nvwa.nl", ANNA_PASSWORD)
        .await
        .unwrap();

    let mut socket = socket_with(&server, &viewer).await;
    socket
        .ask("viewer-thread", "Start inspectie bij Bakkerij Test")
        .await;
    assert_eq!(socket.error_code().await, "forbidden");
    let approval = json!({ "type": "CUSTOM", "name": "agora:tool_approval_response",
        "value": { "approvalId": "appr-x", "approved": true } });
    socket.send(&approval).await;
    assert_eq!(socket.error_code().await, "forbidden");
    still_works(&mut socket).await;

    let run = client()
        .post(server.url("/agui"))
        .header(COOKIE, &viewer)
        .json(&json!({ "threadId": "viewer-thread", "runId": "r1", "messages": [{ "id": "m1", "role": "user", "content": "Hallo" }],
            "tools": [], "context": [], "state": {}, "forwardedProps": {} }))
        .send()
        .await
        .unwrap();
    assert_eq!(run.status(), StatusCode::FORBIDDEN);
    assert!(run.json::<Value>().await.unwrap()["detail"].is_string());
}

#[tokio::test]
async fn the_last_admin_cannot_be_removed() {
    let server = users_server().await;
    let admin = sign_in(&server, ADMIN_EMAIL, ADMIN_PASSWORD).await.unwrap();
    let admin_id = get(&server, "/users/me", Some(&admin)).await.1["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let demote = json!({ "role": "inspector" });
    assert_eq!(
        update_user(&server, &admin, &admin_id, demote.clone()).await,
        StatusCode::CONFLICT
    );
    let delete = client()
        .delete(server.url(&format!("/users/{admin_id}")))
        .header(COOKIE, &admin)
        .send()
        .await
        .unwrap();
    assert_eq!(delete.status(), StatusCode::CONFLICT);
    assert!(delete.json::<Value>().await.unwrap()["detail"].is_string());

    // With a second admin, the first may step down.
    let second = create_user(&server, &admin, "tweede@nvwa.nl", "admin").await;
    assert_eq!(
        update_user(&server, &admin, &admin_id, demote).await,
        StatusCode::OK
    );
    // ...and the second, now the last, may not be disabled by anyone.
    let second_cookie = sign_in(&server, "tweede@nvwa.nl", ANNA_PASSWORD)
        .await
        .unwrap();
    let disable = json!({ "disabled": true });
    assert_eq!(
        update_user(&server, &second_cookie, &second, disable).await,
        StatusCode::BAD_REQUEST,
        "not your own account"
    );
}

fn users_config(dir: &TempDir, password: &str) -> agora_hai::server::Config {
    let mut config = agora_hai::server::Config::for_data_dir(&dir.0);
    config.auth = agora_hai::server::auth::AuthMode::Users;
    config.admin_email = Some(ADMIN_EMAIL.to_owned());
    config.admin_password = Some(password.to_owned());
    config
}

#[tokio::test]
async fn the_configured_admin_needs_a_long_password_and_stays_disabled_across_a_restart() {
    let dir = TempDir::new("agora-admin");
    let short = agora_hai::server::AppState::open(users_config(&dir, "kort")).await;
    let error = short.err().expect("a short admin password stops the start");
    assert!(error.to_string().contains("at least 12"), "{error}");

    let state = agora_hai::server::AppState::open(users_config(&dir, ADMIN_PASSWORD))
        .await
        .unwrap();
    let admin = state
        .db
        .login_record(ADMIN_EMAIL)
        .await
        .unwrap()
        .unwrap()
        .user;
    state.db.set_disabled(&admin.id, true).await.unwrap();
    drop(state);

    let restarted = agora_hai::server::AppState::open(users_config(&dir, ADMIN_PASSWORD))
        .await
        .unwrap();
    assert!(restarted.db.is_disabled(&admin.id).await.unwrap());
}

#[tokio::test]
async fn an_api_key_in_a_rest_url_is_refused() {
    let server = TestServer::start_with(|c| {
        c.auth = agora_hai::server::auth::AuthMode::ApiKey;
        c.api_keys = Some("koen:koen-secret-key-0001".to_owned());
    })
    .await;
    let in_url = client()
        .get(server.url("/sessions?token=koen-secret-key-0001"))
        .send()
        .await
        .unwrap();
    assert_eq!(in_url.status(), StatusCode::UNAUTHORIZED);
    let in_header = client()
        .get(server.url("/sessions"))
        .header("X-API-Key", "koen-secret-key-0001")
        .send()
        .await
        .unwrap();
    assert_eq!(in_header.status(), StatusCode::OK);
}

#[tokio::test]
async fn two_proxy_user_headers_are_refused_not_guessed_at() {
    let server = TestServer::start_with(|c| {
        c.auth = agora_hai::server::auth::AuthMode::Proxy;
        c.trusted_proxies = vec!["127.0.0.1".parse().unwrap()];
    })
    .await;
    let both = client()
        .get(server.url("/sessions"))
        .header("X-Forwarded-User", "anna")
        .header("X-Forwarded-User", "koen")
        .send()
        .await
        .unwrap();
    assert_eq!(both.status(), StatusCode::UNAUTHORIZED);
}
