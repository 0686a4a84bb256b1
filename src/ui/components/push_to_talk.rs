use leptos::prelude::*;

use crate::ui::css::focus;
use crate::ui::dictation::{Failure, clock};
use crate::ui::i18n::{Key, format};
use crate::ui::prefs::Prefs;

/// Recordings shorter than this are a tap, not speech: a hint instead of a transcription.
#[cfg(feature = "hydrate")]
const SHORTEST_MS: f64 = 400.0;

/// Where push-to-talk is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum MicState {
    #[default]
    Idle,
    /// Pressed: the microphone opens, then records until released.
    Recording,
    /// Released: the recording is on its way to the transcription.
    Sending,
}

/// The composer's push-to-talk (issue 38): offered when the server has a transcription API
/// (`GET /transcriptions`), records while pressed and puts what was said in the composer
/// (`heard`). The state is shared by the button and the line that says what happens.
#[derive(Clone, Copy)]
pub struct Mic {
    available: RwSignal<bool>,
    /// The server's limit on a recording, in bytes (0: not known).
    #[cfg(feature = "hydrate")]
    max_bytes: RwSignal<f64>,
    state: RwSignal<MicState>,
    /// Seconds recorded so far.
    elapsed: RwSignal<u32>,
    failure: RwSignal<Option<Failure>>,
    #[cfg(feature = "hydrate")]
    heard: Callback<String>,
}

impl Mic {
    /// Asks the server whether push-to-talk is offered; `heard` gets each transcription.
    pub fn new(heard: Callback<String>) -> Self {
        let mic = Mic {
            available: RwSignal::new(false),
            #[cfg(feature = "hydrate")]
            max_bytes: RwSignal::new(0.0),
            state: RwSignal::new(MicState::Idle),
            elapsed: RwSignal::new(0),
            failure: RwSignal::new(None),
            #[cfg(feature = "hydrate")]
            heard,
        };
        #[cfg(not(feature = "hydrate"))]
        let _ = heard;
        #[cfg(feature = "hydrate")]
        leptos::task::spawn_local(async move {
            let Ok(body) = crate::ui::browser::fetch_text("GET", "/transcriptions", None).await
            else {
                return;
            };
            let offered: serde_json::Value = serde_json::from_str(&body).unwrap_or_default();
            mic.max_bytes
                .set(offered["maxBytes"].as_f64().unwrap_or_default());
            mic.available
                .set(offered["available"].as_bool().unwrap_or_default());
        });
        mic
    }

    /// Pressed: speaking stops, the microphone opens and records.
    fn press(self) {
        if self.state.get_untracked() != MicState::Idle {
            return;
        }
        self.state.set(MicState::Recording);
        self.elapsed.set(0);
        self.failure.set(None);
        #[cfg(feature = "hydrate")]
        {
            crate::ui::speech::silence();
            crate::ui::recorder::keep(None);
            let ticking = set_interval_with_handle(
                move || {
                    if self.state.get_untracked() == MicState::Recording {
                        self.elapsed.update(|s| *s += 1);
                    }
                },
                std::time::Duration::from_secs(1),
            )
            .ok();
            leptos::task::spawn_local(async move {
                let opened = crate::ui::recorder::start(move |recording, length_ms| {
                    if let Some(ticking) = ticking {
                        ticking.clear();
                    }
                    if length_ms < SHORTEST_MS {
                        self.fail(Failure::TooShort);
                    } else {
                        self.send(recording);
                    }
                })
                .await;
                if opened.is_err() {
                    if let Some(ticking) = ticking {
                        ticking.clear();
                    }
                    self.fail(Failure::Microphone);
                } else if self.state.get_untracked() != MicState::Recording {
                    // Released before the microphone was open.
                    crate::ui::recorder::stop();
                }
            });
        }
    }

    /// Released: the recording goes to be transcribed.
    fn release(self) {
        if self.state.get_untracked() == MicState::Recording {
            self.state.set(MicState::Sending);
            #[cfg(feature = "hydrate")]
            crate::ui::recorder::stop();
        }
    }

    /// The keyboard's press: Space or Enter starts, and again ends.
    fn toggle(self) {
        match self.state.get_untracked() {
            MicState::Idle => self.press(),
            MicState::Recording => self.release(),
            MicState::Sending => {}
        }
    }

    #[cfg(feature = "hydrate")]
    fn fail(self, failure: Failure) {
        self.failure.set(Some(failure));
        self.state.set(MicState::Idle);
    }

    /// Sends `recording` to be transcribed; kept to be sent again when that fails.
    #[cfg(feature = "hydrate")]
    fn send(self, recording: web_sys::Blob) {
        self.state.set(MicState::Sending);
        self.failure.set(None);
        let limit = self.max_bytes.get_untracked();
        if limit > 0.0 && recording.size() > limit {
            return self.fail(Failure::TooLarge);
        }
        leptos::task::spawn_local(async move {
            let answer = crate::ui::recorder::transcribe(&recording).await;
            let result = answer
                .map_err(|_| Failure::Offline)
                .and_then(|(status, body)| crate::ui::dictation::transcription(status, &body));
            match result {
                Ok(text) => {
                    crate::ui::recorder::keep(None);
                    self.state.set(MicState::Idle);
                    self.heard.run(text);
                }
                Err(failure) => {
                    if failure.retry() {
                        crate::ui::recorder::keep(Some(recording));
                    }
                    self.fail(failure);
                }
            }
        });
    }

