//! Load against the release binary, from outside, as clients see it: `make bench-load`.
//!
//! The server runs as its own process (so its CPU and memory are read from `/proc` apart from
//! this load generator's) on a free loopback port, with `--auth dev` and the per-address and
//! per-user limits raised: every client here comes from 127.0.0.1.
//!
//! Stages, chosen with arguments (all of them when none is given):
//! - `idle:N:S`: N open, silent WebSockets and S slow-header connections (one header line a
//!   second, reopened when the server cuts them) held while `/health` is asked 200 times and a
//!   run is made 5 times; reports server memory per socket and the latencies under that load.
//! - `runs:CxR`: C connections, each making R runs of the scripted inspection (start, a finding,
//!   the report with its approval answered), every stream checked by the protocol verifier;
//!   reports runs/s, run latency p50/p99, time to first text, server CPU per run.
//! - `slow:CxR`: the same with one of the C clients reading a frame every 25 ms; the latency
//!   figures are the others', to compare with `runs:CxR` (nobody waits for a slow reader).
//! - `detached:N`: N users each take an inspection to its report's approval and drop their
//!   socket there (issue 16): reports server memory per detached run, then N new sockets
//!   resume (`agora:resume`) from just before the report run and from nothing (a reload),
//!   timing each until the approval request is back, and the server CPU per resume.
//!
//! - `large:N:B`: one user sends N messages of B bytes at once while another runs the scripted
//!   inspection (issue 31): that user's run p50/p99 and `/health`'s, quiet and under the load.
//!
//! Figures are printed, never asserted: the machine is shared and timing tests lie.

use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use agora_hai::protocol::{Dialect, Event, verify};
use futures::{SinkExt, StreamExt};
use serde_json::{Value, json};
use tokio::io::AsyncWriteExt;
use tokio_tungstenite::tungstenite::Message as Frame;

type Ws =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

/// The server under test: its process, address and data directory (removed at the end).
struct Server {
    child: Child,
    addr: String,
    data: PathBuf,
}

impl Server {
    async fn start(binary: &PathBuf) -> Server {
        Self::start_with(binary, &[]).await
    }

    /// Started with `extra` arguments (e.g. `--database-url`).
    async fn start_with(binary: &PathBuf, extra: &[String]) -> Server {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let addr = format!("127.0.0.1:{port}");
        let data = std::env::temp_dir().join(format!("agora-load-{}", uuid::Uuid::new_v4()));
        let child = Command::new(binary)
            .args(["--addr", &addr, "--auth", "dev"])
            .arg("--data-dir")
            .arg(&data)
            .args(["--max-connections-per-address", "100000"])
            .args(["--max-sockets-per-user", "100000"])
            .args(["--runs-per-minute", "1000000"])
            .args(extra)
            .env("RUST_LOG", "warn")
            .stdout(Stdio::null())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {}: {e}", binary.display()));
        let server = Server { child, addr, data };
        let http = reqwest::Client::new();
        for _ in 0..300 {
            if http.get(server.url("/health")).send().await.is_ok() {
                return server;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        panic!("the server did not answer /health within 30 s");
    }

    fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Resident memory in KiB.
    fn rss_kib(&self) -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.pid())).unwrap();
        status
            .lines()
            .find_map(|l| l.strip_prefix("VmRSS:"))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
            .unwrap()
    }

    /// CPU time used so far, user and system.
    fn cpu(&self) -> Duration {
        let stat = std::fs::read_to_string(format!("/proc/{}/stat", self.pid())).unwrap();
        // The fields after the command name (which may hold spaces) in parentheses.
        let rest = &stat[stat.rfind(')').unwrap() + 2..];
        let fields: Vec<&str> = rest.split(' ').collect();
        let ticks: u64 = fields[11].parse::<u64>().unwrap() + fields[12].parse::<u64>().unwrap();
        // SAFETY: sysconf only reads a constant of the system.
        let per_second = unsafe { libc::sysconf(libc::_SC_CLK_TCK) } as u64;
        Duration::from_micros(ticks * 1_000_000 / per_second)
    }

    async fn socket(&self, user: String) -> Ws {
        let url = format!("ws://{}/ws?user_id={user}", self.addr);
        tokio_tungstenite::connect_async(url).await.unwrap().0
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.data);
    }
}

