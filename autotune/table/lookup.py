"""Use a tuned table: find the launch configuration for a graph and the number of sources a program
has to solve.

Example::

    from autotune import Table
    table = Table.load("h100.json")
    match = table.lookup(graph)                       # a CSRGraph; or vertices=..., mean_degree=...
    match = table.lookup(graph, queries=1)            # one source to solve: the latency's best
    match.config         # the LaunchConfig to launch with (its algorithm included)
    match.graph_name     # which entry it came from, match.distance how far it was

Nearest graph class: the entry minimizing a weighted Euclidean distance over the graph's features
(`GRAPH_FEATURES`): log2 vertices, log2 mean degree, and log2(1 + the coefficient of variation of
the out-degrees), the degree skew that tells a power-law graph from a uniform one of the same mean
degree. The weights (`DEFAULT_WEIGHTS`, `Table.lookup(weights=...)`) are 1 each: doubling the
vertices, doubling the mean degree or doubling 1 + the skew count alike; and by default the two
nearest entries choose the configuration together (`DEFAULT_NEIGHBOURS`, below). Both were chosen
by the leave-one-graph-out check of the benchmark suite `lookup` on the H100 sweeps, among 36
weight vectors and 1 to 3 neighbours (its results: docs/benchmarks.md).
An entry or a query without a feature leaves that feature out of its distance; equally near
entries are taken in the order of their graphs' names. An exact match has distance 0.

An entry's `best` (measured and verified) is used; with `queries=K`, the fastest configuration of
the entry's queries `curve` with at most K concurrent SSSPs (K = 1 is one query's wait); where the
entry tuned no point that small (an old or narrowed table), the nearest tuned point with its CK set
to K ("derived"); an entry without either (a table of `autotune predict`) gives its `predicted`
configuration. `match.source` says which. A lookup never hands out a reference (the default or the
baseline a sweep measured only for comparison): those are never curve points.

With `neighbours=k` above 1, the configuration of a graph the table does not hold (the nearest
entry at a distance above 0) is chosen across the k nearest entries instead of taken from the
nearest alone ("consensus"): every configuration in their lists of fastest
configurations (`x-top`, with at most K concurrent SSSPs) is scored by its mean, over the k entries,
of its time over that entry's fastest, a configuration an entry does not list counting as that
entry's slowest listed; the lowest score wins (ties: the nearer entry's). A configuration fast on
one graph only loses to one near the best on all of them, which is what a graph no one tuned, lying
between them, needs. Entries without `x-top` leave the lookup to the nearest entry.

An entry of a sweep that was interrupted (`partial` in the entry, or a table marked `x-partial`
whose entry does not say) still gives its best configuration measured so far, and `match.partial`
says so: the search did not finish, so a better configuration may exist.
"""
from __future__ import annotations

import json
import math
import numbers
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any, Mapping, Sequence

from autotune.algorithms import config_from_json
from autotune.errors import AutotuneError, InputError
from autotune.launch import LaunchConfig
from autotune.table.entry import Entry, entries_of
from autotune.table.format import entry_config, read_table

SOURCES_IN_ORDER = ("best", "predicted")
GRAPH_FEATURES = ("vertices", "mean_degree", "degree_cv")
DEFAULT_WEIGHTS: Mapping[str, float] = {"vertices": 1.0, "mean_degree": 1.0, "degree_cv": 1.0}
DEFAULT_NEIGHBOURS = 2


class DeviceMismatch(AutotuneError):
    """The table was tuned on another GPU than the one in use."""

    exit_status = 2


@dataclass(frozen=True)
class Lookup:
    """What `Table.lookup` found.

    Args:
        config: the launch configuration.
        graph_name: the name of the entry's graph.
        distance: the weighted distance of the entry's graph from the asked one.
        source: "best" (measured), "curve" (measured, the best within `queries`), "derived" (the
            nearest tuned point with its CK set to `queries`, where the entry tuned none that small:
            not measured so), "consensus" (chosen across the nearest entries' fastest
            configurations) or "predicted".
        entry: the whole table entry (`autotune.table.entry.Entry`).
        partial: the entry's sweep was interrupted; `config` is the best it had measured so far.
        ms_per_sssp: the measured time of `config` on the entry's graph (None for a prediction
            or a consensus configuration the entry does not list).
        neighbours: the entries a consensus weighed (`graph_name`, the nearest, first).
    """

    config: LaunchConfig
    graph_name: str
    distance: float
    source: str
    entry: Entry
    partial: bool = False
    ms_per_sssp: float | None = None
    neighbours: tuple[str, ...] = ()


