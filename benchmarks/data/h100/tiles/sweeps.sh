#!/usr/bin/env bash
# One-query latency sweeps of the skewed grid graphs over delta's `tiles` (2, 3, 4, 8): exhaustive
# around each graph's tuned shape in tables/h100.json (after the hubs-adapt-7a08884 merge).
# Usage (GPU machine, repository root): benchmarks/data/h100/tiles/sweeps.sh OUTDIR [NAME ...]
# (the NAMEs only, where given)
set -euo pipefail
out=${1:?OUTDIR}
shift
only=" $* "
common=(--algorithm delta --objective latency --ck 1 --strategy exhaustive --param loop=persistent --quiet
        --param tiles=2,3,4,8 --param warp_threshold=off)
sweep() {  # NAME GRAPH ARGS...
  local name=$1 graph=$2; shift 2
  [[ "$only" == "  " || "$only" == *" $name "* ]] || return 0
  echo "== $name $(date +%T)"
  python3 -m autotune sweep "${common[@]}" --graph "$graph" "$@" \
    --output "$out/sweep-latency-$name.json" --records "$out/sweep-latency-$name.records.jsonl.gz"
}
rmat=(--caches default --param blocks=128 --param defer_work=100,200)
sweep rmat17 rmat17 "${rmat[@]}" --param delta=512 --param block_threshold=256,512,1024 --block-sizes 384,512,768
sweep rmat18 rmat18 "${rmat[@]}" --param delta=2048 --param block_threshold=512,1024 --block-sizes 512,768,992
sweep rmat19 rmat19 "${rmat[@]}" --param delta=inf --param block_threshold=512,1024 --block-sizes 512,768,992
sweep rmat20 rmat20 "${rmat[@]}" --param delta=inf --param block_threshold=512,1024 --block-sizes 512,768
real=(--caches default,prefer_l1 --param blocks=64 --param defer_work=off)
g=benchmarks/graphs
sweep Email-Enron tests/data/Email-Enron.txt.gz "${real[@]}" --param delta=inf --param block_threshold=256,512,1024 --block-sizes 512,672,1024
sweep anybeat $g/anybeat.csr.npz "${real[@]}" --param delta=512 --param block_threshold=128,512 --block-sizes 384,672
sweep ca-HepPh $g/ca-HepPh.csr.npz "${real[@]}" --param delta=2048 --param block_threshold=128,512,1024 --block-sizes 512,704
sweep sx-askubuntu $g/sx-askubuntu.csr.npz "${real[@]}" --param delta=1024 --param block_threshold=256,512 --block-sizes 512,672
sweep web-Stanford $g/web-Stanford.csr.npz "${real[@]}" --param delta=inf --param block_threshold=256,1024 --block-sizes 512,672
sweep ca-CondMat $g/ca-CondMat.csr.npz --caches default,prefer_l1 --param blocks=32,64 --param defer_work=off \
  --param delta=1024 --param block_threshold=512,4096 --block-sizes 512,736
sweep p2p-Gnutella31 $g/p2p-Gnutella31.csr.npz --caches default --param blocks=64 --param defer_work=off \
  --param delta=2048 --param block_threshold=512 --block-sizes 352,512
