#!/bin/sh
# Rebuild the leaderboard of the built-in bots: play its events (each config in
# configs/, into runs/builtins/), then publish them here. The events and the published
# files are the same every time: every result is seeded.
set -e
cd "$(dirname "$0")/../.."
for config in leaderboards/builtins/configs/*.toml; do
    run_dir="runs/builtins/$(basename "$config" .toml)"
    if [ ! -f "$run_dir/results.json" ]; then
        rm -rf "$run_dir"
        .venv/bin/dp-arena run "$config" --run-dir "$run_dir" --executor serial --quiet
    fi
done
# The replay pages of a few hundred hands: enough to watch the bots, small enough to commit.
.venv/bin/dp-arena leaderboard publish runs/builtins/event-* \
    --out leaderboards/builtins --title "Built-in bots" --hands 300
