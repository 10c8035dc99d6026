"""Fixtures of the search tests: a small space, a synthetic GPU and graph, and a sweep runner."""
from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

import pytest

from autotune.algorithms.thesis import CRAUSER
from autotune.search import (
    GraphPlan,
    GraphResult,
    SearchSpace,
    Specials,
    StudyKey,
    SweepSettings,
    open_storage,
    open_study,
    sweep_graph,
)
from autotune.search import specials as sp
from autotune.search.synthetic import synthetic_device, synthetic_graph

RECORDS_DIR = Path(__file__).parent.parent / "data" / "records"
SYNTHETIC_RECORDS = RECORDS_DIR / "synthetic-rmat12.jsonl"

# The landscape's optimum inside this space: CK 4, relax 128 prefer_l1 L4, minimum 256 default,
# update 64 no_l1 (see SyntheticLandscape).
SMALL_SPACE = dict(block_sizes="64,128,256", caches="default,prefer_l1,no_l1", ck="1,2,4", lanes="1,4")


@pytest.fixture
def small_space() -> SearchSpace:
    return SearchSpace.from_options("crauser", **SMALL_SPACE)


@pytest.fixture(scope="session")
def device() -> dict[str, Any]:
    return synthetic_device()


@pytest.fixture
def graph(device):
    """A made-up graph, classified on the synthetic GPU (so tables validate)."""
    return sp.classify_graph(synthetic_graph(), sp.profile_from_json(device))


def default_specials() -> Specials:
    return Specials(
        CRAUSER.default_config(),
        baseline_candidates=(CRAUSER.uniform(64), CRAUSER.uniform(128), CRAUSER.uniform(256)),
        prediction=CRAUSER.uniform(128, "prefer_l1", 1, 4).replace(update=CRAUSER.uniform(64, "no_l1").update),
    )


@pytest.fixture
def run_sweep(device, graph) -> Callable[..., tuple[GraphResult, Any]]:
    """run_sweep(timer, space, strategy, storage="memory", resume=False, specials=None, settings=None,
    siblings=None, budget=None) -> (result, handle)."""

    def run(timer, space, strategy, storage: str = "memory", resume: bool = False,
            specials: Specials | None = None, settings: SweepSettings | None = None, storage_obj=None, siblings=None,
            budget=None):
        if storage_obj is None:
            storage_obj, url = open_storage(storage)
        else:
            url = storage
        key = StudyKey(graph.sha256, "crauser", device["name"], strategy.label, space.digest(), {"repetitions": 3})
        handle = open_study(storage_obj, url, key, strategy.sampler(space), resume=resume)
        plan = GraphPlan(graph, space, strategy, specials or default_specials(), settings or SweepSettings())
        return sweep_graph(timer, plan, handle, device, siblings=siblings, budget=budget), handle

    return run
