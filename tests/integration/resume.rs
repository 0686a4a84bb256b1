//! Nothing lost in a dead zone (issue 16): a run outlives its socket, and a client that comes
//! back with `agora:resume {threadId, afterSeq}` gets exactly what it missed, then the live
//! stream. On a real server over loopback.

#![cfg(feature = "ssr")]

use crate::common;

use std::time::Duration;

use agora_hai::orchestrator::store::RunStatus;
use common::{Socket, TestServer, assert_agora_clean, of_type};
use serde_json::{Value, json};

fn thread() -> String {
    format!("thread-{}", uuid::Uuid::new_v4())
}

fn resume(thread: &str, after_seq: Option<u64>) -> Value {
    let mut value = json!({ "threadId": thread });
    if let Some(seq) = after_seq {
        value["afterSeq"] = json!(seq);
    }
    json!({ "type": "CUSTOM", "name": "agora:resume", "value": value })
}

/// The report asked for without the verification questions (this file is about resuming,
/// not about them).
const REPORT_REQUEST: &str = "Genereer het inspectierapport zonder vragen";

/// An inspection started, then the report asked for: returns when its approval is requested.
async fn up_to_the_report_approval(socket: &mut Socket, thread: &str) -> Vec<Value> {
    socket
        .ask(
            thread,
            "Start inspectie bij Trattoria Finta Fiore, KVK 99990001",
        )
        .await;
    socket.until_finished().await;
    socket.ask(thread, REPORT_REQUEST).await;
    socket.until_approval_request().await
}

fn seq(event: &Value) -> u64 {
    event["seq"]
        .as_u64()
        .unwrap_or_else(|| panic!("no seq: {event}"))
}

/// Every number follows the one before.
fn assert_contiguous(events: &[Value]) {
    let numbers: Vec<u64> = events.iter().map(seq).collect();
    assert!(
        numbers.windows(2).all(|w| w[1] == w[0] + 1),
        "gaps or duplicates: {numbers:?}"
    );
}