/// What one run took: from the message sent to RUN_FINISHED, and to its first text.
struct RunTiming {
    total: Duration,
    first_text: Option<Duration>,
    events: usize,
    /// Bytes of the events' JSON as received.
    bytes: usize,
}

/// Sends `text` on `thread` and reads to RUN_FINISHED, approving any approval request; the
/// stream must pass the AGORA verifier. With `pace`, the reader waits that long after each
/// frame (a tablet on a poor connection).
async fn run(ws: &mut Ws, thread: &str, text: &str) -> RunTiming {
    run_paced(ws, thread, text, None).await
}

async fn run_paced(ws: &mut Ws, thread: &str, text: &str, pace: Option<Duration>) -> RunTiming {
    let start = Instant::now();
    let input = json!({ "threadId": thread, "messages": [{ "role": "user", "content": text }], "context": {} });
    ws.send(Frame::Text(input.to_string().into()))
        .await
        .unwrap();
    let mut first_text = None;
    let mut bytes = 0;
    let mut events: Vec<Event> = Vec::new();
    loop {
        let frame = tokio::time::timeout(Duration::from_secs(120), ws.next())
            .await
            .expect("no event within 120 s")
            .expect("socket closed")
            .expect("socket error");
        let Frame::Text(text) = frame else { continue };
        bytes += text.len();
        let value: Value = serde_json::from_str(&text).unwrap();
        let kind = value["type"].as_str().unwrap_or_default().to_owned();
        if kind == "TEXT_MESSAGE_CONTENT" && first_text.is_none() {
            first_text = Some(start.elapsed());
        }
        if kind == "CUSTOM" && value["name"] == "agora:tool_approval_request" {
            let answer = json!({ "type": "CUSTOM", "name": "agora:tool_approval_response",
                "value": { "approvalId": value["value"]["approvalId"], "approved": true } });
            ws.send(Frame::Text(answer.to_string().into()))
                .await
                .unwrap();
        }
        if kind == "RUN_ERROR" {
            panic!("the run failed: {value}");
        }
        if kind == "CUSTOM" && value["name"] == "agora:error" {
            panic!("the run was refused: {value}");
        }
        if let Some(pause) = pace {
            tokio::time::sleep(pause).await;
        }
        events.push(serde_json::from_value(value).unwrap());
        if kind == "RUN_FINISHED" {
            break;
        }
    }
    let violations = verify(&events, Dialect::Agora);
    assert!(violations.is_empty(), "verifier: {violations:#?}");
    RunTiming {
        total: start.elapsed(),
        first_text,
        events: events.len(),
        bytes,
    }
}

/// The scripted inspection, one step a run: `step` counts on from 0 per connection.
fn script(step: usize) -> &'static str {
    const STEPS: [&str; 3] = [
        "Start inspectie bij Trattoria Finta Fiore, KVK 99990001",
        "Bevinding: de koelcel staat op 9 °C, gemeten om 10:15; de kerntemperatuur van de kip was 8 °C.",
        "Genereer het inspectierapport zonder vragen",
    ];
    STEPS[step % STEPS.len()]
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let rank = ((sorted.len() as f64) * p).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

fn ms(d: Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1000.0)
}

/// `/health` asked `n` times in a row on one kept-alive connection: p50, p99, max.
async fn health_latency(server: &Server, n: usize) -> (Duration, Duration, Duration) {
    let http = reqwest::Client::new();
    let mut times = Vec::with_capacity(n);
    for _ in 0..n {
        let start = Instant::now();
        let status = http
            .get(server.url("/health"))
            .send()
            .await
            .unwrap()
            .status();
        assert!(status.is_success(), "/health answered {status}");
        times.push(start.elapsed());
    }
    times.sort();
    (
        percentile(&times, 0.5),
        percentile(&times, 0.99),
        *times.last().unwrap(),
    )
}

