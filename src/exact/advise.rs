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
use super::interner::Interner;
use super::limit;
use super::state::{add, pack, unpack, Dist, State, UnitState, UNIT_WORDS};
use crate::condition::derived::Derived;
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

/// An edge's target with this bit set is an end, else a node.
const END: u32 = 1 << 31;

/// A node expanded: its id, where its branches end in [`Flat::branches`], and its decision's
/// index in [`Flat::decisions`] (`NONE`: none taken there).
struct NodeRec {
    id: u32,
    branches_end: u32,
    decision: u32,
}

const NONE: u32 = u32::MAX;

/// One way on from a node: where its edges end in [`Flat::targets`], and the option (its
/// index in the order's options, and its command) or the one way (no command).
struct BranchRec {
    edges_end: u32,
    option: u32,
    command: Option<Command>,
}

/// A `best` order deciding: the round, the unit, the index of its order. Its state and the
/// round's cursors are in [`Flat::decision_words`].
struct DecisionRec {
    round: u32,
    unit: u32,
    order: u32,
}

/// The graph the backward pass reads, flat: per node expanded (in expansion order) its
/// branches, per branch its edges, no allocation of its own for any of them.
#[derive(Default)]
struct Flat {
    nodes: Vec<NodeRec>,
    branches: Vec<BranchRec>,
    targets: Vec<u32>,
    probs: Vec<f64>,
    decisions: Vec<DecisionRec>,
    /// Per decision, its state packed then the cursors of the round's turns.
    decision_words: Vec<u32>,
}

impl Flat {
    /// Node `p` (in expansion order)'s branches, as a range of [`Flat::branches`].
    fn branches_of(&self, p: usize) -> std::ops::Range<usize> {
        let start = p
            .checked_sub(1)
            .map_or(0, |q| self.nodes[q].branches_end as usize);
        start..self.nodes[p].branches_end as usize
    }

    /// Branch `b`'s edges, as a range of [`Flat::targets`].
    fn edges_of(&self, b: usize) -> std::ops::Range<usize> {
        let start = b
            .checked_sub(1)
            .map_or(0, |c| self.branches[c].edges_end as usize);
        start..self.branches[b].edges_end as usize
    }

    /// Closes the branch whose edges were pushed since the last.
    fn close_branch(&mut self, option: usize, command: Option<Command>) {
        self.branches.push(BranchRec {
            edges_end: self.targets.len() as u32,
            option: option as u32,
            command,
        });
    }

    fn edge(&mut self, to: u32, q: f64) {
        self.targets.push(to);
        self.probs.push(q);
    }
}

/// The nodes still to expand (each with its id), and the ends (packed: state, rounds,
/// counts), numbered as they are reached.
struct Graph {
    work: BTreeMap<Node, u32>,
    /// Ids handed out so far.
    nodes: usize,
    ends: Interner,
    /// Scratch for packing an end.
    key: Vec<u32>,
}

impl Graph {
    /// Nothing expanded yet: only `start`, numbered 0, to expand.
    fn from_start(start: Node, units: usize, sides: usize) -> Graph {
        Graph {
            work: BTreeMap::from([(start, 0)]),
            nodes: 1,
            ends: Interner::new(units * UNIT_WORDS + 1 + sides),
            key: Vec::new(),
        }
    }

    /// Where an edge to node `n` leads, numbering it on first sight.
    fn link(&mut self, n: Node) -> u32 {
        let next = self.nodes as u32;
        let id = *self.work.entry(n).or_insert(next);
        if id == next {
            self.nodes += 1;
        }
        id
    }

