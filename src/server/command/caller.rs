//! Who sends a command, and the one rule of what is theirs.

use crate::orchestrator::store::ThreadRecord;
use crate::protocol::{Dialect, Lang};
use crate::server::auth::{AuthMode, CurrentUser};
use crate::server::state::AppState;
use crate::server::store::DEV_USER_ID;

/// The sender of a command: a socket, or one HTTP request.
#[derive(Debug, Clone)]
pub struct Caller {
    /// Who signed in; their runs, threads and limits.
    pub user: CurrentUser,
    /// Ties approvals, cancels and followed threads to this socket or stream.
    pub connection: u64,
    /// The transport's dialect: how a run is started and framed.
    pub dialect: Dialect,
    /// The language refusals are written in (see [`Caller::lang_of`]).
    pub lang: Lang,
    /// Dev mode: there is no sign-in to protect (anyone may call themselves anyone), so a
    /// message may name the user it acts for.
    dev: bool,
    /// Dev mode's anonymous caller (no `X-User-Id`, no `?user_id=`): the developer, or a
    /// contract client whose messages name their users, follows every thread. A caller that
    /// named itself is held to its own threads, as a signed-in one is.
    sees_all: bool,
}

impl Caller {
    pub fn new(
        state: &AppState,
        user: CurrentUser,
        connection: u64,
        dialect: Dialect,
        lang: Lang,
    ) -> Self {
        Self {
            connection,
            dialect,
            lang,
            sees_all: state.auth.mode == AuthMode::Dev && user.id == DEV_USER_ID,
            dev: state.auth.mode == AuthMode::Dev,
            user,
        }
    }

    /// The language of a request's headers (the page's cookie, else `Accept-Language`), else
    /// the dialect's own: Dutch for AGORA's `/ws` (the contract's language), English for
    /// standard AG-UI clients.
    pub fn lang_of(headers: &axum::http::HeaderMap, dialect: Dialect) -> Lang {
        crate::ui::prefs::request_lang(headers).unwrap_or(match dialect {
            Dialect::Agora => Lang::Nl,
            Dialect::Standard => Lang::En,
        })
    }

    /// The user a run or a decision is for: the signed-in one; in dev mode a message may name
    /// another.
    pub fn acting_user(&self, named: Option<&str>) -> String {
        match named {
            Some(named) if self.dev && !named.trim().is_empty() => named.to_owned(),
            _ => self.user.id.clone(),
        }
    }

    /// Whether the caller may follow and read `thread`: its owner's (dev mode's anonymous
    /// caller: anyone's).
    /// Someone else's thread is refused exactly like one that does not exist.
    pub fn owns(&self, thread: &ThreadRecord) -> bool {
        self.sees_all || self.user.owns(thread)
    }
}
