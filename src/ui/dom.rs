//! A few DOM helpers for the parts of the screen that exist only in the browser (the
//! conversation, the thread list, the panel, the dialog). They are built with these instead
//! of `view!`: every `view!` element and reactive closure is its own generic instantiation,
//! and the 150 KB (gzip) budget of the page does not fit them (measured: 20–40 KB per panel).
//!
//! Safety by construction: text goes in through [`text`] (a text node) and attributes
//! through [`attr`]; there is no `innerHTML` here, so model output can never become markup.

use std::cell::Cell;

use wasm_bindgen::JsCast;
use wasm_bindgen::closure::Closure;
use web_sys::{Document, Element, HtmlElement};

use super::i18n::{Key, Lang};

thread_local! {
    static LANG: Cell<Lang> = const { Cell::new(Lang::Nl) };
}

/// The language the builders write in; set by the preferences.
pub fn set_lang(lang: Lang) {
    LANG.set(lang);
}

pub fn lang() -> Lang {
    LANG.get()
}

/// A text in the current language.
pub fn t(key: Key) -> &'static str {
    key.text(lang())
}

pub fn doc() -> Document {
    web_sys::window()
        .and_then(|w| w.document())
        .expect("a document")
}

pub fn el(tag: &str, class: &str) -> Element {
    let element = doc().create_element(tag).expect("a valid tag");
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

/// A new element with one text node.
pub fn child_text(parent: &Element, tag: &str, class: &str, s: &str) -> Element {
    let element = child(parent, tag, class);
    text(&element, s);
    element
}

pub fn attr(element: &Element, name: &str, value: &str) {
    let _ = element.set_attribute(name, value);
}

/// An effect: `f` runs after hydration and again whenever a signal it read changes.
///
/// Every `Effect::new` call is its own instantiation of the effect's async task (about
/// 700 bytes of wasm each); boxed, all the page's effects share one.
pub fn effect(f: impl FnMut() + 'static) {
    let mut f: Box<dyn FnMut()> = Box::new(f);
    leptos::prelude::Effect::new(move |_| f());
}

/// An element the server rendered into the frame.
pub fn by_id(id: &str) -> Element {
    doc()
        .get_element_by_id(id)
        .expect("the server renders the frame")
}

/// Sets (`on`) or removes a boolean attribute (`inert`, `disabled`).
pub fn flag(element: &Element, name: &str, on: bool) {
    let _ = element.toggle_attribute_with_force(name, on);
}

/// `"true"` or `"false"`, for `aria-pressed` and `aria-expanded`.
pub fn bool_text(value: bool) -> &'static str {
    if value { "true" } else { "false" }
}

pub fn clear(element: &Element) {
    element.set_text_content(None);
}

/// A `<button type="button">` with a text label.
pub fn button(parent: &Element, class: &str, label: &str) -> Element {
    let button = child_text(parent, "button", class, label);
    attr(&button, "type", "button");
    button
}

/// The small "Sluiten" button of a card or panel.
pub fn close_button(parent: &Element) -> Element {
    button(
        parent,
        &format!(
            "rounded px-2 py-1 text-xs hover:bg-slate-100 dark:hover:bg-slate-800 {}",
            css::FOCUS
        ),
        t(Key::Close),
    )
}

/// Text hidden on screen, read by screen readers.
pub fn sr(parent: &Element, s: &str) {
    child_text(parent, "span", "sr-only", s);
}

pub fn focus(element: &Element) {
    if let Some(element) = element.dyn_ref::<HtmlElement>() {
        let _ = element.focus();
    }
}

/// Focuses the first element under `root` matching `selector`.
pub fn focus_first(root: &Element, selector: &str) {
    if let Ok(Some(element)) = root.query_selector(selector) {
        focus(&element);
    }
}

/// Listens for `event` on `target` for the page's lifetime (used once per host element;
/// the items inside are reached by delegation, so re-rendering them adds no listeners).
pub fn listen(target: &Element, event: &str, handler: impl FnMut(web_sys::Event) + 'static) {
    let closure = Closure::<dyn FnMut(web_sys::Event)>::new(handler);
    let _ = target.add_event_listener_with_callback(event, closure.as_ref().unchecked_ref());
    closure.forget();
}

/// The nearest element from the event's target up to (and including) `root` that carries
/// `data-action`, with that action.
pub fn action(event: &web_sys::Event) -> Option<(String, Element)> {
    let target = event.target()?.dyn_into::<Element>().ok()?;
    let element = target.closest("[data-action]").ok()??;
    Some((element.get_attribute("data-action")?, element))
}

/// A `data-*` attribute as a number.
pub fn data_usize(element: &Element, name: &str) -> Option<usize> {
    element.get_attribute(name)?.parse().ok()
}

/// Shared class strings.
pub mod css {
    pub const FOCUS: &str =
        "focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-emerald-600";
    pub const MUTED: &str = "text-slate-600 dark:text-slate-300";
}
