//! Standard AG-UI over `POST /agui` on a real server: SSE framing and keep-alive, every flow
//! checked by the standard verifier, interrupts and `resume` (and their errors), abort by
//! closing the connection, the cancel endpoint and a client tool's round trip.

use crate::common;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use agora_hai::orchestrator::store::RunStatus;
use agora_hai::protocol::{Dialect, Event, verify};
use agora_hai::server::sse::{Settings, routes_with};
use agora_hai::server::{AppState, Config, router};
use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::routing::post;
use common::{TempDir, TestServer};
use serde_json::{Value, json};

// ---------------------------------------------------------------------------------------------
// An SSE client that keeps what came over the wire.

/// One frame of the stream.
#[derive(Debug, Clone, PartialEq)]
enum Frame {
    /// The JSON of a `data:` frame.
    Data(String),
    /// A `:` comment (keep-alive).
    Comment(String),
}

/// An incremental parser: frames end at a blank line, wherever the reads split them.
#[derive(Default)]
struct Parser {
    buffer: Vec<u8>,
    /// The `id:` of every event, in order.
    ids: Vec<u64>,
}

impl Parser {
    fn feed(&mut self, bytes: &[u8]) -> Vec<Frame> {
        self.buffer.extend_from_slice(bytes);
        let mut frames = Vec::new();
        while let Some(end) = self.buffer.windows(2).position(|w| w == b"\n\n") {
            let raw: Vec<u8> = self.buffer.drain(..end + 2).collect();
            let text = std::str::from_utf8(&raw[..end]).expect("frames are UTF-8");
            let mut data = Vec::new();
            let mut comment = None;
            for line in text.split('\n') {
                if let Some(rest) = line.strip_prefix("data: ") {
                    data.push(rest);
                } else if let Some(rest) = line.strip_prefix("id: ") {
                    self.ids.push(rest.parse().expect("an id is a number"));
                } else if let Some(rest) = line.strip_prefix(':') {
                    comment = Some(rest.trim().to_owned());
                } else {
                    panic!("unexpected line in an SSE frame: {line:?}");
                }
            }
            match (data.is_empty(), comment) {
                (false, None) => {
                    assert_eq!(data.len(), 1, "one data line per event: {text:?}");
                    frames.push(Frame::Data(data[0].to_owned()));
                }
                (true, Some(comment)) => frames.push(Frame::Comment(comment)),
                _ => panic!("a frame is either data or a comment: {text:?}"),
            }
        }
        frames
    }
}

struct SseStream {
    response: reqwest::Response,
    parser: Parser,
    /// Every network read, as it arrived.
    reads: Vec<Bytes>,
    pending: std::collections::VecDeque<Frame>,
}

impl SseStream {
    /// The next frame, `None` at the end of the body; fails after 30 s of silence.
    async fn next_frame(&mut self) -> Option<Frame> {
        loop {
            if let Some(frame) = self.pending.pop_front() {
                return Some(frame);
            }
            let read = tokio::time::timeout(Duration::from_secs(30), self.response.chunk())
                .await
                .expect("nothing within 30 s")
                .expect("the body reads");
            let read = read?;
            self.pending.extend(self.parser.feed(&read));
            self.reads.push(read);
        }
    }

    /// The next event, skipping comments.
    async fn next_event(&mut self) -> Option<Value> {
        loop {
            match self.next_frame().await? {
                Frame::Data(json) => return Some(serde_json::from_str(&json).unwrap()),
                Frame::Comment(_) => continue,
            }
        }
    }

    /// Events up to and including the first that `stop` accepts.
    async fn until(&mut self, stop: impl Fn(&Value) -> bool) -> Vec<Value> {
        let mut events = Vec::new();
        while let Some(event) = self.next_event().await {
            let done = stop(&event);
            events.push(event);
            if done {
                break;
            }
        }
        events
    }

    /// Every event until the server ends the response.
    async fn all(&mut self) -> Vec<Value> {
        self.until(|_| false).await
    }
}

async fn post_run(base: &str, input: &Value) -> SseStream {
    let response = reqwest::Client::new()
        .post(format!("{base}/agui"))
        .header("accept", "text/event-stream")
        .json(input)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    SseStream {
        response,
        parser: Parser::default(),
        reads: Vec::new(),
        pending: Default::default(),
    }
}

/// A whole run: posts the input and reads until the server closes the stream, then checks it
/// with the standard verifier.
async fn run(base: &str, input: &Value) -> Vec<Value> {
    let events = post_run(base, input).await.all().await;
    assert_standard(&events);
    events
}

/// AG-UI 1.0 subagents: each invocation's events carry its id, nothing outside one does, and
/// every invocation ends. Returns the SUBAGENT_STARTED and SUBAGENT_FINISHED events.
fn subagents(events: &[Value]) -> (Vec<Value>, Vec<Value>) {
    let mut open: Option<String> = None;
    let (mut started, mut finished) = (Vec::new(), Vec::new());
    for event in events {
        match event["type"].as_str().unwrap() {
            "SUBAGENT_STARTED" => {
                assert!(open.is_none(), "one invocation at a time: {event}");
                open = Some(event["subagentRunId"].as_str().unwrap().to_owned());
                started.push(event.clone());
            }
            "SUBAGENT_FINISHED" | "SUBAGENT_ERROR" => {
                assert_eq!(
                    open.take().as_deref(),
                    event["subagentRunId"].as_str(),
                    "{event}"
                );
                finished.push(event.clone());
            }
            "RUN_STARTED" | "RUN_FINISHED" | "RUN_ERROR" | "MESSAGES_SNAPSHOT" => {
                assert!(event.get("subagentRunId").is_none(), "{event}");
            }
            _ => assert_eq!(
                event.get("subagentRunId").and_then(Value::as_str),
                open.as_deref(),
                "owned by the open invocation: {event}"
            ),
        }
    }
    assert!(open.is_none(), "every invocation ends");
    (started, finished)
}

