//! Sign-in, sign-out and the first admin's set-up: small server-rendered forms, no script.

use axum::Form;
use axum::Router;
use axum::extract::{Query, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{Html, IntoResponse, Redirect, Response};
use axum::routing::get;
use serde::Deserialize;

use std::time::Duration;

use axum::http::request::Parts;

use super::{
    AuthMode, ClientAddress, SESSION_COOKIE, SESSION_DAYS, hash_password, hash_password_blocking,
    hex, random_token, sha256, verify_password_blocking,
};
use crate::protocol::Lang;
use crate::server::sockets::Revoked;
use crate::server::state::AppState;
use crate::server::store::{NewUser, UserRole};
use crate::ui::prefs::request_lang;

pub fn routes() -> Router<AppState> {
    Router::new()
        .route("/login", get(login_page).post(login))
        .route("/logout", axum::routing::post(logout))
        .route("/setup", get(setup_page).post(setup))
}

/// Checked when the email is unknown, so a wrong email costs as long as a wrong password.
fn dummy_hash() -> &'static str {
    static HASH: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    HASH.get_or_init(|| hash_password("no such user"))
}
const MIN_PASSWORD_CHARS: usize = 12;

#[derive(Deserialize)]
pub struct Credentials {
    email: String,
    password: String,
}

#[derive(Deserialize)]
pub struct SetupForm {
    token: String,
    name: String,
    email: String,
    password: String,
}

#[derive(Deserialize)]
pub struct SetupQuery {
    token: Option<String>,
}

/// The sign-in page speaks the browser's language (the page's cookie, else
/// `Accept-Language`) and follows its light or dark theme: no script runs on it, so the theme
/// comes from the `Sec-CH-Prefers-Color-Scheme` client hint (Chromium sends it once asked,
/// `Critical-CH` makes it ask before the first paint); other browsers get the light page.
#[derive(Clone, Copy)]
struct Look {
    lang: Lang,
    dark: bool,
}

impl Look {
    fn of(headers: &HeaderMap) -> Look {
        let dark = headers
            .get("sec-ch-prefers-color-scheme")
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.trim_matches('"') == "dark");
        Look {
            lang: request_lang(headers).unwrap_or(Lang::Nl),
            dark,
        }
    }

    fn text(self, nl: &'static str, en: &'static str) -> &'static str {
        match self.lang {
            Lang::Nl => nl,
            Lang::En => en,
        }
    }

    fn title(self) -> &'static str {
        self.text("Inloggen", "Sign in")
    }
}

/// Asks for the theme hint, and says the page differs by it and by the language.
fn with_hints(mut response: Response) -> Response {
    let headers = response.headers_mut();
    let hint = HeaderValue::from_static("Sec-CH-Prefers-Color-Scheme");
    headers.insert(header::HeaderName::from_static("accept-ch"), hint.clone());
    headers.insert(header::HeaderName::from_static("critical-ch"), hint);
    headers.insert(
        header::VARY,
        HeaderValue::from_static("Sec-CH-Prefers-Color-Scheme, Accept-Language, Cookie"),
    );
    response
}

async fn login_page(State(state): State<AppState>, headers: HeaderMap) -> Response {
    if state.auth.mode != AuthMode::Users {
        return Redirect::to("/").into_response();
    }
    let look = Look::of(&headers);
    with_hints(page_in(look, look.title(), &login_form(look, None, "")).into_response())
}

async fn login(
    State(state): State<AppState>,
    ClientAddress(address): ClientAddress,
    headers: HeaderMap,
    Form(form): Form<Credentials>,
) -> Response {
    let look = Look::of(&headers);
    if state.auth.mode != AuthMode::Users {
        return Redirect::to("/").into_response();
    }
    let account = sha256(&form.email.trim().to_lowercase());
    // The log names the account by a hash prefix: enough to see one account attacked from
    // many addresses, without writing what people typed as their email into the logs.
    let account_tag = hex(&account[..6]);
    if let Some(wait) = state.auth.throttle.blocked(&account, address) {
        tracing::warn!(account = %account_tag, address = ?address, "sign-in blocked by back-off");
        return too_many_tries(look, &form.email, wait);
    }
    let record = match state.db.login_record(&form.email).await {
        Ok(record) => record,
        Err(e) => {
            tracing::error!(error = %e, "login lookup failed");
            return (
                StatusCode::INTERNAL_SERVER_ERROR,
                page_in(
                    look,
                    look.title(),
                    &login_form(
                        look,
                        Some(look.text(
                            "Inloggen lukt nu niet. Probeer het later opnieuw.",
                            "Signing in does not work right now. Please try again later.",
                        )),
                        &form.email,
                    ),
                ),
            )
                .into_response();
        }
    };
    let hash = record.as_ref().and_then(|r| r.password_hash.as_deref());
    let password_ok = verify_password_blocking(&form.password, hash.unwrap_or(dummy_hash())).await;
    let Some(record) = record.filter(|r| password_ok && r.password_hash.is_some() && !r.disabled)
    else {
        state.auth.throttle.failed(&account, address);
        metrics::counter!(crate::orchestrator::metrics::SIGN_IN_FAILURES).increment(1);
        tracing::warn!(account = %account_tag, address = ?address, "failed sign-in");
        let body = page_in(
            look,
            look.title(),
            &login_form(
                look,
                Some(look.text(
                    "Onbekend e-mailadres of onjuist wachtwoord.",
                    "Unknown email address or wrong password.",
                )),
                &form.email,
            ),
        );
        return (StatusCode::UNAUTHORIZED, body).into_response();
    };
    state.auth.throttle.succeeded(&account, address);
    sign_in(&state, &record.user.id).await
}

