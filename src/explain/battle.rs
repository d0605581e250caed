//! A battle told in words: the table and the units, the steps or the engagement's orders, how
//! design arms differ, and how the commands used work.

use super::{test_text, unit_id};
use crate::format::{inches, plain_number, plural};
use crate::geometry::closest;
use crate::rules::Plan;
use crate::scenario::{
    Command, Engagement, First, Game, Given, GivenOrder, Heading, Order, Response, Scenario, Step,
    Target, Unit, Until,
};
use std::fmt::Write;

/// The battlefield and every unit, where it stands and what it can do.
pub(super) fn layout(out: &mut String, s: &Scenario, plan: &Plan) {
    let b = &s.battlefield;
    let terrain = if b.terrain.is_empty() {
        "no impassable terrain".to_string()
    } else {
        let rects: Vec<String> = b
            .terrain
            .iter()
            .map(|t| {
                format!(
                    "{} x {} from ({}, {})",
                    inches(t.width),
                    inches(t.height),
                    plain_number(t.x),
                    plain_number(t.y)
                )
            })
            .collect();
        format!("impassable terrain: {}", rects.join("; "))
    };
    let _ = writeln!(
        out,
        "\nBattlefield: {} x {}, {terrain}. Distances are edge to edge between round bases, in inches.",
        inches(b.width),
        inches(b.height)
    );
    let mut sides: Vec<&str> = Vec::new();
    for u in &s.units {
        if !sides.contains(&u.side.as_str()) {
            sides.push(&u.side);
        }
    }
    let _ = writeln!(out, "\nUnits (sides: {}):", sides.join(", "));
    for (i, u) in s.units.iter().enumerate() {
        unit(out, s, plan, i, u, "  ");
    }
}

fn unit(out: &mut String, s: &Scenario, plan: &Plan, i: usize, u: &Unit, indent: &str) {
    let alive = u.alive();
    let missing = u.size - alive;
    let _ = writeln!(
        out,
        "{indent}{}, side {}: {} of {} on the table ({missing} missing), {} HP a model, {} bases.",
        u.id,
        u.side,
        alive,
        plural(u.size.into(), "model"),
        u.hp,
        inches(u.base)
    );
    let more = format!("{indent}  ");
    if !u.models.is_empty() {
        let shown: Vec<String> = u
            .models
            .iter()
            .map(|p| format!("({}, {})", plain_number(p.x), plain_number(p.y)))
            .collect();
        let list = if shown.len() > 8 {
            format!(
                "{}, ... {} (centres)",
                shown[..3].join(", "),
                shown[shown.len() - 1]
            )
        } else {
            format!("{} (centres)", shown.join(", "))
        };
        let _ = writeln!(out, "{more}Models at {list}.");
    }
    let resolve = match &u.resolve {
        Some(t) => format!("Resolve {}", test_text(t)),
        None => "No Resolve test (it cannot Rally)".to_string(),
    };
    let defense = match &u.defense {
        Some(t) => format!(
            "defense {}: each hit on it wounds unless this test succeeds",
            test_text(t)
        ),
        None => "no defense test: every hit on it wounds".to_string(),
    };
    let _ = writeln!(out, "{more}{resolve}; {defense}.");
    let weapon = match &u.weapon {
        Some(w) => format!(
            "Weapon: {} a model, each hitting on {}, {} damage an unsaved hit, range {}",
            attacks_text(&w.attacks.to_string()),
            test_text(&w.hit),
            w.damage,
            inches(w.range)
        ),
        None => "No weapon (it cannot Shoot or give Covering Fire)".to_string(),
    };
    let moves = match u.move_distance {
        Some(m) => format!("moves {} when it Runs", inches(m)),
        None => "no move (it cannot Run)".to_string(),
    };
    let _ = writeln!(out, "{more}{weapon}; {moves}.");
    let _ = writeln!(
        out,
        "{more}{}; {}.",
        if u.call_of_the_masters {
            "Call of the Masters: the command it takes in its activation resolves twice, as one command"
        } else {
            "No special rules"
        },
        response_text(u.response)
    );
    let enemies: Vec<String> = s
        .units
        .iter()
        .filter(|e| e.side != u.side && !e.models.is_empty() && !u.models.is_empty())
        .map(|e| {
            let d = closest(
                u.models.iter().copied(),
                u.radius(),
                e.models.iter().copied(),
                e.radius(),
            );
            format!("{} {}", e.id, inches(d))
        })
        .collect();
    if !enemies.is_empty() {
        let _ = writeln!(
            out,
            "{more}Closest enemy models at the start: {}.",
            enemies.join(", ")
        );
    }
    if rallies(s, i) && missing > 0 && u.resolve.is_some() {
        let spots = plan.rally_spots(i).len();
        let _ = writeln!(
            out,
            "{more}A Rally from this layout finds room for {spots} of the {missing} missing models{}.",
            if (spots as u32) < missing {
                ": the others cannot come back while the table stays as it is"
            } else {
                ""
            }
        );
    }
}

