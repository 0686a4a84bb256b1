//! Users and their preferences. Invalid input is 400 and a taken email 409, as the contract
//! says; a malformed `limit`/`offset` is 422 like everywhere else.

use std::collections::HashMap;

use axum::Json;
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use serde_json::{Value, json};

use super::body::{Body, RequestBody};
use super::{AppError, CurrentUser, Paging, timestamp};
use crate::protocol::rest::{CreateUser, UpdateUser, UserProfile};
use crate::server::auth::{AuthMode, hash_password_blocking, require_admin};
use crate::server::sockets::Revoked;
use crate::server::state::AppState;
use crate::server::store::{NewUser, PreferencesUpdate, UserRecord, UserRole, UserUpdate};

/// Longest display name accepted.
const MAX_NAME_CHARS: usize = 200;

/// The contract's `UserProfile`.
fn profile(user: &UserRecord) -> UserProfile {
    UserProfile {
        id: user.id.clone(),
        email: user.email.clone(),
        name: user.name.clone(),
        role: user.role,
        preferences: user.preferences.clone(),
        created_at: timestamp(user.created_at),
        last_activity: timestamp(user.last_activity),
    }
}

fn bad(message: impl Into<String>) -> AppError {
    AppError::BadRequest(message.into())
}

/// A display name: text, not blank, at most [`MAX_NAME_CHARS`] characters.
fn valid_name(raw: &str) -> Result<String, AppError> {
    let name = raw.trim();
    if name.is_empty() {
        return Err(bad("name must not be empty"));
    }
    if name.chars().count() > MAX_NAME_CHARS {
        return Err(bad(format!(
            "name must be at most {MAX_NAME_CHARS} characters"
        )));
    }
    Ok(name.to_owned())
}

/// A plausible address: `local@domain.tld` without spaces. Delivery is not checked.
fn valid_email(raw: &str) -> Result<String, AppError> {
    let email = raw.trim();
    let plausible = email.len() <= 254
        && !email.chars().any(char::is_whitespace)
        && email.split_once('@').is_some_and(|(local, domain)| {
            !local.is_empty()
                && !domain.contains('@')
                && domain.split('.').count() >= 2
                && domain.split('.').all(|label| !label.is_empty())
        });
    if plausible {
        Ok(email.to_owned())
    } else {
        Err(bad(format!("{raw:?} is not a valid email address")))
    }
}

fn valid_role(raw: &str) -> Result<UserRole, AppError> {
    UserRole::parse(raw.trim()).ok_or_else(|| {
        bad(format!(
            "role must be admin, inspector or viewer, not {raw:?}"
        ))
    })
}

/// A preferences update whose fields the types cannot check: the agent must exist, the
/// language be a tag.
fn checked_preferences(mut update: PreferencesUpdate) -> Result<PreferencesUpdate, AppError> {
    if let Some(raw) = update.default_agent_id.take() {
        let agent = crate::orchestrator::agents::agent(raw.trim())
            .ok_or_else(|| bad(format!("default_agent_id {raw:?} is not an agent")))?;
        update.default_agent_id = Some(agent.id.to_owned());
    }
    if let Some(raw) = update.language.take() {
        let language = raw.trim();
        if language.is_empty() || language.len() > 35 {
            return Err(bad("language must be a language tag such as nl-NL"));
        }
        update.language = Some(language.to_owned());
    }
    Ok(update)
}

impl RequestBody for PreferencesUpdate {}
impl RequestBody for CreateUser {}
impl RequestBody for UpdateUser {}

/// `GET /users/me`: the bare `UserProfile`.
pub async fn me(
    State(state): State<AppState>,
    user: CurrentUser,
) -> Result<Json<UserProfile>, AppError> {
    let record = state.db.user(&user.id).await?;
    Ok(Json(profile(&record)))
}

/// `GET /users/me/preferences`.
pub async fn preferences(
    State(state): State<AppState>,
    user: CurrentUser,
) -> Result<Json<Value>, AppError> {
    let preferences = state.db.preferences(&user.id).await?;
    Ok(Json(json!({ "success": true, "preferences": preferences })))
}

