//! The AGORA REST API over real HTTP, checked against `../shared/agora-contract/openapi.yaml`
//! (read in place): every endpoint, its happy path and its errors.
#![cfg(feature = "ssr")]

use crate::common;

use std::collections::BTreeSet;
use std::path::Path;

use agora_hai::protocol::Message;
use agora_hai::server::store::{DEV_USER_EMAIL, DEV_USER_ID};
use agora_hai::server::{AppState, Config};
use common::{TempDir, TestServer};
use reqwest::StatusCode;
use serde_json::{Value, json};

// ---------------------------------------------------------------------------------------------
// The contract, read in place.

fn openapi() -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/agora-contract/openapi.yaml");
    std::fs::read_to_string(path).unwrap()
}

fn indent(line: &str) -> usize {
    line.len() - line.trim_start().len()
}

/// The lines of `components.schemas.<name>`, enough YAML for `required` and `properties`.
fn schema_lines(yaml: &str, name: &str) -> Vec<String> {
    let lines: Vec<&str> = yaml.lines().collect();
    let components = lines.iter().position(|l| *l == "components:").unwrap();
    let header = format!("    {name}:");
    let start = lines[components..]
        .iter()
        .position(|l| *l == header)
        .unwrap_or_else(|| panic!("schema {name} not in the contract"))
        + components;
    lines[start + 1..]
        .iter()
        .take_while(|l| l.trim().is_empty() || indent(l) > 4)
        .map(|l| (*l).to_owned())
        .collect()
}

/// `required: [a, b]` of a schema.
fn required(yaml: &str, name: &str) -> BTreeSet<String> {
    schema_lines(yaml, name)
        .iter()
        .find_map(|l| {
            l.trim()
                .strip_prefix("required: [")?
                .strip_suffix(']')
                .map(str::to_owned)
        })
        .map(|list| list.split(',').map(|s| s.trim().to_owned()).collect())
        .unwrap_or_default()
}

/// The property names of a schema.
fn properties(yaml: &str, name: &str) -> BTreeSet<String> {
    let lines = schema_lines(yaml, name);
    let Some(start) = lines.iter().position(|l| l == "      properties:") else {
        return BTreeSet::new();
    };
    lines[start + 1..]
        .iter()
        .take_while(|l| l.trim().is_empty() || indent(l) > 6)
        .filter(|l| indent(l) == 8 && l.trim_end().ends_with(':'))
        .map(|l| l.trim().trim_end_matches(':').to_owned())
        .collect()
}

/// Every required key is there and every key is one the schema knows.
#[track_caller]
fn assert_shape(value: &Value, schema: &str) {
    let yaml = openapi();
    let object = value
        .as_object()
        .unwrap_or_else(|| panic!("{schema}: not an object: {value}"));
    let keys: BTreeSet<String> = object.keys().cloned().collect();
    let required = required(&yaml, schema);
    let known = properties(&yaml, schema);
    assert!(
        !known.is_empty(),
        "{schema} has no properties in the contract"
    );
    assert!(
        required.is_subset(&keys),
        "{schema}: missing {:?} in {value}",
        required.difference(&keys)
    );
    assert!(
        keys.is_subset(&known),
        "{schema}: unknown {:?} in {value}",
        keys.difference(&known)
    );
}

#[test]
fn the_contract_reader_reads_the_contract() {
    let yaml = openapi();
    assert_eq!(
        required(&yaml, "SessionMetadata"),
        [
            "sessionId",
            "userId",
            "title",
            "messageCount",
            "createdAt",
            "lastActivity"
        ]
        .map(String::from)
        .into()
    );
    assert!(properties(&yaml, "SessionMetadata").contains("firstMessagePreview"));
    assert!(properties(&yaml, "UserPreferences").contains("spoken_text_type"));
    assert!(required(&yaml, "UserPreferences").is_empty());
}

// ---------------------------------------------------------------------------------------------
// The shared test server (tests/integration/common), spoken to as a REST client.