fn attacks_text(attacks: &str) -> String {
    if attacks == "1" {
        "1 attack".to_string()
    } else {
        format!("{attacks} attacks")
    }
}

fn response_text(r: Response) -> &'static str {
    match r {
        Response::None => "it does not answer enemy commands",
        Response::Defend => {
            "in an enemy command's response window it Defends when it is that command's target"
        }
        Response::CoveringFire => {
            "in an enemy command's response window it gives Covering Fire when the acting unit is in range"
        }
        Response::Random => {
            "in an enemy command's response window it picks at random among the answers it may give, doing nothing included"
        }
    }
}

/// Whether some step or order of `s` makes unit `i` Rally.
fn rallies(s: &Scenario, i: usize) -> bool {
    match &s.game {
        Game::Steps(choices) => choices
            .iter()
            .flat_map(|c| &c.steps)
            .any(|st| st.unit == i && st.order == Order::Rally),
        Game::Engagement(e) => e.orders[i]
            .iter()
            .any(|o| o.order.options().contains(&Order::Rally)),
        Game::Cards(_) => false,
    }
}

/// What one trial plays: the step lists (one per choice) or the engagement.
pub(super) fn trial(out: &mut String, s: &Scenario) {
    let choices = match &s.game {
        Game::Steps(choices) => choices,
        Game::Engagement(e) => return engagement(out, s, e),
        Game::Cards(_) => return,
    };
    if choices.len() == 1 {
        let _ = writeln!(
            out,
            "\nOne trial plays these steps in order (a unit takes one command a round; command \
             tokens and restrictions clear when the round changes):"
        );
        steps(out, s, &choices[0].steps, "  ");
        return;
    }
    let ids: Vec<&str> = choices.iter().map(|c| c.id.as_str()).collect();
    let _ = writeln!(
        out,
        "\nChoices: {}. Each trial plays every choice's step list from the same start, on the \
         same random numbers, so compare.csv pairs them trial by trial (a unit takes one \
         command a round; tokens and restrictions clear when the round changes).",
        ids.join(", ")
    );
    for c in choices {
        let _ = writeln!(out, "  Choice `{}`:", c.id);
        steps(out, s, &c.steps, "    ");
    }
}

fn steps(out: &mut String, s: &Scenario, steps: &[Step], indent: &str) {
    let mut round = 0;
    for st in steps {
        if st.round != round {
            round = st.round;
            let _ = writeln!(out, "{indent}Round {round}:");
        }
        let _ = writeln!(
            out,
            "{indent}  {}: {}",
            st.id,
            order_text(s, st.unit, &st.order)
        );
    }
}

