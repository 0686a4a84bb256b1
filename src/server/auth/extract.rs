//! Who is asking and from where, as axum extractors over the app's state: a handler names
//! `CurrentUser` or `ClientAddress` and the authenticator decides.

use axum::extract::FromRequestParts;
use axum::http::request::Parts;

use super::{AuthError, ClientAddress, CurrentUser};
use crate::server::error::AppError;
use crate::server::state::AppState;

impl FromRequestParts<AppState> for CurrentUser {
    type Rejection = AppError;

    async fn from_request_parts(
        parts: &mut Parts,
        state: &AppState,
    ) -> Result<Self, Self::Rejection> {
        state
            .auth
            .identify(state.db.as_ref(), parts)
            .await
            .map_err(|e| match e {
                AuthError::Store => AppError::Internal(anyhow::anyhow!("session lookup failed")),
                AuthError::Missing | AuthError::Invalid => AppError::Unauthorized(e.to_string()),
            })
    }
}

impl FromRequestParts<AppState> for ClientAddress {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(
        parts: &mut Parts,
        state: &AppState,
    ) -> Result<Self, Self::Rejection> {
        Ok(Self(state.auth.client_address(parts)))
    }
}
