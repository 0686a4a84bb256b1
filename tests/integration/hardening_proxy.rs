//! The shipped deployment under attack (issue 31, holes 3 and 4): the server behind Debian's
//! nginx running `deploy/nginx.conf`, with the trusted proxies of `deploy/agora-hai.service`,
//! and clients on distinct loopback addresses as nginx sees them.

#![cfg(feature = "ssr")]

use crate::common;

use axum::Router;
use axum::routing::post;
use common::TestServer;
use common::nginx::{Nginx, shipped_trusted_proxies};
use common::users::{ADMIN_EMAIL, ADMIN_PASSWORD};
use reqwest::StatusCode;
use reqwest::header::{COOKIE, SET_COOKIE};
use serde_json::{Value, json};

/// `--auth users` with the configured admin, configured as the systemd unit does.
async fn shipped_server() -> (TestServer, Nginx) {
    shipped_server_with(|_| {}).await
}

async fn shipped_server_with(
    configure: impl FnOnce(&mut agora_hai::server::Config),
) -> (TestServer, Nginx) {
    let server = TestServer::start_with(|c| {
        c.auth = agora_hai::server::auth::AuthMode::Users;
        c.admin_email = Some(ADMIN_EMAIL.to_owned());
        c.admin_password = Some(ADMIN_PASSWORD.to_owned());
        c.trusted_proxies = shipped_trusted_proxies();
        configure(c);
    })
    .await;
    let nginx = Nginx::start(server.addr).await;
    (server, nginx)
}

/// One sign-in through nginx from `client`; its status. `forged` is an `X-Forwarded-For` the
/// client writes itself, which must not change the address it is counted under.
async fn sign_in_status(
    nginx: &Nginx,
    client: &reqwest::Client,
    email: &str,
    password: &str,
    forged: Option<&str>,
) -> StatusCode {
    let mut request = client
        .post(nginx.url("/login"))
        .form(&[("email", email), ("password", password)]);
    if let Some(forged) = forged {
        request = request.header("x-forwarded-for", forged);
    }
    request.send().await.unwrap().status()
}

#[tokio::test]
async fn many_wrong_sign_ins_from_one_address_do_not_lock_out_another() {
    let (_server, nginx) = shipped_server().await;
    let attacker = nginx.client_from(2);
    // 21 wrong sign-ins for as many accounts, each with another forged address.
    let mut statuses = Vec::new();
    for n in 0..21 {
        let email = format!("gok{n}@nvwa.nl");
        let forged = format!("10.0.{n}.1");
        statuses
            .push(sign_in_status(&nginx, &attacker, &email, "fout-fout-fout", Some(&forged)).await);
    }
    assert!(
        statuses[..19]
            .iter()
            .all(|s| *s == StatusCode::UNAUTHORIZED),
        "{statuses:?}\n{}",
        nginx.error_log()
    );
    // The attacker's own address is slowed down, forged headers or not...
    assert_eq!(statuses[20], StatusCode::TOO_MANY_REQUESTS, "{statuses:?}");
    assert_eq!(
        sign_in_status(
            &nginx,
            &attacker,
            ADMIN_EMAIL,
            ADMIN_PASSWORD,
            Some("10.9.9.9")
        )
        .await,
        StatusCode::TOO_MANY_REQUESTS
    );
    // ...and nobody else is.
    let colleague = nginx.client_from(3);
    assert_eq!(
        sign_in_status(&nginx, &colleague, ADMIN_EMAIL, ADMIN_PASSWORD, None).await,
        StatusCode::SEE_OTHER,
        "a sign-in from another address was blocked by the attacker's failures"
    );
}

#[tokio::test]
async fn wrong_passwords_for_an_account_do_not_lock_its_owner_out() {
    let (_server, nginx) = shipped_server().await;
    let attacker = nginx.client_from(4);
    for _ in 0..8 {
        sign_in_status(&nginx, &attacker, ADMIN_EMAIL, "raden-raden-raden", None).await;
    }
    // The guesser is blocked on that account, even with the right password...
    assert_eq!(
        sign_in_status(&nginx, &attacker, ADMIN_EMAIL, ADMIN_PASSWORD, None).await,
        StatusCode::TOO_MANY_REQUESTS
    );
    // ...and the owner, from her own address, signs in.
    let owner = nginx.client_from(5);
    assert_eq!(
        sign_in_status(&nginx, &owner, ADMIN_EMAIL, ADMIN_PASSWORD, None).await,
        StatusCode::SEE_OTHER,
        "the account's owner was locked out by someone else's wrong passwords"
    );
}

// ---------------------------------------------------------------------------------------------
// Hole 4: one user's SSE streams.

