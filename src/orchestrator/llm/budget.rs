//! Fitting a thread into a model's context window.
//!
//! The whole thread used to be sent every turn, tool results verbatim; at a 4k context a
//! thread died in its second message. Now a request keeps the system prompt and the latest
//! turns: when the thread does not fit, long tool results of older turns are shortened first,
//! then the oldest turns are left out, and the system prompt says which questions they held.
//!
//! Tokens are estimated, not counted: no tokenizer crate covers every model family a
//! deployment may use (Gemma, Llama, Mistral, GPT), and a server's `/tokenize` costs a round
//! trip per message. The estimate is conservative by measurement: Gemma 3's tokenizer (through
//! llama.cpp's `/tokenize`) gave 3.9 bytes a token on our Dutch prompts and inspectors'
//! wording, 3.3 on the regulations corpus and 2.85 on the company register's JSON; we count
//! 2.5. Should a server still find a request too long, the provider trims once more.

use serde_json::Value;

use crate::protocol::{Message, ToolMessage, UserContent};

/// Bytes counted as one token: below every ratio measured (see the module docs).
const BYTES_PER_TOKEN: f64 = 2.5;

/// What a chat template adds around each message (role markers, separators).
const TOKENS_PER_MESSAGE: usize = 8;

/// How much of an older tool result is kept when the thread does not fit.
const SHORT_TOOL_RESULT_CHARS: usize = 600;

/// The estimated token count of a text.
pub fn estimate_tokens(text: &str) -> usize {
    (text.len() as f64 / BYTES_PER_TOKEN).ceil() as usize
}

/// What one photo the model sees is counted as: OpenAI's price of a 2048 × 1365 photo at high
/// detail (scaled to 1536 × 1024, six 512-pixel tiles of 170 tokens and 85 more); vLLM's
/// vision models count fewer or about as many.
pub const IMAGE_TOKENS: usize = 1105;

/// The estimated token count of one message as a model reads it.
pub fn message_tokens(message: &Message) -> usize {
    let text_len = match message {
        Message::User(m) => match &m.content {
            UserContent::Text(text) => text.len(),
            // Media parts are counted by their JSON; images cost more on most servers, but
            // threads here rarely carry any.
            UserContent::Parts(parts) => serde_json::to_string(parts).map_or(0, |s| s.len()),
        },
        Message::Assistant(m) => {
            m.content.as_deref().map_or(0, str::len)
                + m.tool_calls.iter().flatten().fold(0, |sum, call| {
                    sum + call.function.name.len() + call.function.arguments.len() + call.id.len()
                })
        }
        Message::Tool(m) => m.content.len() + m.error.as_deref().map_or(0, str::len),
        Message::System(m) | Message::Developer(m) | Message::Reasoning(m) => m.content.len(),
        Message::Activity(m) => serde_json::to_string(&m.content).map_or(0, |s| s.len()),
    };
    (text_len as f64 / BYTES_PER_TOKEN).ceil() as usize + TOKENS_PER_MESSAGE
}

/// The estimated token count of the tools offered, as their JSON.
pub fn tools_tokens(tools: &[super::ToolSpec]) -> usize {
    tools
        .iter()
        .map(|tool| {
            estimate_tokens(&tool.name)
                + estimate_tokens(&tool.description)
                + estimate_tokens(&tool.parameters.to_string())
                + TOKENS_PER_MESSAGE
        })
        .sum()
}

/// A thread made to fit.
#[derive(Debug, Clone, PartialEq)]
pub struct Fitted {
    pub messages: Vec<Message>,
    /// Turns left out, oldest first.
    pub dropped_turns: usize,
    /// For the system prompt when turns were left out: what they asked.
    pub note: Option<String>,
    /// The estimated tokens of `messages` (and the note).
    pub tokens: usize,
}

