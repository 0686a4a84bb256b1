//! The few DOM helpers of the one imperative part of the screen: an answer's body, which
//! grows per delta and is drawn from the Markdown tree (`assistant_message`,
//! `markdown_view`). Everything else is `view!`.
//!
//! Safety by construction: text goes in through [`text`] (a text node) and attributes through
//! [`attr`]; there is no `innerHTML` here, so model output can never become markup.

use web_sys::Element;

/// A new element. The tags are constants of this crate, so creating one cannot fail; were it
/// to, a detached `div` keeps the page going.
pub fn el(tag: &str, class: &str) -> Element {
    let document = leptos::prelude::document();
    let element = document
        .create_element(tag)
        .or_else(|_| document.create_element("div"))
        .unwrap_or_else(|_| unreachable!("a div can always be created"));
    if !class.is_empty() {
        element.set_class_name(class);
    }
    element
}

/// A new element appended to `parent`.
pub fn child(parent: &Element, tag: &str, class: &str) -> Element {
    let element = el(tag, class);
    let _ = parent.append_child(&element);
    element
}

/// Appends `s` as a text node: never parsed as HTML.
pub fn text(parent: &Element, s: &str) {
    let _ = parent.append_with_str_1(s);
}

pub fn attr(element: &Element, name: &str, value: &str) {
    let _ = element.set_attribute(name, value);
}

pub fn clear(element: &Element) {
    element.set_text_content(None);
}
