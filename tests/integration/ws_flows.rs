//! The orchestrator's flows over a real WebSocket: each stream is checked by the AGORA verifier
//! and for the content an inspector needs.

use crate::common;

use agora_hai::protocol::{ErrorCode, Lang};
use common::{TestServer, assert_agora_clean, of_type, streamed_text};
use serde_json::{Value, json};

fn thread() -> String {
    uuid::Uuid::new_v4().to_string()
}

fn tool_results(events: &[Value]) -> String {
    of_type(events, "TOOL_CALL_RESULT")
        .iter()
        .map(|e| e["content"].as_str().unwrap())
        .collect::<Vec<_>>()
        .join("\n")
}

fn agents_seen(events: &[Value]) -> Vec<String> {
    of_type(events, "STATE_SNAPSHOT")
        .iter()
        .map(|e| e["snapshot"]["currentAgent"].as_str().unwrap().to_owned())
        .collect()
}

#[tokio::test]
async fn inspection_start_looks_up_finta_fiore_and_its_history() {
    let server = TestServer::start().await;
    let mut socket = server.socket().await;
    socket
        .ask(&thread(), "Start inspectie bij Trattoria Finta Fiore")
        .await;
    let events = socket.until_finished().await;
    assert_agora_clean(&events);

    assert_eq!(events[0]["type"], "RUN_STARTED");
    assert!(
        agents_seen(&events).contains(&"history-agent".to_owned()),
        "{:?}",
        agents_seen(&events)
    );
    let starts = of_type(&events, "TOOL_CALL_START");
    let names: Vec<&str> = starts
        .iter()
        .map(|e| e["toolCallName"].as_str().unwrap())
        .collect();
    assert!(
        names.contains(&"get_company_info") && names.contains(&"get_inspection_history"),
        "{names:?}"
    );
    assert!(
        starts
            .iter()
            .all(|e| e["toolDisplayName"].is_string() && e["toolDescription"].is_string())
    );
    // Each call's arguments are one complete JSON document.
    for args in of_type(&events, "TOOL_CALL_ARGS") {
        serde_json::from_str::<Value>(args["delta"].as_str().unwrap())
            .expect("complete JSON arguments");
    }
    let results = tool_results(&events);
    assert!(
        results.contains("99990001") && results.contains("Finta Fiore"),
        "{results}"
    );
    assert!(
        results.contains("INS-"),
        "inspection history in the results: {results}"
    );
    let answer = streamed_text(&events);
    assert!(answer.contains("Finta Fiore"), "{answer}");
    let last_snapshot = of_type(&events, "STATE_SNAPSHOT").last().unwrap()["snapshot"].clone();
    assert_eq!(last_snapshot["status"], "completed");
}

#[tokio::test]
async fn a_finding_cites_the_articles_that_apply() {
    let server = TestServer::start().await;
    let mut socket = server.socket().await;
    socket
        .ask(
            &thread(),
            "Ik zie rauwe vis naast groenten bewaard op 12 °C in de koeling",
        )
        .await;
    let events = socket.until_finished().await;
    assert_agora_clean(&events);
    assert!(agents_seen(&events).contains(&"regulation-agent".to_owned()));
    let results = tool_results(&events);
    assert!(
        results.contains("852/2004"),
        "search results cite 852/2004: {results}"
    );
    let answer = streamed_text(&events);
    assert!(
        answer.contains("852/2004") || answer.contains("Hygiënecode"),
        "{answer}"
    );
}

#[tokio::test]
async fn a_regulation_question_in_english_is_answered_in_english() {
    let server = TestServer::start().await;
    let mut socket = server.socket().await;
    socket
        .ask(
            &thread(),
            "Which rules apply to allergen information in a restaurant?",
        )
        .await;
    let events = socket.until_finished().await;
    assert_agora_clean(&events);
    let results = tool_results(&events);
    assert!(results.contains("1169/2011"), "{results}");
    let answer = streamed_text(&events);
    assert!(answer.contains("1169/2011"), "{answer}");
    assert!(
        answer.to_lowercase().contains("the "),
        "answer is English: {answer}"
    );
}

