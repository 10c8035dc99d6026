"""`autotune graph info SPEC [--json] [--seed N] [--weights LO-HI]`."""
from __future__ import annotations

import argparse
import json

from autotune.cli.options import add_graph_options, load_one_graph
from autotune.graphs import CSRGraph


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("graph", help="inspect graphs",
                                   description="Inspect the graphs specs name.")
    commands = parser.add_subparsers(dest="graph_command", metavar="SUBCOMMAND", required=True)
    info = commands.add_parser(
        "info", help="print a graph's size and degrees",
        description="Print a graph's name, vertices, edges, mean and max out-degree and the "
                    "number of vertices without out-edges. Generated graphs are cached.",
    )
    add_graph_options(info, positional=True)
    info.add_argument("--json", action="store_true",
                      help="print JSON with keys name, vertices, edges, mean_degree, max_degree, "
                           "sinks, sha256")
    info.set_defaults(run=run_info)


def render_info(info: dict[str, object]) -> str:
    """The text `graph info` prints for `CSRGraph.info()`."""
    vertices = int(info["vertices"])  # type: ignore[call-overload]
    sinks = int(info["sinks"])  # type: ignore[call-overload]
    share = f" ({100 * sinks / vertices:.1f}%)" if vertices else ""
    return "\n".join([
        f"{info['name']}",
        f"  vertices          {vertices:,}",
        f"  edges             {int(info['edges']):,}",  # type: ignore[call-overload]
        f"  mean out-degree   {float(info['mean_degree']):.2f}",  # type: ignore[arg-type]
        f"  max out-degree    {int(info['max_degree']):,}",  # type: ignore[call-overload]
        f"  no out-edges      {sinks:,}{share}",
        f"  sha256            {info['sha256']}",
    ])


def run_info(args: argparse.Namespace) -> int:
    graph: CSRGraph = load_one_graph(args)
    info = graph.info()
    print(json.dumps(info, indent=2) if args.json else render_info(info))
    return 0
