//! The AGORA AG-UI WebSocket endpoint.

use axum::extract::State;
use axum::extract::ws::{Message, WebSocket, WebSocketUpgrade};
use axum::response::Response;

use super::AppState;

pub async fn upgrade(ws: WebSocketUpgrade, State(_state): State<AppState>) -> Response {
    ws.max_message_size(1 << 20).on_upgrade(serve_socket)
}

async fn serve_socket(mut socket: WebSocket) {
    while let Some(Ok(message)) = socket.recv().await {
        if let Message::Close(_) = message {
            break;
        }
    }
}
