"""scripts/bench_delta.py's model grid (no GPU): the Delta-stepping model's own configuration with
every Delta from c = 1/2 to 256 in Delta = c x mean weight / d(G), which the model's fit prices."""
from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from autotune.algorithms import get
from autotune.graphs import load_graph
from autotune.model import load_device
from autotune.model.features import GraphFeatures

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def bench():
    spec = importlib.util.spec_from_file_location("bench_delta", ROOT / "scripts" / "bench_delta.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def roads():
    return load_graph(str(ROOT / "tests" / "data" / "rome99.gr.gz"))


def test_the_grid_spans_the_scale_around_mean_weight_over_degree_and_ends_with_inf(bench, roads):
    deltas = bench.grid_deltas(roads)
    assert deltas[-1] == "inf" and deltas[:-1] == sorted(deltas[:-1])
    unit = 532.3 / roads.mean_degree  # mean weight / d(G): 201
    assert deltas[0] == 128 and deltas[-2] == 65536  # nearest 1/2 x 201 and 256 x 201
    assert all(b == 2 * a for a, b in zip(deltas[:-2], deltas[1:-1]))
    assert bench.grid_deltas(roads, 8, 16) == [2048, 4096]  # cut to a range, without INF
    assert bench.grid_deltas(roads, 8)[0] >= 8 * unit / 2**0.5


def test_every_grid_candidate_is_the_model_s_configuration_with_its_delta(bench, roads):
    h100 = load_device("hopper-h100")
    model = get("delta").predict(GraphFeatures.from_graph(roads), h100).config
    grid = bench.grid_candidates(roads, h100)
    assert [kind for kind, _ in grid] == ["model grid"] * len(grid)
    assert [c.param("delta") for _, c in grid] == list(reversed(bench.grid_deltas(roads)))
    for _, config in grid:
        assert config.replace(delta=model.param("delta")) == model


def test_given_deltas_replace_the_derived_ones(bench, roads):
    given = {c.param("delta") for _, c in bench.candidates(roads, [256, 1024])}
    assert given == {256, 1024}
    assert {c.param("delta") for _, c in bench.candidates(roads)} == set(bench.candidate_deltas(roads))
