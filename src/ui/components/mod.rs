pub mod chat_view;
pub mod composer;
pub mod connection_badge;
pub mod header;
