"""`autotune predict --algorithm auto [--queries K]`: which algorithm to run (the choice model,
`autotune.predict.choice`) and that algorithm's predicted configuration for K sources at once (its
fitted model where one is shipped for the GPU, else its rules), `--explain` naming the tests of
the choice tree and the rule behind every value."""
from __future__ import annotations

import argparse
import json
from typing import Any, Sequence

from autotune import algorithms
from autotune.errors import InputError
from autotune.graphs import CSRGraph
from autotune.model.device import DeviceProfile
from autotune.model.features import GraphFeatures, classify
from autotune.predict.auto import BATCH, admitted_on
from autotune.table.format import build_table, device_section, make_entry, write_table

def run_auto(args: argparse.Namespace, device: DeviceProfile, graphs: Sequence[CSRGraph], command: str) -> int:
    """Each graph's algorithm and configuration by the choice model: the table's with `--table`
    (the model `Table.lookup` answers a graph it does not hold with, on that table's GPU), else the
    one shipped for the GPU."""
    from autotune.predict.answer import origin_of
    from autotune.predict.choice import shipped_choice

    if args.model not in ("auto", "thesis") or args.characterization:
        raise InputError("--algorithm auto: each algorithm predicts with its own model; give --model auto or thesis, "
                         "and no --characterization")
    chooser = shipped_choice(device)
    if chooser is None:
        raise InputError(f"--algorithm auto: no choice model is fitted for {device.name} (CC {device.compute_capability}, "
                         f"{device.sm_count} SMs); fit one: autotune model fit-choice TABLE -o "
                         "characterizations/choice-NAME.toml, give a tuned --table, or name an --algorithm")
    return write_answers(args, device, graphs, command, chooser, origin_of(chooser))


def run_table(args: argparse.Namespace, graphs: Sequence[CSRGraph], command: str) -> int:
    """Each graph's algorithm and configuration by a tuned table's model on the table's GPU
    (`Table.model`, `Table.model_device`): what `Table.lookup` answers a graph the table does not
    hold with."""
    from autotune.predict.answer import origin_of
    from autotune.table.lookup import Table

    if args.model != "auto" or args.characterization:
        raise InputError("--table predicts with the table's model: give no --model and no --characterization")
    table = Table.load(args.table)
    return write_answers(args, table.model_device, graphs, command, table.model, origin_of(table.model))


def write_answers(args: argparse.Namespace, device: DeviceProfile, graphs: Sequence[CSRGraph], command: str,
                  chooser: Any, origin: str) -> int:
    """Print (and with -o write) each graph's model answer (`predict.answer.model_answer`)."""
    from autotune.predict.answer import from_graph, model_answer

    queries = args.queries if args.queries is not None else BATCH
    lines = [f"Predicted algorithm and launch configuration for {queries} source{'s' if queries != 1 else ''} at once "
             f"on {device.name} (cc {device.compute_capability}, {device.sm_count} SMs): the {origin}"]
    entries = []
    for csr in graphs:
        found = model_answer(chooser, from_graph(csr), device, args.queries, admitted_on(csr, not args.no_hierarchy),
                             args.model)
        graph = GraphFeatures.from_graph(csr)
        rules = {"algorithm": f"{origin}: {found.reason}", **{d.parameter: d.rule for d in found.decisions}}
        entries.append(make_entry(classify(graph, device).to_json(),
                                  predicted={"config": found.config.to_json(), "rules": rules}))
        lines.append(f"{graph.name}: {found.config}")
        if args.explain:
            lines.append(f"  algorithm = {found.algorithm}  [{origin}] {found.reason}")
            lines += [f"  {d.parameter} = {getattr(d.value, 'value', d.value)}  [{d.rule}] {d.reason}"
                      for d in found.decisions]
    table = build_table(device_section(device), entries, algorithms.AUTO, command=command)
    if args.output:
        write_table(args.output, table)
    print(json.dumps(table, indent=2) if args.json else "\n".join(lines + ([f"wrote {args.output}"] if args.output else [])))
    return 0


__all__ = ["run_auto"]
