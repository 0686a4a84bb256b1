//! Per-browser preferences: language, theme and which panels are open, kept in
//! `localStorage`. The server renders the defaults (Dutch, system theme, panels closed); the
//! stored choice applies right after hydration. The theme is also set by a tiny inline script
//! in `<head>` before the first paint, so a dark page does not flash light.

use leptos::prelude::*;

use super::i18n::{Key, Lang};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Theme {
    Light,
    Dark,
    #[default]
    System,
}

impl Theme {
    pub const ALL: [Theme; 3] = [Theme::System, Theme::Light, Theme::Dark];

    pub fn code(self) -> &'static str {
        match self {
            Theme::Light => "light",
            Theme::Dark => "dark",
            Theme::System => "system",
        }
    }

    pub fn parse(code: &str) -> Theme {
        match code {
            "light" => Theme::Light,
            "dark" => Theme::Dark,
            _ => Theme::System,
        }
    }

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
    /// The thread list is shown on a narrow screen (always shown from `md` up).
    pub sidebar: RwSignal<bool>,
}

impl Prefs {
    pub fn provide() -> Self {
        let prefs = Prefs {
            lang: RwSignal::new(Lang::Nl),
            theme: RwSignal::new(Theme::System),
            hood: RwSignal::new(false),
            sidebar: RwSignal::new(false),
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

    #[cfg(feature = "hydrate")]
    fn load_and_apply(self) {
        use super::browser::{storage_get, storage_set};

        // Nothing is stored before the stored choices are read.
        let ready = StoredValue::new(false);
        // After hydration, so the first client render matches the server's.
        super::dom::effect(move || {
            if let Some(lang) = storage_get(LANG_KEY) {
                self.lang.set(Lang::parse(&lang));
            }
            if let Some(theme) = storage_get(THEME_KEY) {
                self.theme.set(Theme::parse(&theme));
            }
            if storage_get(HOOD_KEY).as_deref() == Some("open") {
                self.hood.set(true);
            }
            ready.set_value(true);
        });
        // Each choice is stored when it differs from what is stored: a change by the user.
        super::dom::effect(move || {
            let lang = self.lang.get();
            if let Some(root) = document().document_element() {
                let _ = root.set_attribute("lang", lang.code());
            }
            super::dom::set_lang(lang);
            translate_page(lang);
            if ready.get_value()
                && storage_get(LANG_KEY).unwrap_or_else(|| "nl".into()) != lang.code()
            {
                storage_set(LANG_KEY, lang.code());
                let tag = match lang {
                    Lang::Nl => "nl-NL",
                    Lang::En => "en-GB",
                };
                save_preferences(serde_json::json!({ "language": tag }));
            }
        });
        super::dom::effect(move || {
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
                && storage_get(THEME_KEY).unwrap_or_else(|| "system".into()) != theme.code()
            {
                storage_set(THEME_KEY, theme.code());
                save_preferences(serde_json::json!({ "theme": theme.code() }));
            }
        });
        super::dom::effect(move || {
            let open = if self.hood.get() { "open" } else { "closed" };
            if ready.get_value() && storage_get(HOOD_KEY).unwrap_or_else(|| "closed".into()) != open
            {
                storage_set(HOOD_KEY, open);
            }
        });
    }
}

/// Rewrites every text the server rendered with a `data-t` key (and the `aria-label`,
/// `title` and `placeholder` keyed by `data-t-label`, `data-t-title`, `data-t-placeholder`).
/// One pass over the page per language switch, instead of a reactive binding per text.
#[cfg(feature = "hydrate")]
fn translate_page(lang: Lang) {
    use wasm_bindgen::JsCast;
    for (marker, target) in [
        ("data-t", None),
        ("data-t-label", Some("aria-label")),
        ("data-t-title", Some("title")),
        ("data-t-placeholder", Some("placeholder")),
    ] {
        let Ok(nodes) = document().query_selector_all(&format!("[{marker}]")) else {
            continue;
        };
        for i in 0..nodes.length() {
            let Some(element) = nodes
                .item(i)
                .and_then(|n| n.dyn_into::<web_sys::Element>().ok())
            else {
                continue;
            };
            let Some(key) = element
                .get_attribute(marker)
                .and_then(|k| Key::from_name(&k))
            else {
                continue;
            };
            match target {
                None => element.set_text_content(Some(key.text(lang))),
                Some(attribute) => {
                    let _ = element.set_attribute(attribute, key.text(lang));
                }
            }
        }
    }
}

/// The user's stored preferences follow the screen (`PUT /users/me/preferences`).
#[cfg(feature = "hydrate")]
fn save_preferences(body: serde_json::Value) {
    leptos::task::spawn_local(async move {
        let _ = super::browser::fetch_text("PUT", "/users/me/preferences", Some(body.to_string()))
            .await;
    });
}
