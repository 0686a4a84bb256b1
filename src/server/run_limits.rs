//! How many runs an account may start: a limit per person, a higher one per service account
//! (signed in with an API key, where one account serves many sockets), and named exceptions.
//!
//! Each account gets a GCRA cell from `governor`: a burst of its limit, then one run every
//! minute/limit. A refusal says how long to wait, so the client can show it and retry on time
//! instead of timing out on a run that never started.
//!
//! Several instances on PostgreSQL keep the same cell in the database as well (one statement
//! a run, see `SqlStore::take_run_slot`), so an account gets its limit across all of them;
//! the instance's own cell stays in front, so a flood is refused without a query.

use std::collections::HashMap;
use std::num::NonZeroU32;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use governor::clock::{Clock, DefaultClock};
use governor::{DefaultDirectRateLimiter, DefaultKeyedRateLimiter, Quota, RateLimiter};

/// Checks between two sweeps of the accounts that have gone quiet.
const SWEEP_EVERY: u64 = 4096;

/// Which limit applies to an account when no exception names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AccountKind {
    Person,
    /// A program signed in with an API key: one account behind many sockets.
    Service,
}

/// A run refused by the limit: what the limit is and when the next run will be taken.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limited {
    pub per_minute: u32,
    pub retry_after: Duration,
}

impl Limited {
    /// Whole seconds, rounded up, for `Retry-After`.
    pub fn retry_after_secs(&self) -> u64 {
        self.retry_after.as_millis().div_ceil(1000).max(1) as u64
    }
}

/// A limit per account.
pub struct RunLimits {
    /// Every person's cell, created on their first run.
    people: (u32, DefaultKeyedRateLimiter<String>),
    /// Every service account's cell.
    services: (u32, DefaultKeyedRateLimiter<String>),
    /// Accounts with a limit of their own (`--runs-per-minute-for`), fixed at start.
    named: HashMap<String, (u32, DefaultDirectRateLimiter)>,
    /// Checks so far, so the quiet accounts' cells are dropped now and then.
    checks: AtomicU64,
    clock: DefaultClock,
    /// The database all instances share, when there are several.
    shared: Option<std::sync::Arc<crate::server::store::SqlStore>>,
}

impl RunLimits {
    /// `people` and `services` runs a minute; `named` overrides either for those accounts.
    pub fn new(people: NonZeroU32, services: NonZeroU32, named: &[(String, NonZeroU32)]) -> Self {
        let keyed = |n: NonZeroU32| (n.get(), RateLimiter::keyed(Quota::per_minute(n)));
        Self {
            people: keyed(people),
            services: keyed(services),
            named: named
                .iter()
                .map(|(user, n)| {
                    (
                        user.clone(),
                        (n.get(), RateLimiter::direct(Quota::per_minute(*n))),
                    )
                })
                .collect(),
            checks: AtomicU64::new(0),
            clock: DefaultClock::default(),
            shared: None,
        }
    }

    /// Limits that hold across every instance on `store`'s database.
    pub fn shared_through(mut self, store: std::sync::Arc<crate::server::store::SqlStore>) -> Self {
        self.shared = Some(store);
        self
    }

    /// Takes one run for `user` here and, with several instances, in the shared cell.
    pub async fn admit(&self, user: &str, kind: AccountKind) -> Result<(), Limited> {
        self.check(user, kind)?;
        let Some(store) = &self.shared else {
            return Ok(());
        };
        let per_minute = match self.named.get(user) {
            Some((n, _)) => *n,
            None => match kind {
                AccountKind::Person => self.people.0,
                AccountKind::Service => self.services.0,
            },
        };
        match store.take_run_slot(user, per_minute).await {
            Ok(None) => Ok(()),
            Ok(Some(retry_after)) => {
                metrics::counter!(crate::orchestrator::metrics::RUNS_LIMITED, "account" => kind_label(kind))
                    .increment(1);
                Err(Limited {
                    per_minute,
                    retry_after,
                })
            }
            Err(e) => {
                // A limit is a guard against floods, not a reason to stop work: this
                // instance's own cell still holds.
                tracing::warn!(error = %e, "shared run limit unreadable; this instance's holds");
                Ok(())
            }
        }
    }

