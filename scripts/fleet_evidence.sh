#!/usr/bin/env bash
# Issue 7 evidence on a machine with several GPUs: the same sweep on one GPU and on all of them,
# with their wall times, into $OUT/fleet.log (and the tables and records next to it).
#
#   source .whl/setup.sh && bash scripts/fleet_evidence.sh GRAPH...
#
# Before timing, the graphs are generated into the cache, the kernels compiled (PyCUDA's disk
# cache), the CPU reference distances computed (the reference cache) and the Python modules
# byte-compiled, so that neither run pays for them. Each sweep uses its own fresh journal file (a fleet
# refuses SQLite: docs/multi-gpu.md).
set -uo pipefail
work=${WORK:-/tmp/fleet}
mkdir -p "$work"
log=$OUT/fleet.log
space=(--strategy exhaustive --block-sizes 64,128,256,512,1024 --caches default,prefer_l1,prefer_shared,no_l1
       --ck 1,4,16,64 --lanes 1,4,32 --repetitions 3 --quiet)
graphs=()
for graph in "$@"; do graphs+=(--graph "$graph"); done
now() { date +%s.%N; }
timed() {  # name, then the sweep's arguments
  local name=$1; shift
  echo "== $(date -u +%FT%TZ) $name: autotune sweep $*" | tee -a "$log"
  local t0; t0=$(now)
  python3 -m autotune sweep "$@" >>"$log" 2>&1
  local status=$?
  echo "   exit $status after $(awk "BEGIN { printf \"%.1f\", $(now) - $t0 }") s (wall time)" | tee -a "$log"
}
{
  date -u +%FT%TZ
  nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv,noheader
  grep -m1 'model name' /proc/cpuinfo; nproc
} >>"$log" 2>&1
for graph in "$@"; do python3 -m autotune graph info "$graph" >>"$log" 2>&1; done
# Python's bytecode of everything on PYTHONPATH (autotune, and the packages .whl/setup.sh installs
# with pip's --no-compile), as an installation has it: else every process (the fleet starts three)
# compiles several hundred modules first
IFS=: read -ra python_path <<<"${PYTHONPATH:-}"
python3 -m compileall -q -j 0 "${python_path[@]}" >/dev/null 2>&1
python3 -m autotune sweep --graph rmat10 --strategy exhaustive --block-sizes 256 --caches default,no_l1 --ck 1 \
  --lanes 1 --storage memory --quiet -o "$work/warm.json" >>"$log" 2>&1  # compiles every kernel variant
# the CPU reference distances of every graph's sample, into the disk cache both timed runs read
python3 -m autotune sweep "${graphs[@]}" --strategy model --storage memory --quiet -o "$work/references.json" >>"$log" 2>&1
timed "one GPU" "${graphs[@]}" "${space[@]}" --storage "$work/one.journal" -o "$OUT/one-gpu.json" \
  --records "$OUT/one-gpu.jsonl"
timed "all GPUs" "${graphs[@]}" "${space[@]}" --devices all --storage "$work/all.journal" -o "$OUT/all-gpus.json" \
  --records "$OUT/all-gpus.jsonl"
tail -n 30 "$log"
