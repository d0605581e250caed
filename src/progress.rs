//! The progress bar and the Ctrl-C bridge, watching a run from a side thread.
//!
//! The bar appears only when a run lasts more than about a second, on a terminal, without
//! `--quiet`: short runs and pipes stay silent. Its rate and time left are worked out here
//! from the run's own start, not by the bar: the bar appears a second into the run, with
//! trials already done, and an estimator started then reads that jump as a burst of speed.
//! A resumed run's rate counts only the trials played since it resumed.
//!
//! The line is laid out here to fit the terminal's width, read again at every tick (a
//! terminal can be resized): a line wider than the terminal wraps, and each redraw then
//! leaves a stale line behind.

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
/// The terminal's width when it cannot be read.
const FALLBACK_WIDTH: usize = 80;
/// The bar's width when the terminal has room, and the least worth drawing.
const BAR_WIDTH: usize = 30;
const MIN_BAR_WIDTH: usize = 5;

/// Runs `work` while a side thread draws progress from `monitor` and forwards `interrupt`
/// (set by the Ctrl-C handler) to `monitor.stop`. `resumed_trials` were played before this
/// run resumed: they count towards the trials done, not towards the rate.
pub fn watch<T: Send>(
    monitor: &Monitor,
    total_trials: u64,
    resumed_trials: u64,
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
                    bar = Some(new_bar(total_trials));
                }
                let now = monitor.trials_done.load(Ordering::Relaxed);
                if now != done {
                    (done, moved) = (now, start.elapsed());
                }
                if let Some(bar) = &bar {
                    let counts = Counts {
                        done,
                        resumed: resumed_trials.min(done),
                        total: total_trials,
                    };
                    let text = status(counts, moved, start.elapsed());
                    let share = done as f64 / total_trials.max(1) as f64;
                    bar.set_message(line(terminal_width(), label, share, &text));
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

/// The bar draws the line [`line`] lays out, whole, as its message.
fn new_bar(total: u64) -> ProgressBar {
    let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr());
    let style =
        ProgressStyle::with_template("{msg}").unwrap_or_else(|_| ProgressStyle::default_bar());
    bar.set_style(style);
    bar
}

/// The columns of the terminal on standard error, or [`FALLBACK_WIDTH`].
fn terminal_width() -> usize {
    console::Term::stderr()
        .size_checked()
        .map_or(FALLBACK_WIDTH, |(_, columns)| usize::from(columns))
}

/// The progress line in fewer than `width` columns (the last column is left free: a line
/// that fills it makes some terminals wrap): `label [=====>    ] status`. The status is kept
/// first, then as much of the label as fits, then the bar (up to [`BAR_WIDTH`], left out when
/// narrower than [`MIN_BAR_WIDTH`]); `share` is the part of the trials done, 0 to 1.
fn line(width: usize, label: &str, share: f64, status: &str) -> String {
    let room = width.saturating_sub(1);
    let status: String = status.chars().take(room).collect();
    let mut left = room - status.chars().count();
    let label_len = label.chars().count().min(left.saturating_sub(1));
    let mut text: String = label.chars().take(label_len).collect();
    if label_len > 0 {
        left -= label_len + 1;
        text.push(' ');
    }
    // "[", the bar, "] ".
    let bar = BAR_WIDTH.min(left.saturating_sub(3));
    if bar >= MIN_BAR_WIDTH {
        let filled = ((share.clamp(0.0, 1.0) * bar as f64) as usize).min(bar);
        let head = usize::from(filled < bar);
        text.push('[');
        text.push_str(&"=".repeat(filled));
        text.push_str(&">".repeat(head));
        text.push_str(&" ".repeat(bar - filled - head));
        text.push_str("] ");
    }
    text.push_str(&status);
    text
}

/// Trials done of the total, `resumed` of them played before the run resumed.
#[derive(Debug, Clone, Copy)]
pub struct Counts {
    pub done: u64,
    pub resumed: u64,
    pub total: u64,
}