trait Rest {
    async fn get(&self, path: &str) -> (StatusCode, Value);
    async fn get_as(&self, user: &str, path: &str) -> (StatusCode, Value);
    async fn put(&self, path: &str, body: &Value) -> (StatusCode, Value);
    async fn put_raw(&self, path: &str, body: &'static str) -> (StatusCode, Value);
    async fn post(&self, path: &str, body: &Value) -> (StatusCode, Value);
    async fn delete(&self, path: &str) -> (StatusCode, Value);
    /// A thread as the orchestrator would leave it: opened, with these messages.
    async fn seed_thread(&self, id: &str, owner: &str, messages: &[Value]);
    async fn create_user(&self, email: &str, name: &str) -> Value;
}

impl Rest for TestServer {
    async fn get(&self, path: &str) -> (StatusCode, Value) {
        read(self.http.get(self.url(path)).send().await.unwrap()).await
    }

    async fn get_as(&self, user: &str, path: &str) -> (StatusCode, Value) {
        read(
            self.http
                .get(self.url(path))
                .header("X-User-Id", user)
                .send()
                .await
                .unwrap(),
        )
        .await
    }

    async fn put(&self, path: &str, body: &Value) -> (StatusCode, Value) {
        read(
            self.http
                .put(self.url(path))
                .json(body)
                .send()
                .await
                .unwrap(),
        )
        .await
    }

    async fn put_raw(&self, path: &str, body: &'static str) -> (StatusCode, Value) {
        read(
            self.http
                .put(self.url(path))
                .body(body)
                .send()
                .await
                .unwrap(),
        )
        .await
    }

    async fn post(&self, path: &str, body: &Value) -> (StatusCode, Value) {
        read(
            self.http
                .post(self.url(path))
                .json(body)
                .send()
                .await
                .unwrap(),
        )
        .await
    }

    async fn delete(&self, path: &str) -> (StatusCode, Value) {
        read(self.http.delete(self.url(path)).send().await.unwrap()).await
    }

    async fn seed_thread(&self, id: &str, owner: &str, messages: &[Value]) {
        let first = messages
            .iter()
            .find(|m| m["role"] == "user")
            .and_then(|m| m["content"].as_str())
            .unwrap_or("");
        self.state.db.open_thread(id, owner, first).await.unwrap();
        for m in messages {
            let message: Message = serde_json::from_value(m.clone()).unwrap();
            self.state.db.append_message(id, &message).await.unwrap();
        }
    }

