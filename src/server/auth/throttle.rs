//! Back-off for failed sign-ins, per account from one address and per address.
//!
//! Without it a password can be guessed as fast as argon2 verifies (tens of ms). A few
//! mistakes are free; after that each failure blocks the next try for twice as long as the
//! last, up to a ceiling. Two counts block:
//! - an account from one address (its own count per pair): one address guessing one password;
//! - an address for every account: one address trying many accounts.
//!
//! There is no block of an account from every address: that let anyone lock a chosen person
//! out with five wrong passwords (issue 31). Many addresses guessing one account are slowed
//! instead: once an account has [`ACCOUNT_UNDER_ATTACK`] recent failures, a pair gets no free
//! tries, so each further address gets one guess before its own back-off, while the owner's
//! address, which has not failed, signs in as usual. A correct password does not help while
//! blocked: otherwise the block would only slow down the wrong guesses.
//!
//! IPv6 addresses count by their /64 network: one host is given a whole /64 and could
//! otherwise take a fresh address for every guess.

use std::collections::HashMap;
use std::hash::Hash;
use std::net::IpAddr;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Failures an account may have from one address before it is blocked there; a user with a
/// typo never gets there.
const FREE_PER_ACCOUNT: u32 = 5;
/// An office behind one address has more people who mistype.
const FREE_PER_ADDRESS: u32 = 20;
/// Recent failures of one account, from all addresses, past which a new address gets no free
/// tries on it.
const ACCOUNT_UNDER_ATTACK: u32 = 50;
/// The first block; each further failure doubles it.
const FIRST_BLOCK: Duration = Duration::from_secs(30);
const LONGEST_BLOCK: Duration = Duration::from_secs(15 * 60);
/// A count untouched this long is forgotten, so the maps do not grow with every guess ever.
const FORGET_AFTER: Duration = Duration::from_secs(60 * 60);
/// Above this many entries, forgotten ones are swept on the next failure.
const SWEEP_ABOVE: usize = 10_000;

/// SHA-256 of the lower-case email; unknown emails count too, so blocking does not tell which
/// accounts exist.
type Account = [u8; 32];

#[derive(Default)]
pub struct SignInThrottle {
    /// Failures of an account from one address: the block that stops guessing its password.
    pairs: Mutex<HashMap<(Account, IpAddr), Failures>>,
    /// Failures of an account from anywhere: never blocks, only takes away the free tries.
    accounts: Mutex<HashMap<Account, Failures>>,
    /// Failures from each client address, whatever the account.
    addresses: Mutex<HashMap<IpAddr, Failures>>,
}

#[derive(Clone, Copy)]
struct Failures {
    count: u32,
    blocked_until: Instant,
    last: Instant,
}

impl SignInThrottle {
    /// How long this try must still wait, if it is blocked. Without an address (no peer
    /// known, which the server never has) only the account's count from nowhere applies.
    pub fn blocked(&self, account: &Account, address: Option<IpAddr>) -> Option<Duration> {
        let now = Instant::now();
        let address = counted(address);
        let pair_wait = wait(&self.pairs, &(*account, address), now);
        let address_wait = wait(&self.addresses, &address, now);
        pair_wait.max(address_wait)
    }

    /// Counts a failed sign-in.
    pub fn failed(&self, account: &Account, address: Option<IpAddr>) {
        let now = Instant::now();
        let address = counted(address);
        let account_failures = count(&self.accounts, *account, u32::MAX, now);
        let free = if account_failures >= ACCOUNT_UNDER_ATTACK {
            1
        } else {
            FREE_PER_ACCOUNT
        };
        count(&self.pairs, (*account, address), free, now);
        count(&self.addresses, address, FREE_PER_ADDRESS, now);
        if account_failures == ACCOUNT_UNDER_ATTACK {
            tracing::warn!(
                account = %hex_prefix(account),
                "many failed sign-ins for one account: new addresses get no free tries on it"
            );
        }
    }

