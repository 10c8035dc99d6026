"""The order in which a sweep's studies take their turns (`order_for_auto`), and the guess of which
algorithm wins a graph's batch end that moves its study to the front (`batch_winner_guess`)."""
from __future__ import annotations

from typing import Any, Callable, Collection, Iterator, Sequence

from autotune import algorithms
from autotune.search.results import GraphInfo
from autotune.search.run.jobs import Job

Guess = Callable[[GraphInfo, int, Collection[str]], "str | None"]


def order_for_auto(jobs: list[Job], batch_first: Guess | None = None) -> list[Job]:
    """The studies in the order a sweep tunes them: first both ends of every algorithm's curve, graph
    by graph, by the registry's `auto_rank` (the work-efficient algorithms first, so that their bests
    prune the others' hopeless trials and a budget reaches them first), each rank's latency end (CK 1,
    whose trials cost one query each) before its batch end (whose first whole measurement of a large
    graph can take half a minute); then every graph's curve middles, bridged between the ends, in the
    same order (issue 68: a budget that always tunes both ends; the sweep resumes the ends cut short
    before any middle).

    `batch_first(graph, CK, algorithms)` names the algorithm expected to win a graph's batch end
    (`batch_winner_guess`): its batch end then goes before the other batch ends, so that their
    trials slower than it are pruned after a warm-up (on rmat23, Δ-stepping's first whole batch of
    512 took 37 s, 3.2 times slower per SSSP than Δ-stepping of 32 lanes, measured after it)."""
    rank = {a.name: (a.auto_rank, i) for i, a in enumerate(algorithms.all_algorithms())}
    graphs: dict[str, int] = {}
    for job in jobs:
        graphs.setdefault(job.graph.key, len(graphs))
    ends = {"latency": 0, "throughput": 1}
    ordered = sorted(jobs, key=lambda j: (j.objective == "few", graphs[j.graph.key], rank[j.algorithm][0],
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


def first_turns(objectives: Sequence[str], weights: Sequence[float], opened: Callable[[int], None],
                cut_short: Callable[[int], bool], reopened: Callable[[int], bool],
                run_over: Callable[[], bool], ready: Callable[[int], bool] = lambda index: True,
                admitted: Callable[[int], bool] = lambda index: True) -> Iterator[tuple[int, float]]:
    """The studies' turns before their curves (each its index in `order_for_auto`'s order and the
    weights of the turns left, its own included, to share the time left by): every curve end's
    first turn (`opened` just before), then, with the time they left unused, the ends whose share
    cut their search short (`cut_short`; `reopened` sends one back, False if it cannot go on),
    the middles' shares still to come counted against theirs; then the middles the same way. On
    rmat23 (4c6e6e7) the middles took 48 s while delta_lanes' batch end, stopped after one trial by
    its share, had no time left to go on.

    A study whose preparation is under way (not `ready`: PHAST's hierarchy, built beside the sweep,
    `preparing`) lets the next ones go first and takes its turn once it is ready, or after the
    others' turns and those cut short, waiting for it then; one that its preparation leaves out
    (not `admitted`, which waits) takes none, its share going to the turns after it."""
    middles = next((i for i, objective in enumerate(objectives) if objective == "few"), len(objectives))
    for group in (range(middles), range(middles, len(objectives))):
        later = sum(weights[group.stop:])
        waiting, taken = list(group), []
        while (index := next((i for i in waiting if ready(i)), None)) is not None:
            waiting.remove(index)
            if admitted(index):
                taken.append(index)
                opened(index)
                yield index, weights[index] + sum(weights[i] for i in waiting) + later
        preparing = sum(weights[i] for i in waiting)
        again = [i for i in taken if cut_short(i)]
        for turn, index in enumerate(again):
            if not run_over() and reopened(index):
                yield index, sum(weights[i] for i in again[turn:]) + preparing + later
        for turn, index in enumerate(waiting):
            if admitted(index):
                opened(index)
                yield index, sum(weights[i] for i in waiting[turn:]) + later


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


__all__ = ["batch_winner_guess", "first_turns", "order_for_auto"]