/// A model server that never answers, so that a run (and its stream) stays open.
async fn silent_model() -> String {
    let model = Router::new().route(
        "/v1/chat/completions",
        post(std::future::pending::<&'static str>),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, model).await.unwrap() });
    format!("http://{addr}/v1")
}

/// Signs in through nginx from `client`; the session cookie.
async fn session(nginx: &Nginx, client: &reqwest::Client, email: &str, password: &str) -> String {
    let response = client
        .post(nginx.url("/login"))
        .form(&[("email", email), ("password", password)])
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::SEE_OTHER);
    let cookie = response.headers()[SET_COOKIE].to_str().unwrap();
    cookie.split(';').next().unwrap().to_owned()
}

fn question(thread: &str, run: &str) -> Value {
    json!({
        "threadId": thread,
        "runId": run,
        "messages": [{ "id": uuid::Uuid::new_v4().to_string(), "role": "user", "content": "Welke regels gelden voor allergenen?" }],
        "tools": [],
        "context": [],
    })
}

#[tokio::test]
async fn one_user_cannot_hold_more_than_16_event_streams() {
    let model = silent_model().await;
    let (_server, nginx) = shipped_server_with(|c| c.llm_base_url = Some(model)).await;
    let koen_client = nginx.client_from(6);
    let koen = session(&nginx, &koen_client, ADMIN_EMAIL, ADMIN_PASSWORD).await;
    let anna_password = "koelcel-vier-graden";
    let created = koen_client
        .post(nginx.url("/users"))
        .header(COOKIE, &koen)
        .json(&json!({ "email": "anna@nvwa.nl", "name": "Anna", "password": anna_password, "role": "inspector" }))
        .send()
        .await
        .unwrap();
    assert_eq!(created.status(), StatusCode::CREATED);

    // One run (its stream open while the model thinks) and 15 reattaches to it: 16 streams.
    let thread = uuid::Uuid::new_v4().to_string();
    let mut open = Vec::new();
    let first = koen_client
        .post(nginx.url("/agui"))
        .header(COOKIE, &koen)
        .json(&question(&thread, "koen-run"))
        .send()
        .await
        .unwrap();
    assert_eq!(first.status(), StatusCode::OK);
    // Reattach once the run is live (a reattach before would get a snapshot that ends at once).
    let mut first = first;
    let mut seen = String::new();
    while !seen.contains("RUN_STARTED") {
        let chunk = tokio::time::timeout(std::time::Duration::from_secs(10), first.chunk())
            .await
            .expect("no RUN_STARTED within 10 s")
            .unwrap()
            .expect("the run's stream ended");
        seen.push_str(&String::from_utf8_lossy(&chunk));
    }
    open.push(first);
    let reattach = || {
        koen_client
            .get(nginx.url("/agui/runs/koen-run/events"))
            .header(COOKIE, &koen)
            .header("accept", "text/event-stream")
            .send()
    };
    // The run's row is stored just after its stream starts: until then a reattach is 404.
    let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(10);
    while open.len() < 16 {
        let stream = reattach().await.unwrap();
        if stream.status() == StatusCode::NOT_FOUND && open.len() == 1 {
            assert!(
                tokio::time::Instant::now() < deadline,
                "the run was never stored"
            );
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
            continue;
        }
        assert_eq!(stream.status(), StatusCode::OK);
        open.push(stream);
    }
    // The 17th, a reattach or a new run, is refused with a clear 429.
    let refused = reattach().await.unwrap();
    assert_eq!(refused.status(), StatusCode::TOO_MANY_REQUESTS);
    assert!(refused.headers().contains_key("retry-after"));
    let body: Value = refused.json().await.unwrap();
    assert!(
        body["detail"].as_str().unwrap().contains("at most 16"),
        "{body}"
    );
    let refused = koen_client
        .post(nginx.url("/agui"))
        .header(COOKIE, &koen)
        .json(&question(&uuid::Uuid::new_v4().to_string(), "koen-run-2"))
        .send()
        .await
        .unwrap();
    assert_eq!(refused.status(), StatusCode::TOO_MANY_REQUESTS);

    // Another inspector, through the same nginx, still gets her stream.
    let anna_client = nginx.client_from(7);
    let anna = session(&nginx, &anna_client, "anna@nvwa.nl", anna_password).await;
    let hers = anna_client
        .post(nginx.url("/agui"))
        .header(COOKIE, &anna)
        .json(&question(&uuid::Uuid::new_v4().to_string(), "anna-run"))
        .send()
        .await
        .unwrap();
    assert_eq!(hers.status(), StatusCode::OK, "{}", nginx.error_log());
    drop(open);
}
