#!/usr/bin/env bash
# Issue 5 evidence on the GPU machine: exhaustive (a stated subset) and bayes sweeps per graph.
#
#   source .whl/setup.sh && bash scripts/sweep_evidence.sh SECONDS GRAPH...
#
# Runs the graphs in order until SECONDS have passed; each sweep is stopped with SIGINT at the
# deadline (it then writes its table marked partial, and `--resume` continues it). Everything is
# written to $WORK (default /tmp/evidence) and packed after every sweep into $OUT/sweeps.tgz, so
# what was measured comes back even when the call is cut short. Put an earlier sweeps.db in
# $WORK first to resume.
set -uo pipefail
budget=$1; shift
work=${WORK:-/tmp/evidence}
mkdir -p "$work"
deadline=$(( $(date +%s) + budget ))
space=(--block-sizes 64,128,256,512,1024 --caches default,prefer_l1,prefer_shared,no_l1
       --ck 1,4,16,64 --lanes 1,4,32)
common=(--storage "$work/sweeps.db" --repetitions 3 --sources 128 --quiet)
log="$work/evidence.log"
pack() { tar -czf "$OUT/sweeps.tgz" -C "$work" . ; }
run() {  # name, then the sweep's arguments
  local name=$1; shift
  local left=$(( deadline - $(date +%s) ))
  if (( left < 20 )); then echo "skip $name: out of time" | tee -a "$log"; return; fi
  local resume=()
  [[ -f "$work/$name.json" ]] && grep -q '"partial": true' "$work/$name.json" && resume=(--resume)
  [[ -f "$work/$name.json" && ${#resume[@]} -eq 0 ]] && { echo "done already: $name" | tee -a "$log"; return; }
  echo "== $(date -u +%FT%TZ) $name (${left}s left): autotune sweep $* ${resume[*]}" | tee -a "$log"
  local t0=$(date +%s)
  timeout -s INT "$left" python3 -m autotune sweep "$@" "${common[@]}" "${resume[@]}" \
    -o "$work/$name.json" --records "$work/$name.jsonl" >>"$log" 2>&1
  local status=$?
  echo "   exit $status after $(( $(date +%s) - t0 )) s" | tee -a "$log"
  pack
}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader >>"$log"
for graph in "$@"; do
  run "$graph.exhaustive" --graph "$graph" --strategy exhaustive "${space[@]}"
  run "$graph.bayes" --graph "$graph" --strategy bayes --trials 25
done
pack
tail -n 40 "$log"
