"""Delta-stepping's rules for one query (K = 1): one block per query or a grid, and the Delta, block
size, bins and loop of each, fitted on the one-query winners of a tuned table.

The batch rules (`autotune.algorithms.delta.rules`) give every instance one block: many instances fill
the GPU. One query has the GPU to itself, and what it wants depends on how much work each
near-far iteration has to share out: the graph's level width (`autotune.model.shape`: the
vertices a source reaches per breadth-first level). On the H100's table, one block won every graph
whose width is below a few hundred (roads, meshes, Delaunay and geometric graphs), a
grid every wider one (social, citation, p2p, web, R-MAT, random graphs): of 128 or 132 blocks, one
a SM, on every real and R-MAT graph since their grids were re-swept up to 132 (run AG of
docs/notes/delta-kernels.md). Every value is fitted (`fit`), none is written here:

1. Shape: one block when the level width is below `width_threshold`, the geometric midpoint of
   the split of the samples' widths that misplaces the fewest winners; else `grid_blocks`, the
   median (the lower middle) of the grid winners' blocks.
2. Delta: `delta_ratio` x the batch rule's unit (mean weight / mean degree, with the batch
   model's skew and weight-spread factors: `delta_rules.delta_target` at scale 1) / mean degree
   ^ `degree_exponent`, rounded to the nearest power of two of the graph's domain. Where every
   winner of a shape has prices (`prices`: `scripts/probe_latency_grid.py`'s rows), the ratio and
   exponent are those that cost the least (`latency_prices.priced_delta`). Otherwise the exponent is
   the one whose ratio, the median of that shape's winners' (INF where the median winner is INF),
   predicts the winners' Delta with the least summed log error (ties: the smallest): one query's
   Delta falls faster with the degree than the batch's (on the H100's one-block winners, 32 at
   mean degree 15 to 1,024 at 2.4 with the same weights). A shape without winners of its own
   (`delta_batch`) takes the batch rule's Delta (its scale, exponent 0): the batch gives each
   instance one block too, where the other shape's ratio would be a grid's (INF on the H100's
   table, a Bellman-Ford order that one block pays for in iterations: mesh-bcsstk25 4.8 ms
   against 0.78 with its class left out, suite `classout` at e9a7d0d).
3. Block size: the median of that shape's winners.
4. Bins: the median of the shape's warp and block thresholds, over the winners whose largest
   degree reaches the bin's smallest threshold (elsewhere the bin is never used, and any value
   won), a threshold above the largest degree counted as off.
   Where at least half the grid winners have bins prices (`bins_prices`: `scripts/probe_latency_bins.py`'s
   rows), the grid's block size and block threshold are instead `grid_bins`: the pair that costs
   the least on each side of one split of those graphs by level width (`latency_prices.priced_bins`).
5. Loop: `shared` (the graph in one block's shared memory) for one block where the graph fits and
   the winners that could use it mostly did; else persistent.
6. Deferral (`defer_work`, grids only): a grid defers where the graph's mean degree is at least
   `defer_degree`, the geometric midpoint of the split of the grid winners' mean degrees that
   places the most of them right (deferring or not), with W = `defer_weights` x its largest
   weight, the median (the lower middle) over the deferring winners; no grid winner deferring,
   none defers. On the H100's table R-MAT's grids and the random graphs' of degree 20 and 200 defer
   (runs Z and AB of docs/notes/delta-kernels.md).

Example::

    >>> samples = [LatencySample(f"g{i}", width, 25.0, 6, {"blocks": blocks, "delta": delta,
    ...            "loop": "persistent", "warp_threshold": "off", "block_threshold": 1024}, 1024, False)
    ...            for i, (width, blocks, delta) in enumerate([(300, 1, 64), (500, 1, 128), (2000, 64, "inf"),
    ...                                                       (9000, 128, "inf")])]
    >>> rules = fit(samples)
    >>> round(rules.width_threshold), rules.grid_blocks, rules.delta_ratio["block"], rules.degree_exponent["block"]
    (1000, 64, 2.56, 0.0)
"""
from __future__ import annotations

import math
import statistics
import dataclasses
from dataclasses import asdict, dataclass
from typing import Any, Mapping, Sequence

from autotune.launch import KernelLaunch
from autotune.algorithms.delta.latency_prices import EXPONENTS, graph_key, priced_bins, priced_delta
from autotune.model.decision import Decision

SECTION = "delta_latency"  # the choice model's TOML table that holds these rules
INF = "inf"
SHAPES = ("block", "grid")


