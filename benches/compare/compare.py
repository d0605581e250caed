#!/usr/bin/env python3
"""Whole-program speed comparison: rollcall against numpy, a plain Python loop and icepool.

Run through run.sh, which sets up the Python environment and builds rollcall. Every round runs
every contender once, in the same order (interleaved, so machine load hits all of them
alike); the table shows medians over the rounds, speed relative to each group's baseline,
peak memory, and whether both sides computed the same thing.

Python contenders run in a fresh subprocess each (this file with --worker), so their peak
memory (resource.getrusage) is their own and no cache survives between rounds. Their time is
measured inside the subprocess around the computation only: interpreter start and imports are
not counted, which favours the Python side. rollcall's time is the whole process, measured
from outside (start, scenario parsing, placement precomputation, run, CSV writing).
"""

import argparse
import csv
import json
import math
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from fractions import Fraction

HERE = os.path.dirname(os.path.abspath(__file__))

# numpy works through the trials in chunks of this many, as a user would to bound memory.
NUMPY_CHUNK = 10_000_000
# Agreement: Monte Carlo means must be within this many standard errors.
Z_MAX = 5.0

# Open-field Rally (configs/rally.toml): 5 missing, Resolve 4+.
RALLY_MISSING, RALLY_TARGET = 5, 4
RALLY_MEAN = Fraction(RALLY_MISSING, 2)
# Rally doubled by Call of the Masters (configs/rally-masters.toml): 6 missing, Resolve 5+.
MASTERS_MISSING, MASTERS_TARGET = 6, 5
P_DOUBLED = 1 - Fraction(2, 3) ** 2  # 5/9: restored in use 1 or in use 2
MASTERS_MEAN = MASTERS_MISSING * P_DOUBLED
# The composite (configs/shoot-then-rally.toml): 5 hunters shoot twice (Call of the Masters),
# 1 attack each, hit 4+, against 8 of 10 wardens with defense 5+, so each attack removes a
# warden with p = 1/2 * 2/3 = 1/3; the wardens then Rally (Resolve 4+) for every missing
# model unless all 8 were removed. Placement never binds there, so restored ~ Binomial(2 + L,
# 1/2) with L = min(S, 8), S ~ Binomial(10, 1/3).
COMPOSITE_ATTACKS, COMPOSITE_ALIVE, COMPOSITE_SIZE = 10, 8, 10
P_REMOVE = Fraction(1, 3)
COMPOSITE_MEAN = sum(
    Fraction(math.comb(COMPOSITE_ATTACKS, s)) * P_REMOVE**s * (1 - P_REMOVE) ** (COMPOSITE_ATTACKS - s)
    * Fraction(COMPOSITE_SIZE - COMPOSITE_ALIVE + s, 2)
    for s in range(COMPOSITE_ALIVE)
)


# ------------------------------------------------------------------------------------------
# Workers: each runs in its own Python process and prints one JSON line.
# ------------------------------------------------------------------------------------------


def _usage():
    import resource

    ru = resource.getrusage(resource.RUSAGE_SELF)
    return ru.ru_maxrss  # KiB on Linux


def _combine(stats, n, mean, var):
    """Chan et al.: merge a chunk's (n, mean, population variance) into running stats."""
    n0, mean0, m2 = stats
    total = n0 + n
    delta = mean - mean0
    return (total, mean0 + delta * n / total, m2 + var * n + delta * delta * n0 * n / total)


def _numpy_chunks(n, seed, restored_of):
    """Plays n trials in chunks of NUMPY_CHUNK, as a user would to bound memory:
    restored_of(np, rng, k) gives one chunk's per-trial results."""
    import numpy as np

    rng = np.random.default_rng(seed)
    stats = (0, 0.0, 0.0)
    done = 0
    while done < n:
        k = min(NUMPY_CHUNK, n - done)
        restored = restored_of(np, rng, k)
        stats = _combine(stats, k, restored.mean(), restored.var())
        done += k
    return stats


def worker_numpy_rally(n, seed):
    def restored(np, rng, k):
        return (rng.integers(1, 7, (k, RALLY_MISSING)) >= RALLY_TARGET).sum(axis=1)

    return _numpy_chunks(n, seed, restored)


def worker_numpy_masters(n, seed):
    def restored(np, rng, k):
        columns = np.arange(MASTERS_MISSING)
        # Use 1: one die per missing model.
        first = (rng.integers(1, 7, (k, MASTERS_MISSING)) >= MASTERS_TARGET).sum(axis=1)
        # Use 2: roll again, counting only the dice of the models still missing.
        still_missing = columns < (MASTERS_MISSING - first)[:, None]
        second = rng.integers(1, 7, (k, MASTERS_MISSING)) >= MASTERS_TARGET
        return first + (second & still_missing).sum(axis=1)

    return _numpy_chunks(n, seed, restored)


