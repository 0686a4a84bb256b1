use leptos::prelude::*;

use crate::ui::connection::Connection;
use crate::ui::css::focus;
use crate::ui::i18n::Key;
use crate::ui::prefs::{Prefs, SpokenTextType};

/// The header's speaker (issue 38): answers read aloud or not, remembered per user in this
/// browser; and, while on, how much of an answer is read (the user's `spoken_text_type`, kept
/// at the server with their other preferences, which also speaks it that way from the next
/// answer on). Switching it off stops what is being said.
#[component]
pub fn SpeakerSwitch() -> impl IntoView {
    let prefs = expect_context::<Prefs>();
    let connection = expect_context::<Connection>();
    // The signed-in user's choice, once the user is known.
    #[cfg(feature = "hydrate")]
    Effect::new(move || {
        if let Some(user) = connection.user.get() {
            let stored = crate::ui::browser::storage_get(&speak_key(&user));
            prefs.speak.set(stored.as_deref() == Some("on"));
        }
    });
    let toggle = move |_| {
        let on = !prefs.speak.get_untracked();
        prefs.speak.set(on);
        #[cfg(feature = "hydrate")]
        {
            if !on {
                crate::ui::speech::silence();
            }
            if let Some(user) = connection.user.get_untracked() {
                crate::ui::browser::storage_set(&speak_key(&user), if on { "on" } else { "off" });
            }
        }
        #[cfg(not(feature = "hydrate"))]
        let _ = connection;
    };
    let choose = move |ev| {
        let kind = SpokenTextType::parse(&event_target_value(&ev)).unwrap_or_default();
        prefs.spoken.set(kind);
        #[cfg(feature = "hydrate")]
        crate::ui::prefs::save_preferences(crate::protocol::rest::PreferencesUpdate {
            spoken_text_type: Some(kind),
            ..Default::default()
        });
    };
    let option = move |kind: SpokenTextType, label: Key| {
        view! {
            <option value=kind.as_str() selected=move || prefs.spoken.get() == kind>
                {prefs.text(label)}
            </option>
        }
    };
    view! {
        <button
            type="button"
            class=concat!(
                "inline-flex min-h-11 min-w-11 items-center justify-center gap-1 rounded-md border border-slate-300 px-2 py-1 text-sm aria-pressed:border-emerald-800 aria-pressed:bg-emerald-800 aria-pressed:text-white dark:border-slate-600 ",
                focus!()
            )
            aria-pressed=move || prefs.speak.get().to_string()
            on:click=toggle
        >
            // A drawn speaker: an emoji is a blank box where the device has no emoji font.
            <svg aria-hidden="true" viewBox="0 0 24 24" class="h-5 w-5 fill-none stroke-current stroke-2">
                <path d="M4 9h4l5-4v14l-5-4H4z" />
                <path d="M16.5 8.5a5 5 0 0 1 0 7M19 6a8.5 8.5 0 0 1 0 12" />
            </svg>
            <span class="sr-only sm:not-sr-only">{prefs.text(Key::ReadAloud)}</span>
        </button>
        <label class="sr-only" for="spoken-select">{prefs.text(Key::ReadAloudKind)}</label>
        <select
            id="spoken-select"
            class="min-h-11 rounded-md border border-slate-300 bg-white px-1 py-1 text-xs focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-emerald-600 dark:border-slate-600 dark:bg-slate-900"
            class:hidden=move || !prefs.speak.get()
            prop:value=move || prefs.spoken.get().as_str()
            on:change=choose
        >
            {option(SpokenTextType::Summarize, Key::ReadAloudSummarize)}
            {option(SpokenTextType::Dictate, Key::ReadAloudDictate)}
        </select>
    }
}

/// Where a user's speaker choice is kept in this browser.
#[cfg(feature = "hydrate")]
fn speak_key(user: &str) -> String {
    format!("{}{user}", crate::ui::prefs::SPEAK_KEY)
}
