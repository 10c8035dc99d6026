"""Read what a report is built from, and group it by graph and strategy.

Inputs are any mix of sweep tables (`.json`, `autotune.table/1`), measurement records (`.jsonl`
or `.jsonl.gz`, `autotune.records/1`, also the engine benchmark's lines), CPU timings (`.jsonl`,
`autotune.cpu-times/1`) and directories holding them (searched recursively, in name order). A
table entry and the records of the same graph (sha256, else name) and strategy label
(`exhaustive`, `bayes-tpe`, ...) form one `Run`.

Example:
    >>> inputs = load_inputs(["sweeps"])  # doctest: +SKIP
    >>> [run.strategy for run in inputs.runs_of(inputs.graphs[0].key)]  # doctest: +SKIP
    ['exhaustive', 'bayes-tpe']
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

from autotune.errors import InputError
from autotune.launch import DEFAULT_ALGORITHM
from autotune.report.cpu import CpuTiming, is_cpu_times_line, read_cpu_times
from autotune.report.jsonl import is_json_lines, json_lines
from autotune.search.results.records import Record
from autotune.table.entry import Entry, entries_of
from autotune.table.format import read_table

UNKNOWN_DEVICE = "unknown"


@dataclass(frozen=True)
class GraphSummary:
    """A graph as the report names it.

    Args:
        name: the spec or file name.
        key: what identifies it across inputs: its sha256, else its name.
        vertices, edges: n and m (0 when the inputs do not say).
        sha256: the CSR digest, when known.
        mean_degree: d(G).
        stress_ratio: st(G, GPU), when a table gives it.
        stress_class, degree_class: the model's classes, when a table gives them.
    """

    name: str
    key: str
    vertices: int = 0
    edges: int = 0
    sha256: str = ""
    mean_degree: float | None = None
    stress_ratio: float | None = None
    stress_class: str | None = None
    degree_class: str | None = None

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> GraphSummary:
        """From a table entry's or a record's graph object."""
        vertices, edges = int(data.get("vertices", 0) or 0), int(data.get("edges", 0) or 0)
        mean = data.get("mean_degree")
        if mean is None and vertices:
            mean = edges / vertices
        sha = str(data.get("sha256") or "")
        return cls(name=str(data["name"]), key=sha or str(data["name"]), vertices=vertices, edges=edges,
                   sha256=sha, mean_degree=mean, stress_ratio=data.get("stress_ratio"),
                   stress_class=data.get("stress_class"), degree_class=data.get("degree_class"))

    def merged(self, other: GraphSummary) -> GraphSummary:
        """This summary with the fields it lacks taken from `other` (the same graph)."""
        values = {name: getattr(self, name) or getattr(other, name) for name in
                  ("vertices", "edges", "sha256", "mean_degree", "stress_ratio", "stress_class", "degree_class")}
        return replace(self, **values)


def natural_key(name: str) -> tuple[Any, ...]:
    """Sort key that orders random24k-d2 < random24k-d20 < random49k-d2 and rmat9 < rmat17."""
    return tuple((0, int(part), "") if part.isascii() and part.isdigit() else (1, 0, part) for part in re.split(r"([0-9]+)", name))


def strategy_order(strategy: str) -> tuple[int, str]:
    """Exhaustive first, then Bayesian searches, then the model alone, then anything else."""
    for rank, prefix in enumerate(("exhaustive", "bayes", "model")):
        if strategy == prefix or strategy.startswith(prefix + "-"):
            return rank, strategy
    return 3, strategy


@dataclass(frozen=True)
class Run:
    """One strategy's sweep of one graph: its table entry and/or its records.

    Args:
        graph: the graph.
        strategy: the strategy label (`exhaustive`, `bayes-tpe`, `model`, `engine-benchmark`).
        entry: the table entry (None when only records were given).
        records: every measurement, in the order taken (empty when only a table was given).
        files: the input files it came from.
        command: the command that wrote the table (None when only records were given).
    """

    graph: GraphSummary
    strategy: str
    entry: Entry | None = None
    records: tuple[Record, ...] = ()
    files: tuple[str, ...] = ()
    command: str | None = None

    @property
    def evaluations(self) -> int:
        """GPU measurements: the records' count, else the table's `evaluations`."""
        if self.records:
            return len(self.records)
        return (self.entry.evaluations or 0) if self.entry else 0


@dataclass(frozen=True)
class InputFile:
    """One file read: its path as given, what it is, and a short account of its content."""

    path: str
    kind: str  # table, records, cpu-times
    content: str


@dataclass(frozen=True)
class ReportInputs:
    """Everything a report is built from.

    Args:
        device: the GPU's description (a table's device object; at least `name`).
        algorithm: crauser or martin.
        runs: one per graph and strategy.
        cpu: CPU timings per graph and solver.
        files: the files read.
        notes: what the reader should know about the inputs (duplicates dropped, ...).
    """

    device: Mapping[str, Any]
    algorithm: str
    runs: tuple[Run, ...]
    cpu: tuple[CpuTiming, ...] = ()
    files: tuple[InputFile, ...] = ()
    notes: tuple[str, ...] = field(default=())

    @property
    def graphs(self) -> list[GraphSummary]:
        """Every graph with a run, in natural name order."""
        seen: dict[str, GraphSummary] = {}
        for run in self.runs:
            seen[run.graph.key] = seen[run.graph.key].merged(run.graph) if run.graph.key in seen else run.graph
        return sorted(seen.values(), key=lambda g: (natural_key(g.name), g.key))

    def runs_of(self, graph_key: str) -> list[Run]:
        """The runs of one graph, exhaustive first."""
        return sorted((r for r in self.runs if r.graph.key == graph_key), key=lambda r: strategy_order(r.strategy))

    @property
    def strategies(self) -> list[str]:
        return sorted({r.strategy for r in self.runs}, key=strategy_order)


def expand_paths(paths: Iterable[str | Path]) -> list[Path]:
    """Files named, and the tables (`.json`) and JSON Lines (`.jsonl`, `.jsonl.gz`) under
    directories named (recursively, in name order; hidden files are skipped).

    Raises:
        InputError: a path that does not exist, or a directory without such files.
    """
    files: list[Path] = []
    for given in paths:
        path = Path(given)
        if path.is_dir():
            found = sorted(p for p in path.rglob("*") if p.is_file() and not p.name.startswith(".")
                           and (p.suffix == ".json" or is_json_lines(p)))
            if not found:
                raise InputError(f"{path}: holds no .json tables or .jsonl records")
            files += found
        elif path.is_file():
            files.append(path)
        else:
            raise InputError(f"{path}: no such file or directory")
    return list(dict.fromkeys(files))


def _read_lines(path: Path) -> tuple[str, list[Any]]:
    """A JSON Lines file's kind (`records` or `cpu-times`, from its first line) and its objects."""
    lines = json_lines(path)
    if not lines:
        raise InputError(f"{path}: holds no records")
    if is_cpu_times_line(lines[0][1]):
        return "cpu-times", [CpuTiming.from_json(data, f"{path}:{n}") for n, data in lines]
    return "records", [Record.from_json(data, f"{path}:{n}") for n, data in lines]