/// `PUT /users/me/preferences`: a partial update; no known field is 400.
pub async fn update_preferences(
    State(state): State<AppState>,
    user: CurrentUser,
    Body(update): Body<PreferencesUpdate>,
) -> Result<Json<Value>, AppError> {
    let update = checked_preferences(update)?;
    if update.is_empty() {
        return Err(bad("No preference fields provided"));
    }
    let preferences = state.db.update_preferences(&user.id, &update).await?;
    Ok(Json(json!({ "success": true, "preferences": preferences })))
}

/// `POST /users` with `{email, name, role?}`: 201, 400 for invalid input, 409 for a taken email.
pub async fn create(
    State(state): State<AppState>,
    admin: CurrentUser,
    Body(body): Body<CreateUser>,
) -> Result<(StatusCode, Json<Value>), AppError> {
    require_admin(&admin)?;
    let password = body.password.as_deref().map(valid_password).transpose()?;
    let email = valid_email(
        body.email
            .as_deref()
            .ok_or_else(|| bad("email is required"))?,
    )?;
    let name = valid_name(
        body.name
            .as_deref()
            .ok_or_else(|| bad("name is required"))?,
    )?;
    let role = body
        .role
        .as_deref()
        .map(valid_role)
        .transpose()?
        .unwrap_or(UserRole::Inspector);
    let record = state
        .db
        .create_user(&NewUser {
            id: None,
            email,
            name,
            role,
        })
        .await?;
    if let Some(password) = password {
        state
            .db
            .set_password(&record.id, &hash_password_blocking(password).await, None)
            .await?;
    }
    Ok((
        StatusCode::CREATED,
        Json(json!({ "success": true, "user": profile(&record) })),
    ))
}

/// `GET /users?limit&offset`: newest first.
pub async fn list(
    State(state): State<AppState>,
    admin: CurrentUser,
    Query(query): Query<HashMap<String, String>>,
) -> Result<Json<Value>, AppError> {
    require_admin(&admin)?;
    let paging = Paging::from_query(&query)?;
    let page = state.db.list_users(paging.limit, paging.offset).await?;
    let users: Vec<UserProfile> = page.items.iter().map(profile).collect();
    Ok(Json(
        json!({ "success": true, "users": users, "totalCount": page.total }),
    ))
}

/// `GET /users/{id}`.
pub async fn get(
    State(state): State<AppState>,
    asking: CurrentUser,
    Path(user_id): Path<String>,
) -> Result<Json<Value>, AppError> {
    if asking.id != user_id {
        require_admin(&asking)?;
    }
    let record = state.db.user(&user_id).await?;
    Ok(Json(json!({ "success": true, "user": profile(&record) })))
}

/// `PUT /users/{id}`: `name` and `role` as query parameters (the contract), and also a JSON
/// body `UpdateUserRequest` (`name`, `preferences`); the query wins. No field is 400.
pub async fn update(
    State(state): State<AppState>,
    admin: CurrentUser,
    Path(user_id): Path<String>,
    Query(query): Query<HashMap<String, String>>,
    Body(body): Body<UpdateUser>,
) -> Result<Json<Value>, AppError> {
    require_admin(&admin)?;
    let disabled = body.disabled;
    let password = body.password.as_deref().map(valid_password).transpose()?;
    let name = query.get("name").or(body.name.as_ref()).map(String::as_str);
    let role = query.get("role").or(body.role.as_ref()).map(String::as_str);
    let preferences = body.preferences.map(checked_preferences).transpose()?;
    let update = UserUpdate {
        name: name.map(valid_name).transpose()?,
        role: role.map(valid_role).transpose()?,
        preferences,
    };
    if update.is_empty() && disabled.is_none() && password.is_none() {
        return Err(bad("No update fields provided"));
    }
    if disabled == Some(true) && user_id == admin.id {
        return Err(bad("an admin cannot disable their own account"));
    }
    let before = state.db.user(&user_id).await?;
    let demoted = update.role.is_some_and(|role| role != UserRole::Admin);
    if before.role == UserRole::Admin && (demoted || disabled == Some(true)) {
        keep_an_admin(&state, &user_id).await?;
    }
    let record = if update.is_empty() {
        before.clone()
    } else {
        state.db.update_user(&user_id, &update).await?
    };
    if let Some(disabled) = disabled {
        state.db.set_disabled(&user_id, disabled).await?;
        if disabled {
            // Sessions are gone with it; what runs and what is open goes too.
            state
                .sockets
                .revoke_user(&user_id, Revoked::AccountDisabled);
            state.orchestrator.cancel_user(&user_id);
        }
    }
    if record.role != before.role {
        // A socket knows its user's role from its upgrade.
        state.sockets.revoke_user(&user_id, Revoked::AccountChanged);
    }
    if let Some(password) = password {
        // An admin who changes their own password stays signed in where they did it.
        let keep = (user_id == admin.id)
            .then_some(admin.session.as_deref())
            .flatten();
        state
            .db
            .set_password(&user_id, &hash_password_blocking(password).await, keep)
            .await?;
        state
            .sockets
            .revoke_other_sessions(&user_id, keep, Revoked::PasswordChanged);
    }
    Ok(Json(json!({ "success": true, "user": profile(&record) })))
}

