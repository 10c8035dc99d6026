"""The model's answer for a graph no table entry measured: which algorithm (a choice model's tree,
`autotune.predict.choice`) and that algorithm's configuration for K sources at once (its rules,
`predict.auto.predicted`). It is the one path behind `autotune predict --algorithm auto` and
`Table.lookup` of a graph the table does not hold, so the two give the same configuration for the
same graph, model and GPU (issue 67: they answered two ways, nearest entries and the model).

A graph comes loaded (`from_graph`: its depth and level width from sampled breadth-first searches,
as `predict` measures them) or as figures (`from_figures`: vertices, mean degree, and where known
the degree skew, largest degree, weights, hop depth and level width; what is missing the rules
treat as unknown, and the tree reads an unknown depth as 0).

Example::

    >>> from autotune.model.device import load_device
    >>> from autotune.predict.choice import Node, ChoiceModel
    >>> tree = ChoiceModel((Node(2, algorithm="delta"),), {"table": "t.json"})
    >>> graph = from_figures({"vertices": 87575, "mean_degree": 2.77, "degree_cv": 0.3})
    >>> found = model_answer(tree, graph, load_device("hopper-h100"), queries=1)
    >>> found.algorithm, found.config.concurrent_kernels
    ('delta', 1)
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Collection, Mapping

from autotune import algorithms
from autotune.launch import LaunchConfig
from autotune.model.device import DeviceProfile
from autotune.model.features import GraphFeatures
from autotune.predict.auto import BATCH, predicted, servable
from autotune.predict.choice import graph_features


@dataclass(frozen=True)
class UnseenGraph:
    """What the model reads of a graph: its features for the rules, the tree's features (depth
    included), its level width (a callable: searched only where a rule reads it), and whether its
    distances need 64 bits (`distance_range.width_for`; then only algorithms with such builds serve it)."""

    features: GraphFeatures
    tree_features: Mapping[str, float]
    level_width: Callable[[], float] | None = None
    wide: bool = False


@dataclass(frozen=True)
class ModelAnswer:
    """The model's algorithm and configuration, and why.

    Args:
        algorithm: the algorithm that runs (`chosen`, or the next of auto's order that can serve).
        chosen: the tree's pick.
        config: its configuration for the sources asked.
        decisions: the rules behind each value (`autotune.model.decision.Decision`).
        reason: the tree's tests (and why another algorithm serves where `chosen` cannot).
        origin: which model chose ("choice tree fitted on N graphs of TABLE").
    """

    algorithm: str
    chosen: str
    config: LaunchConfig
    decisions: tuple[Any, ...]
    reason: str
    origin: str


def from_graph(graph: Any) -> UnseenGraph:
    """A loaded graph (`CSRGraph`): its features, its depth and its level width measured, and its
    distances' width."""
    from autotune.predict.choice import measured_features
    from autotune.reference.distance_range import width_for

    features, width = measured_features(graph)
    return UnseenGraph(GraphFeatures.from_graph(graph), features, width, width_for(graph).wide)


def from_figures(figures: Mapping[str, Any], name: str = "graph") -> UnseenGraph:
    """A graph known by its figures (a table entry's `graph` section has them): `vertices` and
    `mean_degree`, optionally `degree_cv`, `max_degree`, `min_positive_weight`, `max_weight`,
    `mean_weight`, `lightest_weight`, `hop_depth`, `level_width`."""
    vertices = int(figures["vertices"])
    mean_degree = float(figures["mean_degree"])
    width = figures.get("level_width")
    features = GraphFeatures(
        name=str(figures.get("name", name)), n_vertices=max(vertices, 1), n_edges=round(vertices * mean_degree),
        max_degree=figures.get("max_degree"), degree_cv=figures.get("degree_cv"),
        min_positive_weight=figures.get("min_positive_weight"), max_weight=figures.get("max_weight"),
        mean_weight=figures.get("mean_weight"), lightest_weight=figures.get("lightest_weight"))
    tree = graph_features(vertices, mean_degree, figures.get("degree_cv"), figures.get("hop_depth"))
    return UnseenGraph(features, tree, None if width is None else (lambda: float(width)))


def origin_of(chooser: Any) -> str:
    """Which model chose, in words."""
    return f"choice tree fitted on {chooser.fitted_on.get('graphs')} graphs of {chooser.fitted_on.get('table')}"


def model_answer(chooser: Any, graph: UnseenGraph, device: DeviceProfile, queries: int | None = None,
                 admits: Collection[str] = (), model_option: str = "auto",
                 characterizations: Mapping[str, Any] | None = None) -> ModelAnswer:
    """The algorithm `chooser` (a `ChoiceModel`) picks for `queries` sources at once (None: the
    batch end, `BATCH`) on a graph that admits the conditional algorithms `admits`, and its
    configuration on `device` by that algorithm's model (`model_option`: auto, thesis, fitted or
    a file, as `predict --model`; `characterizations`: by algorithm, constants other than the
    shipped ones, as the class-out check refits them)."""
    k = queries if queries is not None else BATCH
    chosen, path = chooser.predict(graph.tree_features, k, admits)
    features = graph.features
    name = servable(chosen, k, features.max_degree, graph.wide)
    config, decisions = predicted(name, features, device, model_option, queries, chooser.latency, graph.level_width,
                                  (characterizations or {}).get(name))
    reason = " and ".join(path) or "the tree's one leaf"
    if name != chosen:
        entry = algorithms.get(chosen)
        reason += f"; {chosen} " + ((entry.unsuited(features.max_degree) if features.max_degree is not None else None)
                                    or ("holds distances in 32 bits, and the graph's may pass them"
                                        if graph.wide and not entry.wide_distances else None)
                                    or f"solves at least {min(entry.concurrent_kernels)} at once")
    return ModelAnswer(name, chosen, config, tuple(decisions), reason, origin_of(chooser))


__all__ = ["ModelAnswer", "UnseenGraph", "from_figures", "from_graph", "model_answer", "origin_of"]