fn assert_standard(events: &[Value]) {
    let typed: Vec<Event> = events
        .iter()
        .map(|e| serde_json::from_value(e.clone()).unwrap())
        .collect();
    let violations = verify(&typed, Dialect::Standard);
    assert!(
        violations.is_empty(),
        "verifier: {violations:#?}\nevents: {events:#?}"
    );
    let last = events.last().expect("at least one event");
    assert!(
        matches!(last["type"].as_str(), Some("RUN_FINISHED" | "RUN_ERROR")),
        "the stream ends with the run: {last}"
    );
    let errors = of_type(events, "RUN_ERROR").len();
    assert!(errors <= 1 && (errors == 0 || last["type"] == "RUN_ERROR"));
    subagents(events);
    common::assert_official("standard", &events);
    // AG-UI 1.0: an optional field is left out, never `null`.
    fn no_null(value: &Value, path: &str) {
        match value {
            Value::Null => panic!("null at {path}"),
            Value::Array(items) => {
                for (i, item) in items.iter().enumerate() {
                    no_null(item, &format!("{path}[{i}]"));
                }
            }
            Value::Object(fields) => {
                // The application's own data (state, patches, custom values) may hold nulls.
                let data = ["snapshot", "delta", "input", "value", "rawEvent", "result"];
                for (key, item) in fields.iter().filter(|(k, _)| !data.contains(&k.as_str())) {
                    no_null(item, &format!("{path}.{key}"));
                }
            }
            _ => {}
        }
    }
    for (i, event) in events.iter().enumerate() {
        no_null(event, &format!("event {i} ({})", event["type"]));
    }
}

fn of_type<'a>(events: &'a [Value], kind: &str) -> Vec<&'a Value> {
    events.iter().filter(|e| e["type"] == kind).collect()
}

fn text(events: &[Value]) -> String {
    of_type(events, "TEXT_MESSAGE_CONTENT")
        .iter()
        .map(|e| e["delta"].as_str().unwrap())
        .collect()
}

fn id() -> String {
    uuid::Uuid::new_v4().to_string()
}

/// A client conversation: sends its whole history each time, as `@ag-ui/client` does, and
/// applies what comes back (MESSAGES_SNAPSHOT, text, tool results).
struct Client {
    base: String,
    thread: String,
    messages: Vec<Value>,
    tools: Vec<Value>,
}

impl Client {
    fn new(base: &str) -> Self {
        Self {
            base: base.to_owned(),
            thread: id(),
            messages: Vec::new(),
            tools: Vec::new(),
        }
    }

    fn input(&self, resume: Option<Value>) -> Value {
        let mut input = json!({
            "threadId": self.thread,
            "runId": id(),
            "messages": self.messages,
            "tools": self.tools,
            "context": [],
            "state": {},
            "forwardedProps": {},
        });
        if let Some(resume) = resume {
            input["resume"] = resume;
        }
        input
    }

    async fn say(&mut self, text: &str) -> Vec<Value> {
        self.messages
            .push(json!({ "id": id(), "role": "user", "content": text }));
        self.send(None).await
    }

    async fn send(&mut self, resume: Option<Value>) -> Vec<Value> {
        let events = run(&self.base, &self.input(resume)).await;
        self.apply(&events);
        events
    }

    fn apply(&mut self, events: &[Value]) {
        for event in events {
            match event["type"].as_str().unwrap() {
                "MESSAGES_SNAPSHOT" => {
                    self.messages = event["messages"].as_array().unwrap().clone()
                }
                "TEXT_MESSAGE_START" => self.messages.push(json!({
                    "id": event["messageId"], "role": "assistant", "content": ""
                })),
                "TEXT_MESSAGE_CONTENT" => {
                    let message = self.messages.last_mut().unwrap();
                    let content = format!(
                        "{}{}",
                        message["content"].as_str().unwrap(),
                        event["delta"].as_str().unwrap()
                    );
                    message["content"] = json!(content);
                }
                "TOOL_CALL_START" => self.messages.push(json!({
                    "id": id(), "role": "assistant", "toolCalls": [{
                        "id": event["toolCallId"], "type": "function",
                        "function": { "name": event["toolCallName"], "arguments": "" }
                    }]
                })),
                "TOOL_CALL_ARGS" => {
                    let message = self.messages.last_mut().unwrap();
                    message["toolCalls"][0]["function"]["arguments"] = event["delta"].clone();
                }
                "TOOL_CALL_RESULT" => self.messages.push(json!({
                    "id": event["messageId"], "role": "tool",
                    "toolCallId": event["toolCallId"], "content": event["content"]
                })),
                _ => {}
            }
        }
    }
}

/// The interrupts of a stream's RUN_FINISHED.
fn interrupts(events: &[Value]) -> Vec<Value> {
    let finished = events.last().unwrap();
    assert_eq!(finished["type"], "RUN_FINISHED");
    assert_eq!(finished["outcome"]["type"], "interrupt", "{finished}");
    finished["outcome"]["interrupts"]
        .as_array()
        .unwrap()
        .clone()
}

/// An inspection with a finding, the report asked for: the verification questions come first
/// (on this dialect too), the inspector skips them, and the report's call is the interrupt.
async fn up_to_the_report_interrupt(client: &mut Client) -> (Vec<Value>, Value) {
    client
        .say("Start inspectie bij Trattoria Finta Fiore, KVK 99990001")
        .await;
    client
        .say("Bevinding: rauwe vis naast groenten bewaard op 12 °C")
        .await;
    let asked = client.say("Genereer het inspectierapport").await;
    let finished = asked.last().unwrap();
    assert_eq!(finished["type"], "RUN_FINISHED");
    assert!(
        finished.get("outcome").is_none(),
        "questions before the report"
    );
    assert!(
        text(&asked).contains("Voordat ik het rapport maak"),
        "{}",
        text(&asked)
    );
    let events = client.say("Genereer toch").await;
    let found = interrupts(&events);
    assert_eq!(found.len(), 1);
    (events, found[0].clone())
}

fn approve(interrupt: &Value, approved: bool, feedback: Option<&str>) -> Value {
    let mut payload = json!({ "approved": approved });
    if let Some(feedback) = feedback {
        payload["feedback"] = json!(feedback);
    }
    json!([{ "interruptId": interrupt["id"], "status": "resolved", "payload": payload }])
}

fn reports_written(server: &TestServer) -> usize {
    std::fs::read_dir(server.dir.0.join("reports"))
        .map(|d| {
            d.filter(|e| {
                e.as_ref()
                    .is_ok_and(|e| e.path().extension().is_some_and(|x| x == "pdf"))
            })
            .count()
        })
        .unwrap_or(0)
}

// ---------------------------------------------------------------------------------------------
// A server whose model never answers, for what happens while a run waits.

