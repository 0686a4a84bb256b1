//! Keeps the conversation scrolled to the newest text while the inspector is at the bottom
//! (hydrate only). At most one scroll per animation frame, however many deltas arrive: a
//! scroll reads the layout, which must not happen per delta.

use std::cell::Cell;

use leptos::prelude::request_animation_frame;
use wasm_bindgen::JsCast;

/// The id of the scrolling element of the conversation.
pub const CHAT_SCROLL_ID: &str = "chat-scroll";

thread_local! {
    static PENDING: Cell<bool> = const { Cell::new(false) };
    static STICK: Cell<bool> = const { Cell::new(true) };
}

fn element() -> Option<web_sys::HtmlElement> {
    web_sys::window()?
        .document()?
        .get_element_by_id(CHAT_SCROLL_ID)?
        .dyn_into()
        .ok()
}

/// Something was added: scroll down on the next frame if the reader was at the bottom.
pub fn follow() {
    if PENDING.get() || !STICK.get() {
        return;
    }
    PENDING.set(true);
    request_animation_frame(|| {
        PENDING.set(false);
        if let Some(el) = element() {
            el.set_scroll_top(el.scroll_height());
        }
    });
}

/// The reader scrolled: follow new text only when near the bottom.
pub fn scrolled() {
    if let Some(el) = element() {
        let gap = el.scroll_height() - el.scroll_top() - el.client_height();
        STICK.set(gap < 80);
    }
}

/// Back to the bottom (a new message was sent, a thread opened).
pub fn to_bottom() {
    STICK.set(true);
    follow();
}
