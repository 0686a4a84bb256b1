//! The AGORA REST API (`../shared/agora-contract/openapi.yaml`): agents, sessions (threads),
//! users and preferences. Errors are `{"detail": …}` ([`AppError`]).
//!
//! Status codes: an unknown session or user is 404, an update without fields 400, a malformed
//! query parameter (`limit`, `offset`, `include_tools`) or an invalid title 422 (the original
//! server's FastAPI validation), invalid user input 400 and a taken email 409 (the contract).

mod body;
mod info;
mod sessions;
mod users;

use std::collections::HashMap;

use axum::Router;
use axum::routing::get;

pub use info::negotiate_root;

use super::error::AppError;
pub(crate) use super::http::timestamp;
use super::state::AppState;
use super::store::{
    DEV_USER_EMAIL, DEV_USER_ID, DEV_USER_NAME, Database, NewUser, StoreError, UserRole,
};

/// The REST routes; merged into the app's router next to the Leptos pages.
pub fn routes() -> Router<AppState> {
    Router::new()
        .route("/agents", get(info::agents))
        .route("/sessions", get(sessions::list))
        .route(
            "/sessions/{session_id}",
            axum::routing::put(sessions::update).delete(sessions::delete),
        )
        .route("/sessions/{session_id}/metadata", get(sessions::metadata))
        .route("/sessions/{session_id}/history", get(sessions::history))
        .route("/users", get(users::list).post(users::create))
        .route("/users/me", get(users::me))
        .route(
            "/users/me/preferences",
            get(users::preferences).put(users::update_preferences),
        )
        .route(
            "/users/{user_id}",
            get(users::get).put(users::update).delete(users::delete),
        )
}

pub use super::auth::CurrentUser;

/// Creates the development user [`current_user`] falls back to, unless it exists. A taken
/// email only warns: the server still starts.
pub async fn seed_dev_user(db: &dyn Database) -> Result<(), StoreError> {
    let user = NewUser {
        id: Some(DEV_USER_ID.to_owned()),
        email: DEV_USER_EMAIL.to_owned(),
        name: DEV_USER_NAME.to_owned(),
        role: UserRole::Inspector,
    };
    match db.ensure_user(&user).await {
        Ok(_) => Ok(()),
        Err(StoreError::NotFound(_) | StoreError::Conflict(_)) => {
            tracing::warn!(
                email = DEV_USER_EMAIL,
                "development user not created: its email is taken"
            );
            Ok(())
        }
        Err(e) => Err(e),
    }
}

/// `limit` and `offset` as the contract defines them: 1 ≤ limit ≤ 100 (default 50),
/// offset ≥ 0 (default 0); anything else is 422.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Paging {
    limit: u32,
    offset: u32,
}

impl Paging {
    fn from_query(query: &HashMap<String, String>) -> Result<Self, AppError> {
        let limit = match query.get("limit") {
            None => 50,
            Some(raw) => match raw.trim().parse::<i64>() {
                Ok(n) if (1..=100).contains(&n) => u32::try_from(n).unwrap_or(50),
                _ => {
                    return Err(AppError::Unprocessable(format!(
                        "limit must be an integer from 1 to 100, not {raw:?}"
                    )));
                }
            },
        };
        let offset = match query.get("offset") {
            None => 0,
            Some(raw) => raw.trim().parse::<u32>().map_err(|_| {
                AppError::Unprocessable(format!("offset must be an integer ≥ 0, not {raw:?}"))
            })?,
        };
        Ok(Self { limit, offset })
    }
}

/// A boolean query parameter as FastAPI reads one.
fn query_bool(query: &HashMap<String, String>, name: &str) -> Result<Option<bool>, AppError> {
    let Some(raw) = query.get(name) else {
        return Ok(None);
    };
    match raw.trim().to_ascii_lowercase().as_str() {
        "true" | "1" | "yes" | "on" => Ok(Some(true)),
        "false" | "0" | "no" | "off" => Ok(Some(false)),
        _ => Err(AppError::Unprocessable(format!(
            "{name} must be true or false, not {raw:?}"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_are_rfc3339_utc() {
        assert_eq!(timestamp(0), "1970-01-01T00:00:00Z");
        assert_eq!(timestamp(1_764_585_000_123), "2025-12-01T10:30:00.123Z");
    }

    #[test]
    fn paging_checks_its_bounds() {
        let q = |pairs: &[(&str, &str)]| -> HashMap<String, String> {
            pairs
                .iter()
                .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
                .collect()
        };
        assert_eq!(
            Paging::from_query(&q(&[])).unwrap(),
            Paging {
                limit: 50,
                offset: 0
            }
        );
        assert_eq!(
            Paging::from_query(&q(&[("limit", "100"), ("offset", "7")])).unwrap(),
            Paging {
                limit: 100,
                offset: 7
            }
        );
        for bad in ["0", "101", "-1", "ten", ""] {
            assert!(Paging::from_query(&q(&[("limit", bad)])).is_err(), "{bad}");
        }
        assert!(Paging::from_query(&q(&[("offset", "-1")])).is_err());
    }
}
