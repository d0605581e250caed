//! Best orders by backward induction (expectimax) over the engagement's exact state space.
//!
//! The same driver as `engagement`, over the same [`State`]s and the same `Ctx` (so the same
//! binomial pmfs and eligibility), but at a `best` order every declarable option is followed,
//! and the graph of [`Node`]s is kept. Nodes are reached in increasing order (every move of the
//! driver leads to a later node, see `engagement`), and each is expanded once; then, taken in
//! the reverse order, every node's value is known from its successors': per side, the
//! expectation of that side's objective under optimal play. At a decision the unit's side
//! takes the option of highest value for its own objective, ties (within a relative 1e-12,
//! so that rounding cannot break a true tie) to the first option in `among`.
//!
//! A node keeps what the future depends on and nothing more, so paths meet as often as they
//! can: the round, the side to move and each side's next unit (skipping units with no model
//! on the table, as [`crate::rules::engagement::policy`] keys moments), the units' states, and
//! only those declaration counts an objective names (`<unit>.declared.<command>`).

use super::commands::Ctx;
use super::engagement::{applicable, moment, on_table, Why};
use super::state::{add, Dist, State, UnitState};
use super::MAX_STATES;
use crate::metrics::{EngagementMetrics, SideMetrics, UnitMetrics};
use crate::rules::engagement::policy::still_to_activate;
use crate::rules::engagement::Policy;
use crate::scenario::{Command, Engagement, First, Until};
use std::collections::{BTreeMap, HashMap};

/// Options of equal value up to this relative difference are tied.
const TIE: f64 = 1e-12;

/// One option at one decision: its value for the deciding side's objective.
#[derive(Debug, Clone, PartialEq)]
pub struct OptionValue {
    pub command: Command,
    pub value: f64,
    pub best: bool,
}

/// One reachable moment at which a `best` order decides.
#[derive(Debug, Clone, PartialEq)]
pub struct Decision {
    pub round: u32,
    pub unit: usize,
    /// Every unit's models, HP, restrictions and token, as text: per unit `<id> <alive>/<size>`
    /// and what differs from its start.
    pub state: String,
    /// The declarable options, in `among` order.
    pub options: Vec<OptionValue>,
}

/// What backward induction finds.
#[derive(Debug, Clone)]
pub struct Advice {
    /// What each `best` order takes, by moment.
    pub policy: Policy,
    /// Every reachable decision, in the order play reaches them (round first).
    pub decisions: Vec<Decision>,
    /// Per side, its objective's expected value under optimal play.
    pub values: Vec<f64>,
    /// Distinct nodes the induction visited (ends included).
    pub states: usize,
}

/// Why advice cannot be worked out, with the nodes visited so far.
pub struct Failed {
    pub why: Why,
    pub states: usize,
}

/// Where the engagement stands, canonically: before round `round`, or in it with `turn` the
/// side about to activate its unit at `cursors[turn]`.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
enum Stage {
    Before,
    In {
        /// Units activated or skipped so far this round: every move increases it.
        done: usize,
        turn: usize,
        cursors: Vec<usize>,
    },
}

#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Node {
    round: u32,
    stage: Stage,
    state: State,
    /// Per side whose objective is a declaration count: that count so far (else 0).
    counts: Vec<u32>,
}

/// An engagement over, as its objectives read it.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct End {
    state: State,
    rounds: u32,
    counts: Vec<u32>,
}

#[derive(Clone, Copy)]
enum To {
    Node(usize),
    End(usize),
}

/// One way on from a node: an option (its index in the order's options), or the one way.
struct Branch {
    option: usize,
    command: Option<Command>,
    edges: Vec<(To, f64)>,
}

struct Expanded {
    /// The deciding unit, the order and the moment, at a `best` order.
    decision: Option<(usize, usize, crate::rules::engagement::Moment)>,
    branches: Vec<Branch>,
}

/// The nodes still to expand (each with its id), and the ends, as they are reached.
#[derive(Default)]
struct Graph {
    work: BTreeMap<Node, usize>,
    /// Ids handed out so far.
    nodes: usize,
    ends: BTreeMap<End, usize>,
}

impl Graph {
    /// Where an edge leads, numbering a node or end on first sight.
    fn link(&mut self, target: Result<Node, End>) -> To {
        match target {
            Ok(n) => {
                let next = self.nodes;
                let id = *self.work.entry(n).or_insert(next);
                if id == next {
                    self.nodes += 1;
                }
                To::Node(id)
            }
            Err(end) => {
                let next = self.ends.len();
                To::End(*self.ends.entry(end).or_insert(next))
            }
        }
    }

