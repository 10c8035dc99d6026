#!/usr/bin/env bash
# Issue 5 evidence on the GPU machine: per graph, an exhaustive sweep (a stated subset of the space)
# and a Bayesian one (full joint space), each verified, into $WORK.
#
#   source .whl/setup.sh && bash scripts/sweep_evidence.sh SECONDS GRAPH...
#
# Runs the graphs in order until SECONDS have passed; a sweep still running at the deadline is
# stopped with SIGINT (it writes its table marked partial; the next call resumes it with --resume,
# when $WORK holds the earlier sweeps.db). Everything is written to $WORK (default .evidence) and
# packed after every sweep into $OUT/sweeps.tgz, so what was measured comes back even when the
# call is cut short. A graph whose table is complete is skipped.
#
# ALGORITHM=martin sweeps GPU Martín instead of GPU Crauser (files GRAPH.martin.exhaustive.*);
# SPACE="--block-sizes ... --caches ... --ck ... --lanes ..." replaces the exhaustive subset below;
# STRATEGIES="exhaustive" leaves out the Bayesian sweeps.
set -uo pipefail
budget=$1; shift
work=${WORK:-.evidence}
mkdir -p "$work"
deadline=$(( $(date +%s) + budget ))
space=(--block-sizes 64,128,256,512,1024 --caches default,prefer_l1,prefer_shared,no_l1
       --ck 1,4,16,64 --lanes 1,4,32)
[[ -n "${SPACE:-}" ]] && read -r -a space <<<"$SPACE"
algorithm=${ALGORITHM:-crauser}
strategies=${STRATEGIES:-exhaustive bayes}
suffix=""
[[ $algorithm != crauser ]] && suffix=".$algorithm"
common=(--algorithm "$algorithm" --storage "$work/sweeps.db" --repetitions 3 --quiet)
log="$work/evidence.log"
pack() { tar -czf "$OUT/sweeps.tgz" -C "$work" . ; }
now() { date +%s.%N; }
run() {  # name, then the sweep's arguments
  local name=$1; shift
  local left=$(( deadline - $(date +%s) ))
  if (( left < 20 )); then echo "skip $name: out of time" | tee -a "$log"; return; fi
  local resume=()
  [[ -f "$work/$name.json" ]] && grep -q '"x-partial": true' "$work/$name.json" && resume=(--resume)
  [[ -f "$work/$name.json" && ${#resume[@]} -eq 0 ]] && { echo "done already: $name" | tee -a "$log"; return; }
  echo "== $(date -u +%FT%TZ) $name (${left}s left): autotune sweep $* ${common[*]} ${resume[*]}" | tee -a "$log"
  local t0; t0=$(now)
  timeout -s INT "$left" python3 -m autotune sweep "$@" "${common[@]}" "${resume[@]}" \
    -o "$work/$name.json" --records "$work/$name.jsonl" >>"$log" 2>&1
  local status=$?
  echo "   exit $status after $(awk "BEGIN { printf \"%.1f\", $(now) - $t0 }") s (command wall time)" | tee -a "$log"
  pack
}
{
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
  python3 -c 'import platform, optuna, numpy, scipy; print("python", platform.python_version(), "| optuna",
              optuna.__version__, "| numpy", numpy.__version__, "| scipy", scipy.__version__)'
  grep -m1 'model name' /proc/cpuinfo; nproc
} >>"$log" 2>&1
for graph in "$@"; do
  [[ " $strategies " == *" exhaustive "* ]] && run "$graph$suffix.exhaustive" --graph "$graph" --strategy exhaustive "${space[@]}"
  [[ " $strategies " == *" bayes "* ]] && run "$graph$suffix.bayes" --graph "$graph" --strategy bayes --trials 25
done
pack
tail -n 60 "$log"
