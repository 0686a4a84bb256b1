//! AGORA HAI: the Human Agent Interface and its orchestrator, one crate for browser and server.
//!
//! Layers point down only: `ui` and `orchestrator` use `protocol`; `server` uses `orchestrator`.

// Leptos views are nested generic types; the release build's layout queries go deeper than
// rustc's default of 128 (the usual setting for Leptos apps).
#![recursion_limit = "256"]

pub mod protocol;
pub mod ui;

#[cfg(feature = "ssr")]
pub mod clock;
#[cfg(feature = "ssr")]
pub mod orchestrator;
#[cfg(feature = "ssr")]
pub mod server;

/// Entry point of the wasm bundle: takes over the server-rendered page.
#[cfg(feature = "hydrate")]
#[wasm_bindgen::prelude::wasm_bindgen]
pub fn hydrate() {
    // A panic is reported on the console in every build: debug builds with its message and
    // place; release builds, built without panic messages for size (the Makefile's build
    // target), with one line that says what happened and what to do.
    #[cfg(debug_assertions)]
    console_error_panic_hook::set_once();
    #[cfg(not(debug_assertions))]
    std::panic::set_hook(Box::new(|_| {
        web_sys::console::error_1(
            &"AGORA HAI stopped on an internal error (a panic in the page). Reload the page."
                .into(),
        );
    }));
    leptos::mount::hydrate_body(ui::App);
}
