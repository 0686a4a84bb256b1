//! The hardening around every route: who may come in, how much they may send and start, and
//! the headers that keep a browser from being turned against the user.

use crate::orchestrator::knowledge::read_data_file;
use axum::Router;
use axum::extract::{Request, State};
use axum::http::{HeaderValue, Method, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Redirect, Response};
use leptos::prelude::use_context;
use tower_http::set_header::SetResponseHeaderLayer;

use super::auth::{AuthError, AuthMode, Authenticator, hash_password_blocking, parse_api_keys};
use super::config::Config;
use super::error::AppError;
use super::state::AppState;
use super::store::{Database, NewUser, UserRole};

/// Request bodies above this are refused (413): nothing in the API needs more.
pub const MAX_BODY_BYTES: usize = 2 << 20;

/// The policy for the app page: its own scripts only (Leptos' inline loader carries the nonce),
/// wasm compiled from its own origin, the socket on its own host, no framing.
pub fn page_policy(nonce: &str) -> String {
    format!(
        "default-src 'self'; script-src 'self' 'nonce-{nonce}' 'wasm-unsafe-eval'; style-src 'self'; \
         img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; \
         form-action 'self'; object-src 'none'"
    )
}

/// For everything else (sign-in forms, JSON, files): no scripts at all.
const DEFAULT_POLICY: &str = "default-src 'self'; script-src 'none'; frame-ancestors 'none'; base-uri 'none'; \
                              form-action 'self'; object-src 'none'";

/// Called while Leptos renders the page: the CSP names the nonce Leptos put on its scripts.
pub fn page_context() {
    if let (Some(nonce), Some(response)) = (
        leptos::nonce::use_nonce(),
        use_context::<leptos_axum::ResponseOptions>(),
    ) {
        let policy = HeaderValue::from_str(&page_policy(&nonce)).expect("nonce is base64");
        response.insert_header(header::CONTENT_SECURITY_POLICY, policy);
    }
}

pub fn with_security_headers<S: Clone + Send + Sync + 'static>(router: Router<S>) -> Router<S> {
    router
        .layer(SetResponseHeaderLayer::if_not_present(
            header::CONTENT_SECURITY_POLICY,
            HeaderValue::from_static(DEFAULT_POLICY),
        ))
        .layer(SetResponseHeaderLayer::overriding(
            header::X_CONTENT_TYPE_OPTIONS,
            HeaderValue::from_static("nosniff"),
        ))
        .layer(SetResponseHeaderLayer::overriding(
            header::X_FRAME_OPTIONS,
            HeaderValue::from_static("DENY"),
        ))
        .layer(SetResponseHeaderLayer::overriding(
            header::REFERRER_POLICY,
            HeaderValue::from_static("no-referrer"),
        ))
}

/// Whether a browser request's `Origin` may act here: the page's own origin (its host), or one
/// of `--allowed-origins`. Without an `Origin` header (not a browser) it may.
pub(crate) fn origin_allowed(headers: &axum::http::HeaderMap, allowed: &[String]) -> bool {
    let Some(origin) = headers.get(header::ORIGIN).and_then(|v| v.to_str().ok()) else {
        return true;
    };
    if allowed
        .iter()
        .any(|a| a.trim_end_matches('/').eq_ignore_ascii_case(origin))
    {
        return true;
    }
    let host = headers.get(header::HOST).and_then(|v| v.to_str().ok());
    let origin_host = origin.split_once("://").map(|(_, rest)| rest);
    allowed.is_empty() && host.is_some() && origin_host == host
}

/// Refuses a state-changing request a browser sends from another origin (CSRF), sign-in
/// included. SameSite cookies do not cover another port or subdomain of the same site, so the
/// browser's own `Origin` and `Sec-Fetch-Site` are checked. Clients that are not browsers send
/// neither and are judged by their credentials alone.
pub async fn same_origin_writes(
    State(state): State<AppState>,
    request: Request,
    next: Next,
) -> Response {
    let safe = matches!(
        *request.method(),
        Method::GET | Method::HEAD | Method::OPTIONS
    );
    if safe {
        return next.run(request).await;
    }
    let headers = request.headers();
    let allowed = &state.config.allowed_origins;
    let cross_site_fetch = headers
        .get("sec-fetch-site")
        .and_then(|v| v.to_str().ok())
        .is_some_and(|site| !matches!(site, "same-origin" | "none"));
    // `Origin: null` is what a browser sends for a same-origin form post under
    // `Referrer-Policy: no-referrer` (our pages' policy): `Sec-Fetch-Site` decides then.
    let origin = headers.get(header::ORIGIN).and_then(|v| v.to_str().ok());
    let refused = match origin {
        Some(origin) if origin != "null" => !origin_allowed(headers, allowed),
        _ => cross_site_fetch,
    };
    if refused {
        let origin = headers
            .get(header::ORIGIN)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("-");
        tracing::warn!(origin = ?origin, path = %request.uri().path(), "refused a cross-origin write");
        return AppError::Forbidden(
            "This request comes from another site; it is refused.".to_owned(),
        )
        .into_response();
    }
    next.run(request).await
}