    /// The kept recording, sent again.
    fn retry(self) {
        #[cfg(feature = "hydrate")]
        if let Some(recording) = crate::ui::recorder::kept() {
            self.send(recording);
        }
    }

    fn discard(self) {
        #[cfg(feature = "hydrate")]
        crate::ui::recorder::keep(None);
        self.failure.set(None);
    }
}

/// The microphone button: records while pressed (pointer down to up: a mouse, a finger, a
/// pen), or from a press of Space or Enter to the next (a keyboard, a switch, a screen
/// reader). Not shown where the server has no transcription API. Drawn, not an emoji (a
/// blank box on a device without an emoji font).
#[component]
pub fn MicButton(mic: Mic) -> impl IntoView {
    let prefs = expect_context::<Prefs>();
    let recording = move || mic.state.get() == MicState::Recording;
    view! {
        <button
            type="button"
            class=concat!(
                "flex min-h-12 min-w-12 touch-none select-none items-center justify-center rounded-lg border border-slate-300 hover:bg-slate-100 aria-pressed:border-red-700 aria-pressed:bg-red-700 aria-pressed:text-white disabled:cursor-wait disabled:opacity-60 dark:border-slate-600 dark:hover:bg-slate-800 dark:aria-pressed:border-red-500 dark:aria-pressed:bg-red-700 ",
                focus!()
            )
            class:hidden=move || !mic.available.get()
            aria-label=prefs.text(Key::Dictate)
            title=prefs.text(Key::Dictate)
            aria-pressed=move || recording().to_string()
            disabled=move || mic.state.get() == MicState::Sending
            on:pointerdown=move |ev| {
                if ev.button() == 0 {
                    #[cfg(feature = "hydrate")]
                    {
                        use wasm_bindgen::JsCast;
                        // The release is heard here even when the finger slides off.
                        if let Some(button) = ev
                            .current_target()
                            .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
                        {
                            let _ = button.set_pointer_capture(ev.pointer_id());
                        }
                    }
                    mic.press();
                }
            }
            on:pointerup=move |_| mic.release()
            on:pointercancel=move |_| mic.release()
            // A long press on a tablet would open the context menu.
            on:contextmenu=move |ev| ev.prevent_default()
            // A click from a pointer follows its press and release; one without (detail 0) is
            // the keyboard's Space, or a screen reader's activation.
            on:click=move |ev| {
                if ev.detail() == 0 {
                    mic.toggle();
                }
            }
            // Enter clicks at once and again while held (the key repeats): taken here, once.
            on:keydown=move |ev| {
                if ev.key() == "Enter" {
                    ev.prevent_default();
                    if !ev.repeat() {
                        mic.toggle();
                    }
                }
            }
        >
            <MicIcon class="h-6 w-6" />
        </button>
    }
}

/// A microphone, drawn: an emoji is a blank box on a device without an emoji font (the
/// listen-mode switch shows it too).
#[component]
pub fn MicIcon(class: &'static str) -> impl IntoView {
    view! {
        <svg aria-hidden="true" viewBox="0 0 24 24" class=class fill="none" stroke="currentColor" stroke-width="2">
            <rect x="9" y="3" width="6" height="11" rx="3" />
            <path d="M5 11a7 7 0 0 0 14 0M12 18v3M9 21h6" />
        </svg>
    }
}

/// What push-to-talk is doing: recording (with its length), turning speech into text, or why
/// it failed, with a button to send the kept recording again and one to discard it.
#[component]
pub fn MicNotice(mic: Mic) -> impl IntoView {
    let prefs = expect_context::<Prefs>();
    let status = move || match mic.state.get() {
        MicState::Recording => format(
            Key::MicRecording,
            prefs.lang.get(),
            &[&clock(mic.elapsed.get())],
        ),
        MicState::Sending => prefs.t(Key::MicSending).to_owned(),
        MicState::Idle => String::new(),
    };
    let failure = move || mic.failure.get();
    view! {
        <p
            role="status"
            class="w-full text-sm font-medium text-red-800 dark:text-red-300"
            class:hidden=move || mic.state.get() == MicState::Idle
            data-testid="mic-status"
        >
            {status}
        </p>
        <div
            role="alert"
            class="flex w-full flex-wrap items-center gap-2 rounded-lg border border-red-300 bg-red-50 p-2 text-sm text-red-900 dark:border-red-800 dark:bg-red-950 dark:text-red-100"
            class:hidden=move || failure().is_none()
        >
            <p class="min-w-0 flex-1">{move || failure().map(|f| prefs.t(f.key()))}</p>
            <button
                type="button"
                class=concat!(
                    "min-h-11 rounded-md border border-red-700 px-3 font-medium dark:border-red-400 ",
                    focus!()
                )
                class:hidden=move || !failure().is_some_and(Failure::retry)
                on:click=move |_| mic.retry()
            >
                {prefs.text(Key::Retry)}
            </button>
            <button
                type="button"
                class=concat!("min-h-11 rounded-md px-2 underline ", focus!())
                on:click=move |_| mic.discard()
            >
                {prefs.text(Key::MicDiscard)}
            </button>
        </div>
    }
}
