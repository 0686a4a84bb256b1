//! Reading a streamed chat completion: server-sent events to [`LlmChunk`]s.
//!
//! Chunks are read with our own lenient types: compatible servers differ in details strict
//! types reject, such as unknown `finish_reason` values, missing `created` fields, tool-call
//! deltas without `index`, or error objects sent in the middle of a stream.
//!
//! Two clocks watch the stream. Silence counts every byte, SSE comments included: llama.cpp
//! sends keep-alive comments while it reads a long prompt, and a slow but alive server must not
//! be cut off. The first-token deadline counts only content or tool-call deltas, so a server
//! that sends keep-alives forever is still stopped.

use std::collections::{BTreeMap, VecDeque};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use eventsource_stream::Eventsource;
use futures::stream::{self, BoxStream};
use futures::{Stream, StreamExt};
use serde::Deserialize;
use serde_json::Value;
use tokio::time::Instant;

use super::errors::{reported_error, shorten};
use super::{LlmChunk, LlmError};
use crate::orchestrator::llm::{FinishReason, Usage};

/// How long the stream may take, measured from when the request was sent.
#[derive(Debug, Clone, Copy)]
pub(super) struct StreamClocks {
    pub started: Instant,
    pub first_token: Duration,
    pub silence: Duration,
}

/// One `chat.completion.chunk`, read leniently.
#[derive(Debug, Default, Deserialize)]
pub(super) struct StreamChunk {
    #[serde(default)]
    choices: Vec<StreamChoice>,
    /// Some servers report failures inside the stream.
    #[serde(default)]
    error: Option<Value>,
    /// With `stream_options.include_usage`, the last chunk (with no choices) carries it.
    #[serde(default)]
    usage: Option<UsageChunk>,
}

#[derive(Debug, Default, Deserialize)]
struct UsageChunk {
    #[serde(default)]
    prompt_tokens: u64,
    #[serde(default)]
    completion_tokens: u64,
}

#[derive(Debug, Default, Deserialize)]
struct StreamChoice {
    #[serde(default)]
    index: Option<u32>,
    #[serde(default)]
    delta: Option<Delta>,
    #[serde(default)]
    finish_reason: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
struct Delta {
    #[serde(default)]
    content: Option<String>,
    #[serde(default)]
    refusal: Option<String>,
    #[serde(default)]
    tool_calls: Option<Vec<ToolCallDelta>>,
}

#[derive(Debug, Default, Deserialize)]
struct ToolCallDelta {
    #[serde(default)]
    index: Option<u32>,
    #[serde(default)]
    id: Option<String>,
    #[serde(default)]
    function: Option<FunctionDelta>,
}

#[derive(Debug, Default, Deserialize)]
struct FunctionDelta {
    #[serde(default)]
    name: Option<String>,
    /// A JSON text fragment; a few servers send the whole arguments as an object instead.
    #[serde(default)]
    arguments: Option<Value>,
}

/// A tool call being assembled from its deltas.
#[derive(Debug, Default)]
struct PartialCall {
    id: Option<String>,
    name: String,
    arguments: String,
}

/// What the decoder keeps between chunks: the calls being assembled and what is ready to go.
#[derive(Default)]
pub(super) struct Decoder {
    /// By the server's `index` (or our own count for servers that send none).
    calls: BTreeMap<u32, PartialCall>,
    /// Where an index-less, id-less delta belongs: the call that came last.
    last_index: Option<u32>,
    finish_reason: Option<String>,
    usage: Option<Usage>,
    /// Whether a content or tool-call delta has come: the first-token clock stops then.
    got_token: bool,
    ready: VecDeque<Result<LlmChunk, LlmError>>,
}

/// The response body as chunks: text as it arrives, tool calls whole at the end, then
/// [`LlmChunk::Finished`]; nothing after an error.
pub(super) fn decode(
    response: reqwest::Response,
    clocks: StreamClocks,
) -> BoxStream<'static, Result<LlmChunk, LlmError>> {
    // Milliseconds after `clocks.started` at which the last bytes came, comments included.
    let last_bytes = Arc::new(AtomicU64::new(0));
    let seen = last_bytes.clone();
    let bytes = response.bytes_stream().inspect(move |_| {
        seen.store(
            clocks.started.elapsed().as_millis() as u64,
            Ordering::Relaxed,
        )
    });
    let events = bytes.eventsource();
    read_events(events, last_bytes, clocks)
}

