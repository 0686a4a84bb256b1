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

/// The screen. The server renders its frame with Leptos components; in the browser the same
/// component tree runs its state and its bindings: reactive signals fed by the AG-UI events,
/// each updating its own element of the frame (see `components` for why not `view!` there).
#[component]
pub fn App() -> impl IntoView {
    Prefs::provide();
    let chat = Chat::new();
    provide_context(chat);
    Connection::provide(chat);
    Directory::provide();
    Sessions::provide();
    #[cfg(feature = "hydrate")]
    {
        use components::{
            approval_dialog, chat_view, composer, header, hood_panel, sidebar, status_line,
        };
        header::bind();
        sidebar::bind();
        chat_view::bind();
        status_line::bind();
        composer::bind();
        hood_panel::bind();
        approval_dialog::bind();
        // Tests and scripts wait for this mark: a click before hydration would be lost.
        dom::effect(move || {
            if let Some(root) = document().document_element() {
                let _ = root.set_attribute("data-hydrated", "true");
            }
        });
    }
    #[cfg(not(feature = "hydrate"))]
    {
        use components::{
            chat_view::ChatView, composer::Composer, header::Header, sidebar::Sidebar,
            status_line::StatusLine,
        };
        view! {
            <div id="frame" class="flex h-dvh flex-col">
                <Header />
                <div id="workspace" class="relative flex min-h-0 flex-1">
                    <Sidebar />
                    <main class="flex min-w-0 flex-1 flex-col">
                        <ChatView />
                        <StatusLine />
                        <Composer />
                    </main>
                </div>
            </div>
        }
    }
}
