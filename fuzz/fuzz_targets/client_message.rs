//! What a client can put in a `/ws` text frame, and what the server sends back.
//!
//! The input is read as UTF-8 (invalid bytes become U+FFFD, so no mutation is wasted) and
//! split on `\n` into messages; a single line is exactly one `/ws` frame. Each message is:
//!
//! - parsed as [`ClientMessage`]; when that succeeds it must serialise, parse back and compare
//!   equal, and a `CUSTOM` one goes through [`AgoraEvent::from_custom`], whose typed result
//!   must survive `into_custom` and `from_custom` again;
//! - parsed as a server→client [`Event`] (and by the browser's hand reader, which must agree on
//!   its kind), which must round-trip the same way, and pushed into
//!   a [`Verifier`] of each [`Dialect`] (one verifier for the whole input, so several lines
//!   make a stream), whose violations must name the event that caused them;
//! - when it is a `STATE_SNAPSHOT` or `STATE_DELTA`, applied to a running state with
//!   [`apply_patch`], which must leave the state untouched when it fails.
//!
//! A multi-line input is also tried as one message, as a frame may hold pretty-printed JSON.
//! Errors are fine; panics, aborts, hangs and failed assertions are what the target looks for.

#![no_main]

use agora_hai::protocol::{
    AgoraEvent, ClientMessage, Custom, Dialect, Event, Verifier, Violation, apply_patch, wire,
};
use libfuzzer_sys::fuzz_target;
use serde_json::Value;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let mut stream = Stream::new();
    let mut lines = 0;
    for line in text.split('\n') {
        lines += 1;
        client_message(line);
        if let Some(event) = event(line) {
            stream.push(&event);
        }
    }
    stream.finish();
    if lines > 1 {
        client_message(&text);
        event(&text);
    }
});

/// The inbound parser: a `RunAgentInput` without `type`, or a `CUSTOM` event.
fn client_message(json: &str) {
    let Ok(message) = serde_json::from_str::<ClientMessage>(json) else {
        return;
    };
    let wire = serde_json::to_string(&message).expect("a parsed ClientMessage serialises");
    let again = serde_json::from_str::<ClientMessage>(&wire)
        .unwrap_or_else(|e| panic!("ClientMessage does not parse back: {e}\n{wire}"));
    assert_eq!(
        again, message,
        "ClientMessage changed in a round trip\n{wire}"
    );
    if let ClientMessage::Custom(custom) = &message {
        agora_event(custom);
    }
}

/// The typed `agora:*` payload of a `CUSTOM` event.
fn agora_event(custom: &Custom) {
    let Some(Ok(parsed)) = AgoraEvent::from_custom(&custom.name, &custom.value) else {
        return;
    };
    let back = parsed.clone().into_custom();
    assert_eq!(back.name, custom.name, "into_custom changed the name");
    let again = AgoraEvent::from_custom(&back.name, &back.value)
        .expect("into_custom gives an AGORA name")
        .unwrap_or_else(|e| panic!("AgoraEvent does not parse back: {e}\n{}", back.value));
    assert_eq!(
        again, parsed,
        "AgoraEvent changed in a round trip\n{}",
        back.value
    );
}

/// The server→client parser; returns the event for the stream checks. The browser's hand
/// reader ([`wire::decode_event`]) must not panic, and must read a kind serde knows as that
/// kind, never as `Unknown`.
fn event(json: &str) -> Option<Event> {
    let ours = wire::decode_event(json);
    let event = serde_json::from_str::<Event>(json).ok()?;
    if let Ok(ours) = &ours
        && !matches!(event, Event::Unknown(_))
    {
        assert!(
            !matches!(ours, Event::Unknown(_)),
            "the hand reader does not know {}",
            event.kind()
        );
        assert_eq!(ours.kind(), event.kind(), "the hand reader read another kind");
    }
    let wire = serde_json::to_string(&event).expect("a parsed Event serialises");
    let again = serde_json::from_str::<Event>(&wire)
        .unwrap_or_else(|e| panic!("Event does not parse back: {e}\n{wire}"));
    assert_eq!(again, event, "Event changed in a round trip\n{wire}");
    assert_eq!(again.kind(), event.kind());
    if let Event::Custom(custom) = &event {
        agora_event(custom);
    }
    Some(event)
}

/// One input's events as a stream: both verifiers and the shared state.
struct Stream {
    index: usize,
    agora: Verifier,
    standard: Verifier,
    state: Value,
}

impl Stream {
    fn new() -> Self {
        Stream {
            index: 0,
            agora: Verifier::new(Dialect::Agora),
            standard: Verifier::new(Dialect::Standard),
            state: Value::Null,
        }
    }

    fn push(&mut self, event: &Event) {
        for verifier in [&mut self.agora, &mut self.standard] {
            for violation in verifier.push(event) {
                check(&violation, self.index);
            }
        }
        match event {
            Event::StateSnapshot(snapshot) => self.state = snapshot.snapshot.clone(),
            Event::StateDelta(delta) => {
                let before = self.state.clone();
                if apply_patch(&mut self.state, &delta.delta).is_err() {
                    assert_eq!(
                        self.state, before,
                        "a rejected STATE_DELTA changed the state"
                    );
                }
            }
            _ => {}
        }
        self.index += 1;
    }

    fn finish(self) {
        let events = self.index;
        if let Some(violation) = self.agora.finish() {
            check(&violation, events);
        }
        if let Some(violation) = self.standard.finish() {
            check(&violation, events);
        }
    }
}

/// A violation names the event that caused it (for `finish`, the number of events).
fn check(violation: &Violation, index: usize) {
    assert_eq!(
        violation.index, index,
        "violation at the wrong event: {violation}"
    );
    assert!(!violation.message.is_empty(), "violation without a message");
    assert!(!violation.to_string().is_empty());
    assert!(!violation.rule.description().is_empty());
}
