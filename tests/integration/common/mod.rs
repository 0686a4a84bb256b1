//! A real server on port 0 with its own data directory, and a WebSocket client for it.
#![allow(dead_code)] // each test binary uses its own part of this

pub mod binary;
pub mod keys;
pub mod mcp;
pub mod model;
pub mod nginx;
pub mod postgres;
pub mod users;

use std::path::PathBuf;
use std::time::Duration;

use agora_hai::protocol::{Dialect, Event, verify};
use agora_hai::server::{AppState, Config};
use futures::{SinkExt, StreamExt};
use serde_json::{Value, json};
use tokio_tungstenite::tungstenite::Message as Frame;

/// Removed when dropped.
pub struct TempDir(pub PathBuf);

impl TempDir {
    pub fn new(prefix: &str) -> Self {
        let path = std::env::temp_dir().join(format!("{prefix}-{}", uuid::Uuid::new_v4()));
        std::fs::create_dir_all(&path).unwrap();
        Self(path)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

impl std::ops::Deref for TempDir {
    type Target = std::path::Path;
    fn deref(&self) -> &std::path::Path {
        &self.0
    }
}

impl AsRef<std::path::Path> for TempDir {
    fn as_ref(&self) -> &std::path::Path {
        &self.0
    }
}

pub struct TestServer {
    pub addr: std::net::SocketAddr,
    pub state: AppState,
    pub dir: TempDir,
    /// A client for requests to this server, one connection pool for the whole test.
    pub http: reqwest::Client,
}

impl TestServer {
    pub async fn start() -> Self {
        Self::start_with(|_| {}).await
    }

    /// Starts with a configuration adjusted by `configure`.
    pub async fn start_with(configure: impl FnOnce(&mut Config)) -> Self {
        Self::start_in(TempDir::new("agora-test"), configure).await
    }

    /// Starts over `dir` as it is, as a restarted server would.
    pub async fn start_in(dir: TempDir, configure: impl FnOnce(&mut Config)) -> Self {
        let mut config = Config::for_data_dir(&dir.0);
        configure(&mut config);
        let state = AppState::open(config).await.unwrap();
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let served = state.clone();
        tokio::spawn(async move {
            agora_hai::server::serve(listener, served, std::future::pending())
                .await
                .unwrap()
        });
        Self {
            addr,
            state,
            dir,
            http: reqwest::Client::new(),
        }
    }

    /// `POST /agui` with `input`, signed in with the API key `key` (`None`: as the request
    /// comes): the status and the events of the whole answer.
    pub async fn agui(
        &self,
        key: Option<&str>,
        input: &Value,
    ) -> (reqwest::StatusCode, Vec<Value>) {
        let mut request = self.http.post(self.url("/agui")).json(input);
        if let Some(key) = key {
            request = request.header("x-api-key", key);
        }
        let response = request.send().await.unwrap();
        let status = response.status();
        let body = tokio::time::timeout(Duration::from_secs(60), response.text())
            .await
            .expect("the /agui answer ends")
            .unwrap();
        (status, sse_events(&body))
    }

    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    pub async fn socket(&self) -> Socket {
        let (stream, _) = tokio_tungstenite::connect_async(format!("ws://{}/ws", self.addr))
            .await
            .unwrap();
        Socket { stream }
    }
}

pub struct Socket {
    stream: tokio_tungstenite::WebSocketStream<
        tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>,
    >,
}

impl Socket {
    pub async fn connect(url: &str) -> Self {
        let (stream, _) = tokio_tungstenite::connect_async(url).await.unwrap();
        Self { stream }
    }

    pub fn from_stream(
        stream: tokio_tungstenite::WebSocketStream<
            tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>,
        >,
    ) -> Self {
        Self { stream }
    }

    pub async fn send(&mut self, value: &Value) {
        self.send_text(value.to_string()).await;
    }

    pub async fn send_text(&mut self, text: String) {
        self.stream.send(Frame::Text(text.into())).await.unwrap();
    }

    pub async fn send_frame(&mut self, frame: Frame) {
        self.stream.send(frame).await.unwrap();
    }

    /// Starts a run on `thread` with one user message, as AGORA's client does.
    pub async fn ask(&mut self, thread: &str, text: &str) {
        self.send(&json!({ "threadId": thread, "messages": [{ "role": "user", "content": text }], "context": {} })).await;
    }

    /// The next event; fails the test after 30 s of silence.
    pub async fn next(&mut self) -> Value {
        loop {
            let frame = tokio::time::timeout(Duration::from_secs(30), self.stream.next())
                .await
                .expect("no event within 30 s")
                .expect("socket closed")
                .expect("socket error");
            match frame {
                Frame::Text(text) => return serde_json::from_str(&text).unwrap(),
                Frame::Ping(_) | Frame::Pong(_) => continue,
                other => panic!("unexpected frame {other:?}"),
            }
        }
    }

    /// Every event that arrives until the socket is quiet for `quiet` (or closes).
    pub async fn events_until_quiet(&mut self, quiet: Duration) -> Vec<Value> {
        let mut events = Vec::new();
        while let Ok(Some(Ok(frame))) = tokio::time::timeout(quiet, self.stream.next()).await {
            if let Frame::Text(text) = frame {
                events.push(serde_json::from_str(&text).unwrap());
            }
        }
        events
    }

    /// Events up to and including the first that `stop` accepts.
    pub async fn until(&mut self, stop: impl Fn(&Value) -> bool) -> Vec<Value> {
        let mut events = Vec::new();
        loop {
            let event = self.next().await;
            let done = stop(&event);
            events.push(event);
            if done {
                return events;
            }
        }
    }

    pub async fn until_finished(&mut self) -> Vec<Value> {
        self.until(|e| e["type"] == "RUN_FINISHED").await
    }

    pub async fn until_approval_request(&mut self) -> Vec<Value> {
        self.until(|e| e["type"] == "CUSTOM" && e["name"] == "agora:tool_approval_request")
            .await
    }

    pub async fn answer_approval(
        &mut self,
        approval_id: &str,
        approved: bool,
        feedback: Option<&str>,
    ) {
        let value =
            json!({ "approvalId": approval_id, "approved": approved, "feedback": feedback });
        self.send(
            &json!({ "type": "CUSTOM", "name": "agora:tool_approval_response", "value": value }),
        )
        .await;
    }

    /// Reads past events to the server's close: its code and reason, or None when the
    /// connection ended without a close frame. Fails the test if the server keeps it open.
    pub async fn closed_by_server(&mut self, within: Duration) -> Option<(u16, String)> {
        let deadline = tokio::time::Instant::now() + within;
        loop {
            let frame = tokio::time::timeout_at(deadline, self.stream.next())
                .await
                .expect("the server did not close the socket in time");
            match frame {
                Some(Ok(Frame::Close(Some(close)))) => {
                    return Some((close.code.into(), close.reason.to_string()));
                }
                Some(Ok(Frame::Close(None))) | None | Some(Err(_)) => return None,
                Some(Ok(_)) => continue,
            }
        }
    }

    /// The next `agora:error`'s code.
    pub async fn error_code(&mut self) -> String {
        let event = self.next().await;
        assert_eq!(
            event["name"], "agora:error",
            "expected agora:error, got {event}"
        );
        event["value"]["errorCode"].as_str().unwrap().to_owned()
    }
}

/// Asserts that the stream passes the AGORA verifier and the official models (see
/// [`assert_official`]), and returns it typed.
pub fn assert_agora_clean(events: &[Value]) -> Vec<Event> {
    let typed: Vec<Event> = events
        .iter()
        .map(|e| serde_json::from_value(e.clone()).unwrap())
        .collect();
    let violations = verify(&typed, Dialect::Agora);
    assert!(
        violations.is_empty(),
        "verifier: {violations:#?}\nevents: {events:#?}"
    );
    assert_official("agora", events);
    typed
}

/// The official checker, one Python process per test binary: `scripts/validate_events.py`
/// in the venv `make test` sets up (`ag-ui-protocol` 1.0.0 from PyPI, and `jsonschema` for
/// `agora-contract/schemas/messages.json`).
struct Official {
    child: std::process::Child,
    stdin: std::process::ChildStdin,
    stdout: std::io::BufReader<std::process::ChildStdout>,
}

static OFFICIAL: std::sync::OnceLock<std::sync::Mutex<Official>> = std::sync::OnceLock::new();

fn official() -> &'static std::sync::Mutex<Official> {
    OFFICIAL.get_or_init(|| {
        let python = std::env::var_os("AGORA_AGUI_PYTHON")
            .map(PathBuf::from)
            .unwrap_or_else(|| {
                let cache = std::env::var_os("XDG_CACHE_HOME")
                    .map(PathBuf::from)
                    .unwrap_or_else(|| PathBuf::from(std::env::var("HOME").unwrap()).join(".cache"));
                cache.join("agora-hai/agui-venv/bin/python")
            });
        let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
        let mut child = std::process::Command::new(&python)
            .arg(root.join("scripts/validate_events.py"))
            .arg(root.join("../shared/agora-contract/schemas/messages.json"))
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| {
                panic!(
                    "{} cannot run ({e}): `scripts/setup.sh test` installs the official AG-UI models",
                    python.display()
                )
            });
        let stdin = child.stdin.take().unwrap();
        let stdout = std::io::BufReader::new(child.stdout.take().unwrap());
        std::sync::Mutex::new(Official {
            child,
            stdin,
            stdout,
        })
    })
}

