//! The page's one WebSocket to `/ws`, shared through context (browser only; on the server
//! every method is a no-op).
//!
//! - The thread id lives in `localStorage`, so a reload shows the same inspection.
//! - A closed socket reconnects with exponential backoff and jitter ([`backoff_ms`]); when
//!   the browser says it is offline the socket is closed at once (a dead network can leave it
//!   open and silent) and a connection is tried again when it is back online.
//! - The server's runs go on without the socket. After every (re)connect the page resumes
//!   the thread (`agora:resume`) from the number of the last event it showed: it gets exactly
//!   what it missed, or (a reload, a long absence) the thread's snapshot and the live run from
//!   its start, and an approval that waits shows again.
//! - Messages typed while offline are queued in `localStorage` (see `offline`; their photos in
//!   IndexedDB, `photo_store`) and sent once the resume is answered, each with its own id, so
//!   a resend is taken once.

use leptos::prelude::*;

use super::chat::Chat;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConnectionStatus {
    Connecting,
    Connected,
    Reconnecting,
    /// The browser says there is no network: nothing is tried until it is back.
    Offline,
    /// Retrying cannot help: the session ended (sign in again). Only this says "fout"; a
    /// server that does not answer is "opnieuw verbinden" for as long as it is retried.
    Failed,
}

/// The wait before reconnect attempt `attempt` (1-based), in milliseconds: doubling from
/// 500 ms up to 8 s, at a random point (`random` in 0..1) of the upper half (jitter, so a
/// restarted server is not hit by every browser at once).
pub fn backoff_ms(attempt: u32, random: f64) -> u32 {
    let exponent = attempt.saturating_sub(1).min(10);
    let base = (500u64 << exponent).min(8_000) as f64;
    (base / 2.0 + random.clamp(0.0, 1.0) * base / 2.0) as u32
}

/// `localStorage` key of the open thread.
pub const THREAD_KEY: &str = "hai.threadId";

#[derive(Clone, Copy)]
pub struct Connection {
    /// Drives the header badge.
    pub status: RwSignal<ConnectionStatus>,
    chat: Chat,
    /// The signed-in user, once `/users/me` answered: the offline queue and drafts are kept
    /// per user.
    pub user: RwSignal<Option<String>>,
    /// Whether answers are read aloud, and in which language.
    #[cfg(feature = "hydrate")]
    prefs: super::prefs::Prefs,
}

impl Connection {
    pub fn provide(chat: Chat, user: RwSignal<Option<String>>) -> Self {
        let connection = Self {
            status: RwSignal::new(ConnectionStatus::Connecting),
            chat,
            user,
            #[cfg(feature = "hydrate")]
            prefs: expect_context(),
        };
        #[cfg(feature = "hydrate")]
        Effect::new(move || {
            // The address first (a link, a reload), then the thread this browser had open.
            let from_address = window()
                .location()
                .pathname()
                .ok()
                .and_then(|path| thread_in_path(&path));
            let thread = from_address
                .or_else(|| super::browser::storage_get(THREAD_KEY))
                .filter(|id| !id.trim().is_empty())
                .unwrap_or_else(new_thread_id);
            super::browser::storage_set(THREAD_KEY, &thread);
            chat.switch_thread(thread);
            if window().navigator().on_line() {
                connection.open();
            } else {
                connection.status.set(ConnectionStatus::Offline);
            }
            // Back online (laptop lid, train tunnel): try at once instead of waiting.
            let online = window_event_listener_untyped("online", move |_| connection.retry());
            std::mem::forget(online);
            let offline =
                window_event_listener_untyped("offline", move |_| connection.went_offline());
            std::mem::forget(offline);
        });
        // Once the shown thread's run has ended (and what was missed has been caught up), its
        // next waiting message goes, one per run: the next waits for the answer to this one.
        // Those queued in a dead zone come first; then those held during the run.
        #[cfg(feature = "hydrate")]
        Effect::new(move || {
            let idle = chat
                .run
                .with(|run| !run.running && !run.catching_up && !run.sending);
            if !idle {
                return;
            }
            connection.send_queued();
            if let Some(text) = chat.release_held() {
                connection.send_text(text);
            }
        });
        // Once the user is known, what was queued before a reload is shown and sent again.
        #[cfg(feature = "hydrate")]
        Effect::new(move || {
            if let Some(user) = user.get() {
                connection.restore_queue(&user);
            }
        });
        provide_context(connection);
        connection
    }

