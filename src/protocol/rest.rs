//! The REST payloads (`openapi.yaml`) that both halves touch: the server writes them with
//! these types and the browser reads them with the same ones, so a renamed field breaks the
//! build rather than the sidebar. Request bodies the server validates field by field (with
//! the contract's 400 / 422 distinctions) are written by the browser with these types too.

use serde::{Deserialize, Serialize};

/// The contract's `UserPreferences.theme`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Theme {
    Light,
    Dark,
    #[default]
    System,
}

impl Theme {
    /// In the order a theme menu lists them.
    pub const ALL: [Theme; 3] = [Theme::System, Theme::Light, Theme::Dark];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Light => "light",
            Self::Dark => "dark",
            Self::System => "system",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|theme| theme.as_str() == s)
    }
}

/// The contract's `UserProfile.role`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum UserRole {
    Admin,
    Inspector,
    Viewer,
}

impl UserRole {
    const ALL: [UserRole; 3] = [UserRole::Admin, UserRole::Inspector, UserRole::Viewer];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Admin => "admin",
            Self::Inspector => "inspector",
            Self::Viewer => "viewer",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|role| role.as_str() == s)
    }
}

/// The user's choice of spoken text (`spoken_text_type` in their preferences): `dictate`
/// reads the whole answer out, `summarize` its first sentences (`orchestrator::spoken`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SpokenTextType {
    Dictate,
    #[default]
    Summarize,
}

impl SpokenTextType {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Dictate => "dictate",
            Self::Summarize => "summarize",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        [Self::Dictate, Self::Summarize]
            .into_iter()
            .find(|kind| kind.as_str() == s)
    }
}

/// A user's settings: the contract's `UserPreferences`, defaults included.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Preferences {
    pub theme: Theme,
    pub notifications_enabled: bool,
    pub default_agent_id: String,
    /// A BCP 47 tag, `nl-NL` or `en-GB` from this UI.
    pub language: String,
    pub spoken_text_type: SpokenTextType,
}

impl Default for Preferences {
    fn default() -> Self {
        Self {
            theme: Theme::System,
            notifications_enabled: true,
            default_agent_id: "general-agent".to_owned(),
            language: "nl-NL".to_owned(),
            spoken_text_type: SpokenTextType::Summarize,
        }
    }
}

/// A partial update of [`Preferences`] (`PUT /users/me/preferences`): `None` keeps the
/// current value and is not written.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PreferencesUpdate {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub theme: Option<Theme>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub notifications_enabled: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default_agent_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub language: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spoken_text_type: Option<SpokenTextType>,
}

impl PreferencesUpdate {
    pub fn is_empty(&self) -> bool {
        *self == Self::default()
    }

    pub fn apply(&self, to: &mut Preferences) {
        if let Some(theme) = self.theme {
            to.theme = theme;
        }
        if let Some(enabled) = self.notifications_enabled {
            to.notifications_enabled = enabled;
        }
        if let Some(agent) = &self.default_agent_id {
            to.default_agent_id.clone_from(agent);
        }
        if let Some(language) = &self.language {
            to.language.clone_from(language);
        }
        if let Some(kind) = self.spoken_text_type {
            to.spoken_text_type = kind;
        }
    }
}

/// The contract's `UserProfile` (`GET /users/me` and the admin's user answers).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UserProfile {
    pub id: String,
    pub email: String,
    pub name: String,
    pub role: UserRole,
    /// Not required by the contract; the defaults when absent.
    #[serde(default)]
    pub preferences: Preferences,
    /// RFC 3339, UTC.
    pub created_at: String,
    pub last_activity: String,
}

/// The contract's `SessionMetadata`: a thread as the thread list shows it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionMetadata {
    /// The thread's id (AG-UI `threadId`).
    pub session_id: String,
    pub user_id: String,
    /// Empty until the thread has one (from its first message, or a rename).
    pub title: String,
    /// The first user message, shortened; empty until there is one.
    #[serde(default)]
    pub first_message_preview: String,
    pub message_count: i64,
    /// RFC 3339, UTC: strings of this one format sort as times.
    pub created_at: String,
    pub last_activity: String,
}

impl SessionMetadata {
    /// The title, else the first message, else nothing (the UI says "Nieuwe inspectie").
    pub fn label(&self) -> Option<&str> {
        [&self.title, &self.first_message_preview]
            .into_iter()
            .map(|s| s.trim())
            .find(|s| !s.is_empty())
    }
}

/// `GET /sessions`: one page, most recent activity first.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionList {
    pub success: bool,
    pub sessions: Vec<SessionMetadata>,
    /// All of the user's sessions, not only this page's.
    pub total_count: u64,
}

/// `PUT /sessions/{id}`: a new title (none is 400).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SessionRename {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
}

/// `POST /users` (the contract's `CreateUserRequest`, plus an optional first password).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct CreateUser {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub email: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// `admin`, `inspector` (the default) or `viewer`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub role: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub password: Option<String>,
}