def worker_numpy_composite(n, seed):
    def restored(np, rng, k):
        columns = np.arange(COMPOSITE_SIZE)
        # Both uses' attacks: a hit (4+) whose defense test (5+) fails removes a warden.
        hits = rng.integers(1, 7, (k, COMPOSITE_ATTACKS)) >= 4
        failed = rng.integers(1, 7, (k, COMPOSITE_ATTACKS)) < 5
        lost = np.minimum((hits & failed).sum(axis=1), COMPOSITE_ALIVE)
        # Rally: one Resolve test (4+) per missing model; none when the unit is gone.
        missing = COMPOSITE_SIZE - COMPOSITE_ALIVE + lost
        dice = rng.integers(1, 7, (k, COMPOSITE_SIZE)) >= 4
        out = (dice & (columns < missing[:, None])).sum(axis=1)
        out[lost == COMPOSITE_ALIVE] = 0
        return out

    return _numpy_chunks(n, seed, restored)


def worker_python_rally(n, seed):
    import random

    random.seed(seed)
    randint = random.randint
    total = 0
    total2 = 0
    for _ in range(n):
        restored = 0
        for _ in range(RALLY_MISSING):
            if randint(1, 6) >= RALLY_TARGET:
                restored += 1
        total += restored
        total2 += restored * restored
    mean = total / n
    return (n, mean, total2 - n * mean * mean)


def worker_icepool(m):
    """Doubled Rally with m missing, the way a user writes it in icepool: successes of use 1,
    then use 2 rolls for the models still missing. Returns the distribution."""
    import icepool

    # icepool 2.1.3 sums `n @ die` recursively, one frame per die: m = 1000 needs more than
    # Python's default limit of 1000 frames (RecursionError otherwise).
    sys.setrecursionlimit(max(10_000, 10 * m))
    start, cpu = time.perf_counter(), time.process_time()
    hit = icepool.d6 >= MASTERS_TARGET
    first = m @ hit
    restored = first.map(lambda s: s + (m - s) @ hit)
    mean = restored.mean()
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    return restored, mean, seconds, cpu


def worker_main(args):
    n, seed = args.n, args.seed
    out = {}
    if args.worker == "icepool":
        dist, mean, seconds, cpu = worker_icepool(args.m)
        probs = [dist.probability(k) for k in range(args.m + 1)]
        # Not timed: the two-stage result must be Binomial(m, 5/9) exactly.
        binom = [
            Fraction(math.comb(args.m, k)) * P_DOUBLED**k * (1 - P_DOUBLED) ** (args.m - k)
            for k in range(args.m + 1)
        ]
        out.update(
            mean=float(mean),
            mean_exact=str(mean),
            binomial_equal=probs == binom and set(dist.outcomes()) <= set(range(args.m + 1)),
            probabilities=[float(p) for p in probs],
        )
    else:
        fn = {
            "numpy_rally": worker_numpy_rally,
            "numpy_masters": worker_numpy_masters,
            "numpy_composite": worker_numpy_composite,
            "python_rally": worker_python_rally,
        }[args.worker]
        start, cpu = time.perf_counter(), time.process_time()
        count, mean, m2 = fn(n, seed)
        seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
        var = m2 / (count - 1)
        out.update(trials=count, mean=mean, variance=var, std_error=math.sqrt(var / count))
    maxrss = _usage()
    out.update(seconds=seconds, cpu_seconds=cpu, peak_kib=maxrss)
    print(json.dumps(out))


# ------------------------------------------------------------------------------------------
# Driver
# ------------------------------------------------------------------------------------------

TIME_V = shutil.which("time", path="/usr/bin:/bin")


def run_measured(cmd, cwd):
    """Runs cmd; returns (wall s, cpu s, peak KiB, exit code, stderr tail). Peak memory and
    CPU come from /usr/bin/time -v when installed, else from wait4 on the process."""
    with tempfile.TemporaryDirectory() as tmp:
        report = os.path.join(tmp, "time.txt")
        full = [TIME_V, "-v", "-o", report] + cmd if TIME_V else cmd
        with open(os.path.join(tmp, "err"), "w+") as err:
            start = time.perf_counter()
            proc = subprocess.Popen(full, cwd=cwd, stdout=subprocess.DEVNULL, stderr=err)
            _, status, ru = os.wait4(proc.pid, 0)
            wall = time.perf_counter() - start
            proc.returncode = os.waitstatus_to_exitcode(status)
            err.seek(0)
            tail = err.read()[-2000:]
        if TIME_V:
            fields = {}
            with open(report) as f:
                for line in f:
                    key, _, value = line.strip().rpartition(": ")
                    fields[key] = value
            peak = int(fields["Maximum resident set size (kbytes)"])
            cpu = float(fields["User time (seconds)"]) + float(fields["System time (seconds)"])
        else:
            peak, cpu = ru.ru_maxrss, ru.ru_utime + ru.ru_stime
    return wall, cpu, peak, proc.returncode, tail