    /// Sends what the inspector typed, or queues it (kept over a reload) while there is no
    /// connection.
    pub fn send_text(&self, text: String) {
        self.send_message(text, Vec::new());
    }

    /// A message with its photos (shrunk, as `data:` URLs): sent now, or queued while there is
    /// no connection (its photos kept in IndexedDB, so a reload does not lose them).
    pub fn send_message(&self, text: String, photos: Vec<super::offline::OutgoingPhoto>) {
        let message = super::offline::Queued {
            id: format!("msg_{}", uuid::Uuid::new_v4().simple()),
            thread_id: self.chat.thread_id.get_untracked(),
            text,
            photos,
            stored_photos: 0,
        };
        #[cfg(feature = "hydrate")]
        {
            let sent = self.ready() && self.send(&message.frame());
            self.chat
                .push_user_with_photos(message.text.clone(), message.urls(), !sent);
            if !sent {
                if let Some(user) = self.user.get_untracked()
                    && !message.photos.is_empty()
                {
                    let (id, photos) = (message.id.clone(), message.photos.clone());
                    leptos::task::spawn_local(async move {
                        super::photo_store::keep(&user, &id, &photos).await;
                    });
                }
                client::inner(|inner| inner.queue.push(message));
                self.persist_queue();
            }
        }
        #[cfg(not(feature = "hydrate"))]
        let _ = message;
    }

    /// What the inspector sends: now, or held for the end of the thread's answer (a message
    /// sent now would stop the run at the server).
    pub fn submit(&self, text: String) {
        if self
            .chat
            .run
            .with_untracked(|run| run.running || run.sending)
        {
            self.chat.hold(text);
        } else {
            self.send_text(text);
            #[cfg(feature = "hydrate")]
            super::scroll::to_bottom();
        }
    }

    /// A message with photos: sent now, never held for the end of a running answer (the
    /// composer keeps the photos until the answer ends).
    pub fn submit_with_photos(&self, text: String, photos: Vec<super::offline::OutgoingPhoto>) {
        if photos.is_empty() {
            return self.submit(text);
        }
        self.send_message(text, photos);
        #[cfg(feature = "hydrate")]
        super::scroll::to_bottom();
    }

    /// The inspector's decision on a tool call. Without a connection the dialog stays: the
    /// run waits at the server, and the decision can be given once the page is back.
    /// Answers an approval request; `edited_args` when it is approved with edits.
    pub fn answer_approval(
        &self,
        approval_id: &str,
        approved: bool,
        feedback: Option<String>,
        edited_args: Option<serde_json::Map<String, serde_json::Value>>,
    ) {
        let frame = crate::protocol::wire::approval_response(
            approval_id,
            approved,
            feedback.as_deref(),
            edited_args,
        );
        #[cfg(feature = "hydrate")]
        if !self.send(&frame) {
            return;
        }
        #[cfg(not(feature = "hydrate"))]
        let _ = frame;
        self.chat.answer_approval(approval_id);
    }

    /// Stops the shown thread's run.
    pub fn stop(&self) {
        if let Some((thread_id, run_id)) = self.chat.active_run() {
            self.send_frame(&crate::protocol::wire::cancel_run(&thread_id, &run_id));
        }
    }

