"""Fit the Delta-stepping model's constants (`autotune.algorithms.delta.rules`, rules 1 and 5) on
benchmark rows of the H100, and check them leaving each graph out.

The rows: verified measurements of the `batched` and `model grid` classes (the tuner's default
objective: the least time per SSSP). The candidates are not one full grid, so a value of one
parameter is priced by its *conditional best*: the least time per SSSP among the graph's rows with
that value, the other parameters free. A predicted Delta is priced at the Delta the graph's rows
measured nearest to it (log scale, ties to the smaller). Where the graph has `model grid` rows (the
model's own configuration with every Delta), the prediction is also priced *whole*: the grid's row
at the predicted Delta, over the graph's best row of any configuration.

Fitted: `delta_scale`, `delta_skew` and `delta_spread` in Delta = delta_scale x unit / d(G)
/ (1 + cv(G))^delta_skew x (largest weight / (2 x unit))^delta_spread (cv: the degree skew; the
unit: `delta_rules.unit_weight`; the spread exponent held at 0, `SPREADS`), together, and
`block_size`, each the values of their grid with the least geometric mean of the slowdowns over
the graphs (ties: the largest scale, the smallest exponents, the smallest block size).
`scripts/fit_delta_model.py` writes them; the benchmark suite `model` checks them.

Rule 5's ladder (`fit_block_widths`) is fitted on other rows: the `bins grid` rows of
`scripts/probe_batch_bins.py` (the batch-end prediction at every block size), each graph's level
width from `benchmarks/data/shapes.json`. The block sizes measured, in order, and the widths from
which each next one is taken, the cuts chosen among the geometric midpoints of the graphs' widths
(and 0 and INF: a size never taken) with the least geometric mean of the slowdowns, each class of
graphs weighing the same where the caller names the classes, a size priced by its conditional best;
ties: the smallest cuts.

Rule 4's one instance per SM (`fit_wide`) is fitted on the `ck grid` rows of
`scripts/probe_batch_ck.py` (the batch-end prediction at every CK and block size): the block size
of the one-per-SM CK and the level width from which that shape is taken instead of the largest CK
with the ladder's block size, with the least summed log slowdown over the graphs, each shape priced
by its row (a missing row counts as `MISSING`); ties: the larger width, then the larger block.
"""
from __future__ import annotations

import hashlib
import itertools
import math
from collections import Counter, defaultdict
from pathlib import Path
from types import SimpleNamespace
from typing import Callable, Mapping, Sequence

from autotune.algorithms.delta import delta_values
from autotune.files import atomic_write, read_json_lines
from autotune.algorithms.delta.rules import LADDER, delta_target, ladder_size, nearest_power, unit_weight

SCALES = tuple(2.0 ** (k / 2) for k in range(-4, 21))  # 1/4 to 1024, half powers of two
SKEWS = tuple(k / 8 for k in range(9))  # 0 to 1
# Held at 0: with the lightest-arc unit (`delta_rules.unit_weight`), a spread factor only fits one
# class's Delta against another's (`scripts/study_delta_unit.py`: with the power grids left out, it
# takes the roads' 0.625 and puts the grids at 2x to 2.8x their best Delta).
SPREADS = (0.0,)
CLASSES = ("batched", "model grid")
WIDTH_CLASSES = ("bins grid",)  # rule 5's ladder: scripts/probe_batch_bins.py's rows
WIDE_CLASSES = ("ck grid",)  # rule 4's one instance per SM: scripts/probe_batch_ck.py's rows
OLD = (64.0, 0.0, 0.0)  # the constants before any fit (one prototype measurement)
MISSING = 10.0  # the slowdown counted where a graph's records cannot price a value


def read_rows(paths: Sequence[str | Path], classes: Sequence[str] = CLASSES) -> dict[str, list[dict]]:
    """The verified rows of `classes` (by default `batched` and `model grid`) of benchmark files
    (JSON Lines, plain or gzip), by graph.

    Raises:
        InputError: a file cannot be read, or a line is not JSON.
    """
    rows: dict[str, list[dict]] = defaultdict(list)
    for path in paths:
        for _number, row in read_json_lines(path, "Delta-stepping benchmark rows"):
            if isinstance(row, dict) and row.get("class") in classes and row.get("status") == "ok":
                rows[row["graph"]].append(row)
    return dict(rows)


def features(name: str, graph_dirs: Sequence[Path] = ()) -> dict:
    """The features rule 1 reads (d(G), the degree skew and the weights) of a graph named by its
    spec, or by a file name found in one of `graph_dirs`."""
    from autotune.graphs import load_graph
    from autotune.model.features import graph_statistics

    found = next((str(d / name) for d in graph_dirs if (d / name).is_file()), name)
    graph = load_graph(found)
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
    unit = unit_weight(graph.get("lightest_weight"), graph.get("mean_weight"))
    if not unit:
        return "inf"
    scale, skew, spread = constants
    domain = delta_values(SimpleNamespace(**graph))
    target = delta_target(scale, skew, spread, unit, graph.get("max_weight"), graph["d"], graph.get("degree_cv"))
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


