//! Card play as a zero-sum game: the matrix-game solver against games solved by hand and by
//! brute force, the documented choice among equilibria, the value's interval in a simulation
//! study, and the shipped example end to end.

use rollcall::cards::equilibrium::equilibrium_csv;
use rollcall::cards::margins::pairs;
use rollcall::cards::matrix_game::{solve, Equilibrium};
use rollcall::output::{partial, Comparison, MetricReport, Report, VariantReport};
use rollcall::stats::Histogram;
use std::path::Path;
use std::process::Command;

fn game(rows: &[&[f64]]) -> Vec<Vec<f64>> {
    rows.iter().map(|r| r.to_vec()).collect()
}

/// The optimality certificate, independent of how the mixes were found: A's mix holds every
/// column of B to at least the value, and B's mix holds every row of A to at most it.
fn assert_certified(m: &[Vec<f64>], e: &Equilibrium, tol: f64) {
    let total_a: f64 = e.a.iter().sum();
    let total_b: f64 = e.b.iter().sum();
    assert!(
        (total_a - 1.0).abs() < 1e-8 && (total_b - 1.0).abs() < 1e-8,
        "{e:?}"
    );
    assert!(e.a.iter().chain(&e.b).all(|&p| (0.0..=1.0).contains(&p)));
    for j in 0..m[0].len() {
        let column: f64 = m.iter().zip(&e.a).map(|(r, &p)| p * r[j]).sum();
        assert!(
            column >= e.value - tol,
            "column {j} pays {column} < {}",
            e.value
        );
    }
    for (i, r) in m.iter().enumerate() {
        let row: f64 = r.iter().zip(&e.b).map(|(&x, &q)| x * q).sum();
        assert!(row <= e.value + tol, "row {i} pays {row} > {}", e.value);
    }
}

#[test]
fn the_shipped_example_mixes_three_to_one() {
    // A: x>y or y>x; B: c1>c2 or c2>c1. A's margins (worked in configs/cards-equilibrium.toml):
    //   x>y: 4, 3;  y>x: 1, 4.
    // A mixing p on x>y gets 4p + 1(1-p) = 1 + 3p against c1>c2 and 3p + 4(1-p) = 4 - p
    // against c2>c1; they are equal at p = 3/4, both 13/4. B mixing q on c1>c2 concedes
    // 4q + 3(1-q) = 3 + q to x>y and q + 4(1-q) = 4 - 3q to y>x: equal at q = 1/4, 13/4.
    // Neither pure ordering does as well: x>y guarantees 3, y>x 1.
    let m = game(&[&[4.0, 3.0], &[1.0, 4.0]]);
    let e = solve(&m).unwrap();
    assert_eq!(e.a, [0.75, 0.25]);
    assert_eq!(e.b, [0.25, 0.75]);
    assert_eq!(e.value, 3.25);
}

#[test]
fn a_saddle_point_is_played_pure() {
    // Row 0's worst is 3 (column 0), row 1's is 1: A guarantees 3 with row 0. Column 0's
    // worst for B is 3 (row 0), column 1's is 5: B holds A to 3 with column 0. 3 = 3: a
    // saddle at (0, 0), value 3.
    let m = game(&[&[3.0, 5.0], &[1.0, 4.0]]);
    let e = solve(&m).unwrap();
    assert_eq!((e.a, e.b, e.value), (vec![1.0, 0.0], vec![1.0, 0.0], 3.0));
}

#[test]
fn a_dominated_ordering_is_never_played() {
    // Rock-paper-scissors, plus a fourth row that is rock made worse by 1 everywhere.
    // Without it the unique equilibrium is uniform with value 0; the fourth row is strictly
    // dominated, so it gets probability 0 and nothing else changes.
    let m = game(&[
        &[0.0, -1.0, 1.0],
        &[1.0, 0.0, -1.0],
        &[-1.0, 1.0, 0.0],
        &[-1.0, -2.0, 0.0],
    ]);
    let e = solve(&m).unwrap();
    assert_eq!(e.a[3], 0.0);
    for p in e.a[..3].iter().chain(&e.b) {
        assert!((p - 1.0 / 3.0).abs() < 1e-8, "{e:?}");
    }
    assert!(e.value.abs() < 1e-8);
    assert_certified(&m, &e, 1e-8);
}