/// Inspection start, a finding, then the report request; returns the approval request.
async fn up_to_the_report_approval(
    socket: &mut common::Socket,
    thread: &str,
) -> (Vec<Value>, Value) {
    socket
        .ask(
            thread,
            "Start inspectie bij Trattoria Finta Fiore, KVK 99990001",
        )
        .await;
    assert_agora_clean(&socket.until_finished().await);
    socket
        .ask(
            thread,
            "Bevinding: rauwe vis naast groenten bewaard op 12 °C",
        )
        .await;
    assert_agora_clean(&socket.until_finished().await);
    socket
        .ask(thread, "Genereer het inspectierapport zonder vragen")
        .await;
    let before = socket.until_approval_request().await;
    let request = before.last().unwrap()["value"].clone();
    assert_eq!(request["toolName"], "generate_final_report");
    assert_eq!(request["riskLevel"], "critical");
    assert!(request["approvalId"].is_string() && request["reasoning"].is_string());
    assert!(request["parameters"].is_object());
    (before, request)
}

#[tokio::test]
async fn an_approved_report_is_a_downloadable_pdf_with_the_findings() {
    let server = TestServer::start().await;
    let mut socket = server.socket().await;
    let thread = thread();
    let (mut events, request) = up_to_the_report_approval(&mut socket, &thread).await;
    let report_started = of_type(&events, "TOOL_CALL_START")
        .iter()
        .any(|e| e["toolCallName"] == "generate_final_report");
    assert!(!report_started, "the call waits for the human");
    socket
        .answer_approval(
            request["approvalId"].as_str().unwrap(),
            true,
            Some("Akkoord"),
        )
        .await;
    events.extend(socket.until_finished().await);
    assert_agora_clean(&events);

    let call = of_type(&events, "TOOL_CALL_START")
        .into_iter()
        .find(|e| e["toolCallName"] == "generate_final_report")
        .unwrap();
    let result = of_type(&events, "TOOL_CALL_RESULT")
        .into_iter()
        .find(|e| e["toolCallId"] == call["toolCallId"])
        .unwrap();
    let result: Value = serde_json::from_str(result["content"].as_str().unwrap()).unwrap();
    let url = result["downloadUrl"]
        .as_str()
        .expect("download url in the result");
    let response = reqwest::get(server.url(url)).await.unwrap();
    assert_eq!(response.status(), 200);
    assert_eq!(response.headers()["content-type"], "application/pdf");
    let pdf = response.bytes().await.unwrap();
    assert!(pdf.starts_with(b"%PDF-"));
    let answer = streamed_text(&events);
    assert!(
        answer.contains(url),
        "the answer links the report: {answer}"
    );

    let approvals = server.state.db.approvals(&thread).await.unwrap();
    let decision = approvals[0].decision.as_ref().expect("decision recorded");
    assert!(decision.approved);
    assert_eq!(decision.feedback.as_deref(), Some("Akkoord"));
}

