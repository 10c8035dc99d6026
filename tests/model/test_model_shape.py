"""A graph's shape (`autotune.model.shape`): the sampled depth is the deepest breadth-first level
each source reaches, the reach the share of the graph it reaches, weights and degrees as
numbers say; `graph info` prints them."""
from __future__ import annotations

import json

import numpy as np
import pytest

from autotune.cli import main
from autotune.graphs import build_csr, load_graph
from autotune.model.shape import graph_shape, hop_levels


def path(n: int, weight: int = 3):
    return build_csr("path", n, np.arange(n - 1), np.arange(1, n), np.full(n - 1, weight))


def test_the_depth_of_a_path_is_how_far_its_sources_are_from_its_end():
    shape = graph_shape(path(101), samples=100)
    assert shape.sources and all(0 <= s < 100 for s in shape.sources)  # vertex 100 has no out-edges
    farthest = sorted(100 - s for s in shape.sources)
    assert shape.hop_depth == int(np.median(farthest))
    assert shape.reach == pytest.approx(np.mean([(101 - s) / 101 for s in shape.sources]))
    reached = [101 - s for s in shape.sources]  # searched until two or more have reached the graph's size
    assert len(reached) == 2 or sum(reached[:-1]) < 101 <= sum(reached)
    assert shape.level_width == pytest.approx(max(r / (100 - s + 1) for r, s in zip(reached, shape.sources)))


def test_two_components_halve_the_reach_and_levels_ignore_the_weights():
    tails, heads = np.array([0, 1, 2, 3, 4, 5]), np.array([1, 2, 0, 4, 5, 3])  # two directed triangles
    graph = build_csr("two", 6, tails, heads, np.array([1, 100, 1, 0, 0, 7]))
    shape = graph_shape(graph, samples=6)
    assert shape.hop_depth == 2 and shape.reach == pytest.approx(0.5)
    assert shape.zero_weights == pytest.approx(2 / 6)
    assert hop_levels(graph, [0, 3]).tolist() == [[0, 1, 2, -1, -1, -1], [-1, -1, -1, 0, 1, 2]]


def test_a_star_is_skewed_and_shallow():
    n = 50
    star = build_csr("star", n, np.zeros(n - 1, int), np.arange(1, n), np.ones(n - 1, int))
    shape = graph_shape(star)
    assert shape.degree_ratio == pytest.approx(n) and shape.degree_cv > 5
    assert shape.hop_depth == 1 and shape.weight_cv == 0.0 and shape.zero_weights == 0.0


def test_a_graph_without_arcs_has_no_depth_to_sample_from_but_itself():
    single = build_csr("one", 1, np.array([], int), np.array([], int), np.array([], int))
    shape = graph_shape(single)
    assert shape.weight_cv is None and shape.zero_weights is None and shape.degree_ratio is None
    assert shape.hop_depth == 0 and shape.reach == 1.0


def test_road_networks_are_deep_and_power_law_graphs_shallow(data_dir):
    roads = graph_shape(load_graph(str(data_dir / "usa-roads.gr.gz")))
    rmat = graph_shape(load_graph("rmat12"))
    assert roads.hop_depth > 100 > 20 > rmat.hop_depth
    assert rmat.degree_cv > 3 * roads.degree_cv


def test_graph_info_prints_the_shape(capsys, data_dir):
    assert main(["graph", "info", str(data_dir / "rome99.gr.gz"), "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert set(info["shape"]) == {"degree_cv", "degree_ratio", "weight_cv", "zero_weights", "hop_depth", "reach",
                                  "level_width", "sources", "lightest_weight"}
    assert info["shape"]["reach"] == 1.0 and info["shape"]["hop_depth"] > 10
    assert main(["graph", "info", str(data_dir / "rome99.gr.gz")]) == 0
    text = capsys.readouterr().out
    assert "degree skew" in text and "weights" in text and f"{info['shape']['hop_depth']} levels" in text