#[test]
fn ties_between_equilibria_are_broken_as_documented() {
    // Every mix is optimal in a game of zeros: the first ordering takes it all.
    let e = solve(&game(&[&[0.0, 0.0], &[0.0, 0.0], &[0.0, 0.0]])).unwrap();
    assert_eq!((e.a, e.b), (vec![1.0, 0.0, 0.0], vec![1.0, 0.0]));
    // Rows 0 and 1 are the same ordering in effect: A's optimal mixes put 1/2 on row 2 and
    // 1/2 anywhere on rows 0 and 1. The first in order gets it.
    let e = solve(&game(&[&[1.0, 0.0], &[1.0, 0.0], &[0.0, 1.0]])).unwrap();
    assert_eq!(
        (e.a, e.b, e.value),
        (vec![0.5, 0.0, 0.5], vec![0.5, 0.5], 0.5)
    );
    // Both rows guarantee 1 (B holds A to 1 with column 0), so every mix of A is optimal;
    // against an opponent who picks at random row 1 scores 2 and row 0 only 1: row 1 is
    // chosen although it comes second.
    let e = solve(&game(&[&[1.0, 1.0], &[1.0, 3.0]])).unwrap();
    assert_eq!((e.a, e.b, e.value), (vec![0.0, 1.0], vec![1.0, 0.0], 1.0));
}

/// SplitMix64: a test's own fixed-seed source, independent of the crate's generators.
struct SplitMix(u64);

impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// Every mix of `rows` orderings whose probabilities are multiples of 1/`steps`.
fn grid(rows: usize, steps: usize) -> Vec<Vec<f64>> {
    fn compositions(rows: usize, total: usize) -> Vec<Vec<usize>> {
        if rows == 1 {
            return vec![vec![total]];
        }
        (0..=total)
            .flat_map(|k| {
                compositions(rows - 1, total - k)
                    .into_iter()
                    .map(move |mut rest| {
                        rest.insert(0, k);
                        rest
                    })
            })
            .collect()
    }
    compositions(rows, steps)
        .into_iter()
        .map(|c| c.into_iter().map(|k| k as f64 / steps as f64).collect())
        .collect()
}

#[test]
fn the_linear_program_agrees_with_brute_force_over_a_probability_grid() {
    // For small random games, the best guarantee over a grid of A's mixes (a lower bound on
    // the value) and the best hold over a grid of B's mixes (an upper bound) bracket the
    // solver's value, and come within the grid's resolution of it: moving a mix to the
    // nearest grid point changes each payoff by at most (rows - 1) * max|m| / steps.
    let mut rng = SplitMix(0x5EED_0019);
    let steps = 60;
    for case in 0..40 {
        let rows = 2 + rng.below(2) as usize;
        let cols = 2 + rng.below(2) as usize;
        let m: Vec<Vec<f64>> = (0..rows)
            .map(|_| (0..cols).map(|_| rng.below(11) as f64 - 5.0).collect())
            .collect();
        let e = solve(&m).unwrap();
        assert_certified(&m, &e, 1e-7);
        let lower = grid(rows, steps)
            .iter()
            .map(|x| {
                (0..cols)
                    .map(|j| (0..rows).map(|i| x[i] * m[i][j]).sum::<f64>())
                    .fold(f64::INFINITY, f64::min)
            })
            .fold(f64::NEG_INFINITY, f64::max);
        let upper = grid(cols, steps)
            .iter()
            .map(|y| {
                (0..rows)
                    .map(|i| (0..cols).map(|j| y[j] * m[i][j]).sum::<f64>())
                    .fold(f64::NEG_INFINITY, f64::max)
            })
            .fold(f64::INFINITY, f64::min);
        let resolution = (rows.max(cols) - 1) as f64 * 5.0 / steps as f64 + 1e-9;
        assert!(
            lower <= e.value + 1e-9 && e.value <= upper + 1e-9,
            "case {case} {m:?}: {lower} <= {} <= {upper}",
            e.value
        );
        assert!(
            e.value - lower <= resolution && upper - e.value <= resolution,
            "case {case} {m:?}: grid {lower}..{upper}, solver {}",
            e.value
        );
    }
}

