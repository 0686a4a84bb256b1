//! The HAI screen: server-rendered, then hydrated in the browser.

mod components;
pub mod connection;
pub mod i18n;
pub mod markdown;
pub mod state;

use leptos::prelude::*;
use leptos_meta::{MetaTags, Stylesheet, Title, provide_meta_context};

use components::{chat_view::ChatView, composer::Composer, header::Header};
use connection::Connection;

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
                <HydrationScripts options />
                <MetaTags />
            </head>
            <body class="h-full bg-slate-50 text-slate-900 dark:bg-slate-950 dark:text-slate-100">
                <App />
            </body>
        </html>
    }
}

#[component]
pub fn App() -> impl IntoView {
    provide_meta_context();
    let connection = Connection::provide();
    let draft = RwSignal::new(String::new());

    // Tests and scripts wait for this mark: a click before hydration would be lost.
    Effect::new(move |_| {
        if let Some(root) = document().document_element() {
            let _ = root.set_attribute("data-hydrated", "true");
        }
    });

    view! {
        <Stylesheet id="leptos" href="/pkg/agora-hai.css" />
        <Title text="AGORA HAI" />
        <div class="flex h-dvh flex-col">
            <Header status=connection.status.into() />
            <main class="mx-auto flex w-full max-w-3xl flex-1 flex-col overflow-hidden">
                <ChatView />
                <Composer draft on_send=move |text: String| connection.send_text(text) />
            </main>
        </div>
    }
}
