"""Suite `classout` (one GPU): issue 28's validation by class, priced on the GPU.

For each graph (default: every graph of the shipped table), its class (`data.graph_class`) is
left out of the choice model's fit (`autotune.predict.choice.fit_admitted`, on the table's other classes; the graph
admitting what its entry measured, as `benchmarks.choice.admitted_by`); then,
as `autotune predict --algorithm auto --queries K` and `Table.lookup` of a graph the table does not
hold do (`autotune.predict.answer.model_answer`), the tree picks the algorithm for K = 1, 16 and
1,024 and that algorithm's model predicts its configuration. The prediction is
timed on the GPU against the table's answer for K (`Table.lookup(queries=K)`: the best its sweep
measured), both in this process on the same 32 sources (`answers.timed_against`), every distance
checked. Delta-stepping's one-query rules (`autotune.algorithms.delta.latency`) are refitted without
the class too, on the other graphs' widths in `benchmarks/data/shapes.json` and their one-query
prices (`LATENCY_ROWS`: Delta's, and the grid's block size and threshold); the left-out graph's
own width is measured here as predict measures it. So are Delta's batch constants (Delta's scale
and exponents, the block size: `autotune.algorithms.delta.fit` on `DELTA_ROWS`, the records of 10
graphs of the first suite, less the class's; the ladder of block sizes by level width on the
GPU's `WIDTH_ROWS` and the level width of one instance per SM on `WIDE_ROWS`, each less the class's);
a one-query shape left without winners by the class (the mesh class takes the only block winner)
takes that refitted batch scale for its Delta (`delta_latency.fit`'s `batch_scale`).
Where the GPU has the probe's rows of a few sources at once (`SPREAD_ROWS`: the H200's), the rules
for 2 to 16 at once (`autotune.algorithms.delta.spread`) are refitted on them less the class's graphs.
The fitted GPU Crauser and Martín models are the shipped ones (fitted on the generated graphs
only).

Targets (issue 28): within 15% of the measured best on at least 80% of the real graphs and within
30% on all, for K = 1 and for the batch end, separately; with the rules fitted on another GPU's
table (`--classout-fit-table`: the H100's fit on an H200), within 15% on at least 80%. Issue 67's,
over the three Ks together: at least 90% of (graph, K) within 15%, every one within 50%.
"""
from __future__ import annotations

import argparse
import functools
import math
from pathlib import Path
from typing import Any, Sequence

from autotune.arguments import positive_int
from autotune.files import read_json
from benchmarks import data
from benchmarks.answers import ms_text, timed_against
from benchmarks.shapes import SHAPES_FILE
from benchmarks.results import Results, command_line, commit, earlier_rows, graph_by_graph, host, kept_rows, now

SAMPLE = 32
QUERIES = (1, 16, 1024)  # the ends and the middle of the curve (issue 67: K = 16 was the model's weak part)
DELTA = "delta"  # the algorithm whose batch constants this suite refits without each class
H100_DATA = data.ROOT / "benchmarks" / "data" / "h100"
# The records Delta-stepping's batch constants are fitted on (as `scripts/fit_delta_model.py` is
# given them for the shipped `algorithms/delta/delta.toml`): rule 1's model grids (the power grids'
# from scripts/probe_delta_grid.py), rule 5's ladder (scripts/probe_batch_bins.py) and rule 4's
# one instance per SM (scripts/probe_batch_ck.py).
DELTA_ROWS = (H100_DATA / "delta-grid.jsonl.gz", H100_DATA / "delta-grid-power-3415118.jsonl.gz")
# Rule 5's ladder by GPU (`scripts/probe_batch_bins.py`; a GPU without its own rows takes the H100's), as
# `autotune model fit-choice --bins-rows` is given them for the shipped `choice-h200.toml`.
WIDTH_ROWS = {"h100": (H100_DATA / "bins-grid-4d19028.jsonl.gz",),
              "h200": (data.DATA_DIR / "h200" / "bins-grid-da9373b.jsonl.gz",
                       data.DATA_DIR / "h200" / "bins-grid-edadc3b.jsonl.gz")}
WIDE_ROWS = (H100_DATA / "ck-bs-grid-e6e4b8e.jsonl.gz",)
# The one-query Delta's and grid bins' prices (scripts/probe_latency_grid.py, probe_latency_bins.py),
# as `autotune model fit-choice --latency-rows` is given them for the shipped `choice-h100.toml`.
LATENCY_ROWS = (H100_DATA / "latency-grid-100b87c.jsonl.gz",
                H100_DATA / "grid-random-4282b74" / "latency-bins-128.jsonl.gz")
