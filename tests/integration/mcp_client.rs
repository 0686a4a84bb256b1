//! The orchestrator as an MCP client: a FastMCP server (PyPI `fastmcp`, the authority's permit
//! register in `scripts/mcp_tool_server.py`) started by the test, and a scripted
//! OpenAI-compatible model that calls its tools. The calls stream as ordinary tool events
//! (the AGORA verifier and the official AG-UI models accept them), the approval policy asks
//! where it says so, and a failing tool, a timeout and a server killed mid-call each end in a
//! tool result and a finished run. A server down at start is retried and comes up.

#![cfg(feature = "ssr")]

use crate::common;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::mcp::{ToolServer, free_port};
use common::model::{self, Script};
use common::{TestServer, assert_agora_clean, of_type};
use serde_json::{Value, json};

/// AGORA on the scripted model, with the MCP server `vergunningen` at `url`.
async fn start(
    script: Vec<Script>,
    url: &str,
    configure: impl FnOnce(&mut agora_hai::server::Config),
) -> (TestServer, Arc<Mutex<Vec<Value>>>) {
    let (base_url, requests) = model::serve(script).await;
    let server = TestServer::start_with(|c| {
        c.llm_base_url = Some(base_url);
        c.llm_context_tokens = Some(8192);
        c.mcp_servers = vec![format!("vergunningen={url}")];
        configure(c);
    })
    .await;
    (server, requests)
}

