"""`autotune predict --algorithm auto [--queries K]`: which algorithm to run (the choice model,
`autotune.predict.choice`) and that algorithm's predicted configuration for K sources at once (its
fitted model where one is shipped for the GPU, else its rules), `--explain` naming the tests of
the choice tree and the rule behind every value."""
from __future__ import annotations

import argparse
import json
from typing import Sequence

from autotune import algorithms
from autotune.errors import InputError
from autotune.graphs import CSRGraph
from autotune.model.device import DeviceProfile
from autotune.model.features import GraphFeatures, classify
from autotune.predict.auto import BATCH, admitted_on, predicted, servable
from autotune.table.format import build_table, device_section, make_entry, write_table

def run_auto(args: argparse.Namespace, device: DeviceProfile, graphs: Sequence[CSRGraph], command: str) -> int:
    from autotune.predict.choice import measured_features, shipped_choice

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
        chosen, path = chooser.predict(features, queries, admitted_on(csr, not args.no_hierarchy))
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


__all__ = ["run_auto"]
