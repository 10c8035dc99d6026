"""The model against the measurement for every algorithm, value by value: per graph, each value of
the predicted configuration (CK, each kernel's block size and L1 state, each of the algorithm's
parameters) against the same value of the best configuration the sweeps measured, with the rule
that chose it and what following it costs. The thesis's own check (`model_check`) reads GPU
Crauser's and Martín's three kernels, with the kernel-by-kernel times their records hold; this one
reads whole configurations, so it covers Delta-stepping, its lanes, PHAST and ADDS alike.

- *Hit*: the predicted value equals the best's.
- *Cost*: the fastest measured configuration of the same algorithm with the predicted value (and
  the best's CK, unless CK is the value checked) over the best's time, minus 1; the records' pooled
  results and the entry's fastest configurations (`x-top`) are what was measured. None where none
  had it (not searched there).
- *Held*: a hit, or a cost within `model_check.NEAR` (2 %).
- Where the model picked another algorithm than the best's, the one value checked is the algorithm.

Example::

    >>> from autotune.algorithms import get
    >>> delta = get("delta")
    >>> a = delta.uniform(256, concurrent_kernels=64, params={"delta": 64})
    >>> b = delta.uniform(512, concurrent_kernels=64, params={"delta": 64})
    >>> [(c.value, c.predicted, c.best) for c in value_checks("g", a, b, 1.0, []) if not c.hit]
    [('advance block', '256', '512'), ('split block', '256', '512')]
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from autotune.launch import LaunchConfig
from autotune.report.model_check import NEAR

CK = "CK"
ALGORITHM = "algorithm"


@dataclass(frozen=True)
class ValueCheck:
    """One value of one graph's predicted configuration against its best's (see the module's doc)."""

    graph: str
    algorithm: str
    value: str
    predicted: str
    best: str
    rule: str | None = None
    cost: float | None = None

    @property
    def hit(self) -> bool:
        return self.predicted == self.best

    @property
    def held(self) -> bool:
        return self.hit or (self.cost is not None and self.cost <= NEAR)

    @property
    def state(self) -> str:
        """hit, held, missed, or not searched."""
        return "hit" if self.hit else "held" if self.held else "missed" if self.cost is not None else "not searched"

    def to_json(self) -> dict[str, Any]:
        return {"graph": self.graph, "algorithm": self.algorithm, "value": self.value, "predicted": self.predicted,
                "best": self.best, "rule": self.rule, "cost": self.cost, "hit": self.hit, "held": self.held}


def values_of(config: LaunchConfig) -> dict[str, str]:
    """A configuration's values by label: CK, each kernel's block size and L1 state (and lanes
    where more than one), each parameter."""
    found = {CK: str(config.concurrent_kernels)}
    for kernel, launch in config.kernels.items():
        found[f"{kernel} block"] = str(launch.block_size)
        found[f"{kernel} L1"] = launch.cache.value
        if launch.lanes != 1:
            found[f"{kernel} lanes"] = str(launch.lanes)
    found.update({name: str(value) for name, value in config.params.items()})
    return found


def _rule(rules: Mapping[str, str], label: str) -> str | None:
    """The rule behind a value, as the prediction's `rules` name it (`concurrent_kernels`,
    `advance.block_size`, `block_size`, `delta`, ...)."""
    kernel, _, what = label.partition(" ")
    keys = {CK: ("concurrent_kernels",)}.get(label) or (
        (f"{kernel}.block_size", "block_size") if what == "block" else
        (f"{kernel}.cache", "cache") if what == "L1" else
        (f"{kernel}.lanes", "lanes") if what == "lanes" else (label,))
    return next((rules[k] for k in keys if k in rules), None)


def value_checks(graph: str, predicted: LaunchConfig, best: LaunchConfig, best_ms: float,
                 measured: Sequence[tuple[LaunchConfig, float]], rules: Mapping[str, str] | None = None
                 ) -> list[ValueCheck]:
    """Each value of `predicted` against `best`'s (`measured`: (configuration, ms per SSSP) of
    what was measured, for the costs)."""
    rules = rules or {}
    if predicted.algorithm != best.algorithm:
        return [ValueCheck(graph, best.algorithm, ALGORITHM, predicted.algorithm, best.algorithm,
                           rules.get(ALGORITHM))]
    mine = [(values_of(config), ms) for config, ms in measured if config.algorithm == best.algorithm]
    best_values = values_of(best)
    checks = []
    for label, value in values_of(predicted).items():
        same = [ms for values, ms in mine if values.get(label) == value
                and (label == CK or values[CK] == best_values[CK])]
        cost = min(same) / best_ms - 1.0 if same and best_ms > 0 else None
        checks.append(ValueCheck(graph, best.algorithm, label, value, best_values.get(label, "–"),
                                 _rule(rules, label), None if value == best_values.get(label) else cost))
    return checks


def graph_value_checks(runs: Sequence[Any], solve: Any, measured: Any) -> tuple[ValueCheck, ...]:
    """One graph's checks from its runs (`report.load.Run`), its solve gain (`analysis.SolveGain`:
    the best and the model's configuration) and its pooled records (`analysis.Measured`)."""
    if solve is None or solve.model_config is None:
        return ()
    details = next((r.entry.predicted.to_json() for r in runs if r.entry and r.entry.predicted), {})
    pool = [(r.config, r.ms_per_sssp) for r in measured.ok]
    pool += [(p.config, p.ms_per_sssp) for r in runs if r.entry for p in r.entry.top if p.ms_per_sssp is not None
             and p.verified]
    return tuple(value_checks(solve.graph, solve.model_config, solve.best_config, solve.best_ms, pool,
                              details.get("rules") or {}))


__all__ = ["ALGORITHM", "CK", "ValueCheck", "graph_value_checks", "value_checks", "values_of"]
