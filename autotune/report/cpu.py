"""CPU timings per SSSP as JSON Lines (`autotune.cpu-times/1`): what `scripts/cpu_baseline.py`
writes and the report's "GPU against CPU" section reads, and the GPU sweep's source pool, read
from a sweep table, that both must time.

One line per graph and solver::

    {"format": "autotune.cpu-times/1",
     "graph": {"name": "rmat17", "vertices": 131072, "edges": 3728785, "sha256": "...", "seed": 0,
               "weights": "1-100"},
     "solver": "dijkstra", "sources": [5012, 77, ...], "times_ms": [81.2, 79.9, ...],
     "ms_per_sssp": 80.4, "sources_per_call": 16, "call_overhead_ms": 1.9,
     "timed": "scipy.sparse.csgraph.dijkstra(...) ...",
     "pool": 320, "pool_seed": 0, "pool_from": "sweeps/rmat17.exhaustive.json",
     "machine": {"cpu": "AMD EPYC 7R13", "cores": 2, "python": "3.11.7", "numpy": "2.1.0",
                 "scipy": "1.14.0", "threads": 1},
     "date": "2026-11-21", "command": "python3 scripts/cpu_baseline.py ..."}

`sources` are the vertices timed, in order: the first ones of the pool the GPU sweep draws
(`autotune.measure.choose_sources(graph, pool, pool_seed)`). Each timed call solves
`sources_per_call` consecutive sources (1 when absent); `times_ms` holds one value per call, its
time divided by the sources it solved, so `times_ms` has `len(sources) / sources_per_call`
values. `timed` says in words what the clock covered; `call_overhead_ms`, when given, is what one
call costs besides the solve (input checks, output arrays), measured apart.

Example:
    >>> timings = read_cpu_times("cpu-times.jsonl")  # doctest: +SKIP
    >>> timings[0].ms_per_sssp                                    # doctest: +SKIP
"""
from __future__ import annotations

import json
import shlex
import statistics
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Mapping

from autotune.errors import InputError

CPU_TIMES_FORMAT = "autotune.cpu-times/1"
CPU_SOLVERS = ("dijkstra", "crauser")
SOLVER_TITLES = {"dijkstra": "scipy Dijkstra", "crauser": "CPU Crauser (numpy)"}
# The evidence sweeps' protocol (the H100 sweeps of issue 5: --repetitions 3, CK up to 64): a pool of
# (3 + 2) x 64 = 320 sources, drawn with seed 0.
EVIDENCE_REPETITIONS = 3
EVIDENCE_MAX_CK = 64


def pool_size(repetitions: int, concurrent_kernels: int) -> int:
    """The pool of sources the sweeps before the fixed sample drew (the H100's of issue 5: a warm-up,
    `repetitions` timed and one profiled solve of CK sources each, none sharing a source)."""
    return (repetitions + 2) * concurrent_kernels


@dataclass(frozen=True)
class SourcePool:
    """The pool of source vertices a GPU sweep drew: `choose_sources(graph, size, seed)`."""

    size: int
    seed: int

    def __str__(self) -> str:
        return f"{self.size} sources, seed {self.seed}"


