//! Client→server: [`RunAgentInput`] and the conversation [`Message`]s (which
//! `MESSAGES_SNAPSHOT` also carries back).
//!
//! Two input shapes arrive on `/ws`. AGORA's client sends `threadId`, an optional `runId`,
//! `userId`, messages without ids and `context` as an object; a standard AG-UI client sends
//! message ids, `tools`, `state`, `context` as a list and `forwardedProps`. One type takes both.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// Starts a run.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RunAgentInput {
    pub thread_id: String,
    /// AGORA lets the server choose it; standard AG-UI requires it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent_run_id: Option<String>,
    /// AGORA extension: the user who owns the thread.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user_id: Option<String>,
    /// Required by both specs; the original AGORA server took a missing list as empty.
    #[serde(default)]
    pub messages: Vec<Message>,
    /// Tools the client offers (standard AG-UI).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<Vec<Tool>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<Context>,
    /// The client's copy of the shared state.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state: Option<Value>,
    /// Opaque client data for the agent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub forwarded_props: Option<Value>,
    /// Answers to the interrupts of the previous run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resume: Option<Vec<ResumeEntry>>,
    #[serde(flatten, default, skip_serializing_if = "Map::is_empty")]
    pub extra: Map<String, Value>,
}

/// `RunAgentInput.context`: a list in standard AG-UI, an object in AGORA.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Context {
    Items(Vec<ContextItem>),
    Object(Map<String, Value>),
}

/// One piece of context for the agent.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ContextItem {
    pub description: String,
    pub value: String,
    #[serde(flatten, default, skip_serializing_if = "Map::is_empty")]
    pub extra: Map<String, Value>,
}

/// A tool the client can execute.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Tool {
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// JSON Schema of the arguments.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parameters: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Map<String, Value>>,
    #[serde(flatten, default, skip_serializing_if = "Map::is_empty")]
    pub extra: Map<String, Value>,
}

/// The answer to one interrupt of a paused run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResumeEntry {
    pub interrupt_id: String,
    pub status: ResumeStatus,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub payload: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Map<String, Value>>,
    #[serde(flatten, default, skip_serializing_if = "Map::is_empty")]
    pub extra: Map<String, Value>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ResumeStatus {
    Resolved,
    Cancelled,
}

/// A conversation message, tagged by `role`. Ids are optional because AGORA's client omits them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "role", rename_all = "lowercase")]
pub enum Message {
    Developer(BasicMessage),
    System(BasicMessage),
    Assistant(AssistantMessage),
    User(UserMessage),
    Tool(ToolMessage),
    Activity(ActivityMessage),
    Reasoning(BasicMessage),
}

impl Message {
    /// A user message of plain text.
    pub fn user(id: Option<String>, text: impl Into<String>) -> Self {
        Message::User(UserMessage {
            id,
            content: UserContent::Text(text.into()),
            name: None,
            encrypted_value: None,
            extra: Map::new(),
        })
    }

    /// The message's id; AGORA's client sends messages without one.
    pub fn id(&self) -> Option<&str> {
        self.id_slot().as_deref()
    }

    /// The message's id, to set.
    pub fn id_mut(&mut self) -> &mut Option<String> {
        match self {
            Message::Developer(m) | Message::System(m) | Message::Reasoning(m) => &mut m.id,
            Message::Assistant(m) => &mut m.id,
            Message::User(m) => &mut m.id,
            Message::Tool(m) => &mut m.id,
            Message::Activity(m) => &mut m.id,
        }
    }

    fn id_slot(&self) -> &Option<String> {
        match self {
            Message::Developer(m) | Message::System(m) | Message::Reasoning(m) => &m.id,
            Message::Assistant(m) => &m.id,
            Message::User(m) => &m.id,
            Message::Tool(m) => &m.id,
            Message::Activity(m) => &m.id,
        }
    }
}

/// Developer, system and reasoning messages: text and nothing else.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BasicMessage {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    pub content: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Opaque provider data, returned to the provider on the next turn.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub encrypted_value: Option<String>,
    #[serde(flatten, default, skip_serializing_if = "Map::is_empty")]
    pub extra: Map<String, Value>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AssistantMessage {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// Absent when the message only calls tools.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub encrypted_value: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_calls: Option<Vec<ToolCall>>,
    #[serde(flatten, default, skip_serializing_if = "Map::is_empty")]
    pub extra: Map<String, Value>,
}

