//! Denial of service by one client (issue 15, items 1 and 2), tried on a real server over
//! loopback: slow headers, idle connections, connection caps, too many sockets, and a socket
//! that never reads what it asked for. Limits are set low so each attack is short.

#![cfg(feature = "ssr")]

use crate::common;
use crate::common::keys::{KOEN, with_keys};

use std::time::Duration;

use common::{Socket, TestServer};
use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// Generous: each limit below is one or two seconds, this only stops a hung test.
const SERVER_MUST_CLOSE_WITHIN: Duration = Duration::from_secs(30);

/// Reads until the server closes the connection; what it sent before closing.
async fn read_to_close(tcp: &mut TcpStream) -> String {
    let mut received = Vec::new();
    let mut buffer = [0u8; 4096];
    loop {
        let read = tokio::time::timeout(SERVER_MUST_CLOSE_WITHIN, tcp.read(&mut buffer))
            .await
            .expect("the server kept the connection open");
        match read {
            Ok(0) | Err(_) => return String::from_utf8_lossy(&received).into_owned(),
            Ok(n) => received.extend_from_slice(&buffer[..n]),
        }
    }
}

#[tokio::test]
async fn headers_sent_one_line_at_a_time_are_cut_off() {
    let server = TestServer::start_with(|c| c.header_read_timeout_secs = 1).await;
    let mut tcp = TcpStream::connect(server.addr).await.unwrap();
    tcp.write_all(b"GET /health HTTP/1.1\r\nHost: localhost\r\n")
        .await
        .unwrap();
    // The slowloris pattern: a header line now and then keeps a naive server waiting forever.
    let mut lines_sent = 0;
    let closed = loop {
        let mut byte = [0u8; 1];
        match tokio::time::timeout(Duration::from_millis(300), tcp.read(&mut byte)).await {
            Ok(Ok(0) | Err(_)) => break true,
            Ok(Ok(_)) => panic!("the server answered a request whose headers never ended"),
            Err(_) => {}
        }
        if lines_sent == 100 {
            break false;
        }
        if tcp
            .write_all(format!("X-Slow-{lines_sent}: 1\r\n").as_bytes())
            .await
            .is_err()
        {
            break true;
        }
        lines_sent += 1;
    };
    assert!(closed, "still open after {lines_sent} header lines (30 s)");
    assert!(lines_sent < 20, "{lines_sent} lines before the cut-off");
}

#[tokio::test]
async fn an_idle_keep_alive_connection_is_closed() {
    let server = TestServer::start_with(|c| c.header_read_timeout_secs = 1).await;
    let mut tcp = TcpStream::connect(server.addr).await.unwrap();
    tcp.write_all(b"GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n")
        .await
        .unwrap();
    // The response, then nothing more from the client: the server ends the connection.
    let received = read_to_close(&mut tcp).await;
    assert!(received.starts_with("HTTP/1.1 200"), "{received}");
}

