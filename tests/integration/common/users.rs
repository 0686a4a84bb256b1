//! Signing in as people do: `--auth users` with a configured admin, the sign-in form, and
//! sockets opened with the session cookie.

use reqwest::StatusCode;
use reqwest::header::{COOKIE, SET_COOKIE};
use serde_json::Value;
use tokio_tungstenite::tungstenite::Message as Frame;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;

use super::{Socket, TestServer};

pub const ADMIN_EMAIL: &str = "beheer@nvwa.nl";
pub const ADMIN_PASSWORD: &str = "correct horse battery staple";

pub async fn users_server() -> TestServer {
    TestServer::start_with(|c| {
        c.auth = agora_hai::server::auth::AuthMode::Users;
        c.admin_email = Some(ADMIN_EMAIL.to_owned());
        c.admin_password = Some(ADMIN_PASSWORD.to_owned());
    })
    .await
}

pub fn client() -> reqwest::Client {
    reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap()
}

/// Signs in through the form and returns the session cookie (`name=value`).
pub async fn sign_in(server: &TestServer, email: &str, password: &str) -> Option<String> {
    let response = client()
        .post(server.url("/login"))
        .form(&[("email", email), ("password", password)])
        .send()
        .await
        .unwrap();
    let cookie = response
        .headers()
        .get(SET_COOKIE)?
        .to_str()
        .unwrap()
        .to_owned();
    assert!(
        cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict"),
        "{cookie}"
    );
    assert_eq!(response.status(), StatusCode::SEE_OTHER);
    Some(cookie.split(';').next().unwrap().to_owned())
}

pub async fn get(server: &TestServer, path: &str, cookie: Option<&str>) -> (StatusCode, Value) {
    let mut request = client().get(server.url(path));
    if let Some(cookie) = cookie {
        request = request.header(COOKIE, cookie);
    }
    let response = request.send().await.unwrap();
    let status = response.status();
    (status, response.json().await.unwrap_or(Value::Null))
}

/// Opens /ws with extra headers; returns the socket or the close code it got straight away.
pub async fn open_socket(
    server: &TestServer,
    query: &str,
    headers: &[(&str, &str)],
) -> Result<Socket, u16> {
    let mut request = format!("ws://{}/ws{query}", server.addr)
        .into_client_request()
        .unwrap();
    for (name, value) in headers {
        let name = reqwest::header::HeaderName::from_bytes(name.as_bytes()).unwrap();
        request.headers_mut().insert(name, value.parse().unwrap());
    }
    let (mut stream, _) = match tokio_tungstenite::connect_async(request).await {
        Ok(connected) => connected,
        Err(tokio_tungstenite::tungstenite::Error::Http(response)) => {
            return Err(response.status().as_u16());
        }
        Err(e) => panic!("{e}"),
    };
    // An unauthorised socket is closed at once with a code.
    use futures::StreamExt;
    match tokio::time::timeout(std::time::Duration::from_millis(300), stream.next()).await {
        Ok(Some(Ok(Frame::Close(Some(frame))))) => Err(u16::from(frame.code)),
        Ok(other) => panic!("unexpected {other:?}"),
        Err(_) => Ok(Socket::from_stream(stream)),
    }
}