def _check_one(values: Mapping[str, set[str]], what: str) -> str:
    found = {value for value in values if value != UNKNOWN_DEVICE}
    if len(found) > 1:
        listed = "; ".join(f"{value!r} in {', '.join(sorted(values[value]))}" for value in sorted(found))
        raise InputError(f"the inputs mix {what}s ({listed}); a report covers one {what}: give one {what}'s files")
    return found.pop() if found else UNKNOWN_DEVICE


def load_inputs(paths: Sequence[str | Path], cpu_paths: Sequence[str | Path] = ()) -> ReportInputs:
    """Read every input and group it into runs (see the module docstring).

    Args:
        paths: tables, records, CPU timings, or directories holding them.
        cpu_paths: CPU timings files (`--cpu-times`).

    Raises:
        InputError: unreadable or malformed input (file:line), inputs of several GPUs or
            algorithms, or nothing to report.
    """
    tables: list[tuple[str, dict[str, Any]]] = []
    records: list[tuple[str, list[Record]]] = []
    cpu: list[CpuTiming] = []
    files: list[InputFile] = []
    for path in expand_paths(paths):
        if path.suffix == ".json":
            table = read_table(path)
            tables.append((str(path), table))
            files.append(InputFile(str(path), "table", f"{table.get('algorithm')} table, "
                                   f"{len(entries_of(table))} graph(s)"))
        elif is_json_lines(path):
            kind, found = _read_lines(path)
            if kind == "cpu-times":
                cpu += found
                files.append(InputFile(str(path), kind, f"{len(found)} CPU timing(s)"))
            else:
                records.append((str(path), found))
                files.append(InputFile(str(path), kind, f"{len(found)} measurement record(s)"))
        else:
            raise InputError(f"{path}: expected a table (.json), records or CPU timings (.jsonl, .jsonl.gz), "
                             "or a directory")
    for given in cpu_paths:
        found = read_cpu_times(given)
        cpu += found
        files.append(InputFile(str(given), "cpu-times", f"{len(found)} CPU timing(s)"))
    if not tables and not records:
        raise InputError("no sweep table or records among the inputs; give the tables (.json) and records (.jsonl) "
                         "that autotune sweep wrote")
    devices: dict[str, set[str]] = {}
    algorithms: dict[str, set[str]] = {}
    for where, table in tables:
        devices.setdefault(str(table["device"].get("name")), set()).add(where)
        algorithms.setdefault(str(table["algorithm"]), set()).add(where)
    for where, found in records:
        for record in found:
            devices.setdefault(record.device_name, set()).add(where)
            if record.strategy != "engine-benchmark":  # its lines do not name the algorithm
                algorithms.setdefault(record.algorithm, set()).add(where)
    device_name = _check_one(devices, "GPU")
    algorithm = _check_one(algorithms, "algorithm")
    device = next((t["device"] for _w, t in tables if t["device"].get("name") == device_name), None)
    if device is None:
        device = next((r.device for _w, rs in records for r in rs if r.device_name == device_name), {"name": device_name})
    runs, notes = _group(tables, records)
    return ReportInputs(device=dict(device), algorithm=DEFAULT_ALGORITHM if algorithm == UNKNOWN_DEVICE else algorithm,
                        runs=tuple(runs), cpu=tuple(cpu), files=tuple(files), notes=tuple(notes))