    async fn create_user(&self, email: &str, name: &str) -> Value {
        let (status, body) = self
            .post("/users", &json!({"email": email, "name": name}))
            .await;
        assert_eq!(status, StatusCode::CREATED, "{body}");
        body["user"].clone()
    }
}

async fn read(response: reqwest::Response) -> (StatusCode, Value) {
    let status = response.status();
    let text = response.text().await.unwrap();
    let body = serde_json::from_str(&text).unwrap_or_else(|_| panic!("{status}: not JSON: {text}"));
    (status, body)
}

/// An error as the contract's clients read it: `{"detail": "…"}`.
#[track_caller]
fn assert_error(got: (StatusCode, Value), want: StatusCode) {
    let (status, body) = got;
    assert_eq!(status, want, "{body}");
    assert!(
        body["detail"].as_str().is_some_and(|d| !d.is_empty()),
        "{body}"
    );
}

fn conversation() -> Vec<Value> {
    vec![
        json!({"role": "user", "id": "m1", "content": "Start inspectie bij Trattoria Finta Fiore"}),
        json!({"role": "assistant", "id": "m2", "name": "history-agent", "toolCalls": [
            {"id": "call-1", "type": "function", "function": {"name": "get_company_info", "arguments": "{\"naam\":\"Finta Fiore\"}"}}
        ]}),
        json!({"role": "tool", "id": "m3", "toolCallId": "call-1", "content": "{\"kvk\":\"12345678\"}"}),
        json!({"role": "assistant", "id": "m4", "name": "history-agent", "content": "Trattoria Finta Fiore is gevonden."}),
    ]
}

// ---------------------------------------------------------------------------------------------
// Health, root, agents.

#[tokio::test]
async fn health_reports_healthy() {
    let server = TestServer::start().await;
    let (status, body) = server.get("/health").await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(body["status"], "healthy");
    assert_eq!(body["protocol"], "ag-ui");
    assert!(body["service"].is_string());
}

#[tokio::test]
async fn root_is_json_for_api_clients_and_the_page_for_browsers() {
    let server = TestServer::start().await;
    let response = server
        .http
        .get(server.url("/"))
        .header("Accept", "application/json")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    let (_, body) = read(response).await;
    assert_eq!(body["websocket"], "/ws");
    assert_eq!(body["protocol"], "AG-UI Protocol v2.1.1");
    assert!(body["service"].is_string() && body["version"].is_string());

    let page = server
        .http
        .get(server.url("/"))
        .header("Accept", "text/html,application/xhtml+xml,*/*;q=0.8")
        .send()
        .await
        .unwrap();
    assert_eq!(page.status(), StatusCode::OK);
    let content_type = page.headers()["content-type"].to_str().unwrap().to_owned();
    assert!(content_type.starts_with("text/html"), "{content_type}");
    assert!(page.text().await.unwrap().contains("<html"));
}

#[tokio::test]
async fn agents_lists_the_four_agents() {
    let server = TestServer::start().await;
    let (status, body) = server.get("/agents").await;
    assert_eq!(status, StatusCode::OK);
    assert_shape(&body, "AgentListResponse");
    let agents = body["active_agents"].as_array().unwrap();
    for agent in agents {
        assert_shape(agent, "Agent");
    }
    let names: Vec<(&str, &str)> = agents
        .iter()
        .map(|a| (a["id"].as_str().unwrap(), a["name"].as_str().unwrap()))
        .collect();
    assert_eq!(
        names,
        [
            ("general-agent", "Algemene Assistent"),
            ("history-agent", "Bedrijfsinformatie Specialist"),
            ("regulation-agent", "Regelgeving Specialist"),
            ("reporting-agent", "Rapportage Specialist"),
        ]
    );
    assert_eq!(body["inactive_agents"], json!([]));
}

// ---------------------------------------------------------------------------------------------
// Sessions.

/// The browser reads the real server's answers with the same types the server wrote them
/// with, and the server takes what the browser writes with them.
#[tokio::test]
async fn the_browser_and_the_server_read_each_other() {
    use agora_hai::protocol::rest::{PreferencesUpdate, SessionRename, Theme, UserProfile};
    use agora_hai::ui::api::{parse_agents, parse_sessions, parse_user_name};
    let server = TestServer::start().await;
    server.seed_thread("s1", DEV_USER_ID, &conversation()).await;
    let text = |path: &'static str| {
        let url = server.url(path);
        async move { reqwest::get(url).await.unwrap().text().await.unwrap() }
    };

    let sessions = parse_sessions(&text("/sessions").await).unwrap();
    assert_eq!(sessions.len(), 1);
    assert_eq!(sessions[0].session_id, "s1");
    assert_eq!(
        sessions[0].label(),
        Some("Start inspectie bij Trattoria Finta Fiore")
    );
    let agents = parse_agents(&text("/agents").await).unwrap();
    assert_eq!(agents.active_agents.len(), 4);
    assert_eq!(
        agents.name_of("reporting-agent"),
        Some("Rapportage Specialist")
    );
    assert_eq!(
        parse_user_name(&text("/users/me").await).as_deref(),
        Some(agora_hai::server::store::DEV_USER_NAME)
    );

