//! Sessions: the REST name of a thread (`sessionId` = AG-UI `threadId`). A user sees only
//! their own; someone else's session is 404, as an unknown one.

use std::collections::HashMap;

use axum::Json;
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use serde_json::{Map, Value, json};

use super::body::{Body, RequestBody};
use super::{AppError, CurrentUser, Paging, query_bool, timestamp};
use crate::protocol::Message;
use crate::protocol::rest::{SessionList, SessionMetadata, SessionRename};
use crate::server::state::AppState;
use crate::server::store::{MAX_TITLE_CHARS, ThreadSummary};

/// A title that is not text is 422, as the contract says.
impl RequestBody for SessionRename {
    const MISFIT: StatusCode = StatusCode::UNPROCESSABLE_ENTITY;
}

/// The contract's `SessionMetadata`.
fn session_metadata(summary: &ThreadSummary) -> SessionMetadata {
    let thread = &summary.thread;
    SessionMetadata {
        session_id: thread.id.clone(),
        user_id: thread.owner.clone(),
        title: thread.title.clone(),
        first_message_preview: summary.first_message_preview.clone(),
        message_count: thread.message_count,
        created_at: timestamp(thread.created_at),
        last_activity: timestamp(thread.last_activity),
    }
}

/// The session if it exists and belongs to `user`.
async fn owned(
    state: &AppState,
    user: &CurrentUser,
    session_id: &str,
) -> Result<ThreadSummary, AppError> {
    let summary = state.db.thread_summary(session_id).await?;
    if !user.owns(&summary.thread) {
        return Err(AppError::NotFound(format!(
            "Session {session_id} not found"
        )));
    }
    Ok(summary)
}

/// `GET /sessions?user_id&limit&offset`: most recent activity first.
pub async fn list(
    State(state): State<AppState>,
    user: CurrentUser,
    Query(query): Query<HashMap<String, String>>,
) -> Result<Json<SessionList>, AppError> {
    let paging = Paging::from_query(&query)?;
    let page = state
        .db
        .list_threads(&user.id, paging.limit, paging.offset)
        .await?;
    Ok(Json(SessionList {
        success: true,
        sessions: page.items.iter().map(session_metadata).collect(),
        total_count: page.total,
    }))
}

/// `GET /sessions/{id}/metadata`.
pub async fn metadata(
    State(state): State<AppState>,
    user: CurrentUser,
    Path(session_id): Path<String>,
) -> Result<Json<Value>, AppError> {
    let summary = owned(&state, &user, &session_id).await?;
    Ok(Json(
        json!({ "success": true, "session": session_metadata(&summary) }),
    ))
}

/// `GET /sessions/{id}/history?include_tools`.
pub async fn history(
    State(state): State<AppState>,
    user: CurrentUser,
    Path(session_id): Path<String>,
    Query(query): Query<HashMap<String, String>>,
) -> Result<Json<Value>, AppError> {
    let include_tools = query_bool(&query, "include_tools")?.unwrap_or(false);
    owned(&state, &user, &session_id).await?;
    let messages = state.db.messages(&session_id).await?;
    let history = history_messages(&messages, include_tools);
    Ok(Json(json!({
        "success": true,
        "threadId": session_id,
        "messageCount": history.len(),
        "history": history,
    })))
}

/// The stored AG-UI messages as the contract's `HistoryMessage`s: user and assistant text,
/// and with `include_tools` each tool call (`tool_call`, arguments as content) and result
/// (`tool`). System, developer, reasoning and activity messages are not history.
pub fn history_messages(messages: &[Message], include_tools: bool) -> Vec<Value> {
    let mut tool_names: HashMap<&str, &str> = HashMap::new();
    let mut history = Vec::new();
    for message in messages {
        match message {
            Message::User(user) => {
                let mut entry = json!({ "role": "user", "content": user.content.text() });
                // Its evidence photos (issue 37), where their owner gets them.
                let photos: Vec<String> = user
                    .content
                    .photo_ids()
                    .map(crate::protocol::photo_url)
                    .collect();
                if !photos.is_empty() {
                    entry["photos"] = json!(photos);
                }
                history.push(entry)
            }
            Message::Assistant(assistant) => {
                let agent_id = assistant.name.as_deref();
                if let Some(content) = assistant
                    .content
                    .as_deref()
                    .filter(|c| !c.trim().is_empty())
                {
                    let mut entry = Map::new();
                    entry.insert("role".into(), "assistant".into());
                    entry.insert("content".into(), content.into());
                    if let Some(agent_id) = agent_id {
                        entry.insert("agent_id".into(), agent_id.into());
                    }
                    let spoken = ["spokenText", "spoken_text"]
                        .iter()
                        .find_map(|key| assistant.extra.get(*key).and_then(Value::as_str));
                    if let Some(spoken) = spoken {
                        entry.insert("spoken_text".into(), spoken.into());
                    }
                    history.push(Value::Object(entry));
                }
                for call in assistant.tool_calls.iter().flatten() {
                    tool_names.insert(&call.id, &call.function.name);
                    if include_tools {
                        let mut entry = Map::new();
                        entry.insert("role".into(), "tool_call".into());
                        entry.insert("content".into(), call.function.arguments.clone().into());
                        entry.insert("tool_call_id".into(), call.id.clone().into());
                        entry.insert("tool_name".into(), call.function.name.clone().into());
                        if let Some(agent_id) = agent_id {
                            entry.insert("agent_id".into(), agent_id.into());
                        }
                        history.push(Value::Object(entry));
                    }
                }
            }
            Message::Tool(result) if include_tools => {
                let name = tool_names
                    .get(result.tool_call_id.as_str())
                    .copied()
                    .unwrap_or("unknown");
                let content = match &result.error {
                    Some(error) if result.content.is_empty() => error.clone(),
                    _ => result.content.clone(),
                };
                history.push(json!({
                    "role": "tool",
                    "content": content,
                    "tool_call_id": result.tool_call_id,
                    "tool_name": name,
                }));
            }
            _ => {}
        }
    }
    history
}

