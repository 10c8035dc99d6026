"""Fit the Delta-stepping model's constants on the H100 benchmark records, and check them leaving
each graph out (issue 14: constants fitted from records by a committed command).

    python3 scripts/fit_delta_model.py reports/h100/delta/run-a reports/h100/delta/run-b \
        reports/h100/delta/run-c reports/h100/delta/run-d [--write characterizations/delta.toml] \
        > reports/h100/delta/model-check.md

The records: every `bench-delta.jsonl` of the given runs (scripts/bench_delta.py), the `batched`
and `model grid` classes (the tuner's default objective: the least time per SSSP), verified
measurements only. The candidates are not one full grid, so a value of one parameter is priced by
its *conditional best*: the least time per SSSP among the graph's records with that value, the
other parameters free. A predicted Delta is priced at the Delta the graph's records measured
nearest to it (log scale, ties to the smaller). Where the graph has `model grid` records (the
model's own configuration with every Delta), the prediction is also priced *whole*: the grid's
record at the predicted Delta, over the graph's best record of any configuration.

Fitted (autotune/model/delta_rules.py, rules 1 and 5): `delta_scale`, `delta_skew` and
`delta_spread` in Delta = delta_scale x mean weight / d(G) / (1 + cv(G))^delta_skew x (largest
weight / (2 x mean weight))^delta_spread (cv: the degree skew), together, and `block_size`, each
the values of their grid with the least geometric mean of the slowdowns over the graphs (ties: the
largest scale, the smallest exponents, the smallest block size). With `--write`, the [model]
constants of the characterization are rewritten and the records (paths and SHA-256) listed above
them. Also printed: the conditional
best of each CK, blocks per instance and loop mode, which rules 2 to 4 (one block per instance,
the persistent loop, the largest CK that fits) follow.
"""
from __future__ import annotations

import argparse
import hashlib
import itertools
import json
import math
import statistics
import sys
from collections import defaultdict
from pathlib import Path
from types import SimpleNamespace

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from autotune.algorithms.delta import delta_values  # noqa: E402
from autotune.graphs import load_graph  # noqa: E402
from autotune.model.delta_rules import delta_target, nearest_power  # noqa: E402
from autotune.model.features import graph_statistics  # noqa: E402

SCALES = tuple(2.0 ** (k / 2) for k in range(-4, 21))  # 1/4 to 1024, half powers of two
SKEWS = tuple(k / 8 for k in range(9))  # 0 to 1
SPREADS = tuple(k / 8 for k in range(9))  # 0 (the mean weight) to 1 (half the largest, Meyer and Sanders' unit)
CLASSES = ("batched", "model grid")
OLD = (64.0, 0.0, 0.0)  # the constants before any fit (one prototype measurement)
MISSING = 10.0  # the slowdown counted where a graph's records cannot price a value


def read_batched(runs: list[Path]) -> tuple[dict[str, list[dict]], list[Path]]:
    """Verified `batched` rows by graph, and the files they came from."""
    rows: dict[str, list[dict]] = defaultdict(list)
    files = []
    for run in runs:
        path = (run if run.is_absolute() else Path.cwd() / run).resolve() / "bench-delta.jsonl"
        files.append(path)
        for line in path.read_text().splitlines():
            row = json.loads(line)
            if row.get("class") in CLASSES and row.get("status") == "ok":
                rows[row["graph"]].append(row)
    return dict(rows), files


def features(name: str) -> dict:
    graph = load_graph(str(ROOT / "tests" / "data" / name) if name.endswith(".gz") else name)
    return {"d": graph.mean_degree, **graph_statistics(graph)}


def value_of(row: dict, parameter: str):
    config = row["config"]
    if parameter == "block_size":
        return config["kernels"]["advance"]["block_size"]
    if parameter == "concurrent_kernels":
        return config["concurrent_kernels"]
    return config["params"][parameter]


def conditional_best(rows: list[dict], parameter: str) -> dict:
    best: dict = {}
    for row in rows:
        value = value_of(row, parameter)
        best[value] = min(best.get(value, math.inf), row["ms_per_sssp"])
    return best


def nearest_measured(delta, measured) -> object:
    finite = sorted(v for v in measured if isinstance(v, int))
    if delta == "inf" or not finite:
        return delta if delta in measured else None
    return min(finite, key=lambda v: (abs(math.log2(v) - math.log2(delta)), v))


