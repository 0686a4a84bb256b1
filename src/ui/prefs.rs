//! Per-browser preferences: language, theme and which panels are open, kept in
//! `localStorage`. The server renders in the page language ([`page_lang`]: the user's stored
//! preference, then the `hai_lang` cookie the browser keeps in step with its choice, then
//! `Accept-Language`), so an English inspector never sees Dutch first; the browser starts
//! from the language the server wrote on `<html lang>`. The theme is set by a tiny inline
//! script in `<head>` before the first paint, so a dark page does not flash light.

use leptos::prelude::*;

use super::i18n::{Key, Lang};
#[cfg(feature = "hydrate")]
use crate::protocol::rest::PreferencesUpdate;

pub use crate::protocol::rest::{SpokenTextType, Theme};

/// How the screen names a theme (the wire's [`Theme`] is shared with the server).
impl Theme {
    pub fn label(self) -> Key {
        match self {
            Theme::Light => Key::ThemeLight,
            Theme::Dark => Key::ThemeDark,
            Theme::System => Key::ThemeSystem,
        }
    }
}

pub const LANG_KEY: &str = "hai.lang";
pub const THEME_KEY: &str = "hai.theme";
pub const HOOD_KEY: &str = "hai.hood";
pub const THREADS_KEY: &str = "hai.threads";
/// Followed by the user: whether answers are read aloud (`on`).
pub const SPEAK_KEY: &str = "hai.speak.";
/// The cookie that tells the server the page language (the browser sets it on a switch).
pub const LANG_COOKIE: &str = "hai_lang";

/// The language to render the page in, on the server: a `Lang` the server put in the
/// request's extensions (the signed-in user's preference), else [`request_lang`], else Dutch.
#[cfg(feature = "ssr")]
pub fn page_lang() -> Lang {
    let Some(parts) = use_context::<axum::http::request::Parts>() else {
        return Lang::Nl;
    };
    if let Some(lang) = parts.extensions.get::<Lang>() {
        return *lang;
    }
    request_lang(&parts.headers).unwrap_or(Lang::Nl)
}

/// The language a request asks for: the page's cookie (the browser sets it on a switch), else
/// the first of Dutch or English in `Accept-Language`; `None` when it names neither. Pages,
/// and the refusals `/ws` and `/agui` write, are in this language.
#[cfg(feature = "ssr")]
pub fn request_lang(headers: &axum::http::HeaderMap) -> Option<Lang> {
    use axum::http::header::{ACCEPT_LANGUAGE, COOKIE};
    let header = |name: axum::http::HeaderName, separator: &str| {
        headers
            .get_all(name)
            .iter()
            .filter_map(|v| v.to_str().ok())
            .collect::<Vec<_>>()
            .join(separator)
    };
    let cookie = header(COOKIE, ";");
    if let Some(code) = cookie
        .split(';')
        .filter_map(|pair| pair.trim().split_once('='))
        .find_map(|(name, value)| (name == LANG_COOKIE).then_some(value))
    {
        return Some(Lang::parse(code));
    }
    accept_language(&header(ACCEPT_LANGUAGE, ","))
}

/// The first of Dutch or English by preference (`q`) in an `Accept-Language` value; `None`
/// when it names neither.
pub fn accept_language(value: &str) -> Option<Lang> {
    let mut best: Option<(f32, Lang)> = None;
    for part in value.split(',') {
        let mut fields = part.split(';');
        let tag = fields.next().unwrap_or("").trim().to_ascii_lowercase();
        let q = fields
            .find_map(|f| {
                f.trim()
                    .strip_prefix("q=")
                    .and_then(|q| q.parse::<f32>().ok())
            })
            .unwrap_or(1.0);
        let lang = if tag.starts_with("en") {
            Lang::En
        } else if tag.starts_with("nl") {
            Lang::Nl
        } else {
            continue;
        };
        if best.is_none_or(|(b, _)| q > b) {
            best = Some((q, lang));
        }
    }
    best.map(|(_, lang)| lang)
}

