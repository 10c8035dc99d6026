"""Measurement values and source selection (no GPU)."""
from __future__ import annotations

import numpy as np
import pytest

from autotune.graphs import load_graph
from autotune.measure import Measurement, Protocol, Status, batches, choose_sources
from autotune.algorithms.thesis import CRAUSER


def test_measurement_statistics_and_json_round_trip():
    m = Measurement(CRAUSER.default_config(), Status.OK, times_ms=(2.0, 1.0, 4.0),
                    kernel_ms={"relax": 1.5}, iterations=10, edges=4_000_000, launch_share=0.25)
    assert m.ms_per_sssp == 2.0 and m.spread_ms == (1.0, 4.0)
    assert m.gteps == pytest.approx(2.0)  # 4e6 edges in 2 ms
    again = Measurement.from_json(m.to_json())
    assert again == m


def test_failed_measurements_have_no_time():
    m = Measurement(CRAUSER.default_config(), Status.WRONG, times_ms=(1.0,), reason="differs")
    assert m.ms_per_sssp is None and m.gteps is None and not m.verified


def test_sources_have_out_edges_and_are_reproducible():
    graph = load_graph("rmat10")
    sources = choose_sources(graph, 16, seed=7)
    assert len(set(sources)) == 16
    assert all(graph.out_degrees[s] > 0 for s in sources)
    assert sources == choose_sources(graph, 16, seed=7)
    assert sources != choose_sources(graph, 16, seed=8)


def test_every_ck_solves_the_whole_sample_in_a_repetition():
    sample = list(range(10))
    assert batches(sample, 4) == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 0, 1]]
    assert batches(sample, 1) == [[v] for v in sample]
    (batch,) = batches(sample, 16)
    assert np.unique(batch).size == 10 and len(batch) == 16
    for ck in (1, 2, 3, 4, 16, 64):  # the same work, whatever CK: every source at least once
        assert {v for b in batches(sample, ck) for v in b} == set(sample)


def test_repetitions_stop_once_they_agree_within_the_noise_and_never_past_the_cap():
    protocol = Protocol(sample=8, min_repetitions=2, max_repetitions=5, noise=0.05)
    assert not protocol.settled([1.0])
    assert protocol.settled([1.0, 1.02])
    assert not protocol.settled([1.0, 1.3])
    assert protocol.settled([1.0, 1.3, 1.0, 1.3, 1.0])
    assert Protocol(min_repetitions=4, max_repetitions=2).max_repetitions == 4


def test_a_pruned_measurement_is_no_winner():
    m = Measurement(CRAUSER.default_config(), Status.PRUNED, times_ms=(9.0,), reason="pruned after the warm-up")
    assert m.ms_per_sssp is None and not m.ok and Measurement.from_json(m.to_json()) == m
