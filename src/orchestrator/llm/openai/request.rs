//! The request: AG-UI messages to chat-completions messages, shaped so that strict chat
//! templates accept them (Gemma's and Mistral's refuse roles that do not alternate, OpenAI
//! refuses a tool call without its result).

use std::collections::{HashMap, HashSet};

use async_openai::types::chat::{
    ChatCompletionMessageToolCall, ChatCompletionMessageToolCalls,
    ChatCompletionRequestAssistantMessage, ChatCompletionRequestAssistantMessageContent,
    ChatCompletionRequestMessage, ChatCompletionRequestMessageContentPartImage,
    ChatCompletionRequestMessageContentPartText, ChatCompletionRequestSystemMessage,
    ChatCompletionRequestSystemMessageContent, ChatCompletionRequestToolMessage,
    ChatCompletionRequestToolMessageContent, ChatCompletionRequestUserMessage,
    ChatCompletionRequestUserMessageContent, ChatCompletionRequestUserMessageContentPart,
    ChatCompletionTool, ChatCompletionTools, FunctionCall, FunctionObject, ImageUrl,
};

use super::ToolSpec;
use crate::protocol::{
    AssistantMessage, InputContent, MediaPart, MediaSource, Message, TextPart, ToolMessage,
    UserContent, UserMessage,
};

/// The one system message of a request: the agent's prompt and any system or developer
/// messages of the thread, in order (strict templates refuse a system message in the middle).
pub(super) fn system_text(system_prompt: &str, messages: &[Message]) -> String {
    let mut parts: Vec<&str> = Vec::new();
    if !system_prompt.trim().is_empty() {
        parts.push(system_prompt);
    }
    for message in messages {
        if let Message::System(m) | Message::Developer(m) = message
            && !m.content.trim().is_empty()
        {
            parts.push(&m.content);
        }
    }
    parts.join("\n\n")
}

/// The messages of one request: the system text first, then the conversation (already shaped
/// by [`alternating`]). `images`: the stored photos the model sees, by address, as `data:`
/// URLs (`--llm-vision`); every other stored photo is a text placeholder.
pub(super) fn chat_messages(
    system_text: &str,
    conversation: &[Message],
    images: &HashMap<String, String>,
) -> Vec<ChatCompletionRequestMessage> {
    let mut out = Vec::with_capacity(conversation.len() + 1);
    if !system_text.is_empty() {
        out.push(system(system_text.to_owned()));
    }
    out.extend(
        conversation
            .iter()
            .filter_map(|message| to_openai_message(message, images)),
    );
    out
}

/// The conversation as strict templates want it:
/// - every tool call directly followed by its result: a missing one is added (it says the call
///   has no result), a result of no call just before is left out;
/// - consecutive user messages merged (a run that failed before answering leaves two), and
///   consecutive assistant messages too; a user message right after tool results gets an
///   assistant message before it that says the run ended there;
/// - messages the model does not read (system ones go first, activity, reasoning) left out.
pub(super) fn alternating(messages: &[Message]) -> Vec<Message> {
    let mut out: Vec<Message> = Vec::with_capacity(messages.len());
    // Calls of the last assistant message still waiting for a result, in order.
    let mut waiting: Vec<(String, String)> = Vec::new();
    let mut answered: HashSet<String> = HashSet::new();
    for message in messages {
        match message {
            Message::Tool(result) => {
                let belongs = waiting.iter().any(|(id, _)| *id == result.tool_call_id);
                if belongs && answered.insert(result.tool_call_id.clone()) {
                    out.push(message.clone());
                }
            }
            Message::User(user) => {
                close_calls(&mut out, &mut waiting, &answered);
                match out.last_mut() {
                    Some(Message::User(previous)) => merge_user(previous, user),
                    // A run that ended right after its tool results (cancelled, failed) left
                    // no answer; templates that show results as a user turn (Gemma's) would
                    // see two user turns in a row.
                    Some(Message::Tool(_)) => {
                        out.push(Message::Assistant(AssistantMessage {
                            content: Some("[No answer: the run ended here.]".to_owned()),
                            ..Default::default()
                        }));
                        out.push(message.clone());
                    }
                    _ => out.push(message.clone()),
                }
            }
            Message::Assistant(assistant) => {
                let calls = assistant.tool_calls.as_deref().unwrap_or_default();
                let has_text = assistant.content.as_deref().is_some_and(|t| !t.is_empty());
                if calls.is_empty() && !has_text {
                    continue;
                }
                close_calls(&mut out, &mut waiting, &answered);
                match out.last_mut() {
                    Some(Message::Assistant(previous)) => merge_assistant(previous, assistant),
                    _ => out.push(message.clone()),
                }
                answered.clear();
                waiting = calls
                    .iter()
                    .map(|call| (call.id.clone(), call.function.name.clone()))
                    .collect();
            }
            Message::System(_)
            | Message::Developer(_)
            | Message::Activity(_)
            | Message::Reasoning(_) => {}
        }
    }
    close_calls(&mut out, &mut waiting, &answered);
    out
}

