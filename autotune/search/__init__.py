"""Search: find the fastest verified launch configuration of a graph on a GPU.

Its packages, each using only those below it (import-linter checks it, `pyproject.toml`):

* `space`: `SearchSpace`, one algorithm's values (block sizes, caches, CK, lanes, its parameters):
  the uniform grid and the joint space; `encoding` shows its dimensions to Optuna, `options`
  parses the command line's texts, `neighbours` the configurations next to one.
* `results`: `ConfigResult`, `GraphInfo`, `GraphResult`, and what a sweep writes: `records` (JSON
  Lines), `entries` (the table's), `t4` (T4 files), `outputs` (all of them, checked before the
  sweep and written together), `summary`, `compare` (a strategy against another).
* `strategies`: `Strategy` and its registry (`Exhaustive`, `Bayes`, `ModelOnly`); `climb`.
* `timers`: `replay.ReplayTimer` (a `Timer` answering from records), `synthetic` (a made-up landscape).
* `run`: one sweep: its `jobs` (from records or the GPU) and their `specials`, `plan`, `sweep`
  (`GraphSweep`, `sweep_graph`), `trials` (the objective, pruning), `storage` (Optuna's), `resume`,
  `transfer`, `baseline`, `interrupts`, `progress`.
* `fleet`: the same procedure over several worker processes sharing a storage.

Example (no GPU; a replay of synthetic records; `specials`: a `Specials` of the graph, as
`run.jobs.replay_jobs` makes them)::

    from autotune.search import *
    records = read_records("tests/data/records/synthetic-rmat12.jsonl")
    space = SearchSpace.from_options("crauser", **recorded_space(records))
    plan = GraphPlan(records[0].graph, space, Bayes(trials=40), specials)
    storage, url = open_storage("memory")
    key = StudyKey(records[0].graph.sha256, "crauser", records[0].device_name, "bayes-tpe", space.digest(), {})
    handle = open_study(storage, url, key, plan.strategy.sampler(space), resume=False)
    sweep_graph(ReplayTimer(records), plan, handle, records[0].device).best.config
"""
from __future__ import annotations

from autotune.search.results.compare import Comparison, compare_tables, verdict
from autotune.search.results.entries import sweep_table, table_entry, write_sweep_table
from autotune.search.results.records import Record, read_records, records_of, write_records
from autotune.search.timers.replay import NOT_RECORDED, ReplayStats, ReplayTimer, recorded_space
from autotune.search.results import ConfigResult, GraphInfo, GraphResult
from autotune.search.space import SearchSpace
from autotune.search.run.specials import Specials
from autotune.search.run.storage import StudyHandle, StudyKey, default_storage_path, open_storage, open_study
from autotune.search.strategies import (
    SAMPLERS,
    STRATEGIES,
    Bayes,
    Exhaustive,
    ModelOnly,
    Strategy,
    composed_candidates,
    make_sampler,
    make_strategy,
)
from autotune.search.run.interrupts import stop_on_sigterm
from autotune.search.run.local import SweepProgress, sweep_graph
from autotune.search.run.sweep import GraphPlan, GraphSweep, SweepSettings
from autotune.search.results.t4 import t4_results, write_t4
from autotune.search.run.trials import Evaluation, Trials

__all__ = [
    "NOT_RECORDED",
    "SAMPLERS",
    "STRATEGIES",
    "Bayes",
    "Comparison",
    "ConfigResult",
    "Evaluation",
    "Exhaustive",
    "GraphInfo",
    "GraphPlan",
    "GraphResult",
    "GraphSweep",
    "ModelOnly",
    "Record",
    "ReplayStats",
    "ReplayTimer",
    "SearchSpace",
    "Specials",
    "Strategy",
    "StudyHandle",
    "StudyKey",
    "SweepProgress",
    "SweepSettings",
    "Trials",
    "compare_tables",
    "composed_candidates",
    "default_storage_path",
    "make_sampler",
    "make_strategy",
    "open_storage",
    "open_study",
    "read_records",
    "recorded_space",
    "records_of",
    "stop_on_sigterm",
    "sweep_graph",
    "sweep_table",
    "t4_results",
    "table_entry",
    "verdict",
    "write_records",
    "write_sweep_table",
    "write_t4",
]