/// Keeps as much of the thread as fits in `available` tokens: everything when it fits;
/// else older tool results shortened; else the oldest turns left out (a turn starts at a user
/// message, so a tool call never loses its result). The latest turn is always kept.
pub fn fit(messages: &[Message], available: usize) -> Fitted {
    let total: usize = messages.iter().map(message_tokens).sum();
    if total <= available {
        return Fitted {
            messages: messages.to_vec(),
            dropped_turns: 0,
            note: None,
            tokens: total,
        };
    }
    let starts = turn_starts(messages);
    let latest = starts.last().copied().unwrap_or(0);
    // Older tool results shortened.
    let mut shortened: Vec<Message> = messages
        .iter()
        .enumerate()
        .map(|(i, m)| {
            if i < latest {
                shorten_result(m)
            } else {
                m.clone()
            }
        })
        .collect();
    let cost: Vec<usize> = shortened.iter().map(message_tokens).collect();
    let mut first_kept = starts.first().copied().unwrap_or(0);
    let mut dropped_turns = 0;
    let mut note = None;
    let mut kept_tokens: usize = cost.iter().sum();
    let mut note_tokens = 0;
    for (turn, &start) in starts.iter().enumerate() {
        if kept_tokens + note_tokens <= available || start == latest {
            break;
        }
        let end = starts.get(turn + 1).copied().unwrap_or(shortened.len());
        kept_tokens -= cost[start..end].iter().sum::<usize>();
        first_kept = end;
        dropped_turns += 1;
        let text = omission_note(&messages[..end]);
        note_tokens = estimate_tokens(&text);
        note = Some(text);
    }
    let tokens = kept_tokens + note_tokens;
    // Even the latest turn alone is too long: its own tool results are shortened too.
    if tokens > available {
        for message in &mut shortened[latest..] {
            *message = shorten_result(message);
        }
    }
    let kept: Vec<Message> = shortened.split_off(first_kept);
    let tokens =
        kept.iter().map(message_tokens).sum::<usize>() + note.as_deref().map_or(0, estimate_tokens);
    Fitted {
        messages: kept,
        dropped_turns,
        note,
        tokens,
    }
}

/// Where each turn starts: at every user message (and at 0 for what comes before the first).
fn turn_starts(messages: &[Message]) -> Vec<usize> {
    let mut starts: Vec<usize> = messages
        .iter()
        .enumerate()
        .filter(|(_, m)| matches!(m, Message::User(_)))
        .map(|(i, _)| i)
        .collect();
    if starts.first() != Some(&0) {
        starts.insert(0, 0);
    }
    starts
}

fn shorten_result(message: &Message) -> Message {
    match message {
        Message::Tool(result) if result.content.chars().count() > SHORT_TOOL_RESULT_CHARS => {
            let cut = result
                .content
                .char_indices()
                .nth(SHORT_TOOL_RESULT_CHARS)
                .map_or(result.content.len(), |(i, _)| i);
            let left_out = result.content.len() - cut;
            Message::Tool(ToolMessage {
                content: format!(
                    "{} … [shortened: {left_out} more bytes left out to fit the context]",
                    &result.content[..cut]
                ),
                ..result.clone()
            })
        }
        other => other.clone(),
    }
}

/// What the left-out turns asked, so the model knows the thread goes back further.
fn omission_note(dropped: &[Message]) -> String {
    let questions: Vec<String> = dropped
        .iter()
        .filter_map(|m| match m {
            Message::User(user) => Some(match &user.content {
                UserContent::Text(text) => text.clone(),
                UserContent::Parts(parts) => serde_json::to_value(parts)
                    .ok()
                    .and_then(|v| v.get(0)?.get("text")?.as_str().map(str::to_owned))
                    .unwrap_or_default(),
            }),
            _ => None,
        })
        .map(|text| {
            let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
            match text.char_indices().nth(120) {
                Some((cut, _)) => format!("{}…", &text[..cut]),
                None => text,
            }
        })
        .collect();
    // The most recent of the left-out questions matter most; older ones are counted.
    let shown = questions.len().min(5);
    let mut note = format!(
        "Earlier turns of this conversation ({} user messages) are left out to fit the context \
         window. The most recent of them asked:",
        questions.len()
    );
    for question in &questions[questions.len() - shown..] {
        note.push_str("\n- ");
        note.push_str(question);
    }
    note
}

