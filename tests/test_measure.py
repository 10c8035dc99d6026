"""Measurement values and source selection (no GPU)."""
from __future__ import annotations

import numpy as np
import pytest

from autotune.graphs import load_graph
from autotune.measure import Measurement, Status, choose_sources, sources_for_repetition
from autotune.space import LaunchConfig


def test_measurement_statistics_and_json_round_trip():
    m = Measurement(LaunchConfig.default(), Status.OK, times_ms=(2.0, 1.0, 4.0),
                    kernel_ms={"relax": 1.5}, iterations=10, edges=4_000_000, launch_share=0.25)
    assert m.ms_per_sssp == 2.0 and m.spread_ms == (1.0, 4.0)
    assert m.gteps == pytest.approx(2.0)  # 4e6 edges in 2 ms
    again = Measurement.from_json(m.to_json())
    assert again == m


def test_failed_measurements_have_no_time():
    m = Measurement(LaunchConfig.default(), Status.WRONG, times_ms=(1.0,), reason="differs")
    assert m.ms_per_sssp is None and m.gteps is None and not m.verified


def test_sources_have_out_edges_and_are_reproducible():
    graph = load_graph("rmat10")
    sources = choose_sources(graph, 16, seed=7)
    assert len(set(sources)) == 16
    assert all(graph.out_degrees[s] > 0 for s in sources)
    assert sources == choose_sources(graph, 16, seed=7)
    assert sources != choose_sources(graph, 16, seed=8)


def test_repetitions_solve_different_sources_while_the_pool_lasts():
    pool = list(range(10))
    assert sources_for_repetition(pool, 4, 0) == [0, 1, 2, 3]
    assert sources_for_repetition(pool, 4, 1) == [4, 5, 6, 7]
    assert sources_for_repetition(pool, 4, 2) == [8, 9, 0, 1]
    assert np.unique(sources_for_repetition(pool, 16, 0)).size == 10