/// Sends a browser without a session to the sign-in page instead of an app that cannot work.
pub async fn require_sign_in(
    State(state): State<AppState>,
    request: Request,
    next: Next,
) -> Response {
    let path = request.uri().path();
    let is_page = request.method() == Method::GET && (path == "/" || path.starts_with("/t/"));
    if !is_page {
        return next.run(request).await;
    }
    let (mut parts, body) = request.into_parts();
    match state.auth.identify(state.db.as_ref(), &parts).await {
        Ok(user) => {
            // The page renders in the user's stored language (`ui::prefs::page_lang`).
            if let Ok(record) = state.db.user(&user.id).await {
                parts
                    .extensions
                    .insert(crate::protocol::Lang::parse(&record.preferences.language));
            }
            next.run(Request::from_parts(parts, body)).await
        }
        Err(_) if state.auth.mode == AuthMode::Dev => {
            next.run(Request::from_parts(parts, body)).await
        }
        Err(AuthError::Missing | AuthError::Invalid) if state.auth.mode == AuthMode::Users => {
            Redirect::to("/login").into_response()
        }
        Err(e) => AppError::Unauthorized(e.to_string()).into_response(),
    }
}

/// Builds the authenticator the configuration asks for, and makes sure `users` mode has a way in.
/// The keys file is refused unless it is a regular file of at most 1 MiB (a named pipe hung the start).
pub async fn authenticator(config: &Config, db: &dyn Database) -> anyhow::Result<Authenticator> {
    let mut api_keys = Vec::new();
    if let Some(keys) = &config.api_keys {
        api_keys.extend(parse_api_keys(keys).map_err(anyhow::Error::msg)?);
    }
    if let Some(path) = &config.api_keys_file {
        api_keys
            .extend(parse_api_keys(&read_data_file(path, 1 << 20)?).map_err(anyhow::Error::msg)?);
    }
    let auth = Authenticator::new(
        config.auth,
        &api_keys,
        config.trusted_proxies.clone(),
        &config.proxy_user_header,
        config.secure_cookies,
    );
    match config.auth {
        AuthMode::Dev => tracing::warn!(
            "AUTHENTICATION IS OFF (--auth dev): anyone who reaches this server can read and write every thread. \
             Never use this outside development."
        ),
        AuthMode::ApiKey if api_keys.is_empty() => {
            anyhow::bail!("--auth api-key needs AGORA_API_KEYS or AGORA_API_KEYS_FILE")
        }
        AuthMode::Proxy if config.trusted_proxies.is_empty() => {
            anyhow::bail!("--auth proxy needs AGORA_TRUSTED_PROXIES")
        }
        AuthMode::ApiKey | AuthMode::Proxy => {}
        AuthMode::Users => bootstrap_admin(config, db, &auth).await?,
    }
    tracing::info!(mode = ?config.auth, "authentication");
    Ok(auth)
}

/// The first admin comes from configuration, or from a one-time link printed at first start.
async fn bootstrap_admin(
    config: &Config,
    db: &dyn Database,
    auth: &Authenticator,
) -> anyhow::Result<()> {
    if let (Some(email), Some(password)) = (&config.admin_email, &config.admin_password) {
        if password.chars().count() < 12 {
            anyhow::bail!("AGORA_ADMIN_PASSWORD must have at least 12 characters");
        }
        let user = match db.login_record(email).await? {
            Some(record) => record.user,
            None => {
                let name = email.split('@').next().unwrap_or(email).to_owned();
                let new = NewUser {
                    id: None,
                    email: email.clone(),
                    name,
                    role: UserRole::Admin,
                };
                db.create_user(&new).await?
            }
        };
        if user.role != UserRole::Admin {
            anyhow::bail!("AGORA_ADMIN_EMAIL {email} belongs to an account that is not an admin");
        }
        if db.is_disabled(&user.id).await? {
            // An admin who disabled this account meant it; a restart must not undo that.
            tracing::warn!(user = %user.id, "the configured admin account is disabled; left so");
        } else {
            db.set_password(&user.id, &hash_password_blocking(password).await, None)
                .await?;
            tracing::info!(user = %user.id, "admin account from configuration");
        }
    } else if !db.has_admin_login().await? {
        let token = auth.issue_setup_token();
        let host = match config.addr.ip() {
            ip if ip.is_unspecified() => format!("localhost:{}", config.addr.port()),
            _ => config.addr.to_string(),
        };
        tracing::warn!(
            "no admin can sign in yet: create the first one at http://{host}/setup?token={token} (valid until restart)"
        );
    }
    Ok(())
}
