"""The queries curve's studies per algorithm: the batch end, the latency end and the middle."""
from __future__ import annotations

from autotune.cli.sweep_jobs import SpaceOptions, end_spaces, jobs_of_algorithm
from autotune.graphs import load_graph
from autotune.search import specials as sp


def _graph():
    return sp.graph_info(load_graph("rmat10"))


def test_the_curve_has_three_ends_and_the_batch_end_bridges_only_what_no_other_searches():
    spaces = end_spaces(SpaceOptions(), "curve", "delta", _graph())
    assert [(end.objective, space.concurrent_kernels) for end, space in spaces] == [
        ("throughput", (1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024)), ("latency", (1,)), ("few", (2, 4, 8, 16))]
    jobs = jobs_of_algorithm(_graph(), "delta", spaces, lambda space: None, lambda: None, "g")
    settings = {job.objective: dict(job.settings) for job in jobs}
    assert settings["throughput"] == {"bridge": True, "searched_elsewhere": (1, 2, 4, 8, 16)}
    assert settings["few"] == {"prune_references": True, "bridge": True}
    assert settings["latency"] == {"prune_references": True, "bridge": False}


def test_an_algorithm_without_small_ck_values_has_the_batch_end_alone():
    spaces = end_spaces(SpaceOptions(), "curve", "delta_lanes", _graph())
    assert [end.objective for end, _ in spaces] == ["throughput"]
    assert [end.objective for end, _ in end_spaces(SpaceOptions(ck="1,32,64"), "curve", "delta", _graph())] == [
        "throughput", "latency"]
