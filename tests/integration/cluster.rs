//! Two instances of the release binary (`AGORA_BIN`, else this build's) on one PostgreSQL
//! database, as behind a load balancer without sticky sessions: a run started on A is resumed
//! by a client on B; an approval answered on B completes the run on A; A killed with SIGKILL
//! mid-run is marked interrupted by B once its lease runs out, and nothing completed is lost.
#![cfg(feature = "ssr")]

use crate::common;

use std::time::{Duration, Instant};

use common::binary::Binary;
use common::postgres::fresh_database;
use common::{TempDir, streamed_text, strings};
use serde_json::{Value, json};

/// Seconds a run's lease lasts in these tests (30 by default).
const LEASE_SECS: u64 = 3;

/// One instance: the binary on the shared database, with a data directory of its own for
/// reports.
struct Instance {
    binary: Binary,
    _dir: TempDir,
}

impl Instance {
    async fn start(database_url: &str) -> Self {
        let dir = TempDir::new("agora-cluster");
        let lease = LEASE_SECS.to_string();
        let args = ["--database-url", database_url, "--run-lease-secs", &lease];
        let binary = Binary::start(
            args.iter()
                .map(std::ffi::OsStr::new)
                .chain(["--data-dir".as_ref(), dir.0.as_os_str()]),
        )
        .await;
        Self { binary, _dir: dir }
    }

    async fn socket(&self) -> common::Socket {
        self.binary.socket().await
    }

    async fn history(&self, thread: &str) -> Value {
        self.binary
            .get(&format!("/sessions/{thread}/history?include_tools=true"))
            .await
    }
}

fn resume(thread: &str, after_seq: Option<u64>) -> Value {
    json!({ "type": "CUSTOM", "name": "agora:resume", "value": { "threadId": thread, "afterSeq": after_seq } })
}

fn seq(event: &Value) -> u64 {
    event["seq"]
        .as_u64()
        .unwrap_or_else(|| panic!("no seq: {event}"))
}

/// On A: an answered question, then the report run up to its approval. Returns the first
/// answer, the events shown of the report run and the approval id.
async fn report_waiting_for_approval(a: &Instance, thread: &str) -> (String, Vec<Value>, String) {
    let mut socket = a.socket().await;
    socket
        .ask(thread, "Start inspectie bij Trattoria Finta Fiore")
        .await;
    let first = streamed_text(&socket.until_finished().await);
    assert!(!first.is_empty());
    socket
        .ask(thread, "Genereer het inspectierapport zonder vragen")
        .await;
    let shown = socket.until_approval_request().await;
    let approval_id = shown.last().unwrap()["value"]["approvalId"]
        .as_str()
        .unwrap()
        .to_owned();
    (first, shown, approval_id)
}

#[tokio::test]
async fn a_run_started_on_a_is_resumed_and_approved_on_b_and_completes_on_a() {
    let url = fresh_database().await;
    let a = Instance::start(&url).await;
    let b = Instance::start(&url).await;
    let thread = uuid::Uuid::new_v4().to_string();
    let (_, shown, approval_id) = report_waiting_for_approval(&a, &thread).await;
    let last_seen = seq(shown.last().unwrap());
    // The tablet lost A (its socket is gone) and reconnects through the balancer to B.
    tokio::time::sleep(Duration::from_millis(300)).await;

    let mut socket = b.socket().await;
    socket.send(&resume(&thread, Some(last_seen))).await;
    let resumed = socket.next().await;
    assert_eq!(resumed["name"], "agora:resumed", "{resumed}");
    assert_eq!(resumed["value"]["mode"], "replay", "{resumed}");
    assert_eq!(resumed["value"]["running"], true, "{resumed}");
    assert_eq!(resumed["value"]["lastSeq"], last_seen, "{resumed}");

    // Approved on B; the run waiting on A goes on, and B's client sees the rest of it.
    socket.answer_approval(&approval_id, true, None).await;
    let rest = socket.until_finished().await;
    let numbers: Vec<u64> = rest
        .iter()
        .filter(|e| e.get("seq").is_some())
        .map(seq)
        .collect();
    assert_eq!(numbers.first(), Some(&(last_seen + 1)), "{rest:?}");
    assert!(
        numbers.windows(2).all(|w| w[1] == w[0] + 1),
        "contiguous: {numbers:?}"
    );
    let report_result = rest
        .iter()
        .find(|e| e["type"] == "TOOL_CALL_RESULT")
        .unwrap_or_else(|| panic!("the report's result: {rest:?}"));
    assert!(
        !report_result["content"]
            .as_str()
            .unwrap_or("")
            .contains("afgewezen"),
        "{report_result}"
    );
    assert!(!streamed_text(&rest).is_empty());

    // Both instances read the same thread, the approval recorded as the user's.
    let history = a.history(&thread).await.to_string();
    assert!(
        history.contains("Genereer het inspectierapport"),
        "{history}"
    );
    assert_eq!(history, b.history(&thread).await.to_string());
    // A second answer, on either instance, is refused as a duplicate.
    socket.answer_approval(&approval_id, false, None).await;
    assert_eq!(socket.error_code().await, "duplicate_approval");
}

