//! How many states the exact engine may hold, and what they cost: the one place that knows
//! the bytes a state takes, the share of memory the default may use, and the limit in force.
//!
//! The limit is the process's: a command sets it once from `--max-states` ([`set`]) before it
//! asks the exact engine anything; unset, it is [`default_limit`]. A cost model that wants to
//! know in advance what a programme of `n` states needs asks [`bytes_for`].

use crate::format::{count_si, thousands};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// The bytes one state takes, as the limit counts them: measured at the peak of a whole
/// command, about 250 for the backward induction of `configs/advise-long-duel.toml` (a
/// resident set of 190 MB at 747,264 states, its exact tables included; the bench
/// `exact/advise_duel_3_rounds` prints the induction's own peak heap a state) and 280 for the
/// scripted programme of `configs/exchange-rally.toml` (280 MB when refused at 994,581
/// states, its breakdown included), with room above both for more units and Rally's layouts.
pub const STATE_BYTES: u64 = 384;

/// The share of the memory available that the default limit fills: a half, so that the
/// rest of the machine, and the tables written after, keep room.
pub const MEMORY_SHARE: f64 = 0.5;

/// The default is never below this, however little memory the machine reports.
pub const MIN_DEFAULT: usize = 4_000_000;

/// The limit `rollcall explain` looks as far as (about 300 MB of states): a description comes
/// within seconds, and says that `rollcall exact` (with its default, or `--max-states`) may
/// take what it refuses. It takes every shipped scenario the default takes
/// (`advise-long-duel`'s 747,264 states) and stops `exchange-rally` after its eighth step.
pub const QUICK_LOOK: usize = 800_000;

/// The limit set by `--max-states`; 0: none given, the default applies.
static LIMIT: AtomicUsize = AtomicUsize::new(0);

/// Whether the limit in force is [`QUICK_LOOK`], set by [`look_quickly`]: a refusal then says
/// that `rollcall exact` goes further.
static QUICK: AtomicBool = AtomicBool::new(false);

/// The bytes `states` states need.
pub fn bytes_for(states: usize) -> u64 {
    (states as u64).saturating_mul(STATE_BYTES)
}

/// The memory available to a new allocation, in bytes (`MemAvailable` of `/proc/meminfo`);
/// `None` where the system does not say.
pub fn available_memory() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib.saturating_mul(1024))
}

/// What [`MEMORY_SHARE`] of `available` bytes holds, never below [`MIN_DEFAULT`].
pub fn default_for(available: Option<u64>) -> usize {
    fits(2, available).max(MIN_DEFAULT)
}

/// The limit when `--max-states` is not given: [`default_for`] the memory available now.
pub fn default_limit() -> usize {
    default_for(available_memory())
}

/// Sets the limit from `--max-states` (`None`: the default). Refuses 0, and a limit whose
/// states would need more memory than is available, before anything is allocated.
pub fn set(max_states: Option<u64>) -> Result<(), String> {
    QUICK.store(false, Ordering::Relaxed);
    let Some(n) = max_states else {
        LIMIT.store(0, Ordering::Relaxed);
        return Ok(());
    };
    let n = check(n, available_memory())?;
    LIMIT.store(n, Ordering::Relaxed);
    Ok(())
}

/// Sets the limit to [`QUICK_LOOK`], for `rollcall explain`.
pub fn look_quickly() {
    LIMIT.store(QUICK_LOOK, Ordering::Relaxed);
    QUICK.store(true, Ordering::Relaxed);
}

/// `--max-states n` against `available` bytes of memory: the limit, or why not.
pub fn check(n: u64, available: Option<u64>) -> Result<usize, String> {
    if n == 0 {
        return Err(
            "--max-states 0: the exact engine needs at least 1 state; give a \
                    positive count, or leave the flag out for the default"
                .into(),
        );
    }
    let states = usize::try_from(n).unwrap_or(usize::MAX);
    if let Some(available) = available {
        if bytes_for(states) > available {
            return Err(format!(
                "--max-states {}: {} states would need about {}B of memory ({STATE_BYTES} \
                 bytes a state), more than the {}B available; give at most {}",
                thousands(n),
                thousands(n),
                count_si(bytes_for(states) as f64),
                count_si(available as f64),
                thousands(available / STATE_BYTES)
            ));
        }
    }
    Ok(states)
}

