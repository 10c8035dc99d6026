"""What a graph's sweep is (`GraphPlan`: the graph, its space, the strategy, the specials and the
`SweepSettings`), the wall-time `Budget` it runs under, and the queries curve's helpers: which
configurations are references (never a curve point, a best or a lookup's answer) and which CK
values a sweep bridges from its neighbours.

The queries curve (the default objective, `autotune sweep`): per graph, the best configuration for
each power-of-two number of concurrent SSSPs from 1 to the largest that pays. Its two ends and its
middle are searched by studies of their own (the batch end: every CK; the latency end: CK 1, where
the grid or block per instance, Δ and the thresholds differ; the middle: CK 2 to 16, a few queries
spread over the GPU, `cli.sweep_jobs.ends`), and each CK in between that the search left
without a verified point is *bridged*: the fastest verified configurations at the nearest CK below
and above, with CK set to it, are measured, with the shapes the algorithm adds (Δ-stepping: its
instances spread over a grid, as one query's are; `bridges`). Where a point is still missing, a lookup
derives it from the nearest tuned point and says so (`autotune.table.lookup`).
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Mapping, Sequence

from autotune.launch import LaunchConfig
from autotune.measure import DEFAULT_SAMPLE, long_batches
from autotune.search.results import ConfigResult, GraphInfo, ranked
from autotune.search.space import SearchSpace
from autotune.search.run.specials import Specials
from autotune.search.strategies import Strategy
from autotune.search.run.pruning import DEFAULT_CONTENDER_FACTOR, DEFAULT_PRUNE_FACTOR


@dataclass(frozen=True)
class SweepSettings:
    """How the winner is chosen, and what a hopeless trial costs.

    Args:
        finalists: how many of the best configurations are measured again.
        rounds: interleaved rounds of re-measurement.
        prune: stop timing a configuration already `prune_factor` times slower than the best,
            and the other savings of `trials`' docstring.
        prune_factor: the bound (`pruning.RelativePruner`).
        contender_factor: a measurement more than this times the best after a whole repetition
            takes no more repetitions (with `prune`).
        bridge: after the search, measure a point for every CK up to the best's that has none
            (`bridges`), except the CK values in `searched_elsewhere` (another study searches them).
        searched_elsewhere: CK values another study of the graph searches (the latency end and the
            middle).
        prune_references: prune the specials like any trial (the curve's latency end and middle: a
            table reports the batch end's specials, so theirs are not measured whole).
        patience: a sampling search stops once this many trials in a row finished without bettering
            the study's best by `IMPROVEMENT` (0: it samples its whole trial budget).
        enough: a search that leads its end of the curve stops for patience only once it has verified
            this many configurations at its best's CK (`short_of_enough`; the curve's two ends, and a
            sweep of one end given no `--trials`).
    """

    finalists: int = 3
    rounds: int = 3
    prune: bool = False
    prune_factor: float = DEFAULT_PRUNE_FACTOR
    contender_factor: float = DEFAULT_CONTENDER_FACTOR
    bridge: bool = False
    searched_elsewhere: tuple[int, ...] = ()
    prune_references: bool = False
    patience: int = 0
    enough: int = 0

    def to_json(self) -> dict[str, Any]:
        data = {"finalists": self.finalists, "rounds": self.rounds, "prune": self.prune,
                "prune_factor": self.prune_factor, "contender_factor": self.contender_factor}
        if self.bridge:
            data["bridge"] = True
            data["searched_elsewhere"] = list(self.searched_elsewhere)
        if self.prune_references:
            data["prune_references"] = True
        if self.patience:
            data["patience"] = self.patience
        if self.enough:
            data["enough"] = self.enough
        return data


@dataclass(frozen=True)
class GraphPlan:
    """What a graph's sweep is: the graph, its space, the strategy, the specials and the settings."""

    graph: GraphInfo
    space: SearchSpace
    strategy: Strategy
    specials: Specials
    settings: SweepSettings = field(default_factory=SweepSettings)

    @property
    def algorithm(self) -> str:
        return self.space.algorithm

    def neighbourhood(self) -> list[LaunchConfig]:
        """The configurations around the prediction that the strategy measures right after it."""
        return self.strategy.neighbourhood(self.space, self.specials.prediction)

    def first_trials(self, specials: Sequence[LaunchConfig]) -> list[LaunchConfig]:
        """The search's first trials in order (`specials`: those measured in the search): the
        strategy's, the prediction first where it leads or comes first, then its neighbourhood."""
        return self.specials.first(self.strategy.first_trials(self.space, specials), self.neighbourhood())