def run_worker(kind, n=0, seed=0, m=0):
    cmd = [sys.executable, os.path.abspath(__file__), "--worker", kind]
    cmd += ["--n", str(n), "--seed", str(seed), "--m", str(m)]
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"worker {kind} failed:\n{done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def read_metric(out_dir, metric):
    """Mean, std error and trials of `metric` from a rollcall summary.csv."""
    with open(os.path.join(out_dir, "summary.csv"), newline="") as f:
        for row in csv.DictReader(f):
            if row["metric"] == metric:
                return row
    raise RuntimeError(f"no metric {metric} in {out_dir}/summary.csv")


def read_distribution(out_dir, metric):
    path = os.path.join(out_dir, "distribution.csv")
    if not os.path.exists(path):
        return None
    probs = {}
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            if row["metric"] == metric:
                probs[int(row["value"])] = float(row["probability"])
    return probs


class Contender:
    """One row of the table: run(round) returns a dict with at least `seconds`."""

    def __init__(self, group, name, work, units, run, baseline=False, exact_mean=None, per_trial=1,
                 binary_row=False):
        self.group, self.name, self.work, self.units = group, name, work, units
        self.run, self.baseline = run, baseline
        # Runs the rollcall binary (so --against times it with the other binary too).
        self.binary_row = binary_row
        # With --against: the row of this binary that this row repeats with the other one.
        self.twin_of = None
        # Its own expected mean, when the group's rows answer different questions.
        self.exact_mean = exact_mean
        # Work per trial run.json counts: a sweep's trial plays every point.
        self.per_trial = per_trial
        self.results = []
        self.skip = None  # reason when not available
        self.failed = False


def rollcall_run(ctx, file, trials, threads, metric, round_):
    with tempfile.TemporaryDirectory() as out:
        cmd = [ctx.binary, "run", file, "--trials", str(trials), "--threads", str(threads)]
        cmd += ["--seed", str(round_ + 1), "--quiet", "--out", out]
        wall, cpu, peak, rc, err = run_measured(cmd, ctx.root)
        if rc != 0:
            raise RuntimeError(f"{' '.join(cmd)} exited {rc}:\n{err}")
        row = read_metric(out, metric)
        with open(os.path.join(out, "run.json")) as f:
            played = json.load(f)["trials_played"]
    return dict(
        seconds=wall,
        cpu_seconds=cpu,
        peak_kib=peak,
        trials=played,
        mean=float(row["mean"]),
        std_error=float(row["std_error"]),
    )


def rollcall_exact(ctx, file, metric):
    with tempfile.TemporaryDirectory() as out:
        cmd = [ctx.binary, "exact", file, "--out", out]
        wall, cpu, peak, rc, err = run_measured(cmd, ctx.root)
        if rc != 0:
            raise RuntimeError(f"{' '.join(cmd)} exited {rc}:\n{err}")
        row = read_metric(out, metric)
        probs = read_distribution(out, metric)
    return dict(seconds=wall, cpu_seconds=cpu, peak_kib=peak, mean=float(row["mean"]), probs=probs)