async fn idle_stage(binary: &PathBuf, sockets: usize, slow: usize) {
    let server = Server::start(binary).await;
    let (h50, h99, _) = health_latency(&server, 200).await;
    let rss_before = server.rss_kib();
    let mut held: Vec<Ws> = Vec::with_capacity(sockets);
    for batch in 0..sockets.div_ceil(100) {
        let opened = futures::future::join_all(
            (batch * 100..((batch + 1) * 100).min(sockets))
                .map(|i| server.socket(format!("idle-{i}"))),
        )
        .await;
        held.extend(opened);
    }
    tokio::time::sleep(Duration::from_secs(1)).await;
    let rss_sockets = server.rss_kib();

    // Slow-header connections, each reopened as soon as the server cuts it.
    let stop = tokio_util::sync::CancellationToken::new();
    let cut = Arc::new(AtomicUsize::new(0));
    for _ in 0..slow {
        let (addr, stop, cut) = (server.addr.clone(), stop.clone(), cut.clone());
        tokio::spawn(async move {
            while !stop.is_cancelled() {
                let Ok(mut tcp) = tokio::net::TcpStream::connect(&addr).await else {
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    continue;
                };
                let _ = tcp.write_all(b"GET /health HTTP/1.1\r\nHost: x\r\n").await;
                loop {
                    tokio::select! {
                        _ = stop.cancelled() => return,
                        _ = tokio::time::sleep(Duration::from_secs(1)) => {}
                    }
                    if tcp.write_all(b"X-Slow: 1\r\n").await.is_err() {
                        cut.fetch_add(1, Ordering::Relaxed);
                        break;
                    }
                }
            }
        });
    }
    tokio::time::sleep(Duration::from_secs(2)).await;
    let (l50, l99, lmax) = health_latency(&server, 200).await;
    let mut ws = server.socket("idle-runner".into()).await;
    let mut runs = Vec::new();
    for n in 0..5 {
        runs.push(
            run(&mut ws, &format!("idle-run-{n}"), script(0))
                .await
                .total,
        );
    }
    runs.sort();
    // Long enough for the header-read timeout (10 s) to cut each slow connection at least once.
    tokio::time::sleep(Duration::from_secs(12)).await;
    let rss_loaded = server.rss_kib();
    stop.cancel();

    println!("idle: {sockets} sockets, {slow} slow-header connections");
    println!("  /health alone: p50 {}, p99 {}", ms(h50), ms(h99));
    println!(
        "  /health under load: p50 {}, p99 {}, max {}",
        ms(l50),
        ms(l99),
        ms(lmax)
    );
    println!(
        "  a run under load (inspection start, 5 times): median {}, max {}",
        ms(runs[2]),
        ms(runs[4])
    );
    println!(
        "  server RSS: {} MiB before, {} MiB with the sockets, {} MiB with the slow connections too",
        rss_before / 1024,
        rss_sockets / 1024,
        rss_loaded / 1024
    );
    println!(
        "  memory per idle socket: {:.1} KiB",
        (rss_sockets.saturating_sub(rss_before)) as f64 / sockets as f64
    );
    println!(
        "  slow-header connections cut by the server: {}",
        cut.load(Ordering::Relaxed)
    );
    drop(held);
}

