//! The command layer decides once for both transports: the same limit, the same identity rule
//! and refusals in the language the client asks for, whether it came over `/ws` or `/agui`.

use crate::common;

use common::{Socket, TestServer};
use serde_json::{Value, json};
use tokio_tungstenite::tungstenite::client::IntoClientRequest;

fn id() -> String {
    uuid::Uuid::new_v4().to_string()
}

/// A socket whose upgrade request carries `headers`.
async fn socket_with(server: &TestServer, headers: &[(&'static str, &str)]) -> Socket {
    let mut request = format!("ws://{}/ws", server.addr)
        .into_client_request()
        .unwrap();
    for (name, value) in headers {
        request.headers_mut().insert(*name, value.parse().unwrap());
    }
    let (stream, _) = tokio_tungstenite::connect_async(request).await.unwrap();
    Socket::from_stream(stream)
}

/// The next `agora:error`'s value.
async fn next_error(socket: &mut Socket) -> Value {
    let events = socket
        .until(|e| e["type"] == "CUSTOM" && e["name"] == "agora:error")
        .await;
    events.last().unwrap()["value"].clone()
}

fn agui_question(thread: &str) -> Value {
    json!({
        "threadId": thread,
        "runId": id(),
        "messages": [{ "id": id(), "role": "user", "content": "Welke regels gelden voor allergenen?" }],
        "tools": [],
        "context": [],
    })
}

#[tokio::test]
async fn one_run_limit_decides_for_both_transports() {
    let server = TestServer::start_with(|c| c.runs_per_minute = 2).await;
    let mut socket = server.socket().await;
    socket
        .ask(&id(), "Welke regels gelden voor allergenen?")
        .await;
    socket.until_finished().await;
    let streamed = server
        .http
        .post(server.url("/agui"))
        .json(&agui_question(&id()))
        .send()
        .await
        .unwrap();
    assert_eq!(streamed.status(), 200);
    let _ = streamed.bytes().await.unwrap();

    // The third run of the minute, on either transport, meets the same limit.
    let refused = server
        .http
        .post(server.url("/agui"))
        .json(&agui_question(&id()))
        .send()
        .await
        .unwrap();
    assert_eq!(refused.status(), 429);
    let body: Value = refused.json().await.unwrap();
    assert!(
        body["detail"].as_str().unwrap().contains("2 a minute"),
        "{body}"
    );
    socket.ask(&id(), "En voor etikettering?").await;
    let error = next_error(&mut socket).await;
    assert_eq!(error["errorCode"], "rate_limited");
    assert!(
        error["message"].as_str().unwrap().contains("2 per minuut"),
        "{error}"
    );
    assert_eq!(error["details"]["limitPerMinute"], 2);
}

#[tokio::test]
async fn refusals_are_in_the_language_the_client_asks_for() {
    let server = TestServer::start().await;
    let missing = |lang: Option<&str>| {
        let mut request = server.http.get(server.url("/agui/runs/run-nergens/events"));
        if let Some(lang) = lang {
            request = request.header("accept-language", lang);
        }
        request.send()
    };
    // `/agui` speaks English unless asked otherwise.
    let english = missing(None).await.unwrap();
    assert_eq!(english.status(), 404);
    assert_eq!(
        english.json::<Value>().await.unwrap(),
        json!({ "detail": "Run run-nergens not found" })
    );
    let dutch = missing(Some("nl-NL,nl;q=0.9,en;q=0.5")).await.unwrap();
    assert_eq!(dutch.status(), 404);
    assert_eq!(
        dutch.json::<Value>().await.unwrap(),
        json!({ "detail": "Run run-nergens bestaat niet" })
    );

    // `/ws` speaks Dutch, the contract's language, unless the page asks for English: by its
    // language cookie or `Accept-Language`.
    let resume = |thread: &str| json!({ "type": "CUSTOM", "name": "agora:resume", "value": { "threadId": thread } });
    let mut plain = server.socket().await;
    plain.send(&resume(&id())).await;
    let error = next_error(&mut plain).await;
    assert_eq!(error["errorCode"], "thread_not_found");
    assert_eq!(error["message"], "Dit gesprek bestaat niet.");
    for (header, value) in [
        ("accept-language", "en-GB,en;q=0.9"),
        ("cookie", "hai_lang=en"),
    ] {
        let mut english = socket_with(&server, &[(header, value)]).await;
        english.send(&resume(&id())).await;
        let error = next_error(&mut english).await;
        assert_eq!(error["errorCode"], "thread_not_found", "{header}");
        assert_eq!(
            error["message"], "This conversation does not exist.",
            "{header}"
        );
    }
    // The cookie (the page's own switch) wins over the browser's languages.
    let mut switched = socket_with(
        &server,
        &[("accept-language", "en"), ("cookie", "hai_lang=nl")],
    )
    .await;
    switched
        .send(&json!({ "type": "CUSTOM", "name": "agora:cancel_run", "value": {} }))
        .await;
    let error = next_error(&mut switched).await;
    assert_eq!(error["errorCode"], "no_active_run");
    assert_eq!(error["message"], "Er loopt geen run om te stoppen.");
}

#[tokio::test]
async fn in_dev_mode_a_message_names_its_user_on_both_transports() {
    let server = TestServer::start().await;
    let (by_socket, by_stream) = (id(), id());
    let mut socket = server.socket().await;
    socket
        .send(&json!({
            "threadId": by_socket,
            "userId": "koen",
            "messages": [{ "role": "user", "content": "Welke regels gelden voor allergenen?" }],
            "context": {},
        }))
        .await;
    socket.until_finished().await;
    let mut input = agui_question(&by_stream);
    input["userId"] = json!("koen");
    let streamed = server
        .http
        .post(server.url("/agui"))
        .json(&input)
        .send()
        .await
        .unwrap();
    assert_eq!(streamed.status(), 200);
    let _ = streamed.bytes().await.unwrap();

    let sessions: Value = server
        .http
        .get(server.url("/sessions?user_id=koen"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let mut ids: Vec<&str> = sessions["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["sessionId"].as_str().unwrap())
        .collect();
    ids.sort_unstable();
    let mut expected = vec![by_socket.as_str(), by_stream.as_str()];
    expected.sort_unstable();
    assert_eq!(ids, expected);
}
