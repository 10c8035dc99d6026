"""Regenerate the SYNTHETIC records of this directory (no GPU: `autotune.search.timers.synthetic`).

    python3 tests/data/records/generate_synthetic.py

The graph is the real rmat12 (seed 0, weights 1-100); the times are made up by `SyntheticTimer`
(2 % noise) on a device named "Synthetic GPU (hopper-h100 profile, no hardware)". They come from
an exhaustive sweep of block sizes 64-512 (powers of two), every cache state, CK 1 and 4, lanes 1
and 4, plus the model's prediction and the baseline candidates, and the finalists' re-measurements.
"""
from __future__ import annotations

from pathlib import Path

from autotune.graphs import load_graph
from autotune.search import (
    Exhaustive, GraphPlan, SearchSpace, StudyKey, open_storage, open_study, records_of, sweep_graph, write_records,
)
from autotune.search.run import specials as sp
from autotune.search.timers.synthetic import SyntheticLandscape, SyntheticTimer, synthetic_device

HERE = Path(__file__).parent
SPACE = dict(block_sizes="64,128,256,512", caches=None, ck="1,4", lanes="1,4")


def main() -> None:
    graph = load_graph("rmat12", use_cache=False)
    device = synthetic_device()
    profile = sp.profile_from_json(device)
    info = sp.classify_graph(sp.graph_info(graph, seed=0), profile)
    space = SearchSpace.from_options("crauser", **SPACE)
    strategy = Exhaustive()
    storage, url = open_storage("memory")
    key = StudyKey(info.sha256, "crauser", device["name"], strategy.label, space.digest(), {})
    handle = open_study(storage, url, key, strategy.sampler(space), resume=False)
    timer = SyntheticTimer(SyntheticLandscape(edges=graph.n_edges), noise=0.02, seed=12)
    result = sweep_graph(timer, GraphPlan(info, space, strategy, sp.model_specials(info, profile)), handle, device)
    path = write_records(HERE / "synthetic-rmat12.jsonl", records_of(result),
                         header="SYNTHETIC measurements (autotune.search.timers.synthetic.SyntheticTimer, no GPU); "
                                "regenerate with tests/data/records/generate_synthetic.py")
    print(f"wrote {path}: {len(result.log)} records; best {result.best.config}")


if __name__ == "__main__":
    main()
