//! The HAI screen: server-rendered, then hydrated in the browser.
//!
//! - `state`: the pure reducer (`ChatState::apply`) and the raw event log; tested natively.
//! - `chat`: the signal layer over it; `timeline`: the conversation's DOM, where a delta
//!   touches only its own message.
//! - `wire`: frames to events and back; `connection`: the WebSocket client (browser only);
//!   `api`: the REST calls.
//! - `components`: one component (or browser-side builder) per file; `dom`: their helpers.

pub mod api;
#[cfg(feature = "hydrate")]
mod browser;
pub mod chat;
mod components;
pub mod connection;
#[cfg(feature = "hydrate")]
mod dom;
pub mod i18n;
pub mod markdown;
pub mod prefs;
pub mod present;
#[cfg(feature = "hydrate")]
mod scroll;
pub mod state;
#[cfg(feature = "hydrate")]
mod timeline;
pub mod wire;

use leptos::prelude::*;

use api::{Directory, Sessions};
use chat::Chat;
use components::{
    approval_dialog::ApprovalDialog, chat_view::ChatView, composer::Composer, header::Header,
    hood_panel::HoodPanel, sidebar::Sidebar, status_line::StatusLine,
};
use connection::Connection;
use prefs::{Prefs, THEME_SCRIPT};

/// The HTML document around the app, rendered on the server only.
pub fn shell(options: LeptosOptions) -> impl IntoView {
    view! {
        <!DOCTYPE html>
        <html lang="nl">
            <head>
                <meta charset="utf-8" />
                <meta name="viewport" content="width=device-width, initial-scale=1" />
                <meta name="description" content="AGORA HAI — inspecteurs werken samen met AI-agents" />
                <link rel="icon" href="/favicon.ico" />
                // A constant (no user or model text): the stored theme before the first paint.
                <script nonce=leptos::nonce::use_nonce() inner_html=THEME_SCRIPT></script>
                <title>"AGORA HAI"</title>
                <link rel="stylesheet" id="leptos" href="/pkg/agora-hai.css" />
                <HydrationScripts options />
            </head>
            <body class="h-full bg-slate-50 text-slate-900 dark:bg-slate-950 dark:text-slate-100">
                <App />
            </body>
        </html>
    }
}

#[component]
pub fn App() -> impl IntoView {
    Prefs::provide();
    let chat = Chat::new();
    provide_context(chat);
    let connection = Connection::provide(chat);
    Directory::provide();
    Sessions::provide();
    let draft = RwSignal::new(String::new());
    let dialog_open = move || chat.approvals.with(|a| !a.is_empty());

    // Tests and scripts wait for this mark: a click before hydration would be lost.
    Effect::new(move |_| {
        if let Some(root) = document().document_element() {
            let _ = root.set_attribute("data-hydrated", "true");
        }
    });

    let send = Callback::new(move |text: String| {
        connection.send_text(text);
        #[cfg(feature = "hydrate")]
        scroll::to_bottom();
    });
    view! {
        <div class="flex h-dvh flex-col" inert=dialog_open>
            <Header />
            <div class="relative flex min-h-0 flex-1">
                <Sidebar />
                <main class="flex min-w-0 flex-1 flex-col">
                    <ChatView />
                    <StatusLine />
                    <Composer
                        draft
                        running=Signal::derive(move || chat.run.with(|run| run.running))
                        on_send=send
                        on_stop=Callback::new(move |()| connection.stop())
                    />
                </main>
                <HoodPanel />
            </div>
        </div>
        <ApprovalDialog />
    }
}