#[derive(Clone, Default)]
struct Silent {
    requests: Arc<Mutex<Vec<Value>>>,
}

async fn never_answer(State(silent): State<Silent>, body: Bytes) -> &'static str {
    silent
        .requests
        .lock()
        .unwrap()
        .push(serde_json::from_slice(&body).unwrap());
    std::future::pending::<()>().await;
    unreachable!()
}

struct Waiting {
    base: String,
    state: AppState,
    silent: Silent,
    _dir: TempDir,
}

/// The app (or only the `/agui` routes with `settings`) on a port, with a model that hangs.
async fn waiting_server(settings: Option<Settings>) -> Waiting {
    let silent = Silent::default();
    let fake = Router::new()
        .route("/v1/chat/completions", post(never_answer))
        .with_state(silent.clone());
    let fake_listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let fake_addr = fake_listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(fake_listener, fake).await.unwrap() });

    let dir = TempDir::new("agora-sse");
    let mut config = Config::for_data_dir(&dir.0);
    config.llm_base_url = Some(format!("http://{fake_addr}/v1"));
    let state = AppState::open(config).await.unwrap();
    let app = match settings {
        Some(settings) => routes_with(settings).with_state(state.clone()),
        None => router(state.clone()),
    };
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    Waiting {
        base: format!("http://{addr}"),
        state,
        silent,
        _dir: dir,
    }
}

fn question(thread: &str, run: &str) -> Value {
    json!({
        "threadId": thread,
        "runId": run,
        "messages": [{ "id": id(), "role": "user", "content": "Welke regels gelden voor allergenen?" }],
        "tools": [],
        "context": [],
    })
}

/// Reattaches to a run's stream, from `last_event_id` when given.
async fn reattach(base: &str, run_id: &str, last_event_id: Option<&str>) -> reqwest::Response {
    let mut request = reqwest::Client::new()
        .get(format!("{base}/agui/runs/{run_id}/events"))
        .header("accept", "text/event-stream");
    if let Some(id) = last_event_id {
        request = request.header("last-event-id", id);
    }
    request.send().await.unwrap()
}

fn stream_of(response: reqwest::Response) -> SseStream {
    assert_eq!(response.status(), 200);
    SseStream {
        response,
        parser: Parser::default(),
        reads: Vec::new(),
        pending: Default::default(),
    }
}