/// Adds a result for each waiting call that has none.
fn close_calls(
    out: &mut Vec<Message>,
    waiting: &mut Vec<(String, String)>,
    answered: &HashSet<String>,
) {
    for (id, name) in waiting.drain(..) {
        if !answered.contains(&id) {
            out.push(Message::Tool(ToolMessage {
                id: None,
                content: format!("Error: `{name}` has no result: the call was not carried out."),
                tool_call_id: id,
                error: None,
                ..Default::default()
            }));
        }
    }
}

fn merge_user(previous: &mut UserMessage, next: &UserMessage) {
    let parts = |content: &UserContent| match content {
        UserContent::Text(text) => vec![InputContent::Text(TextPart {
            text: text.clone(),
            ..Default::default()
        })],
        UserContent::Parts(parts) => parts.clone(),
    };
    previous.content = match (&previous.content, &next.content) {
        (UserContent::Text(a), UserContent::Text(b)) => UserContent::Text(format!("{a}\n\n{b}")),
        (a, b) => UserContent::Parts([parts(a), parts(b)].concat()),
    };
}

fn merge_assistant(previous: &mut AssistantMessage, next: &AssistantMessage) {
    let text: Vec<&str> = [previous.content.as_deref(), next.content.as_deref()]
        .into_iter()
        .flatten()
        .filter(|t| !t.is_empty())
        .collect();
    previous.content = (!text.is_empty()).then(|| text.join("\n\n"));
    let calls: Vec<_> = [previous.tool_calls.take(), next.tool_calls.clone()]
        .into_iter()
        .flatten()
        .flatten()
        .collect();
    previous.tool_calls = (!calls.is_empty()).then_some(calls);
}

fn system(text: String) -> ChatCompletionRequestMessage {
    ChatCompletionRequestMessage::System(ChatCompletionRequestSystemMessage {
        content: ChatCompletionRequestSystemMessageContent::Text(text),
        name: None,
    })
}

/// `None` for messages the model does not read. Developer messages go out as system messages:
/// many compatible servers reject the `developer` role. Participant names are left out, since
/// OpenAI restricts their characters and AG-UI does not.
fn to_openai_message(
    message: &Message,
    images: &HashMap<String, String>,
) -> Option<ChatCompletionRequestMessage> {
    match message {
        // Gathered into the first system message by `chat_messages`.
        Message::System(_) | Message::Developer(_) => None,
        Message::User(m) => Some(ChatCompletionRequestMessage::User(
            ChatCompletionRequestUserMessage {
                content: user_content(&m.content, images),
                name: None,
            },
        )),
        Message::Assistant(m) => {
            let content = m.content.clone().filter(|text| !text.is_empty());
            let tool_calls: Vec<ChatCompletionMessageToolCalls> = m
                .tool_calls
                .iter()
                .flatten()
                .map(|call| {
                    ChatCompletionMessageToolCalls::Function(ChatCompletionMessageToolCall {
                        id: call.id.clone(),
                        function: FunctionCall {
                            name: call.function.name.clone(),
                            arguments: if call.function.arguments.trim().is_empty() {
                                "{}".to_owned()
                            } else {
                                call.function.arguments.clone()
                            },
                        },
                    })
                })
                .collect();
            if content.is_none() && tool_calls.is_empty() {
                return None;
            }
            Some(ChatCompletionRequestMessage::Assistant(
                ChatCompletionRequestAssistantMessage {
                    content: content.map(ChatCompletionRequestAssistantMessageContent::Text),
                    // OpenAI rejects an empty list.
                    tool_calls: (!tool_calls.is_empty()).then_some(tool_calls),
                    ..Default::default()
                },
            ))
        }
        Message::Tool(m) => {
            let content = match &m.error {
                None => m.content.clone(),
                Some(error) if m.content.is_empty() => format!("Error: {error}"),
                Some(error) => format!("{}\n\nError: {error}", m.content),
            };
            Some(ChatCompletionRequestMessage::Tool(
                ChatCompletionRequestToolMessage {
                    content: ChatCompletionRequestToolMessageContent::Text(content),
                    tool_call_id: m.tool_call_id.clone(),
                },
            ))
        }
        Message::Activity(_) | Message::Reasoning(_) => None,
    }
}

