"""Merge tables of one GPU into one table (`autotune table merge`), the file a consumer ships.

Every input is read and validated (older tables are upgraded to version 3). The inputs must name
one GPU (compared as `lookup.same_device` compares them): a table answers for one GPU. They may be
of several algorithms (sweeps of GPU Crauser, of Δ-stepping, of `auto`): the merged table is then
`auto`, each entry naming its winner and keeping, per algorithm, the fastest best (`by_algorithm`).

Entries are matched by their graph's `sha256` (by name where an entry has none). When several
inputs hold the same graph, one entry wins, and the merge says which and why (`Merge.decisions`):

- `prefer="faster"` (the default): the entry whose measured `best` takes fewer milliseconds per
  SSSP (an entry with a measured best beats one with only a prediction); a tie goes to the newer.
- `prefer="newer"`: the entry of the table `created` last.

The winner's queries curve is completed from the losers: per CK, the fastest verified point of any
of the graph's entries, whatever its algorithm, so that `Table.lookup(queries=K)` gets the best
measured anywhere; and its list of fastest configurations (`x-top`) is the fastest of all of theirs.

Example::

    merged = merge_tables([read_table(p) for p in paths], [str(p) for p in paths])
    write_table("h100.json", merged.table)
    for line in merged.decisions: print(line)
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Callable, Mapping, Sequence

from autotune.errors import InputError
from autotune.launch import DEFAULT_ALGORITHM
from autotune.table.lookup import same_device
from autotune.table.top import TOP_CONFIGURATIONS, TOP_PER_CK, top_of
from autotune.table.format import build_table

PREFERENCES = ("faster", "newer")


@dataclass
class Merge:
    """A merged table and the merge's decisions, one line per graph held by several inputs."""

    table: dict[str, Any]
    decisions: list[str] = field(default_factory=list)

    @property
    def graphs(self) -> int:
        """How many graphs (entries) the merged table holds."""
        return len(self.table["entries"])


def graph_key(entry: Mapping[str, Any]) -> str:
    """What identifies an entry's graph: its sha256, else its name."""
    graph = entry["graph"]
    return str(graph.get("sha256") or graph["name"])


def best_ms(entry: Mapping[str, Any]) -> float:
    """An entry's measured best time per SSSP; infinity when it has none."""
    best = entry.get("best")
    if isinstance(best, Mapping) and best.get("verified", True) and best.get("ms_per_sssp") is not None:
        return float(best["ms_per_sssp"])
    return float("inf")


