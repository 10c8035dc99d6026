"""Delta-stepping's one-query rules fitted on what their values cost: the measured rows of the
one-query probes rather than the medians of a table's winners (`autotune.algorithms.delta.latency`
says when each applies).

- Rule 2's Delta (`priced_delta`), on `scripts/probe_latency_grid.py`'s `latency grid` rows (the
  one-query prediction timed at every Delta within 64x of its own): the ratio (eighths of an
  octave) and degree exponent (0 to 2 by eighths) with the least summed log slowdown over the
  shape's graphs, a Delta priced at the measured one nearest it (ties: the smallest exponent, then
  the middle of the tied ratios).
- Rules 3 and 4 of the grid (`priced_bins`), on `scripts/probe_latency_bins.py`'s `latency bins
  grid` rows (the grid prediction at every block threshold crossed with six block sizes): one
  split of the graphs by level width (rule 1's feature; cut at the midpoint between two graphs'
  widths, at least `MIN_SIDE` graphs a side), each side the block size and block threshold with
  its graphs' least summed log slowdown; the split with the least total, none where none beats one
  pair for all (ties: the smaller size, then the smaller threshold; the lower cut). Mean and
  largest degree were candidates too and split the full fit the same way, but with the R-MAT
  graphs left out they cut at mean degree 8.1 and gave R-MAT threshold 128, 1.8x to 5.7x its
  best in the rows of `benchmarks/data/h100/latency-bins-f71269e.jsonl.gz` at 68a5795 (the level width
  alone: 1.02x to 1.36x; an ad-hoc computation on those rows, not a committed command).

A graph's rows are keyed by its name less `.csr.npz` (`graph_key`): the probes name a graph of
the real-graph suite as given on their command line, the tables by its converted file.
"""
from __future__ import annotations

import math
import statistics
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

from autotune.algorithms.delta import INFINITE
from autotune.graphs.csr_file import CSR_SUFFIX
from autotune.algorithms.delta.fit import MISSING, conditional_best, nearest_measured, read_rows

RATIOS = tuple(2.0 ** (k / 8) for k in range(-80, 241))  # rule 2's priced ratio: 2^-10 to 2^30
EXPONENTS = tuple(k / 8 for k in range(17))  # rule 2's degree exponent: 0 to 2
MIN_SIDE = 2


def graph_key(name: str) -> str:
    return name.removesuffix(CSR_SUFFIX)


def read_prices(paths: Sequence[str | Path]) -> dict[str, dict[Any, float]]:
    """Rule 2's prices: graph key: {Delta: the least verified ms per SSSP} of the `latency grid`
    rows of benchmark files, the last file's where several price a graph (`_last_file_wins`)."""
    return _last_file_wins(paths, _deltas_of)


def read_bins_prices(paths: Sequence[str | Path]) -> dict[str, dict[tuple[int, Any], float]]:
    """Rules 3 and 4's prices: graph key: {(block size, block threshold): ms per SSSP} of the
    `latency bins grid` rows at the grid size of the graph's first row (the prediction's), the
    last file's where several price a graph (`_last_file_wins`)."""
    return _last_file_wins(paths, _bins_of)


def _last_file_wins(paths: Sequence[str | Path], of_file: Callable[[str | Path], dict[str, Any]]) -> dict[str, Any]:
    """Each file's prices (`of_file`), a graph priced by several files taking the last one's: a
    later probe (another kernel, another predicted shape or grid) supersedes an earlier one graph
    by graph."""
    prices: dict[str, Any] = {}
    for path in paths:
        prices.update(of_file(path))
    return prices


def _deltas_of(path: str | Path) -> dict[str, dict[Any, float]]:
    """One file's Delta prices, by graph key (`read_prices`)."""
    return {graph_key(g): conditional_best(rows, "delta") for g, rows in read_rows([path], ("latency grid",)).items()}


def _bins_of(path: str | Path) -> dict[str, dict[tuple[int, Any], float]]:
    """One file's bins prices, by graph key (`read_bins_prices`)."""
    prices: dict[str, dict[tuple[int, Any], float]] = {}
    for graph, rows in read_rows([path], ("latency bins grid",)).items():
        blocks = rows[0]["config"]["params"].get("blocks")
        found = prices.setdefault(graph_key(graph), {})
        for row in rows:
            config = row["config"]
            if config["params"].get("blocks") == blocks:
                key = (int(config["kernels"]["advance"]["block_size"]), config["params"].get("block_threshold"))
                found[key] = min(found.get(key, math.inf), row["ms_per_sssp"])
    return prices


