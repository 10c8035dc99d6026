#!/usr/bin/env bash
# The merged H100 table (reports/h100/table.json) from the committed sweeps' records, and the
# leave-one-graph-out check of its lookup (reports/h100/lookup-check.md).
#
# The sweeps of reports/h100/sweeps were written as autotune.table/1, before tables had a latency
# curve or the degree skew: each records file is replayed (no GPU; the same strategy, trials and
# sampler seed, no pruning, so the replay measures what the sweep measured and finds the same best)
# into a version 2 table, and the 26 tables are merged, the faster entry of a graph winning.
#
#     bash scripts/h100_table.sh
set -euo pipefail
cd "$(dirname "$0")/.."
sweeps=reports/h100/sweeps
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for records in "$sweeps"/*.jsonl; do
    name=$(basename "$records" .jsonl)
    strategy=${name##*.}
    trials=()
    [ "$strategy" = bayes ] && trials=(--trials 25)
    python3 -m autotune sweep --replay "$records" --strategy "$strategy" "${trials[@]}" --no-prune \
        --quiet -o "$work/$name.json"
done
root=$PWD
(cd "$work" && PYTHONPATH="$root${PYTHONPATH:+:$PYTHONPATH}" python3 -m autotune table merge *.json --graph-features \
    -o "$root/reports/h100/table.json")
python3 scripts/lookup_check.py reports/h100/table.json "$sweeps" > reports/h100/lookup-check.md
