//! Who is asking: one decision for REST, pages and the WebSocket, by the mode `AGORA_AUTH` picks.
//!
//! - `users`: accounts with argon2 password hashes and an HttpOnly, SameSite=Strict session cookie.
//! - `api-key`: `X-API-Key` (REST) or `?token=` (WebSocket), keys from configuration.
//! - `proxy`: a user header set by an SSO reverse proxy, trusted only from its addresses.
//! - `dev`: no sign-in; a client may say who it is (`X-User-Id`, `user_id`, `userId`).

mod extract;
mod pages;
mod password;
mod throttle;

use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr};
use std::sync::Mutex;

use axum::extract::{ConnectInfo, Query};
use axum::http::request::Parts;
use sha2::{Digest, Sha256};

pub use pages::routes;
pub use password::{
    hash_password, hash_password_blocking, verify_password, verify_password_blocking,
};
pub use throttle::SignInThrottle;

use super::error::AppError;
use super::run_limits::AccountKind;
use super::store::{DEV_USER_ID, Database, UserRole};

/// Chosen by `--auth`; defined with the configuration, which reads it.
pub use super::config::AuthMode;

pub const SESSION_COOKIE: &str = "agora_session";
/// How long a sign-in lasts.
pub const SESSION_DAYS: i64 = 7;

/// The signed-in user of a request or a socket.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CurrentUser {
    pub id: String,
    pub role: UserRole,
    /// The hash of the session cookie that signed this request in (`users` mode only), so
    /// signing out closes exactly that session's sockets.
    pub session: Option<String>,
    /// Which run limit applies: an API key signs in a program, which serves many sockets.
    pub kind: AccountKind,
}

impl CurrentUser {
    /// Whether `thread` is this user's: the one ownership rule of REST, and of the command
    /// layer's `Caller::owns` (which adds dev mode's).
    pub fn owns(&self, thread: &crate::orchestrator::store::ThreadRecord) -> bool {
        thread.owner == self.id
    }
}

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum AuthError {
    #[error("sign in first")]
    Missing,
    #[error("the key or session is not valid")]
    Invalid,
    #[error("storage failure")]
    Store,
}

/// The authentication configuration and the one-time set-up link, shared by all requests.
pub struct Authenticator {
    pub mode: AuthMode,
    /// SHA-256 of each key → the user it signs in, so keys are compared without timing leaks
    /// on their text and never kept in memory as given.
    api_keys: HashMap<[u8; 32], String>,
    /// Only requests from these addresses may set the proxy's user header.
    trusted_proxies: Vec<IpAddr>,
    /// Lower case, as axum stores header names.
    proxy_header: String,
    /// Set on cookies when the site is served over HTTPS.
    pub secure_cookies: bool,
    /// The token of the first-start link that creates the first admin; gone once used.
    setup_token: Mutex<Option<String>>,
    /// Failed sign-ins per account and address, for the back-off.
    pub throttle: SignInThrottle,
}

impl Authenticator {
    pub fn new(
        mode: AuthMode,
        api_keys: &[(String, String)],
        trusted_proxies: Vec<IpAddr>,
        proxy_header: &str,
        secure_cookies: bool,
    ) -> Self {
        Self {
            mode,
            api_keys: api_keys
                .iter()
                .map(|(user, key)| (sha256(key), user.clone()))
                .collect(),
            trusted_proxies,
            proxy_header: proxy_header.to_ascii_lowercase(),
            secure_cookies,
            setup_token: Mutex::new(None),
            throttle: SignInThrottle::default(),
        }
    }

    /// The client's address: the peer's, or, when the peer is a trusted proxy, the nearest
    /// address in `X-Forwarded-For` that is not itself a trusted proxy. Proxies append the
    /// address they saw, so reading from the end skips a chain of trusted proxies and never
    /// reaches the addresses the client wrote itself.
    pub fn client_address(&self, parts: &Parts) -> Option<IpAddr> {
        let peer = parts
            .extensions
            .get::<ConnectInfo<SocketAddr>>()
            .map(|c| c.0.ip())?;
        if !self.trusted_proxies.contains(&peer) {
            return Some(peer);
        }
        let forwarded: Vec<Option<IpAddr>> = parts
            .headers
            .get_all("x-forwarded-for")
            .iter()
            .flat_map(|v| v.to_str().unwrap_or_default().split(','))
            .map(|ip| ip.trim().parse::<IpAddr>().ok())
            .collect();
        for address in forwarded.into_iter().rev() {
            match address {
                Some(ip) if self.trusted_proxies.contains(&ip) => continue,
                Some(ip) => return Some(ip),
                // Something unreadable where an address should be: the client wrote it, and
                // the nearest proxy's peer is as far as this can be trusted.
                None => break,
            }
        }
        Some(peer)
    }

