//! One component per file, each rendered on the server and hydrated in the browser.
//!
//! The frame: `header` (with `user_badge`, `connection_badge`, `listen_switch`,
//! `speaker_switch`, `language_switch`, `theme_switch`), `connection_banner`, `sidebar`
//! (`thread_item`), `chat_view` (`conversation_item`: `user_bubble`, `assistant_message`,
//! `tool_row`, `report_card` (`report_mail`), `error_notice`), `quick_answers`, `status_line`,
//! `composer` (`photo_picker`, `push_to_talk`).
//! Over it: `hood_panel` (`agent_list`, `tool_log`, `event_log_view`) and `approval_dialog`
//! (`risk_badge`). Shared: `tool_details`, `close_button`.

pub mod agent_list;
pub mod approval_details;
pub mod approval_dialog;
pub mod assistant_message;
pub mod chat_view;
pub mod close_button;
pub mod composer;
pub mod connection_badge;
pub mod connection_banner;
pub mod conversation_item;
pub mod error_notice;
pub mod event_log_view;
pub mod header;
pub mod hood_panel;
pub mod language_switch;
pub mod listen_switch;
#[cfg(feature = "hydrate")]
pub mod markdown_view;
pub mod photo_link;
pub mod photo_picker;
pub mod push_to_talk;
pub mod quick_answers;
pub mod report_card;
pub mod report_mail;
pub mod risk_badge;
pub mod sidebar;
pub mod speaker_switch;
pub mod status_line;
pub mod theme_switch;
pub mod thread_item;
pub mod tool_details;
pub mod tool_log;
pub mod tool_row;
pub mod user_badge;
pub mod user_bubble;
