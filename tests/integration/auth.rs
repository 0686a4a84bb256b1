//! Staff only: each refusal of issue 7, and that a normal user still gets through.

use crate::common;

use common::users::{ADMIN_EMAIL, ADMIN_PASSWORD, client, get, open_socket, sign_in, users_server};
use common::{TestServer, assert_agora_clean};
use reqwest::StatusCode;
use reqwest::header::{COOKIE, LOCATION};
use serde_json::{Value, json};

#[tokio::test]
async fn without_a_session_everything_is_refused_and_with_one_it_works() {
    let server = users_server().await;
    let (status, body) = get(&server, "/sessions", None).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    assert!(body["detail"].is_string());
    let page = client().get(server.url("/")).send().await.unwrap();
    assert_eq!(page.status(), StatusCode::SEE_OTHER);
    assert_eq!(page.headers()[LOCATION], "/login");
    assert_eq!(open_socket(&server, "", &[]).await.err(), Some(4001));
    let (status, _) = get(&server, "/health", None).await;
    assert_eq!(status, StatusCode::OK, "health stays open");

    assert!(
        sign_in(&server, ADMIN_EMAIL, "wrong password!!")
            .await
            .is_none()
    );
    assert!(
        sign_in(&server, "nobody@nvwa.nl", ADMIN_PASSWORD)
            .await
            .is_none()
    );
    // The form comes back with the error and the typed email (escaped), the focus on the
    // password.
    let retry = client()
        .post(server.url("/login"))
        .form(&[
            ("email", "\"><b>x@nvwa.nl"),
            ("password", "wrong password!!"),
        ])
        .send()
        .await
        .unwrap();
    assert_eq!(retry.status(), StatusCode::UNAUTHORIZED);
    let html = retry.text().await.unwrap();
    assert!(
        html.contains("Onbekend e-mailadres of onjuist wachtwoord."),
        "{html}"
    );
    assert!(
        html.contains(r#"value="&quot;&gt;&lt;b&gt;x@nvwa.nl""#),
        "{html}"
    );
    assert!(!html.contains("<b>x@"), "{html}");
    assert!(
        html.contains(r#"autocomplete="current-password" required autofocus"#),
        "{html}"
    );
    let cookie = sign_in(&server, ADMIN_EMAIL, ADMIN_PASSWORD)
        .await
        .expect("signed in");
    let (status, me) = get(&server, "/users/me", Some(&cookie)).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(me["email"], ADMIN_EMAIL);
    let page = client()
        .get(server.url("/"))
        .header(COOKIE, &cookie)
        .send()
        .await
        .unwrap();
    assert_eq!(page.status(), StatusCode::OK);

    let mut socket = open_socket(&server, "", &[("cookie", &cookie)])
        .await
        .expect("socket opens");
    socket.ask(&uuid::Uuid::new_v4().to_string(), "Hallo").await;
    assert_agora_clean(&socket.until_finished().await);

    // Sign-out ends the session for good.
    let out = client()
        .post(server.url("/logout"))
        .header(COOKIE, &cookie)
        .send()
        .await
        .unwrap();
    assert_eq!(out.status(), StatusCode::SEE_OTHER);
    assert_eq!(
        get(&server, "/users/me", Some(&cookie)).await.0,
        StatusCode::UNAUTHORIZED
    );
}

#[tokio::test]
async fn admins_add_and_disable_users_and_others_cannot() {
    let server = users_server().await;
    let admin = sign_in(&server, ADMIN_EMAIL, ADMIN_PASSWORD).await.unwrap();
    let created = client()
        .post(server.url("/users"))
        .header(COOKIE, &admin)
        .json(&json!({ "email": "jan@nvwa.nl", "name": "Jan", "password": "inspecteur-jan-2026" }))
        .send()
        .await
        .unwrap();
    assert_eq!(created.status(), StatusCode::CREATED);
    let jan_id = created.json::<Value>().await.unwrap()["user"]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let jan = sign_in(&server, "jan@nvwa.nl", "inspecteur-jan-2026")
        .await
        .expect("jan signs in");

    // An inspector manages no one.
    assert_eq!(
        get(&server, "/users", Some(&jan)).await.0,
        StatusCode::FORBIDDEN
    );
    let attempt = client()
        .post(server.url("/users"))
        .header(COOKIE, &jan)
        .json(&json!({ "email": "x@nvwa.nl", "name": "X" }))
        .send()
        .await
        .unwrap();
    assert_eq!(attempt.status(), StatusCode::FORBIDDEN);

    let disabled = client()
        .put(server.url(&format!("/users/{jan_id}")))
        .header(COOKIE, &admin)
        .json(&json!({ "disabled": true }))
        .send()
        .await
        .unwrap();
    assert_eq!(disabled.status(), StatusCode::OK);
    assert_eq!(
        get(&server, "/users/me", Some(&jan)).await.0,
        StatusCode::UNAUTHORIZED
    );
    assert!(
        sign_in(&server, "jan@nvwa.nl", "inspecteur-jan-2026")
            .await
            .is_none()
    );
}

#[tokio::test]
async fn another_users_thread_does_not_exist_for_you() {
    let server = users_server().await;
    let admin = sign_in(&server, ADMIN_EMAIL, ADMIN_PASSWORD).await.unwrap();
    client()
        .post(server.url("/users"))
        .header(COOKIE, &admin)
        .json(&json!({ "email": "jan@nvwa.nl", "name": "Jan", "password": "inspecteur-jan-2026" }))
        .send()
        .await
        .unwrap();
    let jan = sign_in(&server, "jan@nvwa.nl", "inspecteur-jan-2026")
        .await
        .unwrap();

    let thread = uuid::Uuid::new_v4().to_string();
    let mut socket = open_socket(&server, "", &[("cookie", &admin)])
        .await
        .unwrap();
    socket
        .ask(&thread, "Start inspectie bij Trattoria Finta Fiore")
        .await;
    socket.until_finished().await;
    assert_eq!(
        get(
            &server,
            &format!("/sessions/{thread}/history"),
            Some(&admin)
        )
        .await
        .0,
        StatusCode::OK
    );

    for path in [
        format!("/sessions/{thread}/history"),
        format!("/sessions/{thread}/metadata"),
    ] {
        assert_eq!(
            get(&server, &path, Some(&jan)).await.0,
            StatusCode::NOT_FOUND,
            "{path}"
        );
    }
    let (_, list) = get(&server, "/sessions", Some(&jan)).await;
    assert_eq!(list["sessions"].as_array().map(Vec::len), Some(0));
    let delete = client()
        .delete(server.url(&format!("/sessions/{thread}")))
        .header(COOKIE, &jan)
        .send()
        .await
        .unwrap();
    assert_eq!(delete.status(), StatusCode::NOT_FOUND);

    let mut intruder = open_socket(&server, "", &[("cookie", &jan)]).await.unwrap();
    intruder.ask(&thread, "Wat staat hier?").await;
    assert_eq!(intruder.error_code().await, "thread_not_found");
    intruder.send(&json!({ "type": "CUSTOM", "name": "agora:history_request", "value": { "threadId": thread } })).await;
    assert_eq!(intruder.error_code().await, "thread_not_found");
}

#[tokio::test]
async fn api_keys_sign_in_machines_and_a_wrong_key_is_refused() {
    let server = TestServer::start_with(|c| {
        c.auth = agora_hai::server::auth::AuthMode::ApiKey;
        c.api_keys = Some("koen:koen-secret-key-0001,anna:anna-secret-key-0002".to_owned());
    })
    .await;
    let with_key = |key: &str| {
        client()
            .get(server.url("/users/me"))
            .header("X-API-Key", key.to_owned())
    };
    assert_eq!(
        with_key("wrong-key-wrong-key")
            .send()
            .await
            .unwrap()
            .status(),
        StatusCode::UNAUTHORIZED
    );
    assert_eq!(
        client()
            .get(server.url("/sessions"))
            .send()
            .await
            .unwrap()
            .status(),
        StatusCode::UNAUTHORIZED
    );
    assert_eq!(
        open_socket(&server, "?token=wrong-key-wrong-key", &[])
            .await
            .err(),
        Some(4001)
    );
    assert_eq!(open_socket(&server, "", &[]).await.err(), Some(4001));

    let sessions = client()
        .get(server.url("/sessions"))
        .header("X-API-Key", "koen-secret-key-0001")
        .send()
        .await
        .unwrap();
    assert_eq!(sessions.status(), StatusCode::OK);
    let mut socket = open_socket(&server, "?token=anna-secret-key-0002", &[])
        .await
        .expect("right key opens");
    socket.ask(&uuid::Uuid::new_v4().to_string(), "Hallo").await;
    assert_agora_clean(&socket.until_finished().await);
}

/// A server in proxy mode that trusts only `trusted_proxy` (the tests connect from 127.0.0.1).
async fn proxy_server(trusted_proxy: &str) -> TestServer {
    let trusted_proxy = trusted_proxy.parse().unwrap();
    TestServer::start_with(|c| {
        c.auth = agora_hai::server::auth::AuthMode::Proxy;
        c.trusted_proxies = vec![trusted_proxy];
    })
    .await
}

/// `GET /sessions`'s status, with `X-Forwarded-User: user` when a user is named.
async fn sessions_as(server: &TestServer, user: Option<&str>) -> StatusCode {
    let mut request = client().get(server.url("/sessions"));
    if let Some(user) = user {
        request = request.header("X-Forwarded-User", user);
    }
    request.send().await.unwrap().status()
}

#[tokio::test]
async fn the_proxy_header_counts_only_from_a_trusted_proxy() {
    let trusted = proxy_server("127.0.0.1").await;
    assert_eq!(sessions_as(&trusted, Some("koen")).await, StatusCode::OK);
    assert_eq!(sessions_as(&trusted, None).await, StatusCode::UNAUTHORIZED);

    let untrusted = proxy_server("10.9.9.9").await;
    assert_eq!(
        sessions_as(&untrusted, Some("koen")).await,
        StatusCode::UNAUTHORIZED
    );
}

#[tokio::test]
async fn a_foreign_origin_cannot_open_the_socket() {
    let server = TestServer::start().await;
    let host = server.addr.to_string();
    assert_eq!(
        open_socket(&server, "", &[("origin", "https://evil.example")])
            .await
            .err(),
        Some(403)
    );
    let own = format!("http://{host}");
    assert!(
        open_socket(&server, "", &[("origin", &own)]).await.is_ok(),
        "the page's own origin"
    );

    let configured =
        TestServer::start_with(|c| c.allowed_origins = vec!["https://hai.nvwa.nl".to_owned()])
            .await;
    assert!(
        open_socket(&configured, "", &[("origin", "https://hai.nvwa.nl")])
            .await
            .is_ok()
    );
    assert_eq!(
        open_socket(&configured, "", &[("origin", "https://evil.example")])
            .await
            .err(),
        Some(403)
    );
}

#[tokio::test]
async fn a_refused_run_says_which_run_and_when_to_retry_and_the_socket_goes_on() {
    let server = TestServer::start_with(|c| c.runs_per_minute = 2).await;
    let mut socket = server.socket().await;
    for _ in 0..2 {
        socket.ask(&uuid::Uuid::new_v4().to_string(), "Hallo").await;
        socket.until_finished().await;
    }
    let thread = uuid::Uuid::new_v4().to_string();
    socket
        .send(&json!({ "threadId": thread, "runId": "run-te-veel", "messages": [{ "role": "user", "content": "Hallo" }] }))
        .await;
    let refusal = socket.next().await;
    assert_eq!(refusal["name"], "agora:error", "{refusal}");
    let value = &refusal["value"];
    assert_eq!(value["errorCode"], "rate_limited");
    assert_eq!(value["details"]["runId"], "run-te-veel");
    assert_eq!(value["details"]["threadId"], thread.as_str());
    assert_eq!(value["details"]["limitPerMinute"], 2);
    // Two a minute: the next one comes within 30 s, and the message says when.
    let wait = value["details"]["retryAfterMs"].as_u64().unwrap();
    assert!((1..=30_000).contains(&wait), "{wait}");
    assert!(value["message"].as_str().unwrap().contains("2 per minuut"));
    // Without a runId of its own the client still gets one to tie the refusal to.
    socket.ask(&thread, "Hallo").await;
    let refusal = socket.next().await;
    assert!(
        refusal["value"]["details"]["runId"]
            .as_str()
            .is_some_and(|id| !id.is_empty())
    );
    // Another user is not affected, on the same socket.
    socket
        .send(&json!({ "threadId": uuid::Uuid::new_v4().to_string(), "userId": "anna", "messages": [{ "role": "user", "content": "Hallo" }] }))
        .await;
    assert_eq!(socket.next().await["type"], "RUN_STARTED");
}

#[tokio::test]
async fn service_accounts_and_named_accounts_have_limits_of_their_own() {
    let server = TestServer::start_with(|c| {
        c.auth = agora_hai::server::auth::AuthMode::ApiKey;
        c.api_keys = Some("planning:planning-secret-key-01,bulk:bulk-secret-key-000002".to_owned());
        c.runs_per_minute = 1;
        c.service_runs_per_minute = 3;
        c.runs_per_minute_for = vec![("bulk".to_owned(), std::num::NonZeroU32::new(4).unwrap())];
    })
    .await;
    // A service account has the service limit (3), not a person's (1), over all its sockets.
    let mut first = open_socket(&server, "?token=planning-secret-key-01", &[])
        .await
        .unwrap();
    let mut second = open_socket(&server, "?token=planning-secret-key-01", &[])
        .await
        .unwrap();
    for n in 0..3 {
        let socket = if n == 1 { &mut second } else { &mut first };
        socket.ask(&uuid::Uuid::new_v4().to_string(), "Hallo").await;
        assert_agora_clean(&socket.until_finished().await);
    }
    second.ask(&uuid::Uuid::new_v4().to_string(), "Hallo").await;
    assert_eq!(second.error_code().await, "rate_limited");
    // A named account has its own (4).
    let mut bulk = open_socket(&server, "?token=bulk-secret-key-000002", &[])
        .await
        .unwrap();
    for _ in 0..4 {
        bulk.ask(&uuid::Uuid::new_v4().to_string(), "Hallo").await;
        assert_agora_clean(&bulk.until_finished().await);
    }
    bulk.ask(&uuid::Uuid::new_v4().to_string(), "Hallo").await;
    assert_eq!(bulk.error_code().await, "rate_limited");
}

#[tokio::test]
async fn pages_carry_security_headers_and_a_nonce_policy() {
    let server = TestServer::start().await;
    let page = client()
        .get(server.url("/"))
        .header("accept", "text/html")
        .send()
        .await
        .unwrap();
    let headers = page.headers().clone();
    let html = page.text().await.unwrap();
    let policy = headers["content-security-policy"].to_str().unwrap();
    let nonce = policy
        .split("'nonce-")
        .nth(1)
        .and_then(|rest| rest.split('\'').next())
        .expect("nonce in CSP");
    assert!(
        html.contains(&format!("nonce=\"{nonce}\"")),
        "the inline script carries the policy's nonce"
    );
    assert!(policy.contains("frame-ancestors 'none'"));
    assert!(!policy.contains("unsafe-inline"));
    assert_eq!(headers["x-content-type-options"], "nosniff");
    assert_eq!(headers["referrer-policy"], "no-referrer");

    let json = client().get(server.url("/health")).send().await.unwrap();
    assert!(
        json.headers()["content-security-policy"]
            .to_str()
            .unwrap()
            .contains("frame-ancestors 'none'")
    );

    let huge = "x".repeat(3 << 20);
    let refused = client()
        .put(server.url("/users/me/preferences"))
        .body(huge)
        .send()
        .await
        .unwrap();
    assert_eq!(refused.status(), StatusCode::PAYLOAD_TOO_LARGE);
}
