"""Delta-stepping's rules for a few sources at once (1 < K <= `one_query_shape_queries`, 16): one
query's grid shared out over the K instances (`DeltaStepping.spread_over`: 128 / K blocks each), and
the Delta and block size that shape wants, fitted on what they cost.

One query's Delta (`autotune.algorithms.delta.latency`, rule 2) is a grid's: wide buckets, so that
128 blocks find work in each. Shared out, each instance has 8 blocks at K = 16, and the Delta that
keeps 8 blocks busy is narrower, the more so the denser the graph: `scripts/probe_latency_grid.py
... 16` timed the prediction at K = 16 with every Delta within 64x of it on the H200
(`benchmarks/data/h200/spread-grid-76252fe.jsonl.gz`): the random graphs of degree 20 want 32 to 64
and those of degree 200 want 2 to 4 where one query's rules give 2,048 and 128 (+82% to +200%),
web-Stanford 128 (+40% at 2,048), while the sparse graphs (p2p, collaboration, e-mail) cost the
same at 512 to INF. And blocks of 1,024 threads beat one query's 768 on 21 of the 25 graphs priced
at both (BlogCatalog3 +51% at 768, +38% at 1,024 with one query's Delta).

The rules (fitted by `fit`, on each graph's prices at K = `queries`):

1. Block size: of the sizes every graph was priced at, the one with the least summed log slowdown
   (each graph at its best Delta for that size).
2. Delta: `delta_ratio` x rule 2's unit (the batch rule's Delta at scale 1) / mean degree ^
   `degree_exponent` / (vertices / 2^16) ^ `vertices_exponent`, the triple with the least summed log
   slowdown at that block size (`latency_prices.priced_delta_terms`: as one query's rule 2 is priced,
   with the vertices besides: the graphs of about 270k vertices and mean degree 8, web-Stanford and
   random262144-d8, want 128 where those of 12k to 37k and the same degree, anybeat and Email-Enron,
   want 512 to 1,024; the degree alone left web-Stanford +40% and cit-HepTh, its class left out,
   +105%: an ad-hoc computation on the rows above, each class left out in turn).

Applied (`apply`) to K sources at once after one query's rules and the sharing out: the block size,
and a Delta between one query's and rule 2's, log-linear in log2 K (K = 1: one query's; K = `queries`:
rule 2's). One block per instance (a graph narrow enough for one query's one block) is left as it is.
"""
from __future__ import annotations

import math
from pathlib import Path
from typing import Any, Mapping, Sequence

from autotune.algorithms.delta.fit import read_rows
from autotune.algorithms.delta.latency_prices import graph_key, priced_delta_terms
from autotune.model.decision import Decision

CLASS = "spread grid"  # the probe's rows (`scripts/probe_latency_grid.py OUT GRAPHS K`)
INF = "inf"
RATIOS = tuple(2.0 ** (k / 4) for k in range(-40, 121))  # rule 2's priced ratio: 2^-10 to 2^30, quarter octaves
VERTICES_EXPONENTS = tuple(k / 8 for k in range(9))  # 0 to 1
VERTICES_UNIT = 2**16  # the vertices' term is (vertices / VERTICES_UNIT) ^ vertices_exponent

Prices = Mapping[str, Mapping[int, Mapping[Any, float]]]  # graph key: {block size: {Delta: ms per SSSP}}


def read_prices(paths: Sequence[str | Path]) -> dict[str, dict[int, dict[Any, float]]]:
    """The `spread grid` rows' prices of grid-shaped predictions (more than one block an instance),
    by graph key, block size and Delta (the least of a value's rows); the queries they were timed
    at must be one K for all (`queries_of`)."""
    prices: dict[str, dict[int, dict[Any, float]]] = {}
    for graph, rows in read_rows(paths, (CLASS,)).items():
        for row in rows:
            config = row["config"]
            if int(config["params"].get("blocks", 1)) == 1:
                continue
            by_delta = prices.setdefault(graph_key(graph), {}).setdefault(int(config["kernels"]["advance"]["block_size"]),
                                                                          {})
            delta = config["params"]["delta"]
            by_delta[delta] = min(by_delta.get(delta, math.inf), float(row["ms_per_sssp"]))
    return prices


def queries_of(paths: Sequence[str | Path]) -> int:
    """The K the rows were timed at (their `queries`, one for all).

    Raises:
        ValueError: the rows name several Ks or none.
    """
    found = {int(row.get("queries", 0)) for rows in read_rows(paths, (CLASS,)).values() for row in rows}
    if len(found) != 1 or 0 in found:
        raise ValueError(f"the {CLASS} rows of {', '.join(map(str, paths))} are not of one K ({sorted(found)})")
    return found.pop()