fn hist(values: &[i64]) -> Histogram {
    let mut h = Histogram::new();
    values.iter().for_each(|&v| h.add(v));
    h
}

/// The report a run of an enumerating game would give, from per-trial scores:
/// `scores[arm][side][t]` for arms in (A ordering, B ordering) order, with the score pairs
/// the engine gathers.
fn report(a: &[&str], b: &[&str], scores: &[[Vec<i64>; 2]]) -> Report {
    let mut metrics = Vec::new();
    let mut arms = Vec::new();
    for (arm, sides) in scores.iter().enumerate() {
        let label = format!("A:{}|B:{}", a[arm / b.len()], b[arm % b.len()]);
        arms.push((metrics.len(), metrics.len() + 1));
        for (name, values) in ["A.score", "B.score"].iter().zip(sides) {
            metrics.push(MetricReport {
                choice: label.clone(),
                metric: name.to_string(),
                histogram: hist(values),
                round: None,
            });
        }
    }
    let value = |i: usize, t: usize| scores[i / 2][i % 2][t];
    let n = scores[0][0].len();
    let comparisons = pairs(&arms)
        .into_iter()
        .map(|(i, j)| Comparison {
            metric: metrics[i].metric.clone(),
            first: metrics[i].choice.clone(),
            second: metrics[j].choice.clone(),
            differences: hist(
                &(0..n)
                    .map(|t| value(i, t) - value(j, t))
                    .collect::<Vec<_>>(),
            ),
        })
        .collect();
    Report {
        scenario: "s".into(),
        param_names: vec![],
        variants: vec![VariantReport {
            params: vec![],
            metrics,
            comparisons,
        }],
        both_enumerate: true,
        roster: None,
    }
}

/// `(value, low, high)` from an equilibrium.csv of one sweep point.
fn value_row(csv: &str) -> (f64, f64, f64) {
    let f: Vec<f64> = csv.lines().nth(1).unwrap().split(',').collect::<Vec<_>>()[4..7]
        .iter()
        .map(|x| x.parse().unwrap())
        .collect();
    (f[0], f[1], f[2])
}

#[test]
fn the_value_interval_covers_the_true_value_at_its_stated_rate() {
    // Replicated runs of the shipped example's game with noise: arm (i, j)'s per-trial margin
    // is m_ij + s_ij * c + d, with c = ±1 a coin shared by all arms (the common random numbers
    // that correlate them), s = (2, 1, 1, 2) and d uniform on {-1, 0, 1} per arm. Both have
    // mean 0, so the true matrix is the shipped example's, whose value is 13/4. B's score is a
    // die shared by the arms, added to A's too, so it cancels from the margin but not from the
    // scores. The equilibrium's weights a_i b_j put 12/16 of the value on the two arms with
    // s = 2, so an interval that ignored the covariance between arms would be far too narrow
    // (about 75% coverage instead of 95%).
    let true_value = 3.25;
    let m = [4, 3, 1, 4];
    let s = [2, 1, 1, 2];
    let (replicates, trials) = (1000u64, 200usize);
    let mut rng = SplitMix(0xC0FE_0019);
    let mut covered = 0u64;
    for _ in 0..replicates {
        let mut scores: Vec<[Vec<i64>; 2]> = vec![[vec![], vec![]]; 4];
        for _ in 0..trials {
            let c = if rng.below(2) == 0 { -1 } else { 1 };
            let die = 1 + rng.below(6) as i64;
            for arm in 0..4 {
                let d = rng.below(3) as i64 - 1;
                // Offset 10 keeps scores non-negative, as card scores are.
                scores[arm][0].push(10 + m[arm] + s[arm] * c + d + die);
                scores[arm][1].push(10 + die);
            }
        }
        let r = report(&["x>y", "y>x"], &["c1>c2", "c2>c1"], &scores);
        let csv = String::from_utf8(equilibrium_csv(&r).unwrap()).unwrap();
        let (_, lo, hi) = value_row(&csv);
        if lo <= true_value && true_value <= hi {
            covered += 1;
        }
    }
    // 95% stated; the count's binomial standard error is sqrt(n * 0.95 * 0.05) ≈ 6.9 of 1000.
    let expected = 0.95 * replicates as f64;
    let se = (replicates as f64 * 0.95 * 0.05).sqrt();
    assert!(
        (covered as f64 - expected).abs() <= 4.5 * se,
        "covered {covered} of {replicates}; expected {expected} ± {}",
        4.5 * se
    );
}