/// `connections` clients making `runs_each` runs; with `slow_reader`, the first of them reads
/// one frame every [`SLOW_READER_PACE`] and the figures are of the others (is anyone held up
/// by one who reads slowly?), the slow one's reported apart.
/// `large:N:B` (issue 31, hole 2): one user sends N messages of B bytes at once, each on its
/// own socket and thread, while another user runs the scripted inspection and `/health` is
/// asked every 200 ms; reports that user's run latency and `/health`'s, before the large
/// messages (quiet) and while they are planned. A binary that knows `--max-message-bytes` is
/// started with it just above B, so that the large messages are planned, not refused: what is
/// measured is the planner's pool. The large runs are not waited for.
async fn large_stage(binary: &PathBuf, large: usize, bytes: usize) {
    let knows_limit = Command::new(binary)
        .arg("--help")
        .output()
        .map(|out| String::from_utf8_lossy(&out.stdout).contains("--max-message-bytes"))
        .unwrap_or(false);
    let limit = (bytes + 1024).to_string();
    let extra = match knows_limit {
        true => vec!["--max-message-bytes".to_owned(), limit],
        false => Vec::new(),
    };
    let server = Server::start_with(binary, &extra).await;
    let quiet = inspection_under_health(&server, "quiet").await;

    // ASCII, so that it can be cut at any byte.
    let text = "De koelcel had een luchttemperatuur van 11 graden; registraties ontbraken. "
        .repeat(bytes / 73 + 1)[..bytes]
        .to_owned();
    let mut heavy = Vec::new();
    for i in 0..large {
        let mut ws = server.socket("heavy".to_owned()).await;
        let input = json!({ "threadId": format!("large-{i}-{}", uuid::Uuid::new_v4()),
            "messages": [{ "role": "user", "content": text }], "context": {} });
        ws.send(Frame::Text(input.to_string().into()))
            .await
            .unwrap();
        // Read (and drop) what comes, so that the server never waits on this socket.
        heavy.push(tokio::spawn(async move {
            while let Some(Ok(_)) = ws.next().await {}
        }));
    }
    let loaded = inspection_under_health(&server, "loaded").await;
    for task in heavy {
        task.abort();
    }
    println!(
        "large:{large}:{bytes} ({}): inspector run p50 {} / p99 {} quiet, p50 {} / p99 {} under load; \
         /health p50 {} / p99 {} quiet, p50 {} / p99 {} under load",
        if knows_limit {
            "with --max-message-bytes"
        } else {
            "no message limit"
        },
        ms(quiet.0.0),
        ms(quiet.0.1),
        ms(loaded.0.0),
        ms(loaded.0.1),
        ms(quiet.1.0),
        ms(quiet.1.1),
        ms(loaded.1.0),
        ms(loaded.1.1),
    );
}

/// Two scripted inspections (six runs, the report approved) by `inspector-<label>` while
/// `/health` is asked every 200 ms (at least 100 times): ((run p50, p99), (/health p50, p99)).
/// No run deadline: the point is how long they take when the server is stalled.
async fn inspection_under_health(
    server: &Server,
    label: &str,
) -> ((Duration, Duration), (Duration, Duration)) {
    let stop = tokio_util::sync::CancellationToken::new();
    let health = {
        let (stop, url) = (stop.clone(), server.url("/health"));
        tokio::spawn(async move {
            let http = reqwest::Client::new();
            let mut times = Vec::new();
            let mut failed = 0;
            // At least 100 answers, so that a p99 means something when the runs are quick.
            while !stop.is_cancelled() || times.len() < 100 {
                let start = Instant::now();
                // A stalled server cuts connections (its header timeout fires late): counted,
                // with the time it took to fail.
                match http.get(&url).send().await {
                    Ok(response) if response.status().is_success() => {}
                    _ => failed += 1,
                }
                times.push(start.elapsed());
                tokio::time::sleep(Duration::from_millis(200)).await;
            }
            (times, failed)
        })
    };
    let mut ws = server.socket(format!("inspector-{label}")).await;
    let mut runs = Vec::new();
    let mut runs_failed = 0;
    for step in 0..6 {
        let thread = format!("inspection-{label}-{}", step / 3);
        let start = Instant::now();
        let input = json!({ "threadId": thread, "messages": [{ "role": "user", "content": script(step) }], "context": {} });
        ws.send(Frame::Text(input.to_string().into()))
            .await
            .unwrap();
        loop {
            let text = match ws.next().await {
                Some(Ok(Frame::Text(text))) => text,
                Some(Ok(_)) => continue,
                // A stalled server closes the socket (a frame not sent within its timeout):
                // the run counts as failed, with its time, and the inspector reconnects.
                _ => {
                    runs_failed += 1;
                    ws = server.socket(format!("inspector-{label}")).await;
                    break;
                }
            };
            let value: Value = serde_json::from_str(&text).unwrap();
            if value["type"] == "CUSTOM" && value["name"] == "agora:tool_approval_request" {
                let answer = json!({ "type": "CUSTOM", "name": "agora:tool_approval_response",
                    "value": { "approvalId": value["value"]["approvalId"], "approved": true } });
                ws.send(Frame::Text(answer.to_string().into()))
                    .await
                    .unwrap();
            }
            // A stalled server also fails runs (its store's waits time out): counted, with
            // the time it took to fail.
            if value["name"] == "agora:error" || value["type"] == "RUN_ERROR" {
                runs_failed += 1;
                break;
            }
            if value["type"] == "RUN_FINISHED" {
                break;
            }
        }
        runs.push(start.elapsed());
    }
    stop.cancel();
    let (mut health, health_failed) = health.await.unwrap();
    runs.sort();
    health.sort();
    println!(
        "  {label}: {} runs ({runs_failed} failed or cut off), {} /health requests ({health_failed} failed)",
        runs.len(),
        health.len()
    );
    (
        (percentile(&runs, 0.5), percentile(&runs, 0.99)),
        (percentile(&health, 0.5), percentile(&health, 0.99)),
    )
}

