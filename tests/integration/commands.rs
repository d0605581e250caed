//! Shoot, Defend, Covering Fire, Run and Call of the Masters for every command, against
//! probabilities worked out by hand in each test.

use crate::common;

use common::{
    assert_fits, assert_probability, constant, duel, gather, metric, plan as compile, wounds,
    MASTERS, TRIALS,
};

#[test]
fn doubled_shoot_kills_three_in_four_and_fizzles_half_the_time() {
    // Use 1 hits on 4+: 1/2 the target dies and use 2 fizzles. Otherwise use 2 hits 1/2.
    // P(destroyed) = 1/2 + 1/2 * 1/2 = 3/4; P(use 2 fizzled) = 1/2.
    let plan = compile(&duel(MASTERS, "", ""), false);
    let g = gather(&plan, TRIALS, 101, 2);
    assert_probability(
        metric(&plan, &g, "target.destroyed"),
        |v| v == 1,
        0.75,
        "destroyed",
    );
    assert_probability(
        metric(&plan, &g, "step1.fizzled"),
        |v| v == 1,
        0.5,
        "fizzled",
    );
    // resolved + fizzled = 2 uses, always.
    assert_probability(
        metric(&plan, &g, "step1.resolved"),
        |v| v == 1,
        0.5,
        "resolved 1",
    );
}

#[test]
fn defend_lasts_through_both_uses() {
    // Defending on 6+ with Defend's +1 saves on 5+ (1/3). Per use the target dies with
    // 1/2 * (1 - 1/3) = 1/3, so P(destroyed) = 1 - (2/3)^2 = 5/9, and the window opened once.
    let plan = compile(
        &duel(MASTERS, "defense = \"d6>=6\"\nresponse = \"defend\"", ""),
        false,
    );
    let g = gather(&plan, TRIALS, 102, 2);
    assert_probability(
        metric(&plan, &g, "target.destroyed"),
        |v| v == 1,
        5.0 / 9.0,
        "defended",
    );
    assert_eq!(
        constant(metric(&plan, &g, "step1.responses"), "responses"),
        1
    );
    // Without Defend: save 1/6, kill per use 1/2 * 5/6 = 5/12, P = 1 - (7/12)^2 = 95/144.
    let plan = compile(&duel(MASTERS, "defense = \"d6>=6\"", ""), false);
    let g = gather(&plan, TRIALS, 103, 2);
    assert_probability(
        metric(&plan, &g, "target.destroyed"),
        |v| v == 1,
        95.0 / 144.0,
        "open",
    );
    assert_eq!(
        constant(metric(&plan, &g, "step1.responses"), "responses"),
        0
    );
}

#[test]
fn retarget_lets_use_two_pick_another_target() {
    let second = r#"
[[unit]]
id = "other"
side = "red"
size = 1
resolve = "d6>=4"
models = [[12.0, 14.0]]
"#;
    let text = duel(MASTERS, "", "masters.retarget = true") + second;
    let plan = compile(&text, false);
    let g = gather(&plan, TRIALS, 104, 2);
    // Use 1 kills the target with 1/2; then use 2 shoots `other` (1/2). Never fizzles.
    assert_eq!(constant(metric(&plan, &g, "step1.fizzled"), "fizzled"), 0);
    assert_probability(
        metric(&plan, &g, "other.destroyed"),
        |v| v == 1,
        0.25,
        "other",
    );
    assert_probability(
        metric(&plan, &g, "target.destroyed"),
        |v| v == 1,
        0.75,
        "target",
    );
}