/// One order of a unit, in words: the command, its arguments and what it rolls.
/// An entry of `orders`: its order, or for `best` each option and how the choice is made.
fn given_text(s: &Scenario, unit: usize, given: &Given) -> String {
    match given {
        Given::Order(order) => order_text(s, unit, order),
        Given::Best(options) => {
            let each: Vec<String> = options
                .iter()
                .map(|o| format!("{}: {}", o.command().name(), order_text(s, unit, o)))
                .collect();
            format!(
                "the best of {} options, chosen by `rollcall advise`'s backward induction for                  the unit's side's objective (ties to the first listed). {}",
                options.len(),
                each.join(" ")
            )
        }
    }
}

fn order_text(s: &Scenario, unit: usize, order: &Order) -> String {
    let u = &s.units[unit];
    let doubled = if u.call_of_the_masters {
        " (resolved twice, as one command: Call of the Masters)"
    } else {
        ""
    };
    let mut text = match *order {
        Order::Rally => {
            let resolve = u.resolve.as_ref().map_or(String::new(), test_text);
            let missing = u.size - u.alive();
            format!(
                "{} declares Rally{doubled}: one Resolve test, {resolve}, per missing model \
                 ({missing} missing at the start), each success restoring one model.",
                u.id
            )
        }
        Order::Shoot { target } => {
            let w = u.weapon.as_ref();
            let volley = w.map_or(String::new(), |w| {
                format!(
                    "every model on the table makes {}, each hitting on {}; each unsaved hit deals {} damage",
                    attacks_text(&w.attacks.to_string()),
                    test_text(&w.hit),
                    w.damage
                )
            });
            let (at, after) = match target {
                Target::Unit(t) => {
                    let tu = &s.units[t];
                    let save = match &tu.defense {
                        Some(d) => format!("the target's defense test is {}", test_text(d)),
                        None => "the target has no defense test".to_string(),
                    };
                    let distance = match (u.models.is_empty(), tu.models.is_empty()) {
                        (false, false) => {
                            let d = closest(
                                u.models.iter().copied(),
                                u.radius(),
                                tu.models.iter().copied(),
                                tu.radius(),
                            );
                            let range = u.weapon.as_ref().map_or(0.0, |w| w.range);
                            format!(
                                " At the start they are {} apart, {} its range of {}.",
                                inches(d),
                                if d <= range + 1e-9 { "within" } else { "beyond" },
                                inches(range)
                            )
                        }
                        _ => String::new(),
                    };
                    (tu.id.clone(), format!("; {save}.{distance}"))
                }
                Target::Nearest => (
                    "the nearest enemy unit it can shoot (closest models; ties: file order)".into(),
                    ".".into(),
                ),
                Target::Weakest => (
                    "the enemy unit it can shoot with the fewest models on the table (ties: the nearest)".into(),
                    ".".into(),
                ),
                Target::Strongest => (
                    "the enemy unit it can shoot with the most models on the table (ties: the nearest)".into(),
                    ".".into(),
                ),
            };
            format!("{} declares Shoot at {at}{doubled}: {volley}{after}", u.id)
        }
        Order::Run { toward } => {
            let m = u.move_distance.map_or(String::new(), inches);
            match toward {
                Heading::Point(p) => format!(
                    "{} declares Run{doubled}: up to {m} straight toward ({}, {}).",
                    u.id,
                    plain_number(p.x),
                    plain_number(p.y)
                ),
                Heading::AwayFromNearestEnemy => format!(
                    "{} declares Run{doubled}: up to {m} straight away from the nearest enemy model.",
                    u.id
                ),
            }
        }
    };
    let targeted = |e: usize| match *order {
        Order::Shoot {
            target: Target::Unit(t),
        } => t == e,
        Order::Shoot { .. } => true,
        _ => false,
    };
    let answers: Vec<String> = s
        .units
        .iter()
        .enumerate()
        .filter(|(_, e)| e.side != u.side)
        .filter_map(|(i, e)| {
            let how = match e.response {
                Response::Defend if targeted(i) => "with Defend",
                Response::CoveringFire => "with Covering Fire, if the acting unit is in its range",
                Response::Random if e.weapon.is_some() || targeted(i) => {
                    "at random, among the answers it may give"
                }
                _ => return None,
            };
            Some(format!("{} may answer {how}", unit_id(s, i)))
        })
        .collect();
    if !answers.is_empty() {
        let _ = write!(text, " In its response window {}.", answers.join("; "));
    }
    text
}