def fit(samples: Sequence[Any], prices: Prices, queries: int, vertices: Mapping[str, int]) -> dict[str, Any]:
    """Rules 1 and 2 on the graphs of `samples` (`latency.LatencySample`s: the unit and mean degree
    are read; `vertices`: each one's vertices, by graph name) that `prices` has: {"queries",
    "block_size", "delta_ratio", "degree_exponent", "vertices_exponent", "graphs"} (a JSON-able table
    of the choice model), or {} where no graph is priced."""
    priced = [s for s in samples if prices.get(graph_key(s.graph)) and s.unit]
    if not priced:
        return {}
    keys = [graph_key(s.graph) for s in priced]
    sizes = sorted(set.intersection(*(set(prices[k]) for k in keys)))
    if not sizes:
        raise ValueError(f"the {CLASS} prices share no block size")

    def least(key: str) -> float:
        return min(min(by_delta.values()) for by_delta in prices[key].values())

    def size_cost(size: int) -> float:
        return round(sum(math.log(min(prices[k][size].values()) / least(k)) for k in keys), 9)

    size = min(sizes, key=lambda s: (size_cost(s), s))
    ratio, exponent, per_vertex = priced_delta_terms(
        priced, {k: prices[k][size] for k in keys}, RATIOS,
        {s.graph: max(vertices[s.graph], 1) / VERTICES_UNIT for s in priced}, VERTICES_EXPONENTS)
    return {"queries": queries, "block_size": size, "delta_ratio": ratio, "degree_exponent": exponent,
            "vertices_exponent": per_vertex, "graphs": len(priced)}


def apply(spread: Mapping[str, Any], config: Any, decisions: Sequence[Decision], algorithm: Any, graph: Any,
          unit: float, queries: int) -> tuple[Any, tuple[Decision, ...]]:
    """`config` (one query's rules shared out over `queries` instances) with the block size and the
    Delta of the rules `spread` (`fit`'s); unchanged where the shape gives one block an instance."""
    from autotune.algorithms.delta.rules import nearest_power
    from autotune.launch import KernelLaunch

    if not spread or int(config.param("blocks", 1)) == 1 or queries <= 1:
        return config, tuple(decisions)
    fitted = int(spread["queries"])
    share = min(1.0, math.log2(queries) / math.log2(fitted))
    domain = algorithm.parameter("delta").domain(graph)
    ratio = math.inf if spread["delta_ratio"] == INF else float(spread["delta_ratio"])
    exponent, per_vertex = float(spread["degree_exponent"]), float(spread.get("vertices_exponent", 0.0))
    scale = (graph.n_vertices / VERTICES_UNIT) ** per_vertex
    spread_target = ratio * unit / max(graph.mean_degree, 1e-9) ** exponent / scale if unit else math.inf
    one = config.param("delta")
    one_target = math.inf if one == INF else float(one)
    finite = [v for v in domain if isinstance(v, int)]
    if not finite or math.isinf(spread_target) and math.isinf(one_target):
        delta = one
    else:
        top = 2.0 * max(finite)  # INF read as twice the largest finite Delta, for the log-linear step
        low, high = (min(t, top) for t in (one_target, spread_target))
        target = 2 ** ((1 - share) * math.log2(low) + share * math.log2(high))
        delta = INF if target >= top and INF in domain else nearest_power(target, domain)
    size = int(spread["block_size"])
    launches = {k: KernelLaunch(size, config.kernel(k).cache) for k in algorithm.kernels}
    made = (Decision("delta", delta, "delta spread 2",
                     f"one query's {one} toward {ratio:.3g} x the unit {unit:.3g} / mean degree "
                     f"{graph.mean_degree:.2f}^{exponent:g} / (vertices {graph.n_vertices:,} / {VERTICES_UNIT:,})"
                     f"^{per_vertex:g} at {fitted} sources (fitted on {spread['graphs']} "
                     f"graphs' prices), log2 {queries} / log2 {fitted} of the way: {delta}"),
            Decision("block_size", size, "delta spread 1",
                     f"the least slowdown at {fitted} sources on {spread['graphs']} graphs' prices"))
    replaced = {d.parameter for d in made}
    return (algorithm.canonical(config.replace(delta=delta, **launches)),
            (*[d for d in decisions if d.parameter not in replaced], *made))


__all__ = ["apply", "fit", "queries_of", "read_prices"]