/// A call the assistant made.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolCall {
    pub id: String,
    /// Always `function` today.
    #[serde(rename = "type")]
    pub kind: String,
    pub function: FunctionCall,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub encrypted_value: Option<String>,
    #[serde(flatten, default, skip_serializing_if = "Map::is_empty")]
    pub extra: Map<String, Value>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FunctionCall {
    pub name: String,
    /// JSON-encoded.
    pub arguments: String,
    #[serde(flatten, default, skip_serializing_if = "Map::is_empty")]
    pub extra: Map<String, Value>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UserMessage {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    pub content: UserContent,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub encrypted_value: Option<String>,
    #[serde(flatten, default, skip_serializing_if = "Map::is_empty")]
    pub extra: Map<String, Value>,
}

/// A user message is plain text or an ordered list of multimodal parts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum UserContent {
    Text(String),
    Parts(Vec<InputContent>),
}

impl UserContent {
    /// What the user wrote: the string, or the text parts joined by a blank line (the one
    /// joiner for the title, the run, the planner and the screen alike). Media parts have no
    /// text.
    pub fn text(&self) -> String {
        match self {
            UserContent::Text(text) => text.clone(),
            UserContent::Parts(parts) => parts
                .iter()
                .filter_map(|part| match part {
                    InputContent::Text(text) => Some(text.text.as_str()),
                    _ => None,
                })
                .collect::<Vec<_>>()
                .join("\n\n"),
        }
    }
}

impl UserContent {
    /// The image parts, in order.
    pub fn images(&self) -> impl Iterator<Item = &MediaPart> {
        let parts = match self {
            UserContent::Text(_) => &[][..],
            UserContent::Parts(parts) => parts.as_slice(),
        };
        parts.iter().filter_map(|part| match part {
            InputContent::Image(image) => Some(image),
            _ => None,
        })
    }

    /// The stored photos this content shows (url sources at [`PHOTO_PATH`]), in order.
    pub fn photo_ids(&self) -> impl Iterator<Item = &str> {
        self.images().filter_map(|image| match &image.source {
            MediaSource::Url(source) => photo_id(&source.value),
            _ => None,
        })
    }
}

/// One part of a multimodal user message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "lowercase")]
pub enum InputContent {
    Text(TextPart),
    Image(MediaPart),
    Audio(MediaPart),
    Video(MediaPart),
    Document(MediaPart),
    /// The older form of media parts, still accepted by AG-UI.
    Binary(BinaryPart),
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TextPart {
    pub text: String,
    #[serde(flatten, default, skip_serializing_if = "Map::is_empty")]
    pub extra: Map<String, Value>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MediaPart {
    pub source: MediaSource,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Value>,
    #[serde(flatten, default, skip_serializing_if = "Map::is_empty")]
    pub extra: Map<String, Value>,
}

/// Where a media part's bytes are: inline (base64), behind a URL, or at a model provider
/// under a handle it issued (AG-UI 1.0's `FileSource`: its `provider` rides in `extra`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "lowercase")]
pub enum MediaSource {
    Data(Source),
    Url(Source),
    File(Source),
}

impl MediaSource {
    pub fn source(&self) -> &Source {
        match self {
            MediaSource::Data(source) | MediaSource::Url(source) | MediaSource::File(source) => {
                source
            }
        }
    }
}

/// Where the server serves a stored photo (issue 37): `/photos/<id>`, the id being the
/// SHA-256 of its stored bytes in lower-case hex. History and `MESSAGES_SNAPSHOT` give a photo
/// back as a `url` source with this path, never its bytes again.
pub const PHOTO_PATH: &str = "/photos/";

/// The URL of the stored photo `id`.
pub fn photo_url(id: &str) -> String {
    format!("{PHOTO_PATH}{id}")
}

/// The id of a stored photo's URL, when `url` is one (64 lower-case hex digits).
pub fn photo_id(url: &str) -> Option<&str> {
    let id = url.strip_prefix(PHOTO_PATH)?;
    (id.len() == 64 && id.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))).then_some(id)
}