    fn states(&self) -> usize {
        self.nodes + self.ends.len()
    }
}

/// What a side's objective reads at the end.
#[derive(Clone, Copy)]
enum Objective {
    /// A value of [`end_values`], by index.
    Ended(usize),
    /// Declarations of a command by a unit, counted along the way.
    Declared(usize, Command),
}

/// The metrics an end determines, in [`crate::scenario::Engagement::metric_names`] order up to
/// the declaration counts: each unit's row, each side's, then the engagement's.
pub(super) fn end_values(e: &Engagement, s: &State, rounds: u32, out: &mut Vec<i64>) {
    out.clear();
    for x in s {
        out.extend(super::unit_metrics(x).values());
    }
    let standing = on_table(e, s);
    let count = standing.iter().filter(|&&t| t).count();
    for &t in &standing {
        out.extend(
            SideMetrics {
                won: i64::from(count == 1 && t),
            }
            .values(),
        );
    }
    out.extend(
        EngagementMetrics {
            rounds: i64::from(rounds),
        }
        .values(),
    );
}

fn objectives(ctx: &Ctx<'_>, e: &Engagement) -> Vec<Objective> {
    let units = &ctx.plan.scenario().units;
    let names = e.metric_names(units);
    let ended =
        units.len() * UnitMetrics::LEN + e.sides.len() * SideMetrics::LEN + EngagementMetrics::LEN;
    let declared: Vec<(usize, Command)> = e
        .declared_commands()
        .into_iter()
        .enumerate()
        .flat_map(|(u, cs)| cs.into_iter().map(move |c| (u, c)))
        .collect();
    e.objective
        .iter()
        .map(|o| {
            // Validation checked that every objective is one of these names.
            let i = names.iter().position(|n| n == o).unwrap_or(0);
            if i < ended {
                Objective::Ended(i)
            } else {
                let (u, c) = declared[i - ended];
                Objective::Declared(u, c)
            }
        })
        .collect()
}