/// 429 with `Retry-After`, and the form again saying how long to wait.
fn too_many_tries(look: Look, email: &str, wait: Duration) -> Response {
    let seconds = wait.as_secs().max(1);
    let minutes = seconds.div_ceil(60);
    let message = match (look.lang, minutes) {
        (Lang::Nl, 1) => "Te veel mislukte pogingen. Probeer het over 1 minuut opnieuw.".to_owned(),
        (Lang::Nl, n) => {
            format!("Te veel mislukte pogingen. Probeer het over {n} minuten opnieuw.")
        }
        (Lang::En, 1) => "Too many failed attempts. Try again in 1 minute.".to_owned(),
        (Lang::En, n) => format!("Too many failed attempts. Try again in {n} minutes."),
    };
    let mut response = (
        StatusCode::TOO_MANY_REQUESTS,
        page_in(look, look.title(), &login_form(look, Some(&message), email)),
    )
        .into_response();
    response
        .headers_mut()
        .insert(header::RETRY_AFTER, HeaderValue::from(seconds));
    response
}

/// Ends the session of the cookie, and closes the sockets it opened.
async fn logout(State(state): State<AppState>, parts: Parts) -> Response {
    if let Ok(user) = state.auth.identify(state.db.as_ref(), &parts).await
        && let Some(session) = &user.session
    {
        if let Err(e) = state.db.delete_session(session).await {
            tracing::error!(error = %e, "sign-out could not end the session");
        }
        state
            .sockets
            .revoke_session(&user.id, session, Revoked::SignedOut);
    }
    let mut response = Redirect::to("/login").into_response();
    let expired = format!(
        "{SESSION_COOKIE}=; HttpOnly; SameSite=Strict; Path=/; Max-Age=0{}",
        secure(&state)
    );
    response.headers_mut().insert(
        header::SET_COOKIE,
        HeaderValue::from_str(&expired).expect("ascii cookie"),
    );
    // The browser forgets what this user left in it (the open thread, drafts, the offline
    // queue), so the next person on a shared tablet starts clean; no script needed.
    response.headers_mut().insert(
        header::HeaderName::from_static("clear-site-data"),
        HeaderValue::from_static("\"cache\", \"storage\""),
    );
    response
}

async fn setup_page(State(state): State<AppState>, Query(query): Query<SetupQuery>) -> Response {
    match query.token {
        Some(token) if state.auth.setup_token_is(&token) => {
            page("Eerste beheerder", &setup_form(&token, None)).into_response()
        }
        _ => (
            StatusCode::NOT_FOUND,
            page(
                "Niet gevonden",
                "<p>Deze link is ongeldig of al gebruikt.</p>",
            ),
        )
            .into_response(),
    }
}

async fn setup(State(state): State<AppState>, Form(form): Form<SetupForm>) -> Response {
    if !state.auth.setup_token_is(&form.token) {
        return (
            StatusCode::NOT_FOUND,
            page(
                "Niet gevonden",
                "<p>Deze link is ongeldig of al gebruikt.</p>",
            ),
        )
            .into_response();
    }
    if form.password.chars().count() < MIN_PASSWORD_CHARS
        || form.name.trim().is_empty()
        || !form.email.contains('@')
    {
        let error = format!(
            "Vul naam en e-mailadres in; het wachtwoord heeft minstens {MIN_PASSWORD_CHARS} tekens."
        );
        return (
            StatusCode::BAD_REQUEST,
            page("Eerste beheerder", &setup_form(&form.token, Some(&error))),
        )
            .into_response();
    }
    let created = state
        .db
        .create_user(&NewUser {
            id: None,
            email: form.email.trim().to_owned(),
            name: form.name.trim().to_owned(),
            role: UserRole::Admin,
        })
        .await;
    let user = match created {
        Ok(user) => user,
        Err(e) => {
            let error = format!("Het account kon niet worden gemaakt: {e}");
            return (
                StatusCode::CONFLICT,
                page("Eerste beheerder", &setup_form(&form.token, Some(&error))),
            )
                .into_response();
        }
    };
    if let Err(e) = state
        .db
        .set_password(
            &user.id,
            &hash_password_blocking(&form.password).await,
            None,
        )
        .await
    {
        tracing::error!(error = %e, "could not store the first admin's password");
        return StatusCode::INTERNAL_SERVER_ERROR.into_response();
    }
    state.auth.take_setup_token(&form.token);
    tracing::info!(user = %user.id, "first admin created");
    sign_in(&state, &user.id).await
}

