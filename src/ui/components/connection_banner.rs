use leptos::prelude::*;

use crate::ui::connection::{Connection, ConnectionStatus};
use crate::ui::i18n::Key;
use crate::ui::prefs::Prefs;

/// A banner over the conversation while there is no connection: what is wrong and that
/// messages wait (they are queued and go by themselves), in words, not only a header pill.
/// The session ended (4001) says to sign in again.
#[component]
pub fn ConnectionBanner() -> impl IntoView {
    let prefs = expect_context::<Prefs>();
    let connection = expect_context::<Connection>();
    let message = move || match connection.status.get() {
        ConnectionStatus::Offline => Some(Key::OfflineBanner),
        ConnectionStatus::Reconnecting => Some(Key::ReconnectingBanner),
        ConnectionStatus::Failed => Some(Key::FailedBanner),
        ConnectionStatus::Connecting | ConnectionStatus::Connected => None,
    };
    // A class toggle rather than `<Show>`: less code in the bundle for one line of text.
    view! {
        <div
            role="alert"
            class=move || match connection.status.get() {
                ConnectionStatus::Connecting | ConnectionStatus::Connected => "hidden",
                ConnectionStatus::Failed => {
                    "border-b border-red-300 bg-red-50 px-4 py-2 text-sm font-medium text-red-900 dark:border-red-800 dark:bg-red-950 dark:text-red-100"
                }
                ConnectionStatus::Offline | ConnectionStatus::Reconnecting => {
                    "border-b border-amber-300 bg-amber-50 px-4 py-2 text-sm font-medium text-amber-950 dark:border-amber-700 dark:bg-amber-950 dark:text-amber-50"
                }
            }
        >
            {Signal::derive(move || message().map_or("", |key| prefs.t(key)))}
        </div>
    }
}
