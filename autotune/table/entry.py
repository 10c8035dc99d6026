"""A table's entries as values: `Entry` (a graph and what was tuned for it), `GraphFacts` (the
graph's figures) and `CurvePoint` (a configuration with its time: a point of the queries curve,
and in the same form the entry's best, the model's, the baseline, the default and the prediction). Programs read a table through them
(`Table.entries`), never through the JSON's keys, which `docs/tables.md` documents for other languages.

Example::

    >>> entry = Entry.from_json({"graph": {"name": "g", "vertices": 8, "edges": 16},
    ...     "best": {"config": {"algorithm": "delta", "concurrent_kernels": 4}, "ms_per_sssp": 0.5},
    ...     "curve": [{"config": {"algorithm": "delta", "concurrent_kernels": 1}, "ms_per_sssp": 1.5},
    ...               {"config": {"algorithm": "delta", "concurrent_kernels": 4}, "ms_per_sssp": 0.5}]})
    >>> entry.graph.name, entry.best.ck, [p.ck for p in entry.curve], entry.fastest_within(2).ms_per_sssp
    ('g', 4, [1, 4], 1.5)
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Mapping

from autotune.launch import DEFAULT_ALGORITHM, LaunchConfig

PARTS = ("predicted", "best", "baseline", "default", "model")


def _frozen(data: Mapping[str, Any]) -> dict[str, Any]:
    """A copy of a part's JSON (plain, so that it serializes; the values never hand it out to change)."""
    return dict(data)


@dataclass(frozen=True)
class CurvePoint:
    """A configuration of an entry and what it measured (`ms_per_sssp` None for a prediction).

    `config` is the `LaunchConfig` (checked against its algorithm's registration where the table was
    read); `to_json()` gives the part as the table holds it (times, kernels, status, rules, ...).
    """

    config_json: Mapping[str, Any]
    ms_per_sssp: float | None
    verified: bool
    raw: Mapping[str, Any] = field(repr=False, compare=False)
    default_algorithm: str = DEFAULT_ALGORITHM

    @classmethod
    def from_json(cls, data: Mapping[str, Any], default_algorithm: str = DEFAULT_ALGORITHM) -> CurvePoint:
        """A part as a table holds it (`config`, `ms_per_sssp`, `verified`, and other figures)."""
        ms = data.get("ms_per_sssp")
        return cls(_frozen(data.get("config") or {}), None if ms is None else float(ms),
                   bool(data.get("verified", True)), _frozen(data), default_algorithm)

    @cached_property
    def config(self) -> LaunchConfig:
        from autotune.algorithms import config_from_json

        return config_from_json(dict(self.config_json), "config", self.default_algorithm)

    @property
    def algorithm(self) -> str:
        return str(self.config_json.get("algorithm", self.default_algorithm))

    @property
    def ck(self) -> int:
        """Its concurrent SSSPs (CK): how many sources it solves at once."""
        return int(self.config_json.get("concurrent_kernels", 1))

    def get(self, key: str, default: Any = None) -> Any:
        """Another figure of the part (`times_ms`, `kernel_ms`, `iterations`, `gteps`, `rules`, ...)."""
        return self.raw.get(key, default)

    def to_json(self) -> dict[str, Any]:
        return dict(self.raw)


@dataclass(frozen=True)
class GraphFacts:
    """An entry's graph: its name and the figures the lookup and the models read."""

    name: str
    vertices: int
    edges: int
    raw: Mapping[str, Any] = field(repr=False, compare=False)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> GraphFacts:
        return cls(str(data.get("name", "")), int(data.get("vertices", 0)), int(data.get("edges", 0)), _frozen(data))

    @property
    def mean_degree(self) -> float:
        value = self.raw.get("mean_degree")
        return float(value) if value is not None else self.edges / max(1, self.vertices)

    def get(self, key: str, default: Any = None) -> Any:
        """Another figure (`degree_cv`, `max_degree`, `mean_weight`, `max_weight`, `sha256`, ...)."""
        return self.raw.get(key, default)

    def to_json(self) -> dict[str, Any]:
        return dict(self.raw)