    /// Shows another thread: its history is loaded over the socket.
    pub fn open_thread(&self, thread_id: String) {
        if self.chat.thread_id.get_untracked() == thread_id {
            return;
        }
        // A run of the old thread would go on unseen: stop it, and stop reading it aloud.
        self.stop();
        #[cfg(feature = "hydrate")]
        super::speech::silence();
        // Messages held for its end stay with the old thread, as its draft, to send later.
        let held = self.chat.take_held();
        #[cfg(feature = "hydrate")]
        if !held.is_empty()
            && let Some(user) = self.user.get_untracked()
        {
            let old = self.chat.thread_id.get_untracked();
            let draft = super::offline::load_draft(&user, &old);
            let parts: Vec<&str> = std::iter::once(draft.as_str())
                .filter(|d| !d.trim().is_empty())
                .chain(held.iter().map(String::as_str))
                .collect();
            super::offline::save_draft(&user, &old, &parts.join("\n\n"));
        }
        #[cfg(not(feature = "hydrate"))]
        let _ = held;
        #[cfg(feature = "hydrate")]
        {
            super::browser::storage_set(THREAD_KEY, &thread_id);
            // Shown, its runs are seen to end: its queued messages follow them from here.
            client::inner(|inner| inner.went_elsewhere.retain(|t| *t != thread_id));
        }
        self.chat.switch_thread(thread_id);
        #[cfg(feature = "hydrate")]
        {
            self.show_queued();
            if self.status.get_untracked() == ConnectionStatus::Connected {
                self.resume();
            }
        }
    }

    pub fn new_thread(&self) {
        self.open_thread(new_thread_id());
    }

    /// Connects now instead of waiting for the next attempt.
    pub fn retry(&self) {
        #[cfg(feature = "hydrate")]
        if self.status.get_untracked() != ConnectionStatus::Connected
            && window().navigator().on_line()
        {
            client::inner(|inner| {
                if let Some(timer) = inner.timer.take() {
                    timer.clear();
                }
            });
            self.status.set(ConnectionStatus::Connecting);
            self.open();
        }
    }

    fn send_frame(&self, frame: &str) {
        #[cfg(feature = "hydrate")]
        self.send(frame);
        #[cfg(not(feature = "hydrate"))]
        let _ = frame;
    }
}

/// The page's address for a thread.
pub fn thread_path(thread_id: &str) -> String {
    format!("/t/{}", super::api::encode(thread_id))
}

