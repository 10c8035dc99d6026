"""Search: find the fastest verified launch configuration of a graph on a GPU.

A map, in the order a sweep uses them:

* `space`: `SearchSpace`, one algorithm's values (block sizes, caches, CK, lanes, its parameters):
  the uniform grid and the joint space. `encoding` shows its dimensions to Optuna; `options`
  parses the command line's texts.
* `specials`: `Specials` (the default, the baseline candidates, the model's prediction) and the
  graph and device descriptions.
* `strategies`: `Strategy` and its registry: `Exhaustive`, `Bayes`, `ModelOnly`.
* `storage`: Optuna storages (a journal file by default), study names, resuming.
* `trials`: `Trials`, the objective: a trial's configuration, measured, kept in the trial; the
  pruner and what else pruning saves. `baseline`: the thesis's baseline and its probes.
* `sweep`: the one procedure: `GraphSweep` (stages: search, compose, re-measure, done) and
  `sweep_graph` (one process); `interrupts`: SIGTERM as Ctrl-C, Optuna's warnings silenced.
* `fleet`: the same procedure over several worker processes sharing a storage.
* `results`: `ConfigResult`, `GraphInfo`, `GraphResult`.
* `records`, `entries`, `t4`: the outputs: JSON Lines records, the table's entries, T4 files.
* `replay`: `ReplayTimer`, a `Timer` answering from records; `synthetic`: a made-up landscape.
* `compare`, `summary`, `progress`: a strategy against another, the terminal's summary and bars.

Example (no GPU; a replay of synthetic records)::

    >>> from autotune.search import *                                                  # doctest: +SKIP
    >>> records = read_records("tests/data/records/synthetic-rmat12.jsonl")
    >>> space = SearchSpace.from_options("crauser", **recorded_space(records))
    >>> plan = GraphPlan(records[0].graph, space, Bayes(trials=40), Specials(...))
    >>> storage, url = open_storage("memory")
    >>> key = StudyKey(records[0].graph.sha256, "crauser", records[0].device_name, "bayes-tpe", space.digest(), {})
    >>> handle = open_study(storage, url, key, plan.strategy.sampler(space), resume=False)
    >>> sweep_graph(ReplayTimer(records), plan, handle, records[0].device).best.config
"""
from __future__ import annotations

from autotune.search.compare import Comparison, compare_tables, verdict
from autotune.search.entries import sweep_table, table_entry, write_sweep_table
from autotune.search.records import Record, read_records, records_of, write_records
from autotune.search.replay import NOT_RECORDED, ReplayStats, ReplayTimer, recorded_space
from autotune.search.results import ConfigResult, GraphInfo, GraphResult
from autotune.search.space import SearchSpace
from autotune.search.specials import Specials
from autotune.search.storage import StudyHandle, StudyKey, default_storage_path, open_storage, open_study
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
from autotune.search.interrupts import stop_on_sigterm
from autotune.search.sweep import GraphPlan, GraphSweep, SweepProgress, SweepSettings, sweep_graph
from autotune.search.t4 import t4_results, write_t4
from autotune.search.trials import Evaluation, Trials

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
