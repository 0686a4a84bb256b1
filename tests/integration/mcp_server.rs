//! Our `/mcp` seen by the official Python MCP client (PyPI `mcp`): it initializes, lists the
//! read tools (and only those), calls each with what an inspector's assistant would ask; it is
//! refused without credentials and past the per-account limit; and no account reaches another's
//! conversations through it.

#![cfg(feature = "ssr")]

use crate::common;

use common::keys::{ANNA, KOEN, key_server, key_server_with};
use common::mcp::official_client;
use common::{TestServer, of_type};
use serde_json::{Value, json};

fn plan(server: &TestServer, key: Option<&str>, calls: Value) -> Value {
    let headers = match key {
        Some(key) => json!({ "Authorization": format!("Bearer {key}") }),
        None => json!({}),
    };
    json!({ "url": server.url("/mcp"), "headers": headers, "calls": calls })
}

/// What an inspector's assistant asks of the register and the law.
fn every_tool_once() -> Value {
    json!([
        { "name": "check_company_exists", "arguments": { "name": "Trattoria Finta Fiore" } },
        { "name": "get_company_info", "arguments": { "kvk": "99990001" } },
        { "name": "get_inspection_history", "arguments": { "kvk": "99990001", "limit": 2 } },
        { "name": "search_regulations", "arguments": { "query": "temperatuur koelcel bewaren" } },
        { "name": "lookup_regulation_articles", "arguments": { "ids": ["1169-2011-art-44"] } },
    ])
}

#[tokio::test]
async fn the_official_client_initializes_lists_the_read_tools_and_calls_each() {
    let server = key_server().await;
    let out = official_client(&plan(&server, Some(KOEN), every_tool_once())).await;
    assert!(out.get("error").is_none(), "{out:#}");
    assert_eq!(out["initialized"]["serverInfo"]["name"], "agora-hai");
    assert_eq!(out["initialized"]["tools"], true);
    let mut names: Vec<&str> = out["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    names.sort_unstable();
    // Reading only: no findings, reports or verification through MCP.
    assert_eq!(
        names,
        [
            "check_company_exists",
            "get_company_info",
            "get_inspection_history",
            "lookup_regulation_articles",
            "search_regulations"
        ]
    );
    for tool in out["tools"].as_array().unwrap() {
        assert_eq!(tool["inputSchema"]["type"], "object", "{tool}");
        assert!(!tool["description"].as_str().unwrap().is_empty());
    }
    let calls = out["calls"].as_array().unwrap();
    assert_eq!(calls.len(), 5, "{out:#}");
    for call in calls {
        assert_eq!(call["isError"], false, "{call:#}");
    }
    assert_eq!(
        calls[0]["structured"]["decision"], "match",
        "{:#}",
        calls[0]
    );
    assert_eq!(calls[1]["structured"]["name"], "Trattoria Finta Fiore");
    assert_eq!(calls[1]["structured"]["city"], "Amsterdam");
    let inspections = calls[2]["structured"].to_string();
    assert!(inspections.contains("99990001"), "{inspections}");
    let hits = calls[3]["structured"].to_string();
    assert!(
        hits.contains("852/2004") || hits.contains("temperat"),
        "{hits}"
    );
    assert!(
        calls[4]["structured"]
            .to_string()
            .contains("1169-2011-art-44"),
        "{:#}",
        calls[4]
    );
    // Text content too, for clients that read only that.
    assert!(calls[1]["text"].as_str().unwrap().contains("Finta Fiore"));
}

#[tokio::test]
async fn a_bad_argument_is_a_tool_error_the_client_reads_and_a_writing_tool_is_unknown() {
    let server = key_server().await;
    let calls = json!([
        { "name": "get_company_info", "arguments": { "kvk": "12" } },
        { "name": "generate_final_report", "arguments": {} },
        { "name": "record_finding", "arguments": {} },
    ]);
    let out = official_client(&plan(&server, Some(KOEN), calls)).await;
    let calls = out["calls"].as_array().unwrap();
    assert_eq!(calls[0]["isError"], true, "{out:#}");
    assert!(
        calls[0]["text"].as_str().unwrap().contains("8-digit KVK"),
        "{:#}",
        calls[0]
    );
    for refused in &calls[1..] {
        assert!(
            refused["error"].as_str().unwrap().contains("unknown tool"),
            "{refused:#}"
        );
    }
}

#[tokio::test]
async fn without_valid_credentials_nothing_is_served() {
    let server = key_server().await;
    for key in [None, Some("not-a-key-of-anyone")] {
        let out = official_client(&plan(&server, key, every_tool_once())).await;
        // The SDK only says the server refused; the status is read below.
        assert!(out["initialized"].is_null(), "{out:#}");
        assert!(out["tools"].as_array().unwrap().is_empty(), "{out:#}");
        assert!(out["calls"].as_array().unwrap().is_empty(), "{out:#}");
        let error = out["error"].as_str().unwrap();
        assert!(error.contains("error response"), "{error}");
    }
    // Plain HTTP says why, as the API does: 401 with a JSON body, with and without a key.
    for key in [None, Some("not-a-key-of-anyone")] {
        let mut request = server
            .http
            .post(server.url("/mcp"))
            .header("accept", "application/json, text/event-stream")
            .json(&json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}));
        if let Some(key) = key {
            request = request.bearer_auth(key);
        }
        let response = request.send().await.unwrap();
        assert_eq!(response.status(), 401);
        assert!(response.headers().contains_key("www-authenticate"));
        let body: Value = response.json().await.unwrap();
        assert!(body["detail"].as_str().is_some(), "{body}");
    }
}

