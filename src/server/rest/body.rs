//! Typed request bodies with the contract's status codes (axum's `Json<T>` answers 415/422 in
//! its own words; the contract wants 400 for a body that is not a JSON object, and each
//! endpoint its own code for fields that do not fit).

use axum::body::Bytes;
use axum::extract::{FromRequest, Request};
use axum::http::StatusCode;
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::AppError;

/// A body an endpoint reads: which status a field that does not fit gets.
pub trait RequestBody: DeserializeOwned + Default {
    /// 400 by default (the users endpoints); a session's title is 422.
    const MISFIT: StatusCode = StatusCode::BAD_REQUEST;
}

/// A JSON object body read into `T`. An empty body is `T::default()` (each endpoint says
/// what no field means); anything but a JSON object is 400; unknown keys are ignored.
pub struct Body<T>(pub T);

impl<S: Send + Sync, T: RequestBody> FromRequest<S> for Body<T> {
    type Rejection = AppError;

    async fn from_request(request: Request, state: &S) -> Result<Self, AppError> {
        let bytes = Bytes::from_request(request, state).await.map_err(|e| {
            let detail = format!("the request body could not be read: {e}");
            match e.status() {
                StatusCode::PAYLOAD_TOO_LARGE => AppError::PayloadTooLarge(detail),
                _ => AppError::BadRequest(detail),
            }
        })?;
        read(&bytes).map(Body)
    }
}

fn read<T: RequestBody>(bytes: &[u8]) -> Result<T, AppError> {
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Ok(T::default());
    }
    let value = match serde_json::from_slice::<Value>(bytes) {
        Ok(value @ Value::Object(_)) => value,
        Ok(_) => {
            return Err(AppError::BadRequest(
                "the request body must be a JSON object".to_owned(),
            ));
        }
        Err(e) => {
            return Err(AppError::BadRequest(format!(
                "the request body is not valid JSON: {e}"
            )));
        }
    };
    serde_json::from_value(value).map_err(|e| {
        let detail = format!("the request body does not fit: {e}");
        match T::MISFIT {
            StatusCode::UNPROCESSABLE_ENTITY => AppError::Unprocessable(detail),
            _ => AppError::BadRequest(detail),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::rest::{PreferencesUpdate, SessionRename, Theme};

    fn status(error: AppError) -> &'static str {
        match error {
            AppError::BadRequest(_) => "400",
            AppError::Unprocessable(_) => "422",
            _ => "other",
        }
    }

    #[test]
    fn bodies_read_with_the_contracts_codes() {
        assert_eq!(
            read::<SessionRename>(b"  ").unwrap(),
            SessionRename::default()
        );
        assert_eq!(
            read::<SessionRename>(br#"{"title":"x","colour":"red"}"#)
                .unwrap()
                .title
                .as_deref(),
            Some("x")
        );
        assert_eq!(
            status(read::<SessionRename>(b"{not json").unwrap_err()),
            "400"
        );
        assert_eq!(status(read::<SessionRename>(b"[1,2]").unwrap_err()), "400");
        assert_eq!(
            status(read::<SessionRename>(br#"{"title":42}"#).unwrap_err()),
            "422"
        );
        assert_eq!(
            read::<PreferencesUpdate>(br#"{"theme":"dark"}"#)
                .unwrap()
                .theme,
            Some(Theme::Dark)
        );
        assert_eq!(
            status(read::<PreferencesUpdate>(br#"{"theme":"pink"}"#).unwrap_err()),
            "400"
        );
    }
}