    // What the theme switch and the language switch send, and a rename.
    let update = PreferencesUpdate {
        theme: Some(Theme::Dark),
        language: Some("en-GB".to_owned()),
        ..Default::default()
    };
    let (status, _) = server
        .put(
            "/users/me/preferences",
            &serde_json::to_value(&update).unwrap(),
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    let rename = SessionRename {
        title: Some("Herinspectie Finta Fiore".to_owned()),
    };
    let (status, _) = server
        .put("/sessions/s1", &serde_json::to_value(&rename).unwrap())
        .await;
    assert_eq!(status, StatusCode::OK);
    let me: UserProfile = serde_json::from_str(&text("/users/me").await).unwrap();
    assert_eq!(me.preferences.theme, Theme::Dark);
    assert_eq!(me.preferences.language, "en-GB");
    let sessions = parse_sessions(&text("/sessions").await).unwrap();
    assert_eq!(sessions[0].label(), Some("Herinspectie Finta Fiore"));
}

#[tokio::test]
async fn sessions_list_by_last_activity_with_paging() {
    let server = TestServer::start().await;
    for id in ["s1", "s2", "s3"] {
        server
            .seed_thread(
                id,
                DEV_USER_ID,
                &[json!({"role": "user", "content": format!("Vraag {id}")})],
            )
            .await;
    }
    server.seed_thread("k1", "koen", &conversation()).await;
    // s1 becomes the most recent.
    server
        .state
        .db
        .append_message(
            "s1",
            &serde_json::from_value(json!({"role": "user", "content": "nog iets"})).unwrap(),
        )
        .await
        .unwrap();

    let (status, body) = server.get("/sessions").await;
    assert_eq!(status, StatusCode::OK);
    assert_shape(&body, "SessionListResponse");
    assert_eq!(body["totalCount"], 3);
    let ids: Vec<&str> = body["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            assert_shape(s, "SessionMetadata");
            s["sessionId"].as_str().unwrap()
        })
        .collect();
    assert_eq!(ids, ["s1", "s3", "s2"]);
    let s1 = &body["sessions"][0];
    assert_eq!(s1["title"], "Vraag s1");
    assert_eq!(s1["firstMessagePreview"], "Vraag s1");
    assert_eq!(s1["messageCount"], 2);
    assert_eq!(s1["userId"], DEV_USER_ID);