#[tokio::test]
async fn past_the_limit_a_call_is_refused_with_when_to_retry_and_others_are_not_held_up() {
    let server = key_server_with(|c| c.mcp_calls_per_minute = 3).await;
    let call = json!({ "name": "get_company_info", "arguments": { "kvk": "99990001" } });
    let out = official_client(&plan(&server, Some(KOEN), json!([call, call, call, call]))).await;
    let calls = out["calls"].as_array().unwrap();
    for served in &calls[..3] {
        assert_eq!(served["isError"], false, "{out:#}");
    }
    let refused = &calls[3];
    assert_eq!(
        refused["code"],
        agora_hai::server::mcp::RATE_LIMITED,
        "{refused:#}"
    );
    assert!(
        refused["error"]
            .as_str()
            .unwrap()
            .contains("at most 3 a minute")
    );
    assert!(refused["data"]["retryAfterSeconds"].as_u64().unwrap() >= 1);
    // The limit is per account: Anna is served.
    let out = official_client(&plan(&server, Some(ANNA), json!([call]))).await;
    assert_eq!(out["calls"][0]["isError"], false, "{out:#}");
}

#[tokio::test]
async fn another_accounts_conversation_is_never_reachable_through_mcp() {
    let server = key_server().await;
    // Koen's conversation, with words nobody else wrote.
    let thread = format!("thread-{}", uuid::Uuid::new_v4());
    let secret = "Koelcel zeven bij Trattoria Finta Fiore: kwartelpastei op 11 graden";
    let input = json!({
        "threadId": thread, "runId": format!("run-{}", uuid::Uuid::new_v4()),
        "messages": [{ "id": "m1", "role": "user", "content": secret }],
        "tools": [], "context": [], "state": {}, "forwardedProps": {},
    });
    let (status, events) = server.agui(Some(KOEN), &input).await;
    assert_eq!(status, 200);
    assert_eq!(of_type(&events, "RUN_FINISHED").len(), 1, "{events:#?}");

    // Anna asks every tool, naming Koen's thread every way a client might.
    let mut calls = every_tool_once();
    for call in calls.as_array_mut().unwrap() {
        let arguments = call["arguments"].as_object_mut().unwrap();
        arguments.insert("threadId".into(), json!(thread));
        arguments.insert("thread_id".into(), json!(thread));
    }
    calls
        .as_array_mut()
        .unwrap()
        .push(json!({ "name": "search_regulations", "arguments": { "query": "kwartelpastei koelcel zeven" } }));
    let out = official_client(&plan(&server, Some(ANNA), calls)).await;
    let seen = out.to_string();
    assert!(out["calls"].as_array().unwrap().len() == 6, "{out:#}");
    assert!(
        !seen.contains(&thread),
        "Koen's thread reached Anna: {seen}"
    );
    assert!(
        !seen.contains("kwartelpastei op 11"),
        "Koen's words reached Anna"
    );
    // No tool takes a thread, and no MCP session is kept that another could present.
    for tool in out["tools"].as_array().unwrap() {
        let properties = tool["inputSchema"]["properties"].as_object().unwrap();
        assert!(
            properties
                .keys()
                .all(|k| !k.to_lowercase().contains("thread")),
            "{tool}"
        );
    }
    let response = server
        .http
        .post(server.url("/mcp"))
        .header("x-api-key", KOEN)
        .header("accept", "application/json, text/event-stream")
        .json(
            &json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "curl", "version": "1"}}}),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    assert!(
        !response.headers().contains_key("mcp-session-id"),
        "a stateless server hands out no session"
    );
}

/// `--auth users`: a signed-in session's cookie lets an MCP client in, as it does the API; a
/// signed-out one does not.
#[tokio::test]
async fn a_signed_in_session_is_let_in_and_a_missing_one_is_not() {
    use common::users::{ADMIN_EMAIL, ADMIN_PASSWORD, sign_in, users_server};
    let server = users_server().await;
    let cookie = sign_in(&server, ADMIN_EMAIL, ADMIN_PASSWORD).await.unwrap();
    let calls = json!([{ "name": "get_company_info", "arguments": { "kvk": "99990001" } }]);
    let mut signed_in = plan(&server, None, calls.clone());
    signed_in["headers"] = json!({ "Cookie": cookie });
    let out = official_client(&signed_in).await;
    assert_eq!(out["calls"][0]["isError"], false, "{out:#}");
    assert_eq!(
        out["calls"][0]["structured"]["name"],
        "Trattoria Finta Fiore"
    );

    let out = official_client(&plan(&server, None, calls)).await;
    assert!(out["initialized"].is_null(), "{out:#}");
    assert!(out["calls"].as_array().unwrap().is_empty(), "{out:#}");
}