def merged_curve(entries: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Per CK, the fastest verified curve point of any of the entries, by CK."""
    points: dict[int, Mapping[str, Any]] = {}
    for entry in entries:
        for point in entry.get("curve", ()):
            if not point.get("verified", True):
                continue
            ck = int(point["config"]["concurrent_kernels"])
            if ck not in points or point["ms_per_sssp"] < points[ck]["ms_per_sssp"]:
                points[ck] = point
    return [dict(points[ck]) for ck in sorted(points)]


def merged_top(entries: Sequence[Mapping[str, Any]], overall: int = TOP_CONFIGURATIONS,
               per_ck: int = TOP_PER_CK) -> list[dict[str, Any]]:
    """The entries' `x-top` lists merged as a sweep makes one (autotune.search.results.
    fastest_configurations, `top_of`): each configuration once, at its fastest; the `overall`
    fastest and the `per_ck` fastest of each CK."""
    fastest: dict[str, Mapping[str, Any]] = {}
    for entry in entries:
        for part in entry.get("x-top", ()):
            key = json.dumps(part["config"], sort_keys=True)
            if part.get("verified", True) and (key not in fastest or part["ms_per_sssp"] < fastest[key]["ms_per_sssp"]):
                fastest[key] = part
    ranked = sorted(fastest.values(), key=lambda p: p["ms_per_sssp"])
    chosen = top_of(ranked, lambda part: int(part["config"]["concurrent_kernels"]), overall, per_ck)
    return [dict(part) for part in chosen]


def merged_by_algorithm(entries: Sequence[Mapping[str, Any]]) -> dict[str, dict[str, Any]]:
    """Per algorithm, the fastest verified best of any of the entries (their `by_algorithm` and
    their own `best`)."""
    fastest: dict[str, Mapping[str, Any]] = {}
    for entry in entries:
        parts = list((entry.get("by_algorithm") or {}).values())
        if isinstance(entry.get("best"), Mapping):
            parts.append(entry["best"])
        for part in parts:
            name = part["config"].get("algorithm", entry.get("algorithm", DEFAULT_ALGORITHM))
            if part.get("verified", True) and (name not in fastest or part["ms_per_sssp"] < fastest[name]["ms_per_sssp"]):
                fastest[name] = part
    return {name: dict(fastest[name]) for name in sorted(fastest)}


def _check_inputs(tables: Sequence[Mapping[str, Any]], names: Sequence[str]) -> None:
    if not tables:
        raise InputError("table merge: give at least one table")
    first, first_name = tables[0], names[0]
    for table, name in zip(tables[1:], names[1:]):
        if not same_device(first["device"], table["device"]):
            raise InputError(f"{name}: tuned on '{table['device'].get('name')}', but {first_name} on "
                             f"'{first['device'].get('name')}'; merge the tables of one GPU")


def merge_tables(tables: Sequence[Mapping[str, Any]], names: Sequence[str], prefer: str = "faster",
                 command: str | None = None) -> Merge:
    """Merge version 3 tables (as `read_table` returns them) of one GPU.

    Args:
        tables: the tables, in any order.
        names: what to call each table in errors and decisions (its path).
        prefer: "faster" or "newer" (see the module's doc).
        command: the command line, for the merged table's record.

    Raises:
        InputError: no tables, tables of different GPUs, or an unknown `prefer`.
    """
    if prefer not in PREFERENCES:
        raise InputError(f"table merge: prefer must be one of {', '.join(PREFERENCES)}, got {prefer!r}")
    if len(names) != len(tables):
        raise ValueError("one name per table")
    _check_inputs(tables, names)
    held: dict[str, list[tuple[Mapping[str, Any], str, str]]] = {}
    for table, name in zip(tables, names):
        for entry in table["entries"]:
            held.setdefault(graph_key(entry), []).append((entry, name, str(table.get("created", ""))))

    def rank(item: tuple[Mapping[str, Any], str, str]) -> tuple[Any, ...]:
        entry, _, created = item
        if prefer == "newer":
            return (_negated(created),)
        return (best_ms(entry), _negated(created))

    merged, decisions = [], []
    for options in held.values():
        ordered = sorted(options, key=rank)
        winner, name, _ = ordered[0]
        entry = {**winner, "graph": dict(winner["graph"])}  # fill_graph_features adds to the copy
        curve = merged_curve([item[0] for item in ordered])
        if curve:
            entry["curve"] = curve
        top = merged_top([item[0] for item in ordered])
        if top:
            entry["x-top"] = top
        by_algorithm = merged_by_algorithm([item[0] for item in ordered])
        if len(by_algorithm) > 1 or any(item[0].get("by_algorithm") for item in ordered):
            entry["by_algorithm"] = by_algorithm  # kept where an input kept it, though one algorithm
        merged.append(entry)
        if len(ordered) > 1:
            decisions.append(_decision(entry["graph"]["name"], ordered, prefer))
    newest = max(tables, key=lambda table: str(table.get("created", "")))
    algorithms = {str(t["algorithm"]) for t in tables}
    table = build_table(newest["device"], sorted(merged, key=lambda e: e["graph"]["name"]),
                        algorithms.pop() if len(algorithms) == 1 else "auto", command=command)
    table["x-merged-from"] = [{"table": name, "created": t.get("created"), "entries": len(t["entries"])}
                              for t, name in zip(tables, names)]
    return Merge(table, decisions)


def _negated(created: str) -> float:
    """Sorts ISO 8601 times newest first (an undated table last)."""
    try:
        return -datetime.fromisoformat(created).timestamp()
    except ValueError:
        return float("inf")


def _decision(graph: str, ordered: Sequence[tuple[Mapping[str, Any], str, str]], prefer: str) -> str:
    def said(item: tuple[Mapping[str, Any], str, str]) -> str:
        ms = best_ms(item[0])
        time = f"{ms:.4g} ms" if ms != float("inf") else "no measured best"
        return f"{item[1]} ({time}, {item[2] or 'undated'})"

    winner, *losers = ordered
    return f"{graph}: {said(winner)} over {', '.join(map(said, losers))}: {prefer}"


def fill_graph_features(table: dict[str, Any], load: Callable[[Mapping[str, Any]], Any]) -> list[str]:
    """Add the degree skew and weight figures to entries whose graph lacks them (tables written
    before they were recorded), loading each graph with `load(graph)` (the entry's graph section:
    its name, a generator spec or a file, and its seed and weights) and checking its sha256 against the entry's. Returns what it could not fill,
    one line per graph; those entries keep what they had.
    """
    from autotune.model.features import graph_statistics

    missed = []
    for entry in table["entries"]:
        graph = entry["graph"]
        if graph.get("degree_cv") is not None:
            continue
        try:
            loaded = load(graph)
        except InputError as error:
            missed.append(f"{graph['name']}: {error}")
            continue
        if graph.get("sha256") and loaded.sha256 and loaded.sha256 != graph["sha256"]:
            missed.append(f"{graph['name']}: the graph loaded under its name is not the one tuned (sha256 differs)")
            continue
        graph.update({k: v for k, v in graph_statistics(loaded).items() if v is not None})
    return missed