# The shared-out grid at K = 16 (`scripts/probe_latency_grid.py OUT GRAPHS 16`), by GPU: the rules for a few
# sources at once (`autotune.algorithms.delta.spread`) are refitted on them without the class.
SPREAD_ROWS = {"h200": (data.DATA_DIR / "h200" / "spread-grid-76252fe.jsonl.gz",)}
WITHIN, ALL_WITHIN = 0.15, 0.30
CURVE_SHARE, CURVE_ALL_WITHIN = 0.90, 0.50  # issue 67: 90% of (graph, K) within 15%, every one within 50%


def add_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--classout-graphs", default="", help="suite classout: its graphs (default: the table's)")
    parser.add_argument("--classout-table", default=None, help="suite classout: the table (default tables/<gpu>.json)")
    parser.add_argument("--classout-rounds", type=positive_int, default=3, help="suite classout: alternated timings (default 3)")
    parser.add_argument("--classout-fit-table", default=None,
                        help="suite classout: the table the choice and one-query rules are fitted on, less the class "
                             "(default: the measured GPU's; tables/h100.json on an H200 checks the H100 fit there)")


def profile_of(gpu_name: str) -> Any:
    """The shipped device profile of the GPU measured on (hopper-h100, hopper-h200)."""
    from autotune.model.device import load_device

    return load_device(f"hopper-{data.gpu_file(gpu_name)}")


def shapes_in(path: Path) -> dict[str, dict[str, Any]]:
    """The shape of every graph of a shapes file (`python3 -m benchmarks shapes`), by its table's
    name and its suite name (a probe's records may name it either way)."""
    return {name: shape for g, shape in read_json(path)["shapes"].items()
            for name in (g, g.removesuffix(data.CONVERTED))}


@functools.cache
def shapes() -> dict[str, dict[str, Any]]:
    """`shapes_in` of `benchmarks/data/shapes.json`, read once."""
    return shapes_in(SHAPES_FILE)


@functools.cache
def shape_widths() -> dict[str, float]:
    """The level width of every graph of `shapes`."""
    return {name: shape["level_width"] for name, shape in shapes().items()}


@functools.cache
def shape_weights() -> dict[str, float | None]:
    """The lightest-arc weight (rule 1's weight unit) of every graph of `shapes` (tables do not hold it)."""
    return {name: shape.get("lightest_weight") for name, shape in shapes().items()}


@functools.cache
def h100_graphs() -> dict[str, dict[str, Any]]:
    """The graphs of the shipped H100 table (read once), which holds every graph of the H100
    records, by its table's name and its suite name."""
    from autotune.table import Table

    return {name: e.graph.to_json() for e in Table.load(data.shipped_table("NVIDIA H100 80GB HBM3")).entries
            for name in (e.name, e.name.removesuffix(data.CONVERTED))}


def record_features(name: str) -> dict[str, Any]:
    """The features rule 1 reads (`delta_fit.features`: d(G), the degree skew, the weights) of a
    graph of the H100 records, from the shipped H100 table, which holds every graph of them, and
    its lightest-arc weight from `benchmarks/data/shapes.json` (no graph is loaded: the suite's
    real graphs are not on a machine without their sources); a graph they lack is loaded."""
    from autotune.algorithms.delta import fit as delta_fit

    g = h100_graphs().get(name)
    if g is None:
        return delta_fit.features(data.spec(name))
    return {"d": g.get("mean_degree") or g["edges"] / max(g["vertices"], 1),
            "lightest_weight": shape_weights().get(name),
            **{k: g.get(k) for k in ("degree_cv", "mean_weight", "max_weight", "min_positive_weight")}}


@functools.cache
def ladder_taken(gpu: str = "h100") -> Any:
    """Rule 5's second step on the records of `WIDTH_ROWS[gpu]` (`delta_rules.bitmap_sizes_of` at
    CK 1,024 on that GPU, the vertices of each graph from its shipped table, which holds every graph
    of its records): what `delta_fit.fit_block_widths` prices the ladder at."""
    from autotune import algorithms
    from autotune.algorithms.delta import rules as delta_rules
    from autotune.table import Table

    table = Table.load(data.ROOT / "tables" / f"{gpu}.json")
    vertices = {name: e.graph.vertices for e in table.entries for name in (e.name, e.name.removesuffix(data.CONVERTED))}
    delta = algorithms.get(DELTA)
    return delta_rules.bitmap_sizes_of(vertices, profile_of(str(table.device.get("name"))), delta.characterization,
                                       max(c for c in delta.concurrent_kernels if c <= 1024), (128, 256, 512, 1024))


@functools.cache
def latency_prices() -> tuple[dict[str, dict[Any, float]], dict[str, dict[Any, float]]]:
    """The one-query Delta's and the grid bins' prices of every graph (`LATENCY_ROWS`)."""
    from autotune.algorithms.delta.latency_prices import read_bins_prices, read_prices

    return read_prices(LATENCY_ROWS), read_bins_prices(LATENCY_ROWS)


@functools.cache
def delta_without(left_out: str, gpu: str = "h100") -> Any:
    """Delta-stepping's shipped characterization with its batch constants refitted on `DELTA_ROWS`
    less the graphs of class `left_out` (their features from the shipped H100 table, which holds
    every graph of those records, as the records are the H100's), its ladder on `gpu`'s `WIDTH_ROWS`
    (the H100's where that GPU has none) less the class's; once per class and GPU."""
    import dataclasses

    from autotune import algorithms
    from autotune.algorithms.delta import fit as delta_fit, rules as delta_rules

    rows = {g: r for g, r in delta_fit.read_rows(DELTA_ROWS).items() if data.graph_class(g) != left_out}
    (scale, skew, spread), size = delta_fit.fit(rows, {g: record_features(g) for g in rows})
    widths = {g: w for g, w in shape_widths().items() if data.graph_class(g) != left_out}
    ladders = {g: delta_fit.fit_block_widths(delta_fit.read_rows(WIDTH_ROWS[g], delta_fit.WIDTH_CLASSES), widths,
                                             ladder_taken(g), data.graph_class) for g in {"h100", gpu} & set(WIDTH_ROWS)}
    ladder = ladders.get(gpu, ladders["h100"])
    # rule 4 as the shipped characterization has it (none placed): on the H100's records, priced at the H100's ladder,
    # as the product keeps it and replaces only the ladder with its GPU's (`Algorithm.with_gpu_constants`)
    per_sm_ck = delta_rules.per_sm(algorithms.get(DELTA).concurrent_kernels, profile_of("NVIDIA H100 80GB HBM3"))
    wide_width, wide_size = delta_fit.fit_wide(delta_fit.read_rows(WIDE_ROWS, delta_fit.WIDE_CLASSES), widths,
                                               ladders["h100"], per_sm_ck)
    shipped = algorithms.get(DELTA).characterization
    kept = {k: v for k, v in dict(shipped.model).items() if not k.startswith(delta_rules.LADDER)
            and k not in ("wide_width", "wide_block_size")}
    wide = {} if math.isinf(wide_width) else {"wide_width": wide_width, "wide_block_size": wide_size}
    return dataclasses.replace(shipped, model={**kept, "delta_scale": scale, "delta_skew": skew, "delta_spread": spread,
                                               "block_size": size, **wide,
                                               **{f"{delta_rules.LADDER}{s}": start for s, start in ladder.items()}})


_SPREAD_FITS: dict[tuple[Any, ...], dict[str, Any]] = {}  # `spread_without`'s, once per class


def spread_without(kept: Sequence[Any], rows: Sequence[Path], unit: tuple[float, float]) -> dict[str, Any]:
    """The rules for a few sources at once (`table.fit.fit_spread_rows`) fitted on `rows` for the
    table entries `kept` (a class left out), once per set of entries: every graph of a class has the
    same."""
    from autotune.table.fit import fit_spread_rows

    key = (tuple(e.name for e in kept), tuple(rows), unit)
    if key not in _SPREAD_FITS:
        _SPREAD_FITS[key] = fit_spread_rows(kept, rows, shapes(), unit)
    return _SPREAD_FITS[key]


def graph_rows(name: str, entries: Sequence[Any], table: Any, gpu: dict[str, Any], rounds: int
               ) -> list[dict[str, Any]]:
    import dataclasses

    from autotune.predict.answer import UnseenGraph, model_answer
    from autotune.algorithms.delta import latency as delta_latency
    from autotune.predict.choice import fit_admitted, measured_features
    from autotune.model.features import GraphFeatures
    from benchmarks.choice import admitted_by

    left_out = data.graph_class(name)
    kept = [e for e in entries if data.graph_class(e.name) != left_out]
    if not kept:
        return [{"graph": name, "class": left_out, "error": "the table holds no other class to fit the choice on"}]
    batch = delta_without(left_out, data.gpu_file(str(gpu["name"])))
    refitted = {DELTA: batch}  # the characterizations fitted without the class, by algorithm
    unit = (float(batch.model["delta_skew"]), float(batch.model["delta_spread"]))  # the one-query rules' Delta unit
    winners = delta_latency.table_samples(kept, shape_widths(), unit, shape_weights())
    prices, bins = ({graph: found for graph, found in priced.items() if data.graph_class(graph) != left_out}
                    for priced in latency_prices())
    latency = (delta_latency.fit(winners, unit, prices, bins, float(batch.model["delta_scale"])) if winners
               else None)  # no Delta winner: its batch rules
    spread_rows = SPREAD_ROWS.get(data.gpu_file(str(gpu["name"])), ())
    if latency is not None and spread_rows:  # a few at once, refitted on the other classes' graphs
        latency = dataclasses.replace(latency, spread=spread_without(kept, spread_rows, unit))
    model = fit_admitted(kept, {graph: shape["hop_depth"] for graph, shape in shapes().items()
                                if shape.get("hop_depth") is not None})
    chooser = dataclasses.replace(model, latency=latency)
    admits = next((admitted_by(e) for e in entries if e.name == name), frozenset())
    profile = profile_of(str(gpu["name"]))
    rows = []
    for _, graph, sources, expected in data.suite_graphs([name], SAMPLE):
        features = GraphFeatures.from_graph(graph)
        tree_features, width = measured_features(graph)  # the depth the tree reads, the width the rules read
        unseen = UnseenGraph(features, tree_features, width)
        for k in QUERIES:
            # the path Table.lookup answers a graph it does not hold with, the refitted constants given
            config = model_answer(chooser, unseen, profile, k, admits, characterizations=refitted).config
            best = table.lookup(graph, device=gpu, allow_other_device=False, queries=k).config
            timing, against, slowdown = timed_against(graph, config, best, sources, expected, rounds)
            rows.append({"graph": name, "commit": commit(), "class": left_out, "queries": k,
                         "predicted": config.to_json(),
                         "latency_rules": None if latency is None else latency.to_json(),
                         "delta_constants": dict(batch.model),
                         "best": best.to_json(), "predicted_timing": timing, "best_timing": against,
                         "slowdown": slowdown})
            print(f"classout: {name} ({left_out} left out) K={k}: predicted {config.algorithm} {ms_text(timing)} ms/SSSP, "
                  f"table {best.algorithm} {ms_text(against)}, slowdown {slowdown}", flush=True)
    return rows


def run(args: argparse.Namespace) -> Results:
    """Graph by graph; the results file is written after each."""
    from autotune.gpu import device_description, gpu_session
    from autotune.table import Table

    with gpu_session(0) as device:
        gpu = device_description(device)
        path, table = data.load_shipped_table(gpu, args.classout_table)
        entries = [e for e in table.entries if e.curve]
        fitted_on = entries if args.classout_fit_table is None else [
            e for e in Table.load(args.classout_fit_table).entries if e.curve]
        names = [g for g in (args.classout_graphs.split(",") if args.classout_graphs else
                             [e.name for e in entries]) if g]
        return graph_by_graph(names, lambda name: graph_rows(name, fitted_on, table, gpu, args.classout_rounds),
                              lambda rows: results_of(rows, gpu, path, args), args.results)


def summarize(rows: Sequence[dict[str, Any]], transferred: bool = False) -> dict[str, Any]:
    """Per K, the graphs within 15% and 30% and whether the target is met: over every graph, and
    over the real graphs alone (`data.is_real`), which the target is about. `transferred`: the
    rules were fitted on another GPU's table, whose target has no 30% part."""
    def counts(mine: list[float | None]) -> dict[str, Any]:
        timed = [s for s in mine if s is not None]
        return {"graphs": len(mine), "within_15": sum(s <= WITHIN for s in timed),
                "within_30": sum(s <= ALL_WITHIN for s in timed),
                "met": bool(mine) and len(timed) == len(mine) and sum(s <= WITHIN for s in timed) >= 0.8 * len(mine)
                and (transferred or all(s <= ALL_WITHIN for s in timed))}

    summary: dict[str, Any] = {"target": "within 15% on 80% of the real graphs" + ("" if transferred else
                                                                                   " and 30% on all") + ", per K"}
    for k in QUERIES:
        summary[str(k)] = counts([r["slowdown"] for r in rows if r.get("queries") == k])
        summary[f"real {k}"] = counts([r["slowdown"] for r in rows if r.get("queries") == k and data.is_real(r["graph"])])
    every = [r.get("slowdown") for r in rows if r.get("queries") in QUERIES and data.is_real(r["graph"])]
    timed = [s for s in every if s is not None]
    summary["whole curve"] = {  # issue 67's target, over every (real graph, K) of K = 1, 16 and 1,024
        "graph_ks": len(every), "within_15": sum(s <= WITHIN for s in timed),
        "within_50": sum(s <= CURVE_ALL_WITHIN for s in timed),
        "met": bool(every) and len(timed) == len(every) and sum(s <= WITHIN for s in timed) >= CURVE_SHARE * len(every)
        and all(s <= CURVE_ALL_WITHIN for s in timed) and {r.get("queries") for r in rows} >= set(QUERIES)}
    return summary


def results_of(rows: list[dict[str, Any]], gpu: dict[str, Any], path: Any, args: argparse.Namespace) -> Results:
    """The rows measured, and an earlier run's of the other graphs (each naming its commit: a suite
    run a few graphs at a time, as a GPU call can carry them, keeps them all)."""
    rows = [*rows, *kept_rows(earlier_rows("classout", args.results, gpu.get("name")), rows)]
    return Results("classout", gpu, command_line(), commit(), now(), host(),
                   {"table": data.shown(path), "graphs": args.classout_graphs or "the table's", "rounds": args.classout_rounds,
                    "fitted_on": args.classout_fit_table or data.shown(path)},
                   tuple(rows), summarize(rows, args.classout_fit_table is not None))


def render(found: Sequence[Results]) -> list[str]:
    lines = []
    for results in found:
        fitted_on = results.parameters.get("fitted_on", results.parameters["table"])
        s = summarize(results.measurements, fitted_on != results.parameters["table"])
        counts = "; ".join(f"K = {k}: {s[key]['within_15']} of {s[key]['graphs']} {what} within 15%, "
                           f"{s[key]['within_30']} within 30%" + (f" (target {'met' if s[key]['met'] else 'not met'})"
                                                                  if what == "real graphs" else "")
                           for k in QUERIES for key, what in ((f"real {k}", "real graphs"), (str(k), "graphs"))
                           if s[str(k)]["graphs"])
        missing = [str(k) for k in QUERIES if not s[str(k)]["graphs"]]
        shipped = sum(1 for r in results.measurements if "error" not in r and "delta_constants" not in r)
        constants = (f" Delta's batch constants: the shipped ones in {shipped} rows (measured before they were "
                     "refitted without the class)." if shipped else "")
        fit = (f", the choice and one-query rules fitted on `{fitted_on}`, whose target is within 15% on 80% of the "
               "real graphs" if fitted_on != results.parameters["table"] else "")
        curve = s["whole curve"]
        whole = (f" Over the Ks measured together: {curve['within_15']} of {curve['graph_ks']} (real graph, K) "
                 f"within 15%, {curve['within_50']} within 50% (issue 67's target, over K = 1, 16 and 1,024: "
                 f"{'met' if curve['met'] else 'not met'}" + (f"; K = {', '.join(missing)} not measured yet" if missing
                                                                else "") + ").")
        lines += [f"{results.gpu_name}, against `{results.parameters['table']}`{fit} (the last run: `{results.command}`, "
                  f"{results.date[:10]}, commit {results.commit}; each row names the commit that measured it): "
                  f"{counts}.{whole}{constants}", "",
                  "| graph | class left out | K | predicted | ms per SSSP | table's best | ms per SSSP | slowdown | commit |",
                  "|---|---|---:|---|---:|---|---:|---:|---|"]
        for r in results.measurements:
            measured_at = r.get("commit", results.commit)
            if "error" in r:
                lines.append(f"| {r['graph']} | {r['class']} | | {r['error']} | | | | | {measured_at} |")
                continue
            slow = "-" if r["slowdown"] is None else f"{100 * r['slowdown']:+.0f}%"
            lines.append(f"| {r['graph']} | {r['class']} | {r['queries']} | {r['predicted']['algorithm']} | "
                         f"{ms_text(r['predicted_timing'])} | {r['best']['algorithm']} | {ms_text(r['best_timing'])} | "
                         f"{slow} | {measured_at} |")
        lines.append("")
    return lines
