"""`autotune predict --graph SPEC [--graph SPEC ...] --device NAME|FILE|auto [--characterization
FILE] [--queries K] [-o TABLE.json] [--explain] [--json]`: the model's launch configurations,
without a GPU (for K sources at once: `autotune.model.queries`).

Prints a table (and, with `--explain`, per kernel the classes, the occupancy table and the rule
that chose each value) and writes the JSON table of docs/tables.md with `-o`.
"""
from __future__ import annotations

import argparse
import json
import shlex
import sys
from typing import Any, Sequence

from autotune import algorithms
from autotune.errors import InputError
from autotune.files import check_outputs, check_replaceable, is_json_with
from autotune.cli.options import add_graph_options, graph_options, graph_specs, load_graphs
from autotune.launch import DEFAULT_ALGORITHM
from autotune.model.characterization import Characterization, load_characterization
from autotune.gpu.device import load_profile as load_device
from autotune.model.device import DeviceProfile
from autotune.model.features import GraphFeatures
from autotune.model.queries import queries_ck, rules_for_queries
from autotune.model.occupancy import UNLIMITED
from autotune.table.format import build_table, device_section, make_entry, write_table


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "predict",
        help="the model's launch configuration for a GPU (no GPU needed)",
        description="Predict the launch configuration (block size and L1 state per kernel, lanes "
        "per vertex for relax, concurrent kernels) from the kernel-characterization model of "
        "thesis chapter 4: the kernels' classes, the graph's stressing ratio and mean degree, and "
        "the occupancy calculated from the device profile. Runs on any machine.",
    )
    add_graph_options(parser, multiple=True)
    parser.add_argument(
        "--device", "-d", default=None, metavar="NAME|FILE|auto",
        help="a shipped profile (autotune devices), a TOML profile of your own, or auto (the live GPU, PyCUDA); "
        "required but with --table",
    )
    parser.add_argument("--table", metavar="TABLE.json", default=None,
                        help="with --algorithm auto: the model of this tuned table on its GPU, which is what "
                        "Table.lookup (and sssp --table) answers a graph the table does not hold with")
    parser.add_argument(
        "--characterization", metavar="FILE", default=None,
        help="kernel characterization TOML (default: the algorithm's shipped one in characterizations/)",
    )
    parser.add_argument("--no-hierarchy", action="store_true",
                        help="with --algorithm auto: build no contraction hierarchy for PHAST (by default one is built "
                        "and kept where the graph qualifies, so that PHAST can be chosen)")
    parser.add_argument("--algorithm", choices=(*algorithms.names(), algorithms.AUTO), default=DEFAULT_ALGORITHM,
                        help="the algorithm whose model predicts (default crauser), or auto: the choice model picks "
                        "one per graph (autotune model fit-choice), whose model then predicts")
    parser.add_argument("--model", metavar="thesis|fitted|auto|FILE", default="auto",
                        help="whose rules: the thesis's (chapter 4), the shipped fitted model "
                        "(characterizations/fitted-*.toml, fitted on sweep records: autotune model fit), a fitted "
                        "model's file, or auto (default): fitted for compute capability 7.0 and later where the "
                        "algorithm has one, else the thesis's")
    parser.add_argument("--queries", type=int, metavar="K", default=None,
                        help="the configuration for K sources solved at once: CK at most K (default: the model's "
                        "batch, as many at once as pay)")
    parser.add_argument("--output", "-o", metavar="TABLE.json", default=None, help="write the JSON table here")
    parser.add_argument("--explain", action="store_true", help="show the classes, occupancy and rule behind every value")
    parser.add_argument("--json", action="store_true", help="print the JSON table instead of the text table")
    parser.set_defaults(run=run)


def load_features(args: argparse.Namespace, entry: Any = None, graphs: Sequence[Any] | None = None
                  ) -> list[GraphFeatures]:
    """The features of every graph the arguments name (`graphs` where already loaded, else loaded
    through the graph cache), with their level width where `entry`'s rules read it
    (`Algorithm.with_level_width`; not with --model thesis)."""
    from autotune.model.shape import level_width

    return [GraphFeatures.from_graph(graph) if entry is None or args.model == "thesis"
            else entry.with_level_width(GraphFeatures.from_graph(graph), lambda g=graph: level_width(g))
            for graph in (load_graphs(args) if graphs is None else graphs)]


def prediction_table(
    predictions: Sequence[Any],
    device: DeviceProfile,
    characterization: Characterization,
    algorithm: str,
    command: str | None = None,
    seed: int | None = None,
) -> dict[str, Any]:
    """The JSON table of a list of predictions (schema autotune.table/1)."""
    entries = []
    for prediction in predictions:
        graph = prediction.graph.to_json()
        if seed is not None:
            graph["seed"] = seed
        entries.append(make_entry(graph, predicted=prediction.to_json()))
    about = {"source": characterization.source, "arch": characterization.resources_arch}
    if characterization.path is not None:
        about["path"] = str(characterization.path)
    return build_table(device_section(device), entries, algorithm, command=command, characterization=about)


