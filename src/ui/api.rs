//! The REST side of the screen (`openapi.yaml`): the thread list (`/sessions`), the agents
//! (`/agents`) and the current user (`/users/me`), read with the server's own payload types
//! (`protocol::rest`); the requests run in the browser only.

use leptos::prelude::*;

use crate::protocol::rest::UserProfile;
pub use crate::protocol::rest::{AgentInfo, AgentList, SessionList, SessionMetadata};

/// Reads a payload with its derived `Deserialize` over a parsed `Value` rather than straight
/// from the text: the page parses `Value`s anyway (`protocol::wire`), and walking one is less code
/// than serde_json's text parser made anew for each type (2.3 KB Brotli less, measured; the
/// typed reading of these payloads costs 14 KB Brotli in all: README, "The browser bundle").
fn read<T: serde::de::DeserializeOwned>(body: &str) -> Result<T, String> {
    let value: serde_json::Value = serde_json::from_str(body).map_err(|e| e.to_string())?;
    T::deserialize(&value).map_err(|e| e.to_string())
}

/// `GET /sessions`: most recent activity first (sorted here too, whatever the server does).
pub fn parse_sessions(body: &str) -> Result<Vec<SessionMetadata>, String> {
    let mut sessions = read::<SessionList>(body)?.sessions;
    // RFC 3339 UTC strings of one format sort as text.
    sessions.sort_by(|a, b| b.last_activity.cmp(&a.last_activity));
    Ok(sessions)
}

/// `GET /agents`.
pub fn parse_agents(body: &str) -> Result<AgentList, String> {
    read(body)
}

/// `GET /users/me`: the display name.
pub fn parse_user_name(body: &str) -> Option<String> {
    parse_profile(body).map(|profile| profile.name)
}

/// `GET /users/me`: the user and their stored preferences.
pub fn parse_profile(body: &str) -> Option<UserProfile> {
    read::<UserProfile>(body).ok()
}

/// The agents and the signed-in user, loaded once.
#[derive(Clone, Copy)]
pub struct Directory {
    pub agents: RwSignal<AgentList>,
    pub user: RwSignal<Option<String>>,
}

impl Directory {
    pub fn provide() -> Self {
        let directory = Directory {
            agents: RwSignal::new(AgentList::default()),
            user: RwSignal::new(None),
        };
        #[cfg(feature = "hydrate")]
        let prefs = expect_context::<super::prefs::Prefs>();
        #[cfg(feature = "hydrate")]
        Effect::new(move || {
            leptos::task::spawn_local(async move {
                if let Ok(body) = super::browser::fetch_text("GET", "/agents", None).await
                    && let Ok(agents) = parse_agents(&body)
                {
                    directory.agents.set(agents);
                }
                if let Ok(body) = super::browser::fetch_text("GET", "/users/me", None).await {
                    let profile = parse_profile(&body);
                    if let Some(profile) = &profile {
                        prefs.spoken.set(profile.preferences.spoken_text_type);
                    }
                    directory.user.set(profile.map(|profile| profile.name));
                }
            });
        });
        provide_context(directory);
        directory
    }

    /// The agent's display name in `lang`: the page's own words for the agents it knows (the
    /// server names them in Dutch), else the server's name, else its id until `/agents`
    /// answered.
    pub fn agent_name(&self, id: &str, lang: super::i18n::Lang) -> String {
        if let Some(key) = super::i18n::agent_key(id) {
            return key.text(lang).to_owned();
        }
        self.agents
            .with(|agents| agents.name_of(id).unwrap_or(id).to_owned())
    }
}

/// The sidebar's threads.
#[derive(Clone, Copy)]
pub struct Sessions {
    pub list: RwSignal<Vec<SessionMetadata>>,
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
                s.title.clone_from(&title);
            }
        });
        #[cfg(feature = "hydrate")]
        {
            let sessions = *self;
            leptos::task::spawn_local(async move {
                let body = serde_json::to_string(&crate::protocol::rest::SessionRename {
                    title: Some(title),
                })
                .unwrap_or_default();
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
            {"sessionId": "a", "userId": "u", "title": "", "firstMessagePreview": "Start inspectie", "messageCount": 3, "createdAt": "2026-01-01T10:00:00Z", "lastActivity": "2026-01-01T10:00:00Z"},
            {"sessionId": "b", "userId": "u", "title": "Finta Fiore", "firstMessagePreview": "x", "messageCount": 1, "createdAt": "2026-01-02T10:00:00Z", "lastActivity": "2026-01-02T10:00:00Z"}
        ]}"#;
        let sessions = parse_sessions(body).unwrap();
        let ids: Vec<&str> = sessions.iter().map(|s| s.session_id.as_str()).collect();
        assert_eq!(ids, ["b", "a"]);
        assert_eq!(sessions[0].label(), Some("Finta Fiore"));
        assert_eq!(sessions[1].label(), Some("Start inspectie"));
        assert!(parse_sessions("{}").is_err());
    }

    #[test]
    fn agents_and_user() {
        let body = r#"{"active_agents": [{"id": "general-agent", "name": "Algemene Assistent", "model": "m", "description": "d"}], "inactive_agents": [{"id": "old", "name": "Oud", "reason": "r"}]}"#;
        let agents = parse_agents(body).unwrap();
        assert_eq!(agents.name_of("general-agent"), Some("Algemene Assistent"));
        assert_eq!(agents.name_of("old"), Some("Oud"));
        assert_eq!(agents.name_of("nobody"), None);
        let profile = r#"{"id": "1", "email": "k@nvwa.nl", "name": "Koen Inspecteur", "role": "inspector",
            "preferences": {"theme": "dark", "notifications_enabled": true, "default_agent_id": "general-agent",
            "language": "nl-NL", "spoken_text_type": "dictate"},
            "createdAt": "2026-01-01T10:00:00Z", "lastActivity": "2026-01-01T10:00:00Z"}"#;
        assert_eq!(parse_user_name(profile).as_deref(), Some("Koen Inspecteur"));
        assert_eq!(
            parse_profile(profile).unwrap().preferences.spoken_text_type,
            crate::protocol::rest::SpokenTextType::Dictate
        );
        assert_eq!(encode("a b/c"), "a%20b%2Fc");
    }
}