    /// Who sent these request parts. `token` is the WebSocket's `?token=`.
    pub async fn identify(
        &self,
        db: &dyn Database,
        parts: &Parts,
    ) -> Result<CurrentUser, AuthError> {
        match self.mode {
            AuthMode::Dev => Ok(CurrentUser {
                id: dev_user(parts).unwrap_or_else(|| DEV_USER_ID.to_owned()),
                role: UserRole::Admin,
                session: None,
                kind: AccountKind::Person,
            }),
            AuthMode::ApiKey => {
                // A key in a URL ends up in logs and histories; only the WebSocket, which a
                // browser cannot give headers, may carry it there.
                let key = header(parts, "x-api-key")?
                    .or_else(|| is_websocket(parts).then(|| query(parts, "token")).flatten())
                    .ok_or(AuthError::Missing)?;
                let user = self.api_keys.get(&sha256(&key)).ok_or(AuthError::Invalid)?;
                Ok(CurrentUser {
                    id: user.clone(),
                    role: UserRole::Inspector,
                    session: None,
                    kind: AccountKind::Service,
                })
            }
            AuthMode::Proxy => {
                let peer = parts
                    .extensions
                    .get::<ConnectInfo<SocketAddr>>()
                    .map(|c| c.0.ip());
                if !peer.is_some_and(|ip| self.trusted_proxies.contains(&ip)) {
                    return Err(AuthError::Invalid);
                }
                let user = header(parts, &self.proxy_header)?.ok_or(AuthError::Missing)?;
                Ok(CurrentUser {
                    id: user,
                    role: UserRole::Inspector,
                    session: None,
                    kind: AccountKind::Person,
                })
            }
            AuthMode::Users => {
                let token = cookie(parts, SESSION_COOKIE).ok_or(AuthError::Missing)?;
                let session = hex(&sha256(&token));
                let user = db
                    .session_user(&session, crate::clock::now_millis() as i64)
                    .await
                    .map_err(|_| AuthError::Store)?
                    .ok_or(AuthError::Invalid)?;
                Ok(CurrentUser {
                    id: user.id,
                    role: user.role,
                    session: Some(session),
                    kind: AccountKind::Person,
                })
            }
        }
    }

    /// Makes the one-time set-up link's token (printed at first start).
    pub fn issue_setup_token(&self) -> String {
        let token = random_token();
        *self.setup_token.lock().unwrap_or_else(|p| p.into_inner()) = Some(token.clone());
        token
    }

    /// Uses up the set-up token if `token` is it.
    fn take_setup_token(&self, token: &str) -> bool {
        let mut slot = self.setup_token.lock().unwrap_or_else(|p| p.into_inner());
        let matches = slot
            .as_deref()
            .is_some_and(|expected| constant_time_eq(expected.as_bytes(), token.as_bytes()));
        if matches {
            *slot = None;
        }
        matches
    }

    fn setup_token_is(&self, token: &str) -> bool {
        let slot = self.setup_token.lock().unwrap_or_else(|p| p.into_inner());
        slot.as_deref()
            .is_some_and(|expected| constant_time_eq(expected.as_bytes(), token.as_bytes()))
    }
}

/// Where a request comes from, for the sign-in back-off and the logs.
pub struct ClientAddress(pub Option<IpAddr>);

/// An admin, or 403.
pub fn require_admin(user: &CurrentUser) -> Result<(), AppError> {
    match user.role {
        UserRole::Admin => Ok(()),
        UserRole::Inspector | UserRole::Viewer => {
            Err(AppError::Forbidden("only an admin may do this".to_owned()))
        }
    }
}

/// In dev mode a client names itself: `X-User-Id`, else `user_id` in the query.
fn dev_user(parts: &Parts) -> Option<String> {
    header(parts, "x-user-id")
        .ok()
        .flatten()
        .or_else(|| query(parts, "user_id"))
}

/// A header that says who is asking. Sent twice it is refused, not guessed at: a proxy that
/// appends its header to one the client sent would otherwise let the client's win.
fn header(parts: &Parts, name: &str) -> Result<Option<String>, AuthError> {
    let mut values = parts.headers.get_all(name).iter();
    let Some(first) = values.next() else {
        return Ok(None);
    };
    if values.next().is_some() {
        return Err(AuthError::Invalid);
    }
    let value = first.to_str().map_err(|_| AuthError::Invalid)?.trim();
    Ok((!value.is_empty()).then(|| value.to_owned()))
}

/// Whether the request asks for a WebSocket upgrade.
fn is_websocket(parts: &Parts) -> bool {
    parts
        .headers
        .get(axum::http::header::UPGRADE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.eq_ignore_ascii_case("websocket"))
}

fn query(parts: &Parts, name: &str) -> Option<String> {
    let Query(mut map) = Query::<HashMap<String, String>>::try_from_uri(&parts.uri).ok()?;
    map.remove(name)
        .map(|v| v.trim().to_owned())
        .filter(|v| !v.is_empty())
}

fn cookie(parts: &Parts, name: &str) -> Option<String> {
    parts
        .headers
        .get_all(axum::http::header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(key, _)| *key == name)
        .map(|(_, value)| value.to_owned())
}

pub fn sha256(text: &str) -> [u8; 32] {
    Sha256::digest(text.as_bytes()).into()
}

pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// 256 random bits, hex.
pub fn random_token() -> String {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes).expect("the operating system provides randomness");
    hex(&bytes)
}

fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// `user:key,user:key`, as `AGORA_API_KEYS` or the key file gives them.
pub fn parse_api_keys(text: &str) -> Result<Vec<(String, String)>, String> {
    text.split([',', '\n'])
        .map(str::trim)
        .filter(|entry| !entry.is_empty() && !entry.starts_with('#'))
        .map(|entry| match entry.split_once(':') {
            Some((user, key)) if !user.trim().is_empty() && key.trim().len() >= 16 => {
                Ok((user.trim().to_owned(), key.trim().to_owned()))
            }
            _ => Err(
                "each API key entry is `user:key`, with a key of at least 16 characters".to_owned(),
            ),
        })
        .collect()
}