#[test]
fn covering_fire_shoots_first_and_can_stop_the_command() {
    // The target answers with Covering Fire: 1 attack on 4+ at -1, i.e. 5+ (1/3). A dead
    // shooter does nothing: P(target destroyed) = 2/3 * 1/2 = 1/3 for one use, and
    // 2/3 * 3/4 = 1/2 doubled. P(shooter destroyed) = 1/3 either way.
    let cf = "weapon = { attacks = 1, hit = \"d6>=4\", damage = 1, range = 24.0 }\nresponse = \"covering_fire\"";
    for (extra, p_target) in [("", 1.0 / 3.0), (MASTERS, 0.5)] {
        let plan = compile(&duel(extra, cf, ""), false);
        let g = gather(&plan, TRIALS, 105, 2);
        assert_probability(
            metric(&plan, &g, "masters.destroyed"),
            |v| v == 1,
            1.0 / 3.0,
            "shooter",
        );
        assert_probability(
            metric(&plan, &g, "target.destroyed"),
            |v| v == 1,
            p_target,
            "target",
        );
        assert_eq!(
            constant(metric(&plan, &g, "step1.responses"), "responses"),
            1
        );
        // A wiped-out shooter's uses all fizzle.
        let uses = if extra.is_empty() { 1 } else { 2 };
        assert_probability(
            metric(&plan, &g, "step1.fizzled"),
            |v| v == uses,
            1.0 / 3.0,
            "fizzled",
        );
    }
}

#[test]
fn damage_goes_to_the_damaged_model_and_excess_is_lost_or_spills() {
    // Hits ~ Binomial(3, 1/2): P(0) = 1/8, P(1) = 3/8, P(2) = 3/8, P(3) = 1/8.
    // No spill: hit 1 -> nearest ogre 3 -> 1 HP; hit 2 -> the damaged ogre dies, 1 lost;
    // hit 3 -> the other ogre 3 -> 1. Damage taken by hits: 0, 2, 3, 5; models lost 0, 0, 1, 1.
    let plan_lost = compile(&wounds(false), false);
    let g = gather(&plan_lost, TRIALS, 106, 2);
    let damage = [(0, 0.125), (2, 0.375), (3, 0.375), (5, 0.125)];
    assert_fits(
        metric(&plan_lost, &g, "ogres.damage_taken"),
        &damage,
        "no spill damage",
    );
    assert_fits(
        metric(&plan_lost, &g, "ogres.lost"),
        &[(0, 0.5), (1, 0.5)],
        "no spill lost",
    );
    // Spill: hit 2 kills the damaged ogre and carries 1 to the other (3 -> 2); hit 3 deals 2
    // more and kills it. Damage 0, 2, 4, 6; lost 0, 0, 1, 2; destroyed only with 3 hits.
    let plan_spill = compile(&wounds(true), false);
    let g = gather(&plan_spill, TRIALS, 107, 2);
    let damage = [(0, 0.125), (2, 0.375), (4, 0.375), (6, 0.125)];
    assert_fits(
        metric(&plan_spill, &g, "ogres.damage_taken"),
        &damage,
        "spill damage",
    );
    let lost = [(0, 0.5), (1, 0.375), (2, 0.125)];
    assert_fits(metric(&plan_spill, &g, "ogres.lost"), &lost, "spill lost");
    assert_probability(
        metric(&plan_spill, &g, "ogres.destroyed"),
        |v| v == 1,
        0.125,
        "destroyed",
    );
}

#[test]
fn the_nearest_model_takes_the_first_wound() {
    // One hit for sure (d6>=1) of 1 damage on 1-HP models: the nearer ogre (x = 20) dies, so
    // a second shooter with 10.5" range, which reached only that one, then has no target.
    let text = r#"
[scenario]
name = "nearest"
[[unit]]
id = "guns"
side = "blue"
size = 1
resolve = "d6>=4"
weapon = { attacks = 1, hit = "d6>=1", damage = 1, range = 24.0 }
models = [[10.0, 10.0]]
[[unit]]
id = "pistol"
side = "blue"
size = 1
resolve = "d6>=4"
weapon = { attacks = 1, hit = "d6>=1", damage = 1, range = 9.5 }
models = [[10.0, 12.0]]
[[unit]]
id = "ogres"
side = "red"
size = 2
resolve = "d6>=4"
models = [[20.0, 10.0], [26.0, 10.0]]
[[step]]
unit = "guns"
command = "shoot"
target = "ogres"
[[step]]
unit = "pistol"
command = "shoot"
target = "ogres"
"#;
    let plan = compile(text, false);
    let g = gather(&plan, 10_000, 108, 1);
    assert_eq!(constant(metric(&plan, &g, "ogres.alive"), "alive"), 1);
    assert_eq!(constant(metric(&plan, &g, "step2.ineligible"), "pistol"), 1);
}