DEFAULT_PATIENCE = 12  # trials without a 1% gain that end a default sweep's sampling (`SweepSettings.patience`)
IMPROVEMENT = 0.01


def converged_after(values: Sequence[float | None], patience: int, improvement: float = IMPROVEMENT) -> int | None:
    """How many finished trials a search had taken when `patience` of them in a row had not bettered
    its best by `improvement` (the values in finishing order, None for a pruned or failed one); None
    while it has not converged (or with `patience` 0).

    Example:
        >>> converged_after([3.0, 2.0, 1.995, None, 1.99, 2.5], 3)
        5
        >>> converged_after([3.0, 2.0, 1.5, 1.0], 3) is None
        True
    """
    if patience <= 0:
        return None
    best, since = float("inf"), 0
    for count, value in enumerate(values, 1):
        if value is not None and value < best * (1.0 - improvement):
            since = 0
        else:
            since += 1
        if value is not None:
            best = min(best, value)
        if since >= patience:
            return count
    return None


ENOUGH_AT_END = 30  # verified configurations at each end of the curve before its leading study converges (issue 68)


def short_of_enough(points: Sequence[ConfigResult], enough: int, best_elsewhere: float | None) -> bool:
    """Whether a study may not converge yet: it leads its end of the curve (its fastest verified
    point, `points` fastest first, is no slower than `best_elsewhere`, the graph's best at that end
    by another study, where one is) and has verified fewer than `enough` configurations at that
    point's CK. grid22's PHAST studies converged with 22 and 11 at 83 s of a 110-s budget (1a75c0c):
    the sweep ended early with its ends' configurations mostly untried.

    Example:
        >>> from types import SimpleNamespace as P
        >>> points = [P(ms_per_sssp=1.0, config=P(concurrent_kernels=1)),
        ...           P(ms_per_sssp=2.0, config=P(concurrent_kernels=4))]
        >>> short_of_enough(points, 2, None), short_of_enough(points, 1, None), short_of_enough(points, 2, 0.5)
        (True, False, False)
    """
    if not enough or not points or (best_elsewhere is not None and points[0].ms_per_sssp > best_elsewhere):
        return False
    at = points[0].config.concurrent_kernels
    return sum(1 for point in points if point.config.concurrent_kernels == at) < enough


SAMPLED_WHILE_SHORT = 4  # a study short of enough samples on past its trial budget, up to this many times `enough`


def sampled_budget(budget: int, taken: int, enough: int, short: Callable[[], bool]) -> int:
    """The search trials a study's sampler may propose in all: its strategy's `budget` (`taken` of
    them so far) or, once that is spent while the study leads its end of the curve short of `enough`
    verified configurations there (`short()`: `short_of_enough`), one more than taken, up to
    `SAMPLED_WHILE_SHORT` x `enough`; each trial still within its slice of the wall time. On rmat22
    at 02935ed the latency end's 40 trials (a third of them refused or pruned at once) verified 13
    configurations at CK 1 in 15 s of its 20-s slice, and the sweep ended 20 s inside its budget
    (benchmarks/data/h200/rmat22-curve-02935ed.records.jsonl.gz).

    Example:
        >>> sampled_budget(40, 40, 30, lambda: True), sampled_budget(40, 40, 30, lambda: False)
        (41, 40)
        >>> sampled_budget(40, 120, 30, lambda: True), sampled_budget(40, 12, 30, lambda: True)
        (40, 40)
    """
    return taken + 1 if 0 < budget <= taken < SAMPLED_WHILE_SHORT * enough and short() else budget


