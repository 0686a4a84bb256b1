//! [`apply_patch`] (the `STATE_DELTA` path of the UI and the server) on structured input.
//!
//! `arbitrary` builds a small document and a list of RFC 6902 operations whose pointers are
//! drawn from a few keys (`a`, `b`, `0`, `1`, `-`, the empty key, escapes), so paths hit
//! existing members and array ends far more often than random bytes would. The operations go
//! through serde like a `STATE_DELTA` on the wire. Checked:
//!
//! - no panic, whatever the document and operations;
//! - all or nothing: a rejected patch leaves the state exactly as it was;
//! - an accepted patch equals applying its operations one by one, and a rejected one fails
//!   at some operation when applied one by one;
//! - the operations survive a serde round trip.
//!
//! Values deeper than 32 levels become `null` and only the first 8 operations are used; see
//! [`MAX_DEPTH`] and [`MAX_OPS`].

#![no_main]

use agora_hai::protocol::{PatchOperation, apply_patch};
use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use serde_json::{Map, Value, json};

#[derive(Debug, Arbitrary)]
struct Input {
    doc: Json,
    ops: Vec<Op>,
}

#[derive(Debug, Arbitrary)]
enum Json {
    Null,
    Bool(bool),
    Int(i8),
    Float(f32),
    Str(Key),
    Array(Vec<Json>),
    Object(Vec<(Key, Json)>),
}

/// A member name or array index.
#[derive(Debug, Arbitrary)]
enum Key {
    A,
    B,
    Zero,
    One,
    Two,
    /// The end of an array.
    Dash,
    Empty,
    /// Needs escaping in a pointer: `~0` and `~1`.
    Tilde,
    Slash,
    /// A leading zero, which RFC 6901 forbids as an index.
    LeadingZero,
    Other(String),
}

/// A JSON Pointer built from keys, or any string.
#[derive(Debug, Arbitrary)]
enum Pointer {
    Keys(Vec<Key>),
    Raw(String),
}

#[derive(Debug, Arbitrary)]
enum Op {
    Add(Pointer, Json),
    Remove(Pointer),
    Replace(Pointer, Json),
    Move(Pointer, Pointer),
    Copy(Pointer, Pointer),
    Test(Pointer, Json),
}

impl Key {
    fn as_str(&self) -> &str {
        match self {
            Key::A => "a",
            Key::B => "b",
            Key::Zero => "0",
            Key::One => "1",
            Key::Two => "2",
            Key::Dash => "-",
            Key::Empty => "",
            Key::Tilde => "~",
            Key::Slash => "/",
            Key::LeadingZero => "01",
            Key::Other(s) => s,
        }
    }
}

/// Deeper values become `null`: on the wire serde_json refuses more than 128 levels, so a
/// deeper operation could not arrive (and would not parse back for the round-trip check).
const MAX_DEPTH: usize = 32;

/// More operations are dropped: each `copy` of the root into itself doubles the document
/// (as RFC 6902 says), so a long list only measures memory.
const MAX_OPS: usize = 8;

impl Json {
    fn to_value(&self) -> Value {
        self.to_value_at(0)
    }

    fn to_value_at(&self, depth: usize) -> Value {
        let inner = |json: &Json| json.to_value_at(depth + 1);
        match self {
            _ if depth >= MAX_DEPTH => Value::Null,
            Json::Null => Value::Null,
            Json::Bool(b) => Value::Bool(*b),
            Json::Int(i) => json!(i),
            // Not finite: no JSON number, so null, as serde_json would write it.
            Json::Float(f) => {
                serde_json::Number::from_f64(f64::from(*f)).map_or(Value::Null, Value::Number)
            }
            Json::Str(k) => Value::String(k.as_str().to_owned()),
            Json::Array(items) => Value::Array(items.iter().map(inner).collect()),
            Json::Object(members) => Value::Object(
                members
                    .iter()
                    .map(|(k, v)| (k.as_str().to_owned(), inner(v)))
                    .collect::<Map<_, _>>(),
            ),
        }
    }
}

impl Pointer {
    fn render(&self) -> String {
        match self {
            Pointer::Keys(keys) => keys
                .iter()
                .map(|k| format!("/{}", k.as_str().replace('~', "~0").replace('/', "~1")))
                .collect(),
            Pointer::Raw(s) => s.clone(),
        }
    }
}

impl Op {
    /// The operation as it travels in a `STATE_DELTA`.
    fn to_value(&self) -> Value {
        match self {
            Op::Add(p, v) => json!({"op": "add", "path": p.render(), "value": v.to_value()}),
            Op::Remove(p) => json!({"op": "remove", "path": p.render()}),
            Op::Replace(p, v) => {
                json!({"op": "replace", "path": p.render(), "value": v.to_value()})
            }
            Op::Move(from, p) => {
                json!({"op": "move", "from": from.render(), "path": p.render()})
            }
            Op::Copy(from, p) => {
                json!({"op": "copy", "from": from.render(), "path": p.render()})
            }
            Op::Test(p, v) => json!({"op": "test", "path": p.render(), "value": v.to_value()}),
        }
    }
}

fuzz_target!(|input: Input| {
    // A raw pointer that is not one (no leading `/`) fails here, as on the wire; skip those ops.
    let ops: Vec<PatchOperation> = input
        .ops
        .iter()
        .take(MAX_OPS)
        .filter_map(|op| serde_json::from_value(op.to_value()).ok())
        .collect();

    let wire = serde_json::to_string(&ops).expect("patch operations serialise");
    let again: Vec<PatchOperation> = serde_json::from_str(&wire).expect("operations parse back");
    assert_eq!(again, ops, "operations changed in a round trip\n{wire}");

    let original = input.doc.to_value();
    let mut state = original.clone();
    let whole = apply_patch(&mut state, &ops);

    let mut stepwise = original.clone();
    let stepwise_ok = ops
        .iter()
        .all(|op| apply_patch(&mut stepwise, std::slice::from_ref(op)).is_ok());

    match whole {
        Ok(()) => {
            assert!(
                stepwise_ok,
                "the patch applies whole but not one op at a time"
            );
            assert_eq!(state, stepwise, "whole and one-at-a-time results differ");
        }
        Err(_) => {
            assert_eq!(state, original, "a rejected patch changed the state");
            assert!(
                !stepwise_ok,
                "the patch fails whole but every op applies alone"
            );
        }
    }
});