def fit_block_widths(rows: dict[str, list[dict]], widths: Mapping[str, float],
                     taken: Callable[[str, int], int] | None = None,
                     class_of: Callable[[str], str] | None = None) -> dict[int, float]:
    """Rule 5's ladder (the module docstring) on the rows of the graphs `widths` knows: each block
    size taken and the level width from which it is (the smallest from 0; a size never taken is
    left out). `taken(graph, size)`: the size the rules take for the ladder's (its second step,
    `delta_rules.bitmap_size`), which the ladder is priced at. With `class_of(graph)`, each class
    weighs the same (a graph's price is divided by its class's count of graphs), so that the class
    with the most graphs does not place a cut that graphs of other classes dispute.

    Raises:
        ValueError: no row of a graph with a width.
    """
    def final(graph: str, size: int) -> int:
        return size if taken is None else taken(graph, size)

    prices = {g: conditional_best(rs, "block_size") for g, rs in rows.items() if widths.get(g) is not None}
    if not prices:
        raise ValueError("no block-size rows of a graph whose level width is known")
    counts = Counter(class_of(g) for g in prices) if class_of else Counter()
    weight = {g: 1 / counts[class_of(g)] if class_of else 1.0 for g in prices}
    sizes = sorted({size for priced in prices.values() for size in priced})
    known = sorted({float(widths[g]) for g in prices})
    cuts = [0.0, *(float(round(math.sqrt(low * high))) for low, high in zip(known, known[1:])), math.inf]

    def size_at(chosen: tuple[float, ...], width: float) -> int:
        return sizes[sum(width >= cut for cut in chosen)]

    def cost(chosen: tuple[float, ...]) -> float:
        return sum(weight[g] * math.log(priced.get(final(g, size_at(chosen, widths[g])), MISSING * min(priced.values()))
                                        / min(priced.values())) for g, priced in prices.items())

    best = min(itertools.combinations_with_replacement(cuts, len(sizes) - 1), key=cost)
    return {size: start for size, start in zip(sizes, (0.0, *best)) if not math.isinf(start)}


def fit_wide(rows: dict[str, list[dict]], widths: Mapping[str, float], ladder: Mapping[int, float],
             per_sm_ck: int) -> tuple[float, int]:
    """Rule 4's (`wide_width`, `wide_block_size`) on the rows of the graphs `widths` knows (the
    module docstring; a width of INF: never); `per_sm_ck`: the records' GPU's CK of one instance
    per SM (128 on 132 SMs).

    Raises:
        ValueError: no row of a graph with a width.
    """
    def key(row: dict) -> tuple[int, int]:
        return value_of(row, "concurrent_kernels"), value_of(row, "block_size")

    priced = {g: {key(r): r["ms_per_sssp"] for r in rs} for g, rs in rows.items() if widths.get(g) is not None}
    if not priced:
        raise ValueError("no CK rows of a graph whose level width is known")
    largest = max(ck for times in priced.values() for ck, _ in times)
    sizes = sorted({size for times in priced.values() for ck, size in times if ck == per_sm_ck})
    known = sorted({float(widths[g]) for g in priced})
    cuts = [math.inf, *(float(round(math.sqrt(low * high))) for low, high in reversed(list(zip(known, known[1:])))), 0.0]

    def cost(cut: float, size: int) -> float:
        return sum(math.log(times.get((per_sm_ck, size) if widths[g] >= cut else (largest, ladder_size(ladder, widths[g])),
                                      MISSING * min(times.values())) / min(times.values()))
                   for g, times in priced.items())

    return min(((cut, size) for cut in cuts for size in reversed(sizes)), key=lambda shape: cost(*shape))


def write_constants(path: Path, constants: tuple[float, float, float], size: int, files: Sequence[Path],
                    command: str, base: Path = Path("."),
                    ladder: Mapping[int, float] | None = None, wide: tuple[float, int] | None = None) -> None:
    """Rewrite the [model] table of a characterization with fitted constants and their records
    (`files` as they are named, read from `base`), rule 5's `ladder` (`fit_block_widths`) and rule
    4's `wide` shape (`fit_wide`) when given."""
    scale, skew, spread = constants
    text = Path(path).read_text(encoding="utf-8")
    start = text.index("[model]")
    end = text.index("\n[", start + 1)
    provenance = "\n".join(f"#   {f} sha256 {hashlib.sha256((base / f).read_bytes()).hexdigest()}" for f in files)
    model = (f"[model]\n# Fitted by `{command}`\n# on the batched and model-grid records (rules 1 and 5), the\n"
             f"# bins-grid (rule 5's ladder) and ck-grid ones (rules 4 and 5 of wide levels) of:\n{provenance}\n"
             "# Rule 1: Delta = delta_scale x unit / d(G) / (1 + cv(G))^delta_skew\n"
             "#   x (largest weight / (2 x unit))^delta_spread (Meyer and Sanders' Theta(1/d); the unit: the mean\n"
             "#   of the vertices' lightest out-arc weights; cv: the degree skew).\n"
             f"delta_scale = {scale:g}\ndelta_skew = {skew:g}\ndelta_spread = {spread:g}\n"
             f"# Rule 5: the block size of the one block each instance runs on (where the level width is unknown).\n"
             f"block_size = {size}\n" + ("" if ladder is None else
             "# ... and where it is known, the largest size of the ladder whose level width it reaches\n"
             "# (`fit_block_widths`): block_width_<size> = the width from which <size> is taken.\n"
             + "".join(f"{LADDER}{s} = {start:g}\n" for s, start in sorted(ladder.items()))) + (
             "" if wide is None or math.isinf(wide[0]) else
             "# Rules 4 and 5 from the level width wide_width on (`fit_wide`): one instance per SM, blocks of\n"
             f"# wide_block_size.\nwide_width = {wide[0]:g}\nwide_block_size = {wide[1]}\n") +
             "# Rule 6: the degree from which whole blocks expand a vertex (not fitted: every batched record\n"
             "# used 1024).\nblock_threshold = 1024\n")
    atomic_write(path, text[:start] + model + text[end:], "the characterization")
