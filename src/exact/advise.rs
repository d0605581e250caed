//! Best orders by backward induction (expectimax) over the engagement's exact state space.
//!
//! The same schedule as `engagement`, over the same [`State`]s and the same `Ctx` (so the same
//! binomial pmfs and eligibility), but at a `best` order every declarable option is followed,
//! and the graph of [`Node`]s is kept. Nodes are reached in increasing order (every move leads
//! to a later node, see [`Node`]), and each is expanded once ([`explore`]); then, taken in the
//! reverse order, every node's value is known from its successors' ([`induce`]): per side, the
//! expectation of that side's objective under optimal play. At a decision the unit's side
//! takes the option of highest value for its own objective, ties (within a relative 1e-12, so
//! that rounding cannot break a true tie) to the first option in `among`.
//!
//! A node keeps what the future depends on and nothing more, so paths meet as often as they
//! can: the round, the round's turns settled ([`Schedule::settle`]: each side's next unit
//! skipping units with no model on the table, as [`crate::rules::engagement::policy`] keys
//! moments), the units' states, and only those declaration counts an objective names
//! (`<unit>.declared.<command>`).

use super::commands::{Ctx, Followed};
use super::engagement::{alive_in, applicable, end_values, moment, start_round, Why};
use super::state::{add, Dist, State, UnitState};
use super::limit;
use crate::metrics::{EngagementMetrics, SideMetrics, UnitMetrics};
use crate::rules::engagement::schedule::{Next, Stage, Turns};
use crate::rules::engagement::{Moment, Policy, Schedule};
use crate::scenario::{Command, Engagement, Given};
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

/// Where an engagement stands at a move, canonically. Field order is the expansion order.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Node {
    round: u32,
    /// Units activated or passed over so far this round (0 before it): every move within a
    /// round raises it.
    considered: usize,
    /// Before the round, or in it with its turns settled.
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

/// A `best` order deciding: the unit, the index of its order, and the moment as the advice
/// keys it.
struct DecisionAt {
    unit: usize,
    order: usize,
    moment: Moment,
}

/// A node's ways on, and the decision taken there, at a `best` order.
struct Expanded {
    decision: Option<DecisionAt>,
    branches: Vec<Branch>,
}

impl Expanded {
    /// The one way on, no decision taken.
    fn one_way(edges: Vec<(To, f64)>) -> Expanded {
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

/// The nodes still to expand (each with its id), and the ends, as they are reached.
#[derive(Default)]
struct Graph {
    work: BTreeMap<Node, usize>,
    /// Ids handed out so far.
    nodes: usize,
    ends: BTreeMap<End, usize>,
}

impl Graph {
    /// Nothing expanded yet: only `start`, numbered 0, to expand.
    fn from_start(start: Node) -> Graph {
        Graph {
            work: BTreeMap::from([(start, 0)]),
            nodes: 1,
            ends: BTreeMap::new(),
        }
    }

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
    let schedule = Schedule::new(e);
    let objectives = objectives(ctx, e);
    let mut explored = explore(ctx, e, &schedule, &objectives)?;
    let states = explored.graph.states();
    let at_ends = values_at_ends(&schedule, &explored.graph.ends, &objectives);
    let induced = induce(e, &mut explored, &at_ends).map_err(|why| Failed { why, states })?;
    let Induction {
        value,
        policy,
        mut options,
        ..
    } = induced;
    let decisions = explored
        .shown
        .into_iter()
        .map(|shown| Decision {
            round: shown.round,
            unit: shown.unit,
            state: state_text(ctx, &shown.state),
            options: options.remove(&shown.id).unwrap_or_default(),
        })
        .collect();
    Ok(Advice {
        policy,
        decisions,
        values: value[..schedule.sides()].to_vec(),
        states,
    })
}

/// A node at a `best` order, to show in advice.csv: its id, round, unit and state.
struct Shown {
    id: usize,
    round: u32,
    unit: usize,
    state: State,
}

/// What the forward pass found: the graph, per node id its ways on, the ids in the order they
/// were expanded, and the decisions to show in the order play reaches them.
struct Explored {
    graph: Graph,
    expanded: Vec<Option<Expanded>>,
    order: Vec<usize>,
    shown: Vec<Shown>,
}

/// An activation about to be played: the round, the round's turns already past it, and the
/// activated unit.
struct Activation {
    round: u32,
    turns: Turns,
    unit: usize,
}

/// The forward pass: every node reachable from the start, each expanded once, in order.
fn explore(
    ctx: &mut Ctx<'_>,
    e: &Engagement,
    schedule: &Schedule,
    objectives: &[Objective],
) -> Result<Explored, Failed> {
    let mut explorer = Explorer {
        ctx,
        e,
        schedule,
        objectives,
        explored: Explored {
            graph: Graph::default(),
            expanded: Vec::new(),
            order: Vec::new(),
            shown: Vec::new(),
        },
    };
    explorer.explored.graph = Graph::from_start(explorer.start());
    while let Some((node, id)) = explorer.explored.graph.work.pop_first() {
        let expanded = match explorer.expand(node, id) {
            Ok(expanded) => expanded,
            Err(why) => {
                let states = explorer.explored.graph.states();
                return Err(Failed { why, states });
            }
        };
        explorer.record(id, expanded);
        let states = explorer.explored.graph.states();
        if states > limit::max_states() {
            let why = Why::from(limit::over("the backward induction", states));
            return Err(Failed { why, states });
        }
    }
    Ok(explorer.explored)
}

/// The forward pass under way.
struct Explorer<'c, 'a, 'e> {
    ctx: &'c mut Ctx<'a>,
    e: &'e Engagement,
    schedule: &'e Schedule,
    objectives: &'e [Objective],
    explored: Explored,
}

impl Explorer<'_, '_, '_> {
    /// Before the first round, every unit as the scenario sets it up.
    fn start(&self) -> Node {
        Node {
            round: 1,
            considered: 0,
            stage: Stage::Before,
            state: self
                .ctx
                .plan
                .scenario()
                .units
                .iter()
                .map(|u| UnitState::starting(u.alive()))
                .collect(),
            counts: vec![0; self.schedule.sides()],
        }
    }

