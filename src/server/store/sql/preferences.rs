//! Users' preferences kept in memory between runs (issue 36): every run in AGORA's dialect
//! reads how its user wants answers spoken, a store round trip of its own before the run.
//!
//! A reading is kept only if no write of preferences (or a user's creation or deletion) came
//! between its start and its end: a write bumps the generation, so a reading that raced it is
//! not kept, and the writer forgets what was kept, after its commit. A user who is not stored
//! (every user with `--auth dev`) is kept as such, until a user with that id is created.

use std::collections::HashMap;
use std::sync::Mutex;

use crate::server::store::Preferences;

/// Users kept at most; past it the whole map starts again (people, not requests, fill it).
const MAX_USERS: usize = 10_000;

#[derive(Default)]
pub(super) struct PreferencesCache {
    inner: Mutex<Inner>,
}

#[derive(Default)]
struct Inner {
    /// Bumped by every write.
    generation: u64,
    /// `None`: no such user.
    kept: HashMap<String, Option<Preferences>>,
}

impl PreferencesCache {
    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The user's preferences if kept (`None`: no such user); else the generation a reading
    /// starts from.
    pub(super) fn get(&self, user_id: &str) -> Result<Option<Preferences>, u64> {
        let inner = self.lock();
        inner.kept.get(user_id).cloned().ok_or(inner.generation)
    }

    /// Keeps a reading that started at `generation`, unless a write came since.
    pub(super) fn keep(&self, user_id: &str, preferences: Option<&Preferences>, generation: u64) {
        let mut inner = self.lock();
        if inner.generation != generation {
            return;
        }
        if inner.kept.len() >= MAX_USERS {
            inner.kept.clear();
        }
        inner.kept.insert(user_id.to_owned(), preferences.cloned());
    }

    /// After a write of the user's preferences (or their creation or deletion) is committed.
    pub(super) fn forget(&self, user_id: &str) {
        let mut inner = self.lock();
        inner.generation += 1;
        inner.kept.remove(user_id);
    }
}