def sweep_source_pool(command: str | None, entry: Mapping[str, Any]) -> SourcePool | None:
    """The source pool of one sweep table entry: the sample its `x-sweep.protocol` records; for a
    table written before it did, the pool the recorded `autotune sweep` command drew (its
    `--sources`, else (--repetitions + 2) x the largest CK of the entry's space, the size that
    gave every solve of a measurement its own sources, and its `--seed`; options it does not use
    are ignored).

    Returns None when neither says (no command, or not a GPU sweep: `--replay`, `--merge`).

    Example:
        >>> entry = {"x-sweep": {"space": {"concurrent_kernels": [1, 4, 16, 64]}}}
        >>> sweep_source_pool("autotune sweep --graph rmat17 --repetitions 3", entry)
        SourcePool(size=320, seed=0)
        >>> sweep_source_pool("autotune sweep --graph rmat17 --sources 128 --seed 2", entry)
        SourcePool(size=128, seed=2)
    """
    sweep = entry.get("x-sweep") or {}
    protocol = sweep.get("protocol") or {}
    if protocol.get("timer") == "cuda-events" and "sample" in protocol:
        return SourcePool(int(protocol["sample"]), int(protocol.get("seed", 0)))
    try:
        words = shlex.split(command or "")
    except ValueError:
        return None
    if "sweep" not in words or "--replay" in words or "--merge" in words:
        return None
    words = [part for word in words for part in (word.split("=", 1) if word.startswith("--") else [word])]
    options = {word: words[i + 1] for i, word in enumerate(words[:-1]) if word.startswith("--")}
    try:
        seed = int(options.get("--seed", 0))
        if "--sources" in options:
            return SourcePool(int(options["--sources"]), seed)
        cks = (sweep.get("space") or {}).get("concurrent_kernels") or []
        repetitions = int(options.get("--repetitions", 5))
        return SourcePool(pool_size(repetitions, max(int(ck) for ck in cks)), seed) if cks else None
    except (TypeError, ValueError):
        return None


@dataclass(frozen=True)
class CpuTiming:
    """One solver's times per SSSP on one graph.

    Args:
        graph: the graph object (name, vertices, edges, sha256, seed, weights).
        solver: `dijkstra` (scipy) or `crauser` (`autotune.reference.crauser`).
        sources: the source vertices timed, in order.
        times_ms: milliseconds per source of each timed call (its time over the sources it solved).
        machine: what ran it (cpu, cores, versions).
        date: when (ISO 8601 date).
        pool: size of the GPU sweep's source pool the sources were taken from.
        pool_seed: the seed of that pool.
        command: the command line that measured it.
        sources_per_call: sources each timed call solved (the last call may solve fewer).
        timed: what the clock covered, in words.
        call_overhead_ms: what one call costs besides the solve, measured apart (None: not measured).
        pool_from: where the pool's size and seed came from (a sweep table, `--sources`, the default).
    """

    graph: Mapping[str, Any]
    solver: str
    sources: tuple[int, ...]
    times_ms: tuple[float, ...]
    machine: Mapping[str, Any] = field(default_factory=dict)
    date: str = ""
    pool: int | None = None
    pool_seed: int | None = None
    command: str | None = None
    sources_per_call: int = 1
    timed: str | None = None
    call_overhead_ms: float | None = None
    pool_from: str | None = None

    @property
    def graph_name(self) -> str:
        return str(self.graph.get("name", "?"))

    @property
    def graph_sha256(self) -> str:
        return str(self.graph.get("sha256") or "")

    @property
    def ms_per_sssp(self) -> float:
        """Median milliseconds per SSSP over the timed calls."""
        return statistics.median(self.times_ms)

    @property
    def source_pool(self) -> SourcePool | None:
        """The pool the sources were taken from, when recorded."""
        return SourcePool(int(self.pool), int(self.pool_seed or 0)) if self.pool is not None else None

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "format": CPU_TIMES_FORMAT,
            "graph": dict(self.graph),
            "solver": self.solver,
            "sources": list(self.sources),
            "times_ms": list(self.times_ms),
            "ms_per_sssp": self.ms_per_sssp,
            "sources_per_call": self.sources_per_call,
        }
        if self.timed:
            data["timed"] = self.timed
        if self.call_overhead_ms is not None:
            data["call_overhead_ms"] = self.call_overhead_ms
        data.update({"pool": self.pool, "pool_seed": self.pool_seed})
        if self.pool_from:
            data["pool_from"] = self.pool_from
        data.update({"machine": dict(self.machine), "date": self.date})
        if self.command:
            data["command"] = self.command
        return data

    @classmethod
    def from_json(cls, data: Any, where: str = "cpu times") -> CpuTiming:
        """Read one line's object.

        Raises:
            InputError: another format, a missing key or a bad value, naming `where`.
        """
        if not isinstance(data, Mapping):
            raise InputError(f"{where}: expected a JSON object, found {type(data).__name__}")
        if data.get("format") != CPU_TIMES_FORMAT:
            raise InputError(f"{where}: not a CPU timing (its \"format\" is {data.get('format')!r}, "
                             f"expected {CPU_TIMES_FORMAT!r}); scripts/cpu_baseline.py writes them")
        try:
            graph = data["graph"]
            if not isinstance(graph, Mapping) or "name" not in graph:
                raise InputError(f"{where}: graph must be an object with a name")
            solver = str(data["solver"])
            if solver not in CPU_SOLVERS:
                raise InputError(f"{where}: unknown solver {solver!r}; expected one of {', '.join(CPU_SOLVERS)}")
            times = tuple(float(t) for t in data["times_ms"])
            sources = tuple(int(s) for s in data.get("sources", ()))
            per_call = int(data.get("sources_per_call") or 1)
            overhead = data.get("call_overhead_ms")
            overhead = float(overhead) if overhead is not None else None
        except KeyError as error:
            raise InputError(f"{where}: missing key {error.args[0]!r}") from None
        except (TypeError, ValueError) as error:
            raise InputError(f"{where}: {error}") from None
        if not times or any(t <= 0 for t in times):
            raise InputError(f"{where}: times_ms must hold positive times, found {list(times)[:4]}")
        if per_call < 1:
            raise InputError(f"{where}: sources_per_call must be at least 1, found {per_call}")
        return cls(graph=dict(graph), solver=solver, sources=sources, times_ms=times,
                   machine=dict(data.get("machine") or {}), date=str(data.get("date", "")),
                   pool=data.get("pool"), pool_seed=data.get("pool_seed"), command=data.get("command"),
                   sources_per_call=per_call, timed=data.get("timed"), call_overhead_ms=overhead,
                   pool_from=data.get("pool_from"))


