//! What a database error means to the store's callers, and what of it may be said.

use sqlx::error::ErrorKind;

use crate::server::store::StoreError;

pub(super) fn backend(e: sqlx::Error) -> StoreError {
    StoreError::Backend(e.to_string())
}

/// The URL without its password, for an error message.
pub(super) fn redact(url: &str) -> String {
    match (url.find("://"), url.rfind('@')) {
        (Some(scheme), Some(at)) if at > scheme => {
            let credentials = &url[scheme + 3..at];
            match credentials.split_once(':') {
                Some((user, _)) => format!("{}{user}:***{}", &url[..scheme + 3], &url[at..]),
                None => url.to_owned(),
            }
        }
        _ => url.to_owned(),
    }
}

pub(super) fn corrupt(what: &str, value: &str) -> StoreError {
    StoreError::Backend(format!("unreadable {what} in the database: {value}"))
}

pub(super) fn thread_not_found(thread_id: &str) -> StoreError {
    StoreError::NotFound(format!("Session {thread_id} not found"))
}

pub(super) fn user_not_found(user_id: &str) -> StoreError {
    StoreError::NotFound(format!("User {user_id} not found"))
}

/// A failed insert of a row that belongs to a thread: its key taken is a conflict (`what`
/// names the row), a thread that does not exist is not found, anything else the backend's.
pub(super) fn thread_insert_error(
    e: sqlx::Error,
    what: impl FnOnce() -> String,
    thread_id: &str,
) -> StoreError {
    match error_kind(&e) {
        Some(ErrorKind::UniqueViolation) => StoreError::Conflict(format!("{} exists", what())),
        Some(ErrorKind::ForeignKeyViolation) => thread_not_found(thread_id),
        _ => backend(e),
    }
}

pub(super) fn error_kind(e: &sqlx::Error) -> Option<ErrorKind> {
    e.as_database_error().map(|d| d.kind())
}
