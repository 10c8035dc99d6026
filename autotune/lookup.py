"""Use a tuned table: find the launch configuration for a graph from its size and mean degree.

Example::

    from autotune import Table
    table = Table.load("rmat17.h100.json")
    match = table.lookup(vertices=131072, mean_degree=28.4)
    match.config         # the LaunchConfig to launch with
    match.graph_name     # which entry it came from ("rmat17"), match.distance how far it was

Nearest graph class: the entry minimizing the Euclidean distance in (log2 vertices, log2 mean
degree), so doubling the vertices counts as much as doubling the degree; an exact match has
distance 0. An entry's `best` (measured and verified) is used; an entry without one (a table of
`autotune predict`) gives its `predicted` configuration, and `match.source` says which.

An entry of a sweep that was interrupted (`partial` in the entry, or a table marked `x-partial`
whose entry does not say) still gives its best configuration measured so far, and `match.partial`
says so: the search did not finish, so a better configuration may exist.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

from autotune.errors import AutotuneError, InputError
from autotune.space import LaunchConfig
from autotune.tables import entry_config, read_table

SOURCES_IN_ORDER = ("best", "predicted")


class DeviceMismatch(AutotuneError):
    """The table was tuned on another GPU than the one in use."""

    exit_status = 2


@dataclass(frozen=True)
class Lookup:
    """What `Table.lookup` found.

    Args:
        config: the launch configuration.
        graph_name: the name of the entry's graph.
        distance: distance in (log2 vertices, log2 mean degree) from the asked graph.
        source: "best" (measured) or "predicted" (the model's).
        entry: the whole table entry.
        partial: the entry's sweep was interrupted; `config` is the best it had measured so far.
    """

    config: LaunchConfig
    graph_name: str
    distance: float
    source: str
    entry: Mapping[str, Any]
    partial: bool = False


def graph_distance(vertices: float, mean_degree: float, other_vertices: float, other_degree: float) -> float:
    """Euclidean distance in (log2 vertices, log2 mean degree); degrees below 1 count as 1."""
    return math.hypot(
        math.log2(max(vertices, 1)) - math.log2(max(other_vertices, 1)),
        math.log2(max(mean_degree, 1.0)) - math.log2(max(other_degree, 1.0)),
    )


def live_device(index: int = 0) -> dict[str, Any]:
    """Name, compute capability and SM count of CUDA device `index` (through PyCUDA)."""
    from autotune.gpu.launcher import _driver, device_description

    return device_description(_driver().Device(index))


def same_device(table_device: Mapping[str, Any], device: Mapping[str, Any]) -> bool:
    """Whether a table's device section is the GPU `device` (a mapping with at least `name`).

    Names are compared ignoring case and spacing. A table made from a device profile (`autotune
    predict --device NAME` records `profile`) names the profile, not the GPU, so it matches a GPU
    of the same compute capability and SM count.
    """
    def norm(text: object) -> str:
        return " ".join(str(text).lower().split())

    if norm(table_device.get("name", "")) == norm(device.get("name", "")):
        return True
    if "profile" in table_device:
        keys = ("compute_capability", "sm_count")
        return all(k in device and str(table_device.get(k)) == str(device[k]) for k in keys)
    return False


class Table:
    """A tuned (or predicted) table, read and validated."""

    def __init__(self, data: Mapping[str, Any], path: Path | None = None) -> None:
        self.data = data
        self.path = path

    @classmethod
    def load(cls, path: str | Path) -> Table:
        """Read and validate a table file.

        Raises:
            InputError: unreadable, not JSON, or not an autotune.table/1 table.
        """
        return cls(read_table(path), Path(path))

    @property
    def device(self) -> Mapping[str, Any]:
        return self.data["device"]

    @property
    def entries(self) -> list[Mapping[str, Any]]:
        return list(self.data["entries"])

    def lookup(self, vertices: int, mean_degree: float, *, device: str | Mapping[str, Any] | None = "auto",
               allow_other_device: bool = False) -> Lookup:
        """The configuration of the entry nearest to a graph of `vertices` and `mean_degree`.

        Args:
            vertices: n of the graph to solve.
            mean_degree: d(G), arcs per vertex.
            device: the GPU in use: "auto" asks PyCUDA about device 0; a mapping with `name` (and
                `compute_capability`, `sm_count`) or a plain name describes it; None skips the check.
            allow_other_device: use the table even if it was tuned on another GPU.

        Raises:
            DeviceMismatch: the table is for another GPU and `allow_other_device` is false.
            InputError: the table has no entry with a configuration, or bad arguments.
        """
        if vertices < 1 or mean_degree < 0:
            raise InputError(f"lookup: vertices must be at least 1 and mean_degree non-negative, "
                             f"got {vertices} and {mean_degree}")
        if device is not None and not allow_other_device:
            if device == "auto":
                device = live_device()
            elif isinstance(device, str):
                device = {"name": device}
            if not same_device(self.device, device):
                where = f"{self.path}: " if self.path else ""
                raise DeviceMismatch(
                    f"{where}the table was tuned on '{self.device.get('name')}', not on '{device['name']}'; "
                    "tune on this GPU, or allow another device's table (--allow-other-device)")
        candidates = []
        for entry in self.entries:
            graph = entry["graph"]
            for source in SOURCES_IN_ORDER:
                config = entry_config(entry, source, str(self.path or "table"))
                if config is not None:
                    distance = graph_distance(vertices, mean_degree, graph["vertices"], graph["mean_degree"])
                    candidates.append((distance, graph["name"], source, config, entry))
                    break
        if not candidates:
            raise InputError(f"{self.path or 'table'}: no entry holds a configuration")
        distance, name, source, config, entry = min(candidates, key=lambda c: (c[0], c[1]))
        return Lookup(config, name, distance, source, entry, partial=self.partial_entry(entry))

    def partial_entry(self, entry: Mapping[str, Any]) -> bool:
        """Whether an entry comes from an interrupted search: its own `partial`, or where it has
        none, the table's `x-partial`."""
        if "partial" in entry:
            return bool(entry["partial"])
        return bool(self.data.get("x-partial", False))