/// The text after the bar: trials done of the total, the mean rate from the run's start to
/// `moved` (when the count last changed) of the trials played since, and the time left once
/// it means something, e.g. `12.3 M / 100 M trials  8.10 M trials/s  ETA 11 s`. `elapsed` is
/// the time now.
pub fn status(counts: Counts, moved: Duration, elapsed: Duration) -> String {
    let Counts {
        done,
        resumed,
        total,
    } = counts;
    let mut text = format!(
        "{} / {} trials",
        count_si(done as f64),
        count_si(total as f64)
    );
    let seconds = moved.as_secs_f64();
    let played = done.saturating_sub(resumed);
    if played == 0 || seconds <= 0.0 {
        return text;
    }
    let rate = played as f64 / seconds;
    text.push_str(&format!("  {} trials/s", count_si(rate)));
    let share = played as f64 / total.saturating_sub(resumed).max(1) as f64;
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

    fn fresh(done: u64, total: u64) -> Counts {
        Counts {
            done,
            resumed: 0,
            total,
        }
    }

    #[test]
    fn the_rate_is_the_mean_since_the_start_and_the_eta_waits_until_it_means_something() {
        let s = Duration::from_secs_f64;
        // One second into a 14 s run of 14e6 trials, 1e6 done: 1 M trials/s, no ETA yet.
        assert_eq!(
            status(fresh(1_000_000, 14_000_000), s(1.0), s(1.0)),
            "1.00 M / 14.0 M trials  1.00 M trials/s"
        );
        // 2e6 done at 2 s, and it is 2.5 s now: 12e6 left at 1e6 a second, less the 0.5 s
        // since the count moved. The rate is still the rate at 2 s, not a sagging 0.8 M.
        assert_eq!(
            status(fresh(2_000_000, 14_000_000), s(2.0), s(2.5)),
            "2.00 M / 14.0 M trials  1.00 M trials/s  ETA 12 s"
        );
        assert_eq!(
            status(fresh(2_000_000, 14_000_000), s(2.0), s(4.0)),
            "2.00 M / 14.0 M trials  1.00 M trials/s  ETA 10 s"
        );
        // Nothing done yet: no rate to speak of.
        assert_eq!(status(fresh(0, 1_000), s(0.0), s(1.5)), "0 / 1.00 k trials");
        // Long past two seconds, but under 2% done: the time left is not yet shown.
        assert_eq!(
            status(fresh(1_000, 1_000_000), s(10.0), s(10.0)),
            "1.00 k / 1.00 M trials  100 trials/s"
        );
    }

    #[test]
    fn a_resumed_run_rates_only_the_trials_played_since_it_resumed() {
        let s = Duration::from_secs_f64;
        // 10e6 of 14e6 done before the resume, 1e6 more in the 1 s since: 1 M trials/s, and
        // the 3e6 left take 3 s.
        let counts = Counts {
            done: 11_000_000,
            resumed: 10_000_000,
            total: 14_000_000,
        };
        assert_eq!(
            status(counts, s(1.0), s(1.0)),
            "11.0 M / 14.0 M trials  1.00 M trials/s"
        );
        assert_eq!(
            status(counts, s(1.0), s(2.0)),
            "11.0 M / 14.0 M trials  1.00 M trials/s  ETA 2 s"
        );
        // Nothing played since the resume: no rate yet.
        let none = Counts {
            done: 10_000_000,
            ..counts
        };
        assert_eq!(status(none, s(1.0), s(1.0)), "10.0 M / 14.0 M trials");
    }

    #[test]
    fn the_line_fits_the_terminal_whatever_its_width() {
        let status = "12.3 M / 100 M trials  8.10 M trials/s  ETA 11 s";
        let label = "a-scenario-with-a-rather-long-name";
        // Wide: label, a 30-column bar an eighth full, status.
        assert_eq!(
            line(160, label, 0.125, status),
            format!("{label} [===>{}] {status}", " ".repeat(26))
        );
        // 100 columns, 99 used: the status (48) and the label with its space (35) leave 16,
        // "[" and "] " take 3, the bar the other 13.
        assert_eq!(
            line(100, label, 1.0, status),
            format!("{label} [{}] {status}", "=".repeat(13))
        );
        // 80 columns: no room for a bar; 79 - 48 - 1 = 30 columns of the label.
        assert_eq!(
            line(80, label, 0.5, status),
            format!("{} {status}", &label[..30])
        );
        for width in 0..200 {
            let l = line(width, label, 0.5, status);
            assert!(
                l.chars().count() < width.max(1),
                "{width}: {l:?} is {} columns",
                l.chars().count()
            );
        }
        // Too narrow for a bar: the label is clipped, then the status.
        assert_eq!(
            line(60, label, 0.5, status),
            format!("{} {status}", &label[..10])
        );
        assert_eq!(line(20, label, 0.5, status), status[..19]);
    }
}
