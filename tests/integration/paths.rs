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
        // Every seventh sweep point of the big table, all points of the others.
        let step = if set.variants.len() > 10 { 7 } else { 1 };
        // Every arm of a file whose choices are designs (`set`), each compiled on its own.
        for arm in set.variants.iter().step_by(step).flat_map(|v| v.arms()) {
            let fast = Plan::compile(arm);
            let general = Plan::compile(arm).force_general_path();
            // Not a multiple of the chunk or lane count, so partial chunks and lanes run too.
            let trials = 150_003;
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