/// The reading loop's state between two chunks it hands out.
struct ReadState<S> {
    events: std::pin::Pin<Box<S>>,
    decoder: Decoder,
    /// Milliseconds after the request at which bytes last came (see [`decode`]).
    last_bytes: Arc<AtomicU64>,
    /// Set once the response has ended or failed; what is ready still goes out.
    done: bool,
}

impl<S> ReadState<S> {
    fn finish(&mut self) {
        self.decoder.finish();
        self.done = true;
    }
}

fn read_events<S, E>(
    events: S,
    last_bytes: Arc<AtomicU64>,
    clocks: StreamClocks,
) -> BoxStream<'static, Result<LlmChunk, LlmError>>
where
    S: Stream<Item = Result<eventsource_stream::Event, E>> + Send + 'static,
    E: std::fmt::Display,
{
    let state = ReadState {
        events: Box::pin(events),
        decoder: Decoder::default(),
        last_bytes,
        done: false,
    };
    stream::unfold(state, move |mut state| async move {
        loop {
            if let Some(item) = state.decoder.ready.pop_front() {
                if item.is_err() {
                    state.decoder.ready.clear();
                    state.done = true;
                }
                return Some((item, state));
            }
            if state.done {
                return None;
            }
            let deadline = state.decoder.deadline(&clocks, &state.last_bytes);
            tokio::select! {
                event = state.events.next() => match event {
                    Some(Ok(event)) if event.data.trim() == "[DONE]" => state.finish(),
                    Some(Ok(event)) if event.data.trim().is_empty() => {}
                    Some(Ok(event)) => match serde_json::from_str::<StreamChunk>(&event.data) {
                        Ok(chunk) => state.decoder.accept(chunk),
                        Err(error) => state.decoder.ready.push_back(Err(LlmError::Protocol(
                            format!("unreadable stream chunk: {error}: {}", shorten(&event.data)),
                        ))),
                    },
                    Some(Err(error)) => state
                        .decoder
                        .ready
                        .push_back(Err(LlmError::Unreachable(format!("the stream broke: {error}")))),
                    // Many servers close without `[DONE]`.
                    None => state.finish(),
                },
                () = tokio::time::sleep_until(deadline) => {
                    // Bytes may have come meanwhile (a keep-alive): the deadline moved.
                    if Instant::now() >= state.decoder.deadline(&clocks, &state.last_bytes) {
                        let error = state.decoder.timeout(&clocks);
                        state.decoder.ready.push_back(Err(error));
                    }
                }
            }
        }
    })
    .boxed()
}

impl Decoder {
    /// When the stream is late: after `silence` without bytes, or, before the first token,
    /// at the first-token deadline, whichever comes first.
    fn deadline(&self, clocks: &StreamClocks, last_bytes: &AtomicU64) -> Instant {
        let last = clocks.started + Duration::from_millis(last_bytes.load(Ordering::Relaxed));
        let silent = last + clocks.silence;
        if self.got_token {
            silent
        } else {
            silent.min(clocks.started + clocks.first_token)
        }
    }

    fn timeout(&self, clocks: &StreamClocks) -> LlmError {
        let first_token_due = clocks.started + clocks.first_token;
        if !self.got_token && Instant::now() >= first_token_due {
            LlmError::Timeout(format!(
                "no answer within {}s of the request",
                clocks.first_token.as_secs()
            ))
        } else {
            LlmError::Timeout(format!(
                "the model stream was silent for {}s",
                clocks.silence.as_secs()
            ))
        }
    }

    pub(super) fn accept(&mut self, chunk: StreamChunk) {
        if let Some(error) = chunk.error {
            self.ready.push_back(Err(reported_error(&error)));
            return;
        }
        if let Some(usage) = chunk.usage {
            self.usage = Some(Usage {
                prompt_tokens: usage.prompt_tokens,
                completion_tokens: usage.completion_tokens,
            });
        }
        // One completion is requested, so only the first choice counts.
        for choice in chunk
            .choices
            .into_iter()
            .filter(|choice| choice.index.unwrap_or(0) == 0)
        {
            if let Some(reason) = choice.finish_reason {
                self.finish_reason = Some(reason);
            }
            let Some(delta) = choice.delta else { continue };
            for text in [delta.content, delta.refusal].into_iter().flatten() {
                if !text.is_empty() {
                    self.got_token = true;
                    self.ready.push_back(Ok(LlmChunk::Text(text)));
                }
            }
            for call in delta.tool_calls.into_iter().flatten() {
                self.got_token = true;
                self.accept_tool_call(call);
            }
        }
    }