@dataclass(frozen=True)
class LatencySample:
    """A graph's one-query winner (Delta-stepping) and the features its rules read."""

    graph: str
    level_width: float
    unit: float  # rule 2's unit of Delta for the graph (0: no weights)
    max_degree: int
    params: Mapping[str, Any]
    block_size: int
    shared_fits: bool  # the graph fits loop mode shared
    mean_degree: float = 1.0
    max_weight: float = 0.0  # the largest arc weight (0: unknown)

    @property
    def shape(self) -> str:
        return "block" if int(self.params.get("blocks", 1)) == 1 else "grid"

    def defer_weights(self) -> float | None:
        """The winner's `defer_work` in its largest weights (None: it does not defer)."""
        work = self.params.get("defer_work", "off")
        return None if work == "off" or not self.max_weight else float(work) / self.max_weight

    def delta_ratio(self) -> float:
        """The winner's Delta in rule 2's unit (inf for INF)."""
        delta = self.params.get("delta")
        return math.inf if delta == INF or not self.unit else float(delta) / self.unit


@dataclass(frozen=True)
class LatencyRules:
    """The fitted constants of rules 1-6 (per shape where a dict); `spread`: the rules for a few at once
    (`spread.fit`); `batch_ladder`: the batch rules' block sizes by level width (`delta.rules` rule 5:
    size -> the width from which it is taken) fitted on this GPU's probe (`table.fit.fit_batch_ladder`),
    empty where the characterization's are kept."""

    width_threshold: float
    grid_blocks: int
    delta_ratio: Mapping[str, float]  # inf: INF
    block_size: Mapping[str, int]
    warp_threshold: Mapping[str, Any]
    block_threshold: Mapping[str, Any]
    shared_where_fits: bool
    unit_skew: float  # the batch model's constants rule 2's unit was taken with
    unit_spread: float
    samples: int
    placed: int  # samples whose shape rule 1 gives
    degree_exponent: Mapping[str, float] = dataclasses.field(default_factory=lambda: {shape: 0.0 for shape in SHAPES})
    delta_priced: Mapping[str, int] = dataclasses.field(default_factory=lambda: {shape: 0 for shape in SHAPES})
    grid_bins: Mapping[str, Any] = dataclasses.field(default_factory=dict)  # rules 3-4 priced: `priced_bins`
    defer_degree: float = math.inf  # rule 6 (inf: no grid defers)
    defer_weights: float = 0.0
    delta_batch: Mapping[str, bool] = dataclasses.field(default_factory=lambda: {shape: False for shape in SHAPES})
    spread: Mapping[str, Any] = dataclasses.field(default_factory=dict)  # a few at once: `spread.fit`'s
    batch_ladder: Mapping[str, float] = dataclasses.field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["delta_ratio"] = {k: (INF if math.isinf(v) else v) for k, v in self.delta_ratio.items()}
        data["defer_degree"] = INF if math.isinf(self.defer_degree) else self.defer_degree
        return data

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> LatencyRules:
        ratios = {k: (math.inf if v == INF else float(v)) for k, v in data["delta_ratio"].items()}
        defer = data.get("defer_degree", INF)  # absent from models fitted before rule 6
        return cls(**{**dict(data), "delta_ratio": ratios, "defer_degree": math.inf if defer == INF else float(defer)})

    def shape_for(self, level_width: float) -> str:
        return "block" if level_width < self.width_threshold else "grid"

    def apply(self, config: Any, decisions: Sequence[Decision], algorithm: Any, graph: Any, level_width: float
              ) -> tuple[Any, tuple[Decision, ...]]:
        """`config` (the batch rules' configuration at CK 1) with rules 1-5's values, and the
        decisions with theirs."""
        from autotune.algorithms.delta import SHARED, loop_values
        from autotune.algorithms.delta.rules import nearest_power, unit_weight

        shape = self.shape_for(level_width)
        side = "<" if shape == "block" else ">="
        why = f"level width {level_width:,.0f} {side} {self.width_threshold:,.0f} (fitted on {self.samples} one-query winners)"
        blocks = 1 if shape == "block" else self.grid_blocks
        ratio = self.delta_ratio[shape]
        domain = algorithm.parameter("delta").domain(graph)
        unit = delta_unit(unit_weight(graph.lightest_weight, graph.mean_weight), graph.max_weight, graph.mean_degree,
                          graph.degree_cv, self.unit_skew, self.unit_spread)
        exponent = self.degree_exponent.get(shape, 0.0)
        finite = not math.isinf(ratio) and unit and any(isinstance(v, int) for v in domain)
        target = ratio * unit / max(graph.mean_degree, 1e-9) ** exponent if finite else math.inf
        delta = nearest_power(target, domain) if finite else INF if INF in domain else config.param("delta")
        loop = SHARED if shape == "block" and self.shared_where_fits and SHARED in loop_values(graph) else "persistent"
        params = {"blocks": blocks, "delta": delta, "loop": loop}
        made = [Decision("blocks", blocks, "delta latency 1", why + (": one block" if blocks == 1 else
                                                                     f": the grid winners' median, {blocks}")),
                Decision("delta", delta, "delta latency 2", f"{self._ratio_source(shape)} {ratio:.3g} x the batch rule's "
                         f"unit {unit:.3g}" + (f" / mean degree {graph.mean_degree:.2f}^{exponent:g}" if exponent else "")
                         + f": {delta}"),
                Decision("loop", loop, "delta latency 5", "the graph fits one block's shared memory" if loop == SHARED
                         else "persistent: one launch")]
        priced = self._priced_bins(shape, level_width)
        for name, chosen in (("warp_threshold", self.warp_threshold), ("block_threshold", self.block_threshold)):
            value = priced[0]["block_threshold"] if priced and name == "block_threshold" else chosen[shape]
            if value in algorithm.parameter(name).domain(graph):
                params[name] = value
                made.append(Decision(name, value, "delta latency 4", priced[1] if priced and name == "block_threshold"
                                     else f"the median of the {shape} winners whose degrees reach the bin"))
        defer = self._defer(shape, algorithm, graph)
        if defer is not None:
            params["defer_work"] = defer[0]
            made.append(Decision("defer_work", defer[0], "delta latency 6", defer[1]))
        size = priced[0]["block_size"] if priced else self.block_size[shape]
        launches = {k: KernelLaunch(size, config.kernel(k).cache) for k in algorithm.kernels}
        changed = config.replace(**params, **launches)
        made.append(Decision("block_size", size, "delta latency 3", priced[1] if priced else f"the {shape} winners' median"))
        replaced = {d.parameter for d in made}
        return algorithm.canonical(changed), (*[d for d in decisions if d.parameter not in replaced], *made)

    def apply_spread(self, config: Any, decisions: Sequence[Decision], algorithm: Any, graph: Any, queries: int
                     ) -> tuple[Any, tuple[Decision, ...]]:
        """`config`, one query's shared out over `queries` instances, with the spread rules' block
        size and Delta (`autotune.algorithms.delta.spread`) where fitted, in rule 2's unit."""
        from autotune.algorithms.delta import spread
        from autotune.algorithms.delta.rules import unit_weight

        unit = delta_unit(unit_weight(graph.lightest_weight, graph.mean_weight), graph.max_weight, graph.mean_degree,
                          graph.degree_cv, self.unit_skew, self.unit_spread)
        return spread.apply(self.spread, config, decisions, algorithm, graph, unit, queries)

    def _priced_bins(self, shape: str, level_width: float) -> tuple[Mapping[str, Any], str] | None:
        """Rules 3-4's priced pair for the grid (`grid_bins`) and why; None where not fitted."""
        split = self.grid_bins
        if shape != "grid" or not split:
            return None
        if not split["cut"]:
            return split["low"], f"the least slowdown on {split['graphs']} grid graphs' bins prices"
        below = level_width < float(split["cut"])
        return (split["low" if below else "high"],
                f"level width {level_width:,.0f} {'<' if below else '>='} {float(split['cut']):,.0f}: "
                f"the least slowdown on that side of {split['graphs']} grid graphs' bins prices")

    def _defer(self, shape: str, algorithm: Any, graph: Any) -> tuple[Any, str] | None:
        """Rule 6's `defer_work` and why (None where the graph's domain has no other value than off)."""
        domain = algorithm.parameter("defer_work").domain(graph)
        values = [v for v in domain if isinstance(v, int)]
        if not values:
            return None
        if shape != "grid" or math.isinf(self.defer_degree) or graph.mean_degree < self.defer_degree:
            why = ("one block defers nothing" if shape != "grid" else "no grid winner defers" if
                   math.isinf(self.defer_degree) else f"mean degree {graph.mean_degree:.1f} < {self.defer_degree:.1f}")
            return "off", why
        target = self.defer_weights * (graph.max_weight or values[0])
        value = min(values, key=lambda v: (abs(math.log2(v / target)), v))
        return value, (f"mean degree {graph.mean_degree:.1f} >= {self.defer_degree:.1f}: the deferring grid winners' "
                       f"median {self.defer_weights:g} x the largest weight: {value}")

    def _ratio_source(self, shape: str) -> str:
        if self.delta_batch.get(shape):
            return f"no {shape} winners: the batch rule's scale"
        priced = self.delta_priced.get(shape, 0)
        return f"the ratio with the least slowdown on {priced} {shape} graphs' prices" if priced else f"{shape} winners' median"