/// Plain text stays a string, which every compatible server accepts. Images become
/// `image_url` parts; other media, which few servers accept, are named in a text part. A
/// stored photo goes as its bytes (a `data:` URL from `images`) when the model sees it, else
/// as a short placeholder, `[foto 1: image/jpeg, /photos/…]`, so a text-only model never
/// gets an image it rejects (and this server's address is nothing a model could fetch).
fn user_content(
    content: &UserContent,
    images: &HashMap<String, String>,
) -> ChatCompletionRequestUserMessageContent {
    let parts = match content {
        UserContent::Text(text) => {
            return ChatCompletionRequestUserMessageContent::Text(text.clone());
        }
        UserContent::Parts(parts) => parts,
    };
    if parts
        .iter()
        .all(|part| matches!(part, InputContent::Text(_)))
    {
        let texts: Vec<&str> = parts
            .iter()
            .filter_map(|part| match part {
                InputContent::Text(text) => Some(text.text.as_str()),
                _ => None,
            })
            .collect();
        return ChatCompletionRequestUserMessageContent::Text(texts.join("\n"));
    }
    let text_part = |text: String| {
        ChatCompletionRequestUserMessageContentPart::Text(
            ChatCompletionRequestMessageContentPartText {
                text,
                prompt_cache_breakpoint: None,
            },
        )
    };
    let image_part = |url: String| {
        ChatCompletionRequestUserMessageContentPart::ImageUrl(
            ChatCompletionRequestMessageContentPartImage {
                image_url: ImageUrl { url, detail: None },
                prompt_cache_breakpoint: None,
            },
        )
    };
    let mut photo = 0;
    let mapped = parts
        .iter()
        .map(|part| match part {
            InputContent::Text(text) => text_part(text.text.clone()),
            InputContent::Image(media) if is_stored_photo(media) => {
                photo += 1;
                let address = media.source.source().value.as_str();
                match images.get(address) {
                    Some(data) => image_part(data.clone()),
                    None => text_part(photo_placeholder(photo, media_mime(media), address)),
                }
            }
            InputContent::Image(media) => image_part(media_url(media)),
            InputContent::Audio(media) => {
                text_part(omitted("audio", media_mime(media), media_location(media)))
            }
            InputContent::Video(media) => {
                text_part(omitted("video", media_mime(media), media_location(media)))
            }
            InputContent::Document(media) => text_part(omitted(
                "document",
                media_mime(media),
                media_location(media),
            )),
            InputContent::Binary(binary) => {
                let url = binary.url.clone().or_else(|| {
                    binary
                        .data
                        .as_ref()
                        .map(|data| format!("data:{};base64,{data}", binary.mime_type))
                });
                match url {
                    Some(url) if binary.mime_type.starts_with("image/") => image_part(url),
                    _ => {
                        let location = binary.filename.clone().or_else(|| binary.url.clone());
                        text_part(omitted("file", Some(&binary.mime_type), location))
                    }
                }
            }
        })
        .collect();
    ChatCompletionRequestUserMessageContent::Array(mapped)
}

fn is_stored_photo(media: &MediaPart) -> bool {
    matches!(&media.source, MediaSource::Url(source) if crate::protocol::photo_id(&source.value).is_some())
}

fn media_url(media: &MediaPart) -> String {
    match &media.source {
        MediaSource::Url(source) | MediaSource::File(source) => source.value.clone(),
        MediaSource::Data(source) => {
            let mime = source
                .mime_type
                .as_deref()
                .unwrap_or("application/octet-stream");
            format!("data:{mime};base64,{}", source.value)
        }
    }
}

fn media_mime(media: &MediaPart) -> Option<&str> {
    match &media.source {
        MediaSource::Url(source) | MediaSource::Data(source) | MediaSource::File(source) => {
            source.mime_type.as_deref()
        }
    }
}

fn media_location(media: &MediaPart) -> Option<String> {
    match &media.source {
        MediaSource::Url(source) | MediaSource::File(source) => Some(source.value.clone()),
        MediaSource::Data(_) => None,
    }
}

/// A stored photo the model does not see: `[foto 1: image/jpeg, /photos/<id>]`.
fn photo_placeholder(n: usize, mime: Option<&str>, address: &str) -> String {
    match mime {
        Some(mime) => format!("[foto {n}: {mime}, {address}]"),
        None => format!("[foto {n}: {address}]"),
    }
}

fn omitted(kind: &str, mime: Option<&str>, location: Option<String>) -> String {
    let mut text = format!("[{kind} attachment");
    if let Some(mime) = mime {
        text.push_str(&format!(" ({mime})"));
    }
    if let Some(location) = location {
        text.push_str(&format!(" at {location}"));
    }
    text.push_str(" not shown to the model]");
    text
}

pub(super) fn to_openai_tool(tool: &ToolSpec) -> ChatCompletionTools {
    ChatCompletionTools::Function(ChatCompletionTool {
        function: FunctionObject {
            name: tool.name.clone(),
            description: (!tool.description.is_empty()).then(|| tool.description.clone()),
            parameters: (!tool.parameters.is_null()).then(|| tool.parameters.clone()),
            strict: None,
        },
    })
}