/// Issue 34: the inspector corrects one finding and leaves another out before approving. The
/// report has the corrected words and severity and not the other finding; the audit log keeps
/// the agent's arguments and, beside them, the edited ones the call ran with.
#[tokio::test]
async fn an_approval_with_edits_corrects_and_leaves_out_findings_and_is_audited() {
    let server = TestServer::start().await;
    let mut socket = server.socket().await;
    let thread = thread();
    socket
        .ask(
            &thread,
            "Start inspectie bij Trattoria Finta Fiore, KVK 99990001",
        )
        .await;
    socket.until_finished().await;
    for finding in [
        "Bevinding: rauwe vis naast groenten bewaard op 12 °C",
        "Bevinding: geen zeep bij de handenwasbak in de keuken",
    ] {
        socket.ask(&thread, finding).await;
        socket.until_finished().await;
    }
    socket
        .ask(&thread, "Genereer het inspectierapport zonder vragen")
        .await;
    let mut events = socket.until_approval_request().await;
    let request = events.last().unwrap()["value"].clone();
    let asked = request["parameters"].clone();
    assert_eq!(asked["findings"][0]["number"], 1);
    assert_eq!(asked["findings"][1]["number"], 2);
    let edited = json!({
        "kvk": asked["kvk"],
        "company_name": asked["company_name"],
        "language": "nl",
        "findings": [{
            "number": 1,
            "description": "Rauwe vis boven de groenten in de koelcel, 12 °C",
            "severity": "matig"
        }],
        "leave_out": [2]
    });
    socket
        .send(&json!({
            "type": "CUSTOM",
            "name": "agora:tool_approval_response",
            "value": { "approvalId": request["approvalId"], "approved": true, "editedArgs": edited }
        }))
        .await;
    events.extend(socket.until_finished().await);
    assert_agora_clean(&events);
    // What ran is what the inspector approved.
    let call = of_type(&events, "TOOL_CALL_START")
        .into_iter()
        .find(|e| e["toolCallName"] == "generate_final_report")
        .unwrap()["toolCallId"]
        .clone();
    let args = of_type(&events, "TOOL_CALL_ARGS")
        .into_iter()
        .find(|e| e["toolCallId"] == call)
        .unwrap();
    assert_eq!(
        serde_json::from_str::<Value>(args["delta"].as_str().unwrap()).unwrap(),
        edited
    );
    let result = of_type(&events, "TOOL_CALL_RESULT")
        .into_iter()
        .find(|e| e["toolCallId"] == call)
        .unwrap();
    let result: Value = serde_json::from_str(result["content"].as_str().unwrap()).unwrap();
    let report: Value = reqwest::get(server.url(result["jsonUrl"].as_str().unwrap()))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let violations = report["all_violations"].as_array().unwrap();
    assert_eq!(violations.len(), 1, "{violations:#?}");
    let text = report.to_string();
    assert!(
        text.contains("Rauwe vis boven de groenten in de koelcel"),
        "{text}"
    );
    assert!(!text.contains("zeep"), "left out: {text}");
    // The summary counted two findings: the report wrote its own conclusion for one.
    let notes = report["additional_info"]["inspector_notes"]
        .as_str()
        .unwrap();
    assert!(notes.contains("1 bevinding vastgelegd"), "{notes}");

    let approvals = server.state.db.approvals(&thread).await.unwrap();
    assert_eq!(approvals[0].parameters, asked, "the agent's arguments stay");
    let decision = approvals[0].decision.as_ref().unwrap();
    assert!(decision.approved);
    assert_eq!(decision.edited_args.as_ref(), Some(&edited));
}

/// An `agora:tool_approval_response` with edited arguments, as the page sends it.
fn answer_with_edits(approval_id: &Value, approved: bool, edited: &Value) -> Value {
    json!({
        "type": "CUSTOM",
        "name": "agora:tool_approval_response",
        "value": { "approvalId": approval_id, "approved": approved, "editedArgs": edited }
    })
}

/// Edited arguments meet the report tool's own rules, as the agent's do: a KVK number that
/// is not one, a finding without words, or words past the schema's limit are refused with
/// `invalid_edited_args` naming the field; the request stays open on a socket that stays
/// usable, another user's edits are refused as theirs, and the owner's correct edits then run.
#[tokio::test]
async fn edited_arguments_that_break_the_tools_rules_are_refused_and_the_approval_stays_open() {
    let server = TestServer::start().await;
    let mut socket = server.socket().await;
    let thread = thread();
    let (mut events, request) = up_to_the_report_approval(&mut socket, &thread).await;
    let approval_id = &request["approvalId"];
    let asked = request["parameters"].clone();
    let with = |field: &str, value: Value| {
        let mut edited = asked.clone();
        edited[field] = value;
        edited
    };
    let long = "x".repeat(2001);
    for (edited, field) in [
        (with("kvk", json!("1234")), "kvk"),
        (
            with("findings", json!([{ "number": 1, "description": "  " }])),
            "findings[0].description",
        ),
        (
            with("findings", json!([{ "number": 1, "description": long }])),
            "findings[0].description",
        ),
        (with("findings", json!("geen lijst")), "findings"),
        (with("leave_out", json!(["een"])), "leave_out[0]"),
    ] {
        socket
            .send(&answer_with_edits(approval_id, true, &edited))
            .await;
        let error = socket.next().await;
        assert_eq!(error["name"], "agora:error", "{error}");
        assert_eq!(
            error["value"]["errorCode"], "invalid_edited_args",
            "{error}"
        );
        assert_eq!(error["value"]["details"]["approvalId"], *approval_id);
        let message = error["value"].to_string();
        assert!(message.contains(&format!("`{field}`")), "{message}");
    }
    // Someone else's edits are not checked, nor taken: the request is not theirs.
    let mut intruder = server.socket().await;
    let mut foreign = answer_with_edits(approval_id, true, &with("kvk", json!("1234")));
    foreign["value"]["userId"] = json!("mallory");
    intruder.send(&foreign).await;
    assert_eq!(intruder.error_code().await, "foreign_approval");

    // Still open: the owner's correct edits run.
    let edited = with(
        "findings",
        json!([{ "number": 1, "description": "Rauwe vis boven de groenten, 12 °C", "severity": "ernstig" }]),
    );
    socket
        .send(&answer_with_edits(approval_id, true, &edited))
        .await;
    events.extend(socket.until_finished().await);
    assert_agora_clean(&events);
    assert!(tool_results(&events).contains("downloadUrl"));
    let approvals = server.state.db.approvals(&thread).await.unwrap();
    assert_eq!(approvals.len(), 1);
    let decision = approvals[0].decision.as_ref().unwrap();
    assert_eq!(decision.edited_args.as_ref(), Some(&edited));
}

