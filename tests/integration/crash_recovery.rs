//! The real binary is killed with SIGKILL in the middle of a run and restarted on the same data
//! directory: everything completed before the kill is there, the run is marked interrupted and
//! the thread carries on.

use crate::common;

use common::binary::Binary;
use common::{TempDir, assert_agora_clean, streamed_text, strings};

#[tokio::test]
async fn a_killed_server_keeps_what_was_shown_and_marks_the_run_interrupted() {
    let dir = TempDir::new("agora-crash");
    let thread = uuid::Uuid::new_v4().to_string();

    let mut server = Binary::start(["--data-dir".as_ref(), dir.0.as_os_str()]).await;
    let mut socket = server.socket().await;
    socket
        .ask(&thread, "Start inspectie bij Trattoria Finta Fiore")
        .await;
    let first = socket.until_finished().await;
    let first_answer = streamed_text(&first);
    // The report run stops at the approval: the handoff and its result are already shown.
    socket
        .ask(&thread, "Genereer het inspectierapport zonder vragen")
        .await;
    let shown = socket.until_approval_request().await;
    let shown_results: Vec<&str> = shown
        .iter()
        .filter(|e| e["type"] == "TOOL_CALL_RESULT")
        .map(|e| e["toolCallId"].as_str().unwrap())
        .collect();
    assert!(!shown_results.is_empty());

    server.kill();
    drop(server);

    let server = Binary::start(["--data-dir".as_ref(), dir.0.as_os_str()]).await;
    let history = server
        .get(&format!("/sessions/{thread}/history?include_tools=true"))
        .await;
    let history_text = history.to_string();
    assert!(history_text.contains("Start inspectie bij Trattoria Finta Fiore"));
    assert!(history_text.contains("Genereer het inspectierapport"));
    assert!(
        strings(&history).contains(&first_answer.as_str()),
        "first answer kept whole: {history_text}"
    );
    for call_id in shown_results {
        assert!(
            history_text.contains(call_id),
            "tool result {call_id} kept: {history_text}"
        );
    }

    // A client that was following the run comes back with the last number it saw: the
    // server says plainly that the run was interrupted instead of leaving it waiting.
    let last_seq = shown.last().unwrap()["seq"]
        .as_u64()
        .expect("events are numbered");
    let mut socket = server.socket().await;
    socket.send(&serde_json::json!({ "type": "CUSTOM", "name": "agora:resume", "value": { "threadId": thread, "afterSeq": last_seq } })).await;
    let resumed = socket.next().await;
    assert_eq!(resumed["name"], "agora:resumed", "{resumed}");
    assert_eq!(resumed["value"]["mode"], "snapshot");
    assert_eq!(resumed["value"]["reason"], "unknown");
    assert_eq!(resumed["value"]["running"], false);
    assert_eq!(resumed["value"]["lastRun"]["status"], "interrupted");
    assert_eq!(socket.next().await["type"], "MESSAGES_SNAPSHOT");
    let state = socket.next().await;
    assert_eq!(state["type"], "STATE_SNAPSHOT");
    assert_eq!(state["snapshot"]["status"], "interrupted");

    socket.send(&serde_json::json!({ "type": "CUSTOM", "name": "agora:history_request", "value": { "threadId": thread } })).await;
    let snapshot = socket.next().await;
    assert_eq!(snapshot["type"], "MESSAGES_SNAPSHOT");

    // The store marked the cut-off run; the thread carries on.
    let store = agora_hai::server::store::SqlStore::open(&dir.0.join("agora.db"))
        .await
        .unwrap();
    use agora_hai::orchestrator::store::{RunStatus, Store};
    let runs = store.runs(&thread).await.unwrap();
    assert_eq!(
        runs.iter()
            .filter(|r| r.status == RunStatus::Interrupted)
            .count(),
        1,
        "{runs:?}"
    );
    assert_eq!(
        runs.iter()
            .filter(|r| r.status == RunStatus::Finished)
            .count(),
        1,
        "{runs:?}"
    );

    socket
        .ask(&thread, "Welke regels gelden voor allergeneninformatie?")
        .await;
    let next = socket.until_finished().await;
    assert_agora_clean(&next);
    assert!(!streamed_text(&next).is_empty());
}
