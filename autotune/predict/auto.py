"""What `predict --algorithm auto`, `Table.lookup` and the benchmark suites ask the model: which
algorithm can serve K sources on a graph (`servable`, `admitted_on`), and one algorithm's
predicted configuration for it (`predicted`: its fitted model where one is shipped for the GPU,
else its rules, with the one-query and latency rules where it has them)."""
from __future__ import annotations

import functools
from typing import Any, Callable

from autotune import algorithms
from autotune.graphs import CSRGraph
from autotune.model.device import DeviceProfile
from autotune.model.features import GraphFeatures
from autotune.model.queries import capped, queries_ck, rules_for_queries, spread

BATCH = 1024  # K when --queries is not given: the batch end of the queries curve


def servable(name: str, queries: int, max_degree: int | None = None, wide: bool = False) -> str:
    """`name`, or where it cannot solve `queries` sources at once (delta_lanes under 32), cannot
    run on a graph of `max_degree` (PHAST on hubs: `Algorithm.unsuited`) or, for a graph whose
    distances need 64 bits (`wide`), has no such builds, the first algorithm of `auto`'s order that can."""
    def serves(entry: algorithms.Algorithm) -> bool:
        return any(ck <= queries for ck in entry.concurrent_kernels) and \
            (max_degree is None or entry.unsuited(max_degree) is None) and (not wide or entry.wide_distances)

    if serves(algorithms.get(name)):
        return name
    ranked = sorted(algorithms.resolve(algorithms.AUTO), key=lambda a: a.auto_rank)
    return next(a.name for a in ranked if serves(a))


def admitted_on(graph: CSRGraph, prepare: bool = False) -> frozenset[str]:
    """The conditional algorithms (`Algorithm.conditional`) that admit `graph` now (PHAST where its
    hierarchy is kept; with `prepare`, built first where the graph qualifies)."""
    return frozenset(a.name for a in algorithms.all_algorithms() if a.conditional and a.admits(graph, prepare) is None)


def fitted_prediction(model: Any, graph: GraphFeatures, device: DeviceProfile, queries: int | None
                      ) -> tuple[Any, list[Any]]:
    """A fitted model's configuration and decisions for a graph (for K sources when given)."""
    config, decisions = model.predict({"vertices": graph.n_vertices, "mean_degree": graph.mean_degree,
                                       "degree_cv": graph.degree_cv}, device=device)
    if queries is not None:
        config, decisions = capped(config, decisions, queries_ck(algorithms.get(model.algorithm), queries), queries)
    return config, list(decisions)


def model_for(name: str, device: DeviceProfile, model_option: str, latency: Any = None,
              characterization: Any = None) -> tuple[Any, Any]:
    """What predicts an algorithm's configuration on `device`: (the fitted model `model_option`
    resolves to, or None; the characterization its rules read: `characterization` or the shipped one,
    with the constants the choice model's `latency` rules fitted on their GPU where they are fitted
    rules, `Algorithm.with_gpu_constants`). `predicted` and the C header's export
    (`table.export_model`) both ask it."""
    from autotune.algorithms.thesis.fitted import resolve_model

    entry = algorithms.get(name)
    characterization = characterization or entry.characterization
    if latency is not None and model_option != "thesis":  # constants fitted on the GPU (Delta's block ladder)
        characterization = entry.with_gpu_constants(characterization, latency)
    return resolve_model(model_option, name, device), characterization


def predicted(name: str, graph: GraphFeatures, device: DeviceProfile, model_option: str,
              queries: int | None, latency: Any = None,
              level_width: Callable[[], float] | None = None, characterization: Any = None) -> tuple[Any, list[Any]]:
    """One algorithm's configuration and decisions for a graph (for K sources when given): its
    fitted model where `model_option` resolves to one, else its rules (with the constants of
    `characterization` when given, else the shipped ones), given the graph's level width where
    they read it (`level_width`, a callable: the breadth-first searches are made only when needed;
    not with --model thesis); for one query, the algorithm's one-query rules where it has them
    (`Algorithm.predict_one_query`), and Delta-stepping's `latency` rules (fitted ones; neither with
    --model thesis); up to `Algorithm.one_query_shape_up_to` sources, one query's configuration in
    its shape (`model.queries.spread`), with the latency rules' spread rules where fitted
    (`Algorithm.with_spread_rules`); the batch with the constants they fitted on their GPU
    (`Algorithm.with_gpu_constants`: Delta-stepping's block-size ladder)."""
    entry = algorithms.get(name)
    fitted, characterization = model_for(name, device, model_option, latency, characterization)
    if fitted is not None:
        return fitted_prediction(fitted, graph, device, queries)
    fitted_rules = model_option != "thesis"
    level_width = None if level_width is None else functools.cache(level_width)  # searched once, if asked
    if fitted_rules:
        graph = entry.with_level_width(graph, level_width)
    with_latency = latency is not None and level_width is not None and fitted_rules
    # a few sources at once take one query's configuration, latency rules and all, in its shape
    few = with_latency and queries is not None and 1 < queries <= entry.one_query_shape_up_to(characterization)
    prediction = rules_for_queries(entry, graph, device, characterization, 1 if few else queries,
                                   one_query_rules=fitted_rules)
    kernels = [d for kernel in getattr(prediction, "kernels", {}).values() for d in kernel.decisions]
    config, decisions = prediction.config, [*kernels, *prediction.decisions]
    if (few or queries == 1) and with_latency:
        config, decisions = entry.with_latency_rules(config, decisions, graph, level_width, latency)
    if few:
        config, decisions = spread(entry, config, decisions, queries)
        config, decisions = entry.with_spread_rules(config, decisions, graph, latency, queries)
    return config, list(decisions)


__all__ = ["BATCH", "admitted_on", "fitted_prediction", "model_for", "predicted", "servable"]
