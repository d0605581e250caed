#!/usr/bin/env bash
# The balance search's cost against a full sweep (docs/performance.md, "Balance search").
#
#   bash benches/balance/run.sh [ROLLCALL_BINARY]
#
# For each file (this folder's closed-form Rally case and the shipped balance configs), runs
# `rollcall balance`, then `rollcall run` on the same file with --trials N, N the most trials
# of the bracketing pair: a full sweep playing every candidate N times. Candidates are played
# on the same trial numbers in both, so the sweep's rows for the pair are the search's rows
# (checked here, interval widths included): the sweep reaches the same widths at the pair with
# exactly K x N trials. Prints trials played by each and their ratio.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
bin="${1:-$root/target/release/rollcall}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

# Each case: a file and the --set flags it is searched with. The shipped files as they are,
# then the halberds searched for targets near a candidate's mean (41% at 9 crossbows, 63% at
# 10), where the pair needs more than its first batch to be told from the target.
cases=(
    "$here/rally-alive.toml"
    "$root/configs/balance-halberds-first.toml"
    "$root/configs/balance-crossbows-first.toml"
    "$root/configs/balance-halberds-first.toml --set balance.target=0.4"
    "$root/configs/balance-halberds-first.toml --set balance.target=0.6"
)
printf '%-50s %10s %6s %12s %14s %7s\n' case candidates played search sweep ratio
for case in "${cases[@]}"; do
    read -r file flags <<< "$case"
    name="$(basename "$file" .toml)${flags:+ $flags}"
    dir="$tmp/$(echo "$name" | tr -c 'a-z0-9\n' '_')"
    # shellcheck disable=SC2086
    "$bin" balance "$file" $flags --out "$dir-search" --quiet > /dev/null
    n="$(python3 - "$dir-search" <<'PY'
import csv, json, sys
d = sys.argv[1]
rows = list(csv.DictReader(open(f"{d}/balance.csv")))
answer = json.load(open(f"{d}/run.json"))["balance"]
pair = answer.get("pair") or [answer["closest"]]
print(max(int(r["trials"]) for r in rows if r["value"] in pair))
PY
)"
    # shellcheck disable=SC2086
    "$bin" run "$file" $flags --trials "$n" --out "$dir-sweep" --quiet 2> /dev/null
    python3 - "$dir-search" "$dir-sweep" "$name" "$n" <<'PY'
import csv, json, sys
search, sweep, name, n = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
rows = list(csv.DictReader(open(f"{search}/balance.csv")))
answer = json.load(open(f"{search}/run.json"))["balance"]
metric, vary = answer["metric"], answer["vary"]
pair = answer.get("pair") or [answer["closest"]]
swept = {r[vary]: r for r in csv.DictReader(open(f"{sweep}/summary.csv")) if r["metric"] == metric}
for r in rows:
    if r["value"] in pair and int(r["trials"]) == n:
        s = swept[r["value"]]
        assert (s["mean"], s["ci95_low"], s["ci95_high"]) == (r["mean"], r["ci95_low"], r["ci95_high"]), (name, r, s)
k = len(swept)
played = sum(int(r["trials"]) for r in rows)
print(f"{name:<50} {k:>10} {len(rows):>6} {played:>12,} {k * n:>14,} {played / (k * n):>7.3f}")
PY
done
