"""Suite `model`: the fitted models checked leaving each graph out, priced from the committed H100
records (no GPU).

- GPU Crauser and GPU Martín (`autotune/algorithms/thesis/fitted.py`): for each graph, the model fitted on the
  other graphs' records predicts its configuration from its features; the prediction is priced
  from the graph's records (`ReplayTimer.price`: the median of its verified records, else composed
  from uniform runs) against the graph's best priced the same way. The thesis's prediction, which
  every sweep measured, is priced alongside.
- Δ-stepping (`autotune/algorithms/delta/fit.py`): Δ fitted without the graph, priced by its
  conditional best (the least time per SSSP of the graph's rows with that Δ).
- Δ-stepping's batch shape (rules 4 and 5 of `autotune/algorithms/delta/rules.py`: CK and the block
  size from the level width), fitted without the graph's whole class as the suite `classout` fits
  it (`classout.delta_without`), priced from the graph's rows of `scripts/probe_batch_ck.py` (the
  prediction at every CK and block size) against their best; its block size alone (rule 5) the
  same way on the rows of `scripts/probe_batch_bins.py` (`classout.WIDTH_ROWS`, the H100's: 31 graphs, CK 1,024).

Targets (issue 14): within 15% of the best on at least 80% of the graphs, within 30% on all.
"""
from __future__ import annotations

import argparse
import statistics
from typing import Any, Sequence

from benchmarks import classout, data
from benchmarks.results import Results, command_line, commit, host, now

WITHIN, ALL_WITHIN = 0.15, 0.30


def add_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--records-gpu", default="h100", help="the folder of benchmarks/data whose records to read")


def fitted_rows(gpu: str, algorithm: str) -> list[dict[str, Any]]:
    from autotune.algorithms.thesis.fitted import fit
    from autotune.search.timers.replay import ReplayTimer
    from autotune.table import Table

    features = {e.name: e.graph.to_json() for e in Table.load(data.path(gpu, "crauser-table.json.gz")).entries}
    timers = {name: ReplayTimer(records) for name, records in data.records_by_graph(gpu, algorithm).items()
              if name in features}
    rows = []
    for name, timer in timers.items():
        model = fit({g: t for g, t in timers.items() if g != name}, features, algorithm)
        config, _ = model.predict(features[name])
        best = timer.best_price()
        price = timer.price(config)
        thesis = next((r.measurement.config for r in timer.records if "prediction" in r.roles), None)
        thesis_price = timer.price(thesis) if thesis is not None else None
        rows.append({"model": algorithm, "graph": name, "best_ms": best, "fitted": str(config),
                     "fitted_slowdown": price[0] / best - 1 if price else None, "thesis": str(thesis),
                     "thesis_slowdown": thesis_price[0] / best - 1 if thesis_price else None})
    return rows


def delta_rows() -> list[dict[str, Any]]:
    """Rule 1 of Delta-stepping left one graph out, on the H100's model-grid records (`classout.DELTA_ROWS`)."""
    from autotune.algorithms.delta import fit as delta_fit

    rows = delta_fit.read_rows(classout.DELTA_ROWS)
    graphs = {name: classout.record_features(name) for name in sorted(rows)}
    out = []
    for name in sorted(rows):
        others = {g: r for g, r in rows.items() if g != name}
        constants, size = delta_fit.fit(others, {g: graphs[g] for g in others})
        slow, at = delta_fit.delta_slowdown(constants, rows[name], graphs[name])
        whole = delta_fit.whole_slowdown(constants, rows[name], graphs[name])
        out.append({"model": "delta", "graph": name, "best_ms": min(r["ms_per_sssp"] for r in rows[name]),
                    "fitted": f"delta {delta_fit.predicted_delta(constants, graphs[name])} (measured {at}), "
                              f"block size {size}",
                    "fitted_slowdown": slow - 1, "whole_slowdown": None if whole is None else whole[0] - 1})
    return out


def predicted_at(name: str) -> Any:
    """Delta-stepping's batch-end prediction for a graph of the H100 records (its features from
    the shipped H100 table, its width from `benchmarks/data/shapes.json`), with the constants
    fitted without its class (`classout.delta_without`)."""
    from autotune import algorithms
    from autotune.model.features import GraphFeatures

    g = classout.h100_graphs()[name]
    features = GraphFeatures(name, g["vertices"], g["edges"], max_degree=g.get("max_degree"),
                             degree_cv=g.get("degree_cv"), min_positive_weight=g.get("min_positive_weight"),
                             max_weight=g.get("max_weight"), mean_weight=g.get("mean_weight"),
                             lightest_weight=classout.shape_weights().get(name),
                             level_width=classout.shape_widths()[name])
    return algorithms.get("delta").predict(features, classout.profile_of("H100"),
                                           classout.delta_without(data.graph_class(name))).config