/// Edits that come with a rejection are ignored (nothing runs, so there is nothing to run
/// them with): the rejection stands, even with edits the tool would refuse, and the audit
/// log records no edited arguments.
#[tokio::test]
async fn edits_sent_with_a_rejection_are_ignored() {
    let server = TestServer::start().await;
    let mut socket = server.socket().await;
    let thread = thread();
    let (mut events, request) = up_to_the_report_approval(&mut socket, &thread).await;
    let mut edited = request["parameters"].clone();
    edited["kvk"] = json!("1234");
    socket
        .send(&answer_with_edits(&request["approvalId"], false, &edited))
        .await;
    events.extend(socket.until_finished().await);
    assert_agora_clean(&events);
    assert!(tool_results(&events).contains("rejected"));
    assert!(
        of_type(&events, "CUSTOM")
            .iter()
            .all(|e| e["name"] != "agora:error")
    );
    let approvals = server.state.db.approvals(&thread).await.unwrap();
    let decision = approvals[0].decision.as_ref().unwrap();
    assert!(!decision.approved);
    assert_eq!(decision.edited_args, None);
    assert_eq!(approvals[0].parameters, request["parameters"]);
    assert!(
        !std::fs::read_dir(server.dir.0.join("reports"))
            .map(|d| d.count() > 0)
            .unwrap_or(false)
    );
}

#[tokio::test]
async fn a_rejected_report_is_not_generated_and_the_agent_says_so() {
    let server = TestServer::start().await;
    let mut socket = server.socket().await;
    let thread = thread();
    let (mut events, request) = up_to_the_report_approval(&mut socket, &thread).await;
    socket
        .answer_approval(
            request["approvalId"].as_str().unwrap(),
            false,
            Some("Eerst de koelcel opnieuw meten"),
        )
        .await;
    events.extend(socket.until_finished().await);
    assert_agora_clean(&events);
    let result = tool_results(&events);
    assert!(result.contains("rejected"), "{result}");
    assert!(!result.contains("downloadUrl"));
    let answer = streamed_text(&events);
    assert!(
        answer.contains("Eerst de koelcel opnieuw meten"),
        "the agent quotes the feedback: {answer}"
    );
    assert!(
        !std::fs::read_dir(server.dir.0.join("reports"))
            .map(|d| d.count() > 0)
            .unwrap_or(false)
    );
}

#[tokio::test]
async fn unknown_duplicate_and_foreign_approvals_are_refused() {
    let server = TestServer::start().await;
    let mut socket = server.socket().await;
    let thread = thread();
    socket
        .answer_approval("appr_does_not_exist", true, None)
        .await;
    assert_eq!(socket.error_code().await, "unknown_approval");

    let (_, request) = up_to_the_report_approval(&mut socket, &thread).await;
    let approval_id = request["approvalId"].as_str().unwrap();
    // Another user (dev mode lets a client name one) on another socket may not answer.
    let mut intruder = server.socket().await;
    let value = json!({ "approvalId": approval_id, "approved": true, "userId": "mallory" });
    intruder
        .send(&json!({ "type": "CUSTOM", "name": "agora:tool_approval_response", "value": value }))
        .await;
    assert_eq!(intruder.error_code().await, "foreign_approval");

    socket.answer_approval(approval_id, false, None).await;
    socket.until_finished().await;
    socket.answer_approval(approval_id, true, None).await;
    assert_eq!(socket.error_code().await, "duplicate_approval");
}