    fn accept_tool_call(&mut self, delta: ToolCallDelta) {
        let id = delta.id.filter(|id| !id.is_empty());
        // Without an index, a new id starts a call and anything else continues the last one.
        let index = match (delta.index, &id) {
            (Some(index), _) => index,
            (None, Some(id)) => self
                .calls
                .iter()
                .find(|(_, call)| call.id.as_ref() == Some(id))
                .map(|(index, _)| *index)
                .unwrap_or_else(|| self.calls.keys().next_back().map_or(0, |last| last + 1)),
            (None, None) => self.last_index.unwrap_or(0),
        };
        self.last_index = Some(index);
        let call = self.calls.entry(index).or_default();
        if call.id.is_none() {
            call.id = id;
        }
        let Some(function) = delta.function else {
            return;
        };
        if let Some(name) = function.name.filter(|name| !name.is_empty()) {
            // The name normally comes whole in the first delta; some servers repeat it.
            if call.name != name {
                call.name.push_str(&name);
            }
        }
        match function.arguments {
            Some(Value::String(fragment)) => call.arguments.push_str(&fragment),
            Some(Value::Null) | None => {}
            Some(whole) => call.arguments.push_str(&whole.to_string()),
        }
    }

    /// The end of the response: the assembled tool calls in index order, then why it ended.
    /// Under a `length` finish a call whose arguments do not parse was cut off: it is dropped
    /// (the model never finished asking). Any other unusable call is sent as
    /// [`LlmChunk::InvalidToolCall`], so the model can be told and try again.
    pub(super) fn finish(&mut self) {
        let reason = FinishReason::parse(self.finish_reason.as_deref().unwrap_or("stop"));
        for (index, call) in std::mem::take(&mut self.calls) {
            match whole_call(index, call) {
                Ok(chunk) => self.ready.push_back(Ok(chunk)),
                Err(invalid) if reason == FinishReason::Length => {
                    tracing::warn!(?invalid, "dropped a tool call cut off at the output limit");
                }
                Err(invalid) => self.ready.push_back(Ok(invalid)),
            }
        }
        self.ready.push_back(Ok(LlmChunk::Finished {
            reason,
            usage: self.usage,
        }));
    }
}