def rounds_of(finalists: Sequence[ConfigResult], rounds: int, protocol: Mapping[str, Any] | None) -> int:
    """The finalists' re-measurement rounds: one where every finalist's batches are long
    (`measure.long_batches` at the `protocol`'s sample; their repetitions spread within 1%: rmat22's
    nine rounds of 1,024 SSSPs took 27 s of its 155-s sweep at 79a9d59 and moved no finalist's
    median by 0.4%, benchmarks/data/h200/rmat22-curve-79a9d59.records.jsonl.gz), else `rounds`.

    Example:
        >>> from types import SimpleNamespace as P
        >>> batch, one = (P(ms_per_sssp=1.5, config=P(concurrent_kernels=ck)) for ck in (1024, 1))
        >>> rounds_of([batch], 3, {"sample": 32}), rounds_of([batch, one], 3, {"sample": 32}), rounds_of([], 3, None)
        (1, 3, 3)
    """
    sample = int((protocol or {}).get("sample", DEFAULT_SAMPLE))
    long = bool(finalists) and all(long_batches(r.ms_per_sssp, r.config.concurrent_kernels, sample) for r in finalists)
    return min(rounds, 1) if long else rounds


def outpaced(ms_per_sssp: float | None, rival_ms: float | None, factor: float) -> bool:
    """Whether a point of `ms_per_sssp` (a finalist's median, or for a bridge the fastest its study
    measured at any CK: a lower bound) cannot be its CK's point of the curve because another
    study's verified point at the same CK took `rival_ms`, more than `factor` times faster.

    Example:
        >>> outpaced(3.6, 1.0, 1.5), outpaced(1.2, 1.0, 1.5), outpaced(3.6, None, 1.5)
        (True, False, False)
    """
    return ms_per_sssp is not None and rival_ms is not None and ms_per_sssp > factor * rival_ms


BUDGET_TIERS = ((4_300_000, 55.0), (34_000_000, 110.0), (300_000_000, 165.0))  # (vertices + arcs, seconds)
LARGEST_BUDGET_S = 285.0


def default_budget_s(n_vertices: int, n_edges: int) -> float:
    """The wall time a default sweep of a graph takes at most (start-up included), by its size
    (vertices plus arcs, the work of one SSSP): 55 s up to about 4M, 110 s up to rmat20's 32M,
    165 s up to 300M and 285 s above (issue 27's targets: 60 s and, for rmat20, 120 s; issue 68's:
    180 s up to 300M arcs and 300 s above; the budget leaves the last measurement its margin).

    Example:
        >>> default_budget_s(131_072, 3_728_785), default_budget_s(1_524_453, 3_868_020)
        (55.0, 110.0)
        >>> default_budget_s(4_194_304, 128_311_109), default_budget_s(16_777_216, 520_000_000)
        (165.0, 285.0)
    """
    size = n_vertices + n_edges
    return next((seconds for bound, seconds in BUDGET_TIERS if size <= bound), LARGEST_BUDGET_S)


PREPARE_SHARE = 0.5  # the share of a graph's budget that preparing it may take (PHAST's hierarchy: `Algorithm.admits`)
# ... and where it is made beside the other algorithms' measurements (`preparing`), which go on meanwhile: the rest is
# the time of the studies that wait for it (grid22's PHAST studies converged in the 55 s after its hierarchy; grid24's
# build beside its sweep took more than its 82.5-s half: docs/notes/phast.md)
PREPARE_BESIDE_SHARE = 0.7


