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
    /// Where the last scroll left the view: a smaller value later means the reader went up.
    static LAST_TOP: Cell<i32> = const { Cell::new(0) };
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
            LAST_TOP.set(el.scroll_top());
        }
    });
}

/// The view scrolled: back near the bottom, follow again; scrolled up by the reader, stop
/// following. (Content growing under a scroll of our own does not count as either.)
pub fn scrolled() {
    if let Some(el) = element() {
        let top = el.scroll_top();
        let gap = el.scroll_height() - top - el.client_height();
        if gap < 80 {
            STICK.set(true);
        } else if top < LAST_TOP.get() - 4 {
            STICK.set(false);
        }
        LAST_TOP.set(top);
    }
}

/// Back to the bottom (a new message was sent, a thread opened).
pub fn to_bottom() {
    STICK.set(true);
    follow();
}