/// The run's stored status once it is no longer running (waits up to 10 s).
async fn final_status(state: &AppState, thread: &str, run_id: &str) -> RunStatus {
    for _ in 0..200 {
        let runs = state.db.runs(thread).await.unwrap();
        if let Some(run) = runs.iter().find(|r| r.id == run_id)
            && run.status != RunStatus::Running
        {
            return run.status;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("run {run_id} still running");
}

// ---------------------------------------------------------------------------------------------
// Transport.

#[tokio::test]
async fn each_event_is_one_data_frame_whatever_the_reads() {
    let server = TestServer::start().await;
    let thread = id();
    let input = json!({
        "threadId": thread,
        "runId": "run-framing",
        "messages": [{ "id": id(), "role": "user", "content": "Start inspectie bij Trattoria Finta Fiore" }],
        "tools": [],
        "context": [],
    });
    let response = reqwest::Client::new()
        .post(server.url("/agui"))
        .header("accept", "text/event-stream")
        .json(&input)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    let headers = response.headers();
    assert_eq!(headers["content-type"], "text/event-stream");
    assert_eq!(headers["cache-control"], "no-cache");
    assert_eq!(headers["x-accel-buffering"], "no");
    assert!(
        headers.get("content-encoding").is_none(),
        "never compressed"
    );
    let mut stream = SseStream {
        response,
        parser: Parser::default(),
        reads: Vec::new(),
        pending: Default::default(),
    };
    let events = stream.all().await;
    assert_standard(&events);
    assert_eq!(events[0]["type"], "RUN_STARTED");
    assert_eq!(events[0]["runId"], "run-framing");
    assert_eq!(events[0]["threadId"], thread.as_str());
    assert!(text(&events).contains("Finta Fiore"));

    // The bytes are nothing but `data: <json>\nid: <n>\n\n` frames, each JSON on one line.
    let wire: Vec<u8> = stream.reads.concat();
    let body = std::str::from_utf8(&wire).unwrap();
    assert!(body.ends_with("\n\n"));
    let frames: Vec<&str> = body.trim_end_matches("\n\n").split("\n\n").collect();
    assert_eq!(frames.len(), events.len());
    for (frame, event) in frames.iter().zip(&events) {
        let (json, id) = frame.split_once("\nid: ").expect("a data frame with an id");
        let json = json.strip_prefix("data: ").expect("a data frame");
        assert!(!json.contains('\n'));
        assert!(id.parse::<u64>().is_ok(), "{id}");
        assert_eq!(&serde_json::from_str::<Value>(json).unwrap(), event);
    }
    // Split anywhere (one byte, seven bytes, uneven pieces), the frames are the same.
    let whole = Parser::default().feed(&wire);
    for size in [1, 7, 4096] {
        let mut parser = Parser::default();
        let pieces: Vec<Frame> = wire.chunks(size).flat_map(|c| parser.feed(c)).collect();
        assert_eq!(pieces, whole, "read size {size}");
        assert!(parser.buffer.is_empty());
    }
    let mut parser = Parser::default();
    let mut rest = wire.as_slice();
    let mut uneven = Vec::new();
    for size in [3, 1, 250, 17, 2, 999].iter().cycle() {
        if rest.is_empty() {
            break;
        }
        let (piece, tail) = rest.split_at((*size).min(rest.len()));
        uneven.extend(parser.feed(piece));
        rest = tail;
    }
    assert_eq!(uneven, whole);
}

#[tokio::test]
async fn keep_alive_comments_flow_while_the_model_is_slow() {
    let server = waiting_server(Some(Settings {
        keep_alive: Duration::from_millis(100),
    }))
    .await;
    let thread = id();
    let mut input = question(&thread, "run-slow");
    input["tools"] = json!([{
        "name": "show_checklist",
        "description": "Shows the inspection checklist on the inspector's device",
        "parameters": { "type": "object", "properties": { "topic": { "type": "string" } } }
    }]);
    let mut stream = post_run(&server.base, &input).await;
    let events = stream
        .until(|e| e["type"] == "STEP_STARTED" && e["stepName"] == "thinking")
        .await;
    assert_eq!(events[0]["type"], "RUN_STARTED");
    let mut comments = 0;
    let started = std::time::Instant::now();
    while comments < 3 {
        match stream.next_frame().await {
            Some(Frame::Comment(text)) => {
                assert_eq!(text, "keep-alive");
                comments += 1;
            }
            other => panic!("only keep-alive while the model thinks, got {other:?}"),
        }
    }
    assert!(started.elapsed() < Duration::from_secs(5));
    // The model was offered the client's tool next to the agent's own.
    let requests = server.silent.requests.lock().unwrap().clone();
    let offered: Vec<&str> = requests[0]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap())
        .collect();
    assert!(
        offered.contains(&"show_checklist") && offered.contains(&"handoff_to_agent"),
        "{offered:?}"
    );
}

#[tokio::test]
async fn closing_the_connection_leaves_the_run_going_and_a_new_run_stops_it() {
    let server = waiting_server(None).await;
    let thread = id();
    let mut stream = post_run(&server.base, &question(&thread, "run-abort")).await;
    stream
        .until(|e| e["type"] == "STEP_STARTED" && e["stepName"] == "thinking")
        .await;
    drop(stream);
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(
        final_status_now(&server.state, &thread, "run-abort").await,
        RunStatus::Running,
        "a dropped stream does not stop the run"
    );
    // A new message on the thread still does.
    let mut next = post_run(&server.base, &question(&thread, "run-after")).await;
    assert_eq!(next.next_event().await.unwrap()["type"], "RUN_STARTED");
    assert_eq!(
        final_status(&server.state, &thread, "run-abort").await,
        RunStatus::Cancelled
    );
}

#[tokio::test]
async fn last_event_id_reattaches_to_exactly_the_rest_of_the_run() {
    let server = TestServer::start().await;
    let thread = id();
    let input = json!({
        "threadId": thread,
        "runId": "run-reattach",
        "messages": [{ "id": id(), "role": "user", "content": "Start inspectie bij Trattoria Finta Fiore" }],
        "tools": [],
        "context": [],
    });
    let base = server.url("");
    let base = base.trim_end_matches('/');
    // The whole run as one stream, for comparison, from the journal (no Last-Event-ID).
    let mut first = post_run(base, &input).await;
    let mut seen = Vec::new();
    for _ in 0..6 {
        seen.push(first.next_event().await.unwrap());
    }
    let last_id = *first.parser.ids.last().unwrap();
    assert_eq!(first.parser.ids.len(), 6, "every event has an id");
    assert!(first.parser.ids.windows(2).all(|w| w[1] == w[0] + 1));
    drop(first);

    let mut rest = stream_of(reattach(base, "run-reattach", Some(&last_id.to_string())).await);
    let missed = rest.all().await;
    assert_eq!(
        rest.parser.ids.first(),
        Some(&(last_id + 1)),
        "no gap, no duplicate"
    );
    assert!(rest.parser.ids.windows(2).all(|w| w[1] == w[0] + 1));
    let mut whole = seen.clone();
    whole.extend(missed);
    assert_standard(&whole);
    assert_eq!(whole.last().unwrap()["type"], "RUN_FINISHED");

    let mut again = stream_of(reattach(base, "run-reattach", None).await);
    assert_eq!(
        again.all().await,
        whole,
        "without an id: the run from its start"
    );

    // An id the server never sent is a clear 400; someone else's or no run is 404.
    let bad = reattach(base, "run-reattach", Some("yesterday")).await;
    assert_eq!(bad.status(), 400);
    let body: Value = bad.json().await.unwrap();
    assert!(body.to_string().contains("Last-Event-ID"), "{body}");
    assert_eq!(reattach(base, "run-nope", None).await.status(), 404);
    let caps: Value = reqwest::get(server.url("/agui/capabilities"))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(caps["transport"]["resumable"], true);
}

async fn final_status_now(state: &AppState, thread: &str, run_id: &str) -> RunStatus {
    let runs = state.db.runs(thread).await.unwrap();
    runs.iter().find(|r| r.id == run_id).unwrap().status
}

#[tokio::test]
async fn the_cancel_endpoint_stops_a_run_from_elsewhere() {
    let server = waiting_server(None).await;
    let thread = id();
    let mut stream = post_run(&server.base, &question(&thread, "run-cancel")).await;
    let mut events = stream
        .until(|e| e["type"] == "STEP_STARTED" && e["stepName"] == "thinking")
        .await;
    let http = reqwest::Client::new();
    let cancel = |run: &str| {
        http.post(format!("{}/agui/runs/{run}/cancel", server.base))
            .send()
    };
    let response = cancel("run-cancel").await.unwrap();
    assert_eq!(response.status(), 200);
    let body: Value = response.json().await.unwrap();
    assert_eq!(
        body,
        json!({ "runId": "run-cancel", "threadId": thread, "status": "cancelled" })
    );
    // The stream ends with RUN_FINISHED and the cancelled outcome (AG-UI 1.0).
    events.extend(stream.all().await);
    assert_standard(&events);
    let finished = events.last().unwrap();
    assert_eq!(finished["type"], "RUN_FINISHED");
    assert_eq!(finished["outcome"], json!({ "type": "cancelled" }));
    assert!(of_type(&events, "RUN_ERROR").is_empty());
    assert_eq!(
        final_status_now(&server.state, &thread, "run-cancel").await,
        RunStatus::Cancelled
    );

    let again = cancel("run-cancel").await.unwrap();
    assert_eq!(again.status(), 409);
    assert!(again.json::<Value>().await.unwrap()["detail"].is_string());
    let unknown = cancel("run-that-never-was").await.unwrap();
    assert_eq!(unknown.status(), 404);
    assert_eq!(
        unknown.json::<Value>().await.unwrap(),
        json!({ "detail": "Run run-that-never-was not found" })
    );
}

#[tokio::test]
async fn unreadable_bodies_are_422_and_refused_input_is_one_run_error() {
    let server = TestServer::start().await;
    let http = reqwest::Client::new();
    for body in [
        "not json".to_owned(),
        json!({ "messages": [] }).to_string(),
        json!({ "threadId": " ", "runId": "r", "messages": [] }).to_string(),
    ] {
        let response = http
            .post(server.url("/agui"))
            .header("content-type", "application/json")
            .body(body.clone())
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 422, "{body}");
        assert!(response.json::<Value>().await.unwrap()["detail"].is_string());
    }
    // Nothing to answer: a stream with one RUN_ERROR, which the standard dialect allows.
    let events = run(
        &server.base(),
        &json!({ "threadId": id(), "runId": "r", "messages": [] }),
    )
    .await;
    assert_eq!(events.len(), 1);
    assert_eq!(events[0]["code"], "no_user_message");
}

