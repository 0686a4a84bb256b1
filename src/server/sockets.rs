//! The open WebSockets by user: a cap per user, and revocation that reaches open sockets.
//!
//! A socket is signed in once, at its upgrade. Without this registry, disabling an account,
//! signing out or resetting a password would stop REST at once but leave the sockets opened
//! before it approving and generating reports.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use tokio::sync::oneshot;

/// Why a socket was closed from outside; its reason text in the close frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Revoked {
    SignedOut,
    AccountDisabled,
    AccountChanged,
    PasswordChanged,
}

impl Revoked {
    pub fn reason(self) -> &'static str {
        match self {
            Revoked::SignedOut => "signed out",
            Revoked::AccountDisabled => "account disabled",
            Revoked::AccountChanged => "account changed; sign in again",
            Revoked::PasswordChanged => "password changed; sign in again",
        }
    }
}

/// The user already has the most sockets allowed.
#[derive(Debug)]
pub struct TooManySockets;

pub struct SocketRegistry {
    /// Sockets one user may hold; a tablet and a desktop with a few tabs fit well within it.
    per_user: usize,
    /// User id → that user's open sockets.
    open: Mutex<HashMap<String, Vec<OpenSocket>>>,
}

struct OpenSocket {
    /// The connection id, to find the entry again when the socket ends.
    id: u64,
    /// The hash of the session that opened it, for sign-out; None outside `--auth users`.
    session: Option<String>,
    /// Tells the socket to close; taken when used.
    revoke: Option<oneshot::Sender<Revoked>>,
}

/// A socket's place in the registry; removed on drop.
pub struct Registration {
    registry: Arc<SocketRegistry>,
    user: String,
    id: u64,
}

impl SocketRegistry {
    pub fn new(per_user: usize) -> Arc<Self> {
        Arc::new(Self {
            per_user,
            open: Mutex::default(),
        })
    }

    /// Registers a socket of `user`; the receiver fires when it is revoked.
    pub fn register(
        self: &Arc<Self>,
        user: &str,
        id: u64,
        session: Option<String>,
    ) -> Result<(Registration, oneshot::Receiver<Revoked>), TooManySockets> {
        let mut open = self.open.lock().unwrap_or_else(|p| p.into_inner());
        let sockets = open.entry(user.to_owned()).or_default();
        if sockets.len() >= self.per_user {
            return Err(TooManySockets);
        }
        let (revoke, revoked) = oneshot::channel();
        sockets.push(OpenSocket {
            id,
            session,
            revoke: Some(revoke),
        });
        let registration = Registration {
            registry: self.clone(),
            user: user.to_owned(),
            id,
        };
        metrics::gauge!(crate::orchestrator::metrics::SOCKETS_OPEN).increment(1.0);
        Ok((registration, revoked))
    }

    /// Closes every socket of `user`; returns how many.
    pub fn revoke_user(&self, user: &str, why: Revoked) -> usize {
        self.revoke(user, why, |_| true)
    }

    /// Closes the sockets that `session` opened (sign-out).
    pub fn revoke_session(&self, user: &str, session: &str, why: Revoked) -> usize {
        self.revoke(user, why, |socket| {
            socket.session.as_deref() == Some(session)
        })
    }

    /// Closes the user's sockets except those of `keep` (a password changed by the user
    /// themselves keeps the session that changed it).
    pub fn revoke_other_sessions(&self, user: &str, keep: Option<&str>, why: Revoked) -> usize {
        self.revoke(user, why, |socket| {
            keep.is_none() || socket.session.as_deref() != keep
        })
    }

    fn revoke(&self, user: &str, why: Revoked, which: impl Fn(&OpenSocket) -> bool) -> usize {
        let mut open = self.open.lock().unwrap_or_else(|p| p.into_inner());
        let Some(sockets) = open.get_mut(user) else {
            return 0;
        };
        let mut closed = 0;
        for socket in sockets.iter_mut().filter(|s| which(s)) {
            if let Some(revoke) = socket.revoke.take() {
                let _ = revoke.send(why);
                closed += 1;
            }
        }
        closed
    }

    /// Open sockets of `user`, for tests and diagnostics.
    pub fn count(&self, user: &str) -> usize {
        let open = self.open.lock().unwrap_or_else(|p| p.into_inner());
        open.get(user).map_or(0, Vec::len)
    }
}

impl Drop for Registration {
    fn drop(&mut self) {
        metrics::gauge!(crate::orchestrator::metrics::SOCKETS_OPEN).decrement(1.0);
        let mut open = self.registry.open.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(sockets) = open.get_mut(&self.user) {
            sockets.retain(|socket| socket.id != self.id);
            if sockets.is_empty() {
                open.remove(&self.user);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn caps_sockets_per_user_and_frees_the_place_on_drop() {
        let registry = SocketRegistry::new(2);
        let a = registry.register("anna", 1, None).unwrap();
        let _b = registry.register("anna", 2, None).unwrap();
        assert!(registry.register("anna", 3, None).is_err());
        assert!(registry.register("koen", 4, None).is_ok());
        drop(a);
        assert!(registry.register("anna", 5, None).is_ok());
    }

    #[test]
    fn sign_out_closes_only_that_sessions_sockets() {
        let registry = SocketRegistry::new(8);
        let (_a, mut a) = registry.register("anna", 1, Some("s1".into())).unwrap();
        let (_b, mut b) = registry.register("anna", 2, Some("s2".into())).unwrap();
        assert_eq!(registry.revoke_session("anna", "s1", Revoked::SignedOut), 1);
        assert_eq!(a.try_recv().unwrap(), Revoked::SignedOut);
        assert!(b.try_recv().is_err());
        assert_eq!(
            registry.revoke_other_sessions("anna", Some("s2"), Revoked::PasswordChanged),
            0
        );
        assert_eq!(registry.revoke_user("anna", Revoked::AccountDisabled), 1);
        assert_eq!(b.try_recv().unwrap(), Revoked::AccountDisabled);
    }
}