/// `PUT /sessions/{id}` with `{"title": …}`: no field is 400; a title that is not text, blank
/// or longer than 200 characters is 422.
pub async fn update(
    State(state): State<AppState>,
    user: CurrentUser,
    Path(session_id): Path<String>,
    Body(body): Body<SessionRename>,
) -> Result<Json<Value>, AppError> {
    let Some(title) = body.title.map(|title| title.trim().to_owned()) else {
        return Err(AppError::BadRequest("No update fields provided".to_owned()));
    };
    if title.is_empty() {
        return Err(AppError::Unprocessable(
            "title must not be empty".to_owned(),
        ));
    }
    if title.chars().count() > MAX_TITLE_CHARS {
        return Err(AppError::Unprocessable(format!(
            "title must be at most {MAX_TITLE_CHARS} characters"
        )));
    }
    owned(&state, &user, &session_id).await?;
    let summary = state.db.rename_thread(&session_id, &title).await?;
    Ok(Json(
        json!({ "success": true, "session": session_metadata(&summary) }),
    ))
}

/// `DELETE /sessions/{id}`: the thread with its messages, runs and approvals.
pub async fn delete(
    State(state): State<AppState>,
    user: CurrentUser,
    Path(session_id): Path<String>,
) -> Result<Json<Value>, AppError> {
    owned(&state, &user, &session_id).await?;
    state.db.delete_thread(&session_id).await?;
    // Nothing of it stays readable: not through a resume or a reattach to its old runs.
    state.orchestrator.journals.forget(&session_id);
    state
        .reports
        .delete_for_threads(&std::collections::HashSet::from([session_id.clone()]))
        .await;
    Ok(Json(
        json!({ "success": true, "message": "Session deleted" }),
    ))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn history_hides_tools_unless_asked() {
        let messages: Vec<Message> = serde_json::from_value(json!([
            {"role": "system", "content": "je bent een agent"},
            {"role": "user", "id": "u1", "content": "Zoek Finta Fiore"},
            {"role": "assistant", "id": "a1", "name": "history-agent", "toolCalls": [
                {"id": "call-1", "type": "function", "function": {"name": "get_company_info", "arguments": "{\"naam\":\"Finta Fiore\"}"}}
            ]},
            {"role": "tool", "id": "t1", "toolCallId": "call-1", "content": "{\"kvk\":\"123\"}"},
            {"role": "assistant", "id": "a2", "name": "history-agent", "content": "Gevonden.", "spokenText": "Gevonden"}
        ]))
        .unwrap();
        let plain = history_messages(&messages, false);
        assert_eq!(
            plain,
            vec![
                json!({"role": "user", "content": "Zoek Finta Fiore"}),
                json!({"role": "assistant", "content": "Gevonden.", "agent_id": "history-agent", "spoken_text": "Gevonden"}),
            ]
        );
        let full = history_messages(&messages, true);
        assert_eq!(full.len(), 4);
        assert_eq!(
            full[1],
            json!({"role": "tool_call", "content": "{\"naam\":\"Finta Fiore\"}", "tool_call_id": "call-1",
                   "tool_name": "get_company_info", "agent_id": "history-agent"})
        );
        assert_eq!(
            full[2],
            json!({"role": "tool", "content": "{\"kvk\":\"123\"}", "tool_call_id": "call-1", "tool_name": "get_company_info"})
        );
    }
}
