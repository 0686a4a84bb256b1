//! What a model server's refusals and failures mean, as [`LlmError`]s.

use std::time::Duration;

use serde_json::Value;

use super::LlmError;

/// Error bodies are cut to this many characters.
const MAX_ERROR_BODY: usize = 500;

/// A refusal before the stream started: status and body. A request too long for the model is
/// told apart, because a trimmed thread can then be sent once more.
pub(super) fn refusal(status: u16, body: &str) -> LlmError {
    let message = error_message(body);
    if status == 400 || status == 413 || status == 422 {
        let lower = message.to_lowercase();
        let too_long = [
            "context length",
            "context_length",
            "context size",
            "context window",
            "maximum context",
            "too many tokens",
            "prompt is too long",
            "exceeds the available context",
        ];
        if too_long.iter().any(|phrase| lower.contains(phrase)) {
            return LlmError::ContextExceeded(shorten(&message));
        }
    }
    LlmError::Status {
        status,
        body: shorten(&message),
    }
}

/// Whether a refusal is worth another try: rate limits and server trouble.
pub(super) fn retryable(status: u16) -> bool {
    status == 429 || status == 408 || ((500..600).contains(&status) && status != 501)
}

/// `Retry-After` in seconds (the HTTP-date form is rare for APIs and read as absent).
pub(super) fn retry_after(headers: &reqwest::header::HeaderMap) -> Option<Duration> {
    let value = headers.get(reqwest::header::RETRY_AFTER)?.to_str().ok()?;
    let seconds: f64 = value.trim().parse().ok()?;
    (seconds.is_finite() && seconds >= 0.0).then(|| Duration::from_secs_f64(seconds))
}

/// The `message` of an OpenAI-style error body, or the body itself.
fn error_message(body: &str) -> String {
    let Ok(value) = serde_json::from_str::<Value>(body) else {
        return body.trim().to_owned();
    };
    let error = value.get("error").unwrap_or(&value);
    match error {
        Value::String(text) => text.clone(),
        _ => error
            .get("message")
            .and_then(Value::as_str)
            .map(str::to_owned)
            .unwrap_or_else(|| body.trim().to_owned()),
    }
}

/// An `error` object inside the stream.
pub(super) fn reported_error(error: &Value) -> LlmError {
    let message = error
        .get("message")
        .and_then(Value::as_str)
        .map(str::to_owned)
        .unwrap_or_else(|| error.to_string());
    match status_in_value(error) {
        Some(status) => refusal(status, &message),
        None => LlmError::Protocol(format!(
            "the model service reported an error: {}",
            shorten(&message)
        )),
    }
}

fn status_in_value(value: &Value) -> Option<u16> {
    ["code", "status"]
        .iter()
        .filter_map(|key| value.get(key)?.as_u64())
        .find(|code| (400..600).contains(code))
        .and_then(|code| u16::try_from(code).ok())
}

/// `reqwest` puts the useful part ("Connection refused") in the source chain.
pub(super) fn error_chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        let cause_text = cause.to_string();
        if !text.contains(&cause_text) {
            text.push_str(": ");
            text.push_str(&cause_text);
        }
        source = cause.source();
    }
    text
}

pub(super) fn shorten(text: &str) -> String {
    let text = text.trim();
    match text.char_indices().nth(MAX_ERROR_BODY) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn context_errors_of_several_servers_are_recognised() {
        let llama = r#"{"error":{"code":400,"message":"request (4380 tokens) exceeds the available context size (4096 tokens), try increasing it","type":"exceed_context_size_error"}}"#;
        let openai = r#"{"error":{"message":"This model's maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens.","type":"invalid_request_error","code":"context_length_exceeded"}}"#;
        let vllm = r#"{"object":"error","message":"This model's maximum context length is 4096 tokens.","code":400}"#;
        for body in [llama, openai, vllm] {
            assert!(
                matches!(refusal(400, body), LlmError::ContextExceeded(_)),
                "{body}"
            );
        }
        assert!(matches!(
            refusal(400, r#"{"error":{"message":"bad tool"}}"#),
            LlmError::Status { status: 400, .. }
        ));
    }

    #[test]
    fn only_rate_limits_and_server_trouble_are_retried() {
        for status in [429, 500, 502, 503, 504, 408] {
            assert!(retryable(status), "{status}");
        }
        for status in [400, 401, 403, 404, 422, 501] {
            assert!(!retryable(status), "{status}");
        }
    }

    #[test]
    fn retry_after_reads_seconds() {
        let mut headers = reqwest::header::HeaderMap::new();
        headers.insert(reqwest::header::RETRY_AFTER, "2".parse().unwrap());
        assert_eq!(retry_after(&headers), Some(Duration::from_secs(2)));
        headers.insert(
            reqwest::header::RETRY_AFTER,
            "Wed, 21 Oct 2026 07:28:00 GMT".parse().unwrap(),
        );
        assert_eq!(retry_after(&headers), None);
    }

    #[test]
    fn long_bodies_are_shortened_on_a_char_boundary() {
        let long = "é".repeat(MAX_ERROR_BODY + 10);
        let short = shorten(&long);
        assert_eq!(short.chars().count(), MAX_ERROR_BODY + 1);
        assert!(short.ends_with('…'));
    }
}
