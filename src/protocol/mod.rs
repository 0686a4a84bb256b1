//! AG-UI and AGORA wire types, the sequence verifier and JSON Patch state.
//! Pure data: serde only, so it builds for wasm32 (the UI) and natively (the server).
//!
//! - Server→client: [`Event`]; serialise with `serde_json::to_string`, build with
//!   constructors such as [`Event::run_started`] and stamp with [`Event::with_timestamp`].
//! - Client→server: [`ClientMessage`], a [`RunAgentInput`] or a `CUSTOM` event.
//! - AGORA's `agora:*` custom events: [`AgoraEvent`], converted from and to [`Custom`].
//! - The error codes a client can be sent, with their sentences: [`ErrorCode`]; the one
//!   language type: [`Lang`].
//! - Order rules: [`Verifier`] (incremental) and [`verify`], in two [`Dialect`]s.
//! - Shared state: [`apply_patch`] for `STATE_DELTA`.
//! - Tool names for people: [`tools::display_names`].
//! - The browser's hand reader and writer of the same frames (smaller than serde's): [`wire`].
//! - REST payloads the browser reads and writes: [`rest`].

pub mod agora;
mod client;
mod error;
mod events;
pub mod hap_terms;
mod input;
mod lang;
pub mod rest;
mod state;
pub mod tools;
mod verify;
pub mod wire;

pub use agora::{
    AgoraError, AgoraEvent, CancelRun, RiskLevel, SpokenTextContent, SpokenTextEnd,
    SpokenTextError, SpokenTextStart, ToolApprovalRequest, ToolApprovalResponse,
};
pub use client::ClientMessage;
pub use error::ErrorCode;
pub use events::{
    ActivityDelta, ActivitySnapshot, Custom, EncryptedSubtype, Event, EventBase, Interrupt,
    MessageChunk, MessageContent, MessageRef, MessageStart, MessagesSnapshot, Raw,
    ReasoningEncryptedValue, Role, RunError, RunFinished, RunOutcome, RunStarted, StateDelta,
    StateSnapshot, Step, SubagentError, SubagentFinished, SubagentOutcome, SubagentStarted,
    ToolCallArgs, ToolCallChunk, ToolCallEnd, ToolCallResult, ToolCallStart,
};
pub use input::{
    ActivityMessage, AssistantMessage, BasicMessage, BinaryPart, Context, ContextItem,
    FunctionCall, InputContent, MediaPart, MediaSource, Message, PHOTO_PATH, ResumeEntry,
    ResumeStatus, RunAgentInput, Source, TextPart, Tool, ToolCall, ToolMessage, UserContent,
    UserMessage, photo_id, photo_url, taken_at_stored,
};
/// RFC 6902 operations, as carried by `STATE_DELTA` and `ACTIVITY_DELTA`.
pub use json_patch::PatchOperation;
pub use lang::Lang;
pub use state::{StateError, apply_patch};
pub use verify::{Dialect, Rule, Verifier, Violation, verify};