/// A photo's time taken as the browser sends it in its part's `metadata.takenAt` (local
/// time, `2026-11-27T10:32:05`), as the server stores it (`2026-11-27 10:32:05`, how it
/// reads a camera's EXIF DateTimeOriginal); `None` for anything that is not such a time.
pub fn taken_at_stored(sent: &str) -> Option<String> {
    let b = sent.as_bytes();
    if b.len() != 19 || [b[4], b[7], b[10], b[13], b[16]] != *b"--T::" {
        return None;
    }
    let number = |from: usize, to: usize| -> Option<u32> {
        let digits = sent.get(from..to)?;
        digits
            .bytes()
            .all(|d| d.is_ascii_digit())
            .then(|| digits.parse().ok())?
    };
    let (year, month, day) = (number(0, 4)?, number(5, 7)?, number(8, 10)?);
    let (hour, minute, second) = (number(11, 13)?, number(14, 16)?, number(17, 19)?);
    let valid = (1900..=9999).contains(&year)
        && (1..=12).contains(&month)
        && (1..=31).contains(&day)
        && hour < 24
        && minute < 60
        && second < 61;
    valid.then(|| format!("{} {}", &sent[..10], &sent[11..]))
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Source {
    /// Base64 data or a URL.
    pub value: String,
    /// Required for inline data.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    #[serde(flatten, default, skip_serializing_if = "Map::is_empty")]
    pub extra: Map<String, Value>,
}

/// At least one of `id`, `url` and `data` should be set.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BinaryPart {
    pub mime_type: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub filename: Option<String>,
    #[serde(flatten, default, skip_serializing_if = "Map::is_empty")]
    pub extra: Map<String, Value>,
}

/// The result of a tool call, fed back to the model.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolMessage {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    pub content: String,
    pub tool_call_id: String,
    /// Set when the tool failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub encrypted_value: Option<String>,
    #[serde(flatten, default, skip_serializing_if = "Map::is_empty")]
    pub extra: Map<String, Value>,
}

/// Structured UI content (see `ACTIVITY_SNAPSHOT`), not text for the model.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ActivityMessage {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    pub activity_type: String,
    pub content: Value,
    #[serde(flatten, default, skip_serializing_if = "Map::is_empty")]
    pub extra: Map<String, Value>,
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    /// AG-UI 1.0's content parts as `@ag-ui/core` defines them (text, image with a `data`,
    /// `url` or `file` source, part ids and metadata) read and write back unchanged, fields
    /// this type does not name included.
    #[test]
    fn ag_ui_content_parts_round_trip_with_unknown_fields() {
        let message = json!({
            "id": "m1",
            "role": "user",
            "content": [
                { "type": "text", "id": "p1", "text": "Dit is de vriezer", "metadata": { "lang": "nl" } },
                { "type": "image", "id": "p2", "source": { "type": "data", "value": "/9j/4AAQ", "mimeType": "image/jpeg" } },
                { "type": "image", "source": { "type": "url", "value": format!("/photos/{}", "a".repeat(64)), "mimeType": "image/jpeg" }, "metadata": { "takenAt": "2026-11-27" } },
                { "type": "image", "source": { "type": "file", "value": "file-abc", "provider": "openai" } },
            ],
            "x-client": { "tablet": true },
        });
        let parsed: Message = serde_json::from_value(message.clone()).unwrap();
        assert_eq!(serde_json::to_value(&parsed).unwrap(), message);
        let Message::User(user) = &parsed else {
            panic!("a user message")
        };
        assert_eq!(user.content.text(), "Dit is de vriezer");
        assert_eq!(user.content.images().count(), 3);
        assert_eq!(
            user.content.photo_ids().collect::<Vec<_>>(),
            vec!["a".repeat(64)]
        );
    }

    #[test]
    fn only_a_stored_photos_address_is_one() {
        let id = "0123456789abcdef".repeat(4);
        assert_eq!(photo_id(&photo_url(&id)), Some(id.as_str()));
        for url in [
            format!("/photos/{}", "A".repeat(64)),
            format!("/photos/{}", "a".repeat(63)),
            format!("/photos/{}/../x", "a".repeat(64)),
            format!("https://example.org/photos/{}", "a".repeat(64)),
            "/photos/".to_owned(),
        ] {
            assert_eq!(photo_id(&url), None, "{url}");
        }
    }

    #[test]
    fn a_time_taken_is_read_only_when_it_is_a_time() {
        assert_eq!(
            taken_at_stored("2026-11-27T10:32:05").as_deref(),
            Some("2026-11-27 10:32:05")
        );
        for junk in [
            "",
            "2026-11-27 10:32:05",
            "2026-13-27T10:32:05",
            "2026-11-00T10:32:05",
            "2026-11-27T24:00:00",
            "2026-11-27T10:32:05Z",
            "2026-1a-27T10:32:05",
            "+026-11-27T10:32:05",
            "2026-11-27T10:32:0\u{e9}",
        ] {
            assert_eq!(taken_at_stored(junk), None, "{junk}");
        }
    }
}
