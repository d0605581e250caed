//! The `rollcall` binary: parse flags, call the library, report, exit.
//! Exit status: 0 done, 1 validation failed (`run --validate`), 2 bad input or a scenario the
//! exact engine refuses, 130 interrupted.

use clap::Parser;
use rollcall::app;
use rollcall::cli::{Cli, CommandLine};
use std::sync::atomic::Ordering;

fn main() {
    // clap quotes a bad argument whole; a long one is clipped like every other message.
    let cli = Cli::try_parse().unwrap_or_else(|e| {
        if !e.use_stderr() {
            e.exit();
        }
        eprintln!(
            "{}",
            rollcall::config::suggest::clip_message(e.to_string().trim_end())
        );
        std::process::exit(e.exit_code());
    });
    let code = match cli.command {
        CommandLine::Run(args) => {
            let opts = args.into_options();
            let quiet = opts.quiet;
            // First Ctrl-C: stop at a chunk boundary and write; a second one: leave now.
            let _ = ctrlc::set_handler(|| {
                if app::INTERRUPT.swap(true, Ordering::Relaxed) {
                    std::process::exit(130);
                }
            });
            let mut log = |note: app::Note<'_>| match note {
                app::Note::Info(line) if !quiet => eprintln!("{line}"),
                app::Note::Info(_) => {}
                app::Note::Warning(line) | app::Note::Failure(line) => eprintln!("{line}"),
            };
            match app::run(&opts, &mut log) {
                Ok(status) => status.exit_code(),
                Err(e) => report(&e),
            }
        }
        CommandLine::Exact(args) => match app::exact(&args.into_options()) {
            Ok(dir) => {
                eprintln!("exact -> {}", dir.display());
                0
            }
            Err(e) => report(&e),
        },
        CommandLine::Advise(args) => match advise(args) {
            Ok(advised) => {
                for line in &advised.summary {
                    println!("{line}");
                }
                eprintln!("advise -> {}", advised.dir.display());
                0
            }
            Err(e) => report(&e),
        },
        CommandLine::Merge { parts, out } => match app::merge(&parts, &out) {
            Ok(dir) => {
                eprintln!("merged -> {}", dir.display());
                0
            }
            Err(e) => report(&e),
        },
        CommandLine::Explain { file, settings } => match app::explain(&file, &settings) {
            Ok(explained) => {
                print!("{}", explained.text);
                for line in &explained.warnings {
                    eprintln!("{line}");
                }
                0
            }
            Err(e) => report(&e),
        },
        CommandLine::Report { dirs, out } => match app::report(&dirs, out.as_deref()) {
            Ok(paths) => {
                for p in paths {
                    eprintln!("report -> {}", p.display());
                }
                0
            }
            Err(e) => report(&e),
        },
        CommandLine::Check { files, settings } => match app::check(&files, &settings) {
            Ok(lines) => {
                for line in lines {
                    println!("{line}");
                }
                0
            }
            Err(e) => report(&e),
        },
    };
    std::process::exit(code);
}

fn report(e: &app::Error) -> i32 {
    eprintln!("error: {e}");
    e.exit_code()
}

/// `rollcall advise` with its options.
fn advise(args: rollcall::cli::AdviseArgs) -> Result<app::Advised, app::Error> {
    let (opts, rollouts) = args.into_options();
    app::advise(&opts, rollouts)
}
