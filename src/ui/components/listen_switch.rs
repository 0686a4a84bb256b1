use leptos::prelude::*;

use super::push_to_talk::MicIcon;
use crate::ui::chat::Chat;
use crate::ui::connection::Connection;
use crate::ui::css::focus;
use crate::ui::i18n::Key;
use crate::ui::prefs::Prefs;

/// The thread's listen mode, on and off. It says what the inspector could say: "luistermodus"
/// (or "listen mode") to switch it on, the wake word "AGORA" to end it and get the answer to
/// everything gathered; so the thread shows the switch as a message like any other, and the
/// state comes back from the server (`listening` in the shared state), on every device.
#[component]
pub fn ListenSwitch() -> impl IntoView {
    let chat = expect_context::<Chat>();
    let prefs = expect_context::<Prefs>();
    let connection = expect_context::<Connection>();
    let listening = move || chat.run.with(|run| run.listening);
    let toggle = move |_| {
        let command = if chat.run.with_untracked(|run| run.listening) {
            "AGORA".to_owned()
        } else {
            prefs.t(Key::ListenModeCommand).to_owned()
        };
        connection.submit(command);
    };
    view! {
        <button
            type="button"
            class=concat!(
                "inline-flex min-h-11 min-w-11 items-center justify-center gap-1 rounded-md border border-slate-300 px-2 py-1 text-sm aria-pressed:border-red-700 aria-pressed:bg-red-700 aria-pressed:text-white dark:border-slate-600 ",
                focus!()
            )
            aria-pressed=move || listening().to_string()
            on:click=toggle
        >
            <MicIcon class="h-5 w-5" />
            <span class="sr-only sm:not-sr-only">{prefs.text(Key::ListenMode)}</span>
        </button>
    }
}
