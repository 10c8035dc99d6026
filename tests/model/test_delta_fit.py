"""Delta-stepping's batch shape by level width, fitted on probe rows (autotune/algorithms/delta/fit.py):
rule 5's ladder of block sizes (`fit_block_widths`) and rule 4's one instance per SM (`fit_wide`)."""
from __future__ import annotations

import pytest

from autotune.algorithms.delta import fit as delta_fit
from autotune.algorithms.delta.rules import ladder_size


def _rows(graph, times):
    return [{"graph": graph, "class": "bins grid", "status": "ok", "ms_per_sssp": ms,
             "config": {"kernels": {"advance": {"block_size": size}}, "params": {}}} for size, ms in times.items()]


def test_the_cuts_fall_between_the_widths_whose_best_sizes_differ():
    rows = {"narrow": _rows("narrow", {128: 1.0, 256: 1.3, 512: 2.0}),
            "middle": _rows("middle", {128: 1.4, 256: 1.0, 512: 1.2}),
            "wide": _rows("wide", {128: 3.0, 256: 2.0, 512: 1.0}),
            "unknown": _rows("unknown", {128: 9.0, 256: 1.0, 512: 9.0})}  # no width: not fitted on
    ladder = delta_fit.fit_block_widths(rows, {"narrow": 100.0, "middle": 400.0, "wide": 1600.0})
    assert ladder == {128: 0.0, 256: 200.0, 512: 800.0}  # the geometric midpoints
    assert [ladder_size(ladder, w) for w in (100.0, 400.0, 1600.0)] == [128, 256, 512]


def test_with_their_classes_named_the_graphs_of_a_crowded_class_weigh_as_one():
    # three roads mildly prefer 512 where one mesh of a width among theirs clearly prefers 256
    rows = {"road-a": _rows("road-a", {256: 1.04, 512: 1.0}), "road-b": _rows("road-b", {256: 1.04, 512: 1.0}),
            "road-c": _rows("road-c", {256: 1.04, 512: 1.0}), "mesh": _rows("mesh", {256: 1.0, 512: 1.06})}
    widths = {"road-a": 450.0, "road-b": 480.0, "road-c": 600.0, "mesh": 500.0}
    by_graph = delta_fit.fit_block_widths(rows, widths)
    by_class = delta_fit.fit_block_widths(rows, widths, class_of=lambda g: g.split("-")[0])
    assert ladder_size(by_graph, 500.0) == 512  # three roads outvote the mesh
    assert ladder_size(by_class, 500.0) == 256 and ladder_size(by_class, 600.0) == 512


def test_a_size_no_graph_wants_is_never_reached_and_the_fit_needs_a_width():
    rows = {"a": _rows("a", {128: 1.2, 256: 1.0, 512: 1.5}), "b": _rows("b", {128: 1.3, 256: 1.0, 512: 1.1})}
    assert delta_fit.fit_block_widths(rows, {"a": 100.0, "b": 900.0}) == {128: 0.0, 256: 0.0}  # 512: never
    with pytest.raises(ValueError, match="level width"):
        delta_fit.fit_block_widths(rows, {})


def _ck_rows(graph, times):
    return [{"graph": graph, "class": "ck grid", "status": "ok", "ms_per_sssp": ms,
             "config": {"concurrent_kernels": ck, "kernels": {"advance": {"block_size": size}}, "params": {}}}
            for (ck, size), ms in times.items()]


def test_one_instance_per_sm_is_taken_from_the_width_where_it_wins():
    ladder = {128: 0.0, 512: 300.0}
    rows = {"road": _ck_rows("road", {(1024, 128): 1.0, (128, 1024): 3.0, (128, 512): 3.5}),
            "web": _ck_rows("web", {(1024, 512): 1.2, (128, 1024): 1.0, (128, 512): 1.3}),
            "social": _ck_rows("social", {(1024, 512): 1.8, (128, 1024): 1.0, (128, 512): 1.1})}
    widths = {"road": 200.0, "web": 800.0, "social": 3200.0}
    assert delta_fit.fit_wide(rows, widths, ladder, 128) == (400.0, 1024)  # between road and web
    narrow_wins = {g: _ck_rows(g, {(1024, 128): 1.0, (1024, 512): 1.0, (128, 1024): 2.0, (128, 512): 2.0}) for g in widths}
    assert delta_fit.fit_wide(narrow_wins, widths, ladder, 128) == (float("inf"), 1024)  # never
