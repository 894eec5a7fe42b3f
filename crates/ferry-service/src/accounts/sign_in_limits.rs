//! How fast passwords may be tried. Per address: every attempt counts (one address spraying
//! many names). Per account: only failures count, and they slow down the addresses that made
//! them: a guesser on one account from one address gets 10 tries, then one every 12 s. When an
//! account is guessed at from many addresses, every address that failed on it is held back,
//! but an address with no failures on it (its owner, typing the right password) is never
//! refused on the account's behalf: limits slow guessers down, they never lock an owner out.
//! Both are pruned as they go, so a flood of names or addresses is not kept.

use std::collections::{HashMap, VecDeque};
use std::net::IpAddr;
use std::num::NonZeroU32;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use governor::{DefaultKeyedRateLimiter, Quota, RateLimiter};

/// How long a failure counts against its account.
const WINDOW: Duration = Duration::from_secs(10 * 60);
/// Failures one address may make on one account at once before it must wait...
const ADDRESS_BURST: usize = 10;
/// ...and then one more every this long.
const ADDRESS_REFILL: Duration = Duration::from_secs(12);
/// Failures on one account, from all addresses in the window, past which every address that
/// failed on it waits out the window.
const ACCOUNT_FAILURES: usize = 100;
/// Failures remembered per account at the most (older ones are forgotten first).
const KEPT_PER_ACCOUNT: usize = 1_000;
/// Attempts between two sweeps of what has gone stale.
const SWEEP_EVERY: u64 = 256;

/// Sign-in attempts allowed: per address, and failures per account.
pub struct SignInLimits {
    per_address: DefaultKeyedRateLimiter<IpAddr>,
    failures: Mutex<HashMap<String, VecDeque<(Instant, Option<IpAddr>)>>>,
    attempts: AtomicU64,
}

impl Default for SignInLimits {
    fn default() -> Self {
        let burst = |n| NonZeroU32::new(n).expect("non-zero");
        SignInLimits {
            per_address: RateLimiter::keyed(Quota::per_minute(burst(30)).allow_burst(burst(60))),
            failures: Mutex::new(HashMap::new()),
            attempts: AtomicU64::new(0),
        }
    }
}

impl SignInLimits {
    /// Whether an attempt on `account` from `address` may go on now; counts it against the
    /// address.
    pub fn allow(&self, account: &str, address: Option<IpAddr>, now: Instant) -> bool {
        if self.attempts.fetch_add(1, Ordering::Relaxed) % SWEEP_EVERY == SWEEP_EVERY - 1 {
            self.sweep(now);
        }
        if address.is_some_and(|a| self.per_address.check_key(&a).is_err()) {
            return false;
        }
        let mut failures = self.failures.lock().expect("limits lock");
        let Some(recent) = failures.get_mut(account) else { return true };
        forget_before(recent, now);
        let mine: Vec<Instant> =
            recent.iter().filter(|(_, from)| *from == address).map(|(at, _)| *at).collect();
        if mine.is_empty() {
            // The owner's address, or any that has not guessed: never held back for others.
            return true;
        }
        if recent.len() >= ACCOUNT_FAILURES {
            return false;
        }
        // A burst, then one more for each refill period since the burst's oldest failure.
        let oldest = mine[mine.len().saturating_sub(ADDRESS_BURST)];
        let refilled = (now.duration_since(oldest).as_secs() / ADDRESS_REFILL.as_secs()) as usize;
        mine.len() < ADDRESS_BURST + refilled
    }

    /// Records a failed attempt on `account` from `address`.
    pub fn failed(&self, account: &str, address: Option<IpAddr>, now: Instant) {
        let mut failures = self.failures.lock().expect("limits lock");
        let recent = failures.entry(account.to_string()).or_default();
        recent.push_back((now, address));
        while recent.len() > KEPT_PER_ACCOUNT {
            recent.pop_front();
        }
    }

    /// Drops what no longer counts: failures past the window, accounts with none, addresses
    /// whose allowance is whole again.
    pub fn sweep(&self, now: Instant) {
        let mut failures = self.failures.lock().expect("limits lock");
        failures.retain(|_, recent| {
            forget_before(recent, now);
            !recent.is_empty()
        });
        drop(failures);
        self.per_address.retain_recent();
        self.per_address.shrink_to_fit();
    }

    /// How many accounts and addresses are remembered (for the pruning test).
    pub fn remembered(&self) -> (usize, usize) {
        (self.failures.lock().expect("limits lock").len(), self.per_address.len())
    }
}

fn forget_before(recent: &mut VecDeque<(Instant, Option<IpAddr>)>, now: Instant) {
    while recent.front().is_some_and(|(at, _)| now.duration_since(*at) > WINDOW) {
        recent.pop_front();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(n: u8) -> Option<IpAddr> {
        Some(IpAddr::from([203, 0, 113, n]))
    }

    #[test]
    fn a_guesser_is_slowed_and_the_owner_is_never_locked_out() {
        let limits = SignInLimits::default();
        let start = Instant::now();
        for _ in 0..ADDRESS_BURST {
            assert!(limits.allow("ann", ip(1), start));
            limits.failed("ann", ip(1), start);
        }
        assert!(!limits.allow("ann", ip(1), start), "the guesser waits");
        assert!(
            limits.allow("ann", ip(2), start),
            "the owner, from an address with no failures, is let in"
        );
        assert!(limits.allow("ann", ip(1), start + ADDRESS_REFILL), "one more try per refill");
        // Many addresses guessing at once: each that failed waits; the owner still gets in.
        for n in 10..(10 + ACCOUNT_FAILURES as u8) {
            limits.failed("ann", ip(n), start);
        }
        assert!(
            !limits.allow("ann", ip(10), start + ADDRESS_REFILL * 3),
            "a guessing address waits out the window"
        );
        assert!(limits.allow("ann", ip(250), start), "an address with no failures on the account");
        assert!(limits.allow("bob", ip(1), start), "another account is not held back");
    }

    #[test]
    fn what_no_longer_counts_is_forgotten() {
        let limits = SignInLimits::default();
        let start = Instant::now();
        for n in 0..200u8 {
            limits.allow(&format!("name-{n}"), ip(n), start);
            limits.failed(&format!("name-{n}"), ip(n), start);
        }
        assert_eq!(limits.remembered().0, 200);
        limits.sweep(start + WINDOW + Duration::from_secs(1));
        assert_eq!(
            limits.remembered().0,
            0,
            "failures past the window are dropped with their accounts"
        );
    }
}
