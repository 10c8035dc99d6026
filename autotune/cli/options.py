"""Options shared by commands that take graphs: `--graph SPEC` (once or repeated), `--seed N`,
`--weights LO-HI`, and loading the graphs they name; and `--delta`, which `sssp` takes on the CPU
and on the GPU.

This is the command line's boundary: the graph cache directory is read from the environment
(`AUTOTUNE_CACHE_DIR`) here and nowhere in the library; so is where the kernels' builds are kept
(`keep_builds`).
"""
from __future__ import annotations

import argparse
import os
from typing import Mapping

from autotune import algorithms
from autotune.errors import InputError
from autotune.graphs import CSRGraph, GraphCache, GraphOptions, cache_dir_from_env, kept_dir_from_env, parse_spec
from autotune.graphs.options import DEFAULT_SEED, DEFAULT_WEIGHTS
from autotune.graphs.spec import SPEC_FORMS, load
from autotune.launch import ParamValue
from autotune.reference.cache import ReferenceCache

GRAPH_HELP = f"graph spec: {SPEC_FORMS}"


def add_graph_options(parser: argparse.ArgumentParser, *, multiple: bool = False,
                      positional: bool = False) -> None:
    """Add the graph argument and `--seed`/`--weights` to `parser`.

    Args:
        parser: the subcommand's parser.
        multiple: the command takes several graphs (`--graph` repeated). Either way `args.graph`
            is a list; `load_one_graph` rejects more than one.
        positional: take the spec as a positional `SPEC` instead of `--graph`.
    """
    if positional:
        parser.add_argument("graph", metavar="SPEC", help=GRAPH_HELP)
    else:  # always a list, so that a repeated --graph where one is expected is reported
        more = "; repeat for several graphs" if multiple else ""
        parser.add_argument("--graph", "-g", metavar="SPEC", action="append", required=True,
                            help=f"{GRAPH_HELP}{more}")
    parser.add_argument("--seed", metavar="N", default=None,
                        help=f"seed of generated graphs and drawn weights (default {DEFAULT_SEED})")
    parser.add_argument("--weights", metavar="LO-HI", default=None,
                        help=f"draw uniform integer weights in LO..HI, replacing any in a file "
                             f"(default: a file's own, else {DEFAULT_WEIGHTS})")


def graph_options(args: argparse.Namespace) -> GraphOptions:
    """The `GraphOptions` that `--seed` and `--weights` give.

    Raises:
        InputError: for a bad seed or weight range.
    """
    return GraphOptions.from_values(args.seed, args.weights)


def graph_cache(environ: Mapping[str, str] | None = None) -> GraphCache:
    """The graph cache: `$AUTOTUNE_CACHE_DIR`, else the user cache directory."""
    return GraphCache(cache_dir_from_env(os.environ if environ is None else environ))


def load_spec(spec: str, seed: object = None, weights: str | None = None) -> CSRGraph:
    """Load one graph from its spec with `--seed` and `--weights` values, through the graph cache
    (the one graph loader of the commands).

    Raises:
        InputError: for a bad spec, option or file.
    """
    return load(parse_spec(spec), GraphOptions.from_values(seed, weights), graph_cache())


def reference_cache(environ: Mapping[str, str] | None = None) -> ReferenceCache:
    """Reference distances kept in the cache directory (`graphs.cache.kept_dir_from_env`)."""
    return ReferenceCache(kept_dir_from_env(os.environ if environ is None else environ, "references"))


def graph_specs(args: argparse.Namespace) -> list[str]:
    """The specs given, as a list whether `--graph` was single or repeated."""
    value = args.graph
    specs = [value] if isinstance(value, str) else list(value or [])
    if not specs:
        raise InputError("no graph given; use --graph SPEC")
    return specs


def load_graphs(args: argparse.Namespace) -> list[CSRGraph]:
    """Load every graph the arguments name, in order (all specs are checked before any loads).

    Raises:
        InputError: for a bad spec, option or file.
    """
    graph_options(args)  # a bad --seed or --weights is reported before any graph loads
    specs = graph_specs(args)
    for spec in specs:
        parse_spec(spec)
    return [load_spec(spec, args.seed, args.weights) for spec in specs]


def load_one_graph(args: argparse.Namespace) -> CSRGraph:
    """Load the one graph the arguments name.

    Raises:
        InputError: for a bad spec, option or file, or if several graphs were given.
    """
    specs = graph_specs(args)
    if len(specs) != 1:
        raise InputError(f"--graph: this command takes one graph, found {len(specs)}: "
                         f"{', '.join(specs)}")
    return load_graphs(args)[0]


def delta_param(algorithm: str, text: str) -> dict[str, ParamValue]:
    """`--delta D` as the `delta` parameter of `algorithm`.

    Raises:
        InputError: the algorithm has no Delta, or D is not a Delta.
    """
    return {"delta": algorithms.get(algorithm, "--delta").parameter("delta", "--delta").parse_one(text, "--delta")}


def keep_builds(environ: Mapping[str, str] | None = None) -> None:
    """Keep the kernels' builds in `$AUTOTUNE_CACHE_DIR/cubins` when it is set, else in `cubins`
    beside the default graph cache (`graphs.cache.kept_dir_from_env`)."""
    from autotune.gpu.compile import keep_builds_in

    keep_builds_in(kept_dir_from_env(os.environ if environ is None else environ, "cubins"))