/// A call ready to run, or why it cannot be (as an [`LlmChunk::InvalidToolCall`]).
fn whole_call(index: u32, call: PartialCall) -> Result<LlmChunk, LlmChunk> {
    let id = call
        .id
        .clone()
        .unwrap_or_else(|| format!("call_{}", uuid::Uuid::new_v4().simple()));
    let invalid = |problem: String| LlmChunk::InvalidToolCall {
        id: id.clone(),
        name: call.name.clone(),
        arguments: shorten(&call.arguments),
        problem,
    };
    if call.name.is_empty() {
        return Err(invalid(format!("tool call {index} has no function name")));
    }
    let text = call.arguments.trim();
    let arguments = if text.is_empty() {
        Value::Object(Default::default())
    } else {
        serde_json::from_str::<Value>(text)
            .map_err(|error| invalid(format!("the arguments are not valid JSON: {error}")))?
    };
    let arguments = match arguments {
        Value::Null => Value::Object(Default::default()),
        object @ Value::Object(_) => object,
        _ => {
            return Err(invalid("the arguments are not a JSON object".to_owned()));
        }
    };
    Ok(LlmChunk::ToolCall {
        id,
        name: call.name,
        arguments,
    })
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::*;

    fn decoder() -> Decoder {
        Decoder::default()
    }

    fn chunk(json: Value) -> StreamChunk {
        serde_json::from_value(json).unwrap()
    }

    #[test]
    fn tool_call_deltas_without_index_are_assembled_by_id() {
        let mut decoder = decoder();
        decoder.accept(chunk(json!({"choices": [{"delta": {"tool_calls": [
            {"id": "a", "function": {"name": "f", "arguments": "{\"x\":"}}]}}]})));
        decoder.accept(chunk(json!({"choices": [{"delta": {"tool_calls": [
            {"function": {"arguments": "1}"}}]}}]})));
        decoder.accept(chunk(json!({"choices": [{"delta": {"tool_calls": [
            {"id": "b", "function": {"name": "g", "arguments": {"y": 2}}}]}, "finish_reason": "eos"}]})));
        decoder.finish();
        let chunks: Vec<LlmChunk> = decoder.ready.into_iter().map(Result::unwrap).collect();
        assert_eq!(
            chunks,
            vec![
                LlmChunk::ToolCall {
                    id: "a".into(),
                    name: "f".into(),
                    arguments: json!({"x": 1})
                },
                LlmChunk::ToolCall {
                    id: "b".into(),
                    name: "g".into(),
                    arguments: json!({"y": 2})
                },
                LlmChunk::Finished {
                    reason: FinishReason::Stop,
                    usage: None
                },
            ]
        );
    }

    #[test]
    fn empty_arguments_are_an_empty_object_and_a_missing_id_is_made_up() {
        let mut decoder = decoder();
        decoder.accept(chunk(
            json!({"choices": [{"index": 0, "delta": {"tool_calls": [
            {"index": 0, "function": {"name": "now", "arguments": ""}}]}}]}),
        ));
        decoder.finish();
        match decoder.ready.pop_front() {
            Some(Ok(LlmChunk::ToolCall {
                id,
                name,
                arguments,
            })) => {
                assert!(id.starts_with("call_"));
                assert_eq!(name, "now");
                assert_eq!(arguments, json!({}));
            }
            other => panic!("expected a tool call, got {other:?}"),
        }
    }

    #[test]
    fn a_call_cut_off_at_the_limit_is_dropped_and_complete_ones_kept() {
        let mut decoder = decoder();
        decoder.accept(chunk(
            json!({"choices": [{"index": 0, "delta": {"tool_calls": [
            {"index": 0, "id": "a", "function": {"name": "f", "arguments": "{\"q\": 1}"}},
            {"index": 1, "id": "b", "function": {"name": "f", "arguments": "{\"q\": \"ab"}}]},
            "finish_reason": "length"}]}),
        ));
        decoder.accept(chunk(
            json!({"choices": [], "usage": {"prompt_tokens": 10, "completion_tokens": 5}}),
        ));
        decoder.finish();
        let chunks: Vec<LlmChunk> = decoder.ready.into_iter().map(Result::unwrap).collect();
        assert_eq!(
            chunks,
            vec![
                LlmChunk::ToolCall {
                    id: "a".into(),
                    name: "f".into(),
                    arguments: json!({"q": 1})
                },
                LlmChunk::Finished {
                    reason: FinishReason::Length,
                    usage: Some(Usage {
                        prompt_tokens: 10,
                        completion_tokens: 5
                    })
                },
            ]
        );
    }

    #[test]
    fn a_malformed_call_is_handed_on_as_invalid_beside_the_good_one() {
        let mut decoder = decoder();
        decoder.accept(chunk(
            json!({"choices": [{"index": 0, "delta": {"tool_calls": [
            {"index": 0, "id": "a", "function": {"name": "f", "arguments": "{\"q\": 1}"}},
            {"index": 1, "id": "b", "function": {"name": "g", "arguments": "{q: 1}"}},
            {"index": 2, "id": "c", "function": {"arguments": "{}"}},
            {"index": 3, "id": "d", "function": {"name": "h", "arguments": "[1]"}}]},
            "finish_reason": "tool_calls"}]}),
        ));
        decoder.finish();
        let chunks: Vec<LlmChunk> = decoder.ready.into_iter().map(Result::unwrap).collect();
        assert!(matches!(&chunks[0], LlmChunk::ToolCall { id, .. } if id == "a"));
        for (chunk, (id, problem)) in chunks[1..4].iter().zip([
            ("b", "not valid JSON"),
            ("c", "no function name"),
            ("d", "not a JSON object"),
        ]) {
            match chunk {
                LlmChunk::InvalidToolCall {
                    id: got,
                    problem: p,
                    ..
                } => {
                    assert_eq!(got, id);
                    assert!(p.contains(problem), "{p}");
                }
                other => panic!("expected an invalid call, got {other:?}"),
            }
        }
        assert!(matches!(
            chunks[4],
            LlmChunk::Finished {
                reason: FinishReason::ToolCalls,
                ..
            }
        ));
    }

    #[test]
    fn an_error_object_in_the_stream_is_an_error() {
        let mut decoder = decoder();
        decoder.accept(chunk(
            json!({"error": {"message": "overloaded", "code": 503}}),
        ));
        assert!(matches!(
            decoder.ready.pop_front(),
            Some(Err(LlmError::Status { status: 503, .. }))
        ));
    }
}