/// Where a runs stage's servers keep their data: each its own SQLite file, or one shared
/// PostgreSQL database.
enum Storage {
    Sqlite,
    Postgres { instances: usize },
}

async fn runs_stage(binary: &PathBuf, connections: usize, runs_each: usize, slow_reader: bool) {
    runs_on(binary, connections, runs_each, slow_reader, Storage::Sqlite).await;
}

async fn runs_on(
    binary: &PathBuf,
    connections: usize,
    runs_each: usize,
    slow_reader: bool,
    storage: Storage,
) {
    let (servers, database) = match storage {
        Storage::Sqlite => (vec![Arc::new(Server::start(binary).await)], None),
        Storage::Postgres { instances } => {
            let database = postgres::Database::fresh().await;
            let args = ["--database-url".to_owned(), database.url.clone()];
            let mut servers = Vec::new();
            for _ in 0..instances {
                servers.push(Arc::new(Server::start_with(binary, &args).await));
            }
            (servers, Some(database))
        }
    };
    // Warm the search index and the first database pages, outside the figures.
    for server in &servers {
        let mut warm = server.socket("warm".into()).await;
        for step in 0..3 {
            run(&mut warm, "warm", script(step)).await;
        }
    }
    let cpu = || servers.iter().map(|s| s.cpu()).sum::<Duration>();
    let cpu_before = cpu();
    let database_cpu_before = postgres::cpu();
    let queries_before = match &database {
        Some(database) => database.statements().await,
        None => 0,
    };
    let start = Instant::now();
    let tasks = (0..connections).map(|c| {
        // Clients spread over the instances, as a balancer without sticky sessions would.
        let server = servers[c % servers.len()].clone();
        let pace = (slow_reader && c == 0).then_some(SLOW_READER_PACE);
        tokio::spawn(async move {
            let mut ws = server.socket(format!("load-{c}")).await;
            let thread = uuid::Uuid::new_v4().to_string();
            let mut timings = Vec::with_capacity(runs_each);
            for step in 0..runs_each {
                timings.push(run_paced(&mut ws, &thread, script(step), pace).await);
            }
            (pace.is_some(), timings)
        })
    });
    let mut slow = Vec::new();
    let mut timings = Vec::new();
    for (paced, runs) in futures::future::join_all(tasks)
        .await
        .into_iter()
        .map(Result::unwrap)
    {
        if paced {
            slow.extend(runs);
        } else {
            timings.extend(runs);
        }
    }
    let wall = start.elapsed();
    let cpu = cpu() - cpu_before;
    let runs = timings.len() + slow.len();
    let mut totals: Vec<Duration> = timings.iter().map(|t| t.total).collect();
    totals.sort();
    let mut firsts: Vec<Duration> = timings.iter().filter_map(|t| t.first_text).collect();
    firsts.sort();
    let events: usize = timings.iter().chain(&slow).map(|t| t.events).sum();
    if slow_reader {
        println!(
            "slow reader: {connections} connections x {runs_each} runs, one of them reading a frame every {}",
            ms(SLOW_READER_PACE)
        );
    } else if let Some(database) = &database {
        println!(
            "cluster: {connections} connections x {runs_each} runs over {} instances on PostgreSQL",
            servers.len()
        );
        let queries = database.statements().await - queries_before;
        let database_cpu = postgres::cpu() - database_cpu_before;
        println!(
            "  PostgreSQL CPU {:.2} s: {:.2} ms a run (its processes together)",
            database_cpu.as_secs_f64(),
            database_cpu.as_secs_f64() * 1000.0 / (connections * runs_each) as f64
        );
        println!(
            "  {queries} database statements: {:.1} a run (pg_stat_statements)",
            queries as f64 / (connections * runs_each) as f64
        );
    } else {
        println!("runs: {connections} connections x {runs_each} runs");
    }
    println!(
        "  {runs} runs in {:.2} s: {:.0} runs/s, {:.0} events/s ({:.1} events a run)",
        wall.as_secs_f64(),
        runs as f64 / wall.as_secs_f64(),
        events as f64 / wall.as_secs_f64(),
        events as f64 / runs as f64
    );
    let others = if slow_reader { " of the others" } else { "" };
    println!(
        "  run latency{others} p50 {}, p99 {}; first text p50 {}, p99 {}",
        ms(percentile(&totals, 0.5)),
        ms(percentile(&totals, 0.99)),
        ms(percentile(&firsts, 0.5)),
        ms(percentile(&firsts, 0.99))
    );
    if !slow.is_empty() {
        let mut slow_totals: Vec<Duration> = slow.iter().map(|t| t.total).collect();
        slow_totals.sort();
        println!(
            "  the slow reader's runs: p50 {}, max {}",
            ms(percentile(&slow_totals, 0.5)),
            ms(*slow_totals.last().unwrap())
        );
    }
    println!(
        "  server CPU {:.2} s: {:.2} ms a run",
        cpu.as_secs_f64(),
        cpu.as_secs_f64() * 1000.0 / runs as f64
    );
}