    /// Keeps node `id`'s ways on, in expansion order.
    fn record(&mut self, id: usize, expanded: Expanded) {
        let x = &mut self.explored;
        if x.expanded.len() <= id {
            x.expanded.resize_with(id + 1, || None);
        }
        x.expanded[id] = Some(expanded);
        x.order.push(id);
    }

    /// Node `id`'s ways on, linking the nodes and ends they lead to.
    fn expand(&mut self, node: Node, id: usize) -> Result<Expanded, Why> {
        let Node {
            round,
            stage,
            state,
            counts,
            ..
        } = node;
        let mut turns = match stage {
            Stage::Before => return Ok(self.open_round(round, state, counts)),
            Stage::In(turns) => turns,
        };
        match self.schedule.next(&mut turns, alive_in(&state)) {
            Next::Activate { unit, .. } => {
                let at = Activation { round, turns, unit };
                self.activate(id, at, state, counts)
            }
            // Settled turns have the side to move activate at once; were it to pass, the pass
            // leads where play goes on.
            Next::Pass | Next::RoundOver => {
                let to = self.link_next(round, turns, state, counts);
                Ok(Expanded::one_way(vec![(to, 1.0)]))
            }
        }
    }

    /// Round `round` from `state`: over before it starts, or opened by each side that may
    /// open it.
    fn open_round(&mut self, round: u32, mut state: State, counts: Vec<u32>) -> Expanded {
        if self.schedule.over_before(round, alive_in(&state)) {
            let end = End {
                state,
                rounds: round - 1,
                counts,
            };
            return Expanded::one_way(vec![(self.explored.graph.link(Err(end)), 1.0)]);
        }
        start_round(&mut state);
        let mut edges = Vec::new();
        for (side, q) in self.schedule.first_side(round).chances() {
            let turns = self.schedule.open(side);
            edges.push((
                self.link_next(round, turns, state.clone(), counts.clone()),
                q,
            ));
        }
        Expanded::one_way(edges)
    }

    /// Where play goes on at `turns` in round `round`: the node of the round's next move, its
    /// turns settled, or the next round's.
    fn link_next(&mut self, round: u32, turns: Turns, state: State, counts: Vec<u32>) -> To {
        let node = match self.schedule.settle(turns, alive_in(&state)) {
            Some(turns) => Node {
                round,
                considered: turns.considered(),
                stage: Stage::In(turns),
                state,
                counts,
            },
            None => Node {
                round: round + 1,
                considered: 0,
                stage: Stage::Before,
                state,
                counts,
            },
        };
        self.explored.graph.link(Ok(node))
    }