/// The limit in force.
pub fn max_states() -> usize {
    match LIMIT.load(Ordering::Relaxed) {
        0 => default_limit(),
        n => n,
    }
}

/// Bytes a state takes per unit beyond the two units [`STATE_BYTES`] was measured with: its
/// packed row and its share of the maps, with room above.
pub const UNIT_BYTES: u64 = 48;

/// The bytes a state of `units` units takes, as the limit counts them.
pub fn state_bytes_for(units: usize) -> u64 {
    STATE_BYTES.saturating_add(UNIT_BYTES.saturating_mul(units.saturating_sub(2) as u64))
}

/// The most states of `units` units that [`MEMORY_SHARE`] of `available` bytes holds; with
/// the memory unknown, what [`MIN_DEFAULT`] two-unit states take.
pub fn fits(units: usize, available: Option<u64>) -> usize {
    let share = available.map_or(MIN_DEFAULT as u64 * STATE_BYTES, |a| {
        (a as f64 * MEMORY_SHARE) as u64
    });
    usize::try_from(share / state_bytes_for(units)).unwrap_or(usize::MAX)
}

/// The limit in force for a programme over `units` units: [`max_states`], or fewer where that
/// many states of so many units would not fit [`MEMORY_SHARE`] of the memory available (a
/// state of 256 units takes some 12 kB).
pub fn max_states_for(units: usize) -> usize {
    max_states().min(fits(units, available_memory()))
}

/// A refusal's words for `what` (e.g. "the backward induction") over `units` units having
/// reached `held` states over the limit: the states, the memory they need, the flag.
pub fn over(what: &str, held: usize, units: usize) -> String {
    let limit = max_states_for(units);
    let by_memory = if limit < max_states() {
        format!(
            "; with {units} units a state takes about {} bytes, so memory sets the limit \
             (`[[unit]]` count drives it)",
            thousands(state_bytes_for(units))
        )
    } else {
        String::new()
    };
    let source = if QUICK.load(Ordering::Relaxed) {
        "`explain` looks only this far: `rollcall exact` goes as far as `--max-states`, by \
         default what half the memory available holds, and may take it"
    } else {
        "`--max-states`, by default what half the memory available holds"
    };
    format!(
        "{what} reached {} distinct states, over the limit of {} ({source}{by_memory}); those states alone need about {}B \
         ({} bytes a state) and the programme needs more: raise the limit with --max-states N \
         where the memory allows",
        thousands(held as u64),
        thousands(limit as u64),
        count_si((held as u64).saturating_mul(state_bytes_for(units)) as f64),
        thousands(state_bytes_for(units)),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn states_of_many_units_are_held_to_what_memory_fits() {
        // 2 units: 384 bytes a state; 256 units: 384 + 254 * 48 = 12,576 bytes.
        assert_eq!(state_bytes_for(2), 384);
        assert_eq!(state_bytes_for(256), 12_576);
        // Half of 24 GiB is 12 * 2^30 = 12,884,901,888 bytes; / 12,576 = 1,024,562.
        assert_eq!(fits(256, Some(24 << 30)), 1_024_562);
        assert_eq!(fits(2, Some(24 << 30)), 1 << 25);
        // Unknown memory: what four million two-unit states take.
        assert_eq!(fits(2, None), MIN_DEFAULT);
    }

    #[test]
    fn the_default_fills_half_the_memory_and_never_less_than_four_million() {
        // 24 GiB available: half is 12 GiB, at 384 bytes a state 12 * 2^30 / (3 * 2^7) = 2^25.
        assert_eq!(default_for(Some(24 << 30)), 1 << 25);
        assert_eq!(default_for(Some(1 << 30)), MIN_DEFAULT);
        assert_eq!(default_for(None), MIN_DEFAULT);
    }

    #[test]
    fn a_limit_is_refused_at_zero_and_above_the_memory_available() {
        assert!(check(0, Some(1 << 40))
            .unwrap_err()
            .contains("--max-states 0"));
        // 3 GiB holds 3 * 2^30 / 384 = 2^23 = 8,388,608 states.
        assert_eq!(check(8_388_608, Some(3 << 30)), Ok(8_388_608));
        let e = check(8_388_609, Some(3 << 30)).unwrap_err();
        assert!(e.contains("give at most 8,388,608"), "{e}");
        assert!(e.contains("3.22 GB available"), "{e}");
        assert_eq!(check(5, None), Ok(5));
    }
}