#[test]
fn a_unit_that_defended_cannot_rally_that_round() {
    // The target Defends against step 1 (Defend applies the Defend restriction), so its Rally
    // in the same round is refused; in the next round restrictions are gone and it resolves.
    let rally = |round: u32| {
        // d6>=8 cannot save even with Defend's +1 (d6+1 >= 8 needs a 7).
        duel(
            "",
            "size = 5\nalive = 1\ndefense = \"d6>=8\"\nresponse = \"defend\"",
            "",
        ) + &format!("[[step]]\nunit = \"target\"\ncommand = \"rally\"\nround = {round}\n")
    };
    let plan_same = compile(&rally(1), false);
    let g = gather(&plan_same, 20_000, 109, 2);
    assert_eq!(
        constant(metric(&plan_same, &g, "step1.responses"), "responses"),
        1
    );
    // Ineligible every trial: restricted when alive, no model when shot dead (1/2).
    assert_eq!(
        constant(metric(&plan_same, &g, "step2.ineligible"), "rally"),
        1
    );
    assert_eq!(
        constant(metric(&plan_same, &g, "target.restored"), "restored"),
        0
    );
    let plan_next = compile(&rally(2), false);
    let g = gather(&plan_next, 200_000, 110, 2);
    // Next round: eligible exactly when the target survived (1/2).
    assert_probability(
        metric(&plan_next, &g, "step2.ineligible"),
        |v| v == 1,
        0.5,
        "next round",
    );
}

#[test]
fn a_rally_bars_defend_later_that_round_and_masters_rally_is_not_blocked_by_itself() {
    // The target Rallies first (doubled by Call of the Masters: both uses resolve), then is
    // shot in the same round: Rally applied Defend, so it cannot Defend: no response.
    let text = duel(
        "",
        &format!("size = 3\nalive = 1\ndefense = \"d6>=6\"\nresponse = \"defend\"\n{MASTERS}"),
        "",
    )
    .replace(
        "[[step]]\nunit = \"masters\"",
        "[[step]]\nunit = \"target\"\ncommand = \"rally\"\n\n[[step]]\nunit = \"masters\"",
    );
    let plan = compile(&text, false);
    let g = gather(&plan, 20_000, 111, 2);
    assert_eq!(
        constant(metric(&plan, &g, "step1.resolved"), "rally uses"),
        2
    );
    assert_eq!(constant(metric(&plan, &g, "step2.responses"), "defend"), 0);
}

#[test]
fn covering_fire_restricts_the_responder_from_shooting_that_round() {
    // The target fires Covering Fire against step 1 (it takes Shoot's restriction), so its
    // own Shoot in step 2 of the same round is refused whenever it survived.
    let cf = "weapon = { attacks = 1, hit = \"d6>=7\", damage = 1, range = 24.0 }\nresponse = \"covering_fire\"";
    let text = duel("", cf, "")
        + "[[step]]\nunit = \"target\"\ncommand = \"shoot\"\ntarget = \"masters\"\n";
    let plan = compile(&text, false);
    let g = gather(&plan, 10_000, 112, 1);
    assert_eq!(
        constant(metric(&plan, &g, "step2.ineligible"), "refused"),
        1
    );
}

#[test]
fn run_moves_the_unit_out_of_reach() {
    // Runners 0.5" from an enemy cannot Rally; after running 3" away they can. A run toward a
    // point stops at the point.
    let text = r#"
[scenario]
name = "run"
[[unit]]
id = "runners"
side = "blue"
size = 4
alive = 2
resolve = "d6>=1"
move = 3.0
formation = { kind = "line", x = 10.0, y = 10.0, spacing = 1.0 }
[[unit]]
id = "enemy"
side = "red"
size = 1
resolve = "d6>=4"
models = [[12.5, 10.0]]
[[step]]
unit = "runners"
command = "rally"
[[step]]
unit = "runners"
command = "run"
round = 2
[[step]]
unit = "runners"
command = "rally"
round = 3
"#;
    for general in [false, true] {
        let plan = compile(text, general);
        let g = gather(&plan, 1_000, 113, 1);
        assert_eq!(constant(metric(&plan, &g, "step1.ineligible"), "near"), 1);
        assert_eq!(constant(metric(&plan, &g, "step2.resolved"), "run"), 1);
        assert_eq!(constant(metric(&plan, &g, "step3.ineligible"), "away"), 0);
        // Resolve on 1+: both missing models come back.
        assert_eq!(
            constant(metric(&plan, &g, "runners.restored"), "restored"),
            2
        );
    }
}