#[test]
fn a_deterministic_game_has_a_zero_width_interval_and_every_ordering_a_row() {
    let constant = |a: i64, b: i64| [vec![a; 5], vec![b; 5]];
    let r = report(
        &["x>y", "y>x"],
        &["c1>c2", "c2>c1"],
        &[
            constant(4, 0),
            constant(5, 2),
            constant(1, 0),
            constant(4, 0),
        ],
    );
    let csv = String::from_utf8(equilibrium_csv(&r).unwrap()).unwrap();
    assert_eq!(
        csv,
        "scenario,player,ordering,probability,value,value_ci95_low,value_ci95_high\n\
         s,A,x>y,0.75,3.25,3.25,3.25\n\
         s,A,y>x,0.25,3.25,3.25,3.25\n\
         s,B,c1>c2,0.25,3.25,3.25,3.25\n\
         s,B,c2>c1,0.75,3.25,3.25,3.25\n"
    );
    // A player with a single ordering plays it; the other plays its best reply, c2>c1 (A's
    // margin 3 against 4): the value is 3.
    let mut one = report(
        &["x>y"],
        &["c1>c2", "c2>c1"],
        &[constant(4, 0), constant(3, 0)],
    );
    assert_eq!(
        String::from_utf8(equilibrium_csv(&one).unwrap()).unwrap(),
        "scenario,player,ordering,probability,value,value_ci95_low,value_ci95_high\n\
         s,A,x>y,1,3,3,3\n\
         s,B,c1>c2,0,3,3,3\n\
         s,B,c2>c1,1,3,3,3\n"
    );
    // The same orderings when a player does not enumerate (a script): no game, no table.
    one.both_enumerate = false;
    assert_eq!(equilibrium_csv(&one), None);
}

#[test]
fn a_game_without_chance_shows_its_exact_value_with_no_width() {
    // A's margin is 11, 11 or 33 where both play the same ordering (p, q, r) and 0 elsewhere.
    // A mixing a_i holds each column j to a_j d_j; equal columns need a_i = v / d_i, and
    // a_1 + a_2 + a_3 = 1 gives v = 1 / (1/11 + 1/11 + 1/33) = 33/7, with a = (3/7, 3/7,
    // 1/7). B's mix is the same by symmetry. Rounded to 9 decimals the mixes sum to
    // 1.000000001 each, so a value computed from them would be 33/7 (1 + 1e-9)^2, about
    // 9.4e-9 too high, and an interval of no width around it would miss 33/7.
    let d = [11, 11, 33];
    let exact = 33.0 / 7.0;
    let m: Vec<Vec<f64>> = (0..3)
        .map(|i| {
            (0..3)
                .map(|j| if i == j { d[i] as f64 } else { 0.0 })
                .collect()
        })
        .collect();
    let e = solve(&m).unwrap();
    assert!((e.value - exact).abs() < 1e-12, "{e:?}");
    assert_eq!(e.a, [0.428571429, 0.428571429, 0.142857143]);
    let constant = |a: i64| [vec![a; 4], vec![0; 4]];
    let scores: Vec<[Vec<i64>; 2]> = (0..9)
        .map(|arm| constant(if arm / 3 == arm % 3 { d[arm / 3] } else { 0 }))
        .collect();
    let r = report(&["p", "q", "r"], &["p", "q", "r"], &scores);
    let csv = String::from_utf8(equilibrium_csv(&r).unwrap()).unwrap();
    let probabilities: Vec<&str> = csv
        .lines()
        .skip(1)
        .map(|l| l.split(',').nth(3).unwrap())
        .collect();
    assert_eq!(
        probabilities,
        ["0.428571429", "0.428571429", "0.142857143"].repeat(2)
    );
    for line in csv.lines().skip(1) {
        let (value, low, high) = value_row(&format!("header\n{line}"));
        // The value is proven exact from the integer margins, so it is 33/7 to the last bit,
        // and the interval of no width holds it.
        assert_eq!(value, exact, "{line}");
        assert_eq!((low, high), (exact, exact), "{line}");
    }
}