def delta_unit(weight: float | None, max_weight: float | None, mean_degree: float, degree_cv: float | None,
               skew: float, spread: float) -> float:
    """Rule 2's unit of Delta: the batch rule's Delta at scale 1 (0 for a graph without weights);
    `weight`: the batch rule's weight unit (`delta_rules.unit_weight`)."""
    from autotune.algorithms.delta.rules import delta_target

    return delta_target(1.0, skew, spread, weight, max_weight, mean_degree, degree_cv) if weight else 0.0


def batch_constants() -> tuple[float, float]:
    """The shipped batch model's skew and spread exponents (`algorithms/delta/delta.toml`)."""
    constants = _shipped_batch()
    return float(constants["delta_skew"]), float(constants["delta_spread"])


def _shipped_batch() -> Mapping[str, Any]:
    from autotune import algorithms
    from autotune.algorithms.delta.rules import constants_of

    return constants_of(algorithms.get("delta").characterization)


def _bin(name: str, group: Sequence[LatencySample]) -> Any:
    """Rule 4's threshold for one bin: the median (the lower middle) over the winners whose degrees
    reach its smallest threshold, a threshold above a winner's largest degree counted as off."""
    from autotune import algorithms

    smallest = min(v for v in algorithms.get("delta").parameter(name).values if isinstance(v, int))
    used = [s for s in group if s.max_degree >= smallest] or list(group)
    middle = statistics.median_low([v if isinstance(v, int) and v <= s.max_degree else math.inf
                                    for s in used for v in [s.params.get(name)]])
    return "off" if math.isinf(middle) else int(middle)


