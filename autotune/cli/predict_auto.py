"""`autotune predict --algorithm auto [--queries K]`: which algorithm to run (the choice model,
`autotune.model.choice`) and that algorithm's predicted configuration for K sources at once (its
fitted model where one is shipped for the GPU, else its rules), `--explain` naming the tests of
the choice tree and the rule behind every value."""
from __future__ import annotations

import argparse
import functools
import json
from typing import Any, Callable, Sequence

from autotune import algorithms
from autotune.errors import InputError
from autotune.graphs import CSRGraph
from autotune.model.device import DeviceProfile
from autotune.model.delta_latency import LatencyRules
from autotune.model.features import GraphFeatures, classify
from autotune.model.queries import capped, for_queries, queries_ck
from autotune.tables import build_table, device_section, make_entry, write_table

BATCH = 1024  # K when --queries is not given: the batch end of the queries curve


def servable(name: str, queries: int, max_degree: int | None = None) -> str:
    """`name`, or where it cannot solve `queries` sources at once (delta_lanes under 32) or cannot
    run on a graph of `max_degree` (PHAST on hubs: `Algorithm.unsuited`) the first algorithm of
    `auto`'s order that can."""
    def serves(entry: algorithms.Algorithm) -> bool:
        return any(ck <= queries for ck in entry.concurrent_kernels) and \
            (max_degree is None or entry.unsuited(max_degree) is None)

    if serves(algorithms.get(name)):
        return name
    ranked = sorted(algorithms.resolve(algorithms.AUTO), key=lambda a: a.auto_rank)
    return next(a.name for a in ranked if serves(a))


def admitted_on(graph: CSRGraph) -> frozenset[str]:
    """The conditional algorithms (`Algorithm.conditional`) that admit `graph` now (PHAST where its
    hierarchy is kept)."""
    return frozenset(a.name for a in algorithms.all_algorithms() if a.conditional and a.admits(graph) is None)


def fitted_prediction(model: Any, graph: GraphFeatures, device: DeviceProfile, queries: int | None
                      ) -> tuple[Any, list[Any]]:
    """A fitted model's configuration and decisions for a graph (for K sources when given)."""
    config, decisions = model.predict({"vertices": graph.n_vertices, "mean_degree": graph.mean_degree,
                                       "degree_cv": graph.degree_cv}, device=device)
    if queries is not None:
        config, decisions = capped(config, decisions, queries_ck(algorithms.get(model.algorithm), queries), queries)
    return config, list(decisions)


def predicted(name: str, graph: GraphFeatures, device: DeviceProfile, model_option: str,
              queries: int | None, latency: LatencyRules | None = None,
              level_width: Callable[[], float] | None = None, characterization: Any = None) -> tuple[Any, list[Any]]:
    """One algorithm's configuration and decisions for a graph (for K sources when given): its
    fitted model where `model_option` resolves to one, else its rules (with the constants of
    `characterization` when given, else the shipped ones), given the graph's level width where
    they read it (`level_width`, a callable: the breadth-first searches are made only when needed;
    not with --model thesis); for one query, the algorithm's one-query rules where it has them
    (`Algorithm.predict_one_query`), and Delta-stepping's `latency` rules (fitted ones; neither with
    --model thesis)."""
    from autotune.model.fitted import resolve_model

    entry = algorithms.get(name)
    fitted = resolve_model(model_option, name, device)
    if fitted is not None:
        return fitted_prediction(fitted, graph, device, queries)
    fitted_rules = model_option != "thesis"
    level_width = None if level_width is None else functools.cache(level_width)  # searched once, if asked
    if fitted_rules:
        graph = entry.with_level_width(graph, level_width)
    prediction = entry.predict(graph, device, characterization or entry.characterization)
    if queries == 1 and fitted_rules:  # an algorithm with rules of its own for one query
        prediction = entry.predict_one_query(graph, device, characterization or entry.characterization) or prediction
    if queries is not None:
        prediction = for_queries(prediction, entry, queries)
    kernels = [d for kernel in getattr(prediction, "kernels", {}).values() for d in kernel.decisions]
    config, decisions = prediction.config, [*kernels, *prediction.decisions]
    if queries == 1 and name == "delta" and latency is not None and level_width is not None and fitted_rules:
        config, applied = latency.apply(config, decisions, entry, graph, level_width())
        decisions = list(applied)
    return config, decisions


def run_auto(args: argparse.Namespace, device: DeviceProfile, graphs: Sequence[CSRGraph], command: str) -> int:
    from autotune.model.choice import measured_features, shipped_choice

    if args.model not in ("auto", "thesis") or args.characterization:
        raise InputError("--algorithm auto: each algorithm predicts with its own model; give --model auto or thesis, "
                         "and no --characterization")
    chooser = shipped_choice(device)
    if chooser is None:
        raise InputError(f"--algorithm auto: no choice model is fitted for {device.name} (CC {device.compute_capability}, "
                         f"{device.sm_count} SMs); fit one: autotune model fit-choice TABLE -o "
                         "characterizations/choice-NAME.toml, or name an --algorithm")
    queries = args.queries if args.queries is not None else BATCH
    origin = f"choice tree fitted on {chooser.fitted_on.get('graphs')} graphs of {chooser.fitted_on.get('table')}"
    lines = [f"Predicted algorithm and launch configuration for {queries} source{'s' if queries != 1 else ''} at once "
             f"on {device.name} (cc {device.compute_capability}, {device.sm_count} SMs): the {origin}"]
    entries = []
    for csr in graphs:
        graph = GraphFeatures.from_graph(csr)
        features, width = measured_features(csr)  # the depth the tree reads, the level width the rules read
        chosen, path = chooser.predict(features, queries, admitted_on(csr))
        name = servable(chosen, queries, graph.max_degree)
        config, decisions = predicted(name, graph, device, args.model, args.queries, chooser.latency, width)
        reason = " and ".join(path) or "the tree's one leaf"
        if name != chosen:
            reason += f"; {chosen} " + (algorithms.get(chosen).unsuited(graph.max_degree) or
                                        f"solves at least {min(algorithms.get(chosen).concurrent_kernels)} at once")
        rules = {"algorithm": f"{origin}: {reason}", **{d.parameter: d.rule for d in decisions}}
        entries.append(make_entry(classify(graph, device).to_json(), predicted={"config": config.to_json(), "rules": rules}))
        lines.append(f"{graph.name}: {config}")
        if args.explain:
            lines.append(f"  algorithm = {name}  [{origin}] {reason}")
            lines += [f"  {d.parameter} = {getattr(d.value, 'value', d.value)}  [{d.rule}] {d.reason}" for d in decisions]
    table = build_table(device_section(device), entries, algorithms.AUTO, command=command)
    if args.output:
        write_table(args.output, table)
    print(json.dumps(table, indent=2) if args.json else "\n".join(lines + ([f"wrote {args.output}"] if args.output else [])))
    return 0


__all__ = ["admitted_on", "fitted_prediction", "predicted", "run_auto", "servable"]