/// How long the slow reader of `slow:CxR` takes over each frame.
const SLOW_READER_PACE: Duration = Duration::from_millis(25);

/// Reads until `stop`, answering nothing; returns the frames' values and their bytes.
async fn read_until(ws: &mut Ws, stop: impl Fn(&Value) -> bool) -> (Vec<Value>, usize) {
    let mut values = Vec::new();
    let mut bytes = 0;
    loop {
        let frame = tokio::time::timeout(Duration::from_secs(120), ws.next())
            .await
            .expect("no event within 120 s")
            .expect("socket closed")
            .expect("socket error");
        let Frame::Text(text) = frame else { continue };
        bytes += text.len();
        let value: Value = serde_json::from_str(&text).unwrap();
        let done = stop(&value);
        values.push(value);
        if done {
            return (values, bytes);
        }
    }
}

fn is_approval_request(value: &Value) -> bool {
    value["type"] == "CUSTOM" && value["name"] == "agora:tool_approval_request"
}

async fn detached_stage(binary: &PathBuf, n: usize) {
    let server = Arc::new(Server::start(binary).await);
    let mut warm = server.socket("warm".into()).await;
    for step in 0..3 {
        run(&mut warm, "warm", script(step)).await;
    }
    drop(warm);
    tokio::time::sleep(Duration::from_millis(500)).await;
    let rss_before = server.rss_kib();
    // Each user: the inspection and a finding, then the report up to its approval; then the
    // socket is dropped. What is left is a run waiting at its approval, with nobody following.
    let tasks = (0..n).map(|c| {
        let server = server.clone();
        tokio::spawn(async move {
            let user = format!("tablet-{c}");
            let mut ws = server.socket(user.clone()).await;
            let thread = uuid::Uuid::new_v4().to_string();
            let earlier = run(&mut ws, &thread, script(0)).await.bytes
                + run(&mut ws, &thread, script(1)).await.bytes;
            let input = json!({ "threadId": thread, "messages": [{ "role": "user", "content": script(2) }], "context": {} });
            ws.send(Frame::Text(input.to_string().into())).await.unwrap();
            let (events, bytes) = read_until(&mut ws, is_approval_request).await;
            let before_report = events[0]["seq"].as_u64().unwrap() - 1;
            drop(ws);
            (user, thread, before_report, bytes + earlier)
        })
    });
    let threads: Vec<(String, String, u64, usize)> = futures::future::join_all(tasks)
        .await
        .into_iter()
        .map(|t| t.unwrap())
        .collect();
    tokio::time::sleep(Duration::from_secs(1)).await;
    let rss_after = server.rss_kib();
    let journal_bytes: usize = threads.iter().map(|t| t.3).sum();
    println!("detached: {n} runs waiting at their approval, their sockets closed");
    println!(
        "  server memory +{} KiB: {:.1} KiB a thread with its detached run (its journal: {:.1} KiB of event JSON, the thread's three runs)",
        rss_after.saturating_sub(rss_before),
        rss_after.saturating_sub(rss_before) as f64 / n as f64,
        journal_bytes as f64 / n as f64 / 1024.0
    );
    for (label, from_start) in [("replay", true), ("snapshot (reload)", false)] {
        let cpu_before = server.cpu();
        let start = Instant::now();
        let tasks = threads
            .iter()
            .cloned()
            .map(|(user, thread, before_report, _)| {
                let server = server.clone();
                tokio::spawn(async move {
                    let mut ws = server.socket(user).await;
                    let began = Instant::now();
                    let mut value = json!({ "threadId": thread });
                    if from_start {
                        value["afterSeq"] = json!(before_report);
                    }
                    let resume =
                        json!({ "type": "CUSTOM", "name": "agora:resume", "value": value });
                    ws.send(Frame::Text(resume.to_string().into()))
                        .await
                        .unwrap();
                    let (events, bytes) = read_until(&mut ws, is_approval_request).await;
                    (began.elapsed(), events.len(), bytes)
                })
            });
        let results: Vec<(Duration, usize, usize)> = futures::future::join_all(tasks)
            .await
            .into_iter()
            .map(|t| t.unwrap())
            .collect();
        let wall = start.elapsed();
        let cpu = server.cpu() - cpu_before;
        let mut latencies: Vec<Duration> = results.iter().map(|r| r.0).collect();
        latencies.sort();
        let events: usize = results.iter().map(|r| r.1).sum();
        let bytes: usize = results.iter().map(|r| r.2).sum();
        println!(
            "  resume, {label}: {n} in {:.2} s, until the approval request is back p50 {}, p99 {}; {:.1} events, {:.1} KiB a resume; server CPU {:.2} ms a resume (socket open included)",
            wall.as_secs_f64(),
            ms(percentile(&latencies, 0.5)),
            ms(percentile(&latencies, 0.99)),
            events as f64 / n as f64,
            bytes as f64 / n as f64 / 1024.0,
            cpu.as_secs_f64() * 1000.0 / n as f64
        );
    }
}