    let (_, page) = server.get("/sessions?limit=2&offset=1").await;
    assert_eq!(page["totalCount"], 3);
    let ids: Vec<&str> = page["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["sessionId"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["s3", "s2"]);

    // Another user, by the contract's user_id or by header.
    let (_, koen) = server.get("/sessions?user_id=koen").await;
    assert_eq!(koen["totalCount"], 1);
    assert_eq!(koen["sessions"][0]["sessionId"], "k1");
    assert_eq!(
        koen["sessions"][0]["title"],
        "Start inspectie bij Trattoria Finta Fiore"
    );
    let (_, by_header) = server.get_as("koen", "/sessions").await;
    assert_eq!(by_header, koen);
    let (_, nobody) = server.get("/sessions?user_id=nobody").await;
    assert_eq!(nobody["totalCount"], 0);
    assert_eq!(nobody["sessions"], json!([]));
}

#[tokio::test]
async fn a_bad_limit_or_offset_is_422() {
    let server = TestServer::start().await;
    for query in [
        "limit=0",
        "limit=101",
        "limit=-1",
        "limit=ten",
        "limit=",
        "offset=-1",
        "offset=x",
    ] {
        assert_error(
            server.get(&format!("/sessions?{query}")).await,
            StatusCode::UNPROCESSABLE_ENTITY,
        );
        assert_error(
            server.get(&format!("/users?{query}")).await,
            StatusCode::UNPROCESSABLE_ENTITY,
        );
    }
    assert_eq!(server.get("/sessions?limit=1").await.0, StatusCode::OK);
    assert_eq!(server.get("/sessions?limit=100").await.0, StatusCode::OK);
}

#[tokio::test]
async fn metadata_of_a_session() {
    let server = TestServer::start().await;
    server.seed_thread("s1", DEV_USER_ID, &conversation()).await;
    let (status, body) = server.get("/sessions/s1/metadata").await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(body["success"], true);
    let session = &body["session"];
    assert_shape(session, "SessionMetadata");
    assert_eq!(session["sessionId"], "s1");
    assert_eq!(
        session["title"],
        "Start inspectie bij Trattoria Finta Fiore"
    );
    assert_eq!(session["messageCount"], 2);
    for key in ["createdAt", "lastActivity"] {
        let stamp = session[key].as_str().unwrap();
        assert!(
            stamp.ends_with('Z') && stamp.contains('T'),
            "{key}: {stamp}"
        );
    }

    assert_error(
        server.get("/sessions/nope/metadata").await,
        StatusCode::NOT_FOUND,
    );
    // Someone else's session is not revealed.
    assert_error(
        server.get_as("koen", "/sessions/s1/metadata").await,
        StatusCode::NOT_FOUND,
    );
}

#[tokio::test]
async fn history_with_and_without_tools() {
    let server = TestServer::start().await;
    server.seed_thread("s1", DEV_USER_ID, &conversation()).await;

    let (status, body) = server.get("/sessions/s1/history").await;
    assert_eq!(status, StatusCode::OK);
    assert_shape(&body, "HistoryResponse");
    assert_eq!(body["threadId"], "s1");
    assert_eq!(body["messageCount"], 2);
    assert_eq!(
        body["history"],
        json!([
            {"role": "user", "content": "Start inspectie bij Trattoria Finta Fiore"},
            {"role": "assistant", "content": "Trattoria Finta Fiore is gevonden.", "agent_id": "history-agent"},
        ])
    );

    let (status, body) = server.get("/sessions/s1/history?include_tools=true").await;
    assert_eq!(status, StatusCode::OK);
    assert_shape(&body, "HistoryResponse");
    assert_eq!(body["messageCount"], 4);
    let history = body["history"].as_array().unwrap();
    for message in history {
        assert_shape(message, "HistoryMessage");
    }
    assert_shape(&history[1], "ToolCallMessage");
    assert_shape(&history[2], "ToolResultMessage");
    assert_eq!(
        history[1],
        json!({"role": "tool_call", "content": "{\"naam\":\"Finta Fiore\"}", "tool_call_id": "call-1",
               "tool_name": "get_company_info", "agent_id": "history-agent"})
    );
    assert_eq!(
        history[2],
        json!({"role": "tool", "content": "{\"kvk\":\"12345678\"}", "tool_call_id": "call-1", "tool_name": "get_company_info"})
    );
    let (_, explicit_false) = server.get("/sessions/s1/history?include_tools=false").await;
    assert_eq!(explicit_false["messageCount"], 2);

    assert_error(
        server.get("/sessions/nope/history").await,
        StatusCode::NOT_FOUND,
    );
    assert_error(
        server.get_as("koen", "/sessions/s1/history").await,
        StatusCode::NOT_FOUND,
    );
    assert_error(
        server.get("/sessions/s1/history?include_tools=maybe").await,
        StatusCode::UNPROCESSABLE_ENTITY,
    );
}

#[tokio::test]
async fn renaming_a_session() {
    let server = TestServer::start().await;
    server.seed_thread("s1", DEV_USER_ID, &conversation()).await;

    let (status, body) = server
        .put(
            "/sessions/s1",
            &json!({"title": "  Finta Fiore, hercontrole  "}),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["success"], true);
    assert_shape(&body["session"], "SessionMetadata");
    assert_eq!(body["session"]["title"], "Finta Fiore, hercontrole");
    let (_, listed) = server.get("/sessions").await;
    assert_eq!(listed["sessions"][0]["title"], "Finta Fiore, hercontrole");

    // Exactly 200 characters is allowed, 201 is not.
    let longest = "é".repeat(200);
    let (status, body) = server.put("/sessions/s1", &json!({"title": longest})).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(body["session"]["title"], longest);
    assert_error(
        server
            .put("/sessions/s1", &json!({"title": "é".repeat(201)}))
            .await,
        StatusCode::UNPROCESSABLE_ENTITY,
    );
    assert_error(
        server.put("/sessions/s1", &json!({"title": "   "})).await,
        StatusCode::UNPROCESSABLE_ENTITY,
    );
    assert_error(
        server.put("/sessions/s1", &json!({"title": 42})).await,
        StatusCode::UNPROCESSABLE_ENTITY,
    );

    // An update without fields.
    assert_error(
        server.put("/sessions/s1", &json!({})).await,
        StatusCode::BAD_REQUEST,
    );
    assert_error(
        server.put("/sessions/s1", &json!({"title": null})).await,
        StatusCode::BAD_REQUEST,
    );
    assert_error(
        server.put("/sessions/s1", &json!({"colour": "red"})).await,
        StatusCode::BAD_REQUEST,
    );
    assert_error(
        server.put_raw("/sessions/s1", "").await,
        StatusCode::BAD_REQUEST,
    );
    assert_error(
        server.put_raw("/sessions/s1", "{not json").await,
        StatusCode::BAD_REQUEST,
    );

    assert_error(
        server.put("/sessions/nope", &json!({"title": "x"})).await,
        StatusCode::NOT_FOUND,
    );
    let foreign = server
        .http
        .put(server.url("/sessions/s1"))
        .header("X-User-Id", "koen")
        .json(&json!({"title": "gekaapt"}))
        .send()
        .await
        .unwrap();
    assert_error(read(foreign).await, StatusCode::NOT_FOUND);
    assert_eq!(
        server.get("/sessions/s1/metadata").await.1["session"]["title"],
        longest
    );
}

#[tokio::test]
async fn deleting_a_session_takes_everything_with_it() {
    let server = TestServer::start().await;
    server.seed_thread("s1", DEV_USER_ID, &conversation()).await;
    server.seed_thread("s2", DEV_USER_ID, &conversation()).await;
    server.state.db.start_run("r1", "s1").await.unwrap();

    assert_error(
        server.get_as("koen", "/sessions/s1/metadata").await,
        StatusCode::NOT_FOUND,
    );
    let (status, body) = server.delete("/sessions/s1").await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body, json!({"success": true, "message": "Session deleted"}));

