//! The progress bar and the Ctrl-C bridge, watching a run from a side thread.
//!
//! The bar appears only when a run lasts more than about a second, on a terminal, without
//! `--quiet`: short runs and pipes stay silent. Its rate and time left are worked out here
//! from the run's own start, not by the bar: the bar appears a second into the run, with
//! trials already done, and an estimator started then reads that jump as a burst of speed.

use crate::engine::Monitor;
use crate::format::{count_si, duration_whole_units};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

const SHOW_AFTER: Duration = Duration::from_secs(1);
const TICK: Duration = Duration::from_millis(50);
/// The time left is shown only after this long, and this share of the trials: before, one
/// chunk more or less swings it wildly.
const ETA_AFTER: Duration = Duration::from_secs(2);
const ETA_AFTER_SHARE: f64 = 0.02;

/// Runs `work` while a side thread draws progress from `monitor` and forwards `interrupt`
/// (set by the Ctrl-C handler) to `monitor.stop`.
pub fn watch<T: Send>(
    monitor: &Monitor,
    total_trials: u64,
    label: &str,
    quiet: bool,
    interrupt: &AtomicBool,
    work: impl FnOnce() -> T + Send,
) -> T {
    let show = !quiet && std::io::stderr().is_terminal();
    let finished = AtomicBool::new(false);
    std::thread::scope(|scope| {
        let watcher = scope.spawn(|| {
            let start = Instant::now();
            let mut bar: Option<ProgressBar> = None;
            // Trials arrive a chunk at a time: the rate is taken when the count last moved,
            // so it does not sag between chunks.
            let (mut done, mut moved) = (0, Duration::ZERO);
            while !finished.load(Ordering::Acquire) {
                if interrupt.load(Ordering::Relaxed) {
                    monitor.stop.store(true, Ordering::Relaxed);
                }
                if show && bar.is_none() && start.elapsed() > SHOW_AFTER {
                    bar = Some(new_bar(total_trials, label));
                }
                let now = monitor.trials_done.load(Ordering::Relaxed);
                if now != done {
                    (done, moved) = (now, start.elapsed());
                }
                if let Some(bar) = &bar {
                    bar.set_position(done);
                    bar.set_message(status(done, total_trials, moved, start.elapsed()));
                }
                std::thread::park_timeout(TICK);
            }
            if let Some(bar) = bar {
                bar.finish_and_clear();
            }
        });
        let result = work();
        finished.store(true, Ordering::Release);
        watcher.thread().unpark();
        result
    })
}

fn new_bar(total: u64, label: &str) -> ProgressBar {
    let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr());
    let style = ProgressStyle::with_template("{prefix} [{bar:30}] {msg}")
        .unwrap_or_else(|_| ProgressStyle::default_bar())
        .progress_chars("=> ");
    bar.set_style(style);
    bar.set_prefix(label.to_string());
    bar
}

/// The text after the bar: trials done of the total, the mean rate from the run's start to
/// `moved` (when the count last changed), and the time left once it means something, e.g.
/// `12.3 M / 100 M trials  8.10 M trials/s  ETA 11 s`. `elapsed` is the time now.
pub fn status(done: u64, total: u64, moved: Duration, elapsed: Duration) -> String {
    let mut text = format!(
        "{} / {} trials",
        count_si(done as f64),
        count_si(total as f64)
    );
    let seconds = moved.as_secs_f64();
    if done == 0 || seconds <= 0.0 {
        return text;
    }
    let rate = done as f64 / seconds;
    text.push_str(&format!("  {} trials/s", count_si(rate)));
    let share = done as f64 / total.max(1) as f64;
    if elapsed >= ETA_AFTER && share >= ETA_AFTER_SHARE && done < total {
        let since = elapsed.saturating_sub(moved).as_secs_f64();
        let left = ((total - done) as f64 / rate - since).max(0.0);
        text.push_str(&format!("  ETA {}", duration_whole_units(left)));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rate_is_the_mean_since_the_start_and_the_eta_waits_until_it_means_something() {
        let s = Duration::from_secs_f64;
        // One second into a 14 s run of 14e6 trials, 1e6 done: 1 M trials/s, no ETA yet.
        assert_eq!(
            status(1_000_000, 14_000_000, s(1.0), s(1.0)),
            "1.00 M / 14.0 M trials  1.00 M trials/s"
        );
        // 2e6 done at 2 s, and it is 2.5 s now: 12e6 left at 1e6 a second, less the 0.5 s
        // since the count moved. The rate is still the rate at 2 s, not a sagging 0.8 M.
        assert_eq!(
            status(2_000_000, 14_000_000, s(2.0), s(2.5)),
            "2.00 M / 14.0 M trials  1.00 M trials/s  ETA 12 s"
        );
        assert_eq!(
            status(2_000_000, 14_000_000, s(2.0), s(4.0)),
            "2.00 M / 14.0 M trials  1.00 M trials/s  ETA 10 s"
        );
        // Nothing done yet: no rate to speak of.
        assert_eq!(status(0, 1_000, s(0.0), s(1.5)), "0 / 1.00 k trials");
        // Long past two seconds, but under 2% done: the time left is not yet shown.
        assert_eq!(
            status(1_000, 1_000_000, s(10.0), s(10.0)),
            "1.00 k / 1.00 M trials  100 trials/s"
        );
    }
}
