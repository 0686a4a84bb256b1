//! A thread's messages kept in memory between its turns (issue 36), so that a turn reads and
//! parses only what was stored since the last one instead of the whole thread: a thread of
//! 200 runs used to read and parse about a thousand stored messages for each new one.
//!
//! Messages are append-only (a thread's `seq` numbers only grow; a message is removed only
//! with its thread), so what was read once stays right. A read asks for the rows from the
//! last one it holds on (`seq >= last`): that row must come back with the id the cache has for
//! it, else the thread was deleted and made again under the same id, and the whole thread is
//! read again. That check is also what keeps instances on one PostgreSQL database right
//! without notifications: rows another instance appended are simply the new ones.
//!
//! Bounded by the bytes of the stored JSON it holds (a stand-in for the parsed messages'
//! memory, which is of the same order), least recently used threads out first.

use std::sync::Mutex;

use lru::LruCache;
use sqlx::AnyConnection;

use super::{SqlStore, backend, corrupt};
use crate::orchestrator::store::StoreError;
use crate::protocol::Message;

/// The stored JSON the cache holds across all threads, at most: 1,000 threads of a long
/// inspection (about 64 KB each) fit.
pub(super) const HISTORY_BUDGET_BYTES: usize = 64 * 1024 * 1024;

/// The threads read lately, each as its messages up to a known row.
pub(super) struct History {
    /// Thread id → what was read of it; the least recently used is evicted first.
    threads: Mutex<Threads>,
    /// The most bytes of stored JSON held, see [`HISTORY_BUDGET_BYTES`].
    budget: usize,
}

struct Threads {
    entries: LruCache<String, Read>,
    /// Sum of the entries' `bytes`, kept within the budget.
    bytes: usize,
}

/// A thread read up to one row.
#[derive(Default)]
struct Read {
    /// The last row read: its `seq` and message id (the id tells a thread made again under the
    /// same id from the one read).
    last: (i64, String),
    messages: Vec<Message>,
    /// The stored JSON's length of `messages`, what the budget counts.
    bytes: usize,
}

impl History {
    pub(super) fn new(budget: usize) -> Self {
        Self {
            threads: Mutex::new(Threads {
                entries: LruCache::unbounded(),
                bytes: 0,
            }),
            budget,
        }
    }

    /// Takes what is held of a thread out, to be extended and kept again.
    fn take(&self, thread_id: &str) -> Option<Read> {
        let mut threads = self.lock();
        let read = threads.entries.pop(thread_id)?;
        threads.bytes -= read.bytes;
        Some(read)
    }

    /// Keeps `read` unless a read that went further is kept already (two turns of one thread
    /// on two connections), then evicts down to the budget.
    fn keep(&self, thread_id: &str, read: Read) {
        if read.bytes > self.budget {
            self.forget(thread_id);
            return;
        }
        let mut threads = self.lock();
        if let Some(kept) = threads.entries.peek(thread_id)
            && kept.last.0 > read.last.0
        {
            return;
        }
        threads.bytes += read.bytes;
        if let Some(old) = threads.entries.put(thread_id.to_owned(), read) {
            threads.bytes -= old.bytes;
        }
        while threads.bytes > self.budget {
            let Some((_, evicted)) = threads.entries.pop_lru() else {
                break;
            };
            threads.bytes -= evicted.bytes;
        }
    }

    /// Drops what is held of a thread (deleted).
    pub(super) fn forget(&self, thread_id: &str) {
        let mut threads = self.lock();
        if let Some(old) = threads.entries.pop(thread_id) {
            threads.bytes -= old.bytes;
        }
    }

    /// The last row held of a thread, marking it used, for tests.
    #[cfg(test)]
    fn last_held(&self, thread_id: &str) -> Option<i64> {
        self.lock().entries.get(thread_id).map(|read| read.last.0)
    }