/// `/ready`'s entry for the one MCP server.
async fn mcp_status(server: &TestServer) -> Value {
    let ready: Value = server
        .http
        .get(server.url("/ready"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(ready["status"], "ready", "{ready}");
    ready["mcp"][0].clone()
}

/// Waits until `/ready` says the server is `status` (the supervisor retries with back-off of
/// at most 30 s; the wait is generous because the machine is shared, not a measured bound).
async fn until_status(server: &TestServer, status: &str) -> Value {
    for _ in 0..1200 {
        let entry = mcp_status(server).await;
        if entry["status"] == status {
            return entry;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!(
        "the MCP server never became {status}: {}",
        mcp_status(server).await
    );
}

fn new_thread() -> String {
    format!("thread-{}", uuid::Uuid::new_v4())
}

/// The TOOL_CALL_RESULT contents of a stream, parsed, in order.
fn tool_results(events: &[Value]) -> Vec<Value> {
    of_type(events, "TOOL_CALL_RESULT")
        .iter()
        .map(|e| serde_json::from_str(e["content"].as_str().unwrap()).unwrap())
        .collect()
}

#[tokio::test]
async fn a_lookup_a_failing_tool_and_a_timeout_each_end_in_a_tool_result_of_one_finished_run() {
    let mut tools = ToolServer::start(free_port(), None);
    let (server, requests) = start(
        vec![
            Script::Call("lookup_permits", r#"{"kvk": "92251854"}"#, "tool_calls"),
            Script::Call("failing_lookup", r#"{"kvk": "92251854"}"#, "tool_calls"),
            Script::Call("slow_lookup", r#"{"kvk": "92251854"}"#, "tool_calls"),
            Script::Text(
                "Het bedrijf heeft erkenning NL 4521 EG; het handhavingsregister is in storing.",
                "stop",
            ),
        ],
        &tools.url(),
        |c| c.mcp_timeout_secs = 2,
    )
    .await;
    let up = until_status(&server, "up").await;
    // The clashing name is offered with the server's name in front; the built-in keeps its own.
    let offered: Vec<&str> = up["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t.as_str().unwrap())
        .collect();
    assert_eq!(
        offered,
        [
            "delete_permit",
            "failing_lookup",
            "lookup_permits",
            "open_case_register",
            "slow_lookup",
            "vergunningen_search_regulations"
        ]
    );

    let mut socket = server.socket().await;
    let thread = new_thread();
    socket
        .ask(&thread, "Welke erkenningen heeft KVK 92251854?")
        .await;
    let events = socket.until_finished().await;
    assert_agora_clean(&events);
    assert!(of_type(&events, "RUN_ERROR").is_empty(), "{events:#?}");
    assert!(
        of_type(&events, "CUSTOM")
            .iter()
            .all(|e| e["name"] != "agora:tool_approval_request")
    );

    let starts = of_type(&events, "TOOL_CALL_START");
    let names: Vec<&str> = starts
        .iter()
        .map(|e| e["toolCallName"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["lookup_permits", "failing_lookup", "slow_lookup"]);
    // The server's title is the name people see.
    assert_eq!(
        starts[0]["toolDisplayName"], "Vergunningen opzoeken",
        "{:#}",
        starts[0]
    );

    let results = tool_results(&events);
    assert_eq!(results.len(), 3, "{events:#?}");
    assert_eq!(
        results[0]["structuredContent"]["count"], 2,
        "{:#}",
        results[0]
    );
    assert!(results[0]["text"].as_str().unwrap().contains("NL 4521 EG"));
    let failed = results[1]["error"].as_str().unwrap();
    assert!(
        failed.contains("handhavingsregister niet bereikbaar"),
        "{failed}"
    );
    let timed_out = results[2]["error"].as_str().unwrap();
    assert!(
        timed_out.contains("did not answer within 2 s"),
        "{timed_out}"
    );
    assert!(common::streamed_text(&events).contains("NL 4521 EG"));

    // The model was offered the MCP tools beside the handoff, and read each result.
    let requests = requests.lock().unwrap().clone();
    let first: Vec<&str> = requests[0]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap())
        .collect();
    assert!(
        first.contains(&"handoff_to_agent") && first.contains(&"lookup_permits"),
        "{first:?}"
    );
    assert!(
        first.contains(&"vergunningen_search_regulations"),
        "{first:?}"
    );
    let last = requests.last().unwrap()["messages"].to_string();
    assert!(last.contains("did not answer within 2 s"), "{last}");

    // The stored thread has every call answered.
    let stored = server.state.db.messages(&thread).await.unwrap();
    let answered = stored
        .iter()
        .filter(|m| matches!(m, agora_hai::protocol::Message::Tool(_)))
        .count();
    assert_eq!(answered, 3);
    tools.kill().await;
}

#[tokio::test]
async fn the_policy_asks_before_a_destructive_mcp_tool_and_always_when_configured() {
    let mut tools = ToolServer::start(free_port(), None);
    let (server, _requests) = start(
        vec![
            Script::Call("delete_permit", r#"{"number": "NL 4521 EG"}"#, "tool_calls"),
            Script::Text("De erkenning is ingetrokken.", "stop"),
        ],
        &tools.url(),
        |_| {},
    )
    .await;
    until_status(&server, "up").await;
    let mut socket = server.socket().await;
    let thread = new_thread();
    socket.ask(&thread, "Trek erkenning NL 4521 EG in").await;
    let mut events = socket.until_approval_request().await;
    let request = events.last().unwrap()["value"].clone();
    assert_eq!(request["toolName"], "delete_permit");
    assert_eq!(request["riskLevel"], "high");
    socket
        .answer_approval(request["approvalId"].as_str().unwrap(), true, None)
        .await;
    events.extend(socket.until_finished().await);
    assert_agora_clean(&events);
    let results = tool_results(&events);
    assert!(
        results[0]["text"].as_str().unwrap().contains("ingetrokken"),
        "{results:?}"
    );

    // `--mcp-approval vergunningen=always`: even a lookup asks, and a rejection is its result.
    let (server, _requests) = start(
        vec![
            Script::Call("lookup_permits", r#"{"kvk": "92251854"}"#, "tool_calls"),
            Script::Text("Niet opgezocht.", "stop"),
        ],
        &tools.url(),
        |c| c.mcp_approvals = vec!["vergunningen=always".to_owned()],
    )
    .await;
    until_status(&server, "up").await;
    let mut socket = server.socket().await;
    let thread = new_thread();
    socket
        .ask(&thread, "Welke erkenningen heeft KVK 92251854?")
        .await;
    let mut events = socket.until_approval_request().await;
    let request = events.last().unwrap()["value"].clone();
    assert_eq!(request["toolName"], "lookup_permits");
    socket
        .answer_approval(
            request["approvalId"].as_str().unwrap(),
            false,
            Some("Niet nodig"),
        )
        .await;
    events.extend(socket.until_finished().await);
    assert_agora_clean(&events);
    let results = tool_results(&events);
    assert_eq!(results[0]["status"], "rejected", "{results:?}");
    assert!(of_type(&events, "RUN_ERROR").is_empty());
    tools.kill().await;
}

#[tokio::test]
async fn a_server_killed_mid_call_ends_the_call_with_a_result_and_comes_back_when_restarted() {
    let port = free_port();
    let mut tools = ToolServer::start(port, None);
    let (server, _requests) = start(
        vec![
            Script::Call(
                "slow_lookup",
                r#"{"kvk": "92251854", "seconds": 600}"#,
                "tool_calls",
            ),
            Script::Text("Het archief is niet bereikbaar.", "stop"),
        ],
        &tools.url(),
        |c| c.mcp_timeout_secs = 20,
    )
    .await;
    until_status(&server, "up").await;
    let mut socket = server.socket().await;
    let thread = new_thread();
    socket
        .ask(&thread, "Zoek KVK 92251854 in het archief")
        .await;
    // The call is under way once it is announced.
    let mut events = socket.until(|e| e["type"] == "TOOL_CALL_END").await;
    tools.kill().await;
    events.extend(socket.until_finished().await);
    assert_agora_clean(&events);
    assert!(of_type(&events, "RUN_ERROR").is_empty(), "{events:#?}");
    let results = tool_results(&events);
    let error = results[0]["error"].as_str().unwrap();
    assert!(
        error.contains("the connection to the MCP server `vergunningen` broke off"),
        "{error}"
    );

    // Noticed as down, retried, and up again once the server is back on its port.
    let down = until_status(&server, "down").await;
    assert!(down["error"].as_str().is_some(), "{down}");
    let mut tools = ToolServer::start(port, None);
    until_status(&server, "up").await;
    tools.kill().await;
}

#[tokio::test]
async fn a_server_down_at_start_is_retried_not_fatal_and_its_tools_come_when_it_does() {
    let port = free_port();
    let token_file = common::TempDir::new("mcp-token");
    let token_path = token_file.0.join("token");
    std::fs::write(&token_path, "Bearer vergunning-token-7\n").unwrap();
    let url = format!("http://127.0.0.1:{port}/mcp");
    let (server, requests) = start(
        vec![
            Script::Text("Het register is nu niet bereikbaar.", "stop"),
            Script::Call("lookup_permits", r#"{"kvk": "92251854"}"#, "tool_calls"),
            Script::Text("Erkenning NL 4521 EG.", "stop"),
        ],
        &url,
        |c| {
            c.mcp_headers = vec![format!(
                "vergunningen=Authorization: @{}",
                token_path.display()
            )]
        },
    )
    .await;
    let down = until_status(&server, "down").await;
    assert!(down["attempts"].as_u64().unwrap() >= 1, "{down}");
    assert_eq!(down["tools"], json!([]));
    // Without the server the model is offered no MCP tools, and the run still answers.
    let mut socket = server.socket().await;
    let thread = new_thread();
    socket
        .ask(&thread, "Welke erkenningen heeft KVK 92251854?")
        .await;
    let events = socket.until_finished().await;
    assert_agora_clean(&events);
    let offered = requests.lock().unwrap()[0]["tools"].to_string();
    assert!(!offered.contains("lookup_permits"), "{offered}");

    // It comes up with the token from the file (the server refuses requests without it).
    let mut tools = ToolServer::start(port, Some("vergunning-token-7"));
    until_status(&server, "up").await;
    socket.ask(&thread, "Probeer het nog eens").await;
    let events = socket.until_finished().await;
    assert_agora_clean(&events);
    let results = tool_results(&events);
    assert_eq!(results[0]["structuredContent"]["count"], 2, "{results:?}");
    tools.kill().await;
}

/// The server adds a tool during a call and says so (`tools/list_changed`): the list is read
/// again and the new tool is offered from the next model turn on, here in the next run.
#[tokio::test]
async fn a_tool_the_server_adds_is_offered_once_it_says_its_list_changed() {
    let mut tools = ToolServer::start(free_port(), None);
    let (server, requests) = start(
        vec![
            Script::Call("open_case_register", r#"{}"#, "tool_calls"),
            Script::Text("Het zakenregister is open.", "stop"),
            Script::Call("lookup_case", r#"{"kvk": "92251854"}"#, "tool_calls"),
            Script::Text("Er loopt zaak HZ-2026-0412.", "stop"),
        ],
        &tools.url(),
        |_| {},
    )
    .await;
    let up = until_status(&server, "up").await;
    assert!(!up["tools"].to_string().contains("lookup_case"), "{up}");
    let mut socket = server.socket().await;
    let thread = new_thread();
    socket.ask(&thread, "Open het zakenregister").await;
    let events = socket.until_finished().await;
    assert_agora_clean(&events);
    assert_eq!(tool_results(&events)[0]["text"], "zakenregister geopend");
    for _ in 0..600 {
        if mcp_status(&server).await["tools"]
            .to_string()
            .contains("lookup_case")
        {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(
        mcp_status(&server).await["tools"]
            .to_string()
            .contains("lookup_case")
    );
    socket
        .ask(&thread, "Lopen er zaken tegen KVK 92251854?")
        .await;
    let events = socket.until_finished().await;
    assert_agora_clean(&events);
    let results = tool_results(&events);
    assert_eq!(
        results[0]["structuredContent"]["cases"][0]["number"], "HZ-2026-0412",
        "{results:?}"
    );
    let offered = requests.lock().unwrap()[2]["tools"].to_string();
    assert!(offered.contains("lookup_case"), "{offered}");
    tools.kill().await;
}

/// Over `POST /agui` (the standard dialect) an MCP call is four ordinary tool events: the rules
/// of `@ag-ui/client`'s `verifyEvents` and the official AG-UI models accept the stream.
#[tokio::test]
async fn over_agui_an_mcp_call_is_an_ordinary_tool_call_to_the_standard_checks() {
    let mut tools = ToolServer::start(free_port(), None);
    let (server, _requests) = start(
        vec![
            Script::Call("lookup_permits", r#"{"kvk": "92251854"}"#, "tool_calls"),
            Script::Text("Twee erkenningen, waaronder NL 4521 EG.", "stop"),
        ],
        &tools.url(),
        |_| {},
    )
    .await;
    until_status(&server, "up").await;
    let input = json!({
        "threadId": new_thread(), "runId": format!("run-{}", uuid::Uuid::new_v4()),
        "messages": [{ "id": "m1", "role": "user", "content": "Welke erkenningen heeft KVK 92251854?" }],
        "tools": [], "context": [], "state": {}, "forwardedProps": {},
    });
    let (status, events) = server.agui(None, &input).await;
    assert_eq!(status, 200);
    let typed: Vec<agora_hai::protocol::Event> = events
        .iter()
        .map(|e| serde_json::from_value(e.clone()).unwrap())
        .collect();
    let violations = agora_hai::protocol::verify(&typed, agora_hai::protocol::Dialect::Standard);
    assert!(violations.is_empty(), "{violations:#?}");
    common::assert_official("standard", &events);
    let kinds: Vec<&str> = events
        .iter()
        .map(|e| e["type"].as_str().unwrap())
        .filter(|t| t.starts_with("TOOL_CALL"))
        .collect();
    assert_eq!(
        kinds,
        [
            "TOOL_CALL_START",
            "TOOL_CALL_ARGS",
            "TOOL_CALL_END",
            "TOOL_CALL_RESULT"
        ]
    );
    assert_eq!(
        of_type(&events, "TOOL_CALL_START")[0]["toolCallName"],
        "lookup_permits"
    );
    assert_eq!(tool_results(&events)[0]["structuredContent"]["count"], 2);
    assert_eq!(of_type(&events, "RUN_FINISHED").len(), 1);
    tools.kill().await;
}

/// Many calls over one connection, each answered right (no answer crossed with another's), and
/// what one costs: the median of an MCP call (FastMCP over streamable HTTP on this machine)
/// against a built-in tool, through the same `Tool` trait the run loop calls. Printed for the
/// README, not asserted: the machine is shared.
#[tokio::test]
async fn many_mcp_calls_in_a_row_are_each_answered_right_and_their_cost_is_printed() {
    use agora_hai::orchestrator::tools::ToolContext;
    let mut tools = ToolServer::start(free_port(), None);
    let (server, _requests) = start(vec![Script::Text("-", "stop")], &tools.url(), |_| {}).await;
    until_status(&server, "up").await;
    let toolbox = server.state.orchestrator.toolbox();
    let mcp = toolbox.get("lookup_permits").unwrap();
    let builtin = toolbox.get("get_company_info").unwrap();
    let reports = server.dir.0.join("reports");
    let context = ToolContext {
        thread_id: "thread-measure",
        user_id: "dev-user",
        messages: &[],
        reports_dir: &reports,
        user_name: None,
        thread_title: None,
        photos: None,
        inspection: None,
    };
    const CALLS: usize = 300;
    let mut timings = [Vec::new(), Vec::new()];
    for round in 0..CALLS + 20 {
        // Alternating kvk numbers: an answer that belonged to another call would show.
        let (kvk, count) = if round % 2 == 0 {
            ("92251854", 2)
        } else {
            ("11112222", 0)
        };
        let started = std::time::Instant::now();
        let result = mcp.call(&context, &json!({ "kvk": kvk })).await.unwrap();
        let mcp_time = started.elapsed();
        assert_eq!(result["structuredContent"]["kvk"], kvk);
        assert_eq!(result["structuredContent"]["count"], count);
        let started = std::time::Instant::now();
        let result = builtin
            .call(&context, &json!({ "kvk": "99990001" }))
            .await
            .unwrap();
        let builtin_time = started.elapsed();
        assert_eq!(result["name"], "Trattoria Finta Fiore");
        // The first calls warm up (connection pool, Python's caches).
        if round >= 20 {
            timings[0].push(mcp_time);
            timings[1].push(builtin_time);
        }
    }
    for (name, mut times) in ["MCP lookup_permits", "built-in get_company_info"]
        .into_iter()
        .zip(timings)
    {
        times.sort_unstable();
        eprintln!(
            "{name}: median {:?}, p10 {:?}, p90 {:?} over {CALLS} calls",
            times[CALLS / 2],
            times[CALLS / 10],
            times[CALLS * 9 / 10]
        );
    }
    tools.kill().await;
}

/// `--mcp-command`: the same FastMCP server as a child process on stdio.
#[tokio::test]
async fn a_server_on_stdio_is_started_as_a_child_and_its_tools_answer() {
    use agora_hai::orchestrator::tools::ToolContext;
    let command = format!(
        "{} {} stdio",
        common::mcp::python().display(),
        common::mcp::script("mcp_tool_server.py").display()
    );
    let server = TestServer::start_with(|c| {
        // The model path (MCP tools are not for the embedded planner); no run asks it here.
        c.llm_base_url = Some("http://127.0.0.1:9/v1".to_owned());
        c.llm_context_tokens = Some(8192);
        c.mcp_commands = vec![format!("vergunningen={command}")];
        c.mcp_agents = vec!["vergunningen=history-agent".to_owned()];
    })
    .await;
    let up = until_status(&server, "up").await;
    assert_eq!(up["transport"], "stdio", "{up}");
    let toolbox = server.state.orchestrator.toolbox();
    // Offered to the agent the flag names, not to the general agent.
    let names = |agent: &str| -> Vec<String> {
        toolbox
            .mcp_specs(agent)
            .into_iter()
            .map(|s| s.name)
            .collect()
    };
    assert!(names("history-agent").contains(&"lookup_permits".to_owned()));
    assert!(names("general-agent").is_empty());
    let reports = server.dir.0.join("reports");
    let context = ToolContext {
        thread_id: "thread-stdio",
        user_id: "dev-user",
        messages: &[],
        reports_dir: &reports,
        user_name: None,
        thread_title: None,
        photos: None,
        inspection: None,
    };
    let result = toolbox
        .get("lookup_permits")
        .unwrap()
        .call(&context, &json!({ "kvk": "92251854" }))
        .await
        .unwrap();
    assert_eq!(result["structuredContent"]["count"], 2, "{result}");
}

/// With the embedded planner (no `--llm-base-url`) the MCP flags connect nothing: the planner
/// keeps its own tools, and `/ready` lists no MCP server.
#[tokio::test]
async fn the_embedded_planner_keeps_its_own_tools() {
    let server = TestServer::start_with(|c| {
        c.mcp_servers = vec!["vergunningen=http://127.0.0.1:9/mcp".to_owned()];
    })
    .await;
    assert!(server.state.orchestrator.toolbox().mcp().is_none());
    let ready: Value = server
        .http
        .get(server.url("/ready"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(ready, json!({ "status": "ready" }));
}
