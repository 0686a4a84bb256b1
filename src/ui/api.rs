//! The REST side of the screen (`openapi.yaml`): the thread list (`/sessions`), the agents
//! (`/agents`) and the current user (`/users/me`). Parsing is plain Rust; the requests run in
//! the browser only.

use leptos::prelude::*;
use serde_json::Value;

/// One thread in the sidebar (`SessionMetadata`).
#[derive(Debug, Clone, PartialEq)]
pub struct Session {
    pub session_id: String,
    pub title: Option<String>,
    pub first_message_preview: Option<String>,
    pub last_activity: String,
}

impl Session {
    /// The title, else the first message, else nothing (the view says "Nieuwe inspectie").
    pub fn label(&self) -> Option<&str> {
        [&self.title, &self.first_message_preview]
            .into_iter()
            .flatten()
            .map(|s| s.trim())
            .find(|s| !s.is_empty())
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Agent {
    pub id: String,
    pub name: String,
}

// Read through `serde_json::Value` rather than derived `Deserialize`: see `wire.rs` (size).
fn text(value: &Value, key: &str) -> Option<String> {
    value.get(key).and_then(Value::as_str).map(str::to_owned)
}

/// `GET /sessions`: most recent activity first (sorted here too, whatever the server does).
pub fn parse_sessions(body: &str) -> Result<Vec<Session>, String> {
    let page: Value = serde_json::from_str(body).map_err(|e| e.to_string())?;
    let list = page
        .get("sessions")
        .and_then(Value::as_array)
        .ok_or("no `sessions` in the answer")?;
    let mut sessions: Vec<Session> = list
        .iter()
        .filter_map(|s| {
            Some(Session {
                session_id: text(s, "sessionId")?,
                title: text(s, "title"),
                first_message_preview: text(s, "firstMessagePreview"),
                last_activity: text(s, "lastActivity").unwrap_or_default(),
            })
        })
        .collect();
    // RFC 3339 UTC strings of one format sort as text.
    sessions.sort_by(|a, b| b.last_activity.cmp(&a.last_activity));
    Ok(sessions)
}

/// `GET /agents`: active and inactive agents.
pub fn parse_agents(body: &str) -> Result<Vec<Agent>, String> {
    let value: Value = serde_json::from_str(body).map_err(|e| e.to_string())?;
    Ok(["active_agents", "inactive_agents"]
        .iter()
        .filter_map(|key| value.get(*key).and_then(Value::as_array))
        .flatten()
        .filter_map(|a| {
            Some(Agent {
                id: text(a, "id")?,
                name: text(a, "name")?,
            })
        })
        .collect())
}

/// `GET /users/me`: the display name.
pub fn parse_user_name(body: &str) -> Option<String> {
    text(&serde_json::from_str(body).ok()?, "name")
}

/// The agents and the signed-in user, loaded once.
#[derive(Clone, Copy)]
pub struct Directory {
    pub agents: RwSignal<Vec<Agent>>,
    pub user: RwSignal<Option<String>>,
}

impl Directory {
    pub fn provide() -> Self {
        let directory = Directory {
            agents: RwSignal::new(Vec::new()),
            user: RwSignal::new(None),
        };
        #[cfg(feature = "hydrate")]
        Effect::new(move || {
            leptos::task::spawn_local(async move {
                if let Ok(body) = super::browser::fetch_text("GET", "/agents", None).await
                    && let Ok(agents) = parse_agents(&body)
                {
                    directory.agents.set(agents);
                }
                if let Ok(body) = super::browser::fetch_text("GET", "/users/me", None).await {
                    directory.user.set(parse_user_name(&body));
                }
            });
        });
        provide_context(directory);
        directory
    }

    /// The agent's display name; its id until `/agents` answered.
    pub fn agent_name(&self, id: &str) -> String {
        self.agents.with(|agents| {
            agents
                .iter()
                .find(|a| a.id == id)
                .map(|a| a.name.clone())
                .unwrap_or_else(|| id.to_owned())
        })
    }
}

/// The sidebar's threads.
#[derive(Clone, Copy)]
pub struct Sessions {
    pub list: RwSignal<Vec<Session>>,
    pub loaded: RwSignal<bool>,
    pub error: RwSignal<Option<String>>,
}

impl Sessions {
    pub fn provide() -> Self {
        let sessions = Sessions {
            list: RwSignal::new(Vec::new()),
            loaded: RwSignal::new(false),
            error: RwSignal::new(None),
        };
        provide_context(sessions);
        sessions
    }

    pub fn refresh(&self) {
        #[cfg(feature = "hydrate")]
        {
            let sessions = *self;
            leptos::task::spawn_local(async move {
                let result = super::browser::fetch_text("GET", "/sessions?limit=100", None)
                    .await
                    .and_then(|body| parse_sessions(&body));
                match result {
                    Ok(list) => {
                        sessions.list.set(list);
                        sessions.error.set(None);
                    }
                    Err(error) => sessions.error.set(Some(error)),
                }
                sessions.loaded.set(true);
            });
        }
    }

    pub fn rename(&self, id: String, title: String) {
        // Shown at once; the server's answer is reloaded after.
        self.list.update(|list| {
            if let Some(s) = list.iter_mut().find(|s| s.session_id == id) {
                s.title = Some(title.clone());
            }
        });
        #[cfg(feature = "hydrate")]
        {
            let sessions = *self;
            leptos::task::spawn_local(async move {
                let body = serde_json::json!({ "title": title }).to_string();
                let url = format!("/sessions/{}", encode(&id));
                if let Err(error) = super::browser::fetch_text("PUT", &url, Some(body)).await {
                    sessions.error.set(Some(error));
                }
                sessions.refresh();
            });
        }
    }

    pub fn delete(&self, id: String) {
        self.list.update(|list| list.retain(|s| s.session_id != id));
        #[cfg(feature = "hydrate")]
        {
            let sessions = *self;
            leptos::task::spawn_local(async move {
                let url = format!("/sessions/{}", encode(&id));
                if let Err(error) = super::browser::fetch_text("DELETE", &url, None).await {
                    sessions.error.set(Some(error));
                }
                sessions.refresh();
            });
        }
    }
}

/// Percent-encodes a path segment (thread ids are UUIDs, but a stored one may be anything).
pub fn encode(segment: &str) -> String {
    segment
        .bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (b as char).to_string()
            }
            other => format!("%{other:02X}"),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sessions_parse_and_sort_by_last_activity() {
        let body = r#"{"success": true, "totalCount": 2, "sessions": [
            {"sessionId": "a", "userId": "u", "title": null, "firstMessagePreview": "Start inspectie", "messageCount": 3, "createdAt": "2026-01-01T10:00:00Z", "lastActivity": "2026-01-01T10:00:00Z"},
            {"sessionId": "b", "userId": "u", "title": "Finta Fiore", "firstMessagePreview": "x", "messageCount": 1, "createdAt": "2026-01-02T10:00:00Z", "lastActivity": "2026-01-02T10:00:00Z"},
            {"sessionId": "c", "title": "  ", "lastActivity": "2025-01-02T10:00:00Z"}
        ]}"#;
        let sessions = parse_sessions(body).unwrap();
        let ids: Vec<&str> = sessions.iter().map(|s| s.session_id.as_str()).collect();
        assert_eq!(ids, ["b", "a", "c"]);
        assert_eq!(sessions[0].label(), Some("Finta Fiore"));
        assert_eq!(sessions[1].label(), Some("Start inspectie"));
        assert_eq!(sessions[2].label(), None);
        assert!(parse_sessions("{}").is_err());
    }

    #[test]
    fn agents_and_user() {
        let body = r#"{"active_agents": [{"id": "general-agent", "name": "Algemene Assistent", "model": "m", "description": "d"}], "inactive_agents": []}"#;
        assert_eq!(
            parse_agents(body).unwrap(),
            vec![Agent {
                id: "general-agent".into(),
                name: "Algemene Assistent".into()
            }]
        );
        assert_eq!(
            parse_user_name(r#"{"id": "1", "name": "Koen Inspecteur"}"#).as_deref(),
            Some("Koen Inspecteur")
        );
        assert_eq!(encode("a b/c"), "a%20b%2Fc");
    }
}
