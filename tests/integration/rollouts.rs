//! The exact engine's state limit and advice by rollouts: rollout values against the values by
//! hand (which the exact engine meets) on a file the exact engine can do, held back with
//! `--max-states`; the advice of a file past 250,000 states played by `run --validate`; the
//! refusal with its memory figure; bad input.

use crate::advise::{rollcall, volley, volley_by_hand, write};

/// advice.csv's rows as (option, value, best, method, trials, ci95_low, ci95_high).
fn rows(csv: &str) -> Vec<(String, f64, bool, String, String, f64, f64)> {
    csv.lines()
        .skip(1)
        .map(|line| {
            let c: Vec<&str> = line.split(',').collect();
            let n = c.len();
            (
                c[n - 7].to_string(),
                c[n - 6].parse().unwrap(),
                c[n - 5] == "1",
                c[n - 4].to_string(),
                c[n - 3].to_string(),
                c[n - 2].parse().unwrap(),
                c[n - 1].parse().unwrap(),
            )
        })
        .collect()
}

#[test]
fn rollout_values_meet_the_exact_values_within_5_sigma_of_their_own_bound() {
    // One activation, the wardens' first: a rollout of an option is that option followed to
    // the end, which is what the exact engine values (by hand: Rally 10/3, Shoot 4).
    let (rally, shoot) = volley_by_hand();
    let tmp = tempfile::tempdir().unwrap();
    let file = write(
        tmp.path(),
        "v.toml",
        &volley(r#"["rally", "shoot"]"#, "wardens.alive"),
    );
    let out = tmp.path().join("held");
    // Held back to one state, the exact engine refuses and rollouts take over, as many as
    // the scenario's trials.
    let n: u64 = 100_000;
    let o = rollcall(&[
        "advise",
        &file,
        "--max-states",
        "1",
        "--set",
        &format!("scenario.trials={n}"),
        "--out",
        out.to_str().unwrap(),
    ]);
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(
        stdout.contains("the exact engine refuses") && stdout.contains("--max-states N"),
        "{stdout}"
    );
    let got = rows(&std::fs::read_to_string(out.join("advice.csv")).unwrap());
    assert_eq!(got.len(), 2);
    // wardens.alive lies in [0, 10]: its variance is at most 10^2 / 4 (Popoviciu), so a mean
    // of n rollouts has a standard error of at most 5 / sqrt(n); the paired difference of two
    // options lies in [-10, 10], so its standard error is at most 10 / sqrt(n).
    let se = 5.0 / (n as f64).sqrt();
    let se_difference = 10.0 / (n as f64).sqrt();
    for ((option, value, _, method, trials, low, high), exact) in got.iter().zip([rally, shoot]) {
        assert_eq!((method.as_str(), trials.as_str()), ("rollout", "100000"));
        assert!(
            (value - exact).abs() < 5.0 * se,
            "{option}: {value} vs {exact}"
        );
        assert!(low < value && value < high, "{option}: [{low}, {high}]");
    }
    let difference = got[1].1 - got[0].1;
    assert!(
        (difference - (shoot - rally)).abs() < 5.0 * se_difference,
        "{difference} vs {}",
        shoot - rally
    );
    assert_eq!(
        (got[0].0.as_str(), got[0].2, got[1].0.as_str(), got[1].2),
        ("rally", false, "shoot", true)
    );
    // 2/3 apart, far beyond the interval of the paired difference at this n.
    assert!(
        stdout.contains("shoot beats the runner-up at 95%"),
        "{stdout}"
    );

    // Asked for directly, with the exact engine free: the same rows (the same seed).
    let asked = tmp.path().join("asked");
    let o = rollcall(&[
        "advise",
        &file,
        "--rollouts",
        "1e5",
        "--out",
        asked.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(
        std::fs::read_to_string(asked.join("advice.csv")).unwrap(),
        std::fs::read_to_string(out.join("advice.csv")).unwrap()
    );

    // A handful of rollouts cannot tell the options apart: stdout says how many would.
    let o = rollcall(&[
        "advise",
        &file,
        "--rollouts",
        "3",
        "--out",
        tmp.path().join("few").to_str().unwrap(),
    ]);
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{stdout}");
    assert!(stdout.contains("not settled at 95%"), "{stdout}");
    // More than were played, and enough that the interval at that count (the same paired
    // standard deviation, Student's t) excludes the difference seen.
    let needed: u64 = stdout
        .split(" rollouts would settle it")
        .next()
        .and_then(|s| s.rsplit("about ").next())
        .and_then(|s| s.replace(',', "").parse().ok())
        .unwrap_or_else(|| panic!("{stdout}"));
    assert!(needed > 3, "{stdout}");
}

#[test]
fn advice_past_250000_states_is_played_and_validated_by_run() {
    let tmp = tempfile::tempdir().unwrap();
    let file = "configs/advise-long-duel.toml";
    let o = rollcall(&[
        "advise",
        file,
        "--out",
        tmp.path().join("a").to_str().unwrap(),
    ]);
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let visited: u64 = stdout
        .split(" state(s) visited")
        .next()
        .and_then(|s| s.rsplit(' ').next())
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("{stdout}"));
    assert!(visited > 250_000, "{visited}");
    let o = rollcall(&[
        "run",
        file,
        "--trials",
        "200000",
        "--validate",
        "--quiet",
        "--out",
        tmp.path().join("r").to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let validation = std::fs::read_to_string(tmp.path().join("r/validation.csv")).unwrap();
    assert!(validation.contains("raiders.lost"), "{validation}");
    assert!(!validation.contains(",fail"), "{validation}");
}

#[test]
fn a_refusal_names_the_states_the_memory_and_the_flag() {
    let o = rollcall(&[
        "run",
        "configs/advise-long-duel.toml",
        "--max-states",
        "250000",
        "--trials",
        "100",
        "--quiet",
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    // Just past 250,000 states (a node's expansion adds several at once) at 384 bytes a
    // state: 96.0 MB.
    for w in [
        "the backward induction reached 250,0",
        "distinct states, over the limit of 250,000",
        "about 96.0 MB (384 bytes a state)",
        "--max-states N",
        "--rollouts N",
    ] {
        assert!(err.contains(w), "wants {w} in {err}");
    }
    // A scripted scenario's programme says the same of its steps.
    let tmp = tempfile::tempdir().unwrap();
    let o = rollcall(&[
        "exact",
        "configs/exchange-rally.toml",
        "--max-states",
        "250000",
        "--out",
        tmp.path().join("x").to_str().unwrap(),
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("(rally): after it, the dynamic programme reached")
            && err.contains("over the limit of 250,000")
            && err.contains("without where models stand"),
        "{err}"
    );
}

#[test]
fn bad_limits_and_rollouts_exit_2() {
    let tmp = tempfile::tempdir().unwrap();
    let file = write(
        tmp.path(),
        "v.toml",
        &volley(r#"["rally", "shoot"]"#, "wardens.alive"),
    );
    let out = tmp.path().join("out");
    let out = out.to_str().unwrap();
    for (args, says) in [
        (vec!["advise", &file, "--max-states", "0"], "0 states"),
        (
            vec!["exact", &file, "--max-states", "0", "--out", out],
            "0 states",
        ),
        (vec!["run", &file, "--max-states", "0"], "0 states"),
        // Far more than any machine's memory holds: refused before anything is allocated.
        (
            vec!["advise", &file, "--max-states", "1e15", "--out", out],
            "more than the",
        ),
        (vec!["advise", &file, "--rollouts", "0"], "0 rollouts"),
        (vec!["advise", &file, "--rollouts", "-3"], "rollouts"),
        (
            vec![
                "advise",
                "configs/duel.toml",
                "--rollouts",
                "100",
                "--out",
                out,
            ],
            "no `best` order",
        ),
    ] {
        let o = rollcall(&args);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(says), "{args:?}: wants {says} in {err}");
    }
}