#[tokio::test]
async fn one_address_cannot_take_every_connection() {
    let server = TestServer::start_with(|c| c.max_connections_per_address = 3).await;
    let mut held = Vec::new();
    for _ in 0..3 {
        held.push(TcpStream::connect(server.addr).await.unwrap());
    }
    let mut fourth = TcpStream::connect(server.addr).await.unwrap();
    let answer = read_to_close(&mut fourth).await;
    assert!(answer.starts_with("HTTP/1.1 429"), "{answer}");
    assert!(
        answer.to_ascii_lowercase().contains("retry-after"),
        "{answer}"
    );
    assert!(answer.contains(r#""error""#), "{answer}");

    // Closing one gives its place back.
    drop(held.pop());
    let health = poll_until_ok(&server).await;
    assert_eq!(health, 200);
}

#[tokio::test]
async fn the_server_full_is_a_clear_503_not_a_hang() {
    let server = TestServer::start_with(|c| c.max_connections = 2).await;
    let _a = TcpStream::connect(server.addr).await.unwrap();
    let _b = TcpStream::connect(server.addr).await.unwrap();
    let mut third = TcpStream::connect(server.addr).await.unwrap();
    let answer = read_to_close(&mut third).await;
    assert!(answer.starts_with("HTTP/1.1 503"), "{answer}");
}

/// `/health` once a connection place is free again (the server frees it when it sees the close).
async fn poll_until_ok(server: &TestServer) -> u16 {
    for _ in 0..100 {
        if let Ok(response) = server.http.get(server.url("/health")).send().await {
            return response.status().as_u16();
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("/health never answered");
}

#[tokio::test]
async fn a_user_has_a_bounded_number_of_sockets() {
    let server = TestServer::start_with(|c| {
        with_keys(c);
        c.max_sockets_per_user = 2;
    })
    .await;
    let url = format!("ws://{}/ws?token={KOEN}", server.addr);
    let _a = Socket::connect(&url).await;
    let mut b = Socket::connect(&url).await;
    let mut c = Socket::connect(&url).await;
    let close = c.closed_by_server(SERVER_MUST_CLOSE_WITHIN).await;
    assert_eq!(close, Some((4029, "too many sockets".to_owned())));
    // The two that fit still work.
    b.send(&json!({ "type": "CUSTOM", "name": "agora:history_request", "value": { "threadId": "none-yet" } }))
        .await;
    assert_eq!(b.next().await["type"], "MESSAGES_SNAPSHOT");
}

#[tokio::test]
async fn a_socket_that_asks_for_history_and_never_reads_is_closed_and_freed() {
    let server = TestServer::start_with(|c| {
        with_keys(c);
        c.socket_queue_bytes = 256 * 1024;
        c.socket_send_timeout_secs = 1;
    })
    .await;
    // A thread with about 1 MB of history.
    let thread = "big-thread";
    server
        .state
        .db
        .open_thread(thread, "koen", "Grote inspectie")
        .await
        .unwrap();
    for n in 0..40 {
        let text = format!(
            "Bevinding {n}: {}",
            "koelcel te warm, 9 °C gemeten. ".repeat(800)
        );
        let message = serde_json::from_value(
            json!({ "id": format!("m{n}"), "role": "user", "content": text }),
        )
        .unwrap();
        server
            .state
            .db
            .append_message(thread, &message)
            .await
            .unwrap();
    }

    let url = format!("ws://{}/ws?token={KOEN}", server.addr);
    let mut greedy = Socket::connect(&url).await;
    // Asks again and again and never reads: the first answer (larger than the whole queue, which
    // takes it since it is empty) sticks in the socket, the rest are refused as one at a time.
    let request = json!({ "type": "CUSTOM", "name": "agora:history_request", "value": { "threadId": thread } });
    for _ in 0..200 {
        greedy.send(&request).await;
    }
    // The server gives up on it: the socket leaves the registry (its memory with it)...
    let deadline = tokio::time::Instant::now() + SERVER_MUST_CLOSE_WITHIN;
    while server.state.sockets.count("koen") > 0 {
        assert!(
            tokio::time::Instant::now() < deadline,
            "the server still holds the socket"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    // ...and the client, reading at last, finds it closed as too slow (or simply cut).
    if let Some((code, _)) = greedy.closed_by_server(SERVER_MUST_CLOSE_WITHIN).await {
        assert_eq!(code, 4008);
    }
    // Someone who reads is served as before.
    let mut reader = Socket::connect(&url).await;
    reader.send(&request).await;
    let snapshot = reader.next().await;
    assert_eq!(snapshot["messages"].as_array().unwrap().len(), 40);
}

#[tokio::test]
async fn a_frame_over_the_hard_limit_closes_with_1009_and_a_reason() {
    // Without photos in messages, so that the hard limit is the 2 MiB it is for text alone: a
    // frame past it by many MB is cut off while the client still writes it.
    let server = TestServer::start_with(|config| config.photos_per_message = 0).await;
    let mut socket = server.socket().await;
    // Over 2 MiB and what one message's photos may add (nothing here): not read at all, unlike
    // the 1 MiB protocol limit's agora:error.
    let hard = (2 << 20) + server.state.config.photo_limits().wire_allowance();
    let huge = format!(
        "{{\"threadId\":\"t\",\"messages\":[{{\"role\":\"user\",\"content\":\"{}\"}}]}}",
        "a".repeat(hard + 1024)
    );
    socket.send_text(huge).await;
    let close = socket.closed_by_server(SERVER_MUST_CLOSE_WITHIN).await;
    let (code, reason) = close.expect("the socket ended without a close frame (1005)");
    assert_eq!(code, 1009, "{reason}");
    assert!(reason.contains("too big"), "{reason}");
}
