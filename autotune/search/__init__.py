"""Search: find the fastest verified launch configuration of a graph on a GPU.

* `space`: `SearchSpace` (block sizes, caches, CK, lanes; the uniform grid and the joint space).
* `strategies`: `Exhaustive`, `Bayes` (Optuna TPE / GP / CMA-ES / random), `ModelOnly`.
* `runner`: the objective (timer -> verified ms per SSSP; failures are FAIL trials with a reason).
* `study`: Optuna storage and study naming, resume.
* `sweep`: one graph's sweep (specials, search, interleaved finalists), Ctrl-C / SIGTERM safe.
* `replay`: `ReplayTimer`, a `Timer` answering from recorded measurements.
* `records`: JSON Lines records of every measurement.
* `plan`: prediction and baseline candidates from the model.
* `table`, `t4`: the JSON table (autotune.table/1) and T4 results files.
* `compare`: a cheap strategy's table against the exhaustive one (the issue's evidence target).
* `synthetic`: a synthetic timer with a known optimum (tests, demos).

Example (no GPU; a replay of synthetic records)::

    >>> from autotune.search import *                                         # doctest: +SKIP
    >>> records = read_records("tests/data/records/synthetic-rmat12.jsonl")
    >>> storage, url = open_storage("memory")
    >>> strategy = Bayes(trials=40)
    >>> space = SearchSpace()
    >>> key = StudyKey(records[0].graph.sha256, "crauser", records[0].device_name, strategy.label,
    ...                space.digest(), {})
    >>> handle = open_study(storage, url, key, strategy.sampler(space), resume=False)
    >>> result = sweep_graph(ReplayTimer(records), space, strategy, handle, records[0].graph,
    ...                      "crauser", records[0].device, Specials())
    >>> result.best.config
"""
from __future__ import annotations

from autotune.search.space import SearchSpace
from autotune.search.results import ConfigResult, GraphInfo, GraphResult
from autotune.search.study import StudyHandle, StudyKey, default_storage_path, open_storage, open_study
from autotune.search.runner import Evaluation, Runner
from autotune.search.strategies import (
    SAMPLERS,
    STRATEGIES,
    Bayes,
    Exhaustive,
    ModelOnly,
    PointSampler,
    Strategy,
    composed_candidates,
    make_sampler,
    make_strategy,
)
from autotune.search.sweep import Specials, SweepProgress, SweepSettings, stop_on_sigterm, sweep_graph
from autotune.search.records import Record, read_records, records_of, write_records
from autotune.search.replay import NOT_RECORDED, ReplayStats, ReplayTimer
from autotune.search.t4 import t4_results, write_t4
from autotune.search.table import sweep_table, table_entry, write_sweep_table
from autotune.search.compare import Comparison, compare_tables, verdict

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
    "GraphResult",
    "ModelOnly",
    "PointSampler",
    "Record",
    "ReplayStats",
    "ReplayTimer",
    "Runner",
    "SearchSpace",
    "Specials",
    "Strategy",
    "StudyHandle",
    "StudyKey",
    "SweepProgress",
    "SweepSettings",
    "compare_tables",
    "composed_candidates",
    "default_storage_path",
    "make_sampler",
    "make_strategy",
    "open_storage",
    "open_study",
    "read_records",
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