/// The context size a server reports for a model: llama.cpp's `/props`
/// (`default_generation_settings.n_ctx`, the size of one slot) or a `/v1/models` entry
/// (`meta.n_ctx` from llama.cpp, `max_model_len` from vLLM, `context_length` or
/// `context_window` elsewhere).
pub fn reported_context(document: &Value, model: &str) -> Option<u32> {
    let number = |value: Option<&Value>| {
        value
            .and_then(Value::as_u64)
            .filter(|n| *n >= 256)
            .and_then(|n| u32::try_from(n).ok())
    };
    if let Some(n) = number(document.pointer("/default_generation_settings/n_ctx")) {
        return Some(n);
    }
    let entries = document.get("data")?.as_array()?;
    let entry = entries
        .iter()
        .find(|e| e.get("id").and_then(Value::as_str) == Some(model))
        .or_else(|| (entries.len() == 1).then(|| &entries[0]))?;
    [
        "/meta/n_ctx",
        "/max_model_len",
        "/context_length",
        "/context_window",
    ]
    .iter()
    .find_map(|pointer| number(entry.pointer(pointer)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::{AssistantMessage, FunctionCall, ToolCall};
    use serde_json::json;

    fn user(text: &str) -> Message {
        Message::user(None, text)
    }

    fn call(id: &str) -> Message {
        Message::Assistant(AssistantMessage {
            tool_calls: Some(vec![ToolCall {
                id: id.to_owned(),
                kind: "function".to_owned(),
                function: FunctionCall {
                    name: "search_regulations".to_owned(),
                    arguments: "{}".to_owned(),
                    ..Default::default()
                },
                ..Default::default()
            }]),
            ..Default::default()
        })
    }

    fn result(id: &str, len: usize) -> Message {
        Message::Tool(ToolMessage {
            content: "x".repeat(len),
            tool_call_id: id.to_owned(),
            ..Default::default()
        })
    }

    fn answer(text: &str) -> Message {
        Message::Assistant(AssistantMessage {
            content: Some(text.to_owned()),
            ..Default::default()
        })
    }

    fn thread(turns: usize, result_len: usize) -> Vec<Message> {
        (0..turns)
            .flat_map(|i| {
                let id = format!("c{i}");
                vec![
                    user(&format!("question {i}")),
                    call(&id),
                    result(&id, result_len),
                    answer("answer"),
                ]
            })
            .collect()
    }

    #[test]
    fn a_thread_that_fits_is_sent_whole() {
        let messages = thread(3, 100);
        let fitted = fit(&messages, 10_000);
        assert_eq!(fitted.messages, messages);
        assert_eq!(fitted.dropped_turns, 0);
        assert!(fitted.note.is_none());
    }

    #[test]
    fn older_tool_results_are_shortened_before_turns_are_dropped() {
        let messages = thread(3, 5_000);
        let full: usize = messages.iter().map(message_tokens).sum();
        let fitted = fit(&messages, full - 2_000);
        assert_eq!(fitted.dropped_turns, 0);
        assert_eq!(fitted.messages.len(), messages.len());
        let Message::Tool(old) = &fitted.messages[2] else {
            panic!()
        };
        assert!(old.content.contains("[shortened"), "{}", old.content);
        let Message::Tool(latest) = &fitted.messages[10] else {
            panic!()
        };
        assert_eq!(latest.content.len(), 5_000, "the latest turn stays whole");
        assert!(fitted.tokens <= full - 2_000);
    }

    #[test]
    fn the_oldest_turns_go_first_and_the_note_names_their_questions() {
        let messages = thread(30, 2_000);
        let fitted = fit(&messages, 1_500);
        assert!(fitted.dropped_turns > 0);
        assert!(fitted.tokens <= 1_500, "{}", fitted.tokens);
        assert!(
            matches!(&fitted.messages[0], Message::User(_)),
            "a kept thread starts with a user message"
        );
        let note = fitted.note.unwrap();
        assert!(
            note.contains(&format!("question {}", fitted.dropped_turns - 1)),
            "{note}"
        );
        // The latest turn is there, whole.
        assert_eq!(
            &fitted.messages[fitted.messages.len() - 4..],
            &messages[messages.len() - 4..]
        );
    }

    #[test]
    fn context_sizes_are_read_where_servers_report_them() {
        let props = json!({"default_generation_settings": {"n_ctx": 4096}, "total_slots": 1});
        assert_eq!(reported_context(&props, "x"), Some(4096));
        let llama_models = json!({"data": [{"id": "m.gguf", "meta": {"n_ctx": 8192}}]});
        assert_eq!(reported_context(&llama_models, "other"), Some(8192));
        let vllm = json!({"data": [{"id": "a", "max_model_len": 32768}, {"id": "b", "max_model_len": 4096}]});
        assert_eq!(reported_context(&vllm, "b"), Some(4096));
        let openai = json!({"data": [{"id": "gpt-4o-mini"}, {"id": "gpt-4o"}]});
        assert_eq!(reported_context(&openai, "gpt-4o-mini"), None);
    }
}