#[tokio::test]
async fn a_killed_instance_s_run_is_marked_interrupted_by_the_other() {
    let url = fresh_database().await;
    let mut a = Instance::start(&url).await;
    let b = Instance::start(&url).await;
    let thread = uuid::Uuid::new_v4().to_string();
    let (first, shown, _) = report_waiting_for_approval(&a, &thread).await;
    let last_seen = seq(shown.last().unwrap());
    tokio::time::sleep(Duration::from_millis(300)).await;
    let mut follower = b.socket().await;
    follower.send(&resume(&thread, Some(last_seen))).await;
    assert_eq!(follower.next().await["value"]["mode"], "replay");

    // SIGKILL: A renews nothing any more.
    a.binary.kill();
    let killed = Instant::now();
    let ended = follower.until(|e| e["type"] == "RUN_ERROR").await;
    let waited = killed.elapsed();
    let error = ended.last().unwrap();
    assert_eq!(error["code"], "run_interrupted", "{error}");
    assert_eq!(seq(error), last_seen + 1, "{error}");
    // The lease runs out at most LEASE_SECS after A's last renewal; B looks every third of it.
    eprintln!("interrupted {} ms after the kill", waited.as_millis());
    assert!(
        waited < Duration::from_secs(LEASE_SECS * 3),
        "marked {waited:?} after the kill"
    );

    // Nothing completed is lost, and B says how the run ended.
    let history = b.history(&thread).await;
    let text = history.to_string();
    assert!(
        text.contains("Start inspectie bij Trattoria Finta Fiore"),
        "{text}"
    );
    assert!(text.contains("Genereer het inspectierapport"), "{text}");
    assert!(
        strings(&history).contains(&first.as_str()),
        "first answer kept whole: {text}"
    );
    for call in shown.iter().filter(|e| e["type"] == "TOOL_CALL_RESULT") {
        let id = call["toolCallId"].as_str().unwrap();
        assert!(text.contains(id), "tool result {id} kept");
    }
    let mut socket = b.socket().await;
    socket.send(&resume(&thread, None)).await;
    let resumed = socket.next().await;
    assert_eq!(resumed["value"]["running"], false, "{resumed}");
    assert_eq!(
        resumed["value"]["lastRun"]["status"], "interrupted",
        "{resumed}"
    );

    // The thread carries on at B.
    let mut socket = b.socket().await;
    socket
        .ask(&thread, "Welke regels gelden voor allergeneninformatie?")
        .await;
    assert!(!streamed_text(&socket.until_finished().await).is_empty());
}

/// Nobody follows a thread they do not own, across instances (issue 31, hole 1): on B, a
/// second user's resume of an id nobody has used yet is refused and hears nothing of the
/// inspection its owner then runs on A there; reattaching to the owner's `/agui` run on B is
/// 404 for her and the run's events for him.
#[tokio::test]
async fn nobody_follows_someone_elses_thread_through_the_other_instance() {
    const SECRET: &str = "Finta Fiore";
    let url = fresh_database().await;
    let a = Instance::start(&url).await;
    let b = Instance::start(&url).await;
    let ws = |instance: &Instance, user: &str| {
        format!("ws://{}/ws?user_id={user}", instance.binary.addr)
    };

    // /ws: Eve, on B, resumes an unused id; Koen then inspects on it on A.
    let thread = uuid::Uuid::new_v4().to_string();
    let mut eve = common::Socket::connect(&ws(&b, "eve")).await;
    eve.send(&resume(&thread, None)).await;
    let refused = eve.next().await;
    assert_eq!(
        refused["value"]["errorCode"], "thread_not_found",
        "{refused}"
    );
    let mut koen = common::Socket::connect(&ws(&a, "koen")).await;
    koen.ask(&thread, "Start inspectie bij Trattoria Finta Fiore")
        .await;
    assert!(streamed_text(&koen.until_finished().await).contains(SECRET));
    let heard = json!(eve.events_until_quiet(Duration::from_millis(1500)).await).to_string();
    assert!(
        !heard.contains(SECRET) && !heard.contains(&thread),
        "Eve heard Koen's inspection through B: {heard}"
    );
    // Koen follows his thread on B.
    let mut koen_on_b = common::Socket::connect(&ws(&b, "koen")).await;
    koen_on_b.send(&resume(&thread, None)).await;
    let got = json!(
        koen_on_b
            .events_until_quiet(Duration::from_millis(1500))
            .await
    )
    .to_string();
    assert!(got.contains(SECRET), "{got}");

    // /agui: Koen's run on A, reattached on B.
    let thread = uuid::Uuid::new_v4().to_string();
    let run_id = format!("run-{}", uuid::Uuid::new_v4());
    let http = reqwest::Client::new();
    let input = json!({
        "threadId": thread, "runId": run_id,
        "messages": [{ "id": "m1", "role": "user", "content": "Start inspectie bij Trattoria Finta Fiore" }],
        "tools": [], "context": [],
    });
    let body = http
        .post(format!("http://{}/agui", a.binary.addr))
        .header("x-user-id", "koen")
        .json(&input)
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(body.contains(SECRET), "{body}");
    let reattach = |user: &'static str| {
        http.get(format!(
            "http://{}/agui/runs/{run_id}/events",
            b.binary.addr
        ))
        .header("accept", "text/event-stream")
        .header("x-user-id", user)
        .send()
    };
    let eve = reattach("eve").await.unwrap();
    assert_eq!(eve.status(), 404);
    let body = eve.text().await.unwrap();
    assert!(!body.contains(SECRET) && !body.contains("data:"), "{body}");
    let koen = reattach("koen").await.unwrap();
    assert_eq!(koen.status(), 200);
    let body = koen.text().await.unwrap();
    assert!(body.contains(SECRET), "{body}");
}