@dataclass(frozen=True)
class Entry:
    """One graph of a table and what was tuned (or predicted) for it."""

    graph: GraphFacts
    algorithm: str | None
    parts: Mapping[str, CurvePoint]
    curve: tuple[CurvePoint, ...]
    by_algorithm: Mapping[str, CurvePoint]
    raw: Mapping[str, Any] = field(repr=False, compare=False)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Entry:
        algorithm = data.get("algorithm")
        default = str(algorithm or DEFAULT_ALGORITHM)
        parts = {key: CurvePoint.from_json(data[key], default) for key in PARTS if isinstance(data.get(key), Mapping)}
        curve = tuple(CurvePoint.from_json(p, default) for p in data.get("curve") or ())
        by_algorithm = {name: CurvePoint.from_json(p, name) for name, p in (data.get("by_algorithm") or {}).items()
                        if isinstance(p, Mapping)}
        return cls(GraphFacts.from_json(data.get("graph") or {}), None if algorithm is None else str(algorithm),
                   parts, curve, by_algorithm, _frozen(data))

    @property
    def name(self) -> str:
        return self.graph.name

    @property
    def best(self) -> CurvePoint | None:
        return self.parts.get("best")

    @property
    def predicted(self) -> CurvePoint | None:
        return self.parts.get("predicted")

    @property
    def top(self) -> tuple[CurvePoint, ...]:
        """The sweep's fastest configurations (`x-top`: the 12 fastest verified, and the 4 fastest at each CK)."""
        default = str(self.algorithm or DEFAULT_ALGORITHM)
        return tuple(CurvePoint.from_json(p, default) for p in self.raw.get("x-top") or () if isinstance(p, Mapping))

    @property
    def model(self) -> CurvePoint | None:
        return self.parts.get("model")

    @property
    def baseline(self) -> CurvePoint | None:
        return self.parts.get("baseline")

    @property
    def default(self) -> CurvePoint | None:
        return self.parts.get("default")

    @property
    def partial(self) -> bool:
        return bool(self.raw.get("partial", False))

    @property
    def evaluations(self) -> int | None:
        value = self.raw.get("evaluations")
        return None if value is None else int(value)

    def timed_curve(self) -> tuple[CurvePoint, ...]:
        """The curve's points with a verified time."""
        return tuple(p for p in self.curve if p.ms_per_sssp is not None and p.verified)

    def point_at(self, ck: int) -> CurvePoint | None:
        """The curve's point of exactly `ck` concurrent SSSPs, if it has one."""
        return next((p for p in self.timed_curve() if p.ck == ck), None)

    def fastest_within(self, queries: int) -> CurvePoint | None:
        """The fastest curve point with at most `queries` concurrent SSSPs, if any."""
        fitting = [p for p in self.timed_curve() if p.ck <= queries]
        return min(fitting, key=lambda p: p.ms_per_sssp) if fitting else None

    def memory_at(self, ck: int) -> int | None:
        """The GPU memory (bytes) the curve's point of `ck` concurrent SSSPs takes (`x-memory`), if recorded."""
        value = (self.raw.get("x-memory") or {}).get(str(ck))
        return None if value is None else int(value)

    def get(self, key: str, default: Any = None) -> Any:
        """Another key of the entry (`strategy`, `tuning_seconds`, `model_gap`, `x-top`, `x-measured`, ...)."""
        return self.raw.get(key, default)

    def to_json(self) -> dict[str, Any]:
        return dict(self.raw)


def entries_of(table: Mapping[str, Any]) -> tuple[Entry, ...]:
    """The entries of a table's JSON (as `format.read_table` gives it), as values."""
    return tuple(Entry.from_json(e) for e in table.get("entries", ()))


__all__ = ["Entry", "GraphFacts", "CurvePoint", "entries_of"]