fn rollcall(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_rollcall"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("the binary runs")
}

fn rows<'a>(csv: &'a str, first: &str) -> Vec<Vec<&'a str>> {
    csv.lines()
        .map(|l| l.split(',').collect::<Vec<_>>())
        .filter(|f| f[1] == first)
        .collect()
}

#[test]
fn the_shipped_example_gives_the_worked_answer() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("eq");
    let run = rollcall(&[
        "run",
        "configs/cards-equilibrium.toml",
        "--quiet",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let read = |name: &str| std::fs::read_to_string(Path::new(&out).join(name)).unwrap();
    let (eq, orderings) = (read("equilibrium.csv"), read("orderings.csv"));
    // Initiative A: the shipped example's matrix, exactly, and its mixes.
    let pairs: Vec<(&str, &str, &str)> = rows(&orderings, "A")
        .iter()
        .filter(|f| f[2] == "pair")
        .map(|f| (f[3], f[4], f[6]))
        .collect();
    assert_eq!(
        pairs,
        [
            ("x>y", "c1>c2", "4"),
            ("x>y", "c2>c1", "3"),
            ("y>x", "c1>c2", "1"),
            ("y>x", "c2>c1", "4"),
        ]
    );
    let mixes: Vec<(&str, &str, &str, &str)> = rows(&eq, "A")
        .iter()
        .map(|f| (f[2], f[3], f[4], f[5]))
        .collect();
    assert_eq!(
        mixes,
        [
            ("A", "x>y", "0.75", "3.25"),
            ("A", "y>x", "0.25", "3.25"),
            ("B", "c1>c2", "0.25", "3.25"),
            ("B", "c2>c1", "0.75", "3.25"),
        ]
    );
    // Initiative drawn each turn: B first, the matrix is 0, 3 / 1, 0 (B's counters arm before
    // A's cards, except that C2 waits for the action and C1 for the spell); the average with
    // the shipped example's is 2, 3 / 1, 2: a saddle at (x>y, c1>c2), value 2. That cell's
    // margin is 4 or 0 on a fair coin, so its interval is the t interval of
    // 4 * Bernoulli(1/2).
    let random = rows(&eq, "random");
    let probabilities: Vec<&str> = random.iter().map(|f| f[4]).collect();
    assert_eq!(probabilities, ["1", "0", "1", "0"]);
    let value: f64 = random[0][5].parse().unwrap();
    let (lo, hi): (f64, f64) = (random[0][6].parse().unwrap(), random[0][7].parse().unwrap());
    let n = 100_000.0;
    let p = value / 4.0;
    let half = 1.959_99 * (16.0 * p * (1.0 - p) * n / (n - 1.0) / n).sqrt();
    assert!(
        (hi - lo - 2.0 * half).abs() < 1e-4,
        "{lo}..{hi}, half {half}"
    );
    // The value is that cell's mean margin: 2 within 5 standard errors, sd 2 over 100,000
    // games (a 95% interval would miss the truth on one seed in twenty).
    assert!(
        (value - 2.0).abs() < 5.0 * 2.0 / n.sqrt(),
        "value {value}, true value 2"
    );
}

#[test]
fn sharded_runs_merge_to_the_same_game_tables() {
    // 200,000 trials are 4 chunks; 3 shards split them 1, 1, 2. The margins' covariances come
    // from integer histograms, so the merged tables equal a single run's byte for byte.
    let tmp = tempfile::tempdir().unwrap();
    let dir = |name: &str| tmp.path().join(name);
    let run = |extra: &[&str], out: &Path| {
        let mut args = vec![
            "run",
            "configs/cards-equilibrium.toml",
            "--trials",
            "200000",
            "--quiet",
            "--out",
            out.to_str().unwrap(),
        ];
        args.extend_from_slice(extra);
        let o = rollcall(&args);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    };
    run(&["--threads", "1"], &dir("single"));
    for i in 0..3 {
        run(&["--shard", &format!("{i}/3")], &dir("parts"));
    }
    let merge = rollcall(&[
        "merge",
        dir("parts").to_str().unwrap(),
        "--out",
        dir("merged").to_str().unwrap(),
    ]);
    assert!(
        merge.status.success(),
        "{}",
        String::from_utf8_lossy(&merge.stderr)
    );
    for name in ["summary.csv", "orderings.csv", "equilibrium.csv"] {
        assert_eq!(
            std::fs::read(dir("single").join(name)).unwrap(),
            std::fs::read(dir("merged").join(name)).unwrap(),
            "{name}"
        );
    }
    // The score pairs behind the intervals are not choice comparisons.
    assert!(!dir("single").join("compare.csv").exists());
    assert!(!dir("merged").join("compare.csv").exists());
    // Parts from 0.5.1 do not say that both players enumerate (the field reads as false):
    // they still merge to the game's table, as 0.5.1 wrote it (each player has two orderings).
    std::fs::create_dir_all(dir("legacy")).unwrap();
    for entry in std::fs::read_dir(dir("parts")).unwrap() {
        let path = entry.unwrap().path();
        let mut part = partial::read(&path).unwrap();
        assert!(part.body.report.both_enumerate, "{path:?}");
        part.body.report.both_enumerate = false;
        let bytes = partial::to_bytes(part.body, part.threads, part.wall_seconds);
        std::fs::write(dir("legacy").join(path.file_name().unwrap()), bytes).unwrap();
    }
    let merge = rollcall(&[
        "merge",
        dir("legacy").to_str().unwrap(),
        "--out",
        dir("merged-legacy").to_str().unwrap(),
    ]);
    assert!(
        merge.status.success(),
        "{}",
        String::from_utf8_lossy(&merge.stderr)
    );
    assert_eq!(
        std::fs::read(dir("single").join("equilibrium.csv")).unwrap(),
        std::fs::read(dir("merged-legacy").join("equilibrium.csv")).unwrap()
    );
}

/// Cards for the games of a single ordering below: a 3-point spell, a 1-point action, and
/// B's 0-point objects that cancel A's next spell (c1) or next object (c2, which A never
/// plays, so it does nothing).
const SMALL_GAME: &str = r#"
[[cards.card]]
id = "x"
kind = "sort"
value = 3

[[cards.card]]
id = "y"
kind = "action"
value = 1

[[cards.card]]
id = "c1"
kind = "objet"
effects = [{ type = "cancel", kinds = ["sort"] }]

[[cards.card]]
id = "c2"
kind = "objet"
effects = [{ type = "cancel", kinds = ["objet"] }]
"#;

/// Runs a scenario of both players enumerating, `hands` the `[cards...]` keys besides the
/// cards; returns equilibrium.csv (and checks that 2 shards merge to the same bytes).
fn small_game(name: &str, hands: &str) -> String {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join(format!("{name}.toml"));
    std::fs::write(
        &file,
        format!(
            "[scenario]\nname = \"{name}\"\ntrials = 200_000\nseed = 5\n\
             [sweep]\n\"cards.initiative\" = [\"B\", \"A\"]\n\
             [cards]\ncards_per_turn = 2\nturns = 1\ninitiative = \"B\"\n{hands}\n{SMALL_GAME}"
        ),
    )
    .unwrap();
    let file = file.to_str().unwrap();
    let dir = |d: &str| tmp.path().join(d).to_str().unwrap().to_string();
    let run = |extra: &[&str], out: &str| {
        let mut args = vec!["run", file, "--quiet", "--out", out];
        args.extend_from_slice(extra);
        let o = rollcall(&args);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    };
    run(&[], &dir("single"));
    for i in 0..2 {
        run(&["--shard", &format!("{i}/2")], &dir("parts"));
    }
    let merge = rollcall(&["merge", &dir("parts"), "--out", &dir("merged")]);
    assert!(merge.status.success());
    let read = |d: &str| std::fs::read_to_string(Path::new(&dir(d)).join("equilibrium.csv"));
    let single = read("single").expect("both players enumerate: equilibrium.csv is written");
    assert_eq!(read("merged").ok().as_ref(), Some(&single), "merged");
    single
}

#[test]
fn a_player_with_one_ordering_plays_it_and_the_other_its_best_reply() {
    // 1 x 2, and A holds fewer cards than the 2 slots: its one ordering is `x` alone.
    // Initiative B (B1, A1, B2): c1>c2 arms c1 before x resolves, cancelling it (margin 0);
    // c2>c1 arms c2, which cancels nothing of A's, and x scores 3 before c1 arms (margin 3).
    // B replies c1>c2: value 0. Initiative A (A1, B1, B2): x resolves first, 3 against either
    // ordering; of B's equally good orderings the documented tie rule plays the first in
    // table order, c1>c2.
    let csv = small_game(
        "one-by-two",
        "[cards.players.A]\nplays = \"enumerate\"\nhand = [\"x\"]\n\
         [cards.players.B]\nplays = \"enumerate\"\nhand = [\"c1\", \"c2\"]",
    );
    assert_eq!(
        csv,
        "scenario,cards.initiative,player,ordering,probability,value,value_ci95_low,value_ci95_high\n\
         one-by-two,B,A,x,1,0,0,0\n\
         one-by-two,B,B,c1>c2,1,0,0,0\n\
         one-by-two,B,B,c2>c1,0,0,0,0\n\
         one-by-two,A,A,x,1,3,3,3\n\
         one-by-two,A,B,c1>c2,1,3,3,3\n\
         one-by-two,A,B,c2>c1,0,3,3,3\n"
    );
    // 2 x 1: B holds only c1. Initiative B (B1, A1, A2): c1 is armed before A's first card,
    // so x is cancelled wherever it lies: x>y and y>x both score y's 1 (a tie: the first, x>y).
    // Initiative A (A1, B1, A2): x>y scores x before c1 arms, then y: 4; y>x scores y, then x
    // is cancelled: 1. A plays x>y: value 4.
    let csv = small_game(
        "two-by-one",
        "[cards.players.A]\nplays = \"enumerate\"\nhand = [\"x\", \"y\"]\n\
         [cards.players.B]\nplays = \"enumerate\"\nhand = [\"c1\"]",
    );
    assert_eq!(
        csv,
        "scenario,cards.initiative,player,ordering,probability,value,value_ci95_low,value_ci95_high\n\
         two-by-one,B,A,x>y,1,1,1,1\n\
         two-by-one,B,A,y>x,0,1,1,1\n\
         two-by-one,B,B,c1,1,1,1,1\n\
         two-by-one,A,A,x>y,1,4,4,4\n\
         two-by-one,A,A,y>x,0,4,4,4\n\
         two-by-one,A,B,c1,1,4,4,4\n"
    );
}