#[tokio::test]
async fn an_expired_approval_counts_as_rejected() {
    let server = TestServer::start_with(|c| c.approval_timeout_secs = 1).await;
    let mut socket = server.socket().await;
    let thread = thread();
    let (mut events, _) = up_to_the_report_approval(&mut socket, &thread).await;
    events.extend(socket.until_finished().await);
    assert_agora_clean(&events);
    assert!(tool_results(&events).contains("rejected"));
    let approvals = server.state.db.approvals(&thread).await.unwrap();
    assert_eq!(approvals[0].decision.as_ref().unwrap().decided_by, "system");
}

#[tokio::test]
async fn cancel_stops_a_waiting_run_with_run_error_then_run_finished() {
    let server = TestServer::start().await;
    let mut socket = server.socket().await;
    let thread = thread();
    let (mut events, _) = up_to_the_report_approval(&mut socket, &thread).await;
    socket.send(&json!({ "type": "CUSTOM", "name": "agora:cancel_run", "value": { "threadId": thread } })).await;
    events.extend(socket.until_finished().await);
    assert_agora_clean(&events);
    let error = of_type(&events, "RUN_ERROR")[0];
    assert_eq!(error["code"], "cancelled");
    assert_eq!(events.last().unwrap()["type"], "RUN_FINISHED");
    let runs = server.state.db.runs(&thread).await.unwrap();
    assert!(
        runs.iter()
            .any(|r| r.status == agora_hai::orchestrator::store::RunStatus::Cancelled)
    );

    // Nothing left to cancel now.
    socket
        .send(&json!({ "type": "CUSTOM", "name": "agora:cancel_run", "value": {} }))
        .await;
    assert_eq!(socket.error_code().await, "no_active_run");
}

#[tokio::test]
async fn a_new_input_on_the_same_thread_cancels_the_running_one() {
    let server = TestServer::start().await;
    let mut socket = server.socket().await;
    let thread = thread();
    let (mut events, _) = up_to_the_report_approval(&mut socket, &thread).await;
    socket.ask(&thread, "Hallo").await;
    events.extend(socket.until_finished().await);
    assert_eq!(of_type(&events, "RUN_ERROR")[0]["code"], "cancelled");
    events.extend(socket.until_finished().await);
    assert_agora_clean(&events);
    assert!(!streamed_text(&events).is_empty());
}

#[tokio::test]
async fn malformed_frames_get_agora_error_and_the_socket_stays_usable() {
    let server = TestServer::start().await;
    let mut socket = server.socket().await;
    socket.send_text("this is not json".to_owned()).await;
    assert_eq!(socket.error_code().await, "invalid_json");
    socket
        .send(&json!({ "messages": [{ "role": "user", "content": "hoi" }] }))
        .await;
    assert_eq!(socket.error_code().await, "invalid_message");
    socket
        .send(&json!({ "threadId": 42, "messages": [] }))
        .await;
    assert_eq!(socket.error_code().await, "invalid_message");
    socket
        .send(&json!({ "threadId": "", "messages": [{ "role": "user", "content": "hoi" }] }))
        .await;
    assert_eq!(socket.error_code().await, "invalid_message");
    socket
        .send(&json!({ "threadId": "t", "messages": [] }))
        .await;
    assert_eq!(socket.error_code().await, "no_user_message");
    socket
        .send(&json!({ "type": "CUSTOM", "name": "agora:something_else", "value": {} }))
        .await;
    assert_eq!(socket.error_code().await, "unknown_event");
    socket
        .send(&json!({ "type": "RUN_STARTED", "threadId": "t", "runId": "r" }))
        .await;
    assert_eq!(socket.error_code().await, "invalid_message");
    socket
        .send_frame(tokio_tungstenite::tungstenite::Message::Binary(
            vec![1, 2, 3].into(),
        ))
        .await;
    assert_eq!(socket.error_code().await, "unsupported_frame");
    let huge = format!(
        "{{\"threadId\":\"t\",\"messages\":[{{\"role\":\"user\",\"content\":\"{}\"}}]}}",
        "a".repeat(1_100_000)
    );
    socket.send_text(huge).await;
    assert_eq!(socket.error_code().await, "message_too_large");

    socket.ask(&thread(), "Hallo").await;
    assert_agora_clean(&socket.until_finished().await);
}

