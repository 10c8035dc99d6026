"""A graph's features on the lookup's axes, the distance between two graphs, and the nearest
entries' consensus that `Table.nearest` (and the C header) answers an unseen graph with
(`autotune.table.lookup`'s doc says how).

Example::

    >>> graph_distance({"vertices": 1024, "mean_degree": 8}, {"vertices": 2048, "mean_degree": 32})
    2.23606797749979
"""
from __future__ import annotations

import json
import math
from typing import Any, Mapping, Sequence

GRAPH_FEATURES = ("vertices", "mean_degree", "degree_cv")
DEFAULT_WEIGHTS: Mapping[str, float] = {"vertices": 1.0, "mean_degree": 1.0, "degree_cv": 1.0}
DEFAULT_NEIGHBOURS = 2
SAME_DISTANCE = 1e-9  # features this near are one graph's (a float's rounding apart)


def coordinates(graph: Mapping[str, Any]) -> dict[str, float]:
    """A graph's features on the lookup's axes (log2 scales); a missing feature is left out."""
    out = {"vertices": math.log2(max(float(graph["vertices"]), 1.0)),
           "mean_degree": math.log2(max(float(graph["mean_degree"]), 1.0))}
    if graph.get("degree_cv") is not None:
        out["degree_cv"] = math.log2(1.0 + float(graph["degree_cv"]))
    return out


def graph_distance(a: Mapping[str, Any], b: Mapping[str, Any], weights: Mapping[str, float] = DEFAULT_WEIGHTS) -> float:
    """The weighted Euclidean distance of two graphs' features (`coordinates`) over the features
    both have. With only vertices and mean degree: doubling either counts 1."""
    ca, cb = coordinates(a), coordinates(b)
    return math.sqrt(sum(weights.get(k, 0.0) * (ca[k] - cb[k]) ** 2 for k in ca if k in cb))


def is_same_graph(asked: Mapping[str, Any], held: Mapping[str, Any], distance: float) -> bool:
    """Whether an entry's graph (`held`) is the asked one: the same sha256 where both have one,
    else the same features (`distance` within rounding of 0)."""
    if asked.get("sha256") and held.get("sha256"):
        return asked["sha256"] == held["sha256"]
    return distance <= SAME_DISTANCE


def features_of(graph: Any) -> dict[str, Any]:
    """The lookup's features of a `CSRGraph`, a `GraphFeatures` (with the figures it knows), or a
    mapping of them."""
    if isinstance(graph, Mapping):
        return dict(graph)
    if hasattr(graph, "out_degrees"):  # a CSRGraph
        degrees = graph.out_degrees
        mean = float(degrees.mean()) if graph.n_vertices else 0.0
        return {"vertices": graph.n_vertices, "mean_degree": graph.mean_degree,
                "degree_cv": float(degrees.std() / mean) if mean else 0.0, "sha256": graph.sha256}
    figures = {"vertices": graph.n_vertices, "mean_degree": graph.mean_degree,
               "degree_cv": getattr(graph, "degree_cv", None)}
    # a `GraphFeatures`: what else it knows, which the model's rules read (`predict.answer.from_figures`)
    for key in ("name", "sha256", "max_degree", "min_positive_weight", "max_weight", "mean_weight", "lightest_weight",
                "level_width"):
        if getattr(graph, key, None) is not None:
            figures[key] = getattr(graph, key)
    return figures


def consensus_parts(entry: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """The measured parts an entry brings to a consensus: its verified `x-top` and, with them, its
    best (a configuration listed twice counts at its last time, at its first place)."""
    parts = [*entry.get("x-top", ()), *([entry["best"]] if entry.get("x-top") and entry.get("best") else [])]
    return [p for p in parts if p.get("verified", True)]


def consensus(entries: Sequence[Mapping[str, Any]], queries: int | None = None) -> dict[str, Any] | None:
    """The configuration (as JSON) of the entries' `x-top` lists (and their `best`) with the lowest
    mean time over each entry's fastest (see the module's doc); None when an entry has no listed
    configuration with at most `queries` concurrent SSSPs."""
    lists = []
    for entry in entries:
        listed = {json.dumps(p["config"], sort_keys=True): float(p["ms_per_sssp"]) for p in consensus_parts(entry)
                  if queries is None or p["config"]["concurrent_kernels"] <= queries}
        if not listed:
            return None
        lists.append(listed)
    order = list(dict.fromkeys(key for listed in lists for key in sorted(listed, key=listed.get)))

    def score(key: str) -> float:
        return sum(listed.get(key, max(listed.values())) / min(listed.values()) for listed in lists) / len(lists)

    return json.loads(min(order, key=lambda key: (score(key), order.index(key))))


__all__ = ["DEFAULT_NEIGHBOURS", "DEFAULT_WEIGHTS", "GRAPH_FEATURES", "SAME_DISTANCE", "consensus", "consensus_parts",
           "coordinates", "features_of", "graph_distance", "is_same_graph"]