def predicted_delta(constants: tuple[float, float, float], graph: dict) -> object:
    """Rule 1 of delta_rules for (delta_scale, delta_skew, delta_spread): the power of two of the
    graph's Delta domain nearest delta_target."""
    if not graph.get("mean_weight"):
        return "inf"
    scale, skew, spread = constants
    domain = delta_values(SimpleNamespace(**graph))
    target = delta_target(scale, skew, spread, graph["mean_weight"], graph.get("max_weight"), graph["d"],
                          graph.get("degree_cv"))
    return nearest_power(target, domain)


def delta_slowdown(constants: tuple[float, float, float], rows: list[dict], graph: dict) -> tuple[float, object]:
    prices = conditional_best(rows, "delta")
    at = nearest_measured(predicted_delta(constants, graph), prices)
    best = min(prices.values())
    return (prices[at] / best if at in prices else MISSING), at


def whole_slowdown(constants: tuple[float, float, float], rows: list[dict], graph: dict) -> tuple[float, object] | None:
    """The model grid's record at the predicted Delta (nearest measured) over the graph's best
    record; None without grid records."""
    grid = conditional_best([r for r in rows if r["class"] == "model grid"], "delta")
    if not grid:
        return None
    at = nearest_measured(predicted_delta(constants, graph), grid)
    best = min(r["ms_per_sssp"] for r in rows)
    return (grid[at] / best if at in grid else MISSING), at


def best_delta(row: dict, graph: dict) -> str:
    """A record's Delta, with its scale: Delta over mean weight / d(G)."""
    delta = value_of(row, "delta")
    if not isinstance(delta, int) or not graph.get("mean_weight"):
        return str(delta)
    return f"{delta} ({delta * graph['d'] / graph['mean_weight']:.1f})"


def block_slowdown(size: int, rows: list[dict]) -> float:
    prices = conditional_best(rows, "block_size")
    return prices[size] / min(prices.values()) if size in prices else MISSING


def geometric_mean(values) -> float:
    values = list(values)
    return math.exp(sum(math.log(v) for v in values) / len(values))


def fit(rows: dict[str, list[dict]], graphs: dict[str, dict]) -> tuple[tuple[float, float, float], int]:
    """((delta_scale, delta_skew, delta_spread), block_size) fitted on the graphs' records."""
    # Ties go to the largest scale: a graph whose best Delta is the smallest its records measured
    # bounds the scale from above only, and the largest of the equals predicts within the measured
    # range; then the smallest exponents.
    constants = min(itertools.product(SCALES, SKEWS, SPREADS), key=lambda c: (
        geometric_mean(delta_slowdown(c, rows[g], graphs[g])[0] for g in rows), -c[0], c[1], c[2]))
    sizes = sorted({value_of(r, "block_size") for rs in rows.values() for r in rs})
    size = min(sizes, key=lambda b: (geometric_mean(block_slowdown(b, rows[g]) for g in rows), b))
    return constants, size


