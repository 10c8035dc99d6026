#!/usr/bin/env bash
# A CPU estimate of how the fleet scales, without a GPU: the 4-graph exhaustive sweep of
# reports/h200x2 replayed from its one-GPU records, every measurement taking PACE x the wall time
# it took on the H200 (the hidden --replay-pace), once in one process and once with two workers
# (--devices 0,1: two processes on one journal file). What it shows is the fleet's own cost (worker
# start-up, the storage, the stages' hand-overs) against ideal halving; not a GPU measurement.
#
#   bash scripts/fleet_replay.sh [PACE]      (default 1; prints both wall times and their ratio)
set -euo pipefail
pace=${1:-1}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
args=(--replay reports/h200x2/one-gpu.jsonl --replay-pace "$pace" --strategy exhaustive
      --block-sizes 64,128,256,512,1024 --caches default,prefer_l1,prefer_shared,no_l1 --ck 1,4,16,64
      --lanes 1,4,32 --quiet)
timed() {  # label, then extra arguments; prints the wall time in seconds
  local t0 t1
  t0=$(date +%s.%N)
  python3 -m autotune sweep "${args[@]}" "$@" >/dev/null
  t1=$(date +%s.%N)
  awk "BEGIN { printf \"%.2f\", $t1 - $t0 }"
}
echo "# bash scripts/fleet_replay.sh $pace  ($(date -u +%FT%TZ), $(nproc) CPUs, commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown))"
one=$(timed --storage "$work/one.journal" -o "$work/one.json")
two=$(timed --devices 0,1 --storage "$work/two.journal" -o "$work/two.json")
recorded=$(python3 -c "
import json
print(round(sum(json.loads(l).get('wall_s') or 0 for l in open('reports/h200x2/one-gpu.jsonl')), 1))")
echo "recorded measurements: $recorded s on the H200; pace $pace (pruning on, as in a sweep: a pruned answer takes its share of its record's time)"
echo "one process: $one s; two workers: $two s; ratio $(awk "BEGIN { printf \"%.2f\", $one / $two }")x"
