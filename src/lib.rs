//! AGORA HAI: the Human Agent Interface and its orchestrator, one crate for browser and server.
//!
//! Layers point down only: `ui` and `orchestrator` use `protocol`; `server` uses `orchestrator`.

// Leptos views are nested generic types; the release build's layout queries go deeper than
// rustc's default of 128 (the usual setting for Leptos apps).
#![recursion_limit = "256"]

pub mod protocol;
pub mod ui;

#[cfg(feature = "ssr")]
pub mod orchestrator;
#[cfg(feature = "ssr")]
pub mod server;

/// Entry point of the wasm bundle: takes over the server-rendered page.
#[cfg(feature = "hydrate")]
#[wasm_bindgen::prelude::wasm_bindgen]
pub fn hydrate() {
    // Release bundles abort on a panic without a message (see the Makefile's build target).
    #[cfg(debug_assertions)]
    console_error_panic_hook::set_once();
    leptos::mount::hydrate_body(ui::App);
}
