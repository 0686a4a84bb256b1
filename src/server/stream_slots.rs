//! Open SSE streams per user (`POST /agui` and `GET /agui/runs/{runId}/events`).
//!
//! A stream holds a connection for as long as its run lasts (up to nginx's 900 s). Without a
//! cap one user could take every connection the server has: behind the shipped nginx all
//! clients share one address, which the per-address cap exempts, so only a per-user count
//! stops it. Like the `/ws` cap (`--max-sockets-per-user`), with a 429 past it.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

pub struct StreamSlots {
    /// Streams one user may hold open; a few tabs and a reconnecting client fit well within it.
    per_user: usize,
    /// User id → that user's open streams.
    open: Mutex<HashMap<String, usize>>,
}

/// One open stream's place; given back when the stream ends (dropped with the response).
pub struct StreamSlot {
    owner: Arc<StreamSlots>,
    user: String,
}

impl StreamSlots {
    pub fn new(per_user: usize) -> Arc<Self> {
        Arc::new(Self {
            per_user,
            open: Mutex::default(),
        })
    }

    /// The most streams one user may hold.
    pub fn per_user(&self) -> usize {
        self.per_user
    }

    /// A place for one more stream of `user`, or None when the user has all there are.
    pub fn take(self: &Arc<Self>, user: &str) -> Option<StreamSlot> {
        let mut open = self.open.lock().unwrap_or_else(|p| p.into_inner());
        let count = open.entry(user.to_owned()).or_insert(0);
        if *count >= self.per_user {
            if *count == 0 {
                open.remove(user);
            }
            return None;
        }
        *count += 1;
        Some(StreamSlot {
            owner: self.clone(),
            user: user.to_owned(),
        })
    }
}

impl Drop for StreamSlot {
    fn drop(&mut self) {
        let mut open = self.owner.open.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(count) = open.get_mut(&self.user) {
            *count -= 1;
            if *count == 0 {
                open.remove(&self.user);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn caps_streams_per_user_and_frees_the_place_on_drop() {
        let slots = StreamSlots::new(2);
        let first = slots.take("anna").unwrap();
        let _second = slots.take("anna").unwrap();
        assert!(slots.take("anna").is_none());
        assert!(slots.take("koen").is_some());
        drop(first);
        assert!(slots.take("anna").is_some());
    }
}
