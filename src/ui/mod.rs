//! The HAI screen: one tree of Leptos components, rendered on the server and hydrated in
//! the browser (`hydrate()` in lib.rs).
//!
//! - `state`: the pure reducer (`ChatState::apply`) and the raw event log; tested natively.
//! - `chat`: the signal layer over it; `connection`: the WebSocket client (browser only);
//!   `api`: the REST calls; `prefs`: language, theme and panels; `i18n`: every text;
//!   `present` and `details`: how tool calls and approvals read (pure).
//! - `components`: one component per file; `markdown` (pure), `dom` (its renderer's few
//!   helpers) and `stream` (the streaming body) draw an answer's body, the one imperative
//!   part (see `assistant_message`).

pub mod api;
#[cfg(feature = "hydrate")]
mod browser;
pub mod chat;
mod components;
pub mod connection;
pub mod css;
pub mod details;
pub mod dictation;
#[cfg(feature = "hydrate")]
mod dom;
pub mod exif_time;
pub mod i18n;
pub mod markdown;
pub mod offline;
#[cfg(feature = "hydrate")]
mod photo_store;
pub mod prefs;
pub mod present;
#[cfg(feature = "hydrate")]
mod recorder;
#[cfg(feature = "hydrate")]
mod scroll;
#[cfg(feature = "hydrate")]
mod speech;
pub mod state;
#[cfg(feature = "hydrate")]
mod stream;

use leptos::prelude::*;

use api::{Directory, Sessions};
use chat::Chat;
use connection::Connection;
use i18n::Key;
use prefs::{Prefs, THEME_SCRIPT};

/// The HTML document around the app, rendered on the server only.
pub fn shell(options: LeptosOptions) -> impl IntoView {
    #[cfg(feature = "ssr")]
    let lang = prefs::page_lang();
    #[cfg(not(feature = "ssr"))]
    let lang = i18n::Lang::Nl;
    view! {
        <!DOCTYPE html>
        <html lang=lang.code()>
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

/// The app: its state for the page's lifetime, and the screen. The frame is the same at
/// every address; the address names the open thread (`/t/{threadId}`), so a link opens it,
/// back and forward move between threads and a reload keeps it.
///
/// The address is kept with the History API (in `Screen`), not `leptos_router`: one page
/// with a thread in its path needs no route table, and the router cost 40 KB of
/// Brotli-compressed wasm (12 KB for `<Router>` and its hooks, 28 KB more for `<Routes>`,
/// measured). The server serves `/` and `/t/{id}` with this same app.
#[component]
pub fn App() -> impl IntoView {
    Prefs::provide();
    let chat = Chat::new();
    provide_context(chat);
    let directory = Directory::provide();
    Connection::provide(chat, directory.user);
    Sessions::provide();
    // Tests and scripts wait for this mark: a click before hydration would be lost.
    #[cfg(feature = "hydrate")]
    Effect::new(move || {
        if let Some(root) = document().document_element() {
            let _ = root.set_attribute("data-hydrated", "true");
        }
    });
    view! { <Screen /> }
}

/// The frame, `inert` while an approval waits (the dialog has the focus), and the dialog.
#[component]
fn Screen() -> impl IntoView {
    use components::{
        approval_dialog::ApprovalDialog, chat_view::ChatView, composer::Composer,
        connection_banner::ConnectionBanner, header::Header, hood_panel::HoodPanel,
        sidebar::Sidebar, status_line::StatusLine,
    };
    let prefs = expect_context::<Prefs>();

    let chat = expect_context::<Chat>();
    #[cfg(feature = "hydrate")]
    {
        let connection = expect_context::<Connection>();
        let address = || window().location().pathname().unwrap_or_default();
        // Back and forward: the address names another thread, open it.
        let _ = window_event_listener(leptos::ev::popstate, move |_| {
            if let Some(thread) = connection::thread_in_path(&address()) {
                connection.open_thread(thread);
            }
        });
        // The open thread is the address: another thread is a new history entry; the bare
        // `/` is replaced by the thread it opened.
        Effect::new(move || {
            let thread = chat.thread_id.get();
            if thread.is_empty() {
                return;
            }
            let path = connection::thread_path(&thread);
            let current = address();
            if current == path {
                return;
            }
            if let Ok(history) = window().history() {
                let none = wasm_bindgen::JsValue::NULL;
                let _ = if connection::thread_in_path(&current).is_none() {
                    history.replace_state_with_url(&none, "", Some(&path))
                } else {
                    history.push_state_with_url(&none, "", Some(&path))
                };
            }
        });
    }
    view! {
        <div
            class="flex h-dvh flex-col"
            inert=move || !chat.approvals.with(Vec::is_empty)
        >
            // The first stop of the Tab key: straight to the message box.
            <a
                href="#composer"
                class="sr-only rounded bg-white px-3 py-2 font-medium text-emerald-900 focus:not-sr-only focus:absolute focus:top-2 focus:left-2 focus:z-50 dark:bg-slate-900 dark:text-emerald-200"
            >
                {prefs.text(Key::SkipToMessage)}
            </a>
            <Header />
            <ConnectionBanner />
            <div class="relative flex min-h-0 flex-1">
                <Sidebar />
                <main class="flex min-w-0 flex-1 flex-col">
                    <ChatView />
                    <StatusLine />
                    <Composer />
                </main>
                <HoodPanel />
            </div>
        </div>
        <ApprovalDialog />
    }
}