/// Refuses to remove the last enabled admin (409): nobody could manage the accounts after.
/// Only where accounts sign in with a password: in the other modes who is an admin comes from
/// the configuration (keys, the proxy, the dev user), so the store cannot lock anyone out.
async fn keep_an_admin(state: &AppState, user_id: &str) -> Result<(), AppError> {
    if state.config.auth != AuthMode::Users {
        return Ok(());
    }
    if state.db.other_enabled_admins(user_id).await? == 0 {
        return Err(AppError::Conflict(
            "this is the last enabled admin; make another admin first".to_owned(),
        ));
    }
    Ok(())
}

/// `DELETE /users/{id}`: the user and every session they own.
pub async fn delete(
    State(state): State<AppState>,
    admin: CurrentUser,
    Path(user_id): Path<String>,
) -> Result<Json<Value>, AppError> {
    require_admin(&admin)?;
    if state.db.user(&user_id).await?.role == UserRole::Admin {
        keep_an_admin(&state, &user_id).await?;
    }
    // Their threads, read before they go: the reports on disk and the resume journals go
    // with them, as with `DELETE /sessions/{id}` (a report is on disk under the thread's id,
    // not the user's).
    let threads = threads_of(&state, &user_id).await?;
    let deleted = state.db.delete_user(&user_id).await?;
    state
        .sockets
        .revoke_user(&user_id, Revoked::AccountDisabled);
    state.orchestrator.cancel_user(&user_id);
    for thread in &threads {
        state.orchestrator.journals.forget(thread);
    }
    state.reports.delete_for_threads(&threads).await;
    Ok(Json(json!({
        "success": true,
        "message": "User and associated sessions deleted",
        "deletedSessionsCount": deleted,
    })))
}

/// The ids of every thread `user_id` owns.
async fn threads_of(
    state: &AppState,
    user_id: &str,
) -> Result<std::collections::HashSet<String>, AppError> {
    const PAGE: u32 = 500;
    let mut threads = std::collections::HashSet::new();
    let mut offset = 0;
    loop {
        let page = state.db.list_threads(user_id, PAGE, offset).await?;
        let read = page.items.len();
        threads.extend(page.items.into_iter().map(|summary| summary.thread.id));
        if read < PAGE as usize {
            return Ok(threads);
        }
        offset += PAGE;
    }
}

/// At least 12 characters: long beats clever.
fn valid_password(password: &str) -> Result<&str, AppError> {
    if password.chars().count() < 12 {
        return Err(bad("password must have at least 12 characters"));
    }
    Ok(password)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn emails_are_checked_loosely() {
        assert_eq!(valid_email(" jan@nvwa.nl ").unwrap(), "jan@nvwa.nl");
        for bad in [
            "",
            "jan",
            "jan@",
            "@nvwa.nl",
            "jan@nvwa",
            "jan @nvwa.nl",
            "a@b@c.nl",
            "jan@nvwa..nl",
        ] {
            assert!(valid_email(bad).is_err(), "{bad}");
        }
    }
}