def coordinates(graph: Mapping[str, Any]) -> dict[str, float]:
    """A graph's features on the lookup's axes (log2 scales); a missing feature is left out."""
    out = {"vertices": math.log2(max(float(graph["vertices"]), 1.0)),
           "mean_degree": math.log2(max(float(graph["mean_degree"]), 1.0))}
    if graph.get("degree_cv") is not None:
        out["degree_cv"] = math.log2(1.0 + float(graph["degree_cv"]))
    return out


def graph_distance(a: Mapping[str, Any], b: Mapping[str, Any], weights: Mapping[str, float] = DEFAULT_WEIGHTS) -> float:
    """The weighted Euclidean distance of two graphs' features (`coordinates`) over the features
    both have. With only vertices and mean degree: doubling either counts 1."""
    ca, cb = coordinates(a), coordinates(b)
    return math.sqrt(sum(weights.get(k, 0.0) * (ca[k] - cb[k]) ** 2 for k in ca if k in cb))


def features_of(graph: Any) -> dict[str, Any]:
    """The lookup's features of a `CSRGraph`, a `GraphFeatures`, or a mapping of them."""
    if isinstance(graph, Mapping):
        return dict(graph)
    if hasattr(graph, "out_degrees"):  # a CSRGraph
        degrees = graph.out_degrees
        mean = float(degrees.mean()) if graph.n_vertices else 0.0
        return {"vertices": graph.n_vertices, "mean_degree": graph.mean_degree,
                "degree_cv": float(degrees.std() / mean) if mean else 0.0}
    return {"vertices": graph.n_vertices, "mean_degree": graph.mean_degree, "degree_cv": getattr(graph, "degree_cv", None)}


def live_device(index: int = 0) -> dict[str, Any]:
    """Name, compute capability and SM count of CUDA device `index` (through PyCUDA)."""
    from autotune.gpu import live_device as describe

    return describe(index)


def same_device(table_device: Mapping[str, Any], device: Mapping[str, Any]) -> bool:
    """Whether a table's device section is the GPU `device` (a mapping with at least `name`).

    Names are compared ignoring case and spacing. A table made from a device profile (`autotune
    predict --device NAME` records `profile`) names the profile, not the GPU, so it matches a GPU
    of the same compute capability and SM count. A table measured on a GPU (`profile` "auto", the
    live GPU's) names that GPU: an H100's does not match an H200, though both are 9.0 with 132 SMs.
    """
    def norm(text: object) -> str:
        return " ".join(str(text).lower().split())

    if norm(table_device.get("name", "")) == norm(device.get("name", "")):
        return True
    if table_device.get("profile") not in (None, "auto"):
        keys = ("compute_capability", "sm_count")
        return all(k in device and str(table_device.get(k)) == str(device[k]) for k in keys)
    return False