def _split(points: Sequence[tuple[float, bool]]) -> tuple[float, int]:
    """The cut that places the most (value, below) points right (below: the value should be under
    it), at the geometric midpoint of two neighbouring values (inf: every value below it), and how
    many it places right. Rule 1 splits the level widths, rule 6 the grid winners' mean degrees."""
    values = sorted({value for value, _ in points})
    best = (math.inf, sum(below for _, below in points))
    for low, high in zip(values, values[1:]):
        cut = math.sqrt(low * high)
        placed = sum((value < cut) == below for value, below in points)
        if placed > best[1]:
            best = (cut, placed)
    return best


def fit(samples: Sequence[LatencySample], unit: tuple[float, float] | None = None,
        prices: Mapping[str, Mapping[Any, float]] | None = None,
        bins_prices: Mapping[str, Mapping[tuple[int, Any], float]] | None = None,
        batch_scale: float | None = None) -> LatencyRules:
    """Rules 1-5's constants from one-query winners (at least one of each shape, else the missing
    shape takes the other's values but for Delta, the batch rule's: `batch_scale`, default the
    shipped batch model's); `unit`: the skew and spread exponents the samples' units
    were taken with (default: the shipped batch model's, as `table_samples` takes them);
    `prices` (`latency_prices.read_prices`): rule 2's measure where a shape's winners all have
    them; `bins_prices` (`read_bins_prices`): rules 3-4's for the grid, on its winners that have
    them where they are at least half of them."""
    from autotune.algorithms.delta import GRID_BLOCKS

    if not samples:
        raise ValueError("no one-query Delta-stepping winners to fit on")
    threshold, placed = _split([(s.level_width, s.shape == "block") for s in samples])
    skew, spread = unit or batch_constants()
    by_shape = {shape: [s for s in samples if s.shape == shape] for shape in SHAPES}
    from_batch = {shape: not group for shape, group in by_shape.items()}
    for shape, other in (("block", "grid"), ("grid", "block")):
        by_shape[shape] = by_shape[shape] or by_shape[other]
    grids = [int(s.params["blocks"]) for s in by_shape["grid"] if s.shape == "grid"]
    fits = [s for s in by_shape["block"] if s.shape == "block" and s.shared_fits]
    prices, bins_prices = prices or {}, bins_prices or {}
    priced = {shape: len(group) if not from_batch[shape] and all(prices.get(graph_key(s.graph)) for s in group) else 0
              for shape, group in by_shape.items()}
    scale = float(_shipped_batch()["delta_scale"]) if batch_scale is None else batch_scale
    deltas = {shape: (scale, 0.0) if from_batch[shape] else priced_delta(group, prices) if priced[shape]
              else _fit_delta(group) for shape, group in by_shape.items()}
    grid_winners = [s for s in samples if s.shape == "grid"]
    defer_degree, defer_weights = _fit_defer(grid_winners)
    priced_grids = [s for s in grid_winners if bins_prices.get(graph_key(s.graph))]
    grid_bins = ({**priced_bins(priced_grids, bins_prices), "graphs": len(priced_grids)}
                 if priced_grids and 2 * len(priced_grids) >= len(grid_winners) else {})
    return LatencyRules(
        width_threshold=threshold,
        grid_blocks=statistics.median_low(grids) if grids else GRID_BLOCKS,
        delta_ratio={shape: ratio for shape, (ratio, _) in deltas.items()},
        degree_exponent={shape: exponent for shape, (_, exponent) in deltas.items()},
        block_size={shape: 32 * round(statistics.median(s.block_size for s in group) / 32)
                    for shape, group in by_shape.items()},
        warp_threshold={shape: _bin("warp_threshold", group) for shape, group in by_shape.items()},
        block_threshold={shape: _bin("block_threshold", group) for shape, group in by_shape.items()},
        shared_where_fits=bool(fits) and 2 * sum(s.params.get("loop") == "shared" for s in fits) > len(fits),
        unit_skew=skew, unit_spread=spread,
        samples=len(samples), placed=placed, delta_priced=priced, grid_bins=grid_bins,
        defer_degree=defer_degree, defer_weights=defer_weights, delta_batch=from_batch)