    assert_error(
        server.get("/sessions/s1/metadata").await,
        StatusCode::NOT_FOUND,
    );
    assert_error(
        server.get("/sessions/s1/history").await,
        StatusCode::NOT_FOUND,
    );
    assert_error(server.delete("/sessions/s1").await, StatusCode::NOT_FOUND);
    assert!(server.state.db.messages("s1").await.is_err());
    assert!(server.state.db.runs("s1").await.is_err());
    let (_, listed) = server.get("/sessions").await;
    assert_eq!(listed["totalCount"], 1);
    assert_eq!(
        server.get("/sessions/s2/history").await.1["messageCount"],
        2
    );
}

#[tokio::test]
async fn sessions_survive_a_restart() {
    let dir = TempDir::new("agora-rest");
    let state = AppState::open(Config::for_data_dir(&dir.0)).await.unwrap();
    state
        .db
        .open_thread("s1", DEV_USER_ID, "Eerste vraag")
        .await
        .unwrap();
    for m in conversation() {
        state
            .db
            .append_message("s1", &serde_json::from_value(m).unwrap())
            .await
            .unwrap();
    }
    state.db.start_run("r1", "s1").await.unwrap();
    drop(state);

    let server = TestServer::start_in(dir, |_| {}).await;
    let (_, history) = server.get("/sessions/s1/history?include_tools=true").await;
    assert_eq!(history["messageCount"], 4);
    let runs = server.state.db.runs("s1").await.unwrap();
    assert_eq!(
        runs[0].status,
        agora_hai::orchestrator::store::RunStatus::Interrupted
    );
    // The development user is seeded once, not twice.
    let (_, users) = server.get("/users").await;
    assert_eq!(users["totalCount"], 1);
}

// ---------------------------------------------------------------------------------------------
// Users and preferences.

#[tokio::test]
async fn the_current_user_and_their_profile() {
    let server = TestServer::start().await;
    let (status, me) = server.get("/users/me").await;
    assert_eq!(status, StatusCode::OK);
    assert_shape(&me, "UserProfile");
    assert_shape(&me["preferences"], "UserPreferences");
    assert_eq!(me["id"], DEV_USER_ID);
    assert_eq!(me["email"], DEV_USER_EMAIL);
    assert_eq!(me["role"], "inspector");

    let fatima = server.create_user("fatima@nvwa.nl", "Fatima").await;
    let id = fatima["id"].as_str().unwrap();
    let (_, by_header) = server.get_as(id, "/users/me").await;
    assert_eq!(by_header["email"], "fatima@nvwa.nl");
    let (_, by_query) = server.get(&format!("/users/me?user_id={id}")).await;
    assert_eq!(by_query["email"], "fatima@nvwa.nl");

    assert_error(
        server.get("/users/me?user_id=nobody").await,
        StatusCode::NOT_FOUND,
    );
}

