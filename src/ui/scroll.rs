//! Keeps the conversation scrolled to the newest text while the inspector is at the bottom
//! (hydrate only). At most one scroll per animation frame, however many deltas arrive: a
//! scroll reads the layout, which must not happen per delta.

use std::cell::{Cell, RefCell};

use leptos::prelude::request_animation_frame;

thread_local! {
    /// The conversation's scrolling element, given by `ChatView` when it is mounted.
    static ELEMENT: RefCell<Option<web_sys::HtmlElement>> = const { RefCell::new(None) };
    static PENDING: Cell<bool> = const { Cell::new(false) };
    static STICK: Cell<bool> = const { Cell::new(true) };
    /// Where the last scroll left the view: a smaller value later means the reader went up.
    static LAST_TOP: Cell<i32> = const { Cell::new(0) };
}

pub fn attach(element: web_sys::HtmlElement) {
    ELEMENT.set(Some(element));
}

fn with_element(f: impl FnOnce(&web_sys::HtmlElement)) {
    ELEMENT.with_borrow(|element| {
        if let Some(element) = element {
            f(element);
        }
    });
}

/// Something was added: scroll down on the next frame if the reader was at the bottom.
pub fn follow() {
    if PENDING.get() || !STICK.get() {
        return;
    }
    PENDING.set(true);
    request_animation_frame(|| {
        PENDING.set(false);
        with_element(|el| {
            el.set_scroll_top(el.scroll_height());
            LAST_TOP.set(el.scroll_top());
        });
    });
}

/// The view scrolled: back near the bottom, follow again; scrolled up by the reader, stop
/// following. (Content growing under a scroll of our own does not count as either.)
pub fn scrolled() {
    with_element(|el| {
        let top = el.scroll_top();
        let gap = el.scroll_height() - top - el.client_height();
        if gap < 80 {
            STICK.set(true);
        } else if top < LAST_TOP.get() - 4 {
            STICK.set(false);
        }
        LAST_TOP.set(top);
    });
}

/// Back to the bottom (a new message was sent, a thread opened).
pub fn to_bottom() {
    STICK.set(true);
    follow();
}