    /// Takes one run for `user`, or says why not and for how long.
    pub fn check(&self, user: &str, kind: AccountKind) -> Result<(), Limited> {
        if self.checks.fetch_add(1, Ordering::Relaxed) % SWEEP_EVERY == SWEEP_EVERY - 1 {
            self.sweep();
        }
        let (per_minute, outcome) = match self.named.get(user) {
            Some((n, limiter)) => (*n, limiter.check()),
            None => {
                let (n, limiter) = match kind {
                    AccountKind::Person => &self.people,
                    AccountKind::Service => &self.services,
                };
                (*n, limiter.check_key(&user.to_owned()))
            }
        };
        outcome.map_err(|not_until| {
            metrics::counter!(crate::orchestrator::metrics::RUNS_LIMITED, "account" => kind_label(kind))
                .increment(1);
            Limited {
                per_minute,
                retry_after: not_until.wait_time_from(self.clock.now()),
            }
        })
    }

    /// Forgets the accounts whose cells are full again, so memory follows the active ones.
    fn sweep(&self) {
        for (_, limiter) in [&self.people, &self.services] {
            limiter.retain_recent();
            limiter.shrink_to_fit();
        }
    }
}

/// The account kind's label in `/metrics`.
fn kind_label(kind: AccountKind) -> &'static str {
    match kind {
        AccountKind::Person => "person",
        AccountKind::Service => "service",
    }
}

/// Parses `user=N` (the `--runs-per-minute-for` entries).
pub fn parse_named(entry: &str) -> Result<(String, NonZeroU32), String> {
    let (user, n) = entry
        .split_once('=')
        .ok_or_else(|| format!("`{entry}` is not user=N"))?;
    let user = user.trim();
    if user.is_empty() {
        return Err(format!("`{entry}` names no user"));
    }
    let n = n
        .trim()
        .parse::<NonZeroU32>()
        .map_err(|_| format!("`{entry}`: N must be a whole number of at least 1"))?;
    Ok((user.to_owned(), n))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn n(v: u32) -> NonZeroU32 {
        NonZeroU32::new(v).unwrap()
    }

    #[test]
    fn a_person_gets_a_burst_of_the_limit_then_waits() {
        let limits = RunLimits::new(n(2), n(100), &[]);
        assert!(limits.check("a", AccountKind::Person).is_ok());
        assert!(limits.check("a", AccountKind::Person).is_ok());
        let limited = limits.check("a", AccountKind::Person).unwrap_err();
        assert_eq!(limited.per_minute, 2);
        // One run every 30 s comes back; the wait is never zero and never past it.
        assert!(limited.retry_after > Duration::ZERO);
        assert!(limited.retry_after <= Duration::from_secs(30));
        assert!((1..=30).contains(&limited.retry_after_secs()));
        // Another person is not held up by the first.
        assert!(limits.check("b", AccountKind::Person).is_ok());
    }

    #[test]
    fn service_accounts_and_named_accounts_have_their_own_limits() {
        let named = [("trainee".to_owned(), n(1)), ("svc-bulk".to_owned(), n(5))];
        let limits = RunLimits::new(n(2), n(3), &named);
        for _ in 0..3 {
            assert!(limits.check("svc-planning", AccountKind::Service).is_ok());
        }
        assert_eq!(
            limits
                .check("svc-planning", AccountKind::Service)
                .unwrap_err()
                .per_minute,
            3
        );
        assert!(limits.check("trainee", AccountKind::Person).is_ok());
        assert_eq!(
            limits
                .check("trainee", AccountKind::Person)
                .unwrap_err()
                .per_minute,
            1
        );
        for _ in 0..5 {
            assert!(limits.check("svc-bulk", AccountKind::Service).is_ok());
        }
        assert!(limits.check("svc-bulk", AccountKind::Service).is_err());
    }

    #[test]
    fn named_limits_are_parsed_strictly() {
        assert_eq!(parse_named(" svc = 12 "), Ok(("svc".to_owned(), n(12))));
        assert!(parse_named("svc").is_err());
        assert!(parse_named("=3").is_err());
        assert!(parse_named("svc=0").is_err());
        assert!(parse_named("svc=lots").is_err());
    }
}