/// `PUT /users/{id}` (the contract's `UpdateUserRequest`, plus what an admin may change).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct UpdateUser {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub role: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preferences: Option<PreferencesUpdate>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub disabled: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub password: Option<String>,
}

/// The contract's `Agent`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AgentInfo {
    pub id: String,
    /// For people ("Algemene Assistent").
    pub name: String,
    pub model: String,
    pub description: String,
}

/// The contract's `InactiveAgent`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InactiveAgent {
    pub id: String,
    pub name: String,
    pub reason: String,
}

/// `GET /agents` (`AgentListResponse`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct AgentList {
    pub active_agents: Vec<AgentInfo>,
    pub inactive_agents: Vec<InactiveAgent>,
}

impl AgentList {
    /// An agent's name for people, active or not.
    pub fn name_of(&self, id: &str) -> Option<&str> {
        let active = self.active_agents.iter().map(|a| (&a.id, &a.name));
        let inactive = self.inactive_agents.iter().map(|a| (&a.id, &a.name));
        active
            .chain(inactive)
            .find(|(agent, _)| *agent == id)
            .map(|(_, name)| name.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn enums_read_what_they_write() {
        for theme in Theme::ALL {
            assert_eq!(Theme::parse(theme.as_str()), Some(theme));
            assert_eq!(serde_json::to_value(theme).unwrap(), theme.as_str());
        }
        for role in UserRole::ALL {
            assert_eq!(UserRole::parse(role.as_str()), Some(role));
            assert_eq!(serde_json::to_value(role).unwrap(), role.as_str());
        }
        for kind in [SpokenTextType::Dictate, SpokenTextType::Summarize] {
            assert_eq!(SpokenTextType::parse(kind.as_str()), Some(kind));
            assert_eq!(serde_json::to_value(kind).unwrap(), kind.as_str());
        }
        assert_eq!(Theme::parse("sepia"), None);
    }

    #[test]
    fn a_partial_update_writes_only_what_it_changes() {
        let update = PreferencesUpdate {
            theme: Some(Theme::Dark),
            ..Default::default()
        };
        assert_eq!(
            serde_json::to_string(&update).unwrap(),
            r#"{"theme":"dark"}"#
        );
        let mut preferences = Preferences::default();
        update.apply(&mut preferences);
        assert_eq!(preferences.theme, Theme::Dark);
        assert_eq!(preferences.language, "nl-NL");
    }

    #[test]
    fn a_session_is_labelled_by_its_title_then_its_first_message() {
        let session = |title: &str, preview: &str| SessionMetadata {
            session_id: "s".into(),
            user_id: "u".into(),
            title: title.into(),
            first_message_preview: preview.into(),
            message_count: 0,
            created_at: String::new(),
            last_activity: String::new(),
        };
        assert_eq!(session("Finta Fiore", "x").label(), Some("Finta Fiore"));
        assert_eq!(
            session(" ", "Start inspectie").label(),
            Some("Start inspectie")
        );
        assert_eq!(session("", "  ").label(), None);
    }
}

/// Where a report's e-mail stands (`GET /reports/{id}/mail`, and the answer of
/// `POST /reports/{id}/mail`, the resend).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum MailState {
    /// No mail server configured (`--smtp-url`): nothing is sent, the card says nothing.
    Off,
    /// Never sent: made before a mail server was configured. It can be sent now.
    Unsent,
    /// Handed to the mail server, no answer yet.
    Sending,
    Sent,
    Failed,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReportMailStatus {
    pub report_id: String,
    pub state: MailState,
    /// The address it went (or was to go) to; none when no address was known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recipient: Option<String>,
    /// RFC 3339, UTC: when it was sent, or when the last try ended.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at: Option<String>,
    /// Why it failed, for the card's sentence in the reader's language.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure: Option<MailFailure>,
    /// The details as the mail server or the system said them (not translated).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// Why a report's e-mail failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MailFailure {
    /// Neither the account nor the conversation gave an e-mail address.
    NoAddress,
    /// The mail server could not be reached (down, wrong address, TLS failed).
    Unreachable,
    /// The mail server did not answer in time.
    Timeout,
    /// The mail server refused the message or the sign-in.
    Refused,
    /// The report's files are gone (the thread was deleted).
    ReportMissing,
}

impl MailFailure {
    pub const ALL: [MailFailure; 5] = [
        MailFailure::NoAddress,
        MailFailure::Unreachable,
        MailFailure::Timeout,
        MailFailure::Refused,
        MailFailure::ReportMissing,
    ];

    /// As stored and sent.
    pub fn as_str(self) -> &'static str {
        match self {
            MailFailure::NoAddress => "no_address",
            MailFailure::Unreachable => "unreachable",
            MailFailure::Timeout => "timeout",
            MailFailure::Refused => "refused",
            MailFailure::ReportMissing => "report_missing",
        }
    }

    pub fn parse(s: &str) -> Option<MailFailure> {
        Self::ALL.into_iter().find(|f| f.as_str() == s)
    }
}