    /// Where an edge to the end (`state`, `rounds`, `counts`) leads, numbering it on first
    /// sight.
    fn link_end(&mut self, state: &State, rounds: u32, counts: &[u32]) -> u32 {
        self.key.clear();
        pack(state, &mut self.key);
        self.key.push(rounds);
        self.key.extend_from_slice(counts);
        END | self.ends.intern(&self.key).0
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
    /// A derived metric (`[metrics]`), by index in file order, computed from the values of
    /// [`end_values`] at the end: its joint law, never its inputs' means.
    Derived(usize),
}

fn objectives(ctx: &Ctx<'_>, e: &Engagement) -> Result<Vec<Objective>, Why> {
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
    let derived = ctx.plan.scenario().derived(0);
    e.objective
        .iter()
        .map(|o| {
            if let Some(d) = derived {
                if let Some(j) = d.metrics().position(|(n, _)| n == o) {
                    // The ends keep only the counts an objective names itself.
                    if d.builtin_inputs(j).iter().any(|&i| i >= ended) {
                        return Err(Why::from(format!(
                            "the objective `{o}` reads a `<unit>.declared.<command>` metric, \
                             which advice keeps only when the objective is that metric itself"
                        )));
                    }
                    return Ok(Objective::Derived(j));
                }
            }
            // Validation checked that every objective is one of these names.
            let i = names.iter().position(|n| n == o).unwrap_or(0);
            Ok(if i < ended {
                Objective::Ended(i)
            } else {
                let (u, c) = declared[i - ended];
                Objective::Declared(u, c)
            })
        })
        .collect()
}

/// The advice for an engagement's `best` orders, found by backward induction from the
/// start.
pub fn advise(ctx: &mut Ctx<'_>, e: &Engagement) -> Result<Advice, Failed> {
    let schedule = Schedule::new(e);
    let objectives = objectives(ctx, e).map_err(|why| Failed { why, states: 0 })?;
    let explored = explore(ctx, e, &schedule, &objectives)?;
    let states = explored.graph.states();
    let derived = ctx.plan.scenario().derived(0);
    let at_ends = values_at_ends(&schedule, &explored.graph.ends, &objectives, derived)
        .map_err(|why| Failed { why, states })?;
    let nodes = explored.graph.nodes;
    let flat = explored.flat;
    let induced =
        induce(e, &schedule, &flat, nodes, &at_ends).map_err(|why| Failed { why, states })?;
    let units = ctx.plan.scenario().units.len();
    let stride = units * UNIT_WORDS + schedule.sides();
    let decisions = flat
        .decisions
        .iter()
        .zip(induced.options)
        .enumerate()
        .map(|(k, (d, options))| Decision {
            round: d.round,
            unit: d.unit as usize,
            state: state_text(
                ctx,
                &unpack(&flat.decision_words[k * stride..][..units * UNIT_WORDS]),
            ),
            options,
        })
        .collect();
    Ok(Advice {
        policy: induced.policy,
        decisions,
        values: induced.value[..schedule.sides()].to_vec(),
        states,
    })
}

/// What the forward pass found: the graph's numbering and ends, and the flat graph.
struct Explored {
    graph: Graph,
    flat: Flat,
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
    let units = &ctx.plan.scenario().units;
    let start = Node {
        round: 1,
        considered: 0,
        stage: Stage::Before,
        state: units
            .iter()
            .map(|u| UnitState::starting(u.alive()))
            .collect(),
        counts: vec![0; schedule.sides()],
    };
    let graph = Graph::from_start(start, units.len(), schedule.sides());
    let mut explorer = Explorer {
        ctx,
        e,
        schedule,
        objectives,
        explored: Explored {
            graph,
            flat: Flat::default(),
        },
    };
    let units = explorer.ctx.plan.scenario().units.len();
    let limit = explorer.ctx.max_states;
    let mut expanded = 0;
    while let Some((node, id)) = explorer.explored.graph.work.pop_first() {
        expanded += 1;
        if crate::engine::interrupted() || expanded > super::cost::MAX_EXPANSIONS {
            let why = Why::from(match crate::engine::interrupted() {
                true => "interrupted".to_string(),
                false => super::cost::expansions_reason(),
            });
            return Err(give_up(explorer.explored, why));
        }
        if let Err(why) = explorer.expand(node, id) {
            return Err(give_up(explorer.explored, why));
        }
        let states = explorer.explored.graph.states();
        if states > limit {
            let why = Why::from(limit::over("the backward induction", states, units));
            return Err(give_up(explorer.explored, why));
        }
    }
    Ok(explorer.explored)
}

/// The forward pass stopped for `why`: what it found is freed apart (`cost::discard`).
fn give_up(explored: Explored, why: Why) -> Failed {
    let states = explored.graph.states();
    super::cost::discard(explored);
    Failed { why, states }
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
    /// Node `id`'s ways on, linking the nodes and ends they lead to, kept in the flat graph.
    fn expand(&mut self, node: Node, id: u32) -> Result<(), Why> {
        let Node {
            round,
            stage,
            state,
            counts,
            ..
        } = node;
        let mut turns = match stage {
            Stage::Before => {
                self.open_round(round, state, counts);
                self.close_node(id, NONE);
                return Ok(());
            }
            Stage::In(turns) => turns,
        };
        let decision = match self.schedule.next(&mut turns, alive_in(&state)) {
            Next::Activate { unit, .. } => {
                let at = Activation { round, turns, unit };
                self.activate(at, state, counts)?
            }
            // Settled turns have the side to move activate at once; were it to pass, the pass
            // leads where play goes on.
            Next::Pass | Next::RoundOver => {
                let to = self.link_next(round, turns, state, counts);
                self.one_way(&[(to, 1.0)]);
                NONE
            }
        };
        self.close_node(id, decision);
        Ok(())
    }

    fn close_node(&mut self, id: u32, decision: u32) {
        let flat = &mut self.explored.flat;
        flat.nodes.push(NodeRec {
            id,
            branches_end: flat.branches.len() as u32,
            decision,
        });
    }

    /// One branch, no decision taken, along `edges`.
    fn one_way(&mut self, edges: &[(u32, f64)]) {
        let flat = &mut self.explored.flat;
        for &(to, q) in edges {
            flat.edge(to, q);
        }
        flat.close_branch(0, None);
    }

    /// Round `round` from `state`: over before it starts, or opened by each side that may
    /// open it.
    fn open_round(&mut self, round: u32, mut state: State, counts: Vec<u32>) {
        if self.schedule.over_before(round, alive_in(&state)) {
            let to = self.explored.graph.link_end(&state, round - 1, &counts);
            return self.one_way(&[(to, 1.0)]);
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
        self.one_way(&edges);
    }

    /// Where play goes on at `turns` in round `round`: the node of the round's next move, its
    /// turns settled, or the next round's.
    fn link_next(&mut self, round: u32, turns: Turns, state: State, counts: Vec<u32>) -> u32 {
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
        self.explored.graph.link(node)
    }

    /// `at`'s activation from `state`: the order it takes, with a branch per
    /// option it can declare (a decision at a `best` order, whose index it returns), or the
    /// one way on without one.
    fn activate(&mut self, at: Activation, state: State, counts: Vec<u32>) -> Result<u32, Why> {
        let Activation { round, unit, .. } = at;
        let Some((order, declarable)) = applicable(self.ctx, self.e, &state, unit, round)? else {
            let to = self.link_next(round, at.turns, state, counts);
            self.one_way(&[(to, 1.0)]);
            return Ok(NONE);
        };
        let mut decision = NONE;
        if let Given::Best(_) = self.e.orders[unit][order].order {
            let flat = &mut self.explored.flat;
            decision = flat.decisions.len() as u32;
            flat.decisions.push(DecisionRec {
                round,
                unit: unit as u32,
                order: order as u32,
            });
            pack(&state, &mut flat.decision_words);
            let cursors = at.turns.cursors().iter().map(|&c| c as u32);
            flat.decision_words.extend(cursors);
        }
        for option in declarable {
            self.follow(&at, &state, &counts, order, option)?;
        }
        Ok(decision)
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
    ) -> Result<(), Why> {
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
        for (s, q) in outcomes {
            let to = if self.schedule.decided(alive_in(&s)) {
                self.explored.graph.link_end(&s, at.round, &counts)
            } else {
                self.link_next(at.round, at.turns.clone(), s, counts.clone())
            };
            self.explored.flat.edge(to, q);
        }
        self.explored.flat.close_branch(option, Some(command));
        Ok(())
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
    ends: &Interner,
    objectives: &[Objective],
    derived: Option<&Derived>,
) -> Result<Vec<f64>, Why> {
    let sides = schedule.sides();
    let mut at_ends = vec![0.0; ends.len() * sides];
    let mut metrics = Vec::new();
    for i in 0..ends.len() {
        let key = ends.get(i as u32);
        let (packed, rest) = key.split_at(key.len() - 1 - sides);
        let (rounds, counts) = (rest[0], &rest[1..]);
        end_values(schedule, &unpack(packed), rounds, &mut metrics);
        if let Some(d) = derived {
            // Declaration counts are never read here (`objectives` refused those that do).
            metrics.resize(d.builtins() + d.metrics().count(), 0);
            d.evaluate(&mut metrics).map_err(|j| {
                let (name, text) = d.metrics().nth(j).map_or(("", ""), |(n, e)| (n, e.text()));
                Why::from(format!(
                    "the objective's derived metric `{name}` (`{text}`) leaves the range a \
                     derived metric may take on some outcome"
                ))
            })?;
        }
        for (side, o) in objectives.iter().enumerate() {
            at_ends[i * sides + side] = match *o {
                Objective::Ended(k) => metrics[k] as f64,
                Objective::Declared(..) => f64::from(counts[side]),
                Objective::Derived(j) => metrics[derived.map_or(0, Derived::builtins) + j] as f64,
            };
        }
    }
    Ok(at_ends)
}

/// What each moment was advised (order, option) and whether at a decision with several
/// options, to catch moments whose states differ only in layouts and are decided apart.
type Advised = ((usize, usize), bool);

/// The backward pass's results.
struct Induction {
    /// Per node (by id) and side, its value.
    value: Vec<f64>,
    policy: Policy,
    /// Per decision (in [`Flat::decisions`] order), its options' values for the deciding side.
    options: Vec<Vec<OptionValue>>,
}

/// The backward pass: every node's value from its successors', in the reverse of the order
/// the nodes were expanded, each decision taking its best option.
fn induce(
    e: &Engagement,
    schedule: &Schedule,
    flat: &Flat,
    nodes: usize,
    at_ends: &[f64],
) -> Result<Induction, Why> {
    let sides = e.sides.len();
    let mut value = vec![0.0; nodes * sides];
    let mut advised: HashMap<Moment, Advised> = HashMap::new();
    let mut options = vec![Vec::new(); flat.decisions.len()];
    let mut values = Vec::new();
    let units = e.orders.len();
    let stride = units * UNIT_WORDS + sides;
    for p in (0..flat.nodes.len()).rev() {
        let node = &flat.nodes[p];
        let branches = flat.branches_of(p);
        branch_values(flat, branches.clone(), &value, at_ends, sides, &mut values);
        let pick = match node.decision {
            NONE => 0,
            k => {
                let d = &flat.decisions[k as usize];
                let words = &flat.decision_words[k as usize * stride..][..stride];
                let (packed, cursors) = words.split_at(units * UNIT_WORDS);
                let cursors: Vec<usize> = cursors.iter().map(|&c| c as usize).collect();
                let (unit, order) = (d.unit as usize, d.order as usize);
                let at = DecisionAt {
                    unit,
                    order,
                    moment: moment(schedule, &cursors, &unpack(packed), unit, d.round),
                };
                let side = e.side_of[unit];
                let pick = best(&values, sides, side);
                let listed = &flat.branches[branches.clone()];
                advise_at(
                    &mut advised,
                    &at,
                    listed[pick].option as usize,
                    listed.len() > 1,
                )?;
                options[k as usize] = listed
                    .iter()
                    .enumerate()
                    .map(|(j, b)| OptionValue {
                        command: b.command.unwrap_or(Command::Rally),
                        value: values[j * sides + side],
                        best: j == pick,
                    })
                    .collect();
                pick
            }
        };
        let id = node.id as usize;
        value[id * sides..(id + 1) * sides].copy_from_slice(&values[pick * sides..][..sides]);
    }
    let mut policy = Policy::default();
    for (moment, ((order, option), _)) in advised {
        policy.insert(moment, order, option);
    }
    Ok(Induction {
        value,
        policy,
        options,
    })
}

/// A `best` order deciding: the unit, the index of its order, and the moment as the advice
/// keys it.
struct DecisionAt {
    unit: usize,
    order: usize,
    moment: Moment,
}

/// Per branch of `branches` and side, the branch's expected value, into `out` (branch-major).
fn branch_values(
    flat: &Flat,
    branches: std::ops::Range<usize>,
    value: &[f64],
    at_ends: &[f64],
    sides: usize,
    out: &mut Vec<f64>,
) {
    out.clear();
    for b in branches {
        let at = out.len();
        out.resize(at + sides, 0.0);
        for i in flat.edges_of(b) {
            let (to, q) = (flat.targets[i], flat.probs[i]);
            let v = if to & END != 0 {
                let n = (to & !END) as usize;
                &at_ends[n * sides..(n + 1) * sides]
            } else {
                let n = to as usize;
                &value[n * sides..(n + 1) * sides]
            };
            for (t, x) in out[at..].iter_mut().zip(v) {
                *t += q * x;
            }
        }
    }
}

/// Advises `option` at `decision`'s moment (`several`: among several options), refusing a
/// moment decided two ways.
fn advise_at(
    advised: &mut HashMap<Moment, Advised>,
    decision: &DecisionAt,
    option: usize,
    several: bool,
) -> Result<(), Why> {
    // Play declares the advised option when it can, else the first it can: a decision with
    // one option needs no advice, and any advice serves it.
    let choice = (decision.order, option);
    match advised.get(&decision.moment) {
        Some(&(before, true)) if several && before != choice => Err(Why {
            order: Some((decision.unit, decision.order)),
            reason: "the best option depends on where models stand, which the advice's \
                     moments (counts, restrictions, tokens) do not record"
                .into(),
        }),
        Some(&(_, true)) => Ok(()),
        Some(_) if !several => Ok(()),
        _ => {
            advised.insert(decision.moment.clone(), (choice, several));
            Ok(())
        }
    }
}

/// The branch of highest value for `side` among `values` (branch-major, `sides` a branch),
/// ties to the first.
fn best(values: &[f64], sides: usize, side: usize) -> usize {
    let of = |j: usize| values[j * sides + side];
    let n = values.len() / sides;
    let top = (0..n).map(of).fold(f64::NEG_INFINITY, f64::max);
    let tie = TIE * top.abs().max(1.0);
    (0..n).position(|j| of(j) >= top - tie).unwrap_or(0)
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
