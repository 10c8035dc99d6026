"""Use a tuned table: find the launch configuration for a graph and the number of sources a program
has to solve.

Example::

    from autotune import Table
    table = Table.load("h100.json")
    match = table.lookup(graph)                       # a CSRGraph; or vertices=..., mean_degree=...
    match = table.lookup(graph, queries=1)            # one source to solve: the latency's best
    match.config         # the LaunchConfig to launch with (its algorithm included)
    match.source         # "curve", "best", ... (measured on this graph) or "model"

A graph the table holds (an entry of its sha256, or where either lacks one, at distance 0 in the
features below: the same vertices, mean degree and degree skew) gets that entry's own tuning. An entry's `best` (measured and verified) is
used; with `queries=K`, the fastest configuration of the entry's queries `curve` with at most K
concurrent SSSPs (K = 1 is one query's wait); where the entry tuned no point that small (an old or
narrowed table), the nearest tuned point with its CK set to K ("derived"); an entry without either
(a table of `autotune predict`) gives its `predicted` configuration. A lookup never hands out a
reference (the default or the baseline a sweep measured only for comparison): those are never
curve points.

A graph the table does not hold gets the model's answer ("model"): the algorithm the table's choice
model picks for K sources (`autotune.table.model.choice_of`: the shipped tree fitted on this very
table, else one fitted on its entries) and that algorithm's rules on the table's GPU, through the
path `autotune predict --algorithm auto --table TABLE` takes (`autotune.predict.answer`), so the
two agree by construction. A loaded graph (`CSRGraph`) gives the model its depth and level width
(sampled breadth-first searches) and, where its contraction hierarchy is kept, admits PHAST; a
graph given by figures gives what it has (`predict.answer.from_figures`). Until issue 67, an unseen
graph got a consensus of the two nearest entries: the issue measured it on an H200 within 15% of
the graph's own sweep on 9 of 15 (graph, K), a road network 46x slower at one query.

`nearest` keeps that nearest-entry answer for the benchmark suite `lookup` (the C/C++ header of
`autotune table export` answers as `lookup` does, its model in C: `table.export_model`): the entry
minimizing a weighted Euclidean distance over the graph's features
(`GRAPH_FEATURES`): log2 vertices, log2 mean degree, and log2(1 + the coefficient of variation of
the out-degrees); the weights (`DEFAULT_WEIGHTS`) are 1 each, and the two nearest entries choose
the configuration together (`DEFAULT_NEIGHBOURS`; `consensus`): every configuration in their lists
of fastest configurations (`x-top`, with at most K concurrent SSSPs) is scored by its mean, over the
entries, of its time over that entry's fastest, a configuration an entry does not list counting as
that entry's slowest listed; the lowest score wins (ties: the nearer entry's). An entry or a query
without a feature leaves that feature out of its distance; equally near entries are taken in the
order of their graphs' names.

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
from autotune.table.distance import (DEFAULT_NEIGHBOURS, DEFAULT_WEIGHTS, GRAPH_FEATURES, consensus, features_of,
                                     graph_distance, is_same_graph)
from autotune.table.format import entry_config, read_table

SOURCES_IN_ORDER = ("best", "predicted")


class DeviceMismatch(AutotuneError):
    """The table was tuned on another GPU than the one in use."""

    exit_status = 2


@dataclass(frozen=True)
class Lookup:
    """What `Table.lookup` found.

    Args:
        config: the launch configuration.
        graph_name: the entry it came from; for the model's answer, the nearest entry (for reference).
        distance: the weighted distance of that entry's graph from the asked one (0: the table holds it).
        source: "best" (measured), "curve" (measured, the best within `queries`), "derived" (the
            nearest tuned point with its CK set to `queries`, where the entry tuned none that small:
            not measured so), "predicted" (an entry of `autotune predict`), "model" (a graph the table
            does not hold: the table's choice model and the algorithm's rules), or, from `nearest`
            only, "consensus" (chosen across the nearest entries' fastest configurations).
        entry: the whole table entry (`autotune.table.entry.Entry`); None for the model's answer.
        partial: the entry's sweep was interrupted; `config` is the best it had measured so far.
        ms_per_sssp: the measured time of `config` on the entry's graph (None for a prediction, the
            model's answer, or a consensus configuration the entry does not list).
        neighbours: the entries a consensus weighed (`graph_name`, the nearest, first).
        reason: for the model's answer, which model chose and the tree's tests.
    """

    config: LaunchConfig
    graph_name: str
    distance: float
    source: str
    entry: Entry | None
    partial: bool = False
    ms_per_sssp: float | None = None
    neighbours: tuple[str, ...] = ()
    reason: str = ""


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


class Table:
    """A tuned (or predicted) table, read and validated."""

    def __init__(self, data: Mapping[str, Any], path: Path | None = None, whole: bool = True) -> None:
        self.data = data
        self.path = path
        self.whole = whole  # the file's entries all there (False: `without`'s), so its digest names it

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
        """This table less the entries of the graphs `names` (or sha256s): a leave-some-out check,
        held in memory (its model fitted on the entries left)."""
        left_out = set(names)
        return Table({**self.data, "entries": [e for e in self.data["entries"]
                                               if not left_out & {e["graph"]["name"], e["graph"].get("sha256")}]},
                     self.path, self.whole and not left_out)

    def check_device(self, device: str | Mapping[str, Any] | None, allow_other_device: bool = False) -> None:
        """Refuse a GPU other than the table's (`lookup`'s `device`; see `same_device`).

        Raises:
            DeviceMismatch: unless `allow_other_device`.
        """
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

    @cached_property
    def model(self) -> Any:
        """The choice model that answers a graph the table does not hold (`table.model.choice_of`;
        where no entry has a timed curve point to fit on, the one shipped for the table's GPU)."""
        from autotune.predict.choice import shipped_choice
        from autotune.table.model import choice_of, device_of

        if any(p.ms_per_sssp is not None for e in self.entries for p in e.curve):
            return choice_of(self)
        shipped = shipped_choice(device_of(self))
        if shipped is None:
            raise InputError(f"{self.path or 'table'}: no entry has a queries curve to fit the choice model on, and no "
                             f"choice model is shipped for {self.device.get('name')}: the table answers only the "
                             "graphs it holds")
        return shipped

    @cached_property
    def model_device(self) -> Any:
        """The table's GPU as a device profile, for the model's rules (`table.model.device_of`)."""
        from autotune.table.model import device_of

        return device_of(self)

    def holds(self, graph: Any) -> bool:
        """Whether an entry of the table is this graph (`is_same_graph`: `lookup` answers with its tuning)."""
        asked = features_of(graph)
        return any(is_same_graph(asked, entry["graph"], graph_distance(asked, entry["graph"]))
                   for entry in self.data["entries"] if self.choice(entry) is not None)

    def lookup(self, graph: Any = None, *, vertices: int | None = None, mean_degree: float | None = None,
               degree_cv: float | None = None, queries: int | None = None,
               device: str | Mapping[str, Any] | None = "auto", allow_other_device: bool = False,
               exclude: str | None = None, admits: Sequence[str] | None = None) -> Lookup:
        """The configuration for a graph: its entry's own tuning where the table holds it, else the
        model's answer (see the module's doc).

        Args:
            graph: the graph to solve (a `CSRGraph`, `GraphFeatures`, or a mapping with vertices,
                mean_degree and optionally degree_cv and the figures `predict.answer.from_figures`
                reads); or give `vertices` and `mean_degree`.
            degree_cv: the graph's degree skew, with `vertices` and `mean_degree`.
            queries: the number of sources the program solves at once (None: as many as pay).
            device: the GPU in use: "auto" asks PyCUDA about device 0; a mapping with `name` (and
                `compute_capability`, `sm_count`) or a plain name describes it; None skips the check.
            allow_other_device: use the table even if it was tuned on another GPU.
            exclude: an entry's graph name (or sha256) to leave out, of the entries and of the
                model's fit (the leave-one-out check).
            admits: the conditional algorithms the graph admits (PHAST where its hierarchy is
                kept); None: asked of a loaded graph (`predict.auto.admitted_on`), none otherwise.

        Raises:
            DeviceMismatch: the table is for another GPU and `allow_other_device` is false.
            InputError: the table has no entry with a configuration, or bad arguments.
        """
        asked = self._asked(graph, vertices, mean_degree, degree_cv, queries)
        self.check_device(device, allow_other_device)
        table = self.without([exclude]) if exclude is not None else self
        candidates = table._candidates(asked, queries, DEFAULT_WEIGHTS)
        held = [c for c in candidates if is_same_graph(asked, c[4]["graph"], c[0])]
        distance, name, source, config, entry, ms = (held or candidates)[0]
        if held:
            return Lookup(config, name, distance, source, Entry.from_json(entry), table.partial_entry(entry), ms)
        from autotune.predict.answer import from_figures, from_graph, model_answer

        loaded = hasattr(graph, "out_degrees")
        if admits is None and loaded:
            from autotune.predict.auto import admitted_on

            admits = sorted(admitted_on(graph))
        unseen = from_graph(graph) if loaded else from_figures(asked)
        found = model_answer(table.model, unseen, table.model_device, queries, admits or ())
        return Lookup(found.config, name, distance, "model", None, reason=f"{found.origin}: {found.reason}")

    def nearest(self, graph: Any = None, *, vertices: int | None = None, mean_degree: float | None = None,
                degree_cv: float | None = None, queries: int | None = None,
                weights: Mapping[str, float] = DEFAULT_WEIGHTS, exclude: str | None = None,
                neighbours: int = DEFAULT_NEIGHBOURS) -> Lookup:
        """The nearest entries' answer (see the module's doc), as the C/C++ header gave it before its model
        (the benchmark suite `lookup` measures it).

        Args:
            graph, vertices, mean_degree, degree_cv, queries: as `lookup`'s.
            weights: per feature, its weight in the distance.
            exclude: an entry's graph name (or sha256) to leave out.
            neighbours: how many of the nearest entries choose the configuration (1: the nearest alone).

        Raises:
            InputError: the table has no entry with a configuration, or bad arguments.
        """
        asked = self._asked(graph, vertices, mean_degree, degree_cv, queries)
        if neighbours < 1:
            raise InputError(f"lookup: neighbours must be at least 1, got {neighbours}")
        table = self.without([exclude]) if exclude is not None else self
        candidates = table._candidates(asked, queries, weights)
        distance, name, source, config, entry, ms = candidates[0]
        nearest = [c[4] for c in candidates[:neighbours]]
        # a graph the table was tuned on (distance 0) gets its own tuning, never another graph's say
        agreed = consensus(nearest, queries) if len(nearest) > 1 and distance > 0 else None
        if agreed is None:
            return Lookup(config, name, distance, source, Entry.from_json(entry), table.partial_entry(entry), ms)
        where = f"{self.path or 'table'}: {name}: x-top"
        listed = {json.dumps(p["config"], sort_keys=True): p for p in entry.get("x-top", ())}
        own = listed.get(json.dumps(agreed, sort_keys=True))
        return Lookup(config_from_json(agreed, where), name, distance, "consensus", Entry.from_json(entry),
                      table.partial_entry(entry),
                      float(own["ms_per_sssp"]) if own else None, tuple(e["graph"]["name"] for e in nearest))

    @staticmethod
    def _asked(graph: Any, vertices: int | None, mean_degree: float | None, degree_cv: float | None,
               queries: int | None) -> dict[str, Any]:
        """The asked graph's features, checked."""
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
        return asked

    def _candidates(self, asked: Mapping[str, Any], queries: int | None, weights: Mapping[str, float]) -> list[tuple]:
        """(distance, name, source, config, entry JSON, ms) of every entry with a configuration for
        `queries`, nearest first (equally near: by name).

        Raises:
            InputError: no entry holds a configuration.
        """
        candidates = []
        for entry in self.data["entries"]:
            chosen = self.choice(entry, queries)
            if chosen is not None:
                config, source, ms = chosen
                candidates.append((graph_distance(asked, entry["graph"], weights), entry["graph"]["name"], source,
                                   config, entry, ms))
        if not candidates:
            raise InputError(f"{self.path or 'table'}: no entry holds a configuration")
        return sorted(candidates, key=lambda c: (c[0], c[1]))

    def partial_entry(self, entry: Entry | Mapping[str, Any]) -> bool:
        """Whether an entry comes from an interrupted search: its own `partial`, or where it has
        none, the table's `x-partial`."""
        entry = entry.raw if isinstance(entry, Entry) else entry
        if "partial" in entry:
            return bool(entry["partial"])
        return bool(self.data.get("x-partial", False))
