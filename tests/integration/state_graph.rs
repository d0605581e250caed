//! The state graph against playing every trial in full, on scenarios drawn at random (with a
//! fixed seed): scripts and engagements whose trials reach the same states by many paths, so
//! that the outcome graph links paths at states, and whose rules (removal, Rally placement,
//! responses, damage dice, Call of the Masters) touch every part of the state a key must
//! hold. A key that left out something the rest of a trial reads would send some trial down
//! another trial's continuation, and the histograms would differ from the general path's,
//! which never remembers a trial.

use crate::common;

use rollcall::engine::{self, Monitor, RunSpec, Shard};
use rollcall::rules::Plan;
use rollcall::scenario;

/// SplitMix64: the test's own generator, so the cases do not depend on the engine's streams.
struct Mix(u64);

impl Mix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let z = (self.0 ^ (self.0 >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        let z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    fn pick<'a>(&mut self, options: &[&'a str]) -> &'a str {
        options[self.below(options.len() as u64) as usize]
    }
}

/// A random scenario: two or three units on two sides, close enough that shooting and Rally
/// placement interact; a script of up to 12 steps over a few rounds, or an engagement.
fn random_scenario(case: u64) -> String {
    let mut r = Mix(case.wrapping_mul(0x2545_F491_4F6C_DD1D) ^ 15);
    let engagement = r.below(3) == 0;
    let units = 2 + r.below(2) as usize;
    let mut text = format!(
        "[scenario]\nname = \"random-{case}\"\nseed = {case}\n\n[battlefield]\nwidth = 48.0\nheight = 48.0\n\n[options]\nspill = {}\nrally.chain = {}\n\n",
        r.below(2) == 1,
        r.below(2) == 1,
    );
    if engagement {
        text += &format!(
            "[engagement]\nrounds = {}\nfirst = \"{}\"\nuntil = \"{}\"\n\n",
            1 + r.below(4),
            r.pick(&["alternate", "random", "blue"]),
            r.pick(&["destroyed", "rounds"]),
        );
    }
    let ids: Vec<String> = (0..units).map(|u| format!("u{u}")).collect();
    let side = |u: usize| if u.is_multiple_of(2) { "blue" } else { "red" };
    for (u, id) in ids.iter().enumerate() {
        let size = 1 + r.below(8);
        let alive = 1 + r.below(size);
        let hp = [1, 1, 2, 3][r.below(4) as usize];
        // Rows of units 6" apart (a unit's grid is at most 4.5" deep): no bases overlap.
        let y = 10 + 6 * u as u64 + r.below(2);
        text += &format!(
            "[[unit]]\nid = \"{id}\"\nside = \"{}\"\nsize = {size}\nalive = {alive}\nhp = {hp}\nresolve = \"{}\"\n",
            side(u),
            r.pick(&["d6>=4", "d6>=3", "d6>=6"]),
        );
        if r.below(3) > 0 {
            text += &format!("defense = \"{}\"\n", r.pick(&["d6>=5", "d6>=4"]));
        }
        text += &format!(
            "weapon = {{ attacks = {}, hit = \"{}\", damage = {}, range = {} }}\n",
            r.pick(&["1", "2", "\"d3\""]),
            r.pick(&["d6>=4", "d6>=3"]),
            r.pick(&["1", "1", "2", "\"d3\""]),
            r.pick(&["6.0", "12.0", "24.0"]),
        );
        text += &format!(
            "formation = {{ kind = \"grid\", x = {}, y = {y}, spacing = 1.5, columns = 3 }}\n",
            16 + r.below(4),
        );
        text += &format!(
            "response = \"{}\"\nmove = 3.0\n",
            r.pick(&["none", "none", "defend", "covering_fire", "random"])
        );
        if r.below(4) == 0 {
            text += "rules = [\"call_of_the_masters\"]\n";
        }
        if engagement {
            let enemy = &ids[(u + 1) % units];
            text += &format!(
                "orders = [\n  {{ when = \"missing >= {}\", command = \"rally\" }},\n  {{ command = \"shoot\", target = \"{}\" }},\n  {{ command = \"run\" }},\n]\n",
                1 + r.below(3),
                if side((u + 1) % units) == side(u) {
                    "nearest"
                } else {
                    r.pick(&["nearest", "weakest", enemy])
                },
            );
        }
        text += "\n";
    }
    if !engagement {
        let mut round = 1;
        for _ in 0..1 + r.below(12) {
            round += r.below(2);
            let u = r.below(units as u64) as usize;
            let enemies: Vec<&String> = (0..units)
                .filter(|&v| side(v) != side(u))
                .map(|v| &ids[v])
                .collect();
            let command = r.pick(&["shoot", "shoot", "rally", "run"]);
            text += &format!(
                "[[step]]\nunit = \"{}\"\ncommand = \"{command}\"\nround = {round}\n",
                ids[u]
            );
            if command == "shoot" {
                let target = enemies[r.below(enemies.len() as u64) as usize];
                text += &format!("target = \"{target}\"\n");
            }
            text += "\n";
        }
    }
    text
}

#[test]
fn random_scripts_and_engagements_give_what_the_general_path_gives() {
    let mut compared = 0;
    let mut linked = 0;
    for case in 0..60 {
        let text = random_scenario(case);
        let set = match scenario::parse(&text, "random.toml", &[]) {
            Ok(set) => set,
            Err(e) => panic!("case {case} does not load: {e}\n{text}"),
        };
        let scenario = set.variants[0].scenario();
        let graph = Plan::compile(scenario);
        let general = Plan::compile(scenario).force_general_path();
        // Past a chunk, so that workers keep their graphs from one chunk to the next.
        let trials = 70_001;
        let monitor = Monitor::default();
        let spec = RunSpec {
            trials,
            seed: 99,
            threads: 2,
            shard: Shard::WHOLE,
            precision: None,
        };
        let got = engine::run(&graph, &spec, &monitor).expect("engine runs");
        assert_eq!(
            got.gathered,
            common::gather(&general, trials, 99, 2),
            "case {case}\n{text}"
        );
        let full = monitor
            .played_in_full
            .load(std::sync::atomic::Ordering::Relaxed);
        linked += u64::from(full < trials / 10);
        compared += 1;
    }
    assert_eq!(compared, 60);
    // Most cases are memoised at all: the comparison is of the graph, not of full plays.
    assert!(linked >= 30, "only {linked} cases mostly walked the graph");
}
