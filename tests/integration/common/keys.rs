//! A server whose accounts sign in by API key: the named users the ownership tests set against
//! each other (Koen owns the work, Anna and Eve must not reach it).

use agora_hai::server::Config;
use agora_hai::server::auth::AuthMode;

use super::{Socket, TestServer};

pub const KOEN: &str = "koen-secret-key-0001";
pub const ANNA: &str = "anna-secret-key-0002";
pub const EVE: &str = "eve-secret-key-00002";

/// Signs in by API key, with Koen, Anna and Eve as the accounts.
pub fn with_keys(config: &mut Config) {
    config.auth = AuthMode::ApiKey;
    config.api_keys = Some(format!("koen:{KOEN},anna:{ANNA},eve:{EVE}"));
}

/// A server with the three key accounts.
pub async fn key_server() -> TestServer {
    TestServer::start_with(with_keys).await
}

/// A server with the three key accounts and more settings.
pub async fn key_server_with(configure: impl FnOnce(&mut Config)) -> TestServer {
    TestServer::start_with(|config| {
        with_keys(config);
        configure(config);
    })
    .await
}

/// A `/ws` socket signed in with `key`.
pub async fn socket_of(server: &TestServer, key: &str) -> Socket {
    Socket::connect(&format!("ws://{}/ws?token={key}", server.addr)).await
}