def _group(tables: Sequence[tuple[str, Mapping[str, Any]]],
           records: Sequence[tuple[str, Sequence[Record]]]) -> tuple[list[Run], list[str]]:
    notes: list[str] = []
    entries: dict[tuple[str, str], tuple[str, Entry, GraphSummary]] = {}
    commands: dict[tuple[str, str], str | None] = {}
    for where, table in sorted(tables, key=lambda item: str(item[1].get("created", ""))):
        for entry in entries_of(table):
            graph = GraphSummary.from_json(entry.graph.to_json())
            strategy = str(entry.get("strategy") or "predicted")
            key = (graph.key, strategy)
            if key in entries:
                notes.append(f"{graph.name} ({strategy}): {entries[key][0]} is replaced by the newer {where}")
            entries[key] = (where, entry, graph)
            commands[key] = table.get("command")
    grouped: dict[tuple[str, str], tuple[str, list[Record], GraphSummary]] = {}
    for where, found in records:
        in_file: dict[tuple[str, str], list[Record]] = {}
        for record in found:
            in_file.setdefault((record.graph.key, record.strategy), []).append(record)
        for key, group in in_file.items():
            if key in grouped:
                notes.append(f"{group[0].graph.name} ({key[1]}): the records of {grouped[key][0]} are replaced "
                             f"by those of {where}")
            grouped[key] = (where, group, GraphSummary.from_json(group[0].graph.to_json()))
    # Records that do not name the graph's digest (engine benchmark) join the graph of that name.
    by_name: dict[str, set[str]] = {}
    for _where, _entry, graph in entries.values():
        by_name.setdefault(graph.name, set()).add(graph.key)
    for _where, _group, graph in grouped.values():
        by_name.setdefault(graph.name, set()).add(graph.key)
    runs = []
    for key in sorted(set(entries) | set(grouped), key=lambda k: (k[0], strategy_order(k[1]))):
        entry_where, entry, entry_graph = entries.get(key, ("", None, None))
        records_where, group, records_graph = grouped.get(key, ("", [], None))
        graph = entry_graph.merged(records_graph) if entry_graph and records_graph else entry_graph or records_graph
        if not graph.sha256:
            digests = {k for k in by_name.get(graph.name, ()) if k != graph.name}
            if len(digests) == 1:
                graph = replace(graph, key=digests.pop())
        runs.append(Run(graph, key[1], entry, tuple(group), tuple(w for w in (entry_where, records_where) if w),
                        commands.get(key)))
    # Share what the entries know (classes, degree) with every run of the graph.
    merged: dict[str, GraphSummary] = {}
    for run in runs:
        merged[run.graph.key] = merged[run.graph.key].merged(run.graph) if run.graph.key in merged else run.graph
    return [replace(run, graph=merged[run.graph.key].merged(run.graph)) for run in runs], notes
