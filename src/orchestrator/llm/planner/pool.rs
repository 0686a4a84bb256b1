//! Where the embedded planner thinks: a bounded pool of blocking threads, shared fairly
//! between users (issue 31, hole 2).
//!
//! The planner is plain CPU work (tens of µs per byte of the thread it reads). On the async
//! workers one user's long messages stalled every socket, `/health` included, since a turn
//! never yields. So each turn runs on `tokio::task::spawn_blocking`, behind two semaphores:
//! - a global one, sized from the cores, so planning cannot take more threads than there are
//!   cores to run them (the blocking pool itself would grow to 512 threads);
//! - one per user, smaller than the global one, so a single user's runs queue behind each
//!   other and never hold every slot: another user's turn finds a free one.
//!
//! Why not rayon: a turn is one sequential job, not data to split, so work stealing buys
//! nothing; and a rayon pool is not async, so fairness would need a queue of our own in
//! front of it. Tokio's semaphores are FIFO and awaited without blocking a worker, and the
//! blocking pool is already there.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// The slots for planner turns: `total` in all, `per_user` for any one user.
#[derive(Debug)]
pub struct PlannerPool {
    global: Arc<Semaphore>,
    per_user: usize,
    /// A semaphore per user with a turn running or waiting; dropped when nobody holds it.
    users: Mutex<HashMap<String, Arc<Semaphore>>>,
    total: usize,
}

impl PlannerPool {
    /// A pool of `total` slots (at least one), of which one user may hold `per_user` (at least
    /// one, at most `total`).
    pub fn new(total: usize, per_user: usize) -> Self {
        let total = total.max(1);
        PlannerPool {
            global: Arc::new(Semaphore::new(total)),
            per_user: per_user.clamp(1, total),
            users: Mutex::new(HashMap::new()),
            total,
        }
    }

    /// Sized from the machine: as many slots as cores (at least two, so that one user's turn
    /// leaves another's a slot on a small machine), and half of them for one user. The async
    /// workers share the cores with these threads, and the OS shares the time fairly, so
    /// `/health` and the sockets keep answering while every slot is busy.
    pub fn from_cores() -> Self {
        let cores = std::thread::available_parallelism().map_or(2, usize::from);
        let total = cores.max(2);
        Self::new(total, total / 2)
    }

    pub fn total(&self) -> usize {
        self.total
    }

    pub fn per_user(&self) -> usize {
        self.per_user
    }

    /// Runs `work` on a blocking thread once `user` has a slot and a global one is free
    /// (waiting in turn for each). The slots are held until `work` returns, even when the
    /// caller stops waiting (a run's deadline, a cancel): the CPU is busy until then.
    pub async fn run<T, F>(self: &Arc<Self>, user: &str, work: F) -> T
    where
        F: FnOnce() -> T + Send + 'static,
        T: Send + 'static,
    {
        let slot = self.acquire(user).await;
        let handle = tokio::task::spawn_blocking(move || {
            let _slot = slot;
            work()
        });
        match handle.await {
            Ok(value) => value,
            // The planner panicked: the same as it doing so inline.
            Err(e) => std::panic::resume_unwind(e.into_panic()),
        }
    }

    async fn acquire(self: &Arc<Self>, user: &str) -> Slot {
        // Declared first so that it is dropped last when the wait is given up: by then this
        // wait's clone of the user's semaphore is gone and the map can forget the user.
        let guard = Forget {
            pool: Arc::clone(self),
        };
        let mine = {
            let mut users = self.users.lock().unwrap_or_else(|e| e.into_inner());
            Arc::clone(
                users
                    .entry(user.to_owned())
                    .or_insert_with(|| Arc::new(Semaphore::new(self.per_user))),
            )
        };
        // The user's slot first: a user with many turns waits on their own queue and does not
        // stand in the global one in front of others.
        let user_permit = mine.acquire_owned().await.expect("never closed");
        let global_permit = Arc::clone(&self.global)
            .acquire_owned()
            .await
            .expect("never closed");
        Slot {
            _global: global_permit,
            _user: user_permit,
            _guard: guard,
        }
    }

    /// Forgets the users nobody holds or waits for, so the map stays as small as the users
    /// with work (a waiter holds a clone of its user's semaphore).
    fn forget_idle(&self) {
        let mut users = self.users.lock().unwrap_or_else(|e| e.into_inner());
        users.retain(|_, semaphore| Arc::strong_count(semaphore) > 1);
    }

    #[cfg(test)]
    fn users_known(&self) -> usize {
        self.users.lock().unwrap().len()
    }
}

/// A held slot; the permits are released before the map is tidied (field order).
struct Slot {
    _global: OwnedSemaphorePermit,
    _user: OwnedSemaphorePermit,
    _guard: Forget,
}

/// Tidies the pool's map when a slot, or a wait for one, ends.
struct Forget {
    pool: Arc<PlannerPool>,
}

impl Drop for Forget {
    fn drop(&mut self) {
        self.pool.forget_idle();
    }
}

impl Default for PlannerPool {
    fn default() -> Self {
        Self::from_cores()
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::mpsc;

    use super::*;

    /// One user with more turns than the pool has slots holds only their share: another
    /// user's turn runs while theirs are all still busy, and the map forgets them after.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn one_user_cannot_take_every_slot() {
        let pool = Arc::new(PlannerPool::new(2, 1));
        let (release, blocked) = mpsc::channel::<()>();
        let blocked = Arc::new(Mutex::new(blocked));
        let running = Arc::new(AtomicUsize::new(0));
        let mut heavy = Vec::new();
        for _ in 0..4 {
            let (pool, blocked, running) = (pool.clone(), blocked.clone(), running.clone());
            heavy.push(tokio::spawn(async move {
                pool.run("heavy", move || {
                    running.fetch_add(1, Ordering::SeqCst);
                    blocked.lock().unwrap().recv().unwrap();
                })
                .await
            }));
        }
        // Once a heavy turn holds a slot (polled, not timed), the other user's turn completes
        // while every heavy turn is blocked.
        while running.load(Ordering::SeqCst) == 0 {
            tokio::time::sleep(std::time::Duration::from_millis(5)).await;
        }
        assert_eq!(pool.run("light", || 42).await, 42);
        assert_eq!(
            running.load(Ordering::SeqCst),
            1,
            "one heavy turn at a time"
        );
        for _ in 0..4 {
            release.send(()).unwrap();
        }
        for task in heavy {
            task.await.unwrap();
        }
        assert_eq!(running.load(Ordering::SeqCst), 4);
        assert_eq!(pool.users_known(), 0);
    }

    #[test]
    fn sizes_are_at_least_one_and_a_user_never_gets_more_than_all() {
        let pool = PlannerPool::new(0, 0);
        assert_eq!((pool.total(), pool.per_user()), (1, 1));
        let pool = PlannerPool::new(4, 9);
        assert_eq!((pool.total(), pool.per_user()), (4, 4));
        let pool = PlannerPool::from_cores();
        assert!(pool.total() >= 2 && pool.per_user() < pool.total());
    }
}
