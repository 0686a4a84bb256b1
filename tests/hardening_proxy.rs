//! The shipped deployment under attack (issue 31, hole 3): the server behind Debian's
//! nginx running `deploy/nginx.conf`, with the trusted proxies of `deploy/agora-hai.service`,
//! and clients on distinct loopback addresses as nginx sees them.

#![cfg(feature = "ssr")]

mod common;

use common::TestServer;
use common::nginx::{Nginx, shipped_trusted_proxies};
use common::users::{ADMIN_EMAIL, ADMIN_PASSWORD};
use reqwest::StatusCode;

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
        statuses.push(sign_in_status(&nginx, &attacker, &email, "fout-fout-fout", Some(&forged)).await);
    }
    assert!(
        statuses[..19].iter().all(|s| *s == StatusCode::UNAUTHORIZED),
        "{statuses:?}\n{}",
        nginx.error_log()
    );
    // The attacker's own address is slowed down, forged headers or not...
    assert_eq!(statuses[20], StatusCode::TOO_MANY_REQUESTS, "{statuses:?}");
    assert_eq!(
        sign_in_status(&nginx, &attacker, ADMIN_EMAIL, ADMIN_PASSWORD, Some("10.9.9.9")).await,
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