    /// How many bytes of stored JSON are held, for tests.
    #[cfg(test)]
    fn bytes(&self) -> usize {
        self.lock().bytes
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Threads> {
        // A panic while holding this lock leaves a consistent map (each change is one call).
        self.threads
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

impl SqlStore {
    /// The thread's messages in order, on `conn` (a transaction's, or a reader's): the rows
    /// stored since the last read of this thread, after what that read kept.
    ///
    /// What is held is taken out of the cache while the new rows are read and put back
    /// extended in place, so a turn copies the thread's messages once (the copy it returns)
    /// instead of twice (issue 36: the two copies were 5.7 % of a run's CPU at `runs:1x200`). A
    /// read of the same thread at the same time finds nothing held and reads it whole.
    pub(super) async fn thread_messages(
        &self,
        conn: &mut AnyConnection,
        thread_id: &str,
    ) -> Result<Vec<Message>, StoreError> {
        let held = self.history.take(thread_id);
        let from = held.as_ref().map_or(0, |read| read.last.0);
        let mut rows = self.message_rows(conn, thread_id, from).await?;
        // Rows already held (the one the last read ended on) are not parsed again.
        let mut known = 0;
        let mut read = match held {
            Some(read)
                if rows
                    .first()
                    .is_some_and(|(seq, id, _)| *seq == read.last.0 && *id == read.last.1) =>
            {
                known = 1;
                read
            }
            Some(_) => {
                rows = self.message_rows(conn, thread_id, 0).await?;
                Read::default()
            }
            None => Read::default(),
        };
        let Some((seq, id, _)) = rows.last() else {
            // No messages (yet, or any more).
            return Ok(Vec::new());
        };
        read.last = (*seq, id.clone());
        read.messages.reserve(rows.len() - known);
        for (_, _, body) in &rows[known..] {
            read.bytes += body.len();
            read.messages
                .push(serde_json::from_str(body).map_err(|e| corrupt("message", &e.to_string()))?);
        }
        let messages = read.messages.clone();
        self.history.keep(thread_id, read);
        Ok(messages)
    }

    async fn message_rows(
        &self,
        conn: &mut AnyConnection,
        thread_id: &str,
        from: i64,
    ) -> Result<Vec<(i64, String, String)>, StoreError> {
        sqlx::query_as(&self.sql(
            "SELECT seq, id, body FROM messages WHERE thread_id = ? AND seq >= ? ORDER BY seq",
        ))
        .bind(thread_id)
        .bind(from)
        .fetch_all(conn)
        .await
        .map_err(backend)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(seq: i64, bytes: usize) -> Read {
        Read {
            last: (seq, format!("m{seq}")),
            messages: Vec::new(),
            bytes,
        }
    }

    #[test]
    fn the_least_recently_used_threads_go_first_when_the_budget_is_spent() {
        let history = History::new(100);
        history.keep("a", read(1, 40));
        history.keep("b", read(1, 40));
        // "a" used again: "b" is now the least recently used.
        assert!(history.last_held("a").is_some());
        history.keep("c", read(1, 40));
        assert!(history.last_held("b").is_none());
        assert!(history.last_held("a").is_some() && history.last_held("c").is_some());
        assert_eq!(history.bytes(), 80);
        // A thread that alone is over the budget is not kept, and what was kept of it goes.
        history.keep("a", read(2, 101));
        assert!(history.last_held("a").is_none());
        assert_eq!(history.bytes(), 40);
    }

    #[test]
    fn a_read_that_went_less_far_does_not_replace_one_that_went_further() {
        let history = History::new(1_000);
        history.keep("a", read(5, 50));
        history.keep("a", read(3, 30));
        assert_eq!(history.last_held("a").unwrap(), 5);
        history.keep("a", read(7, 70));
        assert_eq!(history.last_held("a").unwrap(), 7);
        assert_eq!(history.bytes(), 70);
        history.forget("a");
        assert_eq!(history.bytes(), 0);
    }

    #[test]
    fn a_thread_taken_out_is_not_held_until_it_is_kept_again() {
        let history = History::new(1_000);
        history.keep("a", read(5, 50));
        let taken = history.take("a").unwrap();
        assert_eq!(taken.last.0, 5);
        // A read of the thread meanwhile finds nothing and reads it whole.
        assert!(history.take("a").is_none());
        assert_eq!(history.bytes(), 0);
        history.keep(
            "a",
            Read {
                last: (6, "m6".into()),
                bytes: 60,
                ..taken
            },
        );
        assert_eq!(history.last_held("a"), Some(6));
        assert_eq!(history.bytes(), 60);
    }
}
