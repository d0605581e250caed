#!/usr/bin/env bash
# Seeds fuzz/corpus/<target>/ from the shipped files: every configs/*.toml for `scenario`, the
# card sets for `cards`, a few settings for `setting`, and shard parts of shipped scenarios for
# `part` (each with a leading byte 1, which has the target re-seal the checksum). Run from
# anywhere; builds the release binary if needed.
set -euo pipefail
cd "$(dirname "$0")/.."
corpus=fuzz/corpus
mkdir -p "$corpus"/{scenario,cards,setting,part}
cp configs/*.toml "$corpus/scenario/"
cp configs/cards/*.toml "$corpus/cards/"
i=0
for s in 'unit.wardens.alive=4' 'unit.wardens.resolve=d6>=3' 'engagement.rounds=12' \
         'unit.wardens.orders[0].when=missing >= 3' 'sweep."unit.wardens.size"=[5, 6, 7]' \
         'battlefield.terrain=[{ x = 1.0, y = 1.0, width = 2.0, height = 2.0 }]'; do
    printf '%s' "$s" > "$corpus/setting/$i"
    i=$((i + 1))
done
cargo build --release --quiet
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for config in rally duel cards-banniere design-duel; do
    target/release/rollcall run "configs/$config.toml" --trials 2000 --shard 0/1 --quiet \
        --out "$tmp/$config"
    { printf '\001'; cat "$tmp/$config/shard-0-of-1.json"; } > "$corpus/part/$config"
done
echo "seeded $(find "$corpus" -type f | wc -l) files under $corpus"
