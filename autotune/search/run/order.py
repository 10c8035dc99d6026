"""The order in which a sweep's studies take their turns (`order_for_auto`), and the guess of which
algorithm wins a graph's batch end that moves its study to the front (`batch_winner_guess`)."""
from __future__ import annotations

from typing import Any, Callable, Collection

from autotune import algorithms
from autotune.search.results import GraphInfo
from autotune.search.run.jobs import Job

Guess = Callable[[GraphInfo, int, Collection[str]], "str | None"]


def order_for_auto(jobs: list[Job], batch_first: Guess | None = None) -> list[Job]:
    """Each graph's studies in the order a sweep tunes them: first both ends of every algorithm's
    curve, by the registry's `auto_rank` (the work-efficient algorithms first, so that their bests
    prune the others' hopeless trials and a budget reaches them first), each rank's latency end (CK 1,
    whose trials cost one query each) before its batch end (whose first whole measurement of a large
    graph can take half a minute); then the curve's middles, bridged between the ends, in the same
    rank order (issue 68: a budget that always tunes both ends).

    `batch_first(graph, CK, algorithms)` names the algorithm expected to win a graph's batch end
    (`batch_winner_guess`): its batch end then goes before the other batch ends, so that their
    trials slower than it are pruned after a warm-up (on rmat23, Δ-stepping's first whole batch of
    512 took 37 s, 3.2 times slower per SSSP than Δ-stepping of 32 lanes, measured after it)."""
    rank = {a.name: (a.auto_rank, i) for i, a in enumerate(algorithms.all_algorithms())}
    graphs: dict[str, int] = {}
    for job in jobs:
        graphs.setdefault(job.graph.key, len(graphs))
    ends = {"latency": 0, "throughput": 1}
    ordered = sorted(jobs, key=lambda j: (graphs[j.graph.key], j.objective == "few", rank[j.algorithm][0],
                                          ends.get(j.objective, 1), rank[j.algorithm][1]))
    if batch_first is None:
        return ordered
    for key in graphs:
        batch = [j for j in ordered if j.graph.key == key and j.objective == "throughput"]
        if len(batch) < 2:
            continue
        guess = batch_first(batch[0].graph, max(max(j.space.concurrent_kernels) for j in batch),
                            {j.algorithm for j in batch})
        first = next((j for j in batch if j.algorithm == guess), None)
        if first is not None and first is not batch[0]:
            ordered.remove(first)
            ordered.insert(ordered.index(batch[0]), first)
    return ordered


def batch_winner_guess(profile: Any) -> Guess | None:
    """The shipped choice model's algorithm for a graph's batch (`predict.choice`, fitted on this
    GPU's kind; None where none is): from the graph's size, mean degree and degree skew."""
    from autotune.predict.choice import graph_features, shipped_choice

    model = shipped_choice(profile) if profile is not None else None
    if model is None:
        return None

    def guess(graph: GraphInfo, queries: int, admitted: Collection[str]) -> str | None:
        if graph.n_vertices < 1:
            return None
        features = graph_features(graph.n_vertices, graph.n_edges / graph.n_vertices, graph.degree_cv)
        return model.predict(features, queries, admitted)[0]

    return guess


__all__ = ["batch_winner_guess", "order_for_auto"]