def command_line(args: argparse.Namespace) -> str:
    """The command, rebuilt from the parsed arguments (for the table's record)."""
    words = ["autotune", "predict"]
    for spec in graph_specs(args):
        words += ["--graph", spec]
    words += ["--table", args.table] if args.table is not None else ["--device", args.device]
    for option, value in (("--seed", args.seed), ("--weights", args.weights), ("--characterization", args.characterization)):
        if value is not None:
            words += [option, str(value)]
    if args.algorithm != DEFAULT_ALGORITHM:
        words += ["--algorithm", args.algorithm]
    if args.model != "auto":
        words += ["--model", args.model]
    if args.queries is not None:
        words += ["--queries", str(args.queries)]
    return shlex.join(words)


def run(args: argparse.Namespace) -> int:
    if args.output:
        check_outputs({"--output": args.output}, [*(("--graph", spec) for spec in graph_specs(args)),
                                                  ("--device", args.device), ("--table", args.table),
                                                  ("--model", args.model),
                                                  ("--characterization", args.characterization)])
        check_replaceable(args.output, lambda path: is_json_with(path, "schema", "autotune.table/"), "an autotune table")
    if args.table is not None:
        if args.algorithm != algorithms.AUTO or args.device is not None:
            raise InputError("--table predicts with the table's model on the table's GPU: give --algorithm auto, "
                             "and no --device")
    elif args.device is None:
        raise InputError("predict: give --device (a profile, a file, or auto), or --table with --algorithm auto")
    if args.algorithm == algorithms.AUTO:
        from autotune.cli.predict_auto import run_auto, run_table

        if args.queries is not None and args.queries < 1:
            raise InputError(f"--queries: expected a number of sources of at least 1, found {args.queries}")
        if args.table is not None:
            return run_table(args, load_graphs(args), command_line(args))
        return run_auto(args, load_device(args.device), load_graphs(args), command_line(args))
    device = load_device(args.device)
    entry = algorithms.get(args.algorithm)
    if args.queries is not None:
        queries_ck(entry, args.queries)  # a count the algorithm cannot serve fails before the graphs load
    characterization = load_characterization(args.characterization) if args.characterization else entry.characterization
    graphs = load_graphs(args)
    for loaded in graphs:  # nor where its kernels cannot hold the graph's distances
        if (why := entry.refuses_width(loaded)) is not None:
            raise InputError(f"--algorithm {entry.name}: {loaded.name}: {why}; predict another algorithm, or auto")
    features = load_features(args, entry, graphs)
    for graph in features:  # a configuration is handed out only where the algorithm can run
        if graph.max_degree is not None and (why := entry.unsuited(graph.max_degree)) is not None:
            raise InputError(f"--algorithm {entry.name}: {graph.name}: {entry.name} {why}; "
                             "predict another algorithm, or auto")
    from autotune.algorithms.thesis.fitted import resolve_model

    # a characterization of one's own is the thesis rules' input: auto then means the thesis's
    fitted = None if args.model == "auto" and args.characterization else resolve_model(args.model, args.algorithm, device)
    if fitted is not None:
        return run_fitted(args, device, features, fitted)
    predictions = [rules_for_queries(entry, graph, device, characterization, args.queries,
                                     one_query_rules=args.model != "thesis") for graph in features]
    command = command_line(args)
    table = prediction_table(
        predictions, device, characterization, args.algorithm, command, seed=graph_options(args).seed
    )
    if args.output:
        write_table(args.output, table)
    if args.json:
        print(json.dumps(table, indent=2))
    else:
        render(predictions, device, explain=args.explain, written=args.output)
    return 0


def run_fitted(args: argparse.Namespace, device: DeviceProfile, features: Sequence[GraphFeatures], model: Any) -> int:
    """The fitted model's configurations (autotune/algorithms/thesis/fitted.py), `--explain` giving the rule and
    constant behind each value."""
    from autotune.predict.auto import fitted_prediction
    from autotune.model.features import classify

    fitted_on = (str(model.device.get("compute_capability")), str(model.device.get("sm_count")))
    if fitted_on != (str(device.compute_capability), str(device.sm_count)):
        print(f"autotune: note: the fitted model was fitted on {model.device.get('name')} (CC {fitted_on[0]}, "
              f"{fitted_on[1]} SMs), not on this GPU (CC {device.compute_capability}, {device.sm_count} SMs)",
              file=sys.stderr)
    entries = []
    lines = [f"Predicted launch configurations on {device.name} (cc {device.compute_capability}, {device.sm_count} SMs), "
             f"fitted model of {model.algorithm} (fitted on {model.device.get('name')}; --model thesis for the "
             "thesis's rules)"]
    for graph in features:
        config, decisions = fitted_prediction(model, graph, device, args.queries)
        rules = {d.parameter: d.rule for d in decisions}
        entries.append(make_entry(classify(graph, device).to_json(), predicted={"config": config.to_json(), "rules": rules}))
        lines.append(f"{graph.name}: {config}  (fitted model)")
        if args.explain:
            lines += [f"  {d.parameter} = {d.value}  [{d.rule}] {d.reason}" for d in decisions]
    table = build_table(device_section(device), entries, args.algorithm, command=command_line(args))
    if args.output:
        write_table(args.output, table)
    print(json.dumps(table, indent=2) if args.json else "\n".join(lines + ([f"wrote {args.output}"] if args.output else [])))
    return 0