def prepare_within_s(parts: Sequence[float] | None, beside: bool) -> list[float] | None:
    """How long each graph's preparation may take, of its part of the budget (`graph_budgets_s`; None:
    no bound): `PREPARE_BESIDE_SHARE` of it where made beside the sweep's measurements, else `PREPARE_SHARE`.

    Example:
        >>> prepare_within_s([110.0], beside=False), prepare_within_s([110.0], beside=True)
        ([55.0], [77.0])
    """
    share = PREPARE_BESIDE_SHARE if beside else PREPARE_SHARE
    return None if parts is None else [share * part for part in parts]


def graph_budgets_s(budget_s: float | str | None, curve: bool, sizes: Sequence[tuple[int, int]]) -> list[float] | None:
    """Each graph's part of a sweep's wall-time bound: `--budget`'s seconds (a number) split evenly
    over the graphs; for `auto`, each graph's default (`default_budget_s` of its (vertices, arcs) in
    `sizes`) where the sweep is of the queries curve on a GPU (`curve`); else None (no bound).

    Example:
        >>> graph_budgets_s(120.0, False, [(10, 20), (30, 40)]), graph_budgets_s("auto", False, [(10, 20)])
        ([60.0, 60.0], None)
        >>> graph_budgets_s("auto", True, [(131_072, 3_728_785)])
        [55.0]
    """
    if isinstance(budget_s, (int, float)):
        return [float(budget_s) / max(len(sizes), 1)] * len(sizes)
    if budget_s != "auto" or not curve:
        return None
    return [default_budget_s(n, m) for n, m in sizes]


@dataclass
class Budget:
    """Wall time a sweep may take: the whole run's end, and the end of the slice of it that the
    study in hand may use (`share`); None: no bound. Times are `clock()` seconds."""

    run_end: float | None = None
    slice_end: float | None = None
    clock: Callable[[], float] = time.monotonic

    def share(self, weight: float, weights_left: float) -> None:
        """Give the study in hand its share of what is left of the run: `weight` of the `weights_left`
        of it and the studies after it (unused time carries over to them)."""
        if self.run_end is not None:
            now = self.clock()
            self.slice_end = now + max(0.0, self.run_end - now) * weight / max(weights_left, 1e-9)

    def slice_over(self) -> bool:
        return self.slice_end is not None and self.clock() >= self.slice_end

    def run_over(self) -> bool:
        return self.run_end is not None and self.clock() >= self.run_end

    def left_s(self) -> float | None:
        """Seconds left to the run (None: no bound)."""
        return None if self.run_end is None else max(0.0, self.run_end - self.clock())

    def fits(self, seconds: float) -> bool:
        """Whether `seconds` from now end before the run does."""
        return self.run_end is None or self.clock() + seconds <= self.run_end


BATCHES_AT_LEAST = 2  # a measurement's batches of CK SSSPs, at the fewest: its warm-up and one repetition


def past_the_run(concurrent_kernels: int, fastest_ms: float | None, budget: Budget) -> str | None:
    """Why a trial at `concurrent_kernels` is not begun, or None: at the graph's fastest verified
    milliseconds per SSSP so far (any study, any CK: `fastest_ms`), its warm-up and one repetition
    would end past the run: a batch the budget stops measures nothing (and ADDS' and PHAST's launches
    cannot be stopped). On grid24 at d3bc23d a trial begun with 51 s of its run left had not ended
    157 s later (its CK-1 solve took 68.8 ms). Batching can beat the fastest seen, so a trial that
    might just fit is begun.

    Example:
        >>> budget = Budget(run_end=60.0, clock=lambda: 10.0)
        >>> print(past_the_run(1024, 68.8, budget))
        foreseen past the sweep's budget: two batches of 1,024 SSSPs at 68.8 ms each take 141 s, 50 s are left
        >>> past_the_run(128, 68.8, budget) is None, past_the_run(1024, None, budget) is None
        (True, True)
    """
    if fastest_ms is None or budget.run_end is None:
        return None
    seconds = BATCHES_AT_LEAST * concurrent_kernels * fastest_ms / 1e3
    if budget.fits(seconds):
        return None
    return (f"foreseen past the sweep's budget: two batches of {concurrent_kernels:,} SSSPs at {fastest_ms:.3g} ms "
            f"each take {seconds:.0f} s, {budget.left_s():.0f} s are left")


