"""Results files: one JSON document per suite and GPU, the only place a benchmark's numbers live.

    benchmarks/results/<gpu>/<suite>.json

A results file says how it was made (the command, the GPU and its driver, the commit, the date,
the host) and holds every measurement and the suite's summary; `benchmarks render` writes the
documents' tables from the newest files. A run replaces the file of its suite and GPU: the history
of earlier runs is git's.
"""
from __future__ import annotations

import datetime
import json
import math
import os
import platform
import shlex
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping, Sequence

from autotune.files import atomic_write, read_json, slug
from benchmarks.data import suite_name

FORMAT = "autotune.bench/1"
RESULTS_DIR = Path(__file__).resolve().parent / "results"
ROOT = Path(__file__).resolve().parents[1]


def json_safe(value: Any) -> Any:
    """`value` with every float that is not finite replaced by None, through dicts and lists."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, Mapping):
        return {k: json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_safe(v) for v in value]
    return value


@dataclass(frozen=True)
class Results:
    """One suite's run on one GPU (for a CPU suite: the GPU whose records it read).

    Args:
        suite: the suite's name.
        gpu: name, and where measured the compute capability, SMs, driver and CUDA versions.
        command: the command that ran the suite.
        commit: the commit measured (`-dirty` when the tree had changes).
        date: ISO 8601 UTC time the run ended.
        host: the machine: its name, CPU and Python.
        parameters: the suite's options.
        measurements: every measurement, one object each.
        summary: the suite's verdicts and aggregates, rendered into the documents.
    """

    suite: str
    gpu: Mapping[str, Any]
    command: str
    commit: str
    date: str
    host: Mapping[str, Any]
    parameters: Mapping[str, Any] = field(default_factory=dict)
    measurements: tuple[Mapping[str, Any], ...] = ()
    summary: Mapping[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        """The results as JSON has them: a value that is not a finite number (a slowdown not
        priced: infinite) is null, as JSON has no Infinity or NaN (`autotune.files.loads`)."""
        return json_safe({"format": FORMAT, "suite": self.suite, "gpu": dict(self.gpu), "command": self.command,
                          "commit": self.commit, "date": self.date, "host": dict(self.host),
                          "parameters": dict(self.parameters), "summary": dict(self.summary),
                          "measurements": [dict(m) for m in self.measurements]})

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Results:
        return cls(data["suite"], data["gpu"], data["command"], data["commit"], data["date"], data.get("host", {}),
                   data.get("parameters", {}), tuple(data.get("measurements", ())), data.get("summary", {}))

    @property
    def gpu_name(self) -> str:
        return str(self.gpu.get("name", "unknown"))


def commit() -> str:
    """The commit of the tree (with `-dirty` when it has uncommitted changes); `unknown` outside git."""
    if os.environ.get("BENCH_COMMIT"):  # a copy of the tree whose git directory is not its own (a lent GPU machine)
        return os.environ["BENCH_COMMIT"]

    def git(*args: str) -> str:
        return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, check=True).stdout.strip()

    try:
        head = git("rev-parse", "--short=12", "HEAD")
        dirty = git("status", "--porcelain", "--untracked-files=no")
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return head + ("-dirty" if dirty else "")


def host() -> dict[str, Any]:
    return {"name": platform.node(), "cpu": platform.processor() or platform.machine(),
            "python": platform.python_version(), "platform": platform.platform(terse=True)}


def now() -> str:
    return datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0).isoformat()


def command_line(argv: list[str] | None = None) -> str:
    return "python3 -m benchmarks " + shlex.join(sys.argv[1:] if argv is None else argv)


def path_of(results_dir: Path, suite: str, gpu_name: str) -> Path:
    return results_dir / slug(gpu_name) / f"{suite}.json"


def write(results: Results, results_dir: Path = RESULTS_DIR) -> Path:
    """Write a suite's results (atomically), replacing its earlier file for that GPU."""
    path = path_of(results_dir, results.suite, results.gpu_name)
    return atomic_write(path, json.dumps(results.to_json(), indent=1, ensure_ascii=False) + "\n", "the results")


def newest(suite: str, results_dir: Path = RESULTS_DIR) -> list[Results]:
    """Every GPU's results of a suite, ordered by GPU name."""
    found = []
    for path in sorted(results_dir.glob(f"*/{suite}.json")):
        data = read_json(path, "results file")
        if isinstance(data, dict) and data.get("format") == FORMAT:
            found.append(Results.from_json(data))
    return found


def earlier_rows(suite: str, results_dir: Path, gpu_name: Any) -> list[dict[str, Any]]:
    """The rows of the suite's results on `gpu_name` already in `results_dir`: what a run keeps of
    the graphs it does not measure again, each naming the commit that measured it (its results'
    where a row written before rows named theirs does not say)."""
    return [{"commit": earlier.commit, **row} for earlier in newest(suite, results_dir)
            if earlier.gpu_name == gpu_name for row in earlier.measurements]


def graph_of(row: Mapping[str, Any]) -> str:
    """A row's graph as runs name it alike: a real-graph suite graph named by its converted file
    (`cit-HepTh.csr.npz`, as tables name it) or by its suite name (`cit-HepTh`) is one graph."""
    return suite_name(str(row["graph"]))


def kept_rows(earlier: Iterable[dict[str, Any]], measured: Iterable[dict[str, Any]],
              key: Callable[[dict[str, Any]], Any] = graph_of) -> list[dict[str, Any]]:
    """Of an earlier run's rows (`earlier_rows`), those this run did not measure again: whose `key`
    (the row's graph, `graph_of`, unless a suite's rows are finer) no row of `measured` has."""
    done = {key(row) for row in measured}
    return [row for row in earlier if key(row) not in done]


def graph_by_graph(names: Sequence[str], rows_of: Callable[[str], Iterable[dict[str, Any]]],
                   results_of: Callable[[list[dict[str, Any]]], Results], results_dir: Path) -> Results:
    """A suite's rows measured graph by graph, its results file written after each row (a run cut
    short keeps what it measured: a generator's rows one by one); the results of them all."""
    rows: list[dict[str, Any]] = []
    found = None
    for name in names:
        for row in rows_of(name):
            rows.append({**row, "command": row.get("command") or command_line()})  # kept with the row by later runs
            found = results_of(rows)
            write(found, results_dir)
    return found or results_of(rows)


def kept_section(results: Results) -> list[str]:
    """A rendered table's closing lines: `kept_commands` as a list under a heading, or nothing."""
    kept = kept_commands(results)
    return [""] + (["Rows of earlier runs, by the command that measured them:", ""] + [f"- {k}" for k in kept] + [""]
                   if kept else [])


def kept_commands(results: Results) -> list[str]:
    """Where rows kept from earlier runs were measured: a line for each other command (and its
    commits) naming its rows' graphs; rows that name no command (written before rows named theirs)
    are listed as such."""
    by_command: dict[str, list[Mapping[str, Any]]] = {}
    for row in results.measurements:
        if row.get("command") != results.command:
            by_command.setdefault(row.get("command") or "", []).append(row)
    lines = []
    for command, rows in by_command.items():
        commits = ", ".join(dict.fromkeys(str(r.get("commit", results.commit)) for r in rows))
        graphs = ", ".join(dict.fromkeys(str(r["graph"]) for r in rows))
        lines.append(f"`{command}` at {commits}: {graphs}" if command else
                     f"by a command the rows do not record (see their commit's `benchmarks/data`): {graphs}")
    return lines
