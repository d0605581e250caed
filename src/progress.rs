//! The progress bar and the Ctrl-C bridge, watching a run from a side thread.
//!
//! The bar appears only when a run lasts more than about a second, on a terminal, without
//! `--quiet`: short runs and pipes stay silent.

use crate::engine::Monitor;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

const SHOW_AFTER: Duration = Duration::from_secs(1);
const TICK: Duration = Duration::from_millis(50);

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
            while !finished.load(Ordering::Acquire) {
                if interrupt.load(Ordering::Relaxed) {
                    monitor.stop.store(true, Ordering::Relaxed);
                }
                if show && bar.is_none() && start.elapsed() > SHOW_AFTER {
                    bar = Some(new_bar(total_trials, label));
                }
                if let Some(bar) = &bar {
                    bar.set_position(monitor.trials_done.load(Ordering::Relaxed));
                }
                std::thread::park_timeout(TICK);
            }
            if let Some(bar) = bar {
                bar.set_position(monitor.trials_done.load(Ordering::Relaxed));
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
    let style = ProgressStyle::with_template(
        "{prefix} [{bar:30}] {human_pos}/{human_len} trials  {per_sec}  ETA {eta}",
    )
    .unwrap_or_else(|_| ProgressStyle::default_bar())
    .progress_chars("=> ");
    bar.set_style(style);
    bar.set_prefix(label.to_string());
    bar
}