#[tokio::test]
async fn preferences_read_and_update() {
    let server = TestServer::start().await;
    let (status, body) = server.get("/users/me/preferences").await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(body["success"], true);
    assert_shape(&body["preferences"], "UserPreferences");
    assert_eq!(
        body["preferences"],
        json!({"theme": "system", "notifications_enabled": true, "default_agent_id": "general-agent",
               "language": "nl-NL", "spoken_text_type": "summarize"})
    );

    let (status, body) = server
        .put(
            "/users/me/preferences",
            &json!({"theme": "dark", "spoken_text_type": "dictate"}),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["preferences"]["theme"], "dark");
    assert_eq!(body["preferences"]["spoken_text_type"], "dictate");
    assert_eq!(body["preferences"]["language"], "nl-NL");
    let (_, again) = server
        .put(
            "/users/me/preferences",
            &json!({"notifications_enabled": false, "default_agent_id": "regulation-agent"}),
        )
        .await;
    assert_eq!(
        again["preferences"],
        json!({"theme": "dark", "notifications_enabled": false, "default_agent_id": "regulation-agent",
               "language": "nl-NL", "spoken_text_type": "dictate"})
    );
    let (_, read_back) = server.get("/users/me/preferences").await;
    assert_eq!(read_back["preferences"], again["preferences"]);
    assert_eq!(
        server.get("/users/me").await.1["preferences"],
        again["preferences"]
    );

    for bad in [
        json!({"theme": "pink"}),
        json!({"spoken_text_type": "shout"}),
        json!({"notifications_enabled": "yes"}),
        json!({"default_agent_id": "no-such-agent"}),
        json!({}),
    ] {
        assert_error(
            server.put("/users/me/preferences", &bad).await,
            StatusCode::BAD_REQUEST,
        );
    }
    assert_error(
        server.get("/users/me/preferences?user_id=nobody").await,
        StatusCode::NOT_FOUND,
    );
    assert_error(
        server
            .put(
                "/users/me/preferences?user_id=nobody",
                &json!({"theme": "light"}),
            )
            .await,
        StatusCode::NOT_FOUND,
    );
}

