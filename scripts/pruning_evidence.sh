#!/usr/bin/env bash
# Issue 15's pruning target on one GPU: the 40-trial Bayesian sweep of usa-roads (GPU Crauser) with
# pruning (the default) and adaptive repetitions (3 to 6) against the same sweep with both off (--no-prune,
# --max-repetitions equal to --repetitions). The unpruned sweep can outlast one 10-minute device
# command: each run keeps its study in a journal file under $WORK and resumes it, so call the script
# again with the same WORK until it says "done"; the wall times of the calls add up in $OUT/pruning.log.
#
#   source .whl/setup.sh && bash scripts/pruning_evidence.sh pruned|unpruned      (WORK defaults to /tmp/pruning)
#
# Run on 2026-11-23: reports/h100/pruning/ (README: the runs and their commits).
set -uo pipefail
which=${1:?pruned or unpruned}
work=${WORK:-/tmp/pruning}
mkdir -p "$work" "${OUT:-$work}"
log=${OUT:-$work}/pruning.log
common=(--graph tests/data/usa-roads.gr.gz --algorithm crauser --strategy bayes --trials 40 --sampler-seed 0
        --repetitions 3 --quiet --storage "$work/$which.journal" --resume)
case $which in
  pruned) extra=(--max-repetitions 6) ;;  # pruning on (the default), repetitions adapt from 3 up to 6
  unpruned) extra=(--no-prune --max-repetitions 3) ;;
  *) echo "pruned or unpruned, not $which" >&2; exit 2 ;;
esac
# Compile both builds of the kernels first (PyCUDA's disk cache), so that neither half pays nvcc.
python3 -m autotune sweep --graph rmat10 --algorithm crauser --strategy exhaustive --block-sizes 256 \
  --caches default,no_l1 --ck 1 --lanes 1 --storage memory --quiet -o "$work/warm.json" >/dev/null 2>&1
t0=$(date +%s.%N)
echo "== $(date -u +%FT%TZ) $which: autotune sweep ${common[*]} ${extra[*]}" | tee -a "$log"
python3 -m autotune sweep "${common[@]}" "${extra[@]}" -o "$work/$which.json" >>"$log" 2>&1
status=$?
echo "   exit $status after $(awk "BEGIN { printf \"%.1f\", $(date +%s.%N) - $t0 }") s (wall time)" | tee -a "$log"
[ "$status" -eq 0 ] && echo "   done: $work/$which.json" | tee -a "$log"
cp -f "$work"/*.json "${OUT:-$work}/" 2>/dev/null || true
