//! The scalar xoshiro256++ word rate on one thread: the baseline `benches/compare/compare.py`
//! reads card turns against (group "cards"), as `cargo bench --bench engine -- baseline` does
//! for criterion. Draws N words (the first argument, default 2^30) from one trial stream and
//! prints, as one JSON line, how many and the seconds the draws took (process start excluded;
//! the compare script times the whole process instead, as it times rollcall's rows).

use rand::Rng;
use rollcall::engine::stream;
use std::hint::black_box;
use std::time::Instant;

fn main() {
    let words: u64 = match std::env::args().nth(1).map(|a| a.parse::<f64>()) {
        None => 1 << 30,
        Some(Ok(n)) if n >= 1.0 && n.fract() == 0.0 => n as u64,
        Some(_) => {
            eprintln!("xoshiro_words: the argument is a whole number of words, e.g. 1e9");
            std::process::exit(2);
        }
    };
    let mut rng = stream::trial_stream(1);
    let started = Instant::now();
    let mut x = 0u64;
    for _ in 0..words {
        x ^= rng.next_u64();
    }
    let seconds = started.elapsed().as_secs_f64();
    black_box(x);
    println!("{{\"words\": {words}, \"seconds\": {seconds}}}");
}
