//! Back-off for failed sign-ins, per account and per address.
//!
//! Without it a password can be guessed as fast as argon2 verifies (tens of ms). A few
//! mistakes are free; after that each failure blocks the next try for twice as long as the
//! last, up to a ceiling. The account count stops guessing one password from many addresses,
//! the address count stops trying many accounts from one. A correct password does not help
//! while blocked: otherwise the block would only slow down the wrong guesses.

use std::collections::HashMap;
use std::hash::Hash;
use std::net::IpAddr;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Failures an account may have before it is blocked; a user with a typo never gets there.
const FREE_PER_ACCOUNT: u32 = 5;
/// An office behind one address has more people who mistype.
const FREE_PER_ADDRESS: u32 = 20;
/// The first block; each further failure doubles it.
const FIRST_BLOCK: Duration = Duration::from_secs(30);
const LONGEST_BLOCK: Duration = Duration::from_secs(15 * 60);
/// A count untouched this long is forgotten, so the maps do not grow with every guess ever.
const FORGET_AFTER: Duration = Duration::from_secs(60 * 60);
/// Above this many entries, forgotten ones are swept on the next failure.
const SWEEP_ABOVE: usize = 10_000;

#[derive(Default)]
pub struct SignInThrottle {
    /// SHA-256 of the lower-case email → its failures; unknown emails count too, so blocking
    /// does not tell which accounts exist.
    accounts: Mutex<HashMap<[u8; 32], Failures>>,
    /// Failures from each client address.
    addresses: Mutex<HashMap<IpAddr, Failures>>,
}

#[derive(Clone, Copy)]
struct Failures {
    count: u32,
    blocked_until: Instant,
    last: Instant,
}

impl SignInThrottle {
    /// How long this try must still wait, if it is blocked.
    pub fn blocked(&self, account: &[u8; 32], address: Option<IpAddr>) -> Option<Duration> {
        let now = Instant::now();
        let account_wait = wait(&self.accounts, account, now);
        let address_wait = address.and_then(|ip| wait(&self.addresses, &ip, now));
        account_wait.max(address_wait)
    }

    /// Counts a failed sign-in.
    pub fn failed(&self, account: &[u8; 32], address: Option<IpAddr>) {
        let now = Instant::now();
        count(&self.accounts, *account, FREE_PER_ACCOUNT, now);
        if let Some(ip) = address {
            count(&self.addresses, ip, FREE_PER_ADDRESS, now);
        }
    }

    /// A correct password clears the account's count (not the address's: one success among
    /// many guesses does not make the guesser honest).
    pub fn succeeded(&self, account: &[u8; 32]) {
        lock(&self.accounts).remove(account);
    }
}

fn lock<K, V>(map: &Mutex<HashMap<K, V>>) -> std::sync::MutexGuard<'_, HashMap<K, V>> {
    map.lock().unwrap_or_else(|p| p.into_inner())
}

fn wait<K: Hash + Eq>(
    map: &Mutex<HashMap<K, Failures>>,
    key: &K,
    now: Instant,
) -> Option<Duration> {
    let map = lock(map);
    let failures = map.get(key)?;
    (failures.blocked_until > now).then(|| failures.blocked_until - now)
}

fn count<K: Hash + Eq>(map: &Mutex<HashMap<K, Failures>>, key: K, free: u32, now: Instant) {
    let mut map = lock(map);
    if map.len() > SWEEP_ABOVE {
        map.retain(|_, f| now.duration_since(f.last) < FORGET_AFTER);
    }
    let failures = map.entry(key).or_insert(Failures {
        count: 0,
        blocked_until: now,
        last: now,
    });
    if now.duration_since(failures.last) >= FORGET_AFTER {
        failures.count = 0;
    }
    failures.count += 1;
    failures.last = now;
    if failures.count >= free {
        failures.blocked_until = now + block_for(failures.count - free);
    }
}

/// The block after `beyond` failures past the free ones.
fn block_for(beyond: u32) -> Duration {
    FIRST_BLOCK
        .saturating_mul(1u32 << beyond.min(16))
        .min(LONGEST_BLOCK)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(last: u8) -> Option<IpAddr> {
        Some(IpAddr::from([10, 0, 0, last]))
    }

    #[test]
    fn a_few_mistakes_are_free_then_the_account_is_blocked() {
        let throttle = SignInThrottle::default();
        let anna = [1u8; 32];
        for _ in 0..FREE_PER_ACCOUNT - 1 {
            throttle.failed(&anna, ip(1));
            assert_eq!(throttle.blocked(&anna, ip(1)), None);
        }
        throttle.failed(&anna, ip(2));
        // Blocked from every address, and only this account.
        assert!(throttle.blocked(&anna, ip(3)).unwrap() > Duration::from_secs(25));
        assert_eq!(throttle.blocked(&[2u8; 32], ip(3)), None);
        throttle.succeeded(&anna);
        assert_eq!(throttle.blocked(&anna, ip(3)), None);
    }

    #[test]
    fn many_accounts_from_one_address_block_the_address() {
        let throttle = SignInThrottle::default();
        for n in 0..FREE_PER_ADDRESS {
            throttle.failed(&[n as u8; 32], ip(9));
        }
        assert!(throttle.blocked(&[200u8; 32], ip(9)).is_some());
        assert_eq!(throttle.blocked(&[200u8; 32], ip(8)), None);
    }

    #[test]
    fn blocks_double_up_to_a_ceiling() {
        assert_eq!(block_for(0), FIRST_BLOCK);
        assert_eq!(block_for(1), FIRST_BLOCK * 2);
        assert_eq!(block_for(40), LONGEST_BLOCK);
    }
}