def write_constants(path: Path, constants: tuple[float, float, float], size: int, files: list[Path],
                    command: str) -> None:
    scale, skew, spread = constants
    text = path.read_text()
    start = text.index("[model]")
    end = text.index("\n[", start + 1)
    provenance = "\n".join(f"#   {f.relative_to(ROOT)} sha256 {hashlib.sha256(f.read_bytes()).hexdigest()}"
                           for f in files)
    model = (f"[model]\n# Fitted by `{command}`\n# on the batched and model-grid records of:\n{provenance}\n"
             "# Rule 1: Delta = delta_scale x mean weight / d(G) / (1 + cv(G))^delta_skew\n"
             "#   x (largest weight / (2 x mean weight))^delta_spread (Meyer and Sanders' Theta(1/d), its unit\n"
             "#   between the mean weight and half the largest; cv: the degree skew).\n"
             f"delta_scale = {scale:g}\ndelta_skew = {skew:g}\ndelta_spread = {spread:g}\n"
             f"# Rule 5: the block size of the one block each instance runs on.\nblock_size = {size}\n"
             "# Rule 6: the degree from which whole blocks expand a vertex (not fitted: every batched record\n"
             "# used 1024).\nblock_threshold = 1024\n")
    path.write_text(text[:start] + model + text[end:])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("runs", type=Path, nargs="+", help="run directories holding bench-delta.jsonl")
    parser.add_argument("--write", type=Path, default=None, help="rewrite this characterization's [model] constants")
    args = parser.parse_args(argv)
    rows, files = read_batched(args.runs)
    graphs = {name: features(name) for name in sorted(rows)}
    runs = " ".join(str(f.parent.relative_to(ROOT)) for f in files)
    command = f"python3 scripts/fit_delta_model.py {runs}"
    constants, size = fit(rows, graphs)
    lines = ["# The Delta-stepping model's constants, fitted and checked leaving each graph out", "",
             f"    {command}", "",
             f"Records: the `batched` and `model grid` rows of {', '.join(str(f.relative_to(ROOT)) for f in files)} "
             f"(H100, 2026-11-23; {sum(len(r) for r in rows.values())} verified measurements of {len(rows)} graphs). "
             "A value is priced by its conditional best: the least ms per SSSP of the graph's records with that "
             "value, the other parameters free (the candidates are not one full grid); a predicted Delta "
             "at the Delta measured nearest to it. *Whole*: the model's whole configuration (its CK, blocks, loop "
             "and block size with the predicted Delta), the graph's `model grid` record, over the graph's best "
             "record of any configuration (a dash: no grid records).", "",
             f"Fitted on every graph: **delta_scale = {constants[0]:g}**, **delta_skew = {constants[1]:g}**, "
             f"**delta_spread = {constants[2]:g}**, **block_size = {size}**.", "",
             "## Leave one graph out", "",
             "| graph | d(G) | cv(G) | mean weight | largest | best ms | best Delta (x mean weight / d(G)) | "
             "Delta fitted without it (scale, skew, spread) | slowdown | whole | "
             f"Delta of the old constant ({OLD[0]:g}) | slowdown | block size fitted without it | slowdown |",
             "|---|---:|---:|---:|---:|---:|---|---|---:|---:|---|---:|---:|---:|"]
    fitted, wholes, old, blocks = [], [], [], []
    for name in sorted(rows):
        others = {g: r for g, r in rows.items() if g != name}
        c, b = fit(others, {g: graphs[g] for g in others})
        slow, at = delta_slowdown(c, rows[name], graphs[name])
        whole = whole_slowdown(c, rows[name], graphs[name])
        slow_old, at_old = delta_slowdown(OLD, rows[name], graphs[name])
        slow_block = block_slowdown(b, rows[name])
        fitted.append(slow)
        old.append(slow_old)
        blocks.append(slow_block)
        if whole is not None:
            wholes.append(whole[0])
        graph = graphs[name]
        best_row = min(rows[name], key=lambda r: r["ms_per_sssp"])
        best = best_row["ms_per_sssp"]
        lines.append(f"| {name} | {graph['d']:.2f} | {graph.get('degree_cv') or 0:.2f} | "
                     f"{graph.get('mean_weight') or 0:.1f} | {graph.get('max_weight') or 0} | {best:.4f} | "
                     f"{best_delta(best_row, graph)} | "
                     f"{predicted_delta(c, graph)} ({c[0]:g}, {c[1]:g}, {c[2]:g}; measured {at}) | "
                     f"{100 * (slow - 1):+.1f}% | {'-' if whole is None else f'{100 * (whole[0] - 1):+.1f}%'} | "
                     f"{predicted_delta(OLD, graph)} (measured {at_old}) | {100 * (slow_old - 1):+.1f}% | {b} | "
                     f"{100 * (slow_block - 1):+.1f}% |")
    for label, values in (("Delta, fitted", fitted), ("the whole configuration, fitted", wholes),
                          ("Delta, old constant", old), ("block size, fitted", blocks)):
        if values:
            lines.append(f"\n- {label}: within 15% on {sum(v <= 1.15 for v in values)} of {len(values)} graphs, "
                         f"within 30% on {sum(v <= 1.30 for v in values)}, worst {100 * (max(values) - 1):+.1f}%, "
                         f"median {100 * (statistics.median(values) - 1):+.1f}%")
    lines += ["", "## What rules 2 to 4 follow: conditional best of each value, over the graph's best", ""]
    for parameter in ("blocks", "loop", "concurrent_kernels"):
        cells = []
        for name in sorted(rows):
            prices = conditional_best(rows[name], parameter)
            best = min(prices.values())
            cells.append(f"{name}: " + ", ".join(f"{v} {100 * (p / best - 1):+.0f}%"
                                                for v, p in sorted(prices.items(), key=lambda kv: str(kv[0]))))
        lines.append(f"- {parameter}: " + "; ".join(cells))
    print("\n".join(lines))
    if args.write is not None:
        write_constants(args.write, constants, size, files, command)
        print(f"\nwrote the [model] constants of {args.write}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