#[tokio::test]
async fn runs_count_toward_the_limit_shared_with_the_websocket() {
    let server = TestServer::start_with(|c| c.runs_per_minute = 2).await;
    let thread = id();
    for run_id in ["r1", "r2"] {
        let events = run(&server.base(), &question(&thread, run_id)).await;
        assert_eq!(events[0]["type"], "RUN_STARTED");
    }
    let response = reqwest::Client::new()
        .post(server.url("/agui"))
        .json(&question(&thread, "r3"))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 429);
    let retry: u64 = response.headers()["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!((1..=30).contains(&retry), "{retry}");
    let body = response.json::<Value>().await.unwrap();
    assert!(body["detail"].as_str().unwrap().contains("2 a minute"));
    assert_eq!(body["retryAfterSeconds"], retry);
}

trait Base {
    fn base(&self) -> String;
}

impl Base for TestServer {
    fn base(&self) -> String {
        format!("http://{}", self.addr)
    }
}

#[tokio::test]
async fn capabilities_follow_ag_ui_agent_capabilities() {
    let server = TestServer::start().await;
    let caps: Value = reqwest::get(server.url("/agui/capabilities"))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(caps["transport"]["streaming"], true);
    assert_eq!(caps["tools"]["clientProvided"], true);
    let tools: Vec<&str> = caps["tools"]["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert!(tools.contains(&"generate_final_report"), "{tools:?}");
    assert!(
        caps["tools"]["items"]
            .as_array()
            .unwrap()
            .iter()
            .all(|t| t["description"].is_string() && t["parameters"].is_object())
    );
    let hitl = &caps["humanInTheLoop"];
    assert_eq!(hitl["interrupts"], true);
    assert_eq!(hitl["approvals"], true);
    assert_eq!(hitl["approveWithEdits"], true);
    assert_eq!(caps["multiAgent"]["handoffs"], true);
    assert_eq!(caps["multiAgent"]["subagents"].as_array().unwrap().len(), 4);
    assert_eq!(caps["identity"]["version"], env!("CARGO_PKG_VERSION"));
    assert_eq!(caps["transport"]["resumable"], true);
    // Exactly AG-UI 1.0's AgentCapabilities, as the official models read it.
    common::assert_official("capabilities", &caps);
}

// ---------------------------------------------------------------------------------------------
// Flows, interrupts and resume.

#[tokio::test]
async fn inspection_and_finding_flows_in_the_standard_dialect() {
    let server = TestServer::start().await;
    let mut client = Client::new(&server.base());
    let events = client
        .say("Start inspectie bij Trattoria Finta Fiore")
        .await;
    let names: Vec<&str> = of_type(&events, "TOOL_CALL_START")
        .iter()
        .map(|e| e["toolCallName"].as_str().unwrap())
        .collect();
    assert!(names.contains(&"get_inspection_history"), "{names:?}");
    // AGORA's extra fields travel in metadata here, and the parent is the message that made
    // the call, also for the second call of a turn.
    let stored =
        serde_json::to_value(server.state.db.messages(&client.thread).await.unwrap()).unwrap();
    for start in of_type(&events, "TOOL_CALL_START") {
        assert!(start.get("toolDisplayName").is_none());
        assert!(start["metadata"]["toolDisplayName"].is_string());
        let parent = stored
            .as_array()
            .unwrap()
            .iter()
            .find(|m| m["id"] == start["parentMessageId"])
            .expect("the parent is a stored message");
        let calls = parent["toolCalls"]
            .as_array()
            .expect("an assistant message with calls");
        assert!(
            calls.iter().any(|c| c["id"] == start["toolCallId"]),
            "{start}"
        );
    }
    assert!(text(&events).contains("Finta Fiore"));

    let events = client
        .say("Ik zie rauwe vis naast groenten bewaard op 12 °C in de koeling")
        .await;
    assert!(text(&events).contains("852/2004") || text(&events).contains("Hygiënecode"));
    // The same request again (a retry) is answered as done, and changes nothing.
    let mut retry = client.input(None);
    retry["runId"] = events[0]["runId"].clone();
    let again = run(&client.base, &retry).await;
    let kinds: Vec<&str> = again.iter().map(|e| e["type"].as_str().unwrap()).collect();
    assert_eq!(kinds, ["RUN_STARTED", "STATE_SNAPSHOT", "RUN_FINISHED"]);
    // The client's history did not duplicate the thread's messages.
    let stored = server.state.db.messages(&client.thread).await.unwrap();
    let users = stored
        .iter()
        .filter(|m| matches!(m, agora_hai::protocol::Message::User(_)))
        .count();
    assert_eq!(users, 2);
}

#[tokio::test]
async fn an_approved_report_resumes_with_only_the_tool_result() {
    let server = TestServer::start().await;
    let mut client = Client::new(&server.base());
    let (events, interrupt) = up_to_the_report_interrupt(&mut client).await;

    // The call is announced, not executed; the run ends with state, messages and the interrupt.
    let call = of_type(&events, "TOOL_CALL_START")
        .into_iter()
        .find(|e| e["toolCallName"] == "generate_final_report")
        .expect("the report call is announced");
    let call_id = call["toolCallId"].as_str().unwrap();
    assert!(
        !of_type(&events, "TOOL_CALL_RESULT")
            .iter()
            .any(|e| e["toolCallId"] == call_id)
    );
    let n = events.len();
    assert_eq!(events[n - 3]["type"], "STATE_SNAPSHOT");
    assert_eq!(events[n - 3]["snapshot"]["status"], "interrupted");
    assert_eq!(events[n - 2]["type"], "MESSAGES_SNAPSHOT");
    let snapshot = events[n - 2]["messages"].as_array().unwrap();
    assert!(snapshot.iter().all(|m| m["id"].is_string()));
    assert!(snapshot.iter().any(|m| m["toolCalls"][0]["id"] == call_id));
    assert_eq!(interrupt["reason"], "tool_call");
    assert_eq!(interrupt["toolCallId"], call_id);
    assert!(interrupt["id"].is_string() && interrupt["message"].is_string());
    let schema = &interrupt["responseSchema"];
    assert_eq!(schema["properties"]["approved"]["type"], "boolean");
    assert_eq!(schema["properties"]["editedArgs"]["type"], "object");
    assert_eq!(schema["required"], json!(["approved"]));
    // ISO 8601 in UTC, in the future: such strings compare as text to the second.
    let expires = interrupt["expiresAt"].as_str().unwrap();
    assert!(expires.ends_with('Z') && expires.len() >= 20, "{expires}");
    let now = time::OffsetDateTime::now_utc()
        .format(&time::format_description::well_known::Rfc3339)
        .unwrap();
    assert!(expires[..19] > now[..19], "{expires} after {now}");

    // The report specialist's turn is a subagent invocation, spawned by the handoff call, and
    // suspended on the interrupt it raised.
    let (started, finished) = subagents(&events);
    let reporting = started
        .iter()
        .find(|s| s["name"] == "reporting-agent")
        .expect("the reporting agent is a subagent");
    let handoff = of_type(&events, "TOOL_CALL_START")
        .into_iter()
        .find(|e| e["toolCallId"] == reporting["parentToolCallId"])
        .expect("spawned by a call of this run");
    assert_eq!(handoff["toolCallName"], "handoff_to_agent");
    assert!(reporting["description"].is_string() && reporting["parentMessageId"].is_string());
    assert_eq!(call["subagentRunId"], reporting["subagentRunId"]);
    let last = finished.last().unwrap();
    assert_eq!(last["subagentRunId"], reporting["subagentRunId"]);
    assert_eq!(
        last["outcome"],
        json!({ "type": "suspended", "interruptIds": [interrupt["id"]] })
    );

    let resumed = client
        .send(Some(approve(&interrupt, true, Some("Akkoord"))))
        .await;
    for kind in ["TOOL_CALL_START", "TOOL_CALL_ARGS", "TOOL_CALL_END"] {
        assert!(
            !of_type(&resumed, kind)
                .iter()
                .any(|e| e["toolCallId"] == call_id),
            "no new {kind} for the resumed call"
        );
    }
    let results = of_type(&resumed, "TOOL_CALL_RESULT");
    assert_eq!(results.len(), 1);
    assert_eq!(results[0]["toolCallId"], call_id);
    let result: Value = serde_json::from_str(results[0]["content"].as_str().unwrap()).unwrap();
    let url = result["downloadUrl"].as_str().expect("a download URL");
    assert!(text(&resumed).contains(url));
    let pdf = reqwest::get(server.url(url)).await.unwrap();
    assert_eq!(pdf.status(), 200);
    assert!(pdf.bytes().await.unwrap().starts_with(b"%PDF-"));
    assert!(resumed.last().unwrap().get("outcome").is_none());
    // The resumed run continues the same invocation, which now finishes.
    let (started, finished) = subagents(&resumed);
    assert_eq!(started[0]["subagentRunId"], reporting["subagentRunId"]);
    assert_eq!(results[0]["subagentRunId"], reporting["subagentRunId"]);
    assert!(finished.last().unwrap().get("outcome").is_none());

    // The audit log has the decision, as for `/ws`.
    let approvals = server.state.db.approvals(&client.thread).await.unwrap();
    assert_eq!(approvals.len(), 1);
    assert_eq!(approvals[0].approval_id, interrupt["id"].as_str().unwrap());
    assert_eq!(approvals[0].tool_call_id, call_id);
    let decision = approvals[0].decision.as_ref().expect("decided");
    assert!(decision.approved);
    assert_eq!(decision.feedback.as_deref(), Some("Akkoord"));
}

#[tokio::test]
async fn a_rejected_report_is_not_generated() {
    let server = TestServer::start().await;
    let mut client = Client::new(&server.base());
    let (_, interrupt) = up_to_the_report_interrupt(&mut client).await;
    let resumed = client
        .send(Some(approve(
            &interrupt,
            false,
            Some("Eerst de koelcel opnieuw meten"),
        )))
        .await;
    let results = of_type(&resumed, "TOOL_CALL_RESULT");
    assert_eq!(results.len(), 1);
    assert!(results[0]["content"].as_str().unwrap().contains("rejected"));
    assert!(text(&resumed).contains("Eerst de koelcel opnieuw meten"));
    assert_eq!(reports_written(&server), 0);
    let approvals = server.state.db.approvals(&client.thread).await.unwrap();
    assert!(!approvals[0].decision.as_ref().unwrap().approved);
}

#[tokio::test]
async fn resume_errors_leave_the_interrupt_open_and_a_replay_is_harmless() {
    let server = TestServer::start().await;
    let mut client = Client::new(&server.base());
    let (_, interrupt) = up_to_the_report_interrupt(&mut client).await;
    let interrupt_id = interrupt["id"].as_str().unwrap();

    let refused = |events: Vec<Value>| {
        assert_eq!(events.len(), 1, "{events:#?}");
        events[0]["code"].as_str().unwrap().to_owned()
    };
    // A new message without resume.
    client
        .messages
        .push(json!({ "id": id(), "role": "user", "content": "Hallo" }));
    let events = run(&client.base, &client.input(None)).await;
    assert_eq!(refused(events.clone()), "interrupt_pending");
    assert!(
        events[0]["message"]
            .as_str()
            .unwrap()
            .contains(interrupt_id)
    );
    client.messages.pop();
    // An interrupt this thread never had.
    let wrong = json!([{ "interruptId": "int_other", "status": "resolved", "payload": { "approved": true } }]);
    let events = run(&client.base, &client.input(Some(wrong))).await;
    assert_eq!(refused(events), "unknown_interrupt");
    // An answer without `approved`.
    let shapeless =
        json!([{ "interruptId": interrupt_id, "status": "resolved", "payload": { "ok": 1 } }]);
    let events = run(&client.base, &client.input(Some(shapeless))).await;
    assert_eq!(refused(events), "invalid_resume");
    // An empty resume.
    let events = run(&client.base, &client.input(Some(json!([])))).await;
    assert_eq!(refused(events), "interrupt_pending");

    // Still open: the right answer works, once.
    let answer = approve(&interrupt, true, None);
    let input = client.input(Some(answer.clone()));
    let first = run(&client.base, &input).await;
    assert_eq!(of_type(&first, "TOOL_CALL_RESULT").len(), 1);
    assert_eq!(reports_written(&server), 1);

    // The same request again, and the same resume in a new run: nothing happens twice.
    for replay in [input, client.input(Some(answer))] {
        let events = run(&client.base, &replay).await;
        let kinds: Vec<&str> = events.iter().map(|e| e["type"].as_str().unwrap()).collect();
        assert_eq!(kinds, ["RUN_STARTED", "STATE_SNAPSHOT", "RUN_FINISHED"]);
    }
    assert_eq!(reports_written(&server), 1);
    let approvals = server.state.db.approvals(&client.thread).await.unwrap();
    assert_eq!(approvals.len(), 1);
    // The thread goes on normally.
    let events = client.say("Hallo").await;
    assert!(!text(&events).is_empty());
    // A resume on a thread without interrupts names an unknown one.
    let mut stranger = Client::new(&server.base());
    stranger
        .messages
        .push(json!({ "id": id(), "role": "user", "content": "Hallo" }));
    let events = run(
        &stranger.base,
        &stranger.input(Some(approve(&interrupt, true, None))),
    )
    .await;
    assert_eq!(refused(events), "unknown_interrupt");
}

#[tokio::test]
async fn an_interrupt_survives_a_restart() {
    let server = TestServer::start().await;
    let mut client = Client::new(&server.base());
    let (_, interrupt) = up_to_the_report_interrupt(&mut client).await;

    // A second process on the same data directory: nothing of the first one's memory.
    let config = Config::for_data_dir(&server.dir.0);
    let state = AppState::open(config).await.unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let app = router(state.clone());
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    client.base = format!("http://{addr}");

    let resumed = client.send(Some(approve(&interrupt, true, None))).await;
    let results = of_type(&resumed, "TOOL_CALL_RESULT");
    assert_eq!(results.len(), 1);
    assert_eq!(results[0]["toolCallId"], interrupt["toolCallId"]);
    assert!(
        results[0]["content"]
            .as_str()
            .unwrap()
            .contains("downloadUrl")
    );
}

/// Edited arguments in a resume meet the tool's own rules, as the agent's do: a KVK number
/// that is not one or a finding without words is a RUN_ERROR (`invalid_resume`, naming the
/// field), the interrupt stays open, and a resume with correct edits then runs them. Edits
/// with a rejection are ignored: nothing runs, and the audit log records none.
#[tokio::test]
async fn edited_arguments_that_break_the_tools_rules_are_refused_and_the_interrupt_stays_open() {
    let server = TestServer::start().await;
    let mut client = Client::new(&server.base());
    let (_, interrupt) = up_to_the_report_interrupt(&mut client).await;
    let asked = interrupt["metadata"]["arguments"].clone();
    let with = |field: &str, value: Value| {
        let mut edited = asked.clone();
        edited[field] = value;
        edited
    };
    let answer = |approved: bool, edited: &Value| {
        json!([{
            "interruptId": interrupt["id"],
            "status": "resolved",
            "payload": { "approved": approved, "editedArgs": edited },
        }])
    };
    for (edited, field) in [
        (with("kvk", json!("1234")), "kvk"),
        (
            with("findings", json!([{ "description": "" }])),
            "findings[0].description",
        ),
    ] {
        let events = run(&client.base, &client.input(Some(answer(true, &edited)))).await;
        assert_eq!(events.len(), 1, "{events:#?}");
        assert_eq!(events[0]["type"], "RUN_ERROR");
        assert_eq!(events[0]["code"], "invalid_resume");
        let message = events[0]["message"].as_str().unwrap();
        assert!(message.contains(&format!("`{field}`")), "{message}");
    }
    assert_eq!(reports_written(&server), 0);

    let edited = with(
        "findings",
        json!([{ "description": "Rauwe vis boven de groenten, 12 °C", "severity": "ernstig" }]),
    );
    let resumed = client.send(Some(answer(true, &edited))).await;
    let results = of_type(&resumed, "TOOL_CALL_RESULT");
    assert_eq!(results.len(), 1);
    assert!(
        results[0]["content"]
            .as_str()
            .unwrap()
            .contains("downloadUrl")
    );
    let approvals = server.state.db.approvals(&client.thread).await.unwrap();
    assert_eq!(
        approvals[0].decision.as_ref().unwrap().edited_args.as_ref(),
        Some(&edited)
    );
}

#[tokio::test]
async fn edits_sent_with_a_rejection_are_ignored() {
    let server = TestServer::start().await;
    let mut client = Client::new(&server.base());
    let (_, interrupt) = up_to_the_report_interrupt(&mut client).await;
    let mut edited = interrupt["metadata"]["arguments"].clone();
    edited["kvk"] = json!("1234");
    let answer = json!([{
        "interruptId": interrupt["id"],
        "status": "resolved",
        "payload": { "approved": false, "editedArgs": edited },
    }]);
    let resumed = client.send(Some(answer)).await;
    assert!(of_type(&resumed, "RUN_ERROR").is_empty(), "{resumed:#?}");
    let results = of_type(&resumed, "TOOL_CALL_RESULT");
    assert!(results[0]["content"].as_str().unwrap().contains("rejected"));
    assert_eq!(reports_written(&server), 0);
    let approvals = server.state.db.approvals(&client.thread).await.unwrap();
    let decision = approvals[0].decision.as_ref().unwrap();
    assert!(!decision.approved);
    assert_eq!(decision.edited_args, None);
}

#[tokio::test]
async fn edited_arguments_are_what_runs() {
    let server = TestServer::start().await;
    let mut client = Client::new(&server.base());
    let (_, interrupt) = up_to_the_report_interrupt(&mut client).await;
    let mut arguments = interrupt["metadata"]["arguments"].clone();
    arguments["summary"] = json!("Samenvatting door de inspecteur aangepast.");
    let answer = json!([{
        "interruptId": interrupt["id"],
        "status": "resolved",
        "payload": { "approved": true, "editedArgs": arguments },
    }]);
    let resumed = client.send(Some(answer)).await;
    let result: Value = serde_json::from_str(
        of_type(&resumed, "TOOL_CALL_RESULT")[0]["content"]
            .as_str()
            .unwrap(),
    )
    .unwrap();
    let json_url = result["jsonUrl"].as_str().expect("the report's JSON");
    let report: Value = reqwest::get(server.url(json_url))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert!(
        report
            .to_string()
            .contains("Samenvatting door de inspecteur aangepast."),
        "{report}"
    );
    // The audit log has the approval with its edits, as on `/ws`.
    let approvals = server.state.db.approvals(&client.thread).await.unwrap();
    assert_eq!(
        approvals[0].decision.as_ref().unwrap().edited_args.as_ref(),
        Some(&arguments)
    );
}

// ---------------------------------------------------------------------------------------------
// Client tools.

#[tokio::test]
async fn a_client_tool_ends_the_run_and_its_result_comes_with_the_next() {
    let server = TestServer::start().await;
    let mut client = Client::new(&server.base());
    client.tools = vec![json!({
        "name": "show_checklist",
        "description": "Shows the inspection checklist for a topic on the inspector's device",
        "parameters": {
            "type": "object",
            "properties": { "topic": { "type": "string" } },
            "required": ["topic"]
        }
    })];
    let events = client
        .say("Toon de koelcel-checklist met show_checklist")
        .await;
    let starts = of_type(&events, "TOOL_CALL_START");
    assert_eq!(starts.len(), 1, "{events:#?}");
    assert_eq!(starts[0]["toolCallName"], "show_checklist");
    let call_id = starts[0]["toolCallId"].as_str().unwrap().to_owned();
    let args: Value = serde_json::from_str(
        of_type(&events, "TOOL_CALL_ARGS")[0]["delta"]
            .as_str()
            .unwrap(),
    )
    .unwrap();
    assert!(args["topic"].as_str().unwrap().contains("checklist"));
    // Nothing after TOOL_CALL_END but closing the step and the run: no result from the server.
    assert!(of_type(&events, "TOOL_CALL_RESULT").is_empty());
    let end = events
        .iter()
        .position(|e| e["type"] == "TOOL_CALL_END")
        .unwrap();
    let after: Vec<&str> = events[end + 1..]
        .iter()
        .map(|e| e["type"].as_str().unwrap())
        .collect();
    assert_eq!(after, ["STEP_FINISHED", "STATE_SNAPSHOT", "RUN_FINISHED"]);

    // The client runs the tool and sends its result with the next run.
    let result_id = id();
    client.messages.push(json!({
        "id": result_id, "role": "tool", "toolCallId": call_id,
        "content": "Checklist getoond: 3 van 5 punten afgevinkt"
    }));
    let events = client.send(None).await;
    assert!(
        of_type(&events, "STEP_STARTED")
            .iter()
            .all(|e| e["stepName"] != "routing")
    );
    assert!(of_type(&events, "TOOL_CALL_START").is_empty());
    assert!(
        text(&events).contains("3 van 5 punten afgevinkt"),
        "{}",
        text(&events)
    );
    let stored = server.state.db.messages(&client.thread).await.unwrap();
    let stored = serde_json::to_value(&stored).unwrap();
    let tool_message = stored
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["toolCallId"] == call_id.as_str())
        .expect("the client's result is stored");
    assert_eq!(tool_message["id"], result_id.as_str());
}

