"""What bounds CK: the GPU's memory. The engines' workspaces are what `Algorithm.bytes_per_vertex`
and `bytes_per_instance` say, and the models predict no more instances than fit."""
from __future__ import annotations

import dataclasses

import pytest

from autotune.algorithms import get
from autotune.model.memory import MEMORY_SHARE
from autotune.errors import InputError
from autotune.model import load_device
from autotune.model.features import GraphFeatures

USA = GraphFeatures("USA-road-d.USA", 23_947_347, 58_333_344, max_degree=9, mean_weight=2950.0,
                    min_positive_weight=1, max_weight=300_000)  # DIMACS's full US road network


@pytest.mark.parametrize("name", ["crauser", "martin", "delta"])
def test_the_workspace_an_engine_allocates_is_what_its_algorithm_declares(name):
    from autotune.algorithms.delta.engine import Workspace as DeltaWorkspace, state_fields
    from autotune.algorithms.thesis.engine import Workspace as ThesisWorkspace

    algorithm = get(name)
    n, ck = 1000, 3
    if name == "delta":
        fields = state_fields(algorithm.source_path.read_text())["N_FIELDS"]
        allocated = sum(DeltaWorkspace.sizes(n, ck, fields, hub_capacity=0).values())
    else:
        allocated = sum(ThesisWorkspace.sizes(n, ck).values())
    assert allocated == ck * (algorithm.bytes_per_vertex * n + algorithm.bytes_per_instance)


def test_instances_that_fit_leave_the_graph_and_a_tenth_of_the_memory():
    delta = get("delta")
    memory = 10 * 2**30
    fit = delta.instances_that_fit(1_000_000, 4_000_000, memory)
    graph = 4 * 1_000_001 + 8 * 4_000_000
    per_instance = 28 * 1_000_000 + 128
    assert fit * per_instance + graph <= MEMORY_SHARE * memory < (fit + 1) * per_instance + graph
    assert delta.instances_that_fit(10**9, 10**9, 2**30) == 0


def test_the_delta_rules_bound_ck_by_the_memory_and_say_so():
    h100 = load_device("hopper-h100")
    prediction = get("delta").predict(USA, h100)
    fit = get("delta").instances_that_fit(USA.n_vertices, USA.n_edges, h100.global_memory_bytes)
    assert prediction.config.concurrent_kernels <= fit < 1024
    assert "bounded by memory" in {d.parameter: d.reason for d in prediction.decisions}["concurrent_kernels"]
    unknown = dataclasses.replace(h100, global_memory_bytes=None)  # a profile without the key: no bound
    assert get("delta").predict(USA, unknown).config.concurrent_kernels == 1024


def test_a_small_graph_is_not_bounded():
    roads = GraphFeatures("roads", 87575, 242982, max_degree=6, mean_weight=95.3, min_positive_weight=10,
                          max_weight=2467)
    prediction = get("delta").predict(roads, load_device("hopper-h100"))
    assert prediction.config.concurrent_kernels == 1024
    assert "memory" not in {d.parameter: d.reason for d in prediction.decisions}["concurrent_kernels"]


def test_the_fitted_model_bounds_ck_by_the_memory():
    from autotune.algorithms.thesis.fitted import shipped_fitted

    model = shipped_fitted("crauser")
    graph = {"vertices": 10_000_000, "mean_degree": 2.5, "degree_cv": 0.3}
    v100 = load_device("volta-v100")
    wanted, _ = model.predict(graph, device=v100)  # 16 GiB: what the in-flight rule asks fits
    assert wanted.concurrent_kernels == max(model.choices.concurrent_kernels)
    one_gib = dataclasses.replace(v100, global_memory_bytes=2**30)
    config, decisions = model.predict(graph, device=one_gib)
    fit = get("crauser").instances_that_fit(10_000_000, 25_000_000, 2**30)
    assert config.concurrent_kernels == max(c for c in model.choices.concurrent_kernels if c <= fit)
    assert "bounded by memory" in decisions[0].reason


def test_a_gpu_the_delta_kernels_cannot_run_on_is_a_one_line_error():
    roads = GraphFeatures("roads", 87575, 242982, max_degree=6, mean_weight=95.3)
    with pytest.raises(InputError, match="delta cannot run on fermi-gf100"):
        get("delta").predict(roads, load_device("fermi-gf100"))


def test_a_renumbered_copy_counts_for_the_algorithms_that_relax_one():
    from autotune.graphs.order import renumbered_bytes

    n, m = 1_000_000, 16_000_000
    delta, crauser = get("delta"), get("crauser")
    assert delta.renumbers_hubs and not crauser.renumbers_hubs
    assert delta.memory_bytes(n, m, 4, hub_ordered=True) - delta.memory_bytes(n, m, 4) == renumbered_bytes(n, m)
    assert crauser.memory_bytes(n, m, 4, hub_ordered=True) == crauser.memory_bytes(n, m, 4)
    memory = 2 * 2**30
    fit, fit_renumbered = (delta.instances_that_fit(n, m, memory, hub_ordered=h) for h in (False, True))
    assert fit_renumbered * 28 * n + delta.memory_bytes(n, m, 0, hub_ordered=True) <= MEMORY_SHARE * memory
    assert fit_renumbered < fit


def test_a_sweep_knows_which_graphs_are_renumbered():
    from autotune.graphs import load_graph
    from autotune.search.run.specials import graph_info

    rmat, grid = (graph_info(load_graph(spec, use_cache=False)) for spec in ("rmat16", "grid16"))
    assert rmat.hub_ordered and not grid.hub_ordered
    assert "hub_ordered" not in rmat.to_json()  # a table's format is unchanged
