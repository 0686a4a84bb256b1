//! The page's one WebSocket to `/ws`, shared through context.

use leptos::prelude::*;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConnectionStatus {
    Connecting,
    Connected,
    Reconnecting,
    Failed,
}

/// Handle to the socket; `Copy` so event handlers can capture it freely.
#[derive(Clone, Copy)]
pub struct Connection {
    /// Drives the header badge.
    pub status: RwSignal<ConnectionStatus>,
    /// The live socket; browser-only, hence local storage.
    #[cfg(feature = "hydrate")]
    socket: StoredValue<Option<web_sys::WebSocket>, LocalStorage>,
}

impl Connection {
    pub fn provide() -> Self {
        let connection = Self {
            status: RwSignal::new(ConnectionStatus::Connecting),
            #[cfg(feature = "hydrate")]
            socket: StoredValue::new_local(None),
        };
        #[cfg(feature = "hydrate")]
        Effect::new(move |_| connection.open());
        provide_context(connection);
        connection
    }

    pub fn send_text(&self, text: String) {
        let _ = text;
    }

    #[cfg(feature = "hydrate")]
    fn open(self) {
        use wasm_bindgen::JsCast;
        use wasm_bindgen::closure::Closure;

        let location = window().location();
        let scheme = if location.protocol().as_deref() == Ok("https:") {
            "wss"
        } else {
            "ws"
        };
        let host = location.host().unwrap_or_default();
        let Ok(socket) = web_sys::WebSocket::new(&format!("{scheme}://{host}/ws")) else {
            self.status.set(ConnectionStatus::Failed);
            return;
        };
        let on_open =
            Closure::<dyn FnMut()>::new(move || self.status.set(ConnectionStatus::Connected));
        socket.set_onopen(Some(on_open.as_ref().unchecked_ref()));
        on_open.forget();
        let on_close =
            Closure::<dyn FnMut()>::new(move || self.status.set(ConnectionStatus::Failed));
        socket.set_onclose(Some(on_close.as_ref().unchecked_ref()));
        on_close.forget();
        self.socket.set_value(Some(socket));
    }
}