def consensus_parts(entry: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """The measured parts an entry brings to a consensus: its verified `x-top` and, with them, its
    best (a configuration listed twice counts at its last time, at its first place)."""
    parts = [*entry.get("x-top", ()), *([entry["best"]] if entry.get("x-top") and entry.get("best") else [])]
    return [p for p in parts if p.get("verified", True)]


def consensus(entries: Sequence[Mapping[str, Any]], queries: int | None = None) -> dict[str, Any] | None:
    """The configuration (as JSON) of the entries' `x-top` lists (and their `best`) with the lowest
    mean time over each entry's fastest (see the module's doc); None when an entry has no listed
    configuration with at most `queries` concurrent SSSPs."""
    lists = []
    for entry in entries:
        listed = {json.dumps(p["config"], sort_keys=True): float(p["ms_per_sssp"]) for p in consensus_parts(entry)
                  if queries is None or p["config"]["concurrent_kernels"] <= queries}
        if not listed:
            return None
        lists.append(listed)
    order = list(dict.fromkeys(key for listed in lists for key in sorted(listed, key=listed.get)))

    def score(key: str) -> float:
        return sum(listed.get(key, max(listed.values())) / min(listed.values()) for listed in lists) / len(lists)

    return json.loads(min(order, key=lambda key: (score(key), order.index(key))))


class Table:
    """A tuned (or predicted) table, read and validated."""

    def __init__(self, data: Mapping[str, Any], path: Path | None = None) -> None:
        self.data = data
        self.path = path

    @classmethod
    def load(cls, path: str | Path) -> Table:
        """Read and validate a table file (version 1 or 2).

        Raises:
            InputError: unreadable, not JSON, or not an autotune table.
        """
        return cls(read_table(path), Path(path))

    @property
    def device(self) -> Mapping[str, Any]:
        return self.data["device"]

    @cached_property
    def entries(self) -> tuple[Entry, ...]:
        """The entries, as values (`autotune.table.entry`)."""
        return entries_of(self.data)

    def without(self, names: Sequence[str]) -> Table:
        """This table less the entries of the graphs `names` (a leave-some-out check)."""
        left_out = set(names)
        return Table({**self.data, "entries": [e for e in self.data["entries"] if e["graph"]["name"] not in left_out]},
                     self.path)

    def _check_device(self, device: str | Mapping[str, Any] | None, allow_other_device: bool) -> None:
        if device is None or allow_other_device:
            return
        if device == "auto":
            device = live_device()
        elif isinstance(device, str):
            device = {"name": device}
        if not same_device(self.device, device):
            where = f"{self.path}: " if self.path else ""
            raise DeviceMismatch(
                f"{where}the table was tuned on '{self.device.get('name')}', not on '{device['name']}'; "
                "tune on this GPU, or allow another device's table (--allow-other-device)")

    def choice(self, entry: Entry | Mapping[str, Any], queries: int | None = None) -> tuple[LaunchConfig, str, float | None] | None:
        """An entry's configuration for a program that solves `queries` sources at once: the
        fastest point of its queries curve with at most `queries` concurrent SSSPs ("curve"); where
        every tuned point has more, the nearest one (the smallest CK) with its CK set to `queries`
        ("derived": not measured so); without a curve, its best (its CK cut to `queries` where larger:
        "derived" too), else its prediction ("predicted"). A reference, the default or the baseline
        measured only for comparison, is never a curve point (`tables.upgrade`), so never an answer.
        """
        entry = entry.raw if isinstance(entry, Entry) else entry
        where = f"{self.path or 'table'}: {entry['graph']['name']}"
        curve = [p for p in entry.get("curve", ()) if p.get("verified", True)]
        if queries is not None and curve:
            fitting = [p for p in curve if p["config"]["concurrent_kernels"] <= queries]
            if fitting:
                part = min(fitting, key=lambda p: p["ms_per_sssp"])
                return config_from_json(part["config"], f"{where}: curve"), "curve", float(part["ms_per_sssp"])
            nearest = min(curve, key=lambda p: (p["config"]["concurrent_kernels"], p["ms_per_sssp"]))
            config = config_from_json(nearest["config"], f"{where}: curve")
            return config.replace(concurrent_kernels=queries), "derived", None
        for source in SOURCES_IN_ORDER:
            config = entry_config(entry, source, str(self.path or "table"))
            if config is not None:
                ms = entry[source].get("ms_per_sssp") if source == "best" else None
                if queries is not None and config.concurrent_kernels > queries:
                    config = config.replace(concurrent_kernels=max(1, queries))
                    source, ms = ("derived", None) if source == "best" else (source, ms)
                return config, source, ms
        return None

    def lookup(self, graph: Any = None, *, vertices: int | None = None, mean_degree: float | None = None,
               degree_cv: float | None = None, queries: int | None = None,
               device: str | Mapping[str, Any] | None = "auto", allow_other_device: bool = False,
               weights: Mapping[str, float] = DEFAULT_WEIGHTS, exclude: str | None = None,
               neighbours: int = DEFAULT_NEIGHBOURS) -> Lookup:
        """The configuration of the entry nearest to a graph.

        Args:
            graph: the graph to solve (a `CSRGraph`, `GraphFeatures`, or a mapping with vertices,
                mean_degree and optionally degree_cv); or give `vertices` and `mean_degree`.
            degree_cv: the graph's degree skew, with `vertices` and `mean_degree`.
            queries: the number of sources the program solves at once (None: as many as pay).
            device: the GPU in use: "auto" asks PyCUDA about device 0; a mapping with `name` (and
                `compute_capability`, `sm_count`) or a plain name describes it; None skips the check.
            allow_other_device: use the table even if it was tuned on another GPU.
            weights: per feature, its weight in the distance.
            exclude: an entry's graph name (or sha256) to leave out (the leave-one-out check).
            neighbours: how many of the nearest entries choose the configuration (1: the nearest
                alone; see the module's doc).

        Raises:
            DeviceMismatch: the table is for another GPU and `allow_other_device` is false.
            InputError: the table has no entry with a configuration, or bad arguments.
        """
        asked = features_of(graph) if graph is not None else {"vertices": vertices, "mean_degree": mean_degree,
                                                                  "degree_cv": degree_cv}
        if asked.get("vertices") is None or asked.get("mean_degree") is None:
            raise InputError("lookup: give a graph, or its vertices and mean_degree")
        for key in GRAPH_FEATURES:
            value = asked.get(key)
            if value is not None and (isinstance(value, bool) or not isinstance(value, numbers.Real)
                                      or not math.isfinite(value)):
                raise InputError(f"lookup: {key} must be a finite number, got {value!r}")
        if asked["vertices"] < 1 or asked["mean_degree"] < 0 or (asked.get("degree_cv") or 0) < 0:
            raise InputError(f"lookup: vertices must be at least 1, mean_degree and degree_cv non-negative; "
                             f"got {asked['vertices']}, {asked['mean_degree']} and {asked.get('degree_cv')}")
        if queries is not None and (isinstance(queries, bool) or not isinstance(queries, numbers.Integral) or queries < 1):
            raise InputError(f"lookup: queries must be at least 1, got {queries}")
        if neighbours < 1:
            raise InputError(f"lookup: neighbours must be at least 1, got {neighbours}")
        self._check_device(device, allow_other_device)
        candidates = []
        for entry in self.data["entries"]:
            info = entry["graph"]
            if exclude is not None and exclude in (info.get("name"), info.get("sha256")):
                continue
            chosen = self.choice(entry, queries)
            if chosen is not None:
                config, source, ms = chosen
                candidates.append((graph_distance(asked, info, weights), info["name"], source, config, entry, ms))
        if not candidates:
            raise InputError(f"{self.path or 'table'}: no entry holds a configuration")
        candidates.sort(key=lambda c: (c[0], c[1]))
        distance, name, source, config, entry, ms = candidates[0]
        nearest = [c[4] for c in candidates[:neighbours]]
        # a graph the table was tuned on (distance 0) gets its own tuning, never another graph's say
        agreed = consensus(nearest, queries) if len(nearest) > 1 and distance > 0 else None
        if agreed is None:
            return Lookup(config, name, distance, source, Entry.from_json(entry), self.partial_entry(entry), ms)
        where = f"{self.path or 'table'}: {name}: x-top"
        listed = {json.dumps(p["config"], sort_keys=True): p for p in entry.get("x-top", ())}
        own = listed.get(json.dumps(agreed, sort_keys=True))
        return Lookup(config_from_json(agreed, where), name, distance, "consensus", Entry.from_json(entry),
                      self.partial_entry(entry),
                      float(own["ms_per_sssp"]) if own else None, tuple(e["graph"]["name"] for e in nearest))

    def partial_entry(self, entry: Entry | Mapping[str, Any]) -> bool:
        """Whether an entry comes from an interrupted search: its own `partial`, or where it has
        none, the table's `x-partial`."""
        entry = entry.raw if isinstance(entry, Entry) else entry
        if "partial" in entry:
            return bool(entry["partial"])
        return bool(self.data.get("x-partial", False))