#[tokio::test]
async fn a_moderated_message_starts_no_run() {
    let server = TestServer::start_with(|c| c.moderation_terms = vec!["verboden".to_owned()]).await;
    let mut socket = server.socket().await;
    socket.ask(&thread(), "Dit is een VERBODEN woord").await;
    let event = socket.next().await;
    assert_eq!(event["name"], "agora:error");
    assert_eq!(event["value"]["errorCode"], "moderation_violation");
    socket.ask(&thread(), "Hallo").await;
    assert_eq!(socket.next().await["type"], "RUN_STARTED");
}

#[tokio::test]
async fn a_disguised_moderated_term_is_caught_too() {
    let server = TestServer::start_with(|c| c.moderation_terms = vec!["verboden".to_owned()]).await;
    let mut socket = server.socket().await;
    // A zero-width space, a soft hyphen, full-width letters, Cyrillic look-alikes.
    for disguised in [
        "ver\u{200B}boden",
        "ver\u{00AD}boden",
        "ｖｅｒｂｏｄｅｎ",
        "vеrbоdеn",
    ] {
        socket.ask(&thread(), &format!("Dit is {disguised}")).await;
        let event = socket.next().await;
        assert_eq!(
            event["value"]["errorCode"], "moderation_violation",
            "{disguised:?}: {event}"
        );
    }
}

#[tokio::test]
async fn history_is_sent_as_one_messages_snapshot() {
    let server = TestServer::start().await;
    let thread = thread();
    let mut socket = server.socket().await;
    socket
        .ask(&thread, "Start inspectie bij Trattoria Finta Fiore")
        .await;
    let events = socket.until_finished().await;
    let answer = streamed_text(&events);

    let mut reopened = server.socket().await;
    reopened.send(&json!({ "type": "CUSTOM", "name": "agora:history_request", "value": { "threadId": thread } })).await;
    let snapshot = reopened.next().await;
    assert_eq!(snapshot["type"], "MESSAGES_SNAPSHOT");
    let messages = snapshot["messages"].as_array().unwrap();
    assert_eq!(messages[0]["role"], "user");
    assert_eq!(
        messages[0]["content"],
        "Start inspectie bij Trattoria Finta Fiore"
    );
    assert!(messages.iter().any(|m| m["role"] == "tool"));
    let last = messages.last().unwrap();
    assert_eq!(last["role"], "assistant");
    assert_eq!(last["content"], answer.as_str());
    assert_eq!(last["name"], "history-agent");
}

#[tokio::test]
async fn a_socket_that_does_not_read_does_not_stall_another() {
    let server = TestServer::start().await;
    let mut idle = server.socket().await;
    // This socket starts a run and then never reads its events.
    idle.ask(&thread(), "Start inspectie bij Trattoria Finta Fiore")
        .await;
    let mut busy = server.socket().await;
    for _ in 0..3 {
        busy.ask(
            &thread(),
            "Which rules apply to allergen information in a restaurant?",
        )
        .await;
        assert_agora_clean(&busy.until_finished().await);
    }
}

/// A store failure while a run starts: the client gets the code and its generic sentence,
/// never the store's own text (that is logged).
#[tokio::test]
async fn a_store_failure_at_the_start_sends_no_store_text() {
    let server = TestServer::start().await;
    sqlx::any::install_default_drivers();
    let url = format!("sqlite://{}", server.dir.0.join("agora.db").display());
    let pool = sqlx::AnyPool::connect(&url).await.unwrap();
    sqlx::query("DROP TABLE threads")
        .execute(&pool)
        .await
        .unwrap();
    let mut socket = server.socket().await;
    socket
        .send(
            &json!({ "threadId": "t-store", "messages": [{ "role": "user", "content": "Hallo" }] }),
        )
        .await;
    let error = socket.next().await;
    assert_eq!(error["name"], "agora:error", "{error}");
    assert_eq!(error["value"]["errorCode"], "storage_error", "{error}");
    assert_eq!(
        error["value"]["message"],
        ErrorCode::StorageError.text(Lang::Nl),
        "{error}"
    );
    let text = error.to_string().to_lowercase();
    for internal in ["no such table", "threads", "sql", "storage failed"] {
        assert!(
            !text.contains(internal),
            "{internal} reached the client: {text}"
        );
    }
}