def machine_text(machine: Mapping[str, Any]) -> str:
    """`AMD EPYC 7R13, 2 cores; Python 3.11.7, numpy 2.1.0, scipy 1.14.0` from a timing's machine."""
    cores = machine.get("cores")
    versions = ", ".join(f"{title} {machine[key]}" for key, title in (("python", "Python"), ("numpy", "numpy"),
                                                                        ("scipy", "scipy")) if machine.get(key))
    text = str(machine.get("cpu") or "unknown CPU") + (f", {cores} cores" if cores else "")
    return text + (f"; {versions}" if versions else "")


def is_cpu_times_line(data: Any) -> bool:
    """Whether a parsed JSON Lines object is a CPU timing (rather than a sweep record)."""
    return isinstance(data, Mapping) and data.get("format") == CPU_TIMES_FORMAT


def read_cpu_times(path: str | Path) -> list[CpuTiming]:
    """Read a CPU timings file (`.jsonl` or `.jsonl.gz`; blank lines and `#` comments are skipped).

    Raises:
        InputError: unreadable file, invalid JSON or a bad line (with its number), or no timing.
    """
    from autotune.report.jsonl import json_lines

    path = Path(path)
    timings = [CpuTiming.from_json(data, f"{path}:{number}") for number, data in json_lines(path)]
    if not timings:
        raise InputError(f"{path}: holds no CPU timings")
    return timings


def cpu_times_text(timings: Iterable[CpuTiming], header: str | None = None) -> str:
    """The JSON Lines text of `timings` (with an optional `# header` line)."""
    lines = [f"# {line}" for line in header.splitlines()] if header else []
    lines += [json.dumps(t.to_json(), separators=(",", ":")) for t in timings]
    return "\n".join(lines) + "\n"
