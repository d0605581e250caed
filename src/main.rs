//! The `rollcall` binary: parse flags, call the library, report, exit.
//! Exit status: 0 done, 1 validation failed (`run --validate`), 2 bad input, a scenario the
//! exact engine refuses, or output that could not be written (a full disk, an unwritable
//! stream), 130 interrupted. A reader that stops reading (`rollcall explain FILE | head -1`)
//! is not an error: what is left to say is dropped, and the status is the command's own.

use clap::Parser;
use rollcall::app;
use rollcall::cli::{Cli, CommandLine};
use std::io::Write;
use std::sync::atomic::Ordering;

/// First Ctrl-C: stop at a chunk boundary (or a checkpoint's pause) and write; a second one:
/// leave now.
fn on_interrupt_stop() {
    let _ = ctrlc::set_handler(|| {
        if app::INTERRUPT.swap(true, Ordering::Relaxed) {
            std::process::exit(130);
        }
    });
}

fn main() {
    let mut say = Say::default();
    // clap quotes a bad argument whole; a long one is clipped like every other message.
    let cli = Cli::try_parse().unwrap_or_else(|e| {
        if !e.use_stderr() {
            e.exit();
        }
        say.err(&rollcall::config::suggest::clip_message(
            e.to_string().trim_end(),
        ));
        std::process::exit(say.status(e.exit_code()));
    });
    let code = match cli.command {
        CommandLine::Run(args) => {
            let opts = args.into_options();
            let quiet = opts.quiet;
            on_interrupt_stop();
            let mut log = |note: app::Note<'_>| say.note(note, quiet);
            match app::run(&opts, &mut log) {
                Ok(status) => status.exit_code(),
                Err(e) => say.error(&e),
            }
        }
        CommandLine::Balance(args) => {
            let opts = args.into_options();
            let quiet = opts.quiet;
            on_interrupt_stop();
            let mut log = |note: app::Note<'_>| say.note(note, quiet);
            match app::balance(&opts, &mut log) {
                Ok(balanced) => {
                    for line in &balanced.lines {
                        say.out(line);
                    }
                    balanced.status.exit_code()
                }
                Err(e) => say.error(&e),
            }
        }
        CommandLine::Exact(args) => match app::exact(&args.into_options()) {
            Ok(dir) => {
                say.err(&format!("exact -> {}", dir.display()));
                0
            }
            Err(e) => say.error(&e),
        },
        CommandLine::Advise(args) => {
            let (opts, rollouts) = args.into_options();
            match app::advise(&opts, rollouts) {
                Ok(advised) => {
                    for line in &advised.summary {
                        say.out(line);
                    }
                    say.err(&format!("advise -> {}", advised.dir.display()));
                    0
                }
                Err(e) => say.error(&e),
            }
        }
        CommandLine::Merge { parts, out } => match app::merge(&parts, &out) {
            Ok(dir) => {
                say.err(&format!("merged -> {}", dir.display()));
                0
            }
            Err(e) => say.error(&e),
        },
        CommandLine::Explain { file, settings } => match app::explain(&file, &settings) {
            Ok(explained) => {
                say.out_text(&explained.text);
                for line in &explained.warnings {
                    say.err(line);
                }
                0
            }
            Err(e) => say.error(&e),
        },
        CommandLine::Report { dirs, out } => match app::report(&dirs, out.as_deref()) {
            Ok(paths) => {
                for p in paths {
                    say.err(&format!("report -> {}", p.display()));
                }
                0
            }
            Err(e) => say.error(&e),
        },
        CommandLine::Check { files, settings } => match app::check(&files, &settings) {
            Ok(lines) => {
                for line in lines {
                    say.out(&line);
                }
                0
            }
            Err(e) => say.error(&e),
        },
    };
    std::process::exit(say.status(code));
}

/// Writes the lines a command has for the user, never panicking as `println!` does: a stream
/// whose reader has gone (a closed pipe) is written no more, and any other failure (a full
/// disk, a broken device) turns the exit status to 2, with a message on standard error when
/// that can still be written. Results files are written before any of this, so they stand.
#[derive(Default)]
struct Say {
    out_closed: bool,
    err_closed: bool,
    failed: bool,
}

impl Say {
    /// A note of a long run on standard error; `--quiet` keeps warnings and failures only.
    fn note(&mut self, note: app::Note<'_>, quiet: bool) {
        match note {
            app::Note::Info(line) if !quiet => self.err(line),
            app::Note::Info(_) => {}
            app::Note::Warning(line) | app::Note::Failure(line) => self.err(line),
        }
    }

    /// A line on standard output.
    fn out(&mut self, line: &str) {
        self.out_text(&format!("{line}\n"));
    }

    /// Text on standard output, as it is.
    fn out_text(&mut self, text: &str) {
        if self.out_closed {
            return;
        }
        let mut stdout = std::io::stdout().lock();
        match stdout
            .write_all(text.as_bytes())
            .and_then(|()| stdout.flush())
        {
            Ok(()) => {}
            Err(e) => {
                self.out_closed = true;
                if e.kind() != std::io::ErrorKind::BrokenPipe {
                    self.failed = true;
                    self.err(&format!("error: cannot write to standard output: {e}"));
                }
            }
        }
    }

    /// A line on standard error.
    fn err(&mut self, line: &str) {
        if self.err_closed {
            return;
        }
        let mut stderr = std::io::stderr().lock();
        if let Err(e) = writeln!(stderr, "{line}").and_then(|()| stderr.flush()) {
            self.err_closed = true;
            self.failed |= e.kind() != std::io::ErrorKind::BrokenPipe;
        }
    }

    /// Says what went wrong; returns the command's exit status.
    fn error(&mut self, e: &app::Error) -> i32 {
        self.err(&format!("error: {e}"));
        e.exit_code()
    }

    /// The exit status of a command that would end with `code`: 2 when some output could
    /// not be written (unless the command failed already).
    fn status(&self, code: i32) -> i32 {
        if self.failed && code == 0 {
            2
        } else {
            code
        }
    }
}