fn raise_descriptor_limit() {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: get/setrlimit read and write the struct they are given.
    unsafe {
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) == 0 {
            limit.rlim_cur = limit.rlim_max;
            libc::setrlimit(libc::RLIMIT_NOFILE, &limit);
        }
    }
}

fn binary() -> PathBuf {
    if let Some(path) = std::env::var_os("AGORA_BIN") {
        return path.into();
    }
    let target =
        std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| PathBuf::from("target"), PathBuf::from);
    target.join("release/agora-hai")
}

#[tokio::main]
async fn main() {
    raise_descriptor_limit();
    let binary = binary();
    assert!(
        binary.exists(),
        "{} is missing: build the release binary first (make build) or set AGORA_BIN",
        binary.display()
    );
    // `cargo bench` passes `--bench`; everything else names a stage.
    let mut stages: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    if stages.is_empty() {
        stages = [
            "idle:500:0",
            "idle:2000:200",
            "runs:1x200",
            "runs:50x20",
            "runs:200x5",
            "slow:200x5",
            "cluster:200x5x2",
            "detached:200",
            "large:6:1000000",
        ]
        .map(str::to_owned)
        .to_vec();
    }
    for stage in stages {
        let parts: Vec<&str> = stage.split([':', 'x']).collect();
        let number = |i: usize| {
            parts
                .get(i)
                .and_then(|p| p.parse::<usize>().ok())
                .unwrap_or_else(|| panic!("bad stage {stage}"))
        };
        match parts[0] {
            "idle" => idle_stage(&binary, number(1), number(2)).await,
            "runs" => runs_stage(&binary, number(1), number(2), false).await,
            "slow" => runs_stage(&binary, number(1), number(2), true).await,
            "cluster" => {
                let storage = Storage::Postgres {
                    instances: number(3),
                };
                runs_on(&binary, number(1), number(2), false, storage).await
            }
            "detached" => detached_stage(&binary, number(1)).await,
            "large" => large_stage(&binary, number(1), number(2)).await,
            other => panic!(
                "unknown stage {other}: idle:N:S, runs:CxR, slow:CxR, cluster:CxRxI, detached:N or large:N:B"
            ),
        }
    }
}