def fastest_up_to(concurrent_kernels: int, fastest_by_ck: Mapping[int, float]) -> float | None:
    """The fastest verified ms per SSSP at any CK up to `concurrent_kernels` (None: none yet). A
    configuration of that CK slower per SSSP than this is dominated: its CK SSSPs, run as batches of
    that smaller CK, take no longer. Before a study of the batch end has a best of its own, this bounds
    its trials (`trials.Trials`' `floor_ms`): on grid24 at 0a78e87 a CK-32 trial of delta_lanes ran
    its warm-up for 105 s at 2.5 s per SSSP, where Δ-stepping had verified 68.3 ms at CK 1.

    Example:
        >>> fastest_up_to(32, {1: 68.3, 64: 9.0}), fastest_up_to(64, {1: 68.3, 64: 9.0}), fastest_up_to(1, {2: 5.0})
        (68.3, 9.0, None)
    """
    return min((ms for ck, ms in fastest_by_ck.items() if ck <= concurrent_kernels), default=None)


def references(specials: Specials) -> set[str]:
    """The keys of the configurations measured to compare with: the default and the baseline
    candidates, unless the model predicted the same."""
    kept = {specials.prediction.key()} if specials.prediction is not None else set()
    return {c.key() for c in (specials.default, *specials.baseline_candidates)} - kept


def tuned(results: Mapping[str, ConfigResult], space: SearchSpace, specials: Specials) -> list[ConfigResult]:
    """The verified configurations inside the space, fastest first, without the references that
    were only measured for comparison: a reference counts (as a curve point, a finalist, the best)
    only at a CK where the tuner measured configurations of its own choosing too, against which
    it won (or which failed); at a CK where it was the only one measured it is untuned, and left out."""
    left_out = references(specials)
    inside = ranked(results, space)
    searched = {r.config.concurrent_kernels for r in results.values()
                if r.config.key() not in left_out and space.contains(r.config)}
    return [r for r in inside if r.config.key() not in left_out or r.config.concurrent_kernels in searched]


def bridges(points: Iterable[ConfigResult], space: SearchSpace, skip: Iterable[int] = ()) -> list[LaunchConfig]:
    """Configurations to measure for the CK values of the space up to the best point's CK that have
    no verified point (`points`: tuned, fastest first), except `skip`: the fastest point at the
    nearest CK below and above, with CK set to the missing value, and the shapes the algorithm adds
    (`Algorithm.bridge_candidates`; canonical, inside the space)."""
    points = list(points)
    if not points:
        return []
    best_at: dict[int, LaunchConfig] = {}
    for point in points:
        best_at.setdefault(point.config.concurrent_kernels, point.config)
    top = points[0].config.concurrent_kernels
    measured = sorted(best_at)
    out: list[LaunchConfig] = []
    for ck in space.concurrent_kernels:
        if ck > top or ck in best_at or ck in set(skip):
            continue
        below = [c for c in measured if c < ck]
        above = [c for c in measured if c > ck]
        for near in ([below[-1]] if below else []) + ([above[0]] if above else []):
            out += moved(best_at[near], ck, space)
    return list(dict.fromkeys(out))


def moved(config: LaunchConfig, concurrent_kernels: int, space: SearchSpace) -> list[LaunchConfig]:
    """`config` brought to another CK: the algorithm's `bridge_candidates` (CK set, and the shapes
    it adds), canonical and inside the space (a bridged CK, `bridges`, and a point transferred from
    another study of the curve, `search.transfer`)."""
    found = (space.entry.canonical(c) for c in space.entry.bridge_candidates(config, concurrent_kernels))
    return [c for c in dict.fromkeys(found) if space.contains(c)]