def _fit_defer(grids: Sequence[LatencySample]) -> tuple[float, float]:
    """Rule 6: the mean degree from which a grid defers and its W in largest weights (inf, 0: none)."""
    deferring = [w for s in grids if (w := s.defer_weights()) is not None]
    if not deferring:
        return math.inf, 0.0
    cut, _ = _split([(s.mean_degree, s.defer_weights() is None) for s in grids])
    return cut, statistics.median_low(deferring)


def _fit_delta(group: Sequence[LatencySample]) -> tuple[float, float]:
    """Rule 2's ratio and degree exponent for one shape's winners."""
    def ratio_at(exponent: float) -> float:
        return _median_ratio([s.delta_ratio() * max(s.mean_degree, 1e-9) ** exponent for s in group])

    def error(exponent: float) -> float:
        ratio = ratio_at(exponent)
        return sum(abs(math.log2(ratio * s.unit / max(s.mean_degree, 1e-9) ** exponent) - math.log2(float(s.params["delta"])))
                   for s in group if not math.isinf(s.delta_ratio()) and not math.isinf(ratio))

    exponent = min(EXPONENTS, key=lambda e: (error(e), e))
    return ratio_at(exponent), exponent


def _median_ratio(ratios: Sequence[float]) -> float:
    """The median (the lower middle of an even count), INF counted as the largest."""
    middle = statistics.median_low(ratios)
    return middle if math.isinf(middle) else round(middle, 3)


def table_samples(entries: Sequence[Any], widths: Mapping[str, float], unit: tuple[float, float] | None = None,
                  weights: Mapping[str, float | None] | None = None) -> list[LatencySample]:
    """The one-query winners of a table's curves (its entries, `autotune.table.Entry`) that are
    Delta-stepping's, for the graphs `widths` (graph name: level width) knows; `unit` as `fit` takes
    it; `weights`: each graph's lightest-arc weight (`GraphShape.lightest_weight`: tables do not hold
    it), rule 1's weight unit, else its mean weight."""
    from types import SimpleNamespace

    from autotune.algorithms.delta import DELTA, SHARED, loop_values
    from autotune.algorithms.delta.rules import unit_weight

    skew, spread = unit or batch_constants()
    samples = []
    for entry in entries:
        graph = entry.graph
        one = [p for p in entry.curve if p.ck == 1 and p.ms_per_sssp is not None]
        if not one or one[0].algorithm != DELTA.name or graph.name not in widths:
            continue
        config = one[0].config_json
        samples.append(LatencySample(
            graph.name, float(widths[graph.name]),
            delta_unit(unit_weight((weights or {}).get(graph.name), graph.get("mean_weight")), graph.get("max_weight"),
                       graph.mean_degree, graph.get("degree_cv"), skew, spread),
            int(graph.get("max_degree") or 0), dict(config.get("params") or {}),
            int(config["kernels"]["advance"]["block_size"]),
            SHARED in loop_values(SimpleNamespace(n_vertices=graph.vertices, n_edges=graph.edges)),
            graph.mean_degree, float(graph.get("max_weight") or 0)))
    return samples


__all__ = ["LatencyRules", "LatencySample", "SECTION", "fit", "table_samples"]