def _log_slowdown(price: Mapping[Any, float], at: Any) -> float:
    return math.log(price[at] / min(price.values())) if at in price else math.log(MISSING)


def priced_delta(group: Sequence[Any], prices: Mapping[str, Mapping[Any, float]]) -> tuple[float, float]:
    """Rule 2's ratio and degree exponent for one shape's winners (`LatencySample`s, each with
    prices), by the time their Deltas cost (`MISSING` where an INF predicted was not measured)."""
    ratio, exponent, _ = priced_delta_terms(group, prices)
    return ratio, exponent


def priced_delta_terms(group: Sequence[Any], prices: Mapping[str, Mapping[Any, float]],
                       ratios: Sequence[float] = RATIOS, sizes: Mapping[str, float] | None = None,
                       size_exponents: Sequence[float] = (0.0,)) -> tuple[float, float, float]:
    """`priced_delta` with a third term: Delta = ratio x unit / mean degree ^ exponent / size ^
    size_exponent (`sizes`: each sample's graph name: its size term; 1 where not given), over the
    grids `ratios`, `EXPONENTS` and `size_exponents`: (ratio, exponent, size exponent) of the least
    summed log slowdown (ties: the smallest exponents, then the middle of the tied ratios)."""
    slowdowns: dict[tuple[int, Any], float] = {}

    def slowdown(index: int, target: float) -> float:
        key = (index, round(math.log2(target)) if math.isfinite(target) else None)
        if key not in slowdowns:
            measured = prices[graph_key(group[index].graph)]
            slowdowns[key] = _log_slowdown(measured, nearest_measured(2 ** key[1] if key[1] is not None else INFINITE,
                                                                      measured))
        return slowdowns[key]

    def cost(ratio: float, exponent: float, size_exponent: float) -> float:
        total = 0.0
        for index, s in enumerate(group):
            size = (sizes or {}).get(s.graph, 1.0) ** size_exponent
            total += slowdown(index, ratio * s.unit / max(s.mean_degree, 1e-9) ** exponent / size if s.unit else math.inf)
        return round(total, 9)

    costs = {(g, e, r): cost(r, e, g) for g in size_exponents for e in EXPONENTS for r in ratios}
    least = min(costs.values())
    size_exponent, exponent = min((g, e) for (g, e, _), c in costs.items() if c == least)
    tied = sorted(r for (g, e, r), c in costs.items() if (g, e) == (size_exponent, exponent) and c == least)
    return round(statistics.median_low(tied), 3), exponent, size_exponent


def priced_bins(group: Sequence[Any], prices: Mapping[str, Mapping[tuple[int, Any], float]]) -> dict[str, Any]:
    """Rules 3 and 4 of the grid for its winners (each with prices): {"cut", "low", "high"}, the
    level width and each side's {"block_size", "block_threshold"} (cut 0 where one pair serves
    all, given as both sides)."""
    graphs = [graph_key(s.graph) for s in group]
    pairs = sorted(set.intersection(*(set(prices[g]) for g in graphs)), key=lambda p: (p[0], _order(p[1])))
    if not pairs:
        raise ValueError("the grid's bins prices share no (block size, block threshold) pair")

    def side(members: Sequence[str]) -> tuple[float, tuple[int, Any]]:
        costs = [(round(sum(_log_slowdown(prices[g], p) for g in members), 9), p) for p in pairs]
        least = min(c for c, _ in costs)
        return least, next(p for c, p in costs if c == least)

    whole, pair = side(graphs)
    best: tuple[float, float, tuple[int, Any], tuple[int, Any]] = (whole, 0.0, pair, pair)
    widths = sorted({s.level_width for s in group})
    for low, high in zip(widths, widths[1:]):
        cut = (low + high) / 2
        below = [graph_key(s.graph) for s in group if s.level_width < cut]
        above = [graph_key(s.graph) for s in group if s.level_width >= cut]
        if min(len(below), len(above)) < MIN_SIDE:
            continue
        (low_cost, low_pair), (high_cost, high_pair) = side(below), side(above)
        if round(low_cost + high_cost, 9) < best[0]:
            best = (round(low_cost + high_cost, 9), cut, low_pair, high_pair)
    _, cut, low_pair, high_pair = best
    return {"cut": cut, "low": _bins(low_pair), "high": _bins(high_pair)}


def _order(threshold: Any) -> float:
    return float(threshold) if isinstance(threshold, int) else math.inf


def _bins(pair: tuple[int, Any]) -> dict[str, Any]:
    return {"block_size": pair[0], "block_threshold": pair[1]}


__all__ = ["graph_key", "priced_bins", "priced_delta", "priced_delta_terms", "read_bins_prices", "read_prices"]