    /// `at`'s activation from `state`, at node `id`: the order it takes, with a branch per
    /// option it can declare (a decision at a `best` order), or the one way on without one.
    fn activate(
        &mut self,
        id: usize,
        at: Activation,
        state: State,
        counts: Vec<u32>,
    ) -> Result<Expanded, Why> {
        let Activation { round, unit, .. } = at;
        let Some((order, declarable)) = applicable(self.ctx, self.e, &state, unit, round)? else {
            let to = self.link_next(round, at.turns, state, counts);
            return Ok(Expanded::one_way(vec![(to, 1.0)]));
        };
        let mut decision = None;
        if let Given::Best(_) = self.e.orders[unit][order].order {
            let moment = moment(self.schedule, at.turns.cursors(), &state, unit, round);
            decision = Some(DecisionAt {
                unit,
                order,
                moment,
            });
            let shown = Shown {
                id,
                round,
                unit,
                state: state.clone(),
            };
            self.explored.shown.push(shown);
        }
        let mut branches = Vec::with_capacity(declarable.len());
        for option in declarable {
            branches.push(self.follow(&at, &state, &counts, order, option)?);
        }
        Ok(Expanded { decision, branches })
    }

    /// The branch of `option` (its index in the order's options, and what it aims at) of order
    /// `order` at `at`'s activation: an edge per outcome, to an end or to where play goes on.
    fn follow(
        &mut self,
        at: &Activation,
        state: &State,
        counts: &[u32],
        order: usize,
        (option, followed): (usize, Followed),
    ) -> Result<Branch, Why> {
        let command = followed.command();
        let counts = self.counted(counts, at.unit, command);
        let mut outcomes: Dist<State> = Dist::new();
        self.ctx
            .declare(state, at.unit, followed, &mut |q, s, _| {
                add(&mut outcomes, s, q)
            })
            .map_err(|reason| Why {
                order: Some((at.unit, order)),
                reason,
            })?;
        let mut edges = Vec::with_capacity(outcomes.len());
        for (s, q) in outcomes {
            let to = if self.schedule.decided(alive_in(&s)) {
                let end = End {
                    state: s,
                    rounds: at.round,
                    counts: counts.clone(),
                };
                self.explored.graph.link(Err(end))
            } else {
                self.link_next(at.round, at.turns.clone(), s, counts.clone())
            };
            edges.push((to, q));
        }
        Ok(Branch {
            option,
            command: Some(command),
            edges,
        })
    }

    /// `counts` after `unit` declares `command`: raised for each side whose objective counts
    /// that.
    fn counted(&self, counts: &[u32], unit: usize, command: Command) -> Vec<u32> {
        let mut counts = counts.to_vec();
        for (c, o) in counts.iter_mut().zip(self.objectives) {
            if let Objective::Declared(v, d) = *o {
                *c += u32::from(v == unit && d == command);
            }
        }
        counts
    }
}

/// Per end (by id) and side, the side's objective's value there.
fn values_at_ends(
    schedule: &Schedule,
    ends: &BTreeMap<End, usize>,
    objectives: &[Objective],
) -> Vec<f64> {
    let sides = schedule.sides();
    let mut at_ends = vec![0.0; ends.len() * sides];
    let mut metrics = Vec::new();
    for (end, &i) in ends {
        end_values(schedule, &end.state, end.rounds, &mut metrics);
        for (side, o) in objectives.iter().enumerate() {
            at_ends[i * sides + side] = match *o {
                Objective::Ended(k) => metrics[k] as f64,
                Objective::Declared(..) => f64::from(end.counts[side]),
            };
        }
    }
    at_ends
}

/// What each moment was advised (order, option) and whether at a decision with several
/// options, to catch moments whose states differ only in layouts and are decided apart.
type Advised = ((usize, usize), bool);

/// The backward pass's results.
struct Induction {
    sides: usize,
    /// Per node (by id) and side, its value.
    value: Vec<f64>,
    policy: Policy,
    advised: HashMap<Moment, Advised>,
    /// Per node shown (by id), its options' values for the deciding side.
    options: BTreeMap<usize, Vec<OptionValue>>,
}