def exact_scenario(ctx, m):
    """A doubled-Rally scenario with m missing on a field where placement never binds."""
    alive = max(10, m // 4)
    columns = math.ceil(math.sqrt(alive))
    text = f"""# Generated by benches/compare/compare.py: doubled Rally, {m} missing, Resolve 5+.
[scenario]
name = "compare-masters-{m}"
trials = 1000
seed = 1

[battlefield]
width = 300.0
height = 300.0

[[unit]]
id = "masters"
side = "blue"
size = {alive + m}
alive = {alive}
base = 1.0
resolve = "d6>={MASTERS_TARGET}"
rules = ["call_of_the_masters"]
formation = {{ kind = "grid", x = 10.0, y = 10.0, spacing = 3.0, columns = {columns} }}

[[step]]
unit = "masters"
command = "rally"
"""
    path = os.path.join(ctx.tmp, f"masters-{m}.toml")
    with open(path, "w") as f:
        f.write(text)
    done = subprocess.run([ctx.binary, "check", path], capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"rollcall check rejected {path}:\n{done.stderr}")
    # Placement never binds: with every test a success, use 1 alone restores all m.
    with tempfile.TemporaryDirectory() as out:
        cmd = [ctx.binary, "run", path, "--trials", "100", "--quiet", "--out", out]
        cmd += ["--set", "unit.masters.resolve=d6>=1"]
        subprocess.run(cmd, check=True, capture_output=True)
        row = read_metric(out, "masters.restored")
    if not (float(row["min"]) == float(row["max"]) == m):
        sys.exit(f"{path}: placement binds (restored {row['min']}..{row['max']} of {m})")
    return path, alive


def exact_mean_of(ctx, file, metric):
    """The mean `rollcall exact` gives `metric` (its first row), or None when it refuses."""
    with tempfile.TemporaryDirectory() as out:
        done = subprocess.run([ctx.binary, "exact", file, "--out", out], capture_output=True)
        return float(read_metric(out, metric)["mean"]) if done.returncode == 0 else None


def cost_group(ctx, n, threads):
    """Long scripts, big units and wide sweeps, each timed as a share of the open-field Rally
    rate in the same run: what the state graph, the geometry and the sweep set-up cost. Each
    row's mean is checked against `rollcall exact` where it takes the scenario, else against
    the closed form given here."""
    rally = os.path.join(ctx.root, "configs", "rally.toml")
    g = Group(
        "costs",
        "long scripts, big units, wide sweeps: rates against open-field Rally (same run)",
        None,
        same_question=False,
    )
    g.append(
        Contender(
            g, f"open-field Rally ({threads} threads)", n["rc"], "trials",
            lambda r: rollcall_run(ctx, rally, n["rc"], threads, "wardens.restored", r),
            baseline=True, exact_mean=RALLY_MEAN, binary_row=True,
        )
    )
    compare_configs = os.path.join(HERE, "configs")
    rows = [
        # (label, file, metric, trials, closed-form mean or None, work per trial)
        ("6 rounds of volleys (configs/exchange-volleys.toml)",
         os.path.join(ctx.root, "configs", "exchange-volleys.toml"), "raiders.alive", n["ev"],
         None, 1),
        ("12 rounds, volleys and Rallies (configs/exchange-rally.toml)",
         os.path.join(ctx.root, "configs", "exchange-rally.toml"), "wardens.restored", n["er"],
         None, 1),
        # Placement never binds there: restored ~ Binomial(1000, 3/4).
        ("doubled Rally, 1,000 missing (rally-thousand.toml)",
         os.path.join(compare_configs, "rally-thousand.toml"), "horde.restored", n["rt"],
         Fraction(750), 1),
        # 2,000 attacks, each removing a model with p = 1/2 * 2/3, into 3,000 models.
        ("2,000 attacks into 3,000 models (volley-large.toml)",
         os.path.join(compare_configs, "volley-large.toml"), "horde.lost", n["vl"],
         Fraction(2000, 3), 1),
        ("1,600 sweep points x 200 trials (rally-grid.toml)",
         os.path.join(compare_configs, "rally-grid.toml"), "wardens.restored", 200, None, 1600),
        # Engagements: their rates count point-trials (duel's sweep has 3 points, the
        # choices' files 2 designs).
        ("duel, 3 sweep points (configs/duel.toml)",
         os.path.join(ctx.root, "configs", "duel.toml"), "wardens.alive", n["du"], None, 3),
        ("orders-duel, 2 choices (configs/orders-duel.toml)",
         os.path.join(ctx.root, "configs", "orders-duel.toml"), "wardens.alive", n["du"], None, 2),
        ("design-duel, 2 designs (configs/design-duel.toml)",
         os.path.join(ctx.root, "configs", "design-duel.toml"), "wardens.alive", n["du"], None, 2),
        ("duel with a Run, 8 rounds (configs/run-duel.toml)",
         os.path.join(ctx.root, "configs", "run-duel.toml"), "wardens.alive", n["rd"], None, 1),
        ("roster, 4 units of 10 a side (roster-exchange.toml)",
         os.path.join(compare_configs, "roster-exchange.toml"), "ward1.alive", n["ro"], None, 1),
        # The shipped roster: 25 matchups a trial (its rate counts matchup-trials), then the
        # fair-points search of each of its 5 profiles, whose time the row includes.
        ("shipped roster, 25 matchups + fair points (configs/roster.toml)",
         os.path.join(ctx.root, "configs", "roster.toml"), "first.alive", n["rs"], None, 25),
    ]
    # The exact engine is not asked of these: their states are too many to count quickly
    # (exchange-rally's grow for minutes, to half the machine's memory, before it refuses).
    no_exact = ("exchange-rally.toml", "run-duel.toml", "roster-exchange.toml", "roster.toml")
    for label, file, metric, trials, closed, per_trial in rows:
        mean = None if file.endswith(no_exact) else exact_mean_of(ctx, file, metric)
        if mean is None and closed is not None:
            mean = closed
        g.append(
            Contender(
                g, label, trials * per_trial, "trials",
                lambda r, file=file, trials=trials, metric=metric: rollcall_run(
                    ctx, file, trials, threads, metric, r
                ),
                exact_mean=mean, per_trial=per_trial, binary_row=True,
            )
        )
    return g


def card_group(ctx, n, threads):
    """Random card games against the scalar xoshiro256++ word rate of one stream on one thread
    (examples/xoshiro_words.rs, a whole process like rollcall's rows): card trials draw raw
    words (shuffles, random plays), so a turn's cost is read in words."""
    g = Group(
        "cards",
        "card turns (configs/cards-random.toml) against one scalar xoshiro256++ stream",
        None,
        same_question=False,
    )
    words = os.path.join(ctx.tmp, "xoshiro_words")
    built = os.path.join(ctx.root, "target", "release", "examples", "xoshiro_words")
    if os.access(built, os.X_OK):
        shutil.copy2(built, words)

    def word_run(r):
        wall, cpu, peak, rc, err = run_measured([words, str(n["xw"])], ctx.root)
        if rc != 0:
            raise RuntimeError(f"xoshiro_words exited {rc}:\n{err}")
        return dict(seconds=wall, cpu_seconds=cpu, peak_kib=peak, trials=n["xw"])

    base = Contender(g, "xoshiro256++ words (scalar, 1 thread)", n["xw"], "trials", word_run,
                     baseline=True)
    if not os.path.exists(words):
        base.skip = "not built: cargo build --release --examples (run.sh does)"
    g.append(base)
    file = os.path.join(ctx.root, "configs", "cards-random.toml")
    with open(file) as f:
        turns = int(re.search(r"^turns\s*=\s*(\d+)", f.read(), re.M).group(1))
    plural = "s" if threads != 1 else ""
    g.append(
        Contender(
            g, f"card turns, {turns} a game ({threads} thread{plural})", n["cg"] * turns, "trials",
            lambda r: rollcall_run(ctx, file, n["cg"], threads, "A.score", r), per_trial=turns,
            binary_row=True,
        )
    )
    return g


def rates_against_baseline(groups, short):
    """(row, its rate, the baseline's rate) for every measured row of group `short` but its
    baseline, rates by the median seconds of the run (a row's rate counts its work per trial)."""
    group = next((g for g in groups if g.short == short), None)
    base = group and next((c for c in group if c.baseline and c.results), None)
    if not base:
        return []
    median = lambda c: statistics.median(x["seconds"] for x in c.results)
    base_rate = base.work / median(base)
    return [
        (c, c.results[0]["trials"] * c.per_trial / median(c), base_rate)
        for c in group
        if c.results and not c.baseline
    ]


AGAINST_MARK = "[against]"


def add_twins(ctx, groups):
    """After each row that runs rollcall, the same row run with the --against binary."""

    def with_binary(run, r):
        mine = ctx.binary
        ctx.binary = ctx.against
        try:
            return run(r)
        finally:
            ctx.binary = mine

    for g in groups:
        for c in list(g):
            if not c.binary_row:
                continue
            twin = Contender(
                g, f"{c.name} {AGAINST_MARK}", c.work, c.units,
                lambda r, run=c.run: with_binary(run, r),
                exact_mean=c.exact_mean, per_trial=c.per_trial,
            )
            twin.twin_of = c
            g.insert(g.index(c) + 1, twin)


def has_exact(ctx):
    done = subprocess.run([ctx.binary, "exact", "--help"], capture_output=True)
    return done.returncode


def z_score(a, b):
    """|mean difference| in standard errors; b may be an exact value (std_error 0)."""
    se = math.sqrt(a["std_error"] ** 2 + b.get("std_error", 0.0) ** 2)
    diff = abs(a["mean"] - b["mean"])
    return diff / se if se > 0 else (0.0 if diff == 0 else math.inf)


def agreement(group, c, round_index):
    """(ok, z or None, text) for contender c's result in one round."""
    r = c.results[round_index]
    if c.twin_of is not None:
        # The same scenario and seed on another binary: the very same numbers.
        if round_index >= len(c.twin_of.results):
            # This binary refused the row (a scenario past its limits): nothing to compare.
            return True, None, "not compared: this binary refused it"
        mine = c.twin_of.results[round_index]
        keys = ("mean", "std_error", "trials", "probs")
        same = all(mine.get(k) == r.get(k) for k in keys)
        return same, None, "same numbers" if same else "DIFFERENT numbers"
    others = {o.name: o.results[round_index] for o in group if o.results and o is not c}
    base = next(o for o in group if o.baseline)
    exact_mean = group.exact_mean if group.same_question else c.exact_mean
    if c.units == "trials":  # Monte Carlo
        zs = [z_score(r, {"mean": float(exact_mean)})] if exact_mean is not None else []
        if group.same_question and not c.baseline and base.results and base.skip is None:
            zs.append(z_score(r, base.results[round_index]))
        if not zs:
            return True, None, "no closed form (cost row)"
        z = max(zs)
        return z < Z_MAX, z, None
    if c.name.startswith("icepool"):
        ok = r["binomial_equal"] and Fraction(r["mean_exact"]) == exact_mean
        return ok, None, "= binomial" if ok else "!= binomial"
    # rollcall exact: against the exact mean and icepool's distribution
    ok = abs(r["mean"] - float(exact_mean)) <= 1e-9 * float(exact_mean)
    note = f"mean {'=' if ok else '!='}"
    ice = others.get(base.name)
    if r.get("probs") is not None and ice:
        worst = max(
            abs(r["probs"].get(k, 0.0) - p) for k, p in enumerate(ice["probabilities"])
        )
        ok = ok and worst < 1e-12
        note += f", dist max abs diff {worst:.1e}"
    return ok, None, note


class Group(list):
    def __init__(self, short, title, exact_mean, same_question=True):
        super().__init__()
        self.short, self.title, self.exact_mean = short, title, exact_mean
        # False when the rows are different scenarios timed against one baseline: their
        # means are then checked against their own exact means, not the baseline's.
        self.same_question = same_question


def fmt_count(x):
    if x >= 1e5:
        mant, exp = f"{x:.0e}".split("e")
        if float(mant) * 10 ** int(exp) == x:
            return f"{mant}e{int(exp)}"
    return f"{x:,}"


def fmt_rate(x):
    for div, suffix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if x >= div:
            return f"{x / div:.3g}{suffix}"
    return f"{x:.3g}"


def loadavg():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def machine(ctx):
    model = "unknown"
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    mem = "?"
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith("MemTotal"):
                mem = f"{int(line.split()[1]) / 1024**2:.1f} GiB"
    version = subprocess.run([ctx.binary, "--version"], capture_output=True, text=True)
    rustc = subprocess.run(["rustc", "--version"], capture_output=True, text=True)
    commit = subprocess.run(
        ["git", "-C", ctx.root, "describe", "--always", "--dirty"], capture_output=True, text=True
    ).stdout.strip() or "?"
    if ctx.custom_binary:
        commit = "given by --binary"
    import numpy
    import icepool

    lines = [
        f"machine: {model}, {os.cpu_count()} cores ({len(os.sched_getaffinity(0))} usable), {mem},"
        f" {platform.system()} {platform.release()}",
        f"binary: {ctx.source_binary}",
        f"software: {version.stdout.strip()} (built from: {commit}),"
        f" {rustc.stdout.strip()}, Python {platform.python_version()},"
        f" numpy {numpy.__version__}, icepool {icepool.__version__}",
    ]
    return lines


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--root", default=os.path.dirname(os.path.dirname(HERE)))
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--quick", action="store_true", help="small sizes, for a smoke test")
    ap.add_argument("--threads", type=int, default=os.cpu_count())
    ap.add_argument("--binary", help="rollcall binary (default: ROOT/target/release/rollcall)")
    ap.add_argument("--rollcall-trials", type=float, help="open-field Rally trials for rollcall")
    ap.add_argument("--against", help="another rollcall binary: every rollcall row runs with it"
                    " too, in the same round, and must write the same numbers")
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    ap.add_argument("--n", type=int, default=0, help=argparse.SUPPRESS)
    ap.add_argument("--seed", type=int, default=0, help=argparse.SUPPRESS)
    ap.add_argument("--m", type=int, default=0, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        return worker_main(args)

    ctx = argparse.Namespace(root=os.path.abspath(args.root), custom_binary=bool(args.binary))
    ctx.binary = os.path.abspath(args.binary or os.path.join(ctx.root, "target", "release", "rollcall"))
    if not os.access(ctx.binary, os.X_OK):
        sys.exit(f"{ctx.binary} not found: run `cargo build --release` (run.sh does)")
    ctx.tmp = tempfile.mkdtemp(prefix="rollcall-compare-")
    # Time a private copy: a `cargo build` elsewhere must not swap the binary mid-run.
    ctx.source_binary = ctx.binary
    ctx.binary = os.path.join(ctx.tmp, "rollcall")
    shutil.copy2(ctx.source_binary, ctx.binary)

    if args.quick:
        sizes = dict(rc=1e7, rc1=5e6, np=2e6, py=2e4, rcm=2e6, npm=2e6, ms=(50, 200), mc=1e5,
                     rcc=2e6, npc=1e6, ev=1e7, er=2e4, rt=1e7, vl=1e6, xw=1e8, cg=2e5,
                     du=1e5, rd=1e5, ro=2e3, rs=2e3)
    else:
        sizes = dict(rc=1e9, rc1=5e8, np=1e8, py=1e6, rcm=1e8, npm=5e7, ms=(200, 1000), mc=1e6,
                     rcc=2e8, npc=2e7, ev=1e8, er=2e5, rt=1e8, vl=1e7, xw=1e9,
                     cg=1e7, du=1e6, rd=1e6, ro=2e4, rs=2e4)
    if args.rollcall_trials:
        sizes["rc"] = args.rollcall_trials
        sizes["rc1"] = args.rollcall_trials / 2
    n = {k: int(v) for k, v in sizes.items() if k != "ms"}
    threads = args.threads

    rally = os.path.join(ctx.root, "configs", "rally.toml")
    masters = os.path.join(ctx.root, "configs", "rally-masters.toml")
    composite = os.path.join(ctx.root, "configs", "shoot-then-rally.toml")
    exact_rc = has_exact(ctx)

    def numpy_and_rollcall(g, worker, n_numpy, file, metric, n_threads, n_one=None):
        """A numpy baseline, then rollcall on every thread and, given n_one, on one."""
        g.append(
            Contender(
                g, "numpy (vectorised, 1 core)", n_numpy, "trials",
                lambda r: run_worker(worker, n_numpy, r + 1), baseline=True,
            )
        )
        runs = [(threads, n_threads)] + ([(1, n_one)] if n_one and threads != 1 else [])
        for t, trials in runs:
            name = f"rollcall run ({t} thread{'s' if t != 1 else ''})"
            g.append(
                Contender(
                    g, name, trials, "trials",
                    lambda r, t=t, trials=trials: rollcall_run(ctx, file, trials, t, metric, r),
                    binary_row=True,
                )
            )

    groups = []
    g = Group("Rally", "open-field Rally: 5 missing, Resolve 4+ (configs/rally.toml)", RALLY_MEAN)
    numpy_and_rollcall(g, "numpy_rally", n["np"], rally, "wardens.restored", n["rc"], n["rc1"])
    g.append(
        Contender(
            g, "Python loop (random.randint)", n["py"], "trials",
            lambda r: run_worker("python_rally", n["py"], r + 1),
        )
    )
    groups.append(g)

    g = Group(
        "doubled Rally",
        "doubled Rally (Call of the Masters): 6 missing, Resolve 5+ (configs/rally-masters.toml)",
        MASTERS_MEAN,
    )
    numpy_and_rollcall(g, "numpy_masters", n["npm"], masters, "masters.restored", n["rcm"])
    groups.append(g)

    g = Group(
        "composite",
        "composite: doubled Shoot, then Rally around the survivors (configs/shoot-then-rally.toml)",
        COMPOSITE_MEAN,
    )
    numpy_and_rollcall(
        g, "numpy_composite", n["npc"], composite, "wardens.restored", n["rcc"], n["rcc"] // 2
    )
    groups.append(g)

    for m in sizes["ms"]:
        path, alive = exact_scenario(ctx, m)
        g = Group(
            f"exact m={m}",
            f"exact, doubled Rally: {m} missing ({alive} alive, 300x300 field), Resolve 5+",
            m * P_DOUBLED,
        )
        g.append(
            Contender(
                g, "icepool (2-stage, exact)", m, "m",
                lambda r, m=m: run_worker("icepool", m=m), baseline=True,
            )
        )
        c = Contender(
            g, "rollcall exact", m, "m",
            lambda r, path=path: rollcall_exact(ctx, path, "masters.restored"),
            binary_row=True,
        )
        if exact_rc != 0:
            c.skip = f"not available (`rollcall exact --help` exited {exact_rc})"
        g.append(c)
        g.append(
            Contender(
                g, f"rollcall run (Monte Carlo, {threads} threads)", n["mc"], "trials",
                lambda r, path=path: rollcall_run(ctx, path, n["mc"], threads,
                                                  "masters.restored", r),
                binary_row=True,
            )
        )
        groups.append(g)

    groups.append(cost_group(ctx, n, threads))
    groups.append(card_group(ctx, n, threads))
    if args.against:
        ctx.against = os.path.join(ctx.tmp, "rollcall-against")
        shutil.copy2(os.path.abspath(args.against), ctx.against)
        add_twins(ctx, groups)

    print("rollcall whole-program comparison")
    for line in machine(ctx):
        print(line)
    if args.against:
        theirs = subprocess.run([ctx.against, "--version"], capture_output=True, text=True)
        print(f"against: {os.path.abspath(args.against)} ({theirs.stdout.strip()}), rows marked"
              f" {AGAINST_MARK}")
    shown = []
    argv = iter(sys.argv[1:])
    for a in argv:
        if a == "--root":
            next(argv, None)
        elif not a.startswith("--root="):
            shown.append(a)
    typed = os.environ.get("COMPARE_ARGS")
    shown = typed.split() if typed is not None else shown
    print("command: " + " ".join(["bash benches/compare/run.sh"] + shown))
    print(f"load average at start: {loadavg()}")
    print(f"rounds: {args.rounds}{' (quick sizes)' if args.quick else ''}, interleaved")
    sys.stdout.flush()

    round_loads = []
    started = time.perf_counter()
    for r in range(args.rounds):
        round_loads.append(loadavg().split()[0])
        for g in groups:
            for c in g:
                if c.skip:
                    continue
                try:
                    c.results.append(c.run(r))
                except Exception as e:  # keep measuring the others; the row says FAILED
                    print(f"{g.short} / {c.name} failed: {e}", file=sys.stderr)
                    c.skip = "FAILED: " + (str(e).splitlines() or ["?"])[0][:70]
                    c.failed = True
        print(
            f"  round {r + 1}/{args.rounds} done at {time.perf_counter() - started:.0f} s"
            f" (1-min load at its start {round_loads[-1]})",
            file=sys.stderr,
        )
    total = time.perf_counter() - started

    print()
    header = ("contender", "trials / m", "median s", "spread", "trials/s",
              "speed vs base", "cpu s", "peak MiB", "agreement")
    all_ok = True
    rows = []
    for g in groups:
        rows.append(("## " + g.title,))
        base = next(c for c in g if c.baseline)
        base_t = statistics.median(x["seconds"] for x in base.results) if base.results else None
        for c in g:
            if c.skip:
                all_ok &= not c.failed
                rows.append((c.name, fmt_count(c.work), "-", "-", "-", "-", "-", "-", c.skip))
                continue
            secs = [x["seconds"] for x in c.results]
            med = statistics.median(secs)
            spread = (max(secs) - min(secs)) / med
            cpu = statistics.median(x["cpu_seconds"] for x in c.results)
            peak = max(x["peak_kib"] for x in c.results) / 1024
            if c.units == "trials":
                work = c.results[0]["trials"] * c.per_trial
                rate = fmt_rate(work / med)
                # Against an exact baseline a Monte Carlo run answers a different question.
                speed = (work / med) / (base.work / base_t) if base.units == "trials" and base_t else None
            else:
                rate = "-"
                speed = base_t / med
            checks = [agreement(g, c, i) for i in range(len(c.results))]
            ok = all(x[0] for x in checks)
            all_ok &= ok
            zs = [x[1] for x in checks if x[1] is not None]
            note = f"max z {max(zs):.2f}" if zs else checks[0][2]
            label = "PASS" if ok else "FAIL"
            speed_s = "1 (base)" if c.baseline else "n/a (MC)" if speed is None else f"{speed:.3g}x"
            rows.append((c.name, fmt_count(c.work), f"{med:.3f}", f"{spread:.0%}", rate,
                         speed_s, f"{cpu:.2f}", f"{peak:.1f}", f"{label} ({note})"))
    widths = [max(len(r[i]) for r in rows + [header] if len(r) > 1) for i in range(len(header))]
    line = lambda r: "| " + " | ".join(v.ljust(w) for v, w in zip(r, widths)) + " |"
    for r in rows:
        if len(r) == 1:
            print()
            print(r[0])
            print(line(header))
            print("|" + "|".join("-" * (w + 2) for w in widths) + "|")
        else:
            print(line(r))
    print()
    print("rollcall against itself (medians of this run):")
    rate = {}
    for g in groups:
        for c in g:
            if c.results and c.units == "trials" and c.name.startswith("rollcall run ("):
                secs = statistics.median(x["seconds"] for x in c.results)
                rate[(g.short, c.name)] = c.results[0]["trials"] / secs
    many, one = f"rollcall run ({threads} threads)", "rollcall run (1 thread)"
    if ("Rally", many) in rate and ("Rally", one) in rate:
        print(f"  open-field Rally, {threads} threads / 1 thread: "
              f"{rate[('Rally', many)] / rate[('Rally', one)]:.2f}x")
    if ("Rally", many) in rate and ("composite", many) in rate:
        print(f"  composite rate / open-field Rally rate ({threads} threads): "
              f"{rate[('composite', many)] / rate[('Rally', many)]:.1%}")
    for short, rate_text in (
        ("costs", lambda rate, base: f"1/{base / rate:,.0f} of the open-field Rally rate"),
        ("cards", lambda rate, base: f"{rate / 1e6:.1f} M turns/s, 1/{base / rate:,.0f} of the"
                                     f" scalar word rate ({base / 1e9:.2f} G words/s)"),
    ):
        for c, rate, base in rates_against_baseline(groups, short):
            print(f"  {c.name}: {rate_text(rate, base)}")
    if args.against:
        print()
        print(f"this binary against {AGAINST_MARK}: its median wall seconds over this one's (the"
              " speed-up), then the same for cpu seconds (user + system), which a loaded machine"
              " disturbs less:")
        for g in groups:
            for c in g:
                if c.twin_of and c.results and c.twin_of.results:
                    med = lambda row, k: statistics.median(x[k] for x in row.results)
                    mine, theirs = med(c.twin_of, "seconds"), med(c, "seconds")
                    cpu_mine, cpu_theirs = med(c.twin_of, "cpu_seconds"), med(c, "cpu_seconds")
                    cpu = f"{cpu_theirs / cpu_mine:.2f}x" if cpu_mine > 0 else "-"
                    print(f"  {g.short} / {c.twin_of.name}: wall {theirs / mine:.2f}x"
                          f" ({mine:.3f} s against {theirs:.3f} s), cpu {cpu}"
                          f" ({cpu_mine:.2f} s against {cpu_theirs:.2f} s)")
    print()
    print("per-round seconds (round 1..N):")
    for g in groups:
        for c in g:
            if c.results:
                times = " ".join(f"{x['seconds']:.3f}" for x in c.results)
                print(f"  {g.short} / {c.name}: {times}")
    print()
    print(f"1-min load at each round start: {' '.join(round_loads)}")
    print(f"load average at end: {loadavg()}; {total:.0f} s of measurement")
    print(
        "notes: median s is wall time; rollcall's includes process start and writing its CSV"
        " files, the Python contenders' excludes interpreter start and imports. speed vs base"
        " compares trials/s (Monte Carlo) or time (exact); a Monte Carlo run is not compared with an"
        " exact calculation (n/a), it is shown for scale. cpu s is user+system time, median."
        " peak MiB is the maximum resident set over the rounds (Python: the whole"
        " interpreter). agreement: Monte Carlo means within"
        f" {Z_MAX:g} standard errors of the closed form and of the baseline, every round;"
        " icepool's two-stage result equal to Binomial(m, 5/9) exactly."
    )
    print("ALL AGREE: PASS" if all_ok else "AGREEMENT: FAIL")
    shutil.rmtree(ctx.tmp, ignore_errors=True)
    return 0 if all_ok else 1


if __name__ == "__main__":
    sys.exit(main())