/// The thread an address names (`/t/{threadId}`), if any.
pub fn thread_in_path(path: &str) -> Option<String> {
    let segment = path.strip_prefix("/t/")?.trim_end_matches('/');
    if segment.is_empty() || segment.contains('/') {
        return None;
    }
    let bytes = segment.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        match (bytes[i], bytes.get(i + 1), bytes.get(i + 2)) {
            (b'%', Some(&h), Some(&l)) if hex(h).is_some() && hex(l).is_some() => {
                out.push((hex(h)? * 16 + hex(l)?) as u8);
                i += 3;
            }
            (b, _, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8(out)
        .ok()
        .filter(|id| !id.trim().is_empty())
}

pub fn new_thread_id() -> String {
    uuid::Uuid::new_v4().to_string()
}

#[cfg(feature = "hydrate")]
mod client {
    use std::time::Duration;

    use leptos::prelude::*;
    use wasm_bindgen::JsCast;
    use wasm_bindgen::closure::Closure;
    use web_sys::{CloseEvent, MessageEvent, WebSocket};

    use super::{Connection, ConnectionStatus, backoff_ms};
    use crate::protocol::agora::close::UNAUTHORIZED as CLOSE_UNAUTHORIZED;
    use crate::protocol::agora::{CatchupMode, ERROR, RESUMED, SPOKEN_TEXT_CONTENT};
    use crate::protocol::{AgoraEvent, Event, wire};
    use crate::ui::offline::{self, Queued};

    thread_local! {
        static INNER: std::cell::RefCell<Inner> = std::cell::RefCell::new(Inner::default());
    }

    /// The socket's own state (one per page); never re-entered.
    pub fn inner<T>(f: impl FnOnce(&mut Inner) -> T) -> T {
        INNER.with_borrow_mut(f)
    }

    #[derive(Default)]
    pub struct Inner {
        socket: Option<WebSocket>,
        /// The closures the socket calls, kept as long as it lives.
        handlers: Option<Handlers>,
        attempt: u32,
        /// Messages typed while offline, in order (every thread's), mirrored in storage.
        pub queue: Vec<Queued>,
        /// Threads not shown whose oldest queued message went: the page cannot see their runs
        /// end, so their next queued message waits until the thread is shown.
        pub went_elsewhere: Vec<String>,
        /// Sent `agora:resume`, its snapshot not yet here: new messages wait in the queue, so
        /// the snapshot cannot replace them on screen before they are part of the thread.
        awaiting_history: bool,
        pub timer: Option<TimeoutHandle>,
    }

    impl Inner {
        /// Closes the socket without hearing from it again (its handlers go with it).
        fn drop_socket(&mut self) {
            if let Some(old) = self.socket.take() {
                old.set_onopen(None);
                old.set_onmessage(None);
                old.set_onclose(None);
                let _ = old.close();
            }
            self.handlers = None;
            self.awaiting_history = false;
        }
    }

    struct Handlers {
        _open: Closure<dyn FnMut()>,
        _message: Closure<dyn FnMut(MessageEvent)>,
        _close: Closure<dyn FnMut(CloseEvent)>,
    }

    impl Connection {
        pub(super) fn ready(&self) -> bool {
            self.status.get_untracked() == ConnectionStatus::Connected
                && !inner(|i| i.awaiting_history)
        }

        pub(super) fn send(&self, frame: &str) -> bool {
            inner(|inner| {
                inner
                    .socket
                    .as_ref()
                    .filter(|s| s.ready_state() == WebSocket::OPEN)
                    .is_some_and(|s| s.send_with_str(frame).is_ok())
            })
        }

        /// Follows the shown thread again: from the last event shown, or (nothing shown
        /// yet) its snapshot.
        pub(super) fn resume(&self) {
            let thread = self.chat.thread_id.get_untracked();
            let after = self.chat.with_state(|state| state.seq);
            inner(|i| i.awaiting_history = true);
            if !self.send(&wire::resume(&thread, after)) {
                inner(|i| i.awaiting_history = false);
            }
        }

        /// The resume was answered (or refused): now the queued messages may go.
        fn flush(&self) {
            inner(|inner| inner.awaiting_history = false);
            self.send_queued();
        }

        /// Sends the queued messages that may go now, one per thread at a time
        /// ([`offline::sendable`]); the others stay queued (and stored) for a later call: when
        /// the shown thread's run ends, when another thread is shown, on the next connection.
        pub(super) fn send_queued(&self) {
            if !self.ready() {
                return;
            }
            let shown = self.chat.thread_id.get_untracked();
            let shown_busy = self
                .chat
                .run
                .with_untracked(|run| run.running || run.catching_up || run.sending);
            let queue = inner(|inner| std::mem::take(&mut inner.queue));
            let picked =
                inner(|inner| offline::sendable(&queue, &shown, shown_busy, &inner.went_elsewhere));
            if picked.is_empty() {
                inner(|inner| inner.queue = queue);
                return;
            }
            let mut kept = Vec::with_capacity(queue.len());
            let mut connected = true;
            for (index, message) in queue.into_iter().enumerate() {
                if !connected || !picked.contains(&index) {
                    kept.push(message);
                } else if !self.send(&message.frame()) {
                    // The socket went away again: the rest waits for the next connection.
                    connected = false;
                    kept.push(message);
                } else {
                    // Sent: its photos need not be kept any longer.
                    if !message.photos.is_empty()
                        && let Some(user) = self.user.get_untracked()
                    {
                        let id = message.id.clone();
                        leptos::task::spawn_local(async move {
                            crate::ui::photo_store::forget(&user, &id).await;
                        });
                    }
                    if message.thread_id == shown {
                        self.chat.queued_sent(&message.text);
                    } else {
                        inner(|inner| inner.went_elsewhere.push(message.thread_id));
                    }
                }
            }
            inner(|inner| {
                kept.append(&mut inner.queue);
                inner.queue = kept;
            });
            self.persist_queue();
        }

        /// Mirrors the queue into storage, under the signed-in user.
        pub(super) fn persist_queue(&self) {
            if let Some(user) = self.user.get_untracked() {
                inner(|inner| offline::save_queue(&user, &inner.queue));
            }
        }

        /// After a reload: the user's stored queue joins the one in memory (each message once,
        /// by id), each with its photos read back from IndexedDB; those of the shown thread show
        /// as waiting; they go once connected.
        pub(super) fn restore_queue(&self, user: &str) {
            let this = *self;
            let user = user.to_owned();
            leptos::task::spawn_local(async move {
                let mut stored = offline::load_queue(&user);
                for message in &mut stored {
                    if message.stored_photos > 0 {
                        message.photos = crate::ui::photo_store::load(&user, &message.id).await;
                        message.stored_photos = 0;
                    }
                }
                // Photos that could not be read back leave their text; nothing else is sent.
                stored.retain(|m| !m.text.trim().is_empty() || !m.photos.is_empty());
                this.restore(stored);
            });
        }

        fn restore(&self, stored: Vec<Queued>) {
            let added = inner(|inner| {
                let mut added = false;
                for message in stored {
                    if !inner.queue.iter().any(|q| q.id == message.id) {
                        inner.queue.push(message);
                        added = true;
                    }
                }
                added
            });
            if !added {
                return;
            }
            self.show_queued();
            if self.ready() {
                self.flush();
            }
        }

        /// Shows the shown thread's waiting messages (after a reload or a thread switch).
        pub(super) fn show_queued(&self) {
            let thread = self.chat.thread_id.get_untracked();
            let waiting: Vec<(String, Vec<String>)> = inner(|inner| {
                inner
                    .queue
                    .iter()
                    .filter(|q| q.thread_id == thread)
                    .map(|q| (q.text.clone(), q.urls()))
                    .collect()
            });
            let shown: Vec<String> = self.chat.with_state(|state| state.queued_texts());
            for (text, photos) in waiting {
                if !shown.contains(&text) {
                    self.chat.push_user_with_photos(text, photos, true);
                }
            }
        }

        /// The browser lost the network: a socket on a dead network can stay open and silent
        /// for minutes, so it is closed now and the page waits for `online`.
        pub(super) fn went_offline(self) {
            inner(|inner| {
                if let Some(timer) = inner.timer.take() {
                    timer.clear();
                }
                inner.drop_socket();
            });
            self.chat.disconnected();
            self.status.set(ConnectionStatus::Offline);
        }

        pub(super) fn open(self) {
            let location = window().location();
            let scheme = if location.protocol().as_deref() == Ok("https:") {
                "wss"
            } else {
                "ws"
            };
            let host = location.host().unwrap_or_default();
            inner(Inner::drop_socket);
            let Ok(socket) = WebSocket::new(&format!("{scheme}://{host}/ws")) else {
                self.schedule_reconnect();
                return;
            };
            let on_open = Closure::<dyn FnMut()>::new(move || {
                inner(|inner| inner.attempt = 0);
                self.status.set(ConnectionStatus::Connected);
                self.resume();
                if !inner(|i| i.awaiting_history) {
                    self.flush();
                }
            });
            let on_message = Closure::<dyn FnMut(MessageEvent)>::new(
                move |message: MessageEvent| {
                    let Some(text) = message.data().as_string() else {
                        return;
                    };
                    match wire::decode_event(&text) {
                        Ok(event) => {
                            // The resume is answered: by its snapshot, by a replay (its marker
                            // says so; no snapshot follows), or refused.
                            let history_answer = match &event {
                                Event::MessagesSnapshot(_) => true,
                                Event::Custom(c) if c.name == ERROR => true,
                                Event::Custom(c) if c.name == RESUMED => matches!(
                                    wire::agora_event(c),
                                    Some(Ok(AgoraEvent::Resumed(r))) if r.mode == CatchupMode::Replay
                                ),
                                _ => false,
                            };
                            self.chat.receive(&event);
                            if let Event::Custom(custom) = &event {
                                self.read_aloud(custom);
                            }
                            if history_answer && inner(|i| i.awaiting_history) {
                                self.flush();
                            }
                        }
                        Err(error) => self.chat.receive_unreadable(error),
                    }
                },
            );
            let on_close = Closure::<dyn FnMut(CloseEvent)>::new(move |close: CloseEvent| {
                self.chat.disconnected();
                if close.code() == CLOSE_UNAUTHORIZED {
                    // Signed out: retrying cannot help until the page signs in again.
                    self.status.set(ConnectionStatus::Failed);
                } else {
                    self.schedule_reconnect();
                }
            });
            socket.set_onopen(Some(on_open.as_ref().unchecked_ref()));
            socket.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
            socket.set_onclose(Some(on_close.as_ref().unchecked_ref()));
            inner(|inner| {
                inner.socket = Some(socket);
                inner.handlers = Some(Handlers {
                    _open: on_open,
                    _message: on_message,
                    _close: on_close,
                });
            });
        }

        /// A sentence of the answer's spoken text (`agora:spoken_text_content`), read aloud
        /// as it arrives when the speaker is on; not what is caught up after a reconnect.
        fn read_aloud(&self, custom: &crate::protocol::Custom) {
            if custom.name != SPOKEN_TEXT_CONTENT
                || !self.prefs.speak.get_untracked()
                || self.chat.run.with_untracked(|run| run.catching_up)
            {
                return;
            }
            if let Some(Ok(AgoraEvent::SpokenTextContent(spoken))) = wire::agora_event(custom) {
                crate::ui::speech::say(&spoken.delta, self.prefs.lang.get_untracked());
            }
        }

        fn schedule_reconnect(self) {
            if !window().navigator().on_line() {
                // Nothing to try until the browser is back online (`online` retries).
                self.status.set(ConnectionStatus::Offline);
                return;
            }
            let attempt = inner(|inner| {
                inner.attempt += 1;
                inner.awaiting_history = false;
                inner.attempt
            });
            self.status.set(ConnectionStatus::Reconnecting);
            let delay = backoff_ms(attempt, js_sys::Math::random());
            let timer =
                set_timeout_with_handle(move || self.open(), Duration::from_millis(delay.into()))
                    .ok();
            inner(|inner| {
                if let Some(old) = std::mem::replace(&mut inner.timer, timer) {
                    old.clear();
                }
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_thread_is_its_address_and_back() {
        for id in ["2f1c0c8e-6d7a-4a43-9f0e-1b2a3c4d5e6f", "a b/c", "é", "x%y"] {
            assert_eq!(
                thread_in_path(&thread_path(id)).as_deref(),
                Some(id),
                "{id}"
            );
        }
        assert_eq!(thread_in_path("/"), None);
        assert_eq!(thread_in_path("/t/"), None);
        assert_eq!(thread_in_path("/t/a/b"), None);
        assert_eq!(thread_in_path("/t/abc/").as_deref(), Some("abc"));
        assert_eq!(thread_in_path("/t/%ZZ").as_deref(), Some("%ZZ"));
        assert_eq!(thread_in_path("/x/abc"), None);
    }

    #[test]
    fn backoff_doubles_with_jitter_and_a_cap() {
        let table = [
            (1, 250, 500),
            (2, 500, 1000),
            (3, 1000, 2000),
            (5, 4000, 8000),
            (9, 4000, 8000),
            (u32::MAX, 4000, 8000),
        ];
        for (attempt, low, high) in table {
            assert_eq!(backoff_ms(attempt, 0.0), low, "{attempt}");
            assert_eq!(backoff_ms(attempt, 1.0), high, "{attempt}");
            let mid = backoff_ms(attempt, 0.5);
            assert!(low < mid && mid < high, "{attempt}");
        }
    }
}