/// The backward pass: every node's value from its successors', in the reverse of the order
/// the nodes were expanded, each decision taking its best option.
fn induce(e: &Engagement, explored: &mut Explored, at_ends: &[f64]) -> Result<Induction, Why> {
    let sides = e.sides.len();
    let mut induction = Induction {
        sides,
        value: vec![0.0; explored.graph.nodes * sides],
        policy: Policy::default(),
        advised: HashMap::new(),
        options: BTreeMap::new(),
    };
    for &id in explored.order.iter().rev() {
        let node = explored.expanded[id]
            .take()
            .expect("every node reached is expanded");
        let values = induction.branch_values(&node.branches, at_ends);
        let pick = match &node.decision {
            None => 0,
            Some(decision) => induction.decide(e, id, decision, &node.branches, &values)?,
        };
        induction.value[id * sides..(id + 1) * sides].copy_from_slice(&values[pick]);
    }
    Ok(induction)
}

impl Induction {
    /// Per branch and side, the branch's expected value.
    fn branch_values(&self, branches: &[Branch], at_ends: &[f64]) -> Vec<Vec<f64>> {
        let sides = self.sides;
        let mut values = Vec::with_capacity(branches.len());
        for b in branches {
            let mut sum = vec![0.0; sides];
            for &(to, q) in &b.edges {
                let v = match to {
                    To::Node(n) => &self.value[n * sides..(n + 1) * sides],
                    To::End(n) => &at_ends[n * sides..(n + 1) * sides],
                };
                for (t, x) in sum.iter_mut().zip(v) {
                    *t += q * x;
                }
            }
            values.push(sum);
        }
        values
    }

    /// The branch `decision` at node `id` takes: the best for the deciding side. Records it
    /// in the policy and the node's options' values.
    fn decide(
        &mut self,
        e: &Engagement,
        id: usize,
        decision: &DecisionAt,
        branches: &[Branch],
        values: &[Vec<f64>],
    ) -> Result<usize, Why> {
        let side = e.side_of[decision.unit];
        let pick = best(values, side);
        self.advise(decision, branches[pick].option, branches.len() > 1)?;
        let listed = branches
            .iter()
            .zip(values)
            .enumerate()
            .map(|(j, (b, v))| OptionValue {
                command: b.command.unwrap_or(Command::Rally),
                value: v[side],
                best: j == pick,
            })
            .collect();
        self.options.insert(id, listed);
        Ok(pick)
    }

    /// Advises `option` at `decision`'s moment (`several`: among several options), refusing a
    /// moment decided two ways.
    fn advise(&mut self, decision: &DecisionAt, option: usize, several: bool) -> Result<(), Why> {
        // Play declares the advised option when it can, else the first it can: a decision with
        // one option needs no advice, and any advice serves it.
        let choice = (decision.order, option);
        match self.advised.get(&decision.moment) {
            Some(&(before, true)) if several && before != choice => Err(Why {
                order: Some((decision.unit, decision.order)),
                reason: "the best option depends on where models stand, which the advice's \
                         moments (counts, restrictions, tokens) do not record"
                    .into(),
            }),
            Some(&(_, true)) => Ok(()),
            Some(_) if !several => Ok(()),
            _ => {
                let moment = decision.moment.clone();
                self.advised.insert(moment.clone(), (choice, several));
                self.policy.insert(moment, decision.order, option);
                Ok(())
            }
        }
    }
}

/// The branch of highest value for `side`, ties to the first.
fn best(values: &[Vec<f64>], side: usize) -> usize {
    let top = values
        .iter()
        .map(|v| v[side])
        .fold(f64::NEG_INFINITY, f64::max);
    let tie = TIE * top.abs().max(1.0);
    values
        .iter()
        .position(|v| v[side] >= top - tie)
        .unwrap_or(0)
}

/// A state as text: per unit `<id> <alive>/<size>`, then what is not at its start (`lost`,
/// `restored`, `damage`, the `wound` on its damaged model, `restricted` commands, `token`),
/// units joined by `; `.
pub(super) fn state_text(ctx: &Ctx<'_>, s: &State) -> String {
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
