//! One component per file. The frame of the page (header, composer, status line, the hosts
//! of the conversation, the thread list, the panel and the dialog) is Leptos components with
//! small props, rendered on the server and hydrated. What exists only in the browser is drawn
//! by the plain builders marked "browser" below, with `ui::dom` (see there for why).

pub mod approval_dialog;
pub mod chat_view;
pub mod composer;
pub mod connection_badge;
pub mod header;
pub mod hood_panel;
pub mod language_switch;
pub mod sidebar;
pub mod status_line;
pub mod theme_switch;
pub mod user_badge;

// Browser: builders used by the components above.
#[cfg(feature = "hydrate")]
pub mod agent_list;
#[cfg(feature = "hydrate")]
pub mod assistant_message;
#[cfg(feature = "hydrate")]
pub mod error_notice;
#[cfg(feature = "hydrate")]
pub mod event_log_view;
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