def _launches_text(config: Any) -> str:
    parts = [f"{name} {launch.block_size} {launch.cache.value}" + (f" L{launch.lanes}" if launch.lanes != 1 else "")
             for name, launch in config.kernels.items()]
    if config.params:
        parts.append(" ".join(f"{k}={v}" for k, v in config.params.items()))
    return "\n".join(parts)


def render(predictions: Sequence[Any], device: DeviceProfile, explain: bool, written: str | None) -> None:
    """Print the predictions (rich) and, with `explain`, why."""
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table

    console = Console(file=sys.stdout, width=None if sys.stdout.isatty() else 120, highlight=False)
    title = (
        f"Predicted launch configurations on {escape(device.name)} "
        f"(cc {device.compute_capability}, {device.sm_count} SMs x {device.max_threads_per_sm} threads)"
    )
    table = Table(title=title)
    for column in ("graph", "vertices", "d(G)", "st(G, GPU)", "algorithm", "CK", "launches"):
        table.add_column(column, justify="right" if column in ("vertices", "d(G)", "CK") else "left")
    for prediction in predictions:
        graph = prediction.graph
        table.add_row(
            escape(graph.features.name),
            f"{graph.features.n_vertices:,}",
            f"{graph.features.mean_degree:.1f} {graph.degree_class}",
            f"{graph.stress_ratio:.2f} {graph.stress_class}",
            prediction.config.algorithm,
            str(prediction.config.concurrent_kernels),
            escape(_launches_text(prediction.config)),
        )
    console.print(table)
    if explain:
        for prediction in predictions:
            console.print()
            for line in explanation(prediction):
                console.print(escape(line))
    if written:
        console.print(f"wrote {escape(written)}")


def _limit_text(value: int) -> str:
    return "-" if value >= UNLIMITED else str(value)


def explanation(prediction: Any) -> list[str]:
    """The `--explain` text of one prediction, as lines."""
    graph, device = prediction.graph, prediction.device
    features = graph.features
    lines = [
        f"== {features.name} on {device.name} (cc {device.compute_capability}, {device.sm_count} SMs x "
        f"{device.max_threads_per_sm} threads = {device.max_resident_threads:,} resident threads)",
        f"n = {features.n_vertices:,}, m = {features.n_edges:,}, d(G) = {features.mean_degree:.2f} "
        f"({graph.degree_class}: low <= 20 < medium <= 200 < high)",
        f"st(G, GPU) = n / resident threads = {graph.stress_ratio:.3f} ({graph.stress_class}: "
        "low <= 1.5 < medium <= 3 < high; one thread per vertex and one instance, as the thesis)",
    ]
    for name, kernel in prediction.kernels.items():
        classes = kernel.classes
        resources = kernel.occupancy[0]
        launch = kernel.launch
        lines.append("")
        sharing = classes.data_sharing_rule
        if not sharing.startswith("Table 4.1"):
            sharing += f"; Table 4.1 gives {classes.data_sharing_table}"
        lines.append(
            f"-- {name}: MAp {classes.memory_access_pattern}, CLr {classes.computational_load}, "
            f"DSr {classes.data_sharing} ({sharing}), memory accesses {classes.memory_accesses}"
        )
        lines.append(
            f"   launches {kernel.threads_per_instance:,} threads per instance; with CK "
            f"{prediction.config.concurrent_kernels} instances: "
            f"{kernel.threads_per_instance * prediction.config.concurrent_kernels / device.max_resident_threads:.2f}"
            " x the resident threads (shown only: the classes use st(G, GPU))"
        )
        lines.append(
            f"   occupancy with cache {launch.cache.value} (shared memory per SM: "
            f"{resources.shared_memory_per_sm:,} B):"
        )
        lines.append("     block  blocks/SM  warps  occupancy  limits (threads/blocks/registers/shared)  limited by")
        for row in kernel.occupancy:
            mark = "*" if row.block_size in kernel.maximizing_block_sizes else " "
            limits = "/".join(_limit_text(row.limits.get(key, UNLIMITED)) for key in ("threads", "blocks", "registers", "shared_memory"))
            limited = ", ".join(row.limited_by) or row.reason
            lines.append(
                f"   {mark} {row.block_size:>5}  {row.blocks_per_sm:>9}  {row.active_warps:>5}  "
                f"{row.occupancy:>9.0%}  {limits:<40}  {limited}"
            )
        lines.append(f"   (* maximizes occupancy: {'/'.join(map(str, kernel.maximizing_block_sizes))})")
        for decision in kernel.decisions:
            value = decision.value.value if hasattr(decision.value, "value") else decision.value
            lines.append(f"   {decision.parameter} = {value}  [{decision.rule}] {decision.reason}")
    for decision in prediction.decisions:
        lines.append("")
        lines.append(f"solve: {decision.parameter} = {decision.value}  [{decision.rule}] {decision.reason}")
    lines.append(f"config: {prediction.config}")
    return lines