/// The language the server rendered the page in, from `<html lang>`: the browser starts
/// there so hydration meets the same texts.
#[cfg(feature = "hydrate")]
fn rendered_lang() -> Lang {
    document()
        .document_element()
        .and_then(|root| root.get_attribute("lang"))
        .map_or(Lang::Nl, |code| Lang::parse(&code))
}

/// Runs before the first paint: the `dark` class from the stored theme or the system.
pub const THEME_SCRIPT: &str = "try{var t=localStorage.getItem('hai.theme')||'system';\
if(t==='dark'||(t==='system'&&matchMedia('(prefers-color-scheme: dark)').matches))\
document.documentElement.classList.add('dark')}catch(e){}";

#[derive(Clone, Copy)]
pub struct Prefs {
    pub lang: RwSignal<Lang>,
    pub theme: RwSignal<Theme>,
    /// "Onder de motorkap" is shown.
    pub hood: RwSignal<bool>,
    /// The thread list is shown on a narrow screen (over the chat).
    pub sidebar: RwSignal<bool>,
    /// The thread list is folded away from `md` up (beside the chat otherwise): a tablet
    /// gives its width to the conversation. Kept over a reload.
    pub threads_folded: RwSignal<bool>,
    /// A touch screen (coarse pointer): no keyboard hints, no text box focused for a keyboard
    /// that would cover the buttons.
    pub touch: RwSignal<bool>,
    /// Answers are read aloud (the header's speaker), kept per user in this browser
    /// (`SpeakerSwitch`).
    pub speak: RwSignal<bool>,
    /// How much of an answer the server speaks: the user's `spoken_text_type`, stored with the
    /// user's other preferences at the server (read from `/users/me`).
    pub spoken: RwSignal<SpokenTextType>,
}

impl Prefs {
    pub fn provide() -> Self {
        #[cfg(feature = "ssr")]
        let lang = page_lang();
        #[cfg(feature = "hydrate")]
        let lang = rendered_lang();
        #[cfg(not(any(feature = "ssr", feature = "hydrate")))]
        let lang = Lang::Nl;
        let prefs = Prefs {
            lang: RwSignal::new(lang),
            theme: RwSignal::new(Theme::System),
            hood: RwSignal::new(false),
            sidebar: RwSignal::new(false),
            threads_folded: RwSignal::new(false),
            touch: RwSignal::new(false),
            speak: RwSignal::new(false),
            spoken: RwSignal::new(SpokenTextType::default()),
        };
        #[cfg(feature = "hydrate")]
        prefs.load_and_apply();
        provide_context(prefs);
        prefs
    }