/// The advice for an engagement's `best` orders, found by backward induction from the
/// start.
pub fn advise(ctx: &mut Ctx<'_>, e: &Engagement) -> Result<Advice, Failed> {
    let scenario = ctx.plan.scenario();
    let sides = e.sides.len();
    let mut side_units = vec![Vec::new(); sides];
    for (u, &side) in e.side_of.iter().enumerate() {
        side_units[side].push(u);
    }
    let objectives = objectives(ctx, e);
    let ends_now = |s: &State| {
        e.until == Until::Destroyed && on_table(e, s).into_iter().filter(|&t| t).count() <= 1
    };
    // The node where `turn` (or the next side with a unit left) moves, or the next round's.
    let at = |round: u32, turn: usize, cursors: Vec<usize>, state: State, counts: Vec<u32>| {
        let cursors = still_to_activate(&side_units, &cursors, |u| state[u].alive > 0);
        let stage = (0..sides)
            .map(|k| (turn + k) % sides)
            .find(|&t| cursors[t] < side_units[t].len())
            .map(|turn| Stage::In {
                done: cursors.iter().sum(),
                turn,
                cursors,
            });
        match stage {
            Some(stage) => Node {
                round,
                stage,
                state,
                counts,
            },
            None => Node {
                round: round + 1,
                stage: Stage::Before,
                state,
                counts,
            },
        }
    };
    let start = Node {
        round: 1,
        stage: Stage::Before,
        state: scenario
            .units
            .iter()
            .map(|u| UnitState::starting(u.alive()))
            .collect(),
        counts: vec![0; sides],
    };
    let mut g = Graph::default();
    g.work.insert(start, 0);
    g.nodes = 1;
    let mut expanded: Vec<Option<Expanded>> = Vec::new();
    let mut order: Vec<usize> = Vec::new();
    // Nodes to show in advice.csv, by id: their round and state.
    let mut shown: Vec<(usize, u32, usize, State)> = Vec::new();
    let fail = |why: Why, states: usize| Failed { why, states };
    while let Some((node, id)) = g.work.pop_first() {
        let Node {
            round,
            stage,
            mut state,
            counts,
        } = node;
        let done = match stage {
            Stage::Before => {
                if round > e.rounds || ends_now(&state) {
                    let to = g.link(Err(End {
                        state,
                        rounds: round - 1,
                        counts,
                    }));
                    Expanded {
                        decision: None,
                        branches: vec![Branch {
                            option: 0,
                            command: None,
                            edges: vec![(to, 1.0)],
                        }],
                    }
                } else {
                    for u in &mut state {
                        u.restrictions = 0;
                        u.token = false;
                    }
                    let firsts: Vec<(usize, f64)> = match e.first {
                        First::Side(side) => vec![(side, 1.0)],
                        First::Alternate => vec![((round as usize - 1) % sides, 1.0)],
                        First::Random => {
                            (0..sides).map(|side| (side, 1.0 / sides as f64)).collect()
                        }
                    };
                    let mut edges = Vec::new();
                    for (turn, q) in firsts {
                        let n = at(round, turn, vec![0; sides], state.clone(), counts.clone());
                        edges.push((g.link(Ok(n)), q));
                    }
                    Expanded {
                        decision: None,
                        branches: vec![Branch {
                            option: 0,
                            command: None,
                            edges,
                        }],
                    }
                }
            }
            Stage::In {
                turn, mut cursors, ..
            } => {
                let unit = side_units[turn][cursors[turn]];
                cursors[turn] += 1;
                let later = (turn + 1) % sides;
                let chosen =
                    applicable(ctx, e, &state, unit, round).map_err(|why| fail(why, g.states()))?;
                let mut branches = Vec::new();
                let mut decision = None;
                match chosen {
                    None => {
                        let n = at(round, later, cursors.clone(), state.clone(), counts.clone());
                        branches.push(Branch {
                            option: 0,
                            command: None,
                            edges: vec![(g.link(Ok(n)), 1.0)],
                        });
                    }
                    Some((i, declarable)) => {
                        if let crate::scenario::Given::Best(_) = e.orders[unit][i].order {
                            let m = moment(&side_units, &cursors, &state, unit, round);
                            decision = Some((unit, i, m));
                            shown.push((id, round, unit, state.clone()));
                        }
                        for (k, followed) in declarable {
                            let command = followed.command();
                            let mut counts = counts.clone();
                            for (c, o) in counts.iter_mut().zip(&objectives) {
                                if let Objective::Declared(v, d) = *o {
                                    *c += u32::from(v == unit && d == command);
                                }
                            }
                            let mut outcomes: Dist<State> = Dist::new();
                            ctx.declare(&state, unit, followed, &mut |q, s, _| {
                                add(&mut outcomes, s, q)
                            })
                            .map_err(|reason| {
                                fail(
                                    Why {
                                        order: Some((unit, i)),
                                        reason,
                                    },
                                    g.states(),
                                )
                            })?;
                            let mut edges = Vec::with_capacity(outcomes.len());
                            for (s, q) in outcomes {
                                let target = if ends_now(&s) {
                                    Err(End {
                                        state: s,
                                        rounds: round,
                                        counts: counts.clone(),
                                    })
                                } else {
                                    Ok(at(round, later, cursors.clone(), s, counts.clone()))
                                };
                                edges.push((g.link(target), q));
                            }
                            branches.push(Branch {
                                option: k,
                                command: Some(command),
                                edges,
                            });
                        }
                    }
                }
                Expanded { decision, branches }
            }
        };
        if expanded.len() <= id {
            expanded.resize_with(id + 1, || None);
        }
        expanded[id] = Some(done);
        order.push(id);
        if g.states() > MAX_STATES {
            return Err(fail(
                Why::from(format!(
                    "the backward induction holds {} distinct states, over the limit of \
                     {MAX_STATES}",
                    g.states()
                )),
                g.states(),
            ));
        }
    }
    // Per end and side, the objective's value.
    let mut end_value = vec![0.0; g.ends.len() * sides];
    let mut buf = Vec::new();
    for (end, &i) in &g.ends {
        end_values(e, &end.state, end.rounds, &mut buf);
        for (side, o) in objectives.iter().enumerate() {
            end_value[i * sides + side] = match *o {
                Objective::Ended(k) => buf[k] as f64,
                Objective::Declared(..) => f64::from(end.counts[side]),
            };
        }
    }
    let mut value = vec![0.0; g.nodes * sides];
    let mut policy = Policy::default();
    // What each moment was advised (order, option) and whether at a decision with several
    // options, to catch moments whose states differ only in layouts and are decided apart.
    type Advised = ((usize, usize), bool);
    let mut advised: HashMap<crate::rules::engagement::Moment, Advised> = HashMap::new();
    // Per node shown, its options' values for the deciding side.
    let mut options: BTreeMap<usize, Vec<OptionValue>> = BTreeMap::new();
    let mut sum = vec![0.0; sides];
    for &id in order.iter().rev() {
        let node = expanded[id].take().expect("every node reached is expanded");
        let mut values: Vec<Vec<f64>> = Vec::with_capacity(node.branches.len());
        for b in &node.branches {
            sum.fill(0.0);
            for &(to, q) in &b.edges {
                let v = match to {
                    To::Node(n) => &value[n * sides..(n + 1) * sides],
                    To::End(n) => &end_value[n * sides..(n + 1) * sides],
                };
                for (t, x) in sum.iter_mut().zip(v) {
                    *t += q * x;
                }
            }
            values.push(sum.clone());
        }
        let pick = match &node.decision {
            None => 0,
            Some((unit, i, m)) => {
                let side = e.side_of[*unit];
                let top = values
                    .iter()
                    .map(|v| v[side])
                    .fold(f64::NEG_INFINITY, f64::max);
                let tie = TIE * top.abs().max(1.0);
                let pick = values
                    .iter()
                    .position(|v| v[side] >= top - tie)
                    .unwrap_or(0);
                let option = node.branches[pick].option;
                // Play declares the advised option when it can, else the first it can: a
                // decision with one option needs no advice, and any advice serves it.
                let choice = (*i, option);
                let several = node.branches.len() > 1;
                match advised.get(m) {
                    Some(&(before, true)) if several && before != choice => {
                        return Err(fail(
                            Why {
                                order: Some((*unit, *i)),
                                reason: "the best option depends on where models stand, which \
                                         the advice's moments (counts, restrictions, tokens) \
                                         do not record"
                                    .into(),
                            },
                            g.states(),
                        ));
                    }
                    Some(&(_, true)) => {}
                    Some(_) if !several => {}
                    _ => {
                        advised.insert(m.clone(), (choice, several));
                        policy.insert(m.clone(), *i, option);
                    }
                }
                let listed = node
                    .branches
                    .iter()
                    .zip(&values)
                    .enumerate()
                    .map(|(j, (b, v))| OptionValue {
                        command: b.command.unwrap_or(Command::Rally),
                        value: v[side],
                        best: j == pick,
                    })
                    .collect();
                options.insert(id, listed);
                pick
            }
        };
        value[id * sides..(id + 1) * sides].copy_from_slice(&values[pick]);
    }
    let decisions = shown
        .into_iter()
        .map(|(id, round, unit, state)| Decision {
            round,
            unit,
            state: state_text(ctx, &state),
            options: options.remove(&id).unwrap_or_default(),
        })
        .collect();
    Ok(Advice {
        policy,
        decisions,
        values: value[..sides].to_vec(),
        states: g.states(),
    })
}