#[test]
fn random_responses_choose_uniformly_among_legal_answers() {
    // The target may do nothing, Defend, or Covering Fire (its gun never hits: d6>=7):
    // each with 1/3. Defend makes 6+ saves into 5+; the shooter hits on 1+.
    // P(destroyed) = 1/3 * 5/6 (nothing) + 1/3 * 2/3 (defend) + 1/3 * 5/6 (fire) = 7/9.
    let target = "defense = \"d6>=6\"\nresponse = \"random\"\nweapon = { attacks = 1, hit = \"d6>=7\", damage = 1, range = 24.0 }";
    let text = duel("", target, "").replace("hit = \"d6>=4\"", "hit = \"d6>=1\"");
    let plan = compile(&text, false);
    let g = gather(&plan, TRIALS, 114, 2);
    assert_probability(
        metric(&plan, &g, "step1.responses"),
        |v| v == 1,
        2.0 / 3.0,
        "answered",
    );
    assert_probability(
        metric(&plan, &g, "target.destroyed"),
        |v| v == 1,
        7.0 / 9.0,
        "destroyed",
    );
}

#[test]
fn fast_and_general_paths_agree_on_shooting_scenarios() {
    for (i, text) in [
        duel(MASTERS, "defense = \"d6>=6\"\nresponse = \"defend\"", ""),
        wounds(true),
    ]
    .iter()
    .enumerate()
    {
        let a = gather(&compile(text, false), 100_000, 120 + i as u64, 2);
        let b = gather(&compile(text, true), 100_000, 120 + i as u64, 2);
        assert_eq!(a, b);
    }
}

#[test]
fn a_unit_without_a_defense_may_defend_and_is_then_barred_from_rally() {
    // Defend needs no `defense` key (its bonus then changes nothing: every hit wounds), but it
    // still applies the Defend restriction, so the target's Rally in the same round is
    // refused. The shots never hit (d6>=7), so the target is always alive to try.
    let text = duel("", "size = 5\nalive = 1\nresponse = \"defend\"", "")
        .replace("hit = \"d6>=4\"", "hit = \"d6>=7\"")
        + "[[step]]\nunit = \"target\"\ncommand = \"rally\"\n";
    let plan = compile(&text, false);
    let g = gather(&plan, 10_000, 113, 1);
    assert_eq!(constant(metric(&plan, &g, "step1.responses"), "defend"), 1);
    assert_eq!(constant(metric(&plan, &g, "step2.ineligible"), "rally"), 1);
}

#[test]
fn covering_fire_answers_a_rally_before_it_resolves() {
    // The wardens Rally with 2 of 5 models missing; the gunner answers with Covering Fire
    // that always hits (d6>=1, modifier 0) and always wounds (no defense): one model falls
    // before the Rally resolves, which then rolls for 3 missing, each restored (d6>=1).
    let text = r#"
[scenario]
name = "cf-rally"
[options]
covering_fire.hit_modifier = 0
[[unit]]
id = "gunner"
side = "red"
size = 1
weapon = { attacks = 1, hit = "d6>=1", range = 24.0 }
response = "covering_fire"
models = [[10.0, 30.0]]
[[unit]]
id = "wardens"
side = "blue"
size = 5
alive = 3
resolve = "d6>=1"
formation = { kind = "line", x = 10.0, y = 10.0, spacing = 1.5 }
[[step]]
unit = "wardens"
command = "rally"
"#;
    let plan = compile(text, false);
    let g = gather(&plan, 10_000, 114, 1);
    assert_eq!(constant(metric(&plan, &g, "step1.responses"), "fire"), 1);
    assert_eq!(constant(metric(&plan, &g, "wardens.lost"), "lost"), 1);
    assert_eq!(
        constant(metric(&plan, &g, "wardens.restored"), "restored"),
        3
    );
    assert_eq!(constant(metric(&plan, &g, "wardens.alive"), "alive"), 5);
}
