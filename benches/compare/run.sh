#!/usr/bin/env bash
# Whole-program speed comparison: rollcall vs numpy, a plain Python loop and icepool.
#
#   bash benches/compare/run.sh [--rounds N] [--quick] [--threads T] [--no-build]
#
# Creates benches/compare/.venv (python3 -m venv) with the pinned numpy and icepool from
# requirements.txt, builds rollcall in release mode, then runs compare.py. See README.md here.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
venv="$here/.venv"

build=1
args=()
for a in "$@"; do
    case "$a" in
        --no-build) build=0 ;;
        *) args+=("$a") ;;
    esac
done

if [ ! -x "$venv/bin/python" ]; then
    echo "creating $venv" >&2
    python3 -m venv "$venv"
fi
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r "$here/requirements.txt"

if [ "$build" = 1 ]; then
    echo "building rollcall and examples/xoshiro_words (cargo build --release)" >&2
    (cd "$root" && cargo build --release --quiet --bins --examples)
fi

COMPARE_ARGS="$*" exec "$venv/bin/python" "$here/compare.py" --root "$root" "${args[@]+"${args[@]}"}"
