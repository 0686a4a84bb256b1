//! One component per file. The frame of the page (header, thread list, conversation, status
//! line, composer) is Leptos components rendered on the server; each file also has the
//! frame's `bind()` for the browser: its listeners, and effects that set exactly the
//! attributes and texts that follow a signal. The browser does not re-walk the frame with
//! `view!` code: every `view!` element and reactive closure is its own generic
//! instantiation, and the frame's hydration code alone was 55 KB of gzipped wasm, a third of
//! the 150 KB budget (measured). What exists only in the browser (the conversation's items,
//! the threads, the panel, the dialog) is drawn by the plain builders with `ui::dom`.

pub mod chat_view;
pub mod composer;
pub mod connection_badge;
pub mod header;
pub mod language_switch;
pub mod sidebar;
pub mod status_line;
pub mod theme_switch;
pub mod user_badge;

// Browser only: the panel, the dialog and the builders.
#[cfg(feature = "hydrate")]
pub mod agent_list;
#[cfg(feature = "hydrate")]
pub mod approval_dialog;
#[cfg(feature = "hydrate")]
pub mod assistant_message;
#[cfg(feature = "hydrate")]
pub mod error_notice;
#[cfg(feature = "hydrate")]
pub mod event_log_view;
#[cfg(feature = "hydrate")]
pub mod hood_panel;
#[cfg(feature = "hydrate")]
pub mod markdown_view;
#[cfg(feature = "hydrate")]
pub mod report_card;
#[cfg(feature = "hydrate")]
pub mod risk_badge;
#[cfg(feature = "hydrate")]
pub mod thread_item;
#[cfg(feature = "hydrate")]
pub mod tool_card;
#[cfg(feature = "hydrate")]
pub mod tool_chips;
#[cfg(feature = "hydrate")]
pub mod tool_log;
#[cfg(feature = "hydrate")]
pub mod user_bubble;