/// Asserts that every event of the stream validates with the official AG-UI 1.0 models
/// (PyPI `ag-ui-protocol`); `standard` streams may carry nothing those models lack, `agora`
/// ones must also fit the original contract's `messages.json`.
pub fn assert_official<T: serde::Serialize + ?Sized>(dialect: &str, events: &T) {
    use std::io::{BufRead, Write};
    let mut official = official().lock().unwrap_or_else(|p| p.into_inner());
    let request = json!({ "dialect": dialect, "events": events });
    writeln!(official.stdin, "{request}").expect("the checker reads");
    let mut answer = String::new();
    official
        .stdout
        .read_line(&mut answer)
        .expect("the checker answers");
    let answer: Value = serde_json::from_str(&answer).unwrap_or_else(|e| {
        let status = official.child.try_wait();
        panic!("the checker said {answer:?} ({e}; {status:?})")
    });
    let problems = answer["problems"].as_array().unwrap();
    assert!(
        problems.is_empty(),
        "the official models refuse the stream: {problems:#?}"
    );
}

/// All text streamed in these events.
pub fn streamed_text(events: &[Value]) -> String {
    events
        .iter()
        .filter(|e| e["type"] == "TEXT_MESSAGE_CONTENT")
        .map(|e| e["delta"].as_str().unwrap())
        .collect()
}