def shape_rows() -> list[dict[str, Any]]:
    """Delta-stepping's batch-end prediction of each graph of the CK probe (its features from the
    shipped H100 table, its width from `benchmarks/data/shapes.json`), with the constants fitted
    without its class, priced at its CK and block size from the probe's rows."""
    from autotune.algorithms.delta import fit as delta_fit

    rows = delta_fit.read_rows(classout.WIDE_ROWS, delta_fit.WIDE_CLASSES)
    out = []
    for name in sorted(g for g in rows if classout.shape_widths().get(g) is not None):
        left_out = data.graph_class(name)
        config = predicted_at(name)
        ck, size = config.concurrent_kernels, config.kernel("advance").block_size
        priced = {(delta_fit.value_of(r, "concurrent_kernels"), delta_fit.value_of(r, "block_size")): r["ms_per_sssp"]
                  for r in rows[name]}
        best = min(priced.values())
        out.append({"model": "delta shape", "graph": name, "class_left_out": left_out, "best_ms": best,
                    "fitted": f"CK {ck}, blocks of {size}",
                    "fitted_slowdown": priced[(ck, size)] / best - 1 if (ck, size) in priced else None})
    return out


def ladder_rows() -> list[dict[str, Any]]:
    """Delta-stepping's batch-end block size (rule 5) for each graph of the bins probe, fitted
    without its class, priced from the graph's rows of `scripts/probe_batch_bins.py` (the
    prediction at CK 1,024 with every block size and warp threshold) at the predicted block size
    and warp threshold, against their best."""
    from autotune.algorithms.delta import fit as delta_fit

    rows = delta_fit.read_rows(classout.WIDTH_ROWS["h100"], delta_fit.WIDTH_CLASSES)
    out = []
    for name in sorted(g for g in rows if classout.shape_widths().get(g) is not None):
        config = predicted_at(name)
        key = (config.kernel("advance").block_size, str(config.param("warp_threshold")))
        priced = {(delta_fit.value_of(r, "block_size"), str(delta_fit.value_of(r, "warp_threshold"))): r["ms_per_sssp"]
                  for r in rows[name]}
        best = min(priced.values())
        out.append({"model": "delta block size", "graph": name, "class_left_out": data.graph_class(name), "best_ms": best,
                    "fitted": f"blocks of {key[0]}, warp threshold {key[1]}",
                    "fitted_slowdown": priced[key] / best - 1 if key in priced else None})
    return out


def verdict(values: Sequence[float | None]) -> dict[str, Any]:
    known = [v if v is not None else float("inf") for v in values]
    return {"graphs": len(known), "within_15": sum(v <= WITHIN for v in known),
            "within_30": sum(v <= ALL_WITHIN for v in known), "worst": max(known), "median": statistics.median(known),
            "met": sum(v <= WITHIN for v in known) >= 0.8 * len(known) and all(v <= ALL_WITHIN for v in known)}


def run(args: argparse.Namespace) -> Results:
    rows = (fitted_rows(args.records_gpu, "crauser") + fitted_rows(args.records_gpu, "martin") + delta_rows()
            + shape_rows() + ladder_rows())
    summary = {}
    for model in ("crauser", "martin", "delta", "delta shape", "delta block size"):
        mine = [r for r in rows if r["model"] == model]
        summary[f"{model} fitted"] = verdict([r["fitted_slowdown"] for r in mine])
        if any("thesis_slowdown" in r for r in mine):  # the thesis's algorithms: their rules priced too
            summary[f"{model} thesis"] = verdict([r["thesis_slowdown"] for r in mine])
    return Results("model", data.RECORDS_GPU, command_line(), commit(), now(), host(), {"records": args.records_gpu},
                   tuple(rows), summary)


def percent(value: float | None) -> str:
    return "not priced" if value is None or value == float("inf") else f"{100 * value:+.1f}%"


def render(found: Sequence[Results]) -> list[str]:
    lines = []
    for results in found:
        lines += [f"Leave one graph out (Delta-stepping's batch shape: its class), priced from the {results.gpu_name}'s records (`{results.command}`, "
                  f"{results.date[:10]}, commit {results.commit}):", "",
                  "| model | graphs | within 15% | within 30% | worst | median | target met |",
                  "|---|---:|---:|---:|---:|---:|---|"]
        for name, v in results.summary.items():
            lines.append(f"| {name} | {v['graphs']} | {v['within_15']} | {v['within_30']} | {percent(v['worst'])} | "
                         f"{percent(v['median'])} | {'yes' if v['met'] else 'no'} |")
        lines.append("")
    return lines
