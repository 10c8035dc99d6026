#!/usr/bin/env bash
# Issue 14's live run: on the GPU, a 12-trial Bayesian sweep of each of the 13 graphs of
# reports/h100/sweeps whose first trial is the fitted model's prediction, the model fitted without
# that graph's records (what a user gets for a graph nobody measured), in the space the exhaustive
# sweeps covered; then the comparison with the committed exhaustive optima (at most 10% of their
# evaluations, within 3%).
#
#   source .whl/setup.sh && WORK=DIR bash scripts/live_first_trial.sh SECONDS [GRAPH...]
#   python3 scripts/compare_strategies.py reports/h100/sweeps --live --candidates DIR --budget 0.10
#
# DIR receives the models, the tables, the records and evidence.log (the command wall times);
# a graph whose table is there already is skipped, so a second call goes on where one stopped.
set -uo pipefail
budget=${1:?seconds}; shift
work=${WORK:-.live}
sweeps=reports/h100/sweeps
mkdir -p "$work"
deadline=$(( $(date +%s) + budget ))
graphs=("$@")
(( ${#graphs[@]} )) || graphs=($(ls "$sweeps" | sed -n 's/\.exhaustive\.json$//p'))
space=(--block-sizes 64,128,256,512,1024 --caches default,prefer_l1,prefer_shared,no_l1
       --ck 1,4,16,64 --lanes 1,4,32)
log="$work/evidence.log"
now() { date +%s.%N; }
for graph in "${graphs[@]}"; do
  [[ -f "$work/$graph.bayes.json" ]] && { echo "done already: $graph" | tee -a "$log"; continue; }
  left=$(( deadline - $(date +%s) ))
  (( left < 30 )) && { echo "skip $graph: out of time" | tee -a "$log"; continue; }
  python3 -c "import sys; sys.path.insert(0, 'scripts'); from pathlib import Path; \
from compare_strategies import fitted_without; \
print(fitted_without('$graph', ['$sweeps'], Path('reports/h100/table.json'), Path('$work')))" >/dev/null || exit 1
  args=(--graph "$graph" --strategy bayes --trials 12 --sampler-seed 0 --model "$work/fitted-without-$graph.toml"
        "${space[@]}" --repetitions 3 --quiet)
  echo "== $(date -u +%FT%TZ) $graph.bayes (${left}s left): autotune sweep ${args[*]}" | tee -a "$log"
  t0=$(now)
  timeout -s INT "$left" python3 -m autotune sweep "${args[@]}" --storage "$work/sweeps.db" \
    -o "$work/$graph.bayes.json" --records "$work/$graph.bayes.jsonl" >>"$log" 2>&1
  echo "   exit $? after $(awk "BEGIN { printf \"%.1f\", $(now) - $t0 }") s (command wall time)" | tee -a "$log"
done