/// The PostgreSQL a `cluster` stage runs on: a fresh database on the server
/// `AGORA_TEST_POSTGRES_URL` names (`make bench-load` starts one through
/// `scripts/with-postgres.sh`, with fsync on and pg_stat_statements loaded).
mod postgres {
    use std::time::Duration;

    use sqlx::Connection;

    /// CPU time of every `postgres` process on the machine (the throw-away server's).
    pub fn cpu() -> Duration {
        let per_second = unsafe { libc::sysconf(libc::_SC_CLK_TCK) } as u64;
        let mut ticks = 0;
        for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
            let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
                continue;
            };
            if !stat.contains(" (postgres) ") {
                continue;
            }
            let rest = &stat[stat.rfind(')').unwrap() + 2..];
            let fields: Vec<&str> = rest.split(' ').collect();
            ticks +=
                fields[11].parse::<u64>().unwrap_or(0) + fields[12].parse::<u64>().unwrap_or(0);
        }
        Duration::from_micros(ticks * 1_000_000 / per_second)
    }

    pub struct Database {
        pub url: String,
    }

    impl Database {
        pub async fn fresh() -> Self {
            let server = std::env::var("AGORA_TEST_POSTGRES_URL").expect(
                "AGORA_TEST_POSTGRES_URL is not set: run through `make bench-load` or scripts/with-postgres.sh",
            );
            let name = format!("agora_load_{}", uuid::Uuid::new_v4().simple());
            let mut connection = sqlx::PgConnection::connect(&server).await.unwrap();
            sqlx::query(&format!("CREATE DATABASE {name}"))
                .execute(&mut connection)
                .await
                .unwrap();
            let (base, _) = server.rsplit_once('/').unwrap();
            let url = format!("{base}/{name}");
            let mut connection = sqlx::PgConnection::connect(&url).await.unwrap();
            sqlx::query("CREATE EXTENSION IF NOT EXISTS pg_stat_statements")
                .execute(&mut connection)
                .await
                .expect("pg_stat_statements (shared_preload_libraries)");
            Self { url }
        }

        /// Statements this database has executed so far (every query, BEGIN and COMMIT).
        pub async fn statements(&self) -> u64 {
            let mut connection = sqlx::PgConnection::connect(&self.url).await.unwrap();
            let (calls,): (Option<i64>,) = sqlx::query_as(
                "SELECT CAST(SUM(calls) AS BIGINT) FROM pg_stat_statements \
                 WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database()) \
                 AND query NOT LIKE '%pg_stat_statements%'",
            )
            .fetch_one(&mut connection)
            .await
            .unwrap();
            calls.unwrap_or(0) as u64
        }
    }
}