    /// The text for `key` in the current language (tracked).
    pub fn t(&self, key: Key) -> &'static str {
        key.text(self.lang.get())
    }

    /// The text for `key` as a signal that follows the language, for a view. Every fixed text
    /// of the screen is this one type, so the code that renders and updates a text node or an
    /// attribute exists once in the bundle instead of once per closure.
    pub fn text(&self, key: Key) -> Signal<&'static str> {
        let lang = self.lang;
        Signal::derive(move || key.text(lang.get()))
    }

    #[cfg(feature = "hydrate")]
    fn load_and_apply(self) {
        use super::browser::{storage_get, storage_set};

        // Nothing is stored before the stored choices are read.
        let rendered = rendered_lang();
        let ready = StoredValue::new(false);
        // After hydration, so the first client render matches the server's.
        Effect::new(move || {
            if let Some(lang) = storage_get(LANG_KEY) {
                self.lang.set(Lang::parse(&lang));
            }
            if let Some(theme) = storage_get(THEME_KEY) {
                self.theme.set(Theme::parse(&theme).unwrap_or_default());
            }
            if storage_get(HOOD_KEY).as_deref() == Some("open") {
                self.hood.set(true);
            }
            if storage_get(THREADS_KEY).as_deref() == Some("folded") {
                self.threads_folded.set(true);
            }
            let coarse = window()
                .match_media("(pointer: coarse)")
                .ok()
                .flatten()
                .is_some_and(|m| m.matches());
            self.touch.set(coarse);
            ready.set_value(true);
        });
        // Each choice is stored when it differs from what is stored: a change by the user.
        Effect::new(move || {
            let lang = self.lang.get();
            if let Some(root) = document().document_element() {
                let _ = root.set_attribute("lang", lang.code());
            }
            if !ready.get_value() {
                return;
            }
            set_lang_cookie(lang);
            if storage_get(LANG_KEY).unwrap_or_else(|| rendered.code().into()) != lang.code() {
                storage_set(LANG_KEY, lang.code());
                save_preferences(PreferencesUpdate {
                    language: Some(lang.tag().to_owned()),
                    ..Default::default()
                });
            }
        });
        Effect::new(move || {
            let theme = self.theme.get();
            let dark = match theme {
                Theme::Dark => true,
                Theme::Light => false,
                Theme::System => window()
                    .match_media("(prefers-color-scheme: dark)")
                    .ok()
                    .flatten()
                    .is_some_and(|m| m.matches()),
            };
            if let Some(root) = document().document_element() {
                let _ = root.class_list().toggle_with_force("dark", dark);
            }
            if ready.get_value()
                && storage_get(THEME_KEY).unwrap_or_else(|| "system".into()) != theme.as_str()
            {
                storage_set(THEME_KEY, theme.as_str());
                save_preferences(PreferencesUpdate {
                    theme: Some(theme),
                    ..Default::default()
                });
            }
        });
        Effect::new(move || {
            let folded = if self.threads_folded.get() {
                "folded"
            } else {
                "shown"
            };
            if ready.get_value()
                && storage_get(THREADS_KEY).unwrap_or_else(|| "shown".into()) != folded
            {
                storage_set(THREADS_KEY, folded);
            }
        });
        Effect::new(move || {
            let open = if self.hood.get() { "open" } else { "closed" };
            if ready.get_value() && storage_get(HOOD_KEY).unwrap_or_else(|| "closed".into()) != open
            {
                storage_set(HOOD_KEY, open);
            }
        });
    }
}

/// Tells the server the language for the next page it renders.
#[cfg(feature = "hydrate")]
fn set_lang_cookie(lang: Lang) {
    use wasm_bindgen::JsCast;
    if let Ok(document) = document().dyn_into::<web_sys::HtmlDocument>() {
        let _ = document.set_cookie(&format!(
            "{LANG_COOKIE}={}; path=/; max-age=31536000; samesite=strict",
            lang.code()
        ));
    }
}

/// The user's stored preferences follow the screen (`PUT /users/me/preferences`).
#[cfg(feature = "hydrate")]
pub fn save_preferences(update: PreferencesUpdate) {
    let Ok(body) = serde_json::to_string(&update) else {
        return;
    };
    leptos::task::spawn_local(async move {
        let _ = super::browser::fetch_text("PUT", "/users/me/preferences", Some(body)).await;
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accept_language_picks_dutch_or_english_by_preference() {
        let table = [
            ("", None),
            ("en-GB,en;q=0.9", Some(Lang::En)),
            ("nl-NL,nl;q=0.9,en;q=0.8", Some(Lang::Nl)),
            ("de-DE,de;q=0.9,en;q=0.5,nl;q=0.4", Some(Lang::En)),
            ("fr, nl;q=0.3, en;q=0.7", Some(Lang::En)),
            ("en;q=0.2, nl-BE;q=0.8", Some(Lang::Nl)),
            ("de-DE", None),
            ("EN-us", Some(Lang::En)),
            ("en;q=zzz", Some(Lang::En)),
        ];
        for (header, lang) in table {
            assert_eq!(accept_language(header), lang, "{header}");
        }
    }
}