/// Polls the store until the thread's last run is no longer running (at most 20 s).
async fn settled(server: &TestServer, thread: &str) -> RunStatus {
    for _ in 0..400 {
        let runs = server.state.db.runs(thread).await.unwrap();
        if let Some(run) = runs.iter().max_by_key(|r| r.started_at)
            && run.status != RunStatus::Running
        {
            return run.status;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("the run on {thread} did not end");
}

#[tokio::test]
async fn a_resume_after_n_events_gives_exactly_the_rest_on_a_new_socket() {
    let server = TestServer::start().await;
    let thread = thread();
    let mut first = server.socket().await;
    first
        .ask(
            &thread,
            "Start inspectie bij Trattoria Finta Fiore, KVK 99990001",
        )
        .await;
    let mut seen = Vec::new();
    for _ in 0..5 {
        seen.push(first.next().await);
    }
    assert_contiguous(&seen);
    drop(first);
    // The run does not need the socket: it finishes on its own.
    assert_eq!(settled(&server, &thread).await, RunStatus::Finished);

    let mut back = server.socket().await;
    back.send(&resume(&thread, Some(seq(&seen[4])))).await;
    let marker = back.next().await;
    assert_eq!(marker["name"], "agora:resumed", "{marker}");
    assert_eq!(marker["value"]["mode"], "replay");
    assert_eq!(marker["value"]["afterSeq"], seq(&seen[4]));
    assert_eq!(marker["value"]["running"], false);
    let last = marker["value"]["lastSeq"].as_u64().unwrap();
    let rest = back.until(|e| e["type"] == "RUN_FINISHED").await;
    assert_eq!(
        seq(&rest[0]),
        seq(&seen[4]) + 1,
        "nothing missing at the seam"
    );
    assert_eq!(
        seq(rest.last().unwrap()),
        last,
        "the marker said where it ends"
    );
    let mut whole = seen.clone();
    whole.extend(rest);
    assert_contiguous(&whole);
    assert_agora_clean(&whole);
    assert!(common::streamed_text(&whole).contains("Finta Fiore"));

    // Up to date: nothing is replayed, and the socket now follows the thread live.
    back.send(&resume(&thread, Some(last))).await;
    let marker = back.next().await;
    assert_eq!(marker["value"]["mode"], "replay");
    back.ask(&thread, "Welke regels gelden voor allergenen?")
        .await;
    let next = back.until_finished().await;
    assert_eq!(
        seq(&next[0]),
        last + 1,
        "the next run continues the numbering"
    );
    assert_agora_clean(&next);
}

#[tokio::test]
async fn a_reload_gets_the_thread_before_the_run_then_the_whole_live_run() {
    let server = TestServer::start_with(|c| c.approval_timeout_secs = 30).await;
    let thread = thread();
    let mut tab = server.socket().await;
    let shown = up_to_the_report_approval(&mut tab, &thread).await;
    let request = shown.last().unwrap()["value"].clone();
    drop(tab);

    // A reload has nothing: no afterSeq.
    let mut reloaded = server.socket().await;
    reloaded.send(&resume(&thread, None)).await;
    let marker = reloaded.next().await;
    assert_eq!(marker["value"]["mode"], "snapshot");
    assert_eq!(marker["value"]["reason"], "requested");
    assert_eq!(marker["value"]["running"], true);
    let snapshot = reloaded.next().await;
    assert_eq!(snapshot["type"], "MESSAGES_SNAPSHOT");
    let messages = snapshot["messages"].as_array().unwrap();
    assert_eq!(
        messages.last().unwrap()["content"],
        REPORT_REQUEST,
        "the snapshot stops where the live run begins"
    );
    assert_eq!(reloaded.next().await["type"], "STATE_SNAPSHOT");
    // The live run from its start: the same events, the approval request among them.
    let replayed = reloaded.until_approval_request().await;
    assert_eq!(replayed, shown, "the run's events exactly as first sent");
    // And the approval is answered from the new socket.
    reloaded
        .answer_approval(request["approvalId"].as_str().unwrap(), true, None)
        .await;
    let rest = reloaded.until_finished().await;
    let results = of_type(&rest, "TOOL_CALL_RESULT");
    assert!(
        results
            .iter()
            .any(|r| r["content"].as_str().unwrap().contains(".pdf")),
        "the report was written: {rest:?}"
    );
    let mut whole = replayed;
    whole.extend(rest);
    assert_agora_clean(&whole);
    assert_contiguous(&whole);
}

#[tokio::test]
async fn a_too_old_gap_gets_a_snapshot_and_the_state() {
    // A buffer this small keeps only the last few events.
    let server = TestServer::start_with(|c| c.resume_buffer_bytes = 2_000).await;
    let thread = thread();
    let mut socket = server.socket().await;
    socket
        .ask(
            &thread,
            "Start inspectie bij Trattoria Finta Fiore, KVK 99990001",
        )
        .await;
    let events = socket.until_finished().await;
    drop(socket);
    assert_eq!(settled(&server, &thread).await, RunStatus::Finished);

    let mut back = server.socket().await;
    back.send(&resume(&thread, Some(seq(&events[0])))).await;
    let marker = back.next().await;
    assert_eq!(marker["value"]["mode"], "snapshot", "{marker}");
    assert_eq!(marker["value"]["reason"], "gap");
    assert_eq!(marker["value"]["running"], false);
    assert_eq!(marker["value"]["lastRun"]["status"], "finished");
    let snapshot = back.next().await;
    assert_eq!(snapshot["type"], "MESSAGES_SNAPSHOT");
    assert!(snapshot.to_string().contains("Finta Fiore"));
    let state = back.next().await;
    assert_eq!(state["type"], "STATE_SNAPSHOT");
    assert_eq!(state["snapshot"]["status"], "completed");

    // A number that was never this thread's is unknown, and a wrong one a clear error.
    back.send(&resume(&thread, Some(1))).await;
    assert_eq!(back.next().await["value"]["reason"], "unknown");
    back.next().await;
    back.next().await;
    back.send(&json!({ "type": "CUSTOM", "name": "agora:resume", "value": { "threadId": thread, "afterSeq": "gisteren" } })).await;
    assert_eq!(back.error_code().await, "invalid_message");
}

#[tokio::test]
async fn a_detached_run_waits_at_its_approval_and_times_out_as_configured() {
    let server = TestServer::start_with(|c| c.approval_timeout_secs = 2).await;
    let thread = thread();
    let mut socket = server.socket().await;
    up_to_the_report_approval(&mut socket, &thread).await;
    drop(socket);
    tokio::time::sleep(Duration::from_millis(500)).await;
    let runs = server.state.db.runs(&thread).await.unwrap();
    let last = runs.iter().max_by_key(|r| r.started_at).unwrap();
    assert_eq!(last.status, RunStatus::Running, "it waits for its approval");
    assert_eq!(settled(&server, &thread).await, RunStatus::Finished);
    let approvals = server.state.db.approvals(&thread).await.unwrap();
    let decision = approvals[0].decision.as_ref().expect("decided");
    assert!(!decision.approved);
    assert_eq!(decision.decided_by, "system", "expired, as configured");
}

#[tokio::test]
async fn past_the_limit_of_detached_runs_the_oldest_is_cancelled() {
    let server = TestServer::start_with(|c| c.max_detached_runs = 1).await;
    let (older, newer) = (thread(), thread());
    let mut socket = server.socket().await;
    for thread in [&older, &newer] {
        up_to_the_report_approval(&mut socket, thread).await;
    }
    drop(socket);
    assert_eq!(settled(&server, &older).await, RunStatus::Cancelled);
    tokio::time::sleep(Duration::from_millis(300)).await;
    let runs = server.state.db.runs(&newer).await.unwrap();
    let last = runs.iter().max_by_key(|r| r.started_at).unwrap();
    assert_eq!(last.status, RunStatus::Running, "the newest goes on");
}

#[tokio::test]
async fn a_resend_of_a_message_the_thread_has_starts_nothing() {
    let server = TestServer::start().await;
    let thread = thread();
    let mut socket = server.socket().await;
    let input = json!({
        "threadId": thread,
        "messages": [{ "id": "client-msg-1", "role": "user", "content": "Welke regels gelden voor allergenen?" }],
        "context": {},
    });
    socket.send(&input).await;
    socket.until_finished().await;
    socket.send(&input).await;
    socket.send(&resume(&thread, None)).await;
    // The resend starts no run: the next thing is the resume's answer.
    let marker = socket.next().await;
    assert_eq!(marker["name"], "agora:resumed", "{marker}");
    let runs = server.state.db.runs(&thread).await.unwrap();
    assert_eq!(runs.len(), 1);
    let messages = server.state.db.messages(&thread).await.unwrap();
    let users = messages
        .iter()
        .filter(|m| matches!(m, agora_hai::protocol::Message::User(_)))
        .count();
    assert_eq!(users, 1, "stored once");
}

mod two_users {
    use super::*;

    use crate::common::keys::{ANNA, KOEN, key_server, socket_of};

    #[tokio::test]
    async fn a_resume_of_someone_elses_thread_is_refused() {
        let server = key_server().await;
        let thread = thread();
        let mut koen = socket_of(&server, KOEN).await;
        koen.ask(&thread, "Start inspectie bij Trattoria Finta Fiore")
            .await;
        let events = koen.until_finished().await;
        let mut anna = socket_of(&server, ANNA).await;
        anna.send(&resume(&thread, Some(seq(&events[0])))).await;
        assert_eq!(anna.error_code().await, "thread_not_found");
        anna.send(&resume(&thread, None)).await;
        assert_eq!(anna.error_code().await, "thread_not_found");
        // Koen's next run reaches Koen only.
        koen.ask(&thread, "Welke regels gelden voor allergenen?")
            .await;
        koen.until_finished().await;
        anna.send(&json!({ "type": "CUSTOM", "name": "agora:history_request", "value": { "threadId": "x" } }))
            .await;
        assert_eq!(
            anna.next().await["type"],
            "MESSAGES_SNAPSHOT",
            "nothing of Koen's came first"
        );
    }
}