fn engagement(out: &mut String, s: &Scenario, e: &Engagement) {
    let first = match e.first {
        First::Side(i) => format!("side {} first in every round", e.sides[i]),
        First::Alternate => format!(
            "the first side alternating round by round ({} in round 1)",
            e.sides[0]
        ),
        First::Random => "a side drawn at random first in each round".to_string(),
    };
    let until = match e.until {
        Until::Destroyed => {
            "It ends as soon as at most one side has models on the table (checked before each \
             round and after every activation), or after the last round"
        }
        Until::Rounds => "It plays every round, whatever is left on the table",
    };
    let _ = writeln!(
        out,
        "\nOne trial plays an engagement of at most {}. Command tokens and restrictions clear \
         at the start of each round. Sides take turns activating one unit each, in the order \
         {}, with {first}; a side activates its units in file order, skipping units with no \
         model on the table, and each unit activates at most once a round. {until}.",
        plural(e.rounds.into(), "round"),
        e.sides.join(", ")
    );
    let _ = writeln!(
        out,
        "Orders: an activated unit takes the first of its orders whose condition holds and \
         whose command can be declared; with none, it does nothing."
    );
    for (u, orders) in e.orders.iter().enumerate() {
        orders_text(out, s, u, orders, "  ");
    }
}

fn orders_text(out: &mut String, s: &Scenario, u: usize, orders: &[GivenOrder], indent: &str) {
    let id = unit_id(s, u);
    if orders.is_empty() {
        let _ = writeln!(
            out,
            "{indent}{id}: no orders; it never acts, but it can be shot and answers in response windows."
        );
        return;
    }
    let _ = writeln!(out, "{indent}{id}:");
    for (i, o) in orders.iter().enumerate() {
        let when = match &o.when {
            Some(c) => format!("when `{}`", c.text()),
            None => "always".to_string(),
        };
        let _ = writeln!(
            out,
            "{indent}  order #{} ({}), {when}: {}",
            i + 1,
            o.order.name(),
            given_text(s, u, &o.order)
        );
    }
}

/// How the design arms after the first differ from it (the first is described above).
pub(super) fn designs(out: &mut String, arms: &[Scenario]) {
    let Some((first, rest)) = arms.split_first() else {
        return;
    };
    let ids: Vec<&str> = arms.iter().map(|a| a.choice_ids()[0]).collect();
    let _ = writeln!(
        out,
        "\nChoices (designs): {}. Each is this scenario with its own overrides; every trial \
         plays all of them on the same random numbers, so compare.csv pairs them trial by \
         trial. The description above is `{}`'s.",
        ids.join(", "),
        ids[0]
    );
    for arm in rest {
        let _ = writeln!(out, "  Choice `{}` differs:", arm.choice_ids()[0]);
        let plan = Plan::compile(arm);
        let mut any = false;
        if arm.options != first.options {
            any = true;
            super::options(out, arm, "    ");
        }
        for (i, u) in arm.units.iter().enumerate() {
            if first.units.get(i) != Some(u) {
                any = true;
                unit(out, arm, &plan, i, u, "    ");
            }
        }
        match (&arm.game, &first.game) {
            (Game::Engagement(e), Game::Engagement(f)) => {
                for (u, orders) in e.orders.iter().enumerate() {
                    if f.orders.get(u) != Some(orders) {
                        any = true;
                        orders_text(out, arm, u, orders, "    ");
                    }
                }
            }
            _ => {
                if first_steps(arm) != first_steps(first) {
                    any = true;
                    let _ = writeln!(out, "    its steps:");
                    steps(out, arm, first_steps(arm), "      ");
                }
            }
        }
        if !any {
            let _ = writeln!(out, "    in nothing: it plays exactly as `{}`.", ids[0]);
        }
    }
}