#[tokio::test]
async fn creating_and_listing_users() {
    let server = TestServer::start().await;
    let (status, body) = server
        .post(
            "/users",
            &json!({"email": "jan@nvwa.nl", "name": "Jan", "role": "viewer"}),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    assert_eq!(body["success"], true);
    let jan = &body["user"];
    assert_shape(jan, "UserProfile");
    assert_eq!(jan["role"], "viewer");
    assert!(uuid::Uuid::parse_str(jan["id"].as_str().unwrap()).is_ok());
    let fatima = server.create_user("fatima@nvwa.nl", "Fatima").await;
    assert_eq!(fatima["role"], "inspector");

    // Taken email, in any case.
    assert_error(
        server
            .post(
                "/users",
                &json!({"email": "JAN@nvwa.nl", "name": "Jan twee"}),
            )
            .await,
        StatusCode::CONFLICT,
    );
    for bad in [
        json!({"name": "Zonder email"}),
        json!({"email": "zonder-naam@nvwa.nl"}),
        json!({"email": "geen-adres", "name": "X"}),
        json!({"email": "x@nvwa.nl", "name": "   "}),
        json!({"email": "x@nvwa.nl", "name": "X", "role": "superuser"}),
        json!({"email": 7, "name": "X"}),
        json!([1, 2]),
    ] {
        assert_error(server.post("/users", &bad).await, StatusCode::BAD_REQUEST);
    }

    let (status, list) = server.get("/users").await;
    assert_eq!(status, StatusCode::OK);
    assert_shape(&list, "UserListResponse");
    assert_eq!(list["totalCount"], 3);
    let emails: Vec<&str> = list["users"]
        .as_array()
        .unwrap()
        .iter()
        .map(|u| {
            assert_shape(u, "UserProfile");
            u["email"].as_str().unwrap()
        })
        .collect();
    assert_eq!(emails, ["fatima@nvwa.nl", "jan@nvwa.nl", DEV_USER_EMAIL]);
    let (_, page) = server.get("/users?limit=1&offset=1").await;
    assert_eq!(page["totalCount"], 3);
    assert_eq!(page["users"].as_array().unwrap().len(), 1);
    assert_eq!(page["users"][0]["email"], "jan@nvwa.nl");
}

#[tokio::test]
async fn reading_updating_and_deleting_a_user() {
    let server = TestServer::start().await;
    let jan = server.create_user("jan@nvwa.nl", "Jan").await;
    let id = jan["id"].as_str().unwrap().to_owned();

    let (status, body) = server.get(&format!("/users/{id}")).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(body["success"], true);
    assert_shape(&body["user"], "UserProfile");
    assert_eq!(body["user"], jan);
    assert_error(server.get("/users/nobody").await, StatusCode::NOT_FOUND);

    // The contract's way: query parameters.
    let (status, body) = server
        .put_raw(&format!("/users/{id}?name=Jan%20de%20Vries&role=admin"), "")
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_shape(&body["user"], "UserProfile");
    assert_eq!(body["user"]["name"], "Jan de Vries");
    assert_eq!(body["user"]["role"], "admin");
    // The UpdateUserRequest body: name and preferences.
    let (status, body) = server
        .put(
            &format!("/users/{id}"),
            &json!({"name": "Jan V.", "preferences": {"theme": "light"}}),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["user"]["name"], "Jan V.");
    assert_eq!(body["user"]["role"], "admin");
    assert_eq!(body["user"]["preferences"]["theme"], "light");

    assert_error(
        server.put(&format!("/users/{id}"), &json!({})).await,
        StatusCode::BAD_REQUEST,
    );
    assert_error(
        server.put_raw(&format!("/users/{id}?role=root"), "").await,
        StatusCode::BAD_REQUEST,
    );
    assert_error(
        server.put_raw(&format!("/users/{id}?name=%20"), "").await,
        StatusCode::BAD_REQUEST,
    );
    assert_error(
        server
            .put(
                &format!("/users/{id}"),
                &json!({"preferences": {"theme": "pink"}}),
            )
            .await,
        StatusCode::BAD_REQUEST,
    );
    assert_error(
        server.put_raw("/users/nobody?name=X", "").await,
        StatusCode::NOT_FOUND,
    );

    // Deleting a user deletes their sessions, and only theirs.
    server.seed_thread("j1", &id, &conversation()).await;
    server.seed_thread("j2", &id, &conversation()).await;
    server.seed_thread("d1", DEV_USER_ID, &conversation()).await;
    let (_, before) = server.get_as(&id, "/sessions").await;
    assert_eq!(before["totalCount"], 2);
    // A report of each of a thread of theirs and of someone else's, as the report tool writes
    // them (a JSON record naming its thread, beside its PDF).
    let reports = server.dir.0.join("reports");
    std::fs::create_dir_all(&reports).unwrap();
    for (report, thread) in [("rep-j1", "j1"), ("rep-d1", "d1")] {
        std::fs::write(
            reports.join(format!("{report}.json")),
            json!({ "threadId": thread }).to_string(),
        )
        .unwrap();
        std::fs::write(reports.join(format!("{report}.pdf")), b"%PDF-1.7").unwrap();
    }
    let (status, body) = server.delete(&format!("/users/{id}")).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["success"], true);
    assert_eq!(body["deletedSessionsCount"], 2);
    assert!(body["message"].is_string());
    assert_error(
        server.get(&format!("/users/{id}")).await,
        StatusCode::NOT_FOUND,
    );
    assert_error(
        server.delete(&format!("/users/{id}")).await,
        StatusCode::NOT_FOUND,
    );
    let (_, after) = server.get_as(&id, "/sessions").await;
    assert_eq!(after["totalCount"], 0);
    assert!(server.state.db.messages("j1").await.is_err());
    assert_eq!(server.get("/sessions").await.1["totalCount"], 1);
    // Their report left the disk with them; the other user's stays.
    assert!(!reports.join("rep-j1.json").exists() && !reports.join("rep-j1.pdf").exists());
    assert!(reports.join("rep-d1.json").exists() && reports.join("rep-d1.pdf").exists());
}