    /// A correct password clears the account's count from this address (not the address's:
    /// one success among many guesses does not make the guesser honest).
    pub fn succeeded(&self, account: &Account, address: Option<IpAddr>) {
        lock(&self.pairs).remove(&(*account, counted(address)));
    }
}

/// The key an address is counted under: IPv4 as is (an IPv4-mapped IPv6 address too), IPv6
/// by its /64; no address at all as the unspecified one.
fn counted(address: Option<IpAddr>) -> IpAddr {
    match address.map(|a| a.to_canonical()) {
        Some(IpAddr::V6(v6)) => {
            let network = u128::from(v6) & !((1u128 << 64) - 1);
            IpAddr::V6(network.into())
        }
        Some(v4) => v4,
        None => IpAddr::from([0, 0, 0, 0]),
    }
}

fn hex_prefix(account: &Account) -> String {
    account[..6].iter().map(|b| format!("{b:02x}")).collect()
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

/// Adds one failure under `key`, blocking past `free` of them; returns the recent count.
fn count<K: Hash + Eq>(map: &Mutex<HashMap<K, Failures>>, key: K, free: u32, now: Instant) -> u32 {
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
    failures.count = failures.count.saturating_add(1);
    failures.last = now;
    if failures.count >= free {
        failures.blocked_until = now + block_for(failures.count - free);
    }
    failures.count
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
    fn a_few_mistakes_are_free_then_the_account_is_blocked_from_that_address_only() {
        let throttle = SignInThrottle::default();
        let anna = [1u8; 32];
        for _ in 0..FREE_PER_ACCOUNT - 1 {
            throttle.failed(&anna, ip(1));
            assert_eq!(throttle.blocked(&anna, ip(1)), None);
        }
        throttle.failed(&anna, ip(1));
        assert!(throttle.blocked(&anna, ip(1)).unwrap() > Duration::from_secs(25));
        // Not from another address, and not another account.
        assert_eq!(throttle.blocked(&anna, ip(3)), None);
        assert_eq!(throttle.blocked(&[2u8; 32], ip(1)), None);
        throttle.succeeded(&anna, ip(1));
        assert_eq!(throttle.blocked(&anna, ip(1)), None);
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
    fn an_account_guessed_from_many_addresses_leaves_its_owner_alone_but_slows_new_guessers() {
        let throttle = SignInThrottle::default();
        let anna = [1u8; 32];
        for n in 0..ACCOUNT_UNDER_ATTACK {
            let attacker = Some(IpAddr::from([172, 16, (n / 250) as u8, (n % 250) as u8]));
            throttle.failed(&anna, attacker);
        }
        // Anna's own address never failed: she is not blocked.
        assert_eq!(throttle.blocked(&anna, ip(1)), None);
        // A fresh attacker address is blocked after its first wrong guess.
        throttle.failed(&anna, ip(2));
        assert!(throttle.blocked(&anna, ip(2)).is_some());
    }

    #[test]
    fn ipv6_counts_by_its_64_network() {
        let throttle = SignInThrottle::default();
        let anna = [1u8; 32];
        for n in 0..FREE_PER_ACCOUNT {
            let host: IpAddr = format!("2001:db8:1:2::{n:x}").parse().unwrap();
            throttle.failed(&anna, Some(host));
        }
        let same_network: IpAddr = "2001:db8:1:2:ffff::1".parse().unwrap();
        let other_network: IpAddr = "2001:db8:1:3::1".parse().unwrap();
        assert!(throttle.blocked(&anna, Some(same_network)).is_some());
        assert_eq!(throttle.blocked(&anna, Some(other_network)), None);
    }

    #[test]
    fn blocks_double_up_to_a_ceiling() {
        assert_eq!(block_for(0), FIRST_BLOCK);
        assert_eq!(block_for(1), FIRST_BLOCK * 2);
        assert_eq!(block_for(40), LONGEST_BLOCK);
    }
}
