#!/bin/bash
# one subprocess per graph and variant, each with a time limit, so that a hang costs only its slot
run() { echo "== $*"; timeout "$1" python3 scripts/proto_delta.py "${@:2}" 2>&1 | grep -v "^init regs\|^advance regs\|^finish regs\|^solve"; echo "rc=${PIPESTATUS[0]}"; }
run 60 rmat14 scripts/proto_configs.json debug
STATIC_TILES=1 run 60 rmat14 scripts/proto_configs.json debug
run 90 rmat17 scripts/proto_configs.json
run 60 tests/data/usa-roads.gr.gz scripts/proto_configs.json
run 150 rmat20 scripts/proto_configs.json