/// The steps a design arm plays: its one step list's, none in an engagement.
fn first_steps(arm: &Scenario) -> &[Step] {
    match &arm.game {
        Game::Steps(choices) => &choices[0].steps,
        Game::Engagement(_) | Game::Cards(_) => &[],
    }
}

/// How each command and rule the scenario uses works, once.
pub(super) fn commands(out: &mut String, arms: &[Scenario]) {
    let uses = |c: Command| {
        arms.iter().any(|s| match &s.game {
            Game::Steps(choices) => choices
                .iter()
                .flat_map(|ch| &ch.steps)
                .any(|st| st.order.command() == c),
            Game::Engagement(e) => e
                .orders
                .iter()
                .flatten()
                .any(|o| o.order.options().iter().any(|x| x.command() == c)),
            Game::Cards(_) => false,
        })
    };
    let masters = arms
        .iter()
        .any(|s| s.units.iter().any(|u| u.call_of_the_masters));
    let responds = |r: Response| {
        arms.iter().any(|s| {
            s.units
                .iter()
                .any(|u| u.response == r || u.response == Response::Random)
        })
    };
    let mut lines: Vec<&str> = Vec::new();
    if uses(Command::Rally) {
        lines.push(
            "Rally: one Resolve test per missing model; each success restores one model with \
             full HP, placed within 2\" of a model that was on the table when the Rally began \
             (options.rally.chain: or of one it restored), wholly on the table, off impassable \
             terrain, overlapping no base and not within 1\" of an enemy model; a model with no \
             such place is not restored, and a unit never exceeds its size. It cannot be \
             declared by a unit with a model within 1\" of an enemy, with no model on the \
             table, with a command token this round, or restricted from it (it is barred by, \
             and applies, the Shoot, Run and Defend restrictions).",
        );
    }
    if uses(Command::Shoot) {
        lines.push(
            "Shoot: needs a target with a model within range of a shooting model. Every model \
             on the table makes its attacks; each hit makes the target take its defense test, \
             and each failed test is an unsaved hit that deals the weapon's damage to the \
             target's damaged model if it has one, else to its model nearest the shooter. \
             Damage beyond a model's HP is lost unless options.spill. Barred by, and applies, \
             the Shoot restriction.",
        );
    }
    if uses(Command::Run) {
        lines.push(
            "Run: the whole unit moves as a block, stopping short where the move would leave \
             the table, enter impassable terrain or overlap another unit. Barred by, and \
             applies, the Run restriction.",
        );
    }
    if masters {
        lines.push(
            "Call of the Masters: the unit's command resolves twice as one command: use 2 \
             starts once use 1 has fully resolved and sees what it did; eligibility is checked \
             once, at declaration, and the token and restrictions apply once, after use 2. A \
             doubled Shoot keeps use 1's target, and use 2 fizzles if that target is gone or \
             out of range (options.masters.retarget: it picks the nearest enemy it can shoot \
             instead). Only use 1 opens a response window; a response lasts through both uses.",
        );
    }
    if responds(Response::Defend) {
        lines.push(
            "Defend (a response): the target of an enemy command adds options.defend.bonus to \
             its defense tests until that command has fully resolved. It takes no token and \
             applies the Defend restriction; a unit restricted from Defend cannot give it.",
        );
    }
    if responds(Response::CoveringFire) {
        lines.push(
            "Covering Fire (a response): the unit shoots the acting unit at once, before the \
             command resolves, with options.covering_fire.hit_modifier to hit. It takes no \
             token and applies the Shoot restriction; if it wipes out the acting unit, the \
             command does nothing (its uses count as fizzled).",
        );
    }
    if lines.is_empty() {
        return;
    }
    let _ = writeln!(out, "\nHow the commands used here work:");
    for l in lines {
        let _ = writeln!(out, "  {l}");
    }
}
