//! Two instances of the release binary (`AGORA_BIN`, else this build's) on one PostgreSQL
//! database, as behind a load balancer without sticky sessions: a run started on A is resumed
//! by a client on B; an approval answered on B completes the run on A; A killed with SIGKILL
//! mid-run is marked interrupted by B once its lease runs out, and nothing completed is lost.
#![cfg(feature = "ssr")]

use crate::common;

use std::time::{Duration, Instant};

use common::binary::Binary;
use common::postgres::fresh_database;
use common::{TempDir, of_type, streamed_text, strings};
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
        Self::start_with_lease(database_url, LEASE_SECS).await
    }

    async fn start_with_lease(database_url: &str, lease_secs: u64) -> Self {
        let dir = TempDir::new("agora-cluster");
        let lease = lease_secs.to_string();
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
    // Issue 35, point 7: as every other error flow of AGORA's dialect, RUN_FINISHED follows.
    // Bounded: the socket's pings would keep a plain `next` waiting for ever.
    let finished = tokio::time::timeout(Duration::from_secs(30), follower.next())
        .await
        .expect("RUN_FINISHED after RUN_ERROR");
    assert_eq!(finished["type"], "RUN_FINISHED", "{finished}");
    assert_eq!(seq(&finished), last_seen + 2, "{finished}");
    assert_eq!(finished["threadId"], thread.as_str(), "{finished}");
    assert_eq!(finished["runId"], error["runId"], "{finished}");
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

/// The run statuses of a thread, oldest first, read from the shared database itself.
async fn run_statuses(database_url: &str, thread: &str) -> Vec<String> {
    use sqlx::Connection;
    let mut db = sqlx::PgConnection::connect(database_url).await.unwrap();
    let rows: Vec<(String,)> =
        sqlx::query_as("SELECT status FROM runs WHERE thread_id = $1 ORDER BY started_at, rowid")
            .bind(thread)
            .fetch_all(&mut db)
            .await
            .unwrap();
    rows.into_iter().map(|(status,)| status).collect()
}

/// The socket URL of an instance for a user (dev mode names them).
fn as_user(instance: &Instance, user: &str) -> String {
    format!("ws://{}/ws?user_id={user}", instance.binary.addr)
}

/// How many user messages the thread holds in the shared database.
async fn user_messages(database_url: &str, thread: &str) -> i64 {
    use sqlx::Connection;
    let mut db = sqlx::PgConnection::connect(database_url).await.unwrap();
    let (count,): (i64,) =
        sqlx::query_as("SELECT COUNT(*) FROM messages WHERE thread_id = $1 AND role = 'user'")
            .bind(thread)
            .fetch_one(&mut db)
            .await
            .unwrap();
    count
}

fn approval_id_of(event: &Value) -> &str {
    event["value"]["approvalId"]
        .as_str()
        .unwrap_or_else(|| panic!("no approval id: {event}"))
}

/// Issue 35, point 1: a reload (no number) on B while A's run waits for its approval shows
/// the run live, the approval request included, and approving it there finishes the run.
#[tokio::test]
async fn a_reload_on_b_while_a_s_run_waits_shows_its_approval_and_approving_there_ends_it() {
    let url = fresh_database().await;
    let a = Instance::start(&url).await;
    let b = Instance::start(&url).await;
    let thread = uuid::Uuid::new_v4().to_string();
    let (_, shown, approval_id) = report_waiting_for_approval(&a, &thread).await;

    let mut socket = b.socket().await;
    socket.send(&resume(&thread, None)).await;
    let resumed = socket.next().await;
    assert_eq!(resumed["name"], "agora:resumed", "{resumed}");
    assert_eq!(resumed["value"]["mode"], "snapshot", "{resumed}");
    assert_eq!(resumed["value"]["running"], true, "{resumed}");
    let caught_up = socket.until_approval_request().await;
    assert_eq!(approval_id_of(caught_up.last().unwrap()), approval_id);
    // The snapshot stops before the run, whose events then follow from its start: nothing
    // shown twice, nothing missing.
    let snapshot = caught_up
        .iter()
        .find(|e| e["type"] == "MESSAGES_SNAPSHOT")
        .unwrap_or_else(|| panic!("a snapshot: {caught_up:?}"));
    let texts = strings(&snapshot["messages"]).join(" ");
    assert!(texts.contains("Genereer het inspectierapport"), "{texts}");
    let run_started = caught_up
        .iter()
        .position(|e| e["type"] == "RUN_STARTED")
        .unwrap_or_else(|| panic!("the run from its start: {caught_up:?}"));
    let numbers = |events: &[Value]| -> Vec<u64> {
        events
            .iter()
            .filter(|e| e.get("seq").is_some())
            .map(seq)
            .collect()
    };
    let replayed = numbers(&caught_up[run_started..]);
    let first_shown = shown
        .iter()
        .position(|e| e["type"] == "RUN_STARTED")
        .unwrap();
    let originally = numbers(&shown[first_shown..]);
    assert_eq!(replayed, originally);

    socket.answer_approval(&approval_id, true, None).await;
    let rest = socket.until_finished().await;
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
    assert_eq!(
        run_statuses(&url, &thread).await,
        ["finished", "finished"],
        "both runs ended well"
    );
}

/// Issue 35, point 1: the newest number, on B at once (before A's batched log write has it):
/// a replay from there, not a snapshot that misses the run.
#[tokio::test]
async fn resuming_on_b_with_the_newest_number_at_once_replays_from_it() {
    let url = fresh_database().await;
    let a = Instance::start(&url).await;
    let b = Instance::start(&url).await;
    for _ in 0..5 {
        let thread = uuid::Uuid::new_v4().to_string();
        // Open before: the resume goes out the moment the approval request arrives.
        let mut socket = b.socket().await;
        let (_, shown, approval_id) = report_waiting_for_approval(&a, &thread).await;
        let last_seen = seq(shown.last().unwrap());
        socket.send(&resume(&thread, Some(last_seen))).await;
        let resumed = socket.next().await;
        assert_eq!(resumed["value"]["mode"], "replay", "{resumed}");
        assert_eq!(resumed["value"]["running"], true, "{resumed}");
        assert_eq!(resumed["value"]["lastSeq"], last_seen, "{resumed}");
        socket.answer_approval(&approval_id, true, None).await;
        let rest = socket.until_finished().await;
        assert_eq!(seq(&rest[0]), last_seen + 1, "{rest:?}");
    }
}

/// Issue 35, point 2: `agora:cancel_run` on B stops the run A runs (it waits for its
/// approval), and B's follower sees it end; a new message on B stops A's run too.
#[tokio::test]
async fn a_cancel_on_b_stops_a_s_run_and_so_does_a_new_message_there() {
    let url = fresh_database().await;
    let a = Instance::start(&url).await;
    let b = Instance::start(&url).await;

    let thread = uuid::Uuid::new_v4().to_string();
    let (_, shown, _) = report_waiting_for_approval(&a, &thread).await;
    let mut socket = b.socket().await;
    socket
        .send(&resume(&thread, Some(seq(shown.last().unwrap()))))
        .await;
    assert_eq!(socket.next().await["value"]["running"], true);
    let asked = Instant::now();
    socket
        .send(&json!({ "type": "CUSTOM", "name": "agora:cancel_run", "value": { "threadId": thread } }))
        .await;
    let ended = socket
        .until(|e| e["type"] == "RUN_ERROR" || e["name"] == "agora:error")
        .await;
    let latency = asked.elapsed();
    let error = ended.last().unwrap();
    assert_eq!(error["code"], "cancelled", "{error}");
    let finished = tokio::time::timeout(Duration::from_secs(30), socket.next())
        .await
        .expect("RUN_FINISHED after RUN_ERROR");
    assert_eq!(finished["type"], "RUN_FINISHED", "{finished}");
    eprintln!("cancel on B ended A's run {} ms later", latency.as_millis());
    assert_eq!(run_statuses(&url, &thread).await, ["finished", "cancelled"]);

    // A new message on B while A's run waits: A's run stops before B's begins.
    let thread = uuid::Uuid::new_v4().to_string();
    report_waiting_for_approval(&a, &thread).await;
    let mut socket = b.socket().await;
    socket
        .ask(&thread, "Welke regels gelden voor allergeneninformatie?")
        .await;
    assert!(!streamed_text(&socket.until_finished().await).is_empty());
    assert_eq!(
        run_statuses(&url, &thread).await,
        ["finished", "cancelled", "finished"]
    );
}

/// Issue 35, point 3: the same message (same id) sent to A and B at once, as an offline
/// queue flushed through two connections does, is answered by one run, 20 times over.
#[tokio::test]
async fn the_same_message_on_a_and_b_at_once_is_answered_once() {
    let url = fresh_database().await;
    let a = Instance::start(&url).await;
    let b = Instance::start(&url).await;
    for round in 0..20 {
        let thread = uuid::Uuid::new_v4().to_string();
        // One inspector a round: 60 runs from one account would meet its runs-per-minute limit.
        let user = format!("inspecteur-{round}");
        let mut first = common::Socket::connect(&as_user(&a, &user)).await;
        first
            .ask(&thread, "Start inspectie bij Trattoria Finta Fiore")
            .await;
        first.until_finished().await;
        let message_id = format!("msg-{}", uuid::Uuid::new_v4().simple());
        let message = json!({
            "threadId": thread,
            "messages": [{ "id": message_id, "role": "user", "content": "Welke regels gelden voor allergeneninformatie?" }],
            "context": {},
        });
        let (mut on_a, mut on_b) = (
            common::Socket::connect(&as_user(&a, &user)).await,
            common::Socket::connect(&as_user(&b, &user)).await,
        );
        tokio::join!(on_a.send(&message), on_b.send(&message));
        let quiet = Duration::from_millis(1000);
        let (heard_a, heard_b) = tokio::join!(
            on_a.events_until_quiet(quiet),
            on_b.events_until_quiet(quiet)
        );
        let started =
            of_type(&heard_a, "RUN_STARTED").len() + of_type(&heard_b, "RUN_STARTED").len();
        assert_eq!(started, 1, "round {round}: {heard_a:?} {heard_b:?}");
        assert_eq!(
            run_statuses(&url, &thread).await,
            ["finished", "finished"],
            "round {round}"
        );
        // Stored once, under one id.
        assert_eq!(user_messages(&url, &thread).await, 2, "round {round}");
    }
}

/// A TCP proxy in front of PostgreSQL that the test can take down, for one instance: its
/// connections are cut, and new ones refused (as a database that stopped) or held without an
/// answer (as one that hangs).
struct DbProxy {
    addr: std::net::SocketAddr,
    mode: std::sync::Arc<std::sync::Mutex<ProxyMode>>,
    links: std::sync::Arc<std::sync::Mutex<Vec<tokio::task::JoinHandle<()>>>>,
    accept: tokio::task::JoinHandle<()>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum ProxyMode {
    Up,
    Refusing,
    Hanging,
}

impl DbProxy {
    async fn start(database_url: &str) -> (Self, String) {
        let (head, rest) = database_url.split_once('@').unwrap();
        let (upstream, database) = rest.split_once('/').unwrap();
        let upstream = upstream.to_owned();
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let mode = std::sync::Arc::new(std::sync::Mutex::new(ProxyMode::Up));
        let links = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let accept = tokio::spawn({
            let (mode, links) = (mode.clone(), links.clone());
            async move {
                while let Ok((mut client, _)) = listener.accept().await {
                    let current = *mode.lock().unwrap();
                    let upstream = upstream.clone();
                    let link = tokio::spawn(async move {
                        match current {
                            ProxyMode::Up => {
                                let Ok(mut server) =
                                    tokio::net::TcpStream::connect(&upstream).await
                                else {
                                    return;
                                };
                                let _ =
                                    tokio::io::copy_bidirectional(&mut client, &mut server).await;
                            }
                            ProxyMode::Refusing => drop(client),
                            ProxyMode::Hanging => {
                                std::future::pending::<()>().await;
                                drop(client);
                            }
                        }
                    });
                    links.lock().unwrap().push(link);
                }
            }
        });
        let url = format!("{head}@{addr}/{database}");
        (
            Self {
                addr,
                mode,
                links,
                accept,
            },
            url,
        )
    }

    /// Cuts every connection through it, and treats new ones so from now on.
    fn set(&self, mode: ProxyMode) {
        *self.mode.lock().unwrap() = mode;
        if mode != ProxyMode::Up {
            for link in self.links.lock().unwrap().drain(..) {
                link.abort();
            }
        }
    }
}

impl Drop for DbProxy {
    fn drop(&mut self) {
        self.accept.abort();
        self.set(ProxyMode::Refusing);
        let _ = self.addr;
    }
}

/// Issue 35, point 6: while the database hangs, `/ready` says 503 within a second (its own
/// short check), before a probe's own timeout; and 200 again once it answers.
#[tokio::test]
async fn ready_says_503_at_once_while_the_database_hangs() {
    let url = fresh_database().await;
    let (proxy, through_proxy) = DbProxy::start(&url).await;
    let a = Instance::start(&through_proxy).await;
    let probe = reqwest::Client::builder()
        .timeout(Duration::from_secs(2))
        .build()
        .unwrap();
    let ready = || probe.get(format!("http://{}/ready", a.binary.addr)).send();
    assert_eq!(ready().await.unwrap().status(), 200);
    proxy.set(ProxyMode::Hanging);
    for _ in 0..3 {
        let asked = Instant::now();
        let answer = ready()
            .await
            .unwrap_or_else(|e| panic!("no answer within the probe's 2 s: {e}"));
        eprintln!(
            "/ready answered {} in {} ms",
            answer.status(),
            asked.elapsed().as_millis()
        );
        assert_eq!(answer.status(), 503);
        let body: Value = answer.json().await.unwrap();
        assert_eq!(body["status"], "unavailable", "{body}");
    }
    proxy.set(ProxyMode::Up);
    let mut back = false;
    for _ in 0..100 {
        if ready().await.is_ok_and(|r| r.status() == 200) {
            back = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(back, "ready again once the database answers");
}

/// Issue 35, point 4: PostgreSQL stops for 30 s while A's run waits for an approval (every
/// connection of both instances, A's LISTEN too, is cut and new ones are refused); it comes
/// back and the approval is answered on B at once, before A listens again. A finds the
/// answer (kept in the database) and the run completes.
#[tokio::test]
async fn an_approval_answered_while_a_listens_again_is_not_lost() {
    /// Long enough that nobody interrupts A's run while it cannot renew its lease.
    const LONG_LEASE: u64 = 120;
    /// As the issue has it: a restart, a failover.
    const OUTAGE: Duration = Duration::from_secs(30);
    let url = fresh_database().await;
    let (proxy, through_proxy) = DbProxy::start(&url).await;
    let a = Instance::start_with_lease(&through_proxy, LONG_LEASE).await;
    let b = Instance::start_with_lease(&through_proxy, LONG_LEASE).await;
    let thread = uuid::Uuid::new_v4().to_string();
    let (_, shown, approval_id) = report_waiting_for_approval(&a, &thread).await;
    let mut socket = b.socket().await;
    socket
        .send(&resume(&thread, Some(seq(shown.last().unwrap()))))
        .await;
    assert_eq!(socket.next().await["value"]["running"], true);

    proxy.set(ProxyMode::Refusing);
    tokio::time::sleep(OUTAGE).await;
    proxy.set(ProxyMode::Up);
    socket.answer_approval(&approval_id, true, None).await;
    // Bounded: a lost answer leaves the run waiting until its approval expires, and the
    // socket's pings would keep a plain wait going that long.
    let rest = tokio::time::timeout(Duration::from_secs(60), socket.until_finished())
        .await
        .expect("the run completes once the answer is found");
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
    assert_eq!(run_statuses(&url, &thread).await, ["finished", "finished"]);
}

/// Issue 35, point 5: a report made on A is downloaded on B (each has its own data
/// directory): PDF and JSON, the same bytes.
#[tokio::test]
async fn a_report_made_on_a_is_served_by_b() {
    let url = fresh_database().await;
    let a = Instance::start(&url).await;
    let b = Instance::start(&url).await;
    let thread = uuid::Uuid::new_v4().to_string();
    let (_, _, approval_id) = report_waiting_for_approval(&a, &thread).await;
    let mut socket = a.socket().await;
    socket.send(&resume(&thread, None)).await;
    socket.answer_approval(&approval_id, true, None).await;
    let rest = socket.until_finished().await;
    let result = rest
        .iter()
        .find(|e| {
            e["type"] == "TOOL_CALL_RESULT"
                && e["content"]
                    .as_str()
                    .is_some_and(|c| c.contains("reportId"))
        })
        .unwrap_or_else(|| panic!("the report's result: {rest:?}"));
    let content: Value = serde_json::from_str(result["content"].as_str().unwrap()).unwrap();
    let pdf_url = content["downloadUrl"].as_str().unwrap();
    let json_url = content["jsonUrl"].as_str().unwrap();
    let fetch = |instance: &Instance, path: &str| {
        let url = format!("http://{}{path}", instance.binary.addr);
        async move {
            let response = reqwest::get(url).await.unwrap();
            let status = response.status();
            (status, response.bytes().await.unwrap().to_vec())
        }
    };
    for path in [pdf_url, json_url] {
        let (on_a, from_a) = fetch(&a, path).await;
        assert_eq!(on_a, 200, "{path} on A");
        let (on_b, from_b) = fetch(&b, path).await;
        assert_eq!(on_b, 200, "{path} on B");
        assert!(from_a == from_b, "{path}: the same bytes on both");
    }
    let (_, pdf) = fetch(&b, pdf_url).await;
    assert!(pdf.starts_with(b"%PDF"), "a PDF");
}

/// The stored decision on an approval, read from the shared database: approved, and the
/// edited arguments as JSON.
async fn stored_decision(database_url: &str, approval_id: &str) -> (Option<bool>, Option<Value>) {
    use sqlx::Connection;
    let mut db = sqlx::PgConnection::connect(database_url).await.unwrap();
    let (approved, edited): (Option<bool>, Option<String>) =
        sqlx::query_as("SELECT approved, edited_args FROM approvals WHERE approval_id = $1")
            .bind(approval_id)
            .fetch_one(&mut db)
            .await
            .unwrap();
    (approved, edited.map(|e| serde_json::from_str(&e).unwrap()))
}

/// An approval answered with edits on B while its run waits on A: edits the report tool
/// refuses (a KVK number that is not one) get a clear `agora:error` on B, and nothing of them
/// is kept, so the inspector's corrected edits, on B again, are taken (not refused as a
/// duplicate) and finish A's run with exactly those arguments.
#[tokio::test]
async fn a_bad_edit_on_b_is_refused_there_and_the_corrected_one_finishes_a_s_run() {
    let url = fresh_database().await;
    let a = Instance::start(&url).await;
    let b = Instance::start(&url).await;
    let thread = uuid::Uuid::new_v4().to_string();
    let (_, shown, approval_id) = report_waiting_for_approval(&a, &thread).await;
    let asked = shown.last().unwrap()["value"]["parameters"].clone();
    assert!(asked["kvk"].is_string(), "{asked}");
    let mut socket = b.socket().await;
    socket
        .send(&resume(&thread, Some(seq(shown.last().unwrap()))))
        .await;
    assert_eq!(socket.next().await["value"]["running"], true);
    let answer = |edited: &Value| {
        json!({
            "type": "CUSTOM", "name": "agora:tool_approval_response",
            "value": { "approvalId": approval_id, "approved": true, "editedArgs": edited }
        })
    };

    let mut bad = asked.clone();
    bad["kvk"] = json!("1234");
    socket.send(&answer(&bad)).await;
    // Bounded: the socket's pings would keep a plain wait going for ever.
    let error = tokio::time::timeout(Duration::from_secs(30), socket.next())
        .await
        .expect("an answer to the bad edit");
    assert_eq!(error["name"], "agora:error", "{error}");
    assert_eq!(
        error["value"]["errorCode"], "invalid_edited_args",
        "{error}"
    );
    assert_eq!(
        error["value"]["details"]["approvalId"],
        approval_id.as_str(),
        "{error}"
    );
    assert!(error["value"].to_string().contains("`kvk`"), "{error}");
    assert_eq!(stored_decision(&url, &approval_id).await, (None, None));

    let mut corrected = asked.clone();
    corrected["findings"] = json!([{
        "number": 1,
        "description": "Rauwe vis boven de groenten in de koelcel, 12 °C",
        "severity": "ernstig"
    }]);
    socket.send(&answer(&corrected)).await;
    let rest = tokio::time::timeout(Duration::from_secs(60), socket.until_finished())
        .await
        .expect("A's run finishes with the corrected edits");
    assert!(rest.iter().all(|e| e["name"] != "agora:error"), "{rest:?}");
    let report_call = rest
        .iter()
        .find(|e| e["type"] == "TOOL_CALL_ARGS")
        .unwrap_or_else(|| panic!("the report's arguments: {rest:?}"));
    let ran_with: Value = serde_json::from_str(report_call["delta"].as_str().unwrap()).unwrap();
    assert_eq!(
        ran_with, corrected,
        "what ran is what the inspector approved"
    );
    let result = rest
        .iter()
        .find(|e| e["type"] == "TOOL_CALL_RESULT")
        .unwrap_or_else(|| panic!("the report's result: {rest:?}"));
    assert!(
        result["content"]
            .as_str()
            .is_some_and(|c| c.contains("downloadUrl")),
        "{result}"
    );
    assert_eq!(
        stored_decision(&url, &approval_id).await,
        (Some(true), Some(corrected))
    );
    assert_eq!(run_statuses(&url, &thread).await, ["finished", "finished"]);
}

/// The thread's logged events, in order: number and JSON, from the shared database.
async fn logged_events(database_url: &str, thread: &str) -> Vec<(u64, Value)> {
    use sqlx::Connection;
    let mut db = sqlx::PgConnection::connect(database_url).await.unwrap();
    let rows: Vec<(i64, String)> =
        sqlx::query_as("SELECT seq, body FROM thread_events WHERE thread_id = $1 ORDER BY seq")
            .bind(thread)
            .fetch_all(&mut db)
            .await
            .unwrap();
    rows.into_iter()
        .map(|(seq, body)| (seq as u64, serde_json::from_str(&body).unwrap()))
        .collect()
}

/// Issue 35: a run ends on one instance and the thread's next run starts at once on the
/// other, back and forth, the other instance following the thread or not: the thread's
/// numbers run on without a gap and none is given twice; what each client saw is what the
/// shared log holds. Twelve threads.
#[tokio::test]
async fn numbers_run_on_contiguously_when_the_next_run_starts_on_the_other_instance() {
    let url = fresh_database().await;
    let a = Instance::start(&url).await;
    let b = Instance::start(&url).await;
    let questions = [
        "Start inspectie bij Trattoria Finta Fiore",
        "Welke regels gelden voor allergeneninformatie?",
        "Wat zegt de wet over de temperatuur van een koelcel?",
        "Moet een bakkerij een HACCP-plan hebben?",
    ];
    for round in 0..12 {
        let thread = uuid::Uuid::new_v4().to_string();
        let user = format!("inspecteur-{round}");
        let mut follower = None;
        let mut seen: Vec<Value> = Vec::new();
        let mut first_followed = 0;
        for (turn, question) in questions.iter().enumerate() {
            let on = if turn % 2 == 0 { &a } else { &b };
            let mut socket = common::Socket::connect(&as_user(on, &user)).await;
            socket.ask(&thread, question).await;
            let events = socket.until_finished().await;
            assert!(
                events.iter().all(|e| e["type"] != "RUN_ERROR"),
                "round {round}, turn {turn}: {events:?}"
            );
            seen.extend(events.into_iter().filter(|e| e.get("seq").is_some()));
            // Every other round, B follows the thread once it exists (its journal then takes
            // A's numbers from the log as they come); the other rounds it knows nothing of it
            // when its run starts.
            if turn == 0 && round % 2 == 1 {
                let mut socket = common::Socket::connect(&as_user(&b, &user)).await;
                socket.send(&resume(&thread, None)).await;
                let resumed = socket.next().await;
                assert_eq!(resumed["name"], "agora:resumed", "{resumed}");
                follower = Some(socket);
                first_followed = seen.len();
            }
        }
        let numbers: Vec<u64> = seen.iter().map(seq).collect();
        assert!(
            numbers.windows(2).all(|w| w[1] == w[0] + 1),
            "round {round}: contiguous and once each across instances: {numbers:?}"
        );
        assert_eq!(
            of_type(&seen, "RUN_STARTED").len(),
            questions.len(),
            "round {round}"
        );
        let logged = logged_events(&url, &thread).await;
        let logged_numbers: Vec<u64> = logged.iter().map(|(seq, _)| *seq).collect();
        assert_eq!(
            logged_numbers, numbers,
            "round {round}: the log holds them all"
        );
        for ((_, body), event) in logged.iter().zip(&seen) {
            assert_eq!(
                body["type"], event["type"],
                "round {round}: the log's event {body} is the one sent: {event}"
            );
        }
        if let Some(follower) = &mut follower {
            // The follower heard the three runs after it came, in order, each number once.
            let expected = &numbers[first_followed..];
            let mut heard = Vec::new();
            while heard.len() < expected.len() {
                // Bounded: the socket's pings would keep a plain wait going for ever.
                let event = tokio::time::timeout(Duration::from_secs(30), follower.next())
                    .await
                    .unwrap_or_else(|_| {
                        panic!("round {round}: B's follower heard {heard:?} of {expected:?}")
                    });
                if event.get("seq").is_some() {
                    heard.push(seq(&event));
                }
            }
            assert_eq!(heard, expected, "round {round}: what B's follower heard");
        }
    }
}

/// The id of the first RUN_STARTED among `events`.
fn started_run(events: &[Value]) -> String {
    of_type(events, "RUN_STARTED")
        .last()
        .and_then(|e| e["runId"].as_str())
        .unwrap_or_else(|| panic!("a RUN_STARTED: {events:?}"))
        .to_owned()
}

/// Issue 35: A is killed while its run waits for an approval, and the inspector, reloaded on
/// B, sends a new message there. B waits for A's run only until its lease says A is dead
/// (longer than the 10 s a live instance gets to stop a run, here), then marks it
/// interrupted itself and tells its followers, and only then starts the new run: the two
/// never overlap, and the thread's log reads A's run, its interruption, B's run, numbered on
/// without a gap or a number twice.
#[tokio::test]
async fn a_new_message_on_b_waits_for_a_dead_instance_s_run_only_until_its_lease_runs_out() {
    /// Longer than the 10 s a live instance gets to stop a run, so that starting before the
    /// lease ran out would overlap the dead run.
    const LEASE: u64 = 12;
    let url = fresh_database().await;
    let mut a = Instance::start_with_lease(&url, LEASE).await;
    let b = Instance::start_with_lease(&url, LEASE).await;
    let thread = uuid::Uuid::new_v4().to_string();
    let (_, shown, _) = report_waiting_for_approval(&a, &thread).await;
    let dead_run = started_run(&shown);
    let mut socket = b.socket().await;
    socket.send(&resume(&thread, None)).await;
    assert_eq!(socket.next().await["value"]["running"], true);

    a.binary.kill();
    let killed = Instant::now();
    socket
        .ask(&thread, "Welke regels gelden voor allergeneninformatie?")
        .await;
    let events = socket
        .until(|e| e["type"] == "RUN_FINISHED" && e["runId"] != dead_run.as_str())
        .await;
    eprintln!(
        "the new run on B ended {} ms after A was killed (lease {LEASE} s)",
        killed.elapsed().as_millis()
    );
    let new_run = started_run(&events);
    assert_ne!(new_run, dead_run);
    assert!(!streamed_text(&events).is_empty(), "{events:?}");
    assert_eq!(
        run_statuses(&url, &thread).await,
        ["finished", "interrupted", "finished"]
    );

    let logged = logged_events(&url, &thread).await;
    let numbers: Vec<u64> = logged.iter().map(|(seq, _)| *seq).collect();
    assert!(
        numbers.windows(2).all(|w| w[1] == w[0] + 1),
        "contiguous: {numbers:?}"
    );
    let position = |wanted: &dyn Fn(&Value) -> bool| {
        logged
            .iter()
            .position(|(_, event)| wanted(event))
            .unwrap_or_else(|| panic!("not logged: {logged:?}"))
    };
    let interrupted = position(&|e| e["type"] == "RUN_ERROR" && e["code"] == "run_interrupted");
    assert_eq!(logged[interrupted].1["runId"], dead_run.as_str());
    assert_eq!(logged[interrupted + 1].1["type"], "RUN_FINISHED");
    assert_eq!(logged[interrupted + 1].1["runId"], dead_run.as_str());
    let new_start = position(&|e| e["type"] == "RUN_STARTED" && e["runId"] == new_run.as_str());
    assert_eq!(
        new_start,
        interrupted + 2,
        "the new run starts right after the dead one's ending: {logged:?}"
    );
    // What A showed before it died is logged, right before its interruption.
    assert_eq!(
        logged[interrupted - 1].0,
        seq(shown.last().unwrap()),
        "{logged:?}"
    );
}

/// A socket a chaos client may lose at any moment: every step says whether it worked.
struct FragileSocket(
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>,
);

impl FragileSocket {
    async fn connect(url: &str) -> Option<Self> {
        let connecting = tokio_tungstenite::connect_async(url);
        match tokio::time::timeout(Duration::from_secs(5), connecting).await {
            Ok(Ok((stream, _))) => Some(Self(stream)),
            _ => None,
        }
    }

    async fn send(&mut self, value: &Value) -> bool {
        use futures::SinkExt;
        let frame = tokio_tungstenite::tungstenite::Message::Text(value.to_string().into());
        self.0.send(frame).await.is_ok()
    }

    /// The next event; `None` when the connection is gone or says nothing for `within`.
    async fn next(&mut self, within: Duration) -> Option<Value> {
        use futures::StreamExt;
        use tokio_tungstenite::tungstenite::Message as Frame;
        loop {
            match tokio::time::timeout(within, self.0.next()).await {
                Ok(Some(Ok(Frame::Text(text)))) => return serde_json::from_str(&text).ok(),
                Ok(Some(Ok(Frame::Ping(_) | Frame::Pong(_)))) => continue,
                _ => return None,
            }
        }
    }
}

/// The instances of the chaos test, by slot: the address of the one running there, if any.
type Slots = std::sync::Arc<std::sync::Mutex<Vec<Option<String>>>>;

/// How one message of a chaos client ended.
#[derive(Debug, Default)]
struct Delivery {
    /// Sends it took (a lost connection means sending it again, with the same id).
    attempts: u32,
    /// Attempts that heard nothing for 30 s on a live connection: a follower left waiting.
    stalls: u32,
}

/// One inspector's message, sent (and sent again, with its id, after every lost connection)
/// through whichever instance is up, as the offline queue of AGORA's client does, until a run
/// that answers it is seen to end: RUN_FINISHED of the run a resume names live, or a resume
/// that names none (the message was taken and its run has ended).
async fn deliver(slots: &Slots, user: &str, thread: &str, id: &str, text: &str) -> Delivery {
    let mut delivery = Delivery::default();
    let message = json!({
        "threadId": thread,
        "messages": [{ "id": id, "role": "user", "content": text }],
        "context": {},
    });
    for attempt in 0.. {
        assert!(attempt < 200, "{user}: {id} never delivered: {delivery:?}");
        let live: Vec<String> = slots.lock().unwrap().iter().flatten().cloned().collect();
        let Some(addr) = live.get(attempt % live.len().max(1)).cloned() else {
            tokio::time::sleep(Duration::from_millis(200)).await;
            continue;
        };
        let Some(mut socket) =
            FragileSocket::connect(&format!("ws://{addr}/ws?user_id={user}")).await
        else {
            continue;
        };
        delivery.attempts += 1;
        // Handled in order: the message (taken, or known already), then the resume, whose
        // marker says whether a run goes on and which.
        if !socket.send(&message).await || !socket.send(&resume(thread, None)).await {
            continue;
        }
        let mut live_run: Option<String> = None;
        loop {
            let Some(event) = socket.next(Duration::from_secs(30)).await else {
                if slots.lock().unwrap().contains(&Some(addr.clone())) {
                    delivery.stalls += 1;
                }
                break;
            };
            if event["name"] == "agora:error" {
                // Refused (the database was briefly unreachable through a dying instance,
                // say): send it again.
                tokio::time::sleep(Duration::from_millis(200)).await;
                break;
            }
            if event["name"] == "agora:resumed" {
                match event["value"]["runId"].as_str() {
                    Some(run) if event["value"]["running"] == true => {
                        live_run = Some(run.to_owned());
                    }
                    _ => return delivery,
                }
            }
            if event["type"] == "RUN_FINISHED"
                && live_run.as_deref().is_some_and(|run| event["runId"] == run)
            {
                return delivery;
            }
        }
    }
    unreachable!()
}

/// Issue 35: three instances on one database; every few seconds one of them is killed
/// (SIGKILL) and started again, while 20 inspectors (each a thread of their own) send message
/// after message through whichever instance is up, sending again after every lost
/// connection. Afterwards: no message is stored twice nor answered by two runs, no run is
/// left `running` once the last lease has run out, and every thread's last run ended with a
/// terminal event in the log.
#[tokio::test]
async fn three_instances_one_killed_every_few_seconds_while_twenty_inspectors_work() {
    const CLIENTS: usize = 20;
    const KILLS: usize = 8;
    const KILL_EVERY: Duration = Duration::from_secs(3);
    let url = fresh_database().await;
    let mut instances = Vec::new();
    for _ in 0..3 {
        instances.push(Some(Instance::start(&url).await));
    }
    let slots: Slots = std::sync::Arc::new(std::sync::Mutex::new(
        instances
            .iter()
            .map(|i| i.as_ref().map(|i| i.binary.addr.clone()))
            .collect(),
    ));
    let questions = [
        "Start inspectie bij Trattoria Finta Fiore",
        "Welke regels gelden voor allergeneninformatie?",
        "Wat zegt de wet over de temperatuur van een koelcel?",
        "Moet een bakkerij een HACCP-plan hebben?",
        "De handenwasgelegenheid in de keuken heeft geen zeep",
    ];
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let clients: Vec<_> = (0..CLIENTS)
        .map(|client| {
            let (slots, stop) = (slots.clone(), stop.clone());
            tokio::spawn(async move {
                let user = format!("inspecteur-{client}");
                let thread = uuid::Uuid::new_v4().to_string();
                let mut sent = Vec::new();
                let mut deliveries = Vec::new();
                let mut n = 0;
                while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                    let id = format!("msg-{client}-{n}");
                    let text = format!("{} ({client}.{n})", questions[n % questions.len()]);
                    deliveries.push(deliver(&slots, &user, &thread, &id, &text).await);
                    sent.push((id, text));
                    n += 1;
                }
                (thread, sent, deliveries)
            })
        })
        .collect();

    // The chaos: one instance after another killed and started again on a new address.
    for kill in 0..KILLS {
        tokio::time::sleep(KILL_EVERY).await;
        let slot = kill % instances.len();
        slots.lock().unwrap()[slot] = None;
        if let Some(mut instance) = instances[slot].take() {
            instance.binary.kill();
        }
        let instance = Instance::start(&url).await;
        slots.lock().unwrap()[slot] = Some(instance.binary.addr.clone());
        instances[slot] = Some(instance);
    }
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    let mut results = Vec::new();
    for client in clients {
        results.push(client.await.unwrap());
    }
    // The last kill's runs: their lease runs out, then a surviving instance's next look
    // (every third of the lease) marks them.
    tokio::time::sleep(Duration::from_secs(LEASE_SECS * 2 + 1)).await;

    use sqlx::Connection;
    let mut db = sqlx::PgConnection::connect(&url).await.unwrap();
    let running: Vec<(String, String)> =
        sqlx::query_as("SELECT id, thread_id FROM runs WHERE status = 'running'")
            .fetch_all(&mut db)
            .await
            .unwrap();
    assert!(running.is_empty(), "left running: {running:?}");
    let mut messages_sent = 0;
    let (mut attempts, mut stalls) = (0, 0);
    for (thread, sent, deliveries) in &results {
        messages_sent += sent.len();
        attempts += deliveries.iter().map(|d| d.attempts).sum::<u32>();
        stalls += deliveries.iter().map(|d| d.stalls).sum::<u32>();
        let stored: Vec<(String, String)> = sqlx::query_as(
            "SELECT id, body FROM messages WHERE thread_id = $1 AND role = 'user' ORDER BY seq",
        )
        .bind(thread)
        .fetch_all(&mut db)
        .await
        .unwrap();
        // Each message once, under the id it was sent with, and nothing else.
        let mut texts: Vec<String> = stored
            .iter()
            .map(|(_, body)| {
                strings(&serde_json::from_str::<Value>(body).unwrap()["content"]).join("")
            })
            .collect();
        let ids: Vec<&str> = stored.iter().map(|(id, _)| id.as_str()).collect();
        for id in &ids {
            assert!(
                sent.iter().any(|(s, _)| s == id),
                "{thread}: stored {id} never sent"
            );
        }
        texts.sort();
        let before = texts.len();
        texts.dedup();
        assert_eq!(
            texts.len(),
            before,
            "{thread}: a message stored twice: {stored:?}"
        );
        // Answered once: no more runs than messages taken.
        let statuses = run_statuses(&url, thread).await;
        assert!(
            statuses.len() <= stored.len(),
            "{thread}: {} runs for {} messages",
            statuses.len(),
            stored.len()
        );
        // The last run ended, and the log says so last.
        let (last_run,): (String,) = sqlx::query_as(
            "SELECT id FROM runs WHERE thread_id = $1 ORDER BY started_at DESC, rowid DESC LIMIT 1",
        )
        .bind(thread)
        .fetch_one(&mut db)
        .await
        .unwrap();
        let logged = logged_events(&url, thread).await;
        let (_, last) = logged
            .last()
            .unwrap_or_else(|| panic!("{thread}: nothing logged"));
        assert_eq!(last["type"], "RUN_FINISHED", "{thread}: {logged:?}");
        assert_eq!(last["runId"], last_run.as_str(), "{thread}: {logged:?}");
    }
    eprintln!(
        "{KILLS} kills; {messages_sent} messages by {CLIENTS} inspectors in {} sends; {stalls} stalls",
        attempts
    );
    assert_eq!(
        stalls, 0,
        "a follower on a live instance heard nothing for 30 s"
    );
    assert!(messages_sent >= CLIENTS * 2, "the inspectors did work");
}
