//! The engine's shortcuts against playing every trial in full: the outcome tree (trials
//! remembered as paths of draws, walked sixteen lanes side by side, or counted by result when
//! they are one draw) and the rules' precomputed placements must give exactly the histograms
//! of the plain general path, for every shipped battle scenario, sweep point and design arm.

use crate::common;

use rollcall::rules::Plan;
use rollcall::scenario;

#[test]
fn shortcuts_give_exactly_what_the_general_path_gives() {
    let mut compared = 0;
    for entry in std::fs::read_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/configs")).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if !name.ends_with(".toml") || name.starts_with("cards") {
            continue;
        }
        let set = scenario::load(&path, &[]).expect("shipped scenarios load");
        // Every arm of a file whose choices are designs (`set`) or matchups (a roster), each
        // compiled on its own; every seventh of a file with many (the big table, the roster).
        let arms: Vec<_> = set.variants.iter().flat_map(|v| v.arms()).collect();
        let step = if arms.len() > 10 { 7 } else { 1 };
        let arms: Vec<_> = arms.into_iter().step_by(step).collect();
        // About 150,000 games a file, at least 20,000 an arm; odd, so never a multiple of the
        // chunk or lane count, and partial chunks and lanes run too.
        let trials = (150_000 / arms.len() as u64).max(20_000) | 1;
        for arm in arms {
            let fast = Plan::compile(arm);
            let general = Plan::compile(arm).force_general_path();
            assert_eq!(
                common::gather(&fast, trials, 2024, 2),
                common::gather(&general, trials, 2024, 2),
                "{name}"
            );
            compared += 1;
        }
    }
    assert!(compared >= 20, "only {compared} scenarios compared");
}