/// Starts a session and sends the user to the app.
async fn sign_in(state: &AppState, user_id: &str) -> Response {
    let token = random_token();
    let expires_at = crate::clock::now_millis() as i64 + SESSION_DAYS * 24 * 3600 * 1000;
    if let Err(e) = state
        .db
        .create_session(&hex(&sha256(&token)), user_id, expires_at)
        .await
    {
        tracing::error!(error = %e, "could not start a session");
        return StatusCode::INTERNAL_SERVER_ERROR.into_response();
    }
    let cookie = format!(
        "{SESSION_COOKIE}={token}; HttpOnly; SameSite=Strict; Path=/; Max-Age={}{}",
        SESSION_DAYS * 24 * 3600,
        secure(state)
    );
    let mut response = Redirect::to("/").into_response();
    response.headers_mut().insert(
        header::SET_COOKIE,
        HeaderValue::from_str(&cookie).expect("hex token"),
    );
    response
}

fn secure(state: &AppState) -> &'static str {
    if state.auth.secure_cookies {
        "; Secure"
    } else {
        ""
    }
}

/// The sign-in form; after a failed attempt it keeps the typed email and puts the focus on
/// the password, so only that has to be typed again.
fn login_form(look: Look, error: Option<&str>, email: &str) -> String {
    let retry = if email.is_empty() { "" } else { " autofocus" };
    format!(
        r#"{}<form method="post" action="/login" class="flex flex-col gap-3">
  <label class="flex flex-col gap-1 text-sm font-medium">{email_label}
    <input name="email" type="email" autocomplete="username" required value="{}" class="rounded-lg border border-slate-300 p-2 font-normal dark:border-slate-700 dark:bg-slate-900"></label>
  <label class="flex flex-col gap-1 text-sm font-medium">{password_label}
    <input name="password" type="password" autocomplete="current-password" required{retry} class="rounded-lg border border-slate-300 p-2 font-normal dark:border-slate-700 dark:bg-slate-900"></label>
  <button type="submit" class="rounded-lg bg-emerald-700 px-4 py-2 font-medium text-white">{submit}</button>
</form>"#,
        error_block(error),
        escape(email),
        email_label = look.text("E-mailadres", "Email address"),
        password_label = look.text("Wachtwoord", "Password"),
        submit = look.title(),
    )
}

fn setup_form(token: &str, error: Option<&str>) -> String {
    format!(
        r#"{}<p class="mb-3 text-sm">Maak het eerste beheerdersaccount. Deze link werkt één keer.</p>
<form method="post" action="/setup" class="flex flex-col gap-3">
  <input type="hidden" name="token" value="{}">
  <label class="flex flex-col gap-1 text-sm font-medium">Naam
    <input name="name" required class="rounded-lg border border-slate-300 p-2 font-normal dark:border-slate-700 dark:bg-slate-900"></label>
  <label class="flex flex-col gap-1 text-sm font-medium">E-mailadres
    <input name="email" type="email" autocomplete="username" required class="rounded-lg border border-slate-300 p-2 font-normal dark:border-slate-700 dark:bg-slate-900"></label>
  <label class="flex flex-col gap-1 text-sm font-medium">Wachtwoord (minstens {MIN_PASSWORD_CHARS} tekens)
    <input name="password" type="password" autocomplete="new-password" minlength="{MIN_PASSWORD_CHARS}" required class="rounded-lg border border-slate-300 p-2 font-normal dark:border-slate-700 dark:bg-slate-900"></label>
  <button type="submit" class="rounded-lg bg-emerald-700 px-4 py-2 font-medium text-white">Account maken</button>
</form>"#,
        error_block(error),
        escape(token)
    )
}

fn error_block(error: Option<&str>) -> String {
    error.map_or_else(String::new, |e| {
        format!(
            r#"<p role="alert" class="mb-3 rounded-lg bg-red-100 p-2 text-sm text-red-900">{}</p>"#,
            escape(e)
        )
    })
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
        .replace('\'', "&#39;")
}

fn page(title: &str, body: &str) -> Html<String> {
    page_in(
        Look {
            lang: Lang::Nl,
            dark: false,
        },
        title,
        body,
    )
}

/// A page in `look`'s language and theme.
fn page_in(look: Look, title: &str, body: &str) -> Html<String> {
    Html(format!(
        r#"<!DOCTYPE html><html lang="{lang}"{dark}><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title} · AGORA HAI</title><link rel="icon" href="/favicon.ico"><link rel="stylesheet" href="/pkg/agora-hai.css"></head>
<body class="flex min-h-dvh items-center justify-center bg-slate-50 p-4 text-slate-900 dark:bg-slate-950 dark:text-slate-100">
<main class="w-full max-w-sm rounded-xl border border-slate-200 bg-white p-6 shadow-sm dark:border-slate-800 dark:bg-slate-900">
<div class="mb-4 flex items-center gap-2"><span class="rounded bg-emerald-700 px-2 py-0.5 text-sm font-bold text-white">NVWA</span><h1 class="text-lg font-semibold">{title}</h1></div>
{body}</main></body></html>"#,
        title = escape(title),
        lang = look.lang.code(),
        dark = if look.dark { r#" class="dark""# } else { "" },
    ))
}