#[tokio::test]
async fn an_unanswered_client_tool_call_does_not_block_the_thread() {
    let server = TestServer::start().await;
    let mut client = Client::new(&server.base());
    client.tools = vec![json!({
        "name": "show_checklist",
        "description": "Shows the inspection checklist",
        "parameters": { "type": "object", "properties": {} }
    })];
    client.say("Open show_checklist").await;
    // The client moves on without a result.
    let events = client
        .say("Start inspectie bij Trattoria Finta Fiore")
        .await;
    assert!(text(&events).contains("Finta Fiore"));
    let stored =
        serde_json::to_value(server.state.db.messages(&client.thread).await.unwrap()).unwrap();
    let filler = stored
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["role"] == "tool" && m["error"].is_string())
        .expect("the unanswered call got a result");
    assert!(filler["content"].as_str().unwrap().contains("cancelled"));
}

/// The report tool's declared limits hold for an approver's edited arguments too (issue 31: a
/// 418-page report): a finding over its 2,000 characters is refused before anything runs
/// (issue 34: a RUN_ERROR, the interrupt stays open), and no report is written.
#[tokio::test]
async fn edited_arguments_over_the_declared_limits_make_no_report() {
    let server = TestServer::start().await;
    let mut client = Client::new(&server.base());
    let (_, interrupt) = up_to_the_report_interrupt(&mut client).await;
    let mut resume = approve(&interrupt, true, None);
    resume[0]["payload"]["editedArgs"] = json!({
        "kvk": "99990001",
        "findings": [{ "description": "De koelcel was te warm. ".repeat(100) }],
    });
    let events = run(&client.base, &client.input(Some(resume))).await;
    assert_eq!(events.len(), 1, "{events:#?}");
    assert_eq!(events[0]["code"], "invalid_resume");
    assert!(
        events[0]["message"].as_str().unwrap().contains("2000"),
        "{events:?}"
    );
    assert_eq!(reports_written(&server), 0);
    let open = server.state.db.interrupts(&client.thread).await.unwrap();
    assert!(open.iter().all(|i| i.resolution.is_none()), "{open:?}");
}

/// Issue 31: an answer that brings a run id already used (here the interrupted run's own) is
/// refused before it marks anything, so the interrupt stays open and the right answer still
/// makes the report.
#[tokio::test]
async fn an_answer_with_a_used_run_id_is_refused_and_leaves_the_interrupt_open() {
    let server = TestServer::start().await;
    let mut client = Client::new(&server.base());
    let (events, interrupt) = up_to_the_report_interrupt(&mut client).await;
    let mut reused = client.input(Some(approve(&interrupt, true, None)));
    reused["runId"] = events[0]["runId"].clone();
    let refused = run(&client.base, &reused).await;
    assert_eq!(refused.len(), 1, "{refused:#?}");
    assert_eq!(refused[0]["code"], "run_id_in_use");
    assert_eq!(reports_written(&server), 0);
    let open = server.state.db.interrupts(&client.thread).await.unwrap();
    assert!(open.iter().all(|i| i.resolution.is_none()), "{open:?}");

    let approved = client.send(Some(approve(&interrupt, true, None))).await;
    assert_eq!(approved.last().unwrap()["type"], "RUN_FINISHED");
    assert!(
        reports_written(&server) > 0,
        "the right answer makes the report"
    );
}