pub fn of_type<'a>(events: &'a [Value], kind: &str) -> Vec<&'a Value> {
    events.iter().filter(|e| e["type"] == kind).collect()
}

/// Every string anywhere in a JSON value.
pub fn strings(value: &Value) -> Vec<&str> {
    match value {
        Value::String(s) => vec![s.as_str()],
        Value::Array(items) => items.iter().flat_map(strings).collect(),
        Value::Object(map) => map.values().flat_map(strings).collect(),
        _ => Vec::new(),
    }
}

/// Runs one turn on `socket`, approving any approval request; returns the events up to
/// RUN_FINISHED. When the turn ends with the verification questions asked before a report
/// (`extract_inspection_data` with questions), it answers "Genereer toch" and returns both
/// runs' events: the tests that are not about the verification get their report as before.
pub async fn turn_approving(socket: &mut Socket, thread: &str, text: &str) -> Vec<Value> {
    let mut events = turn_approving_once(socket, thread, text).await;
    if verification_asked(&events) {
        events.extend(turn_approving_once(socket, thread, "Genereer toch").await);
    }
    events
}

/// Whether this run asked the verification questions (and so made no report yet).
pub fn verification_asked(events: &[Value]) -> bool {
    let asked: Vec<&str> = of_type(events, "TOOL_CALL_START")
        .iter()
        .filter(|e| e["toolCallName"] == "extract_inspection_data")
        .filter_map(|e| e["toolCallId"].as_str())
        .collect();
    of_type(events, "TOOL_CALL_RESULT").iter().any(|r| {
        asked.contains(&r["toolCallId"].as_str().unwrap_or_default())
            && serde_json::from_str::<Value>(r["content"].as_str().unwrap_or_default())
                .ok()
                .and_then(|c| c["questions"].as_array().map(|q| !q.is_empty()))
                .unwrap_or(false)
    })
}

/// Runs one turn on `socket`, approving any approval request; returns the events up to
/// RUN_FINISHED.
pub async fn turn_approving_once(socket: &mut Socket, thread: &str, text: &str) -> Vec<Value> {
    socket.ask(thread, text).await;
    let mut events = Vec::new();
    loop {
        let event = socket.next().await;
        if event["type"] == "CUSTOM" && event["name"] == "agora:tool_approval_request" {
            let id = event["value"]["approvalId"].as_str().unwrap().to_owned();
            socket.answer_approval(&id, true, None).await;
        }
        let done = event["type"] == "RUN_FINISHED";
        events.push(event);
        if done {
            return events;
        }
    }
}

/// The `data:` events of a finished SSE body (a JSON value a frame; comments and ids skipped).
pub fn sse_events(body: &str) -> Vec<Value> {
    body.lines()
        .filter_map(|line| line.strip_prefix("data:"))
        .map(|data| serde_json::from_str(data.trim()).expect("each data frame is JSON"))
        .collect()
}