/// A state as text: per unit `<id> <alive>/<size>`, then what is not at its start (`lost`,
/// `restored`, `damage`, the `wound` on its damaged model, `restricted` commands, `token`),
/// units joined by `; `.
fn state_text(ctx: &Ctx<'_>, s: &State) -> String {
    let units = &ctx.plan.scenario().units;
    s.iter()
        .zip(units)
        .map(|(x, u)| {
            let mut t = format!("{} {}/{}", u.id, x.alive, u.size);
            for (name, n) in [
                ("lost", x.lost),
                ("restored", x.restored),
                ("damage", x.damage_taken),
                ("wound", x.wound),
            ] {
                if n > 0 && !(name == "damage" && x.damage_taken == x.lost * u.hp) {
                    t.push_str(&format!(" {name} {n}"));
                }
            }
            let restricted: Vec<&str> = [
                (super::state::SHOOT, "shoot"),
                (super::state::RUN, "run"),
                (super::state::DEFEND, "defend"),
            ]
            .iter()
            .filter(|(bit, _)| x.restrictions & bit != 0)
            .map(|&(_, n)| n)
            .collect();
            if !restricted.is_empty() {
                t.push_str(&format!(" restricted {}", restricted.join("+")));
            }
            if x.token {
                t.push_str(" token");
            }
            t
        })
        .collect::<Vec<_>>()
        .join("; ")
}
